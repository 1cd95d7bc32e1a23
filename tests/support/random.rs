//! A small deterministic random number generator, so failures reproduce from their seed.

/// xorshift64* numbers.
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (0 counts as 1: the state must not be zero).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// A float in `[-1000, 1000)`, never NaN (the tests compare bits).
    pub fn f32(&mut self) -> f32 {
        (self.next_u32() as f32 / u32::MAX as f32) * 2000.0 - 1000.0
    }

    /// A float in `[-range, range)` with random low mantissa bits.
    pub fn f32_in(&mut self, range: f32) -> f32 {
        ((self.next_u32() >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0) * range
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u32() as u8).collect()
    }

    /// `N` random bytes, as an array.
    pub fn array<const N: usize>(&mut self) -> [u8; N] {
        std::array::from_fn(|_| self.next_u32() as u8)
    }
}

/// A random struct format of 1 to `max_fields` fields (`f0`, `f1`, …) of any format `layout`
/// takes.
pub fn random_format(
    rng: &mut Rng,
    layout: gpudata::StructLayout,
    max_fields: u64,
) -> gpudata::GpuDataStructFormat {
    let candidates: Vec<gpudata::VertexFormat> = gpudata::VertexFormat::ALL
        .iter()
        .copied()
        .filter(|f| layout == gpudata::StructLayout::WgslStorage || !f.is_webgl_only())
        .collect();
    let n = 1 + rng.below(max_fields) as usize;
    let fields: Vec<(String, gpudata::VertexFormat)> = (0..n)
        .map(|i| {
            let f = candidates[rng.below(candidates.len() as u64) as usize];
            (format!("f{i}"), f)
        })
        .collect();
    gpudata::GpuDataStructFormat::new(layout, fields)
        .unwrap_or_else(|e| panic!("random declarations are valid: {e}"))
}
