use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Vertex {
    position: [f32; 3],
    #[gpu(padding)]
    _pad: bool,
}

fn main() {}
