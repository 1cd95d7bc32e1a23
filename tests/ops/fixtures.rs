//! Helpers of the operation tests: operations on the shared device or on one with lowered
//! limits or other tuning, uploads, random values of every format, and GPU-vs-CPU comparison.
//! The byte helpers and the generator come from `support`, re-exported for the tests' `use
//! crate::fixtures::*`.

use gpudata::ops::OpsConfig;
use gpudata::{Gpu, GpuData, GpuDataStructFormat, GpuDataView, VertexFormat};
use wgpu::util::DeviceExt as _;

pub use crate::support::{Rng, f32_bytes, f32s, fresh_gpu, random_format, u32_bytes, u32s};

/// A device with the adapter's own limits, adjusted by `adjust`.
pub fn ops_with_limits(adjust: impl FnOnce(&mut wgpu::Limits)) -> Gpu {
    ops_with(adjust, OpsConfig::default()).0
}

/// A new device with the limits `adjust` sets, and the tuning `config` to plan with.
pub fn ops_with(adjust: impl FnOnce(&mut wgpu::Limits), config: OpsConfig) -> (Gpu, OpsConfig) {
    (crate::support::limited_gpu("ops tests", adjust), config)
}

/// A device with the adapter's own limits, and a tuning of `workgroup_size` invocations per
/// workgroup, `rows_per_thread` and staging of sources and outputs both on or both off.
pub fn ops_tuned(
    workgroup_size: u32,
    rows_per_thread: Option<u32>,
    staging: bool,
) -> (Gpu, OpsConfig) {
    ops_with(
        |_| {},
        OpsConfig {
            workgroup_size,
            rows_per_thread,
            stage_outputs: staging,
            stage_sources: staging,
            ..OpsConfig::default()
        },
    )
}

/// A storage buffer holding `bytes` (padded with zeros to a whole word).
pub fn upload(gpu: &Gpu, bytes: &[u8]) -> wgpu::Buffer {
    let mut padded = bytes.to_vec();
    padded.resize(bytes.len().next_multiple_of(4).max(4), 0);
    gpu.device()
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("ops test input"),
            contents: &padded,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        })
}

/// `length` packed values of `format` at the start of `buffer`.
pub fn view(buffer: &wgpu::Buffer, format: VertexFormat, length: u64) -> GpuDataView<'_> {
    view_at(buffer, format, length, 0, None)
}

/// `length` values of `format` in `buffer`, the first at `byte_offset`, every `byte_stride`
/// bytes (packed for `None`). A view of no values starts at most at the buffer's end (views
/// never start past it; the random layouts of the tests put empty columns anywhere).
pub fn view_at(
    buffer: &wgpu::Buffer,
    format: VertexFormat,
    length: u64,
    byte_offset: u64,
    byte_stride: Option<u64>,
) -> GpuDataView<'_> {
    let byte_offset = if length == 0 {
        byte_offset.min(buffer.size())
    } else {
        byte_offset
    };
    GpuDataView::new(buffer, format, length, byte_offset, byte_stride)
        .unwrap_or_else(|e| panic!("a test view must be valid: {e}"))
}

/// `length` rows of `format` in `buffer` (shared), the first at `byte_offset`, every
/// `byte_stride` bytes (the format's stride for `None`).
pub fn rows_at(
    buffer: &wgpu::Buffer,
    format: &GpuDataStructFormat,
    length: u64,
    byte_offset: u64,
    byte_stride: Option<u64>,
) -> GpuData {
    let descriptor = gpudata::data::GpuDataDescriptor::new(format.clone(), length)
        .with_byte_offset(byte_offset)
        .with_byte_stride(byte_stride.unwrap_or(format.byte_stride()));
    GpuData::new(
        gpudata::data::BufferHandle::Shared(buffer.clone()),
        descriptor,
    )
    .unwrap_or_else(|e| panic!("test rows must be valid: {e}"))
}

/// The one vertex format of an operation's output column.
pub fn format_of(data: &GpuData) -> VertexFormat {
    data.as_view()
        .unwrap_or_else(|| panic!("expected a column, found {:?}", data.format()))
        .format()
}

/// Random bytes of one value of `format`: floats finite and moderate (no subnormals, so GPUs
/// that flush them agree with the CPU), integers over their whole range.
pub fn random_value(rng: &mut Rng, format: VertexFormat) -> Vec<u8> {
    use gpudata::format::DataType;
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
