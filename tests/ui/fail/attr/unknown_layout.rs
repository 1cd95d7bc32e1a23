use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "std140")]
struct Uniforms {
    exposure: f32,
}

fn main() {}
