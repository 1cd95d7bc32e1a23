use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct Weights {
    count: u32,
    #[gpu(wgsl = "array<f32, 4>")]
    weights: [f32; 4],
}

fn main() {}
