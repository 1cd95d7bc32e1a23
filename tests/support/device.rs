//! The test devices: one shared device per test binary, new devices with lowered limits, buffers,
//! and wgpu's validation errors.

use std::sync::OnceLock;

use gpudata::Gpu;

/// The usage of the tests' data: vertex, storage, copy source and destination (the library's
/// default).
pub const USAGE: wgpu::BufferUsages = wgpu::BufferUsages::VERTEX
    .union(wgpu::BufferUsages::STORAGE)
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// How to get the adapter the tests run on, for their failure messages.
const INSTALL: &str = "GPU tests run on a Vulkan adapter (CI: lavapipe); on Debian/Ubuntu install \
     the software Vulkan driver with `apt-get install mesa-vulkan-drivers` (`./dev test` does)";

/// Panics unless `backend` is Vulkan: the tests' oracles (SPIR-V from naga, lavapipe's results)
/// are Vulkan's, and on a machine with only OpenGL wgpu would pick an llvmpipe GL adapter whose
/// GLSL lays uniform `matCx2` columns out by std140 rules, failing the uniform round trips with
/// no hint that the driver is the cause.
fn require_vulkan(backend: wgpu::Backend, adapter: &str) {
    assert!(
        backend == wgpu::Backend::Vulkan,
        "the test adapter is {adapter} on {backend}, not Vulkan: {INSTALL}"
    );
}

/// The test binary's device. Tests never skip: without a Vulkan adapter this panics saying how
/// to install the software one (`mesa-vulkan-drivers`).
pub fn gpu() -> Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(fresh_gpu).clone()
}

/// A new [`Gpu::headless`] device, made as the shared [`gpu`] is: for a test that destroys it or
/// its buffers, and for the operation tests (lavapipe runs one queue's work in order, so tests
/// that run many kernels in parallel each take a device and queue of their own rather than wait
/// on the shared one).
pub fn fresh_gpu() -> Gpu {
    let gpu = Gpu::headless().unwrap_or_else(|e| panic!("{e}; {INSTALL}"));
    require_vulkan(gpu.adapter_info().backend, &gpu.adapter_summary());
    gpu
}

/// The most bytes one buffer holds on [`small_gpu`].
pub const SMALL_BUFFER: u64 = 1024;

/// The binary's device whose buffers hold at most [`SMALL_BUFFER`] bytes (256 `float32` rows):
/// columns of a few hundred rows become chunked columns.
pub fn small_gpu() -> Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        limited_gpu("1 KiB buffers", |limits| {
            limits.max_buffer_size = SMALL_BUFFER;
        })
    })
    .clone()
}

/// A new device labelled `label` on the adapter [`Gpu::headless`] picks (high performance
/// first, then the fallback), with the adapter's limits as `adjust` leaves them and no features:
/// for tests where a lowered limit is the point, or that destroy their device.
pub fn limited_gpu(label: &str, adjust: impl FnOnce(&mut wgpu::Limits)) -> Gpu {
    featured_gpu(label, wgpu::Features::empty(), adjust)
}

/// As [`limited_gpu`], with the adapter's features among `wanted` (a test asks
/// [`Gpu::device`]'s features which it got).
pub fn featured_gpu(
    label: &str,
    wanted: wgpu::Features,
    adjust: impl FnOnce(&mut wgpu::Limits),
) -> Gpu {
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
    .unwrap_or_else(|e| panic!("no wgpu adapter ({e}): {INSTALL}"));
    let info = adapter.get_info();
    require_vulkan(info.backend, &info.name);
    let mut limits = adapter.limits();
    adjust(&mut limits);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some(label),
        required_features: adapter.features() & wanted,
        required_limits: limits,
        ..Default::default()
    }))
    .unwrap_or_else(|e| panic!("the adapter refused a device: {e}"));
    Gpu::from_device_queue(device, queue)
}

/// `values` uploaded as `float32` data with the library's default usage.
pub fn floats(gpu: &Gpu, values: &[f32]) -> gpudata::GpuData {
    floats_with(gpu, values, gpudata::data::DEFAULT_USAGE)
}

/// `values` uploaded as `float32` data with `usage`.
pub fn floats_with(gpu: &Gpu, values: &[f32], usage: wgpu::BufferUsages) -> gpudata::GpuData {
    gpudata::GpuData::from_slice(gpu, gpudata::VertexFormat::Float32, values, usage)
        .unwrap_or_else(|e| panic!("float32 data of {} values: {e}", values.len()))
}

/// Runs `f` inside a validation error scope and returns wgpu's error message, if any.
pub fn validation_error<R>(gpu: &Gpu, f: impl FnOnce() -> R) -> (R, Option<String>) {
    let scope = gpu.device().push_error_scope(wgpu::ErrorFilter::Validation);
    let out = f();
    let error = pollster::block_on(scope.pop()).map(|e| e.to_string());
    (out, error)
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

/// A buffer holding `bytes` (padded with zeros to a multiple of 4, at least 4 bytes), with
/// `usage` and `COPY_DST`.
pub fn buffer_with(gpu: &Gpu, bytes: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let size = (bytes.len() as u64).div_ceil(4) * 4;
    let buffer = buffer(gpu, size.max(4), usage | wgpu::BufferUsages::COPY_DST);
    let mut padded = bytes.to_vec();
    padded.resize(size as usize, 0);
    gpu.queue().write_buffer(&buffer, 0, &padded);
    gpu.queue().submit([]);
    buffer
}

/// Bytes the device's allocator holds (lavapipe's Vulkan allocator reports them).
pub fn allocated_bytes(gpu: &Gpu) -> u64 {
    gpu.device()
        .generate_allocator_report()
        .expect("the vulkan backend reports its allocations")
        .total_allocated_bytes
}

/// Waits for the device's queued work, then asserts that its allocator holds at most `before`
/// bytes (what it held before the test made anything): nothing of `what` is left.
pub fn assert_nothing_left(gpu: &Gpu, before: u64, what: &str) {
    gpu.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let after = allocated_bytes(gpu);
    assert!(
        after <= before,
        "no buffer of {what} is left: {after} bytes allocated, {before} before"
    );
}
