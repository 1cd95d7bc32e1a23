//! [`VertexFormat`]: the 49 fixed-width formats luma.gl knows, with `const fn` facts.

use core::fmt;
use core::str::FromStr;

use super::{DataType, PrimitiveType, ShaderType, WgslCarrier};
use crate::format::FormatError;

macro_rules! vertex_formats {
    ($(
        $variant:ident = $disc:literal, $name:literal, $data_type:ident, $components:literal,
        $webgl:literal, $wgpu:ident, $doc:literal;
    )*) => {
        /// A fixed-width vertex format: the WebGPU vertex formats plus luma.gl's eight
        /// three-component `-webgl` formats.
        ///
        /// Parsing and display use exactly the WebGPU / luma.gl strings (`"float32x3"`,
        /// `"unorm8x4-bgra"`, `"unorm10-10-10-2"`, `"uint16x3-webgl"`). Every fact is a `const fn`,
        /// so struct layouts can be computed in `const` items.
        ///
        /// Corresponds to [WebGPU `GPUVertexFormat`](https://gpuweb.github.io/gpuweb/#enumdef-gpuvertexformat)
        /// and luma.gl's `VertexFormat`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum VertexFormat {
            $(
                #[doc = concat!("`\"", $name, "\"`: ", $doc)]
                $variant,
            )*
        }

        // The discriminants are implicit (the same values): the compile-time interpreter reads
        // an enum whose discriminants are written out through one query per variant, on every
        // `match` of a format in a `const fn`.
        const _: () = {
            $(assert!(VertexFormat::$variant as u8 == $disc);)*
        };

        impl VertexFormat {
            /// Every format, in declaration order.
            pub const ALL: [VertexFormat; 49] = [$(VertexFormat::$variant),*];

            /// Every format's name, in `ALL`'s order (a lookup compares names, not formats).
            const NAMES: [&'static str; 49] = [$($name),*];

            /// The WebGPU / luma.gl name, e.g. `"unorm8x4"`.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self { $(VertexFormat::$variant => $name,)* }
            }

            /// The scalar data type of each component (`unorm10-10-10-2` reports `unorm8`, as
            /// luma.gl does).
            #[must_use]
            pub const fn data_type(self) -> DataType {
                match self { $(VertexFormat::$variant => DataType::$data_type,)* }
            }

            /// Number of components (1 to 4).
            #[must_use]
            pub const fn components(self) -> u32 {
                match self { $(VertexFormat::$variant => $components,)* }
            }

            /// Whether this is one of the `-webgl` formats that WebGPU and wgpu cannot fetch.
            #[must_use]
            pub const fn is_webgl_only(self) -> bool {
                match self { $(VertexFormat::$variant => $webgl,)* }
            }

            /// The equivalent [`wgpu::VertexFormat`], or `None` for the `-webgl` formats.
            #[must_use]
            pub const fn to_wgpu(self) -> Option<wgpu::VertexFormat> {
                match self { $(VertexFormat::$variant => vertex_formats!(@wgpu $wgpu),)* }
            }
        }
    };
    (@wgpu None) => { None };
    (@wgpu $w:ident) => { Some(wgpu::VertexFormat::$w) };
}

vertex_formats! {
    Uint8 = 0, "uint8", Uint8, 1, false, Uint8, "one `u8`, read as `u32`.";
    Uint8x2 = 1, "uint8x2", Uint8, 2, false, Uint8x2, "two `u8`, read as `vec2<u32>`.";
    Uint8x3Webgl = 2, "uint8x3-webgl", Uint8, 3, true, None, "three `u8`; WebGL only.";
    Uint8x4 = 3, "uint8x4", Uint8, 4, false, Uint8x4, "four `u8`, read as `vec4<u32>`.";
    Sint8 = 4, "sint8", Sint8, 1, false, Sint8, "one `i8`, read as `i32`.";
    Sint8x2 = 5, "sint8x2", Sint8, 2, false, Sint8x2, "two `i8`, read as `vec2<i32>`.";
    Sint8x3Webgl = 6, "sint8x3-webgl", Sint8, 3, true, None, "three `i8`; WebGL only.";
    Sint8x4 = 7, "sint8x4", Sint8, 4, false, Sint8x4, "four `i8`, read as `vec4<i32>`.";
    Unorm8 = 8, "unorm8", Unorm8, 1, false, Unorm8, "one `u8`, read as `f32` in `[0, 1]`.";
    Unorm8x2 = 9, "unorm8x2", Unorm8, 2, false, Unorm8x2, "two `u8`, read as `vec2<f32>` in `[0, 1]`.";
    Unorm8x3Webgl = 10, "unorm8x3-webgl", Unorm8, 3, true, None, "three `u8` normalized; WebGL only.";
    Unorm8x4 = 11, "unorm8x4", Unorm8, 4, false, Unorm8x4, "four `u8`, read as `vec4<f32>` in `[0, 1]`.";
    Unorm8x4Bgra = 12, "unorm8x4-bgra", Unorm8, 4, false, Unorm8x4Bgra, "four `u8` in BGRA order, read as RGBA `vec4<f32>` in `[0, 1]`.";
    Unorm10_10_10_2 = 13, "unorm10-10-10-2", Unorm8, 4, false, Unorm10_10_10_2, "one `u32` packing 10/10/10/2 bits (x in the low bits), read as `vec4<f32>` in `[0, 1]`.";
    Snorm8 = 14, "snorm8", Snorm8, 1, false, Snorm8, "one `i8`, read as `f32` in `[-1, 1]`.";
    Snorm8x2 = 15, "snorm8x2", Snorm8, 2, false, Snorm8x2, "two `i8`, read as `vec2<f32>` in `[-1, 1]`.";
    Snorm8x3Webgl = 16, "snorm8x3-webgl", Snorm8, 3, true, None, "three `i8` normalized; WebGL only.";
    Snorm8x4 = 17, "snorm8x4", Snorm8, 4, false, Snorm8x4, "four `i8`, read as `vec4<f32>` in `[-1, 1]`.";
    Uint16 = 18, "uint16", Uint16, 1, false, Uint16, "one `u16`, read as `u32`.";
    Uint16x2 = 19, "uint16x2", Uint16, 2, false, Uint16x2, "two `u16`, read as `vec2<u32>`.";
    Uint16x3Webgl = 20, "uint16x3-webgl", Uint16, 3, true, None, "three `u16`; WebGL only.";
    Uint16x4 = 21, "uint16x4", Uint16, 4, false, Uint16x4, "four `u16`, read as `vec4<u32>`.";
    Sint16 = 22, "sint16", Sint16, 1, false, Sint16, "one `i16`, read as `i32`.";
    Sint16x2 = 23, "sint16x2", Sint16, 2, false, Sint16x2, "two `i16`, read as `vec2<i32>`.";
    Sint16x3Webgl = 24, "sint16x3-webgl", Sint16, 3, true, None, "three `i16`; WebGL only.";
    Sint16x4 = 25, "sint16x4", Sint16, 4, false, Sint16x4, "four `i16`, read as `vec4<i32>`.";
    Unorm16 = 26, "unorm16", Unorm16, 1, false, Unorm16, "one `u16`, read as `f32` in `[0, 1]`.";
    Unorm16x2 = 27, "unorm16x2", Unorm16, 2, false, Unorm16x2, "two `u16`, read as `vec2<f32>` in `[0, 1]`.";
    Unorm16x3Webgl = 28, "unorm16x3-webgl", Unorm16, 3, true, None, "three `u16` normalized; WebGL only.";
    Unorm16x4 = 29, "unorm16x4", Unorm16, 4, false, Unorm16x4, "four `u16`, read as `vec4<f32>` in `[0, 1]`.";
    Snorm16 = 30, "snorm16", Snorm16, 1, false, Snorm16, "one `i16`, read as `f32` in `[-1, 1]`.";
    Snorm16x2 = 31, "snorm16x2", Snorm16, 2, false, Snorm16x2, "two `i16`, read as `vec2<f32>` in `[-1, 1]`.";
    Snorm16x3Webgl = 32, "snorm16x3-webgl", Snorm16, 3, true, None, "three `i16` normalized; WebGL only.";
    Snorm16x4 = 33, "snorm16x4", Snorm16, 4, false, Snorm16x4, "four `i16`, read as `vec4<f32>` in `[-1, 1]`.";
    Uint32 = 34, "uint32", Uint32, 1, false, Uint32, "one `u32`, read as `u32`.";
    Uint32x2 = 35, "uint32x2", Uint32, 2, false, Uint32x2, "two `u32`, read as `vec2<u32>`.";
    Uint32x3 = 36, "uint32x3", Uint32, 3, false, Uint32x3, "three `u32`, read as `vec3<u32>`.";
    Uint32x4 = 37, "uint32x4", Uint32, 4, false, Uint32x4, "four `u32`, read as `vec4<u32>`.";
    Sint32 = 38, "sint32", Sint32, 1, false, Sint32, "one `i32`, read as `i32`.";
    Sint32x2 = 39, "sint32x2", Sint32, 2, false, Sint32x2, "two `i32`, read as `vec2<i32>`.";
    Sint32x3 = 40, "sint32x3", Sint32, 3, false, Sint32x3, "three `i32`, read as `vec3<i32>`.";
    Sint32x4 = 41, "sint32x4", Sint32, 4, false, Sint32x4, "four `i32`, read as `vec4<i32>`.";
    Float16 = 42, "float16", Float16, 1, false, Float16, "one `f16`, read as `f32` (or `f16`).";
    Float16x2 = 43, "float16x2", Float16, 2, false, Float16x2, "two `f16`, read as `vec2<f32>` (or `vec2<f16>`).";
    Float16x4 = 44, "float16x4", Float16, 4, false, Float16x4, "four `f16`, read as `vec4<f32>` (or `vec4<f16>`).";
    Float32 = 45, "float32", Float32, 1, false, Float32, "one `f32`.";
    Float32x2 = 46, "float32x2", Float32, 2, false, Float32x2, "two `f32`, read as `vec2<f32>`.";
    Float32x3 = 47, "float32x3", Float32, 3, false, Float32x3, "three `f32`, read as `vec3<f32>`.";
    Float32x4 = 48, "float32x4", Float32, 4, false, Float32x4, "four `f32`, read as `vec4<f32>`.";
}

impl VertexFormat {
    /// Bytes of one value: component byte length × components.
    #[must_use]
    pub const fn byte_length(self) -> u64 {
        self.data_type().byte_length() * self.components() as u64
    }

    /// Whether components are integers fetched without conversion.
    #[must_use]
    pub const fn is_integer(self) -> bool {
        self.data_type().is_integer()
    }

    /// Whether the stored integers are signed (floats report `false`, as in luma.gl).
    #[must_use]
    pub const fn is_signed(self) -> bool {
        self.data_type().is_signed()
    }

    /// Whether vertex fetch normalizes the stored integers to floats.
    #[must_use]
    pub const fn is_normalized(self) -> bool {
        self.data_type().is_normalized()
    }

    /// Whether components are stored in BGRA order (`unorm8x4-bgra`).
    #[must_use]
    pub const fn is_bgra(self) -> bool {
        matches!(self, VertexFormat::Unorm8x4Bgra)
    }

    /// Whether the value is packed into bit fields (`unorm10-10-10-2`).
    #[must_use]
    pub const fn is_packed_bits(self) -> bool {
        matches!(self, VertexFormat::Unorm10_10_10_2)
    }

    /// The integer type storing each component (`unorm8x4` → `uint8`; `unorm10-10-10-2` →
    /// `uint32`, the word that holds its bit fields).
    #[must_use]
    pub const fn signed_data_type(self) -> DataType {
        if self.is_packed_bits() {
            DataType::Uint32
        } else {
            self.data_type().storage_type()
        }
    }

    /// The shader primitive type values arrive as: every normalized format reads as `f32`,
    /// float16 formats as `f16`, unsigned integers as `u32`, signed integers as `i32`.
    #[must_use]
    pub const fn primitive_type(self) -> PrimitiveType {
        self.data_type().primitive_type()
    }

    /// The shader attribute type this format feeds (`float32x3` → `vec3<f32>`,
    /// `float16x2` → `vec2<f16>`, `unorm8x4` → `vec4<f32>`).
    #[must_use]
    pub const fn shader_type(self) -> ShaderType {
        ShaderType::new(self.primitive_type(), self.components())
    }

    /// The shader type a WGSL vertex shader declares for this format without the `shader-f16`
    /// extension: like [`shader_type`](Self::shader_type) but float16 formats read as `f32`.
    #[must_use]
    pub const fn vertex_input_type(self) -> ShaderType {
        let primitive = match self.primitive_type() {
            PrimitiveType::F16 => PrimitiveType::F32,
            other => other,
        };
        ShaderType::new(primitive, self.components())
    }

    /// The WGSL type that carries this format's raw bytes in a `wgsl-storage` struct: 32-bit
    /// formats as `f32`/`i32`/`u32`/`vecN`, everything else as one `u32` word or a `vec2<u32>`.
    #[must_use]
    pub const fn wgsl_carrier(self) -> WgslCarrier {
        let scalar = match self.data_type() {
            DataType::Float32 => Some(PrimitiveType::F32),
            DataType::Sint32 => Some(PrimitiveType::I32),
            DataType::Uint32 if !self.is_packed_bits() => Some(PrimitiveType::U32),
            DataType::Uint32
            | DataType::Uint8
            | DataType::Sint8
            | DataType::Unorm8
            | DataType::Snorm8
            | DataType::Uint16
            | DataType::Sint16
            | DataType::Unorm16
            | DataType::Snorm16
            | DataType::Float16 => None,
        };
        match scalar {
            Some(primitive) => WgslCarrier::new(primitive, self.components()),
            None => WgslCarrier::new(PrimitiveType::U32, self.byte_length().div_ceil(4) as u32),
        }
    }

    /// Looks a format up by its exact WebGPU / luma.gl name; usable in `const` items.
    #[must_use]
    pub const fn from_name(name: &str) -> Option<VertexFormat> {
        let mut i = 0;
        while i < VertexFormat::NAMES.len() {
            if const_str_eq(VertexFormat::NAMES[i], name) {
                return Some(VertexFormat::ALL[i]);
            }
            i += 1;
        }
        None
    }

    /// Builds a format from a data type, a component count and a normalized flag, as luma.gl's
    /// `makeVertexFormat` does: `normalized` maps 8/16-bit integers to their normalized types and
    /// leaves 32-bit types unchanged; three components of 8/16-bit types give the `-webgl` format,
    /// except `uint8`/`sint8`/`float16`, which have no three-component format.
    ///
    /// # Errors
    /// [`FormatError::NoSuchFormat`] when no format has that shape.
    pub fn from_parts(
        data_type: DataType,
        components: u32,
        normalized: bool,
    ) -> Result<VertexFormat, FormatError> {
        let data_type = if normalized {
            match data_type.normalized_type() {
                Some(normalized) => normalized,
                None => data_type,
            }
        } else {
            data_type
        };
        let found = VertexFormat::ALL.iter().copied().find(|format| {
            format.data_type() == data_type
                && format.components() == components
                && !format.is_bgra()
                && !format.is_packed_bits()
        });
        // luma.gl refuses three-component 8-bit integer formats even in their -webgl form.
        let refused = components == 3 && matches!(data_type, DataType::Uint8 | DataType::Sint8);
        match found {
            Some(format) if !refused => Ok(format),
            _ => Err(FormatError::NoSuchFormat {
                data_type,
                components,
            }),
        }
    }

    /// The format a shader input of `shader_type` reads without conversion, as luma.gl's
    /// `getCompatibleVertexFormat`: `f32` → `float32xN`, `i32` → `sint32xN`, `u32` → `uint32xN`,
    /// `f16` → `float16x2` for one or two components, else `float16x4`.
    #[must_use]
    pub const fn compatible_with_shader_type(shader_type: ShaderType) -> VertexFormat {
        let n = shader_type.components();
        match shader_type.primitive() {
            PrimitiveType::F16 => {
                if n <= 2 {
                    VertexFormat::Float16x2
                } else {
                    VertexFormat::Float16x4
                }
            }
            PrimitiveType::F32 => pick(
                n,
                [
                    VertexFormat::Float32,
                    VertexFormat::Float32x2,
                    VertexFormat::Float32x3,
                    VertexFormat::Float32x4,
                ],
            ),
            PrimitiveType::I32 => pick(
                n,
                [
                    VertexFormat::Sint32,
                    VertexFormat::Sint32x2,
                    VertexFormat::Sint32x3,
                    VertexFormat::Sint32x4,
                ],
            ),
            PrimitiveType::U32 => pick(
                n,
                [
                    VertexFormat::Uint32,
                    VertexFormat::Uint32x2,
                    VertexFormat::Uint32x3,
                    VertexFormat::Uint32x4,
                ],
            ),
        }
    }

    /// The format equivalent to a [`wgpu::VertexFormat`], or `None` for the 64-bit float formats
    /// that luma.gl does not describe.
    #[must_use]
    pub fn from_wgpu(format: wgpu::VertexFormat) -> Option<VertexFormat> {
        VertexFormat::ALL
            .iter()
            .copied()
            .find(|f| f.to_wgpu() == Some(format))
    }

    /// Converts to a [`wgpu::VertexFormat`].
    ///
    /// # Errors
    /// [`FormatError::WebglOnly`] for the `-webgl` formats.
    pub fn try_to_wgpu(self) -> Result<wgpu::VertexFormat, FormatError> {
        self.to_wgpu()
            .ok_or(FormatError::WebglOnly { format: self })
    }
}

const fn pick(components: u32, formats: [VertexFormat; 4]) -> VertexFormat {
    // ShaderType guarantees 1..=4 components.
    formats[(components - 1) as usize]
}

/// Byte-wise string equality usable in `const fn`.
pub(crate) const fn const_str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl fmt::Display for VertexFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for VertexFormat {
    type Err = FormatError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        VertexFormat::from_name(s).ok_or_else(|| FormatError::UnknownVertexFormat {
            format: s.to_owned(),
        })
    }
}

impl From<VertexFormat> for &'static str {
    fn from(format: VertexFormat) -> Self {
        format.as_str()
    }
}

impl TryFrom<VertexFormat> for wgpu::VertexFormat {
    type Error = FormatError;

    fn try_from(format: VertexFormat) -> Result<Self, Self::Error> {
        format.try_to_wgpu()
    }
}
