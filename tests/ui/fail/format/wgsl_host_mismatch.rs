use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Transform {
    #[gpu(wgsl = "mat4x4<f32>")]
    matrix: [[f32; 3]; 3],
}

fn main() {}
