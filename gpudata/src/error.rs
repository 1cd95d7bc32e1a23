//! Error types, one enum per area. Messages are lowercase, state what was expected and what was
//! found, and name the field, format or value involved.

use crate::format::{DataType, VertexFormat};
use crate::layout::LayoutRuleError;

/// A format string or format combination that does not exist.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// The string names no vertex format.
    #[error(
        "unsupported vertex format `{format}`: expected a WebGPU vertex format such as `float32x3`, `unorm8x4` or `uint16x3-webgl`"
    )]
    UnknownVertexFormat {
        /// The string given.
        format: String,
    },
    /// The string is neither a vertex format nor `vertex-list<F>` / `value-list<F>`.
    #[error(
        "unsupported gpu vector format `{format}`: expected a vertex format, `vertex-list<F>` or `value-list<F>`"
    )]
    UnknownVectorFormat {
        /// The string given.
        format: String,
    },
    /// The string names no shader attribute type.
    #[error(
        "unsupported attribute shader type `{shader_type}`: expected `f32`, `f16`, `i32`, `u32`, `vecN<T>` or an alias such as `vec3f`"
    )]
    UnknownShaderType {
        /// The string given.
        shader_type: String,
    },
    /// A `-webgl` format has no wgpu equivalent.
    #[error(
        "vertex format `{format}` is WebGL-only: wgpu cannot fetch it; use a 4-component format"
    )]
    WebglOnly {
        /// The format.
        format: VertexFormat,
    },
    /// No format has this data type and component count.
    #[error("no vertex format has {components} components of {data_type}")]
    NoSuchFormat {
        /// The data type asked for.
        data_type: DataType,
        /// The component count asked for.
        components: u32,
    },
}

/// A struct format or buffer layout that cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// The layout string is not `wgsl-storage` or `packed`.
    #[error("unknown struct layout `{layout}`: expected `wgsl-storage` or `packed`")]
    UnknownLayout {
        /// The string given.
        layout: String,
    },
    /// The step mode string is not `vertex` or `instance`.
    #[error("unknown step mode `{step_mode}`: expected `vertex` or `instance`")]
    UnknownStepMode {
        /// The string given.
        step_mode: String,
    },
    /// A field's format string names no vertex format.
    #[error("field `{field}` has unsupported vertex format `{format}`")]
    UnknownFormat {
        /// The field.
        field: String,
        /// The string given.
        format: String,
    },
    /// The struct declares no field.
    #[error("a gpu struct format must declare at least one field")]
    NoFields,
    /// Two fields share a name.
    #[error("duplicate field `{field}`: fields {first} and {second} share the name")]
    DuplicateField {
        /// The name.
        field: String,
        /// Position of the first.
        first: usize,
        /// Position of the second.
        second: usize,
    },
    /// A packed struct holds a `-webgl` format.
    #[error(
        "packed struct field `{field}` uses WebGL-only format `{format}`: the packed layout follows WebGPU vertex rules; use a 4-component format or the wgsl-storage layout"
    )]
    WebglOnlyInPacked {
        /// The field.
        field: String,
        /// Its format.
        format: VertexFormat,
    },
    /// Offsets overflow `u64`.
    #[error("struct offsets overflow at field `{field}`")]
    Overflow {
        /// The field being placed.
        field: String,
    },
    /// A buffer layout has neither attributes nor a format.
    #[error("buffer layout `{layout}` has no attributes and no format")]
    NoAttributes {
        /// The layout name.
        layout: String,
    },
    /// An interleaved buffer layout has no byte stride.
    #[error("buffer layout `{layout}` requires a byte stride for interleaved attributes")]
    NoByteStride {
        /// The layout name.
        layout: String,
    },
    /// A vertex buffer stride that is not a multiple of 4.
    #[error(
        "buffer layout `{layout}` has byte stride {byte_stride}: wgpu vertex strides must be a multiple of 4"
    )]
    MisalignedStride {
        /// The layout name.
        layout: String,
        /// The stride.
        byte_stride: u64,
    },
    /// An attribute offset not aligned to `min(4, byte length)`.
    #[error(
        "attribute `{attribute}` at byte offset {byte_offset}: vertex attributes must be aligned to {alignment} bytes"
    )]
    MisalignedAttribute {
        /// The attribute.
        attribute: String,
        /// Its offset.
        byte_offset: u64,
        /// The required alignment.
        alignment: u64,
    },
    /// An attribute that ends past the stride.
    #[error(
        "attribute `{attribute}` spans bytes {byte_offset}..{byte_offset}+{byte_length}, past the byte stride {byte_stride}"
    )]
    AttributeOutsideStride {
        /// The attribute.
        attribute: String,
        /// Its offset.
        byte_offset: u64,
        /// Its length.
        byte_length: u64,
        /// The stride.
        byte_stride: u64,
    },
    /// A `-webgl` format in a wgpu vertex layout.
    #[error(
        "attribute `{attribute}` uses WebGL-only format `{format}`, which wgpu cannot fetch as a vertex attribute"
    )]
    WebglOnlyVertexAttribute {
        /// The attribute.
        attribute: String,
        /// Its format.
        format: VertexFormat,
    },
    /// Shader locations past `u32::MAX`.
    #[error("shader locations starting at {base_location} overflow u32")]
    LocationOverflow {
        /// The first location.
        base_location: u32,
    },
    /// A serialized struct format whose stated numbers disagree with its fields.
    #[error("serialized struct format states {what} {found}, but its fields give {expected}")]
    Inconsistent {
        /// Which number (`byteOffset of field "a"`, `byteStride`, ...).
        what: String,
        /// What the fields give.
        expected: u64,
        /// What was stated.
        found: u64,
    },
}

impl LayoutError {
    /// Names the fields of a [`LayoutRuleError`] found by the `const fn` engine.
    pub(crate) fn from_rule(error: LayoutRuleError, name_of: impl Fn(usize) -> String) -> Self {
        match error {
            LayoutRuleError::NoFields => LayoutError::NoFields,
            LayoutRuleError::WebglOnlyInPacked { index, format } => {
                LayoutError::WebglOnlyInPacked {
                    field: name_of(index),
                    format,
                }
            }
            LayoutRuleError::Overflow { index } => LayoutError::Overflow {
                field: name_of(index),
            },
            LayoutRuleError::DuplicateName { first, second } => LayoutError::DuplicateField {
                field: name_of(second),
                first,
                second,
            },
        }
    }
}
