//! The format vocabulary: [`VertexFormat`], [`DataType`], [`ShaderType`] and
//! [`GpuVectorFormat`].
//!
//! Every fact about a format is a `const fn` with an exhaustive match, so the struct layout engine
//! can run in `const` items, and the strings are exactly the WebGPU / luma.gl names.
//!
//! [`codec`] is the one host encode/decode of every format, and [`wgsl_codec`] its one WGSL
//! twin.

pub mod codec;
mod data_type;
mod error;
mod shader_type;
mod vector;
mod vertex;
pub mod wgsl_codec;

pub use data_type::{DataType, PrimitiveType};
pub use error::FormatError;
pub(crate) use shader_type::wgsl_alignment;
pub use shader_type::{ShaderType, WgslCarrier};
pub use vector::{GpuVectorFormat, GpuVectorFormatInfo};
pub use vertex::VertexFormat;

pub(crate) use vertex::const_str_eq;
