use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Light {
    intensity: f32,
    #[gpu(offset = 4)]
    position: [f32; 3],
}

fn main() {}
