//! Shared helpers of the `ops_*` tests: a device (lavapipe in CI; a missing adapter fails, with
//! the package to install), uploads, random values of every format, and GPU-vs-CPU comparison.
#![allow(dead_code)] // Each test file uses a different subset.

use gpudata::ops::GpuOps;
use gpudata::{GpuDataStructFormat, StructLayout, VertexFormat};
use wgpu::util::DeviceExt as _;

/// A device with the adapter's own limits, adjusted by `adjust`.
pub fn ops_with_limits(adjust: impl FnOnce(&mut wgpu::Limits)) -> GpuOps {
    ops_with(adjust, gpudata::ops::OpsConfig::default())
}

/// Operations on [`gpudata::Gpu::headless`] (the adapter's own limits, default tuning).
pub fn ops() -> GpuOps {
    let gpu = gpudata::Gpu::headless().unwrap_or_else(|e| {
        panic!("GPU tests need an adapter (install `mesa-vulkan-drivers` for lavapipe): {e}")
    });
    GpuOps::from_gpu(&gpu)
}

/// A device with adjusted limits and a given tuning.
pub fn ops_with(adjust: impl FnOnce(&mut wgpu::Limits), config: gpudata::ops::OpsConfig) -> GpuOps {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .or_else(|_| {
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            force_fallback_adapter: true,
            ..Default::default()
        }))
    })
    .unwrap_or_else(|e| {
        panic!(
            "no wgpu adapter ({e}): GPU tests need one; on Debian/Ubuntu install the software \
             Vulkan driver with `apt-get install mesa-vulkan-drivers` (lavapipe)"
        )
    });
    let mut limits = adapter.limits();
    adjust(&mut limits);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("ops tests"),
        required_features: wgpu::Features::empty(),
        required_limits: limits,
        ..Default::default()
    }))
    .unwrap_or_else(|e| panic!("the adapter refused a device: {e}"));
    GpuOps::with_config(&device, &queue, config)
}

/// Operations on a device with the adapter's own limits, `workgroup_size` invocations per
/// workgroup, `rows_per_thread` and staging of sources and outputs both on or both off.
pub fn ops_tuned(workgroup_size: u32, rows_per_thread: Option<u32>, staging: bool) -> GpuOps {
    ops_with(
        |_| {},
        gpudata::ops::OpsConfig {
            workgroup_size,
            rows_per_thread,
            stage_outputs: staging,
            stage_sources: staging,
        },
    )
}

/// A storage buffer holding `bytes` (padded with zeros to a whole word).
pub fn upload(ops: &GpuOps, bytes: &[u8]) -> wgpu::Buffer {
    let mut padded = bytes.to_vec();
    padded.resize(bytes.len().next_multiple_of(4).max(4), 0);
    ops.device()
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("ops test input"),
            contents: &padded,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        })
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// A float in `[-range, range)` with random low mantissa bits.
    pub fn f32_in(&mut self, range: f32) -> f32 {
        ((self.next_u32() >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0) * range
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u32() as u8).collect()
    }
}

/// Random bytes of one value of `format`: floats finite and moderate (no subnormals, so GPUs
/// that flush them agree with the CPU), integers over their whole range.
pub fn random_value(rng: &mut Rng, format: VertexFormat) -> Vec<u8> {
    use gpudata::DataType;
    let mut out = Vec::with_capacity(format.byte_length() as usize);
    if format.is_packed_bits() {
        out.extend_from_slice(&rng.next_u32().to_le_bytes());
        return out;
    }
    for _ in 0..format.components() {
        match format.data_type() {
            DataType::Float32 => out.extend_from_slice(&rng.f32_in(1000.0).to_le_bytes()),
            DataType::Float16 => {
                // Finite halves, subnormals included (they decode to normal f32s).
                let h = (rng.next_u32() & 0xffff) as u16;
                let h = if (h >> 10) & 0x1f == 0x1f {
                    h & 0xbbff
                } else {
                    h
                };
                out.extend_from_slice(&h.to_le_bytes());
            }
            other => {
                let v = rng.next_u32().to_le_bytes();
                out.extend_from_slice(&v[..other.byte_length() as usize]);
            }
        }
    }
    out
}

/// A random struct format of 1 to `max_fields` fields (`f0`, `f1`, …) of any format `layout`
/// takes.
pub fn random_format(rng: &mut Rng, layout: StructLayout, max_fields: u64) -> GpuDataStructFormat {
    let candidates: Vec<VertexFormat> = VertexFormat::ALL
        .iter()
        .copied()
        .filter(|f| layout == StructLayout::WgslStorage || !f.is_webgl_only())
        .collect();
    let n = 1 + rng.below(max_fields) as usize;
    let fields: Vec<(String, VertexFormat)> = (0..n)
        .map(|i| {
            let f = candidates[rng.below(candidates.len() as u64) as usize];
            (format!("f{i}"), f)
        })
        .collect();
    GpuDataStructFormat::new(layout, fields).unwrap()
}

/// `length` rows of `stride` bytes after `offset` bytes of random filler, with a random value of
/// `format` at `field_offset` of each row.
pub fn random_rows(
    rng: &mut Rng,
    format: VertexFormat,
    length: u64,
    offset: u64,
    stride: u64,
    field_offset: u64,
) -> Vec<u8> {
    let total = offset + length * stride;
    let mut bytes = rng.bytes(total as usize);
    for row in 0..length {
        let at = (offset + row * stride + field_offset) as usize;
        let value = random_value(rng, format);
        bytes[at..at + value.len()].copy_from_slice(&value);
    }
    bytes
}

/// Compares float32 outputs within `tolerance` relative (≥ 1 absolute scale), NaN equal to NaN.
pub fn assert_f32_close(gpu: &[u8], cpu: &[u8], tolerance: f32, what: &str) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: byte lengths");
    for (i, (g, c)) in gpu.chunks_exact(4).zip(cpu.chunks_exact(4)).enumerate() {
        let g = f32::from_le_bytes([g[0], g[1], g[2], g[3]]);
        let c = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        if g.is_nan() && c.is_nan() {
            continue;
        }
        let ok = g == c || (g - c).abs() <= tolerance * c.abs().max(1.0);
        assert!(
            ok,
            "{what}: value {i}: gpu {g} ({:#x}), cpu {c} ({:#x})",
            g.to_bits(),
            c.to_bits()
        );
    }
}

/// Little-endian `f32` bytes.
pub fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Little-endian `u32` bytes.
pub fn u32_bytes(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// `f32`s of little-endian bytes.
pub fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `u32`s of little-endian bytes.
pub fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
