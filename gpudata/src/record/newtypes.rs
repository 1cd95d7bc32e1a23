//! Newtypes for normalized formats: integers the vertex stage reads as floats in `[0, 1]`
//! (`unorm`) or `[-1, 1]` (`snorm`).
//!
//! Each is `#[repr(transparent)]` over its stored integers (so its bytes are the GPU bytes) and
//! converts to and from the floats a shader sees with WebGPU's rules: `unorm` values are
//! `v / MAX`; `snorm` values are `max(v / MAX, -1)`; encoding clamps to the range and rounds to
//! the nearest integer (NaN encodes as 0).

use bytemuck::{Pod, Zeroable};

use crate::format::VertexFormat;
use crate::format::codec::{self, ShaderScalar};

/// The normalized conversions of [`codec`], typed for each stored integer.
#[allow(
    clippy::cast_possible_truncation,
    reason = "the codec clamps to the format's range, so every value fits its integer"
)]
mod convert {
    use crate::format::codec::{f32_to_snorm, f32_to_unorm, snorm_to_f32, unorm_to_f32};

    pub(super) fn unorm8(x: f32) -> u8 {
        f32_to_unorm(x, 0xff) as u8
    }
    pub(super) fn unorm16(x: f32) -> u16 {
        f32_to_unorm(x, 0xffff) as u16
    }
    pub(super) fn snorm8(x: f32) -> i8 {
        f32_to_snorm(x, 0x7f) as i8
    }
    pub(super) fn snorm16(x: f32) -> i16 {
        f32_to_snorm(x, 0x7fff) as i16
    }
    pub(super) fn from_unorm8(v: u8) -> f32 {
        unorm_to_f32(u32::from(v), 0xff)
    }
    pub(super) fn from_unorm16(v: u16) -> f32 {
        unorm_to_f32(u32::from(v), 0xffff)
    }
    pub(super) fn from_snorm8(v: i8) -> f32 {
        snorm_to_f32(i32::from(v), 0x7f)
    }
    pub(super) fn from_snorm16(v: i16) -> f32 {
        snorm_to_f32(i32::from(v), 0x7fff)
    }
}

/// One-component normalized newtypes: `Name(pub Int)`.
macro_rules! normalized_scalar {
    ($($(#[$doc:meta])* $name:ident($int:ty) => $format:ident, $enc:ident, $dec:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Pod, Zeroable)]
        #[repr(transparent)]
        pub struct $name(pub $int);

        impl $name {
            /// Encodes a float: clamps to the format's range and rounds.
            #[must_use]
            pub fn from_f32(value: f32) -> Self {
                $name(convert::$enc(value))
            }

            /// The float a shader reads.
            #[must_use]
            pub fn to_f32(self) -> f32 {
                convert::$dec(self.0)
            }
        }

        impl From<$int> for $name {
            fn from(value: $int) -> Self {
                $name(value)
            }
        }

        impl From<$name> for $int {
            fn from(value: $name) -> Self {
                value.0
            }
        }

        crate::impl_gpu_field!($name => $format);
    )*};
}

/// Multi-component normalized newtypes: `Name(pub [Int; N])`.
macro_rules! normalized_vector {
    ($($(#[$doc:meta])* $name:ident([$int:ty; $n:literal]) => $format:ident, $enc:ident, $dec:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Pod, Zeroable)]
        #[repr(transparent)]
        pub struct $name(pub [$int; $n]);

        impl $name {
            /// Encodes floats: clamps each to the format's range and rounds.
            #[must_use]
            pub fn from_f32(values: [f32; $n]) -> Self {
                $name(values.map(convert::$enc))
            }

            /// The floats a shader reads.
            #[must_use]
            pub fn to_f32(self) -> [f32; $n] {
                self.0.map(convert::$dec)
            }
        }

        impl From<[$int; $n]> for $name {
            fn from(value: [$int; $n]) -> Self {
                $name(value)
            }
        }

        impl From<$name> for [$int; $n] {
            fn from(value: $name) -> Self {
                value.0
            }
        }

        crate::impl_gpu_field!($name => $format);
    )*};
}

normalized_scalar! {
    /// `unorm8`: one `u8` read as `f32` in `[0, 1]`.
    Unorm8(u8) => Unorm8, unorm8, from_unorm8;
    /// `snorm8`: one `i8` read as `f32` in `[-1, 1]`.
    Snorm8(i8) => Snorm8, snorm8, from_snorm8;
    /// `unorm16`: one `u16` read as `f32` in `[0, 1]`.
    Unorm16(u16) => Unorm16, unorm16, from_unorm16;
    /// `snorm16`: one `i16` read as `f32` in `[-1, 1]`.
    Snorm16(i16) => Snorm16, snorm16, from_snorm16;
}

normalized_vector! {
    /// `unorm8x2`: two `u8` read as `vec2<f32>` in `[0, 1]`.
    Unorm8x2([u8; 2]) => Unorm8x2, unorm8, from_unorm8;
    /// `unorm8x4`: four `u8` read as `vec4<f32>` in `[0, 1]`, e.g. an RGBA8 color.
    ///
    /// ```
    /// use gpudata::Unorm8x4;
    ///
    /// let red = Unorm8x4::from_f32([1.0, 0.0, 0.0, 0.5]);
    /// assert_eq!(red.0, [255, 0, 0, 128]);
    /// assert_eq!(red.to_f32()[0], 1.0);
    /// ```
    Unorm8x4([u8; 4]) => Unorm8x4, unorm8, from_unorm8;
    /// `snorm8x2`: two `i8` read as `vec2<f32>` in `[-1, 1]`.
    Snorm8x2([i8; 2]) => Snorm8x2, snorm8, from_snorm8;
    /// `snorm8x4`: four `i8` read as `vec4<f32>` in `[-1, 1]`, e.g. a compressed normal.
    Snorm8x4([i8; 4]) => Snorm8x4, snorm8, from_snorm8;
    /// `unorm16x2`: two `u16` read as `vec2<f32>` in `[0, 1]`, e.g. texture coordinates.
    Unorm16x2([u16; 2]) => Unorm16x2, unorm16, from_unorm16;
    /// `unorm16x4`: four `u16` read as `vec4<f32>` in `[0, 1]`.
    Unorm16x4([u16; 4]) => Unorm16x4, unorm16, from_unorm16;
    /// `snorm16x2`: two `i16` read as `vec2<f32>` in `[-1, 1]`.
    Snorm16x2([i16; 2]) => Snorm16x2, snorm16, from_snorm16;
    /// `snorm16x4`: four `i16` read as `vec4<f32>` in `[-1, 1]`.
    Snorm16x4([i16; 4]) => Snorm16x4, snorm16, from_snorm16;
}

/// `unorm8x4-bgra`: four `u8` stored in B, G, R, A order, read by the shader as an RGBA
/// `vec4<f32>` in `[0, 1]`.
///
/// The field `.0` holds the stored (BGRA) bytes; [`from_rgba8`](Self::from_rgba8),
/// [`from_f32`](Self::from_f32) and their inverses take and give components in the RGBA order the
/// shader sees.
///
/// ```
/// use gpudata::Unorm8x4Bgra;
///
/// let c = Unorm8x4Bgra::from_rgba8([10, 20, 30, 40]);
/// assert_eq!(c.0, [30, 20, 10, 40]);
/// assert_eq!(c.to_rgba8(), [10, 20, 30, 40]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Pod, Zeroable)]
#[repr(transparent)]
pub struct Unorm8x4Bgra(pub [u8; 4]);

impl Unorm8x4Bgra {
    /// Stores RGBA bytes in BGRA order.
    #[must_use]
    pub const fn from_rgba8([r, g, b, a]: [u8; 4]) -> Self {
        Unorm8x4Bgra([b, g, r, a])
    }

    /// The bytes in RGBA order.
    #[must_use]
    pub const fn to_rgba8(self) -> [u8; 4] {
        let [b, g, r, a] = self.0;
        [r, g, b, a]
    }

    /// Encodes RGBA floats: clamps each to `[0, 1]`, rounds, stores in BGRA order.
    #[must_use]
    pub fn from_f32(rgba: [f32; 4]) -> Self {
        Unorm8x4Bgra::from_rgba8(rgba.map(convert::unorm8))
    }

    /// The RGBA floats a shader reads.
    #[must_use]
    pub fn to_f32(self) -> [f32; 4] {
        self.to_rgba8().map(convert::from_unorm8)
    }
}

crate::impl_gpu_field!(Unorm8x4Bgra => Unorm8x4Bgra);

/// `unorm10-10-10-2`: one `u32` packing x, y, z in 10 bits each and w in 2 bits (x in the low
/// bits), read as `vec4<f32>` in `[0, 1]`.
///
/// ```
/// use gpudata::Unorm10_10_10_2;
///
/// let v = Unorm10_10_10_2::pack([1.0, 0.0, 0.5, 1.0]);
/// assert_eq!(v.to_bits(), [1023, 0, 512, 3]);
/// assert_eq!(Unorm10_10_10_2::from_bits([1023, 0, 512, 3]), v);
/// assert_eq!(v.unpack()[0], 1.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Pod, Zeroable)]
#[repr(transparent)]
pub struct Unorm10_10_10_2(pub u32);

impl Unorm10_10_10_2 {
    const MAX_XYZ: u32 = 0x3ff;
    const MAX_W: u32 = 0x3;

    /// Packs raw components; bits past each field's width are dropped.
    #[must_use]
    pub const fn from_bits([x, y, z, w]: [u32; 4]) -> Self {
        Unorm10_10_10_2(
            (x & Self::MAX_XYZ)
                | ((y & Self::MAX_XYZ) << 10)
                | ((z & Self::MAX_XYZ) << 20)
                | ((w & Self::MAX_W) << 30),
        )
    }

    /// The raw components: x, y, z in `0..=1023`, w in `0..=3`.
    #[must_use]
    pub const fn to_bits(self) -> [u32; 4] {
        [
            self.0 & Self::MAX_XYZ,
            (self.0 >> 10) & Self::MAX_XYZ,
            (self.0 >> 20) & Self::MAX_XYZ,
            self.0 >> 30,
        ]
    }

    /// Packs floats: clamps each to `[0, 1]` and rounds to 10 bits (x, y, z) or 2 bits (w).
    #[must_use]
    pub fn pack(values: [f32; 4]) -> Self {
        let mut bytes = [0u8; 4];
        codec::encode_value(
            VertexFormat::Unorm10_10_10_2,
            &values.map(ShaderScalar::F32),
            &mut bytes,
        );
        Unorm10_10_10_2(u32::from_le_bytes(bytes))
    }

    /// The floats a shader reads.
    #[must_use]
    pub fn unpack(self) -> [f32; 4] {
        [0, 1, 2, 3]
            .map(|lane| codec::decode_unit(VertexFormat::Unorm10_10_10_2, lane, self.0).to_f32())
    }

    /// Same as [`pack`](Self::pack), named like the other normalized newtypes.
    #[must_use]
    pub fn from_f32(values: [f32; 4]) -> Self {
        Unorm10_10_10_2::pack(values)
    }

    /// Same as [`unpack`](Self::unpack), named like the other normalized newtypes.
    #[must_use]
    pub fn to_f32(self) -> [f32; 4] {
        self.unpack()
    }
}

crate::impl_gpu_field!(Unorm10_10_10_2 => Unorm10_10_10_2);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::GpuField;

    #[test]
    fn unorm_and_snorm_follow_webgpu_conversion() {
        assert_eq!(Unorm8::from_f32(0.5).0, 128);
        assert_eq!(Unorm8::from_f32(2.0).0, 255);
        assert_eq!(Unorm8::from_f32(f32::NAN).0, 0);
        assert_eq!(Snorm8(-128).to_f32(), -1.0);
        assert_eq!(Snorm8::from_f32(-1.0).0, -127);
        assert_eq!(Snorm16x2::from_f32([1.0, -0.5]).0, [32767, -16384]);
        assert_eq!(Unorm16x4([0, 65535, 0, 0]).to_f32(), [0.0, 1.0, 0.0, 0.0]);
        assert_eq!(Snorm8x4::from_f32([0.0, 1.0, -1.0, 0.25]).to_f32()[1], 1.0);
    }

    #[test]
    fn bgra_stores_swapped_and_reads_rgba() {
        let c = Unorm8x4Bgra::from_f32([1.0, 0.0, 0.0, 1.0]);
        assert_eq!(c.0, [0, 0, 255, 255]);
        assert_eq!(c.to_f32(), [1.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn ten_ten_ten_two_packs_x_in_the_low_bits() {
        let v = Unorm10_10_10_2::from_bits([1, 2, 3, 1]);
        assert_eq!(v.0, 1 | (2 << 10) | (3 << 20) | (1 << 30));
        assert_eq!(v.to_bits(), [1, 2, 3, 1]);
        assert_eq!(
            Unorm10_10_10_2::pack([2.0, -1.0, 1.0, 0.5]).to_bits(),
            [1023, 0, 1023, 2]
        );
        assert_eq!(
            Unorm10_10_10_2::from_bits([1023, 1023, 1023, 3]).unpack(),
            [1.0; 4]
        );
    }

    #[test]
    fn sizes_equal_format_lengths() {
        fn check<T: GpuField>() {
            assert_eq!(
                size_of::<T>() as u64,
                T::FORMAT.byte_length(),
                "{}",
                T::FORMAT
            );
        }
        check::<Unorm8>();
        check::<Snorm8>();
        check::<Unorm16>();
        check::<Snorm16>();
        check::<Unorm8x2>();
        check::<Unorm8x4>();
        check::<Snorm8x2>();
        check::<Snorm8x4>();
        check::<Unorm16x2>();
        check::<Unorm16x4>();
        check::<Snorm16x2>();
        check::<Snorm16x4>();
        check::<Unorm8x4Bgra>();
        check::<Unorm10_10_10_2>();
    }
}
