//! A uniform struct whose WGSL size (28 bytes) is not a multiple of 16: the host's
//! `wgsl-uniform` layout measures it 32, the bytes it takes as a uniform struct member, and
//! binding those 32 bytes is valid WebGPU, so the compile-time check accepts it (it refused it
//! before: "host struct `SimParams` is 32 bytes, the shader's is 28").

use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    layout = "wgsl-uniform",
    shader = "../shader/uniform_params.wgsl",
    shader_global = "params",
    group = 0,
    binding = 0
)]
#[allow(dead_code)]
struct SimParams {
    dt: f32,
    rule1_distance: f32,
    rule2_distance: f32,
    rule3_distance: f32,
    rule1_scale: f32,
    rule2_scale: f32,
    rule3_scale: f32,
}

fn main() {}
