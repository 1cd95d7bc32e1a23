//! The struct layout engine: [`StructLayout`] rules, the `const fn` [`LayoutCursor`],
//! [`GpuDataStructFormat`], vertex [`BufferLayout`]s and their lowering to wgpu.

mod buffer_layout;
mod error;
mod rules;
mod span;
mod struct_format;
mod wgsl;

pub use buffer_layout::{BufferAttribute, BufferLayout, StepMode, WgpuVertexLayout};
pub use error::{LayoutError, WgslError};
pub use rules::{
    ConstLayout, LayoutCursor, LayoutRuleError, RowShape, StructLayout, layout_formats,
};
pub(crate) use span::strided_byte_length;
pub use struct_format::{GpuDataStructField, GpuDataStructFormat};
pub(crate) use wgsl::check_name as check_wgsl_name;
