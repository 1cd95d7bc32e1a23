//! `check_vertex_set!` refusing vertex states the structs pass one by one: an input of the entry
//! point no buffer feeds, a location two buffers feed, a buffer never checked against the entry
//! point.

use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    layout = "packed",
    shader = "../../shaders/shadow.wgsl",
    vertex_entry = "vs_bake, vs_main"
)]
struct Vertex {
    position: [i8; 4],
    normal: [i8; 2],
}

/// At location 1, as `Vertex::normal`.
#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    layout = "packed",
    step_mode = "instance",
    location = 1,
    shader = "../../shaders/shadow.wgsl",
    vertex_entry = "vs_main"
)]
struct Clash {
    normal: [i8; 4],
    tint: [f32; 4],
}

/// No `vertex_entry`.
#[derive(GpuStruct, Clone, Copy)]
#[gpu(layout = "packed", step_mode = "instance", location = 2)]
struct Unchecked {
    tint: [f32; 4],
}

// `tint` (location 2) is fed by nothing.
gpudata::check_vertex_set!("vs_main": Vertex);
// Location 1 twice.
gpudata::check_vertex_set!("vs_main": Vertex, Clash);
// `Unchecked` was never checked against `vs_main`.
gpudata::check_vertex_set!("vs_main": Vertex, Unchecked);

fn main() {}
