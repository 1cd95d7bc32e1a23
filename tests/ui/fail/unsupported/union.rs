use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
union Bits {
    f: f32,
    u: u32,
}

fn main() {}
