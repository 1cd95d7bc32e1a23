// `tint` and `normal` swapped: each feeds the other's location, where wgsl `vs_main` reads
// another scalar kind (`normal` is `vec4<i32>`, `tint` `vec4<f32>`): named at both fields, with
// the location and the input. `vs_bake` reads only location 0 and finds nothing wrong.
use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    layout = "packed",
    shader = "../../shaders/shadow.wgsl",
    vertex_entry = "vs_bake, vs_main"
)]
struct Vertex {
    position: [i8; 4],
    tint: gpudata::Unorm8x4,
    normal: [i8; 4],
}

fn main() {}
