//! `zero_copy` on host layouts that padding fields cannot fix: a field the host places later
//! than the gpu layout does, and a host struct larger than the gpu stride.
use gpudata::{GpuField, GpuStruct, VertexFormat};

#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(8))]
struct Wide([f32; 2]);

impl GpuField for Wide {
    const FORMAT: VertexFormat = VertexFormat::Float32x2;
}

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
