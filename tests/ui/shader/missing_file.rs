use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "shaders/particles.wgsl", shader_struct = "Particle")]
struct Particle {
    position: [f32; 3],
}

fn main() {}
