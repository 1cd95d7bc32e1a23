//! `fround`: float64 values to `f32` high and low parts (spec §8.8), on the GPU with 32-bit
//! integer operations only.

use super::output::output_data;
use crate::data::{GpuData, GpuDataDescriptor, GpuDataView};
use crate::device::Gpu;
use crate::format::VertexFormat;
use crate::ops::kernels::Planner;
use crate::ops::kernels::transform::body::{Body, RowCtx, ValueRef};
use crate::ops::kernels::transform::plan::{self, KernelRequest};
use crate::ops::{OpError, OpPlan, OpsConfig};

/// The NaN `fround` writes, on the GPU and in the CPU reference.
pub(crate) const NAN_BITS: u32 = 0x7fc0_0000;

/// The input formats `fround` takes and the output each gives: one or two doubles per row.
pub(crate) fn fround_output(
    op: &'static str,
    format: VertexFormat,
) -> Result<VertexFormat, OpError> {
    match format {
        VertexFormat::Uint32x2 => Ok(VertexFormat::Float32x2),
        VertexFormat::Uint32x4 => Ok(VertexFormat::Float32x4),
        _ => Err(OpError::UnsupportedFormat {
            op,
            input: 0,
            format,
            expected: "`uint32x2` or `uint32x4` (one or two float64 values as little-endian word pairs)",
        }),
    }
}

/// The split of one double (its bits), as `(hi, lo)` `f32` bits: the CPU formula
/// `hi = x as f32; lo = (x - hi) as f32`, with NaNs written as [`NAN_BITS`].
pub(crate) fn fround_bits(x: f64) -> (u32, u32) {
    if x.is_nan() {
        return (NAN_BITS, NAN_BITS);
    }
    let hi = x as f32;
    if x.is_infinite() {
        return (hi.to_bits(), NAN_BITS);
    }
    // Exact in f64: |x - hi| is below one f32 ulp of x and a multiple of x's f64 ulp (or hi is
    // infinite and the difference is the opposite infinity).
    let lo = (x - f64::from(hi)) as f32;
    (hi.to_bits(), lo.to_bits())
}

/// The WGSL split: 64-bit integers as `(high word, low word)` pairs.
const FROUND_WGSL: &str = "struct Rounded { bits: u32, q: u32, k: i32 }

// m (an integer below 2^55 as high and low words) >> k, for 0 < k < 64.
fn shr64(h: u32, l: u32, k: u32) -> vec2<u32> {
    if (k >= 32u) { return vec2<u32>(0u, h >> (k - 32u)); }
    return vec2<u32>(h >> k, (l >> k) | (h << (32u - k)));
}

// m << k, for 0 <= k < 64 (the result fits in 64 bits).
fn shl64(h: u32, l: u32, k: u32) -> vec2<u32> {
    if (k == 0u) { return vec2<u32>(h, l); }
    if (k >= 32u) { return vec2<u32>(l << (k - 32u), 0u); }
    return vec2<u32>((h << k) | (l >> (32u - k)), l << k);
}

// Whether any of the lowest i bits of m is set, for 0 <= i < 64.
fn low_bits_set(h: u32, l: u32, i: u32) -> bool {
    if (i == 0u) { return false; }
    if (i < 32u) { return (l & ((1u << i) - 1u)) != 0u; }
    if (i == 32u) { return l != 0u; }
    return l != 0u || (h & ((1u << (i - 32u)) - 1u)) != 0u;
}

// Rounds the magnitude m * 2^p (m below 2^55) to f32 bits, ties to even, subnormals and
// overflow to infinity included. Also returns the rounded significand q and the bits dropped k
// (the result's value is q * 2^(p + k) unless it overflowed).
fn round_mag(h: u32, l: u32, p: i32) -> Rounded {
    if ((h | l) == 0u) { return Rounded(0u, 0u, 0); }
    var nb: i32;
    if (h != 0u) { nb = 64 - i32(countLeadingZeros(h)); } else { nb = 32 - i32(countLeadingZeros(l)); }
    let e = nb - 1 + p;
    if (e > 127) { return Rounded(0x7f800000u, 0u, 0); }
    let u = max(e - 23, -149);
    let k = u - p;
    var q: u32;
    if (k <= 0) {
        q = l << u32(-k);
    } else if (k > 56) {
        q = 0u;
    } else {
        let kk = u32(k);
        q = shr64(h, l, kk).y;
        let half_bit = shr64(h, l, kk - 1u).y & 1u;
        let sticky = low_bits_set(h, l, kk - 1u);
        if (half_bit == 1u && (sticky || (q & 1u) == 1u)) { q = q + 1u; }
    }
    return Rounded((u32(u + 149) << 23u) + q, q, k);
}

// (hi, lo) f32 bits of the double whose words are (lo_w, hi_w).
fn fround_split(lo_w: u32, hi_w: u32) -> vec2<u32> {
    let sign = hi_w & 0x80000000u;
    let ex = (hi_w >> 20u) & 0x7ffu;
    let fh = hi_w & 0xfffffu;
    if (ex == 0x7ffu) {
        if ((fh | lo_w) != 0u) { return vec2<u32>(0x7fc00000u, 0x7fc00000u); }
        return vec2<u32>(sign | 0x7f800000u, 0x7fc00000u);
    }
    // |x| >= 2^128: hi overflows, lo is the opposite infinity.
    if (ex > 1150u) { return vec2<u32>(sign | 0x7f800000u, (sign ^ 0x80000000u) | 0x7f800000u); }
    // |x| < 2^-150: both parts are zeros, lo keeping x's sign unless x is zero.
    if (ex < 873u) { return vec2<u32>(sign, select(sign, 0u, (fh | lo_w) == 0u)); }
    // Fast path, exponents -126..127: hi is a normal f32 (or overflows to infinity), 29 bits
    // are dropped from the 53-bit significand, and lo is formed from them.
    if (ex >= 897u) {
        let base = ((ex - 896u) << 23u) | (fh << 3u) | (lo_w >> 29u);
        let r = lo_w & 0x1fffffffu;
        let up = r > 0x10000000u || (r == 0x10000000u && (base & 1u) == 1u);
        let hi_mag = base + select(0u, 1u, up);
        if (hi_mag == 0x7f800000u) {
            return vec2<u32>(sign | hi_mag, (sign ^ 0x80000000u) | 0x7f800000u);
        }
        // lo = d * 2^(ex - 1075), d at most 2^28, its sign flipped when hi rounded up.
        let d = select(r, 0x20000000u - r, up);
        if (d == 0u) { return vec2<u32>(sign | hi_mag, 0u); }
        let ds = select(sign, sign ^ 0x80000000u, up);
        let nb = i32(32u - countLeadingZeros(d));
        // Bits of d to drop: down to 24 significant bits, or to f32's subnormal ulp 2^-149.
        let k = max(nb - 24, 926 - i32(ex));
        var q: u32;
        if (k <= 0) {
            q = d << u32(-k);
        } else {
            let kk = u32(k);
            q = d >> kk;
            let rem = d & ((1u << kk) - 1u);
            let half = 1u << (kk - 1u);
            if (rem > half || (rem == half && (q & 1u) == 1u)) { q = q + 1u; }
        }
        return vec2<u32>(sign | hi_mag, ds | ((u32(k + i32(ex) - 926) << 23u) + q));
    }
    var mh = fh;
    var p = -1074;
    if (ex != 0u) { mh = fh | 0x100000u; p = i32(ex) - 1075; }
    let r = round_mag(mh, lo_w, p);
    let hi = sign | r.bits;
    if (r.bits == 0x7f800000u) { return vec2<u32>(hi, (sign ^ 0x80000000u) | 0x7f800000u); }
    if (r.k <= 0) { return vec2<u32>(hi, 0u); }
    // d = |x| - |hi| in units of 2^p, and its sign.
    var hv = vec2<u32>(0u, 0u);
    if (r.q != 0u) { hv = shl64(0u, r.q, u32(r.k)); }
    var dh: u32;
    var dl: u32;
    var ds = sign;
    if (mh > hv.x || (mh == hv.x && lo_w >= hv.y)) {
        dl = lo_w - hv.y;
        dh = mh - hv.x - select(0u, 1u, lo_w < hv.y);
    } else {
        dl = hv.y - lo_w;
        dh = hv.x - mh - select(0u, 1u, hv.y < lo_w);
        ds = sign ^ 0x80000000u;
    }
    if ((dh | dl) == 0u) { return vec2<u32>(hi, 0u); }
    return vec2<u32>(hi, ds | round_mag(dh, dl, p).bits);
}
";

/// Row code: each double's words through `fround_split`; highs in the first half of the row,
/// lows in the second.
struct FroundBody {
    from: ValueRef,
    doubles: u64,
}

impl Body for FroundBody {
    fn row(&self, ctx: &mut RowCtx<'_>) {
        for d in 0..self.doubles {
            let lo = ctx.unit(self.from, d * 8, 4);
            let hi = ctx.unit(self.from, d * 8 + 4, 4);
            let split = ctx.bind(&format!("fround_split({lo}, {hi})"));
            ctx.emit(0, d * 4, 4, format!("{split}.x"));
            ctx.emit(0, (self.doubles + d) * 4, 4, format!("{split}.y"));
        }
    }

    fn helpers(&self) -> String {
        FROUND_WGSL.to_owned()
    }
}

/// Plans [`fround`] on `gpu` with the kernels' tuning `config`, without running it.
///
/// # Errors
/// [`OpError::UnsupportedFormat`] for inputs other than `uint32x2`/`uint32x4`, the input checks,
/// the device limits and [`OpError::Gpu`].
pub fn plan_fround(
    gpu: &Gpu,
    config: &OpsConfig,
    input: GpuDataView<'_>,
) -> Result<OpPlan<GpuData>, OpError> {
    const OP: &str = "fround";
    let output = fround_output(OP, input.format())?;
    let doubles = u64::from(input.format().components() / 2);
    let length = input.length();
    let request = KernelRequest {
        op: OP,
        views: vec![input],
        length,
        output_strides: vec![output.byte_length()],
        constants: Vec::new(),
    };
    let built = plan::build(&Planner::new(gpu, config), request, |refs| FroundBody {
        from: refs[0],
        doubles,
    })?;
    let data = output_data(gpu, OP, &built.outputs[0], output, length)?;
    Ok(OpPlan::new(OP, built, data))
}

/// Splits float64 values, read as little-endian word pairs (`uint32x2`: one per row, or
/// `uint32x4`: two per row), into `f32` parts: `float32x2` rows `[hi, lo]` or `float32x4` rows
/// `[hi0, hi1, lo0, lo1]`, with `hi` the nearest `f32` and `lo` the nearest `f32` to `x − hi`.
/// Bit for bit equal to [`cpu::fround`](super::cpu::fround).
///
/// # Errors
/// As [`plan_fround`].
pub fn fround(gpu: &Gpu, input: GpuDataView<'_>) -> Result<GpuData, OpError> {
    plan_fround(gpu, &OpsConfig::default(), input)?.run(gpu)
}

/// Uploads `values` (for example the values of an Arrow `Float64Array`) and splits them: a
/// `float32x2` column of `[hi, lo]` rows.
///
/// # Errors
/// [`OpError::Gpu`] when the upload fails, then as [`plan_fround`].
pub fn fround_f64(gpu: &Gpu, values: &[f64]) -> Result<GpuData, OpError> {
    fround_uploaded(gpu, bytemuck::cast_slice(values))
}

/// Uploads `bytes` (little-endian float64 values) and splits them as one `uint32x2` column.
fn fround_uploaded(gpu: &Gpu, bytes: &[u8]) -> Result<GpuData, OpError> {
    const OP: &str = "fround";
    let words = GpuData::from_bytes(
        gpu,
        bytes,
        GpuDataDescriptor::new(VertexFormat::Uint32x2, (bytes.len() / 8) as u64),
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    )
    .map_err(|source| OpError::data(OP, source))?;
    let view = super::input::column(OP, &words)?;
    fround(gpu, view)
}

/// The values of an Arrow `Float64Array` as little-endian bytes, borrowed.
///
/// # Errors
/// [`OpError::WrongData`] when the array has nulls.
#[cfg(feature = "arrow")]
pub(crate) fn arrow_f64_bytes<'a>(
    op: &'static str,
    array: &'a arrow_array::Float64Array,
) -> Result<&'a [u8], OpError> {
    use arrow_array::Array as _;
    let nulls = array.null_count();
    if nulls > 0 {
        let plural = if nulls == 1 { "" } else { "s" };
        return Err(OpError::WrongData {
            op,
            expected: "an Arrow Float64 array without nulls",
            found: format!("{nulls} null value{plural}"),
        });
    }
    Ok(bytemuck::cast_slice::<f64, u8>(array.values()))
}

/// Uploads the values of an Arrow `Float64Array` (its bytes as they are, honoring the array's
/// offset) and splits them: a `float32x2` column of `[hi, lo]` rows.
///
/// # Errors
/// [`OpError::WrongData`] for an array with nulls, then as [`fround_f64`].
#[cfg(feature = "arrow")]
pub fn fround_arrow(gpu: &Gpu, array: &arrow_array::Float64Array) -> Result<GpuData, OpError> {
    const OP: &str = "fround";
    fround_uploaded(gpu, arrow_f64_bytes(OP, array)?)
}

#[cfg(test)]
mod tests {
    use super::fround_bits;

    #[test]
    fn cpu_split_matches_spec_vectors() {
        assert_eq!(fround_bits(1.0), (1f32.to_bits(), 0));
        assert_eq!(fround_bits(0.1), (0x3dcc_cccd, 0xb0cc_cccd));
        assert_eq!(fround_bits(-1.0 / 3.0), (0xbeaa_aaab, 0x322a_aaab));
        assert_eq!(
            fround_bits(core::f64::consts::PI),
            (0x4049_0fdb, 0xb3bb_bd2e)
        );
        assert_eq!(
            fround_bits(-core::f64::consts::E),
            (0xc02d_f854, 0xb3b1_4577)
        );
        assert_eq!(
            fround_bits(16_777_217.0),
            (16_777_216f32.to_bits(), 1f32.to_bits())
        );
        assert_eq!(
            fround_bits(1.0 + 3.0 * 2f64.powi(-25)),
            (0x3f80_0001, 0xb300_0000)
        );
        assert_eq!(fround_bits(2f64.powi(-149)), (1, 0));
        assert_eq!(fround_bits(2f64.powi(-150)), (0, 0));
        assert_eq!(
            fround_bits(9_007_199_254_740_991.0),
            (0x5a00_0000, (-1f32).to_bits())
        );
        assert_eq!(fround_bits(3.402_823_5e38), (0x7f7f_ffff, 0x7229_b5ff));
        assert_eq!(fround_bits(3.5e38), (0x7f80_0000, 0xff80_0000));
        assert_eq!(fround_bits(-3.5e38), (0xff80_0000, 0x7f80_0000));
        assert_eq!(fround_bits(f64::NAN), (0x7fc0_0000, 0x7fc0_0000));
        assert_eq!(fround_bits(f64::INFINITY), (0x7f80_0000, 0x7fc0_0000));
        assert_eq!(fround_bits(-0.0), (0x8000_0000, 0));
    }
}
