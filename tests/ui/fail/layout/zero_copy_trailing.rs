use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct Light {
    position: [f32; 3],
}

fn main() {}
