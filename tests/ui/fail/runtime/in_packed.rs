use gpudata::GpuStruct;
use gpudata::record::RuntimeArray;

// A packed struct is a vertex row, of fixed size.
#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "packed")]
struct Vertex {
    position: [f32; 3],
    weights: RuntimeArray<f32>,
}

fn main() {}
