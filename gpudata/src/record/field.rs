//! [`GpuField`] for Rust scalars and arrays.

crate::impl_gpu_field! {
    f32 => Float32,
    [f32; 2] => Float32x2,
    [f32; 3] => Float32x3,
    [f32; 4] => Float32x4,
    u32 => Uint32,
    [u32; 2] => Uint32x2,
    [u32; 3] => Uint32x3,
    [u32; 4] => Uint32x4,
    i32 => Sint32,
    [i32; 2] => Sint32x2,
    [i32; 3] => Sint32x3,
    [i32; 4] => Sint32x4,
    u16 => Uint16,
    [u16; 2] => Uint16x2,
    [u16; 3] => Uint16x3Webgl,
    [u16; 4] => Uint16x4,
    i16 => Sint16,
    [i16; 2] => Sint16x2,
    [i16; 3] => Sint16x3Webgl,
    [i16; 4] => Sint16x4,
    u8 => Uint8,
    [u8; 2] => Uint8x2,
    [u8; 3] => Uint8x3Webgl,
    [u8; 4] => Uint8x4,
    i8 => Sint8,
    [i8; 2] => Sint8x2,
    [i8; 3] => Sint8x3Webgl,
    [i8; 4] => Sint8x4,
}

#[cfg(test)]
mod tests {
    use super::super::GpuField;
    use crate::format::VertexFormat;

    fn size_matches<T: GpuField>() -> bool {
        size_of::<T>() as u64 == T::FORMAT.byte_length()
    }

    #[test]
    fn every_scalar_and_array_is_as_long_as_its_format() {
        assert!(size_matches::<f32>() && size_matches::<[f32; 3]>() && size_matches::<[f32; 4]>());
        assert!(size_matches::<u32>() && size_matches::<[u32; 2]>() && size_matches::<[i32; 4]>());
        assert!(size_matches::<u16>() && size_matches::<[u16; 3]>() && size_matches::<[i16; 4]>());
        assert!(size_matches::<u8>() && size_matches::<[u8; 3]>() && size_matches::<[i8; 2]>());
        assert_eq!(<[u16; 3]>::FORMAT, VertexFormat::Uint16x3Webgl);
    }
}
