use gpudata::{GpuField, GpuStruct, VertexFormat};

#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Rgb {
    r: u8,
    g: u8,
    b: u8,
}

// A hand-written impl (`impl_gpu_field!` would refuse this one) naming a format longer than the
// type: the derive catches the mismatch where the type is used.
// SAFETY: `Rgb` is `Pod`.
unsafe impl GpuField for Rgb {
    const FORMAT: VertexFormat = VertexFormat::Unorm8x4;
}

#[derive(Clone, Copy, GpuStruct)]
struct Vertex {
    color: Rgb,
}

fn main() {}
