use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Aligned {
    a: f32,
    #[gpu(align = 12)]
    b: f32,
}

#[derive(Clone, Copy, GpuStruct)]
struct Sized {
    #[gpu(size = 8)]
    a: [f32; 3],
}

fn main() {}
