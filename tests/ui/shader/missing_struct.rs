use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "particles.wgsl", shader_struct = "Particel")]
struct Particle {
    position: [f32; 3],
}

fn main() {}
