#![deny(warnings)]

use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct Light {
    intensity: f32,
    #[gpu(padding)]
    _pad0: [u8; 12],
    position: [f32; 3],
    #[gpu(padding)]
    _pad1: u32,
}

fn main() {
    assert_eq!(Light::FORMAT.fields().len(), 2);
    assert_eq!(Light::FORMAT.fields()[1].byte_offset(), 16);
    const { assert!(Light::HOST_LAYOUT_MATCHES) };
    let light = Light {
        intensity: 1.0,
        _pad0: [0; 12],
        position: [1.0, 2.0, 3.0],
        _pad1: 0,
    };
    assert_eq!(
        gpudata::record::rows_as_bytes(&[light]).map(<[u8]>::len),
        Some(32)
    );
}
