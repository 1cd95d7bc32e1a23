use gpudata::GpuStruct;
use gpudata::layout::WgslType;
use gpudata::record::{GpuType, HostShape};

// `zero_copy` fields whose elements no padding field can separate: the message says which type
// to use instead.

// `array<vec3<f32>, 2>`: elements 12 bytes apart on the host, 16 on the gpu.
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct Points {
    points: [[f32; 3]; 2],
    #[gpu(padding)]
    _pad: [u8; 8],
}

// A host vector with a fourth lane that may be uninitialized (as `glam::Vec3A`).
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Lane3([f32; 3]);

// SAFETY: the first 12 bytes are three `f32`s; the lane after them is never read.
unsafe impl GpuType for Lane3 {
    const WGSL: WgslType = WgslType::vec(3);
    const HOST: HostShape = HostShape::Columns { stride: 16, padding_initialized: false };
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct Lanes {
    v: Lane3,
}

// A host matrix whose columns each keep such a lane (as `glam::Mat3A`).
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Lane3x3([[f32; 4]; 3]);

// SAFETY: each column's first 12 bytes are three `f32`s; the lanes after them are never read.
unsafe impl GpuType for Lane3x3 {
    const WGSL: WgslType = WgslType::mat(3, 3);
    const HOST: HostShape = HostShape::Columns { stride: 16, padding_initialized: false };
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct MatrixLanes {
    m: Lane3x3,
}

fn main() {}
