use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct Normal {
    #[gpu(wgsl = "mat3x3<f32>")]
    normal: [[f32; 3]; 3],
    #[gpu(padding)]
    _pad: [u8; 12],
}

fn main() {}
