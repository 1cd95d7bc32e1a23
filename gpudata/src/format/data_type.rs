//! Scalar memory data types and shader primitive types.

use core::fmt;

/// The scalar type stored for each component of a [`VertexFormat`](super::VertexFormat).
///
/// Corresponds to luma.gl's `NormalizedDataType`.
// Discriminants 0 to 11 in order, implicit: the compile-time interpreter reads an enum whose
// discriminants are written out through one query per variant, on every `match` in a `const fn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DataType {
    /// Unsigned 8-bit integer.
    Uint8,
    /// Signed 8-bit integer.
    Sint8,
    /// Unsigned 8-bit integer read as a float in `[0, 1]`.
    Unorm8,
    /// Signed 8-bit integer read as a float in `[-1, 1]`.
    Snorm8,
    /// Unsigned 16-bit integer.
    Uint16,
    /// Signed 16-bit integer.
    Sint16,
    /// Unsigned 16-bit integer read as a float in `[0, 1]`.
    Unorm16,
    /// Signed 16-bit integer read as a float in `[-1, 1]`.
    Snorm16,
    /// Unsigned 32-bit integer.
    Uint32,
    /// Signed 32-bit integer.
    Sint32,
    /// IEEE 754 binary16 float.
    Float16,
    /// IEEE 754 binary32 float.
    Float32,
}

impl DataType {
    /// Every data type, in declaration order.
    pub const ALL: [DataType; 12] = [
        DataType::Uint8,
        DataType::Sint8,
        DataType::Unorm8,
        DataType::Snorm8,
        DataType::Uint16,
        DataType::Sint16,
        DataType::Unorm16,
        DataType::Snorm16,
        DataType::Uint32,
        DataType::Sint32,
        DataType::Float16,
        DataType::Float32,
    ];

    /// Bytes of one component.
    #[must_use]
    pub const fn byte_length(self) -> u64 {
        match self {
            DataType::Uint8 | DataType::Sint8 | DataType::Unorm8 | DataType::Snorm8 => 1,
            DataType::Uint16
            | DataType::Sint16
            | DataType::Unorm16
            | DataType::Snorm16
            | DataType::Float16 => 2,
            DataType::Uint32 | DataType::Sint32 | DataType::Float32 => 4,
        }
    }

    /// Whether values are integers fetched without conversion (not normalized, not float).
    #[must_use]
    pub const fn is_integer(self) -> bool {
        match self {
            DataType::Uint8
            | DataType::Sint8
            | DataType::Uint16
            | DataType::Sint16
            | DataType::Uint32
            | DataType::Sint32 => true,
            DataType::Unorm8
            | DataType::Snorm8
            | DataType::Unorm16
            | DataType::Snorm16
            | DataType::Float16
            | DataType::Float32 => false,
        }
    }

    /// Whether the stored integer is signed (luma.gl's rule: the name starts with `s`; floats are
    /// reported unsigned).
    #[must_use]
    pub const fn is_signed(self) -> bool {
        match self {
            DataType::Sint8
            | DataType::Snorm8
            | DataType::Sint16
            | DataType::Snorm16
            | DataType::Sint32 => true,
            DataType::Uint8
            | DataType::Unorm8
            | DataType::Uint16
            | DataType::Unorm16
            | DataType::Uint32
            | DataType::Float16
            | DataType::Float32 => false,
        }
    }

    /// Whether vertex fetch maps the stored integer to a float in `[0, 1]` or `[-1, 1]`.
    #[must_use]
    pub const fn is_normalized(self) -> bool {
        matches!(
            self,
            DataType::Unorm8 | DataType::Snorm8 | DataType::Unorm16 | DataType::Snorm16
        )
    }

    /// The integer type that stores a normalized type's bits (`unorm8` → `uint8`); other types
    /// map to themselves.
    #[must_use]
    pub const fn storage_type(self) -> DataType {
        match self {
            DataType::Unorm8 => DataType::Uint8,
            DataType::Snorm8 => DataType::Sint8,
            DataType::Unorm16 => DataType::Uint16,
            DataType::Snorm16 => DataType::Sint16,
            DataType::Uint8
            | DataType::Sint8
            | DataType::Uint16
            | DataType::Sint16
            | DataType::Uint32
            | DataType::Sint32
            | DataType::Float16
            | DataType::Float32 => self,
        }
    }

    /// The normalized type with the same storage (`uint8` → `unorm8`), or `None` for types that
    /// have no normalized form (32-bit integers and floats).
    #[must_use]
    pub const fn normalized_type(self) -> Option<DataType> {
        match self {
            DataType::Uint8 | DataType::Unorm8 => Some(DataType::Unorm8),
            DataType::Sint8 | DataType::Snorm8 => Some(DataType::Snorm8),
            DataType::Uint16 | DataType::Unorm16 => Some(DataType::Unorm16),
            DataType::Sint16 | DataType::Snorm16 => Some(DataType::Snorm16),
            DataType::Uint32 | DataType::Sint32 | DataType::Float16 | DataType::Float32 => None,
        }
    }

    /// The shader primitive type values of this type arrive as (GPUVector rule: every normalized
    /// type reads as `f32`).
    #[must_use]
    pub const fn primitive_type(self) -> PrimitiveType {
        match self {
            DataType::Uint8 | DataType::Uint16 | DataType::Uint32 => PrimitiveType::U32,
            DataType::Sint8 | DataType::Sint16 | DataType::Sint32 => PrimitiveType::I32,
            DataType::Float16 => PrimitiveType::F16,
            DataType::Unorm8
            | DataType::Snorm8
            | DataType::Unorm16
            | DataType::Snorm16
            | DataType::Float32 => PrimitiveType::F32,
        }
    }

    /// The luma.gl name (`"unorm8"`, `"float32"`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            DataType::Uint8 => "uint8",
            DataType::Sint8 => "sint8",
            DataType::Unorm8 => "unorm8",
            DataType::Snorm8 => "snorm8",
            DataType::Uint16 => "uint16",
            DataType::Sint16 => "sint16",
            DataType::Unorm16 => "unorm16",
            DataType::Snorm16 => "snorm16",
            DataType::Uint32 => "uint32",
            DataType::Sint32 => "sint32",
            DataType::Float16 => "float16",
            DataType::Float32 => "float32",
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A WGSL scalar type that shader inputs are declared with.
// Discriminants 0 to 3 in order, implicit (see `DataType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PrimitiveType {
    /// `f32`.
    F32,
    /// `f16`.
    F16,
    /// `i32`.
    I32,
    /// `u32`.
    U32,
}

impl PrimitiveType {
    /// The WGSL spelling.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            PrimitiveType::F32 => "f32",
            PrimitiveType::F16 => "f16",
            PrimitiveType::I32 => "i32",
            PrimitiveType::U32 => "u32",
        }
    }

    /// Bytes of one value in a shader (2 for `f16`, else 4).
    #[must_use]
    pub const fn byte_length(self) -> u64 {
        match self {
            PrimitiveType::F16 => 2,
            PrimitiveType::F32 | PrimitiveType::I32 | PrimitiveType::U32 => 4,
        }
    }

    /// The one-letter WGSL alias suffix (`vec3f`, `vec2h`, `vec4i`, `vec2u`).
    #[must_use]
    pub const fn alias_suffix(self) -> char {
        match self {
            PrimitiveType::F32 => 'f',
            PrimitiveType::F16 => 'h',
            PrimitiveType::I32 => 'i',
            PrimitiveType::U32 => 'u',
        }
    }
}

impl fmt::Display for PrimitiveType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
