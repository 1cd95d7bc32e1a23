use gpudata::GpuStruct;
use gpudata::record::RuntimeArray;

#[derive(Clone, Copy, GpuStruct)]
struct Particles {
    count: u32,
    items: RuntimeArray<[f32; 4]>,
}

// A runtime-sized struct cannot be a member of another struct (WGSL: only the outermost struct
// may end in a runtime-sized array).
#[derive(Clone, Copy, GpuStruct)]
struct World {
    time: f32,
    particles: Particles,
}

fn main() {}
