use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Vertex {
    position: [f32; 3],
    weight: f64,
}

fn main() {}
