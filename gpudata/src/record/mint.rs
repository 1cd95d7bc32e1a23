//! Feature `mint`: mint's vectors, points and quaternions as [`GpuField`]s, and conversions
//! between mint vectors and the normalized newtypes' stored integers.
//!
//! Fields of mint types work like arrays: `mint::Vector3<f32>` is `float32x3`,
//! `mint::Vector4<u8>` is `uint8x4` (or `unorm8x4` with `#[gpu(format = "unorm8x4")]`),
//! `mint::Quaternion<f32>` is `float32x4` in `x, y, z, w` order. Three-component 8- and 16-bit
//! vectors map to the WebGL-only `-webgl` formats, as arrays do.

use super::GpuField;
use super::newtypes::{
    Snorm8x2, Snorm8x4, Snorm16x2, Snorm16x4, Unorm8x2, Unorm8x4, Unorm16x2, Unorm16x4,
};
use crate::format::VertexFormat;

/// `GpuField` for mint types over scalars: `Type<Scalar> => Format`.
macro_rules! mint_fields {
    ($($ty:ident<$scalar:ty> => $format:ident),* $(,)?) => {$(
        const _: () = super::field_check::check_field_size::<mint::$ty<$scalar>>(
            ::core::stringify!(mint::$ty<$scalar>),
            VertexFormat::$format,
        );
        // SAFETY: mint declares its vectors and points `#[repr(C)]` with 2 to 4 fields of the
        // scalar and nothing else, and its quaternion `#[repr(C)]` as a `Vector3` then a scalar.
        // The scalars here are integers, `f32` or `half::f16`: plain data whose size is a
        // multiple of their alignment, so the structs have no padding (the size check above
        // confirms it), every byte is initialized, any bit pattern is valid, and there are no
        // pointers or interior mutability.
        unsafe impl GpuField for mint::$ty<$scalar> {
            const FORMAT: VertexFormat = VertexFormat::$format;
        }
    )*};
}

/// Vectors of 2, 3 and 4, and points of 2 and 3, of one scalar.
macro_rules! mint_vectors {
    ($($scalar:ty => $x2:ident, $x3:ident, $x4:ident;)*) => {$(
        mint_fields! {
            Vector2<$scalar> => $x2,
            Vector3<$scalar> => $x3,
            Vector4<$scalar> => $x4,
            Point2<$scalar> => $x2,
            Point3<$scalar> => $x3,
        }
    )*};
}

mint_vectors! {
    f32 => Float32x2, Float32x3, Float32x4;
    u32 => Uint32x2, Uint32x3, Uint32x4;
    i32 => Sint32x2, Sint32x3, Sint32x4;
    u16 => Uint16x2, Uint16x3Webgl, Uint16x4;
    i16 => Sint16x2, Sint16x3Webgl, Sint16x4;
    u8 => Uint8x2, Uint8x3Webgl, Uint8x4;
    i8 => Sint8x2, Sint8x3Webgl, Sint8x4;
}

mint_fields! {
    Quaternion<f32> => Float32x4,
}

#[cfg(feature = "half")]
mint_fields! {
    Vector2<half::f16> => Float16x2,
    Vector4<half::f16> => Float16x4,
}

/// `From` in both directions between a newtype and the mint vector of its stored integers.
macro_rules! mint_conversions {
    ($($name:ident <=> $vector:ident<$int:ty>),* $(,)?) => {$(
        impl From<mint::$vector<$int>> for $name {
            fn from(value: mint::$vector<$int>) -> Self {
                $name(value.into())
            }
        }

        impl From<$name> for mint::$vector<$int> {
            fn from(value: $name) -> Self {
                value.0.into()
            }
        }
    )*};
}

mint_conversions! {
    Unorm8x2 <=> Vector2<u8>,
    Unorm8x4 <=> Vector4<u8>,
    Snorm8x2 <=> Vector2<i8>,
    Snorm8x4 <=> Vector4<i8>,
    Unorm16x2 <=> Vector2<u16>,
    Unorm16x4 <=> Vector4<u16>,
    Snorm16x2 <=> Vector2<i16>,
    Snorm16x4 <=> Vector4<i16>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{field_bytes, fields_as_bytes, read_field};

    #[test]
    fn newtypes_round_trip_through_mint() {
        let v = mint::Vector4 {
            x: 1u8,
            y: 2,
            z: 3,
            w: 4,
        };
        let n = Unorm8x4::from(v);
        assert_eq!(n.0, [1, 2, 3, 4]);
        assert_eq!(mint::Vector4::<u8>::from(n), v);
        let s = Snorm16x2::from(mint::Vector2 { x: -1i16, y: 7 });
        assert_eq!(s.0, [-1, 7]);
    }

    #[test]
    fn mint_fields_have_the_bytes_of_arrays() {
        let v = mint::Vector3 {
            x: 1.0f32,
            y: -2.0,
            z: 0.5,
        };
        assert_eq!(field_bytes(&v), field_bytes(&[1.0f32, -2.0, 0.5]));
        assert_eq!(read_field::<mint::Vector3<f32>>(field_bytes(&v)), Some(v));
        let q = mint::Quaternion {
            v: mint::Vector3 {
                x: 1.0f32,
                y: 2.0,
                z: 3.0,
            },
            s: 4.0,
        };
        assert_eq!(field_bytes(&q), field_bytes(&[1.0f32, 2.0, 3.0, 4.0]));
        let points = [mint::Point2 { x: 1u16, y: 2 }, mint::Point2 { x: 3, y: 4 }];
        assert_eq!(
            fields_as_bytes(&points),
            fields_as_bytes(&[[1u16, 2], [3, 4]])
        );
        assert_eq!(
            <mint::Vector3<u8> as GpuField>::FORMAT,
            VertexFormat::Uint8x3Webgl
        );
        #[cfg(feature = "half")]
        assert_eq!(
            <mint::Vector4<half::f16> as GpuField>::FORMAT,
            VertexFormat::Float16x4
        );
    }
}
