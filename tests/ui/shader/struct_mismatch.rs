// Packed rows put `velocity` at 12 where WGSL puts it at 16, and `color` is a float where WGSL
// stores a u32: both fields fail in one build, spanned at the field, naming the WGSL line.
use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    layout = "packed",
    shader = "particles.wgsl",
    shader_struct = "Particle"
)]
struct Particle {
    position: [f32; 3],
    velocity: [f32; 3],
    color: f32,
}

fn main() {}
