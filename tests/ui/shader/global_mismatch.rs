// `shader_global`: a @group that differs (at `group`), a member the rows lack (at the field) and,
// in the same build, a const error of a matched field (`mass` is a u32 where the shader stores an f32); a
// global that does not exist; a global holding no struct rows; a private variable; `group`
// without `shader_global`; `shader_global` without `binding`; both `shader_struct` and
// `shader_global`.
use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    layout = "packed",
    shader = "nested.wgsl",
    shader_global = "particles",
    group = 1,
    binding = 2
)]
struct Particle {
    position: [f32; 3],
    mass: u32,
    speed: f32,
}

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "nested.wgsl", shader_global = "camera", group = 0, binding = 0)]
struct Camera {
    eye: [f32; 3],
}

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "nested.wgsl", shader_global = "heights", group = 0, binding = 3)]
struct Height {
    value: f32,
}

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "nested.wgsl", shader_struct = "Particle", group = 0)]
struct Loose {
    position: [f32; 3],
    mass: f32,
}

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "nested.wgsl", shader_global = "scratch", group = 0, binding = 0)]
struct Scratch {
    position: [f32; 3],
    mass: f32,
}

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "nested.wgsl", shader_global = "particles", group = 0)]
struct NoBinding {
    position: [f32; 3],
    mass: f32,
}

#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    shader = "nested.wgsl",
    shader_struct = "Particle",
    shader_global = "particles",
    group = 0,
    binding = 2
)]
struct Both {
    position: [f32; 3],
    mass: f32,
}

fn main() {}
