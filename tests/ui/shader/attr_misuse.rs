// `shader` without what to check, `shader_struct` without `shader`, a missing entry point.
use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "particles.wgsl")]
struct A {
    position: [f32; 3],
}

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader_struct = "Particle")]
struct B {
    position: [f32; 3],
}

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "particles.wgsl", vertex_entry = "vs")]
struct C {
    position: [f32; 3],
}

fn main() {}
