use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Vertex {
    #[gpu(format = "unorm8x3")]
    color: [u8; 3],
}

fn main() {}
