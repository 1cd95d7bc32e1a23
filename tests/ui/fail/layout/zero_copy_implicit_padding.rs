use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", zero_copy)]
struct Instance {
    tag: u8,
    value: f32,
}

fn main() {}
