use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Empty {}

fn main() {}
