// Disagreements deep in nested types, each spanned at the Rust field and naming the path below
// it and the WGSL line: `lights[].intensity` sits elsewhere in the shader's Light (and
// `lights[].color` is a vec3 there: one more, counted), `normal` is a mat3x4 in the shader.
use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
struct Light {
    position: [f32; 3],
    intensity: f32,
    color: [f32; 4],
}

#[derive(GpuStruct, Clone, Copy)]
#[gpu(layout = "wgsl-uniform", shader = "nested.wgsl", shader_struct = "Scene")]
struct Scene {
    #[gpu(wgsl = "mat4x4<f32>")]
    view: [[f32; 4]; 4],
    lights: [Light; 2],
    #[gpu(wgsl = "mat3x3<f32>")]
    normal: [[f32; 3]; 3],
}

fn main() {}
