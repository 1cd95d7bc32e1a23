use gpudata::{GpuField, GpuStruct, VertexFormat};

#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Rgb {
    r: u8,
    g: u8,
    b: u8,
}

impl GpuField for Rgb {
    const FORMAT: VertexFormat = VertexFormat::Unorm8x4;
}

#[derive(Clone, Copy, GpuStruct)]
struct Vertex {
    color: Rgb,
}

fn main() {}
