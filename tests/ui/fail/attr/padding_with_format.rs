use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Vertex {
    position: [f32; 3],
    #[gpu(padding, format = "uint32")]
    _pad: u32,
}

fn main() {}
