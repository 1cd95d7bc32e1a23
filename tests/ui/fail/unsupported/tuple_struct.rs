use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Position([f32; 3], f32);

fn main() {}
