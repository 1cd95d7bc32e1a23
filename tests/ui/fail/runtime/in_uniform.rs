use gpudata::GpuStruct;
use gpudata::record::RuntimeArray;

// Uniform buffers have a fixed size.
#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct Lights {
    count: u32,
    colors: RuntimeArray<[f32; 4]>,
}

fn main() {}
