use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "broken.wgsl", shader_struct = "Broken")]
struct Broken {
    a: f32,
    b: f32,
}

fn main() {}
