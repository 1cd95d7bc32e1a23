use gpudata::GpuStruct;
use gpudata::record::RuntimeArray;

#[derive(Clone, Copy, GpuStruct)]
struct Light {
    color: [f32; 4],
}

// A header plus elements is not a row: no `zero_copy` or `stride`; the tail takes `name` and
// `align` only; an array of structs is wrapped in a struct to be an element.
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy, stride = 32)]
struct Scene {
    count: u32,
    #[gpu(size = 64, offset = 16)]
    lights: RuntimeArray<[Light; 2]>,
}

fn main() {}
