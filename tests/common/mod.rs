//! Helpers shared by the GPU tests: one device per test binary, buffers, pipelines, readback
//! of render targets and a small deterministic random number generator.
#![allow(
    dead_code,
    reason = "each test binary uses a different subset of the helpers"
)]

use std::sync::OnceLock;

use gpudata::Gpu;

/// The test binary's device. Tests never skip: without an adapter this panics with
/// [`Gpu::headless`]'s error, which says how to install the software adapter.
pub fn gpu() -> Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| Gpu::headless().unwrap_or_else(|e| panic!("{e}")))
        .clone()
}

/// A zeroed buffer of `size` bytes.
pub fn buffer(gpu: &Gpu, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("test buffer"),
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// A buffer holding `bytes` (padded with zeros to a multiple of 4).
pub fn buffer_with(gpu: &Gpu, bytes: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let size = (bytes.len() as u64).div_ceil(4) * 4;
    let buffer = buffer(gpu, size.max(4), usage | wgpu::BufferUsages::COPY_DST);
    let mut padded = bytes.to_vec();
    padded.resize(size as usize, 0);
    gpu.queue().write_buffer(&buffer, 0, &padded);
    gpu.queue().submit([]);
    buffer
}

/// Runs `f` inside a validation error scope and returns wgpu's error message, if any.
pub fn validation_error<R>(gpu: &Gpu, f: impl FnOnce() -> R) -> (R, Option<String>) {
    let scope = gpu.device().push_error_scope(wgpu::ErrorFilter::Validation);
    let out = f();
    let error = pollster::block_on(scope.pop()).map(|e| e.to_string());
    (out, error)
}

/// A shader module from WGSL text, failing the test with wgpu's message when it is invalid.
pub fn shader(gpu: &Gpu, label: &str, wgsl: &str) -> wgpu::ShaderModule {
    let (module, error) = validation_error(gpu, || {
        gpu.device()
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(wgsl.into()),
            })
    });
    if let Some(error) = error {
        panic!("shader `{label}` is invalid: {error}\n{wgsl}");
    }
    module
}

/// Deterministic xorshift64* numbers, so failures reproduce.
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
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

    /// A float in `[-1000, 1000)` that is not NaN (the tests compare bits).
    pub fn f32(&mut self) -> f32 {
        (self.next_u32() as f32 / u32::MAX as f32) * 2000.0 - 1000.0
    }

    /// Random bytes.
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        std::array::from_fn(|_| self.next_u32() as u8)
    }
}

/// A vertex + fragment shader (`vs`, `fs`) declaring one `@location(i)` input per field of
/// `format`, typed as vertex fetch delivers it; it draws nothing useful, it only makes a pipeline
/// validate the format's vertex layout against real shader inputs.
pub fn attribute_probe_shader(format: &gpudata::GpuDataStructFormat) -> String {
    let inputs: Vec<String> = format
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| format!("@location({i}) a{i}: {}", f.format().vertex_input_type()))
        .collect();
    format!(
        "@vertex fn vs({}) -> @builtin(position) vec4<f32> {{ return vec4<f32>(0.0, 0.0, 0.0, 1.0); }}\n\
         @fragment fn fs() -> @location(0) vec4<f32> {{ return vec4<f32>(1.0); }}\n",
        inputs.join(", ")
    )
}
