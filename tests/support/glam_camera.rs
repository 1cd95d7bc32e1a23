//! The issue-14 camera of glam fields (`Mat4`, `Vec4`, `Vec3A`, `Mat3A`, a nested `Frame`),
//! `zero_copy` in both address spaces, and its values: the `format` tests check its layout, the
//! `data` tests its device round trips. Each `Vec3A` lane carries a marker `w`, which glam's SIMD
//! `Vec3A` keeps and a whole-row copy puts into the GPU padding after the `vec3`.

use gpudata::GpuStruct;

/// A `Mat3A` and a `Vec3A`: 16-byte columns, as WGSL's `vec3<f32>` columns lie.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
pub struct Frame {
    /// `mat3x3<f32>`.
    pub basis: glam::Mat3A,
    /// `vec3<f32>`.
    pub origin: glam::Vec3A,
}

/// The camera in `wgsl-storage`: `zero_copy` holds (glam's SIMD `Vec3A`/`Mat3A` are
/// `bytemuck::Pod`; each fourth lane lands in the GPU padding after a `vec3`).
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
pub struct StorageCamera {
    /// `view`.
    pub view: glam::Mat4,
    /// `eye`.
    pub eye: glam::Vec4,
    /// `dir`.
    pub dir: glam::Vec3A,
    /// `basis`.
    pub basis: glam::Mat3A,
    /// `rays`.
    pub rays: [glam::Vec3A; 2],
    /// `frame`.
    pub frame: Frame,
    /// `tint`.
    pub tint: glam::Vec4,
}

/// The same pieces in `wgsl-uniform`.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "wgsl-uniform", zero_copy)]
pub struct UniformCamera {
    /// `view`.
    pub view: glam::Mat4,
    /// `frame`.
    pub frame: Frame,
    /// `eye`.
    pub eye: glam::Vec4,
    /// `dir`.
    pub dir: glam::Vec3A,
    /// `rays`.
    pub rays: [glam::Vec3A; 2],
    /// `basis`.
    pub basis: glam::Mat3A,
}

/// `(x, x + 1, x + 2)` with `w` in the fourth lane.
pub fn lane(x: f32, w: f32) -> glam::Vec3A {
    glam::Vec3A::from_vec4(glam::Vec4::new(x, x + 1.0, x + 2.0, w))
}

/// A frame of values counting up from `x`.
pub fn frame(x: f32) -> Frame {
    Frame {
        basis: glam::Mat3A::from_cols(lane(x, -1.0), lane(x + 3.0, -2.0), lane(x + 6.0, -3.0)),
        origin: lane(x + 9.0, -4.0),
    }
}

/// A storage camera of values counting up from `seed`.
pub fn storage_camera(seed: f32) -> StorageCamera {
    StorageCamera {
        view: glam::Mat4::from_cols_array(&core::array::from_fn(|i| seed + i as f32)),
        eye: glam::Vec4::new(seed + 16.0, seed + 17.0, seed + 18.0, seed + 19.0),
        dir: lane(seed + 20.0, -5.0),
        basis: frame(seed + 23.0).basis,
        rays: [lane(seed + 32.0, -6.0), lane(seed + 35.0, -7.0)],
        frame: frame(seed + 38.0),
        tint: glam::Vec4::new(seed + 50.0, seed + 51.0, seed + 52.0, seed + 53.0),
    }
}

/// A uniform camera of values around `seed`.
pub fn uniform_camera(seed: f32) -> UniformCamera {
    UniformCamera {
        view: glam::Mat4::from_cols_array(&core::array::from_fn(|i| seed - i as f32)),
        frame: frame(seed + 100.0),
        eye: glam::Vec4::new(seed + 0.5, seed + 1.5, seed + 2.5, seed + 3.5),
        dir: lane(seed + 200.0, -8.0),
        rays: [lane(seed + 300.0, -9.0), lane(seed + 400.0, -10.0)],
        basis: frame(seed + 500.0).basis,
    }
}
