use gpudata::GpuStruct;
use gpudata::record::RuntimeArray;

#[derive(Clone, Copy, GpuStruct)]
struct Particle {
    position: [f32; 3],
}

// WGSL allows a runtime-sized array only as the last member.
#[derive(Clone, Copy, GpuStruct)]
struct Particles {
    items: RuntimeArray<Particle>,
    count: u32,
}

fn main() {}
