use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Spacer {
    #[gpu(padding)]
    _pad: [u8; 4],
}

fn main() {}
