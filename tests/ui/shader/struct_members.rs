// A field the WGSL struct lacks and a WGSL member the struct lacks, named at the field and at
// the struct name.
use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "../../../../tests/ui/shader/particles.wgsl", shader_struct = "Particle")]
struct Particle {
    position: [f32; 3],
    speed: [f32; 3],
}

fn main() {}
