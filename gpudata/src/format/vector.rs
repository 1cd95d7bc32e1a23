//! [`GpuVectorFormat`]: a fixed format or a variable-length list of one.

use core::fmt;
use core::str::FromStr;

use super::{DataType, PrimitiveType, ShaderType, VertexFormat};
use crate::format::FormatError;

/// The format of one logical column: a fixed-width [`VertexFormat`], or variable-length rows of
/// one (`vertex-list<F>` for vertex-aligned elements, `value-list<F>` for plain values such as
/// UTF-8 bytes).
///
/// Corresponds to luma.gl's `GPUVectorFormat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GpuVectorFormat {
    /// One fixed-width value per row.
    Fixed(VertexFormat),
    /// `vertex-list<F>`: rows of variable length whose elements are vertex values.
    VertexList(VertexFormat),
    /// `value-list<F>`: rows of variable length whose elements are plain values.
    ValueList(VertexFormat),
}

impl GpuVectorFormat {
    /// The format of one fixed row or one list element.
    #[must_use]
    pub const fn element_format(self) -> VertexFormat {
        match self {
            GpuVectorFormat::Fixed(f)
            | GpuVectorFormat::VertexList(f)
            | GpuVectorFormat::ValueList(f) => f,
        }
    }

    /// Whether this is `vertex-list<F>`.
    #[must_use]
    pub const fn is_vertex_list(self) -> bool {
        matches!(self, GpuVectorFormat::VertexList(_))
    }

    /// Whether this is `value-list<F>`.
    #[must_use]
    pub const fn is_value_list(self) -> bool {
        matches!(self, GpuVectorFormat::ValueList(_))
    }

    /// Whether rows have variable length.
    #[must_use]
    pub const fn is_list(self) -> bool {
        !matches!(self, GpuVectorFormat::Fixed(_))
    }

    /// The facts luma.gl's `getGPUVectorFormatInfo` reports.
    #[must_use]
    pub const fn info(self) -> GpuVectorFormatInfo {
        let element = self.element_format();
        GpuVectorFormatInfo {
            format: self,
            element_format: element,
            vertex_list: self.is_vertex_list(),
            value_list: self.is_value_list(),
            data_type: element.data_type(),
            signed_data_type: element.signed_data_type(),
            primitive_type: element.primitive_type(),
            components: element.components(),
            byte_length: element.byte_length(),
            integer: element.is_integer(),
            signed: element.is_signed(),
            normalized: element.is_normalized(),
            webgl_only: element.is_webgl_only(),
        }
    }

    /// Whether a shader input of `shader_type` can read this format: the component counts agree
    /// and the primitive types are compatible (`f32` accepts `f32` and `f16` formats, which
    /// includes every normalized format; `f16`, `i32` and `u32` accept only their own).
    #[must_use]
    pub const fn is_compatible_with(self, shader_type: ShaderType) -> bool {
        let element = self.element_format();
        if element.components() != shader_type.components() {
            return false;
        }
        let format_primitive = element.primitive_type();
        match shader_type.primitive() {
            PrimitiveType::F32 => {
                matches!(format_primitive, PrimitiveType::F32 | PrimitiveType::F16)
            }
            PrimitiveType::F16 => matches!(format_primitive, PrimitiveType::F16),
            PrimitiveType::I32 => matches!(format_primitive, PrimitiveType::I32),
            PrimitiveType::U32 => matches!(format_primitive, PrimitiveType::U32),
        }
    }
}

impl From<VertexFormat> for GpuVectorFormat {
    fn from(format: VertexFormat) -> Self {
        GpuVectorFormat::Fixed(format)
    }
}

impl fmt::Display for GpuVectorFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuVectorFormat::Fixed(format) => write!(f, "{format}"),
            GpuVectorFormat::VertexList(format) => write!(f, "vertex-list<{format}>"),
            GpuVectorFormat::ValueList(format) => write!(f, "value-list<{format}>"),
        }
    }
}

/// Splits `prefix<inner>` where `inner` is one or more characters that are not `<` or `>`.
fn list_inner<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let inner = s
        .strip_prefix(prefix)?
        .strip_prefix('<')?
        .strip_suffix('>')?;
    (!inner.is_empty() && !inner.contains(['<', '>'])).then_some(inner)
}

impl FromStr for GpuVectorFormat {
    type Err = FormatError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unsupported = || FormatError::UnknownVectorFormat {
            format: s.to_owned(),
        };
        let (make, element): (fn(VertexFormat) -> GpuVectorFormat, &str) =
            if let Some(inner) = list_inner(s, "vertex-list") {
                (GpuVectorFormat::VertexList, inner)
            } else if let Some(inner) = list_inner(s, "value-list") {
                (GpuVectorFormat::ValueList, inner)
            } else {
                (GpuVectorFormat::Fixed, s)
            };
        VertexFormat::from_name(element)
            .map(make)
            .ok_or_else(unsupported)
    }
}

/// What luma.gl's `getGPUVectorFormatInfo` reports about a [`GpuVectorFormat`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuVectorFormatInfo {
    /// The format described.
    pub format: GpuVectorFormat,
    /// The format of one fixed row or list element.
    pub element_format: VertexFormat,
    /// Whether the format is `vertex-list<F>`.
    pub vertex_list: bool,
    /// Whether the format is `value-list<F>`.
    pub value_list: bool,
    /// The element's data type (`unorm8` for `unorm8x4`).
    pub data_type: DataType,
    /// The integer type storing the element (`uint8` for `unorm8x4`, `uint32` for
    /// `unorm10-10-10-2`).
    pub signed_data_type: DataType,
    /// The shader primitive type values arrive as.
    pub primitive_type: PrimitiveType,
    /// Components of one element.
    pub components: u32,
    /// Bytes of one fixed row or list element.
    pub byte_length: u64,
    /// Whether components are integers.
    pub integer: bool,
    /// Whether stored integers are signed.
    pub signed: bool,
    /// Whether vertex fetch normalizes the values.
    pub normalized: bool,
    /// Whether the element format is WebGL-only.
    pub webgl_only: bool,
}
