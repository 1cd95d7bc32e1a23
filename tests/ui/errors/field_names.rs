//! Field names the derive refuses: an empty gpu name, a name without an UpperCamelCase form for
//! its marker, two names with one marker, `name` and `offset` on a padding field.
use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct EmptyName {
    #[gpu(name = "")]
    value: f32,
}

#[derive(Clone, Copy, GpuStruct)]
#[allow(non_snake_case)]
struct NoMarker {
    __: f32,
}

#[derive(Clone, Copy, GpuStruct)]
struct SameMarker {
    a_b: f32,
    a__b: f32,
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
struct PaddingAttributes {
    value: f32,
    #[gpu(padding, name = "pad", offset = 4)]
    _pad: [u8; 4],
}

fn main() {}
