//! A runtime-sized array reaching a packed row through a hand-written `GpuType` (the derive
//! refuses `RuntimeArray` fields in packed structs itself): the const analysis refuses it too.
use gpudata::GpuStruct;
use gpudata::layout::{WgslType, WgslStruct, WgslMember};
use gpudata::record::{GpuType, HostShape};

#[derive(Clone, Copy)]
struct Tail;

const TAIL: WgslStruct = WgslStruct::new(
    "Tail",
    &[WgslMember::new("items", WgslType::runtime_array(&WgslType::F32))],
);

// SAFETY: a zero-sized value; no bytes are located.
unsafe impl GpuType for Tail {
    const WGSL: WgslType = WgslType::Struct(&TAIL);
    const HOST: HostShape = HostShape::Packed;
}

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "packed")]
struct Instance {
    position: [f32; 3],
    tail: Tail,
}

fn main() {}
