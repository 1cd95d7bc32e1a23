use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "packed")]
struct Vertex {
    position: [f32; 3],
    legacy: [u16; 3],
}

fn main() {}
