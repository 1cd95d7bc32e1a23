use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "std430", step_mode = "per-instance", crate = "not a path")]
struct Vertex {
    #[gpu(colour = "red")]
    color: [u8; 4],
    #[gpu(name = "color")]
    tint: [u8; 4],
}

fn main() {}
