//! Feature `glam`: [`GpuField`] for glam's vectors whose bytes are a vertex format.
//!
//! `Vec3A` (16 bytes, SIMD-aligned) and the 64-bit vectors have no vertex format and are not
//! fields; three-component 8- and 16-bit vectors map to the WebGL-only `-webgl` formats.

use super::GpuField;
use crate::format::VertexFormat;

/// Stamps out `GpuField` impls for glam types.
macro_rules! glam_fields {
    ($($ty:ident => $format:ident),* $(,)?) => {$(
        impl GpuField for glam::$ty {
            const FORMAT: VertexFormat = VertexFormat::$format;
        }
    )*};
}

glam_fields! {
    Vec2 => Float32x2,
    Vec3 => Float32x3,
    Vec4 => Float32x4,
    UVec2 => Uint32x2,
    UVec3 => Uint32x3,
    UVec4 => Uint32x4,
    IVec2 => Sint32x2,
    IVec3 => Sint32x3,
    IVec4 => Sint32x4,
    U16Vec2 => Uint16x2,
    U16Vec3 => Uint16x3Webgl,
    U16Vec4 => Uint16x4,
    I16Vec2 => Sint16x2,
    I16Vec3 => Sint16x3Webgl,
    I16Vec4 => Sint16x4,
    U8Vec2 => Uint8x2,
    U8Vec3 => Uint8x3Webgl,
    U8Vec4 => Uint8x4,
    I8Vec2 => Sint8x2,
    I8Vec3 => Sint8x3Webgl,
    I8Vec4 => Sint8x4,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glam_vectors_are_as_long_as_their_formats() {
        fn check<T: GpuField>() {
            assert_eq!(
                size_of::<T>() as u64,
                T::FORMAT.byte_length(),
                "{}",
                T::FORMAT
            );
        }
        check::<glam::Vec2>();
        check::<glam::Vec3>();
        check::<glam::Vec4>();
        check::<glam::UVec3>();
        check::<glam::IVec4>();
        check::<glam::U16Vec3>();
        check::<glam::I16Vec4>();
        check::<glam::U8Vec4>();
        check::<glam::I8Vec2>();
    }
}
