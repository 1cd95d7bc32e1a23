use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "packed")]
#[gpu(layout = "wgsl-storage")]
struct Vertex {
    #[gpu(name = "a_position", name = "position")]
    position: [f32; 3],
}

fn main() {}
