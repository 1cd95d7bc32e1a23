//! Vertex structs the compile-time check refused before it followed WebGPU's rules, as wgpu
//! applies them, and now accepts: an attribute no input reads, component counts that differ, one
//! buffer checked against a depth-only and a shaded entry point at once; and whole vertex
//! states (`check_vertex_set!`) of those buffers.

use gpudata::{GpuStruct, Unorm8x4};

/// `size` feeds location 2, which `vs_main` does not read; `position` has one component fewer
/// than the `vec3<f32>` it feeds (the missing one reads as 0).
#[derive(GpuStruct, Clone, Copy)]
#[gpu(layout = "packed", shader = "../shader/particles.wgsl", vertex_entry = "vs_main")]
#[allow(dead_code)]
struct Particle {
    position: [f32; 2],
    color: Unorm8x4,
    size: f32,
}

/// wgpu's shadow example: `vs_bake` reads `position` only, `vs_main` `normal` too, whose
/// `sint8x2` feeds a `vec4<i32>`.
#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    layout = "packed",
    shader = "../../shaders/shadow.wgsl",
    vertex_entry = "vs_bake, vs_main"
)]
#[allow(dead_code)]
struct Vertex {
    position: [i8; 4],
    normal: [i8; 2],
}

/// A `float32x4` feeding the `vec4<f32>` tint, at location 2 of the instance buffer.
#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    layout = "packed",
    step_mode = "instance",
    location = 2,
    shader = "../../shaders/shadow.wgsl",
    vertex_entry = "vs_main"
)]
#[allow(dead_code)]
struct Instance {
    tint: [f32; 4],
}

// The whole vertex states: the shaded pass's two buffers feed every input of `vs_main`, the
// depth pass's one buffer every input of `vs_bake`, no location twice.
gpudata::check_vertex_set!("vs_main": Vertex, Instance);
gpudata::check_vertex_set!("vs_bake": Vertex);

fn main() {}
