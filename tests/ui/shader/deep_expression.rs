use gpudata::GpuStruct;

// `tests/shaders/deep_sum.wgsl` sums 10,000 terms in one `return`: naga's reader would overflow
// the compiler's stack (issue 30); the derive refuses it first, naming the bound.
#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "../../shaders/deep_sum.wgsl", shader_struct = "Particle")]
struct Particle {
    position: [f32; 3],
    mass: f32,
}

fn main() {}
