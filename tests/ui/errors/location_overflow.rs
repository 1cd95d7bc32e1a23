//! Shader locations past `u32::MAX`: the last of two fields would need location 2^32.
use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[gpu(location = 4294967295)]
struct Late {
    a: f32,
    b: f32,
}

fn main() {}
