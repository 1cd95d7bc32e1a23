use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Particle {
    position: [f32; 3],
}

#[derive(Clone, Copy, GpuStruct)]
struct Light {
    position: [f32; 3],
}

fn main() {
    let _ = Particle::field::<light_fields::Position>();
}
