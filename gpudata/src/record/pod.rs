//! Whether a concrete type is `bytemuck::Pod` in this build, as a `const bool`
//! ([`Probe::<T>::POD`](Probe)): glam derives `Pod` for `Vec3A` and `Mat3A` only where they are
//! one SIMD register per column (SSE2, NEON, wasm SIMD, core-simd), not under its `scalar-math`,
//! where their fourth lanes are padding. Their [`HostShape::Columns`](super::HostShape::Columns)
//! say whether those lanes are initialized by this probe.
//!
//! An inherent associated const exists only where `T: Pod` holds, and shadows the trait's
//! default there; elsewhere the trait's `false` is found. The answer is only meaningful for a
//! concrete type (inside a generic function the bound is never known to hold).

use core::marker::PhantomData;

/// The probe: `Probe::<T>::POD` is whether `T: bytemuck::Pod`.
pub(crate) struct Probe<T>(PhantomData<T>);

/// The fallback: not known to be `Pod`.
#[allow(
    dead_code,
    reason = "resolved only for a type that is not `Pod` (glam's `scalar-math` `Vec3A`) and in tests"
)]
pub(crate) trait NotPod {
    /// `false`: no `Pod` impl was found.
    const POD: bool = false;
}

impl<T> NotPod for Probe<T> {}

impl<T: bytemuck::Pod> Probe<T> {
    /// `true`: `T: Pod` holds.
    pub(crate) const POD: bool = true;
}

/// Whether all 16 bytes of a `glam::Vec3A` are initialized plain data in this build.
#[cfg(feature = "glam")]
pub(crate) const GLAM_VEC3A: bool = Probe::<glam::Vec3A>::POD;

/// Whether all 48 bytes of a `glam::Mat3A` are initialized plain data in this build.
#[cfg(feature = "glam")]
pub(crate) const GLAM_MAT3A: bool = Probe::<glam::Mat3A>::POD;

#[cfg(test)]
mod tests {
    use super::{NotPod as _, Probe};

    /// Padding after the `u8`: never `Pod`.
    #[allow(dead_code, reason = "only its layout matters")]
    #[derive(Clone, Copy)]
    #[repr(C)]
    struct Padded {
        tag: u8,
        value: u32,
    }

    #[test]
    fn the_probe_says_whether_a_type_is_pod() {
        const { assert!(!Probe::<Padded>::POD) };
        const { assert!(!Probe::<&'static u32>::POD) };
        const { assert!(Probe::<u32>::POD) };
        const { assert!(Probe::<[f32; 4]>::POD) };
    }

    /// On x86_64 glam's default build (SSE2; this workspace does not enable `scalar-math`)
    /// `Vec3A` is one `__m128` and `Mat3A` three of them: `Pod`. Its scalar `Vec2`/`Vec3` are
    /// `Pod` everywhere; its `Vec3A` under `scalar-math` is only `AnyBitPattern` (padding).
    #[cfg(feature = "glam")]
    #[test]
    fn glam_vec3a_and_mat3a_are_pod_on_simd_builds() {
        const { assert!(Probe::<glam::Vec3>::POD) };
        const { assert!(super::GLAM_VEC3A == super::GLAM_MAT3A) };
        #[cfg(target_arch = "x86_64")]
        const {
            assert!(super::GLAM_VEC3A);
        };
    }
}
