use gpudata::GpuStruct;
use gpudata::layout::WgslType;
use gpudata::record::{GpuType, HostShape};

// A `vec3<f32>` kept in 16 initialized bytes (as glam's SIMD `Vec3A`, which is `bytemuck::Pod`):
// its own bytes may be copied whole, but a member right after it lies at byte 12 on the gpu and
// 16 on the host, so `zero_copy` is refused there.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Lane4([f32; 4]);

// SAFETY: 16 bytes of `f32`s, all initialized, any bit pattern valid; the first 12 are the
// vector's.
unsafe impl GpuType for Lane4 {
    const WGSL: WgslType = WgslType::vec(3);
    const HOST: HostShape = HostShape::Columns { stride: 16, padding_initialized: true };
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct Follows {
    a: Lane4,
    b: f32,
}

fn main() {}
