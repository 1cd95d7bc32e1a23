// A third field feeds location 2, which `vs_main` does not read: named at the field, with the
// locations the entry point reads.
use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    layout = "packed",
    shader = "particles.wgsl",
    vertex_entry = "vs_main"
)]
struct Vertex {
    position: [f32; 3],
    color: gpudata::Unorm8x4,
    size: f32,
}

fn main() {}
