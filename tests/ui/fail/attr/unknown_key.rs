use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[gpu(align = 16)]
struct Vertex {
    #[gpu(normalize)]
    color: [u8; 4],
}

fn main() {}
