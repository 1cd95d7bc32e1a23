use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Vertex {
    position: [f32; 3],
    #[gpu(format = "unorm16x4")]
    color: [u8; 4],
}

fn main() {}
