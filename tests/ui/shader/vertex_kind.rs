// `color` as uint8x4 delivers u32 values to the vec4<f32> input at location 1 (unorm8x4 would
// feed it): named at the field. `position` has one component too few, which WebGPU allows.
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
