// `color` as uint8x4 delivers vec4<u32> to the vec4<f32> input at location 1 (luma.gl's rule;
// unorm8x4 would feed it), and `position` has one component too few: both named at the field.
use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(
    layout = "packed",
    shader = "particles.wgsl",
    vertex_entry = "vs_main"
)]
struct Vertex {
    position: [f32; 2],
    color: [u8; 4],
}

fn main() {}
