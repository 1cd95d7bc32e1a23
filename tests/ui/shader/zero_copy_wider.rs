// `num_lights` is `[u32; 3]` (vec3<u32>, 12 bytes) where the shader declares `vec4<u32>`: the
// `zero_copy` check names that mismatch instead of asking for 4 bytes of `#[gpu(padding)]`,
// which would make the host bytes the gpu rows and leave the shader reading a fourth component
// the host never writes.
use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[repr(C)]
#[gpu(
    layout = "wgsl-uniform",
    zero_copy,
    shader = "../../shaders/shadow.wgsl",
    shader_global = "globals",
    group = 0,
    binding = 0
)]
struct Globals {
    #[gpu(wgsl = "mat4x4<f32>")]
    view_proj: [[f32; 4]; 4],
    num_lights: [u32; 3],
}

fn main() {}
