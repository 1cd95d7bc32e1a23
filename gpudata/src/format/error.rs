//! [`FormatError`]: format strings and format combinations that do not exist.

use crate::count::Count;
use crate::format::{DataType, VertexFormat};

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
    #[error(
        "no vertex format has {components} of {data_type}",
        components = Count(*.components, "component")
    )]
    NoSuchFormat {
        /// The data type asked for.
        data_type: DataType,
        /// The component count asked for.
        components: u32,
    },
}
