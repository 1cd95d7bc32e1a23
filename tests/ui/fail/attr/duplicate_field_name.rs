use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Vertex {
    position: [f32; 3],
    #[gpu(name = "position")]
    offset: [f32; 3],
}

fn main() {}
