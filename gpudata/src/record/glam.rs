//! Feature `glam`: [`GpuField`] for glam's vectors whose bytes are a vertex format.
//!
//! `Vec3A` (16 bytes, SIMD-aligned) and the 64-bit vectors have no vertex format and are not
//! fields; three-component 8- and 16-bit vectors map to the WebGL-only `-webgl` formats.

crate::impl_gpu_field! {
    glam::Vec2 => Float32x2,
    glam::Vec3 => Float32x3,
    glam::Vec4 => Float32x4,
    glam::UVec2 => Uint32x2,
    glam::UVec3 => Uint32x3,
    glam::UVec4 => Uint32x4,
    glam::IVec2 => Sint32x2,
    glam::IVec3 => Sint32x3,
    glam::IVec4 => Sint32x4,
    glam::U16Vec2 => Uint16x2,
    glam::U16Vec3 => Uint16x3Webgl,
    glam::U16Vec4 => Uint16x4,
    glam::I16Vec2 => Sint16x2,
    glam::I16Vec3 => Sint16x3Webgl,
    glam::I16Vec4 => Sint16x4,
    glam::U8Vec2 => Uint8x2,
    glam::U8Vec3 => Uint8x3Webgl,
    glam::U8Vec4 => Uint8x4,
    glam::I8Vec2 => Sint8x2,
    glam::I8Vec3 => Sint8x3Webgl,
    glam::I8Vec4 => Sint8x4,
}

#[cfg(test)]
mod tests {
    use super::super::GpuField;

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
