use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Nothing;

fn main() {}
