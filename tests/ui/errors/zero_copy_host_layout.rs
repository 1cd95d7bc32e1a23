//! `zero_copy` on host layouts that padding fields cannot fix: a field the host places later
//! than the gpu layout does, and a host struct larger than the gpu stride.
use gpudata::GpuStruct;

#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(8))]
struct Wide([f32; 2]);

gpudata::impl_gpu_field!(Wide => Float32x2);

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", zero_copy)]
struct Later {
    a: f32,
    b: Wide,
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C, align(16))]
#[gpu(layout = "packed", zero_copy)]
struct Larger {
    value: f32,
}

fn main() {}
