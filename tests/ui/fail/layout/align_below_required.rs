use gpudata::GpuStruct;

// A `vec4<f32>` needs 16-byte alignment: `align = 4` is below it.
#[derive(Clone, Copy, GpuStruct)]
struct Vector {
    a: f32,
    #[gpu(align = 4)]
    b: [f32; 4],
}

// A `mat4x4<f32>` needs 16-byte alignment: `align = 8` is below it.
#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct Matrix {
    a: f32,
    #[gpu(wgsl = "mat4x4<f32>", align = 8)]
    m: [[f32; 4]; 4],
}

fn main() {}
