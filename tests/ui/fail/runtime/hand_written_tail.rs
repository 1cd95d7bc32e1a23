//! A runtime-sized array reaching a row through a hand-written `GpuType` whose WGSL type is
//! `array<f32>`, as the last field (WGSL's rules refuse it anywhere else): the struct declares
//! no `RuntimeArray` tail, so it is a row of a fixed size and cannot hold it.
use gpudata::GpuStruct;
use gpudata::format::VertexFormat;
use gpudata::layout::WgslType;
use gpudata::record::{GpuType, HostShape};

#[derive(Clone, Copy)]
struct Floats;

// SAFETY: a zero-sized value; its elements would live outside it.
unsafe impl GpuType for Floats {
    const WGSL: WgslType = WgslType::runtime_array(&WgslType::F32);
    const HOST: HostShape = HostShape::Array {
        element: &HostShape::Field(VertexFormat::Float32),
        stride: 4,
    };
}

// Checked on first use by the macro's own rules (nothing asserted).
#[derive(Clone, Copy, GpuStruct)]
struct Lazy {
    count: u32,
    items: Floats,
}

// Checked eagerly (a `stride` assertion).
#[derive(Clone, Copy, GpuStruct)]
#[gpu(stride = 8)]
struct Eager {
    count: u32,
    items: Floats,
}

fn main() {}
