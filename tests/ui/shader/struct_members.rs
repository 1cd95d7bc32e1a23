// A field the WGSL struct lacks and a WGSL member the struct lacks, named at the field and at
// the struct name, in the same build as the const error of a matched field (`color`'s type).
use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "particles.wgsl", shader_struct = "Particle")]
struct Particle {
    position: [f32; 3],
    speed: [f32; 3],
    color: f32,
}

fn main() {}
