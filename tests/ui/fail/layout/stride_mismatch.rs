use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[gpu(stride = 12)]
struct Vertex {
    position: [f32; 3],
}

fn main() {}
