// A struct of plain scalars is analysed when its `GpuStruct` consts are first used; a scalar name
// shadowed by a type of the wrong size is still caught there.
use gpudata::{GpuField, GpuStruct, VertexFormat};

#[allow(non_camel_case_types)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct f32(u16);

// SAFETY: this `f32` is `Pod`.
unsafe impl GpuField for f32 {
    const FORMAT: VertexFormat = VertexFormat::Float32;
}

#[derive(Clone, Copy, GpuStruct)]
struct Row {
    value: f32,
}

fn main() {
    let _ = Row::FORMAT;
}
