use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = packed, stride = "32", location = -1, step_mode)]
struct Vertex {
    #[gpu(offset = 4.5, padding = true)]
    position: [f32; 3],
}

fn main() {}
