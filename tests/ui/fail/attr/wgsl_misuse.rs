use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Unknown {
    #[gpu(wgsl = "mat4x4<bool>")]
    a: [[f32; 4]; 4],
    #[gpu(wgsl = "f32", format = "float32")]
    b: f32,
}

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "packed")]
struct Packed {
    #[gpu(align = 16)]
    a: f32,
}

fn main() {}
