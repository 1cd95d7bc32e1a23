//! Helpers shared by the table tests: one device per test binary, uploads, liveness checks.
#![allow(dead_code, reason = "each test binary uses a different subset of the helpers")]

use std::sync::OnceLock;

use gpudata::{GpuData, GpuDataDescriptor, GpuDataFormat, Gpu, VertexFormat};

/// Usage of the test data.
pub const USAGE: wgpu::BufferUsages = gpudata::data::DEFAULT_USAGE;

/// The test binary's device. Tests never skip: without an adapter this panics with
/// [`Gpu::headless`]'s error, which names `mesa-vulkan-drivers`.
pub fn gpu() -> Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| Gpu::headless().unwrap_or_else(|e| panic!("{e}")))
        .clone()
}

/// Runs `f` inside a validation error scope and returns wgpu's error message, if any.
pub fn validation_error<R>(gpu: &Gpu, f: impl FnOnce() -> R) -> (R, Option<String>) {
    let scope = gpu.device().push_error_scope(wgpu::ErrorFilter::Validation);
    let out = f();
    let error = pollster::block_on(scope.pop()).map(|e| e.to_string());
    (out, error)
}

/// Whether `data`'s buffer can still be read (a destroyed buffer makes wgpu report an error).
pub fn alive(gpu: &Gpu, data: &GpuData) -> bool {
    let (result, error) = validation_error(gpu, || data.read_bytes(gpu));
    match (&result, &error) {
        (Ok(_), None) => true,
        (_, Some(message)) => {
            assert!(message.contains("destroyed"), "unexpected wgpu error: {message}");
            false
        }
        (Err(e), None) => panic!("readback failed without a wgpu error: {e}"),
    }
}

/// `values` of `format` in a new owned buffer.
pub fn column<P: bytemuck::Pod>(gpu: &Gpu, format: VertexFormat, values: &[P]) -> GpuData {
    GpuData::from_slice(gpu, format, values, USAGE).unwrap()
}

/// `rows` zeroed rows of `format`.
pub fn zeroed(gpu: &Gpu, format: impl Into<GpuDataFormat>, rows: u64) -> GpuData {
    GpuData::zeroed(gpu, format, rows, USAGE).unwrap()
}

/// `bytes` described by `descriptor`, in a new owned buffer.
pub fn bytes(gpu: &Gpu, bytes: &[u8], descriptor: GpuDataDescriptor) -> GpuData {
    GpuData::from_bytes(gpu, bytes, descriptor, USAGE).unwrap()
}

/// Little-endian bytes of `f32`s.
pub fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}
