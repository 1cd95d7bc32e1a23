//! GPU record layouts for wgpu, checked at compile time.
//!
//! `gpudata` describes GPU memory as tables, after luma.gl's GPU tables: fixed-width
//! [`VertexFormat`]s, struct formats of named fields laid out by WebGPU vertex rules
//! ([`StructLayout::Packed`]) or WGSL storage rules ([`StructLayout::WgslStorage`]), and their
//! lowering to wgpu vertex buffer layouts.
//!
//! # A struct format at run time
//!
//! ```
//! use gpudata::{GpuDataStructFormat, StepMode, StructLayout};
//!
//! let format = GpuDataStructFormat::parse(
//!     StructLayout::Packed,
//!     [("tag", "uint8"), ("value", "float32")],
//! )?;
//! assert_eq!(format.fields()[1].byte_offset(), 4);
//! assert_eq!(format.byte_stride(), 8);
//! let layout = format.buffer_layout("instances", Some(StepMode::Instance));
//! let wgpu_layout = layout.to_wgpu(0)?;
//! assert_eq!(wgpu_layout.as_wgpu().array_stride, 8);
//! # Ok::<(), gpudata::LayoutError>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_op_in_unsafe_fn)]

#[cfg(feature = "arrow")]
pub mod arrow;
pub mod data;
pub mod error;
pub mod format;
pub mod gpu;
pub mod layout;
pub mod ops;
pub mod record;
pub mod table;
#[cfg(feature = "serde")]
mod serde_impls;

pub use data::{
    BufferHandle, GpuData, GpuDataDescriptor, GpuDataFormat, GpuDataView, HostValues, RowMetrics,
    TypedGpuData, TypedGpuDataView, VertexBinding,
};
pub use error::{DataError, FormatError, GpuError, LayoutError, OpError, TableError, WgslError};
pub use table::{
    GpuConstant, GpuDynamicVector, GpuRecordBatch, GpuSchema, GpuTable, GpuVector, SegmentedTable,
};
pub use gpu::{AdapterKind, Gpu};
pub use format::{
    DataType, GpuVectorFormat, GpuVectorFormatInfo, PrimitiveType, ShaderType, VertexFormat,
    WgslCarrier,
};
pub use record::{GpuField, GpuFieldMarker, GpuStruct};
pub use record::{
    GpuFieldOf, Snorm8, Snorm8x2, Snorm8x4, Snorm16, Snorm16x2, Snorm16x4, Unorm8, Unorm8x2,
    Unorm8x4, Unorm8x4Bgra, Unorm10_10_10_2, Unorm16, Unorm16x2, Unorm16x4,
};
#[cfg(feature = "derive")]
#[doc = include_str!("record/derive.md")]
pub use gpudata_derive::GpuStruct;
#[doc(hidden)]
pub use record::private as __private;
pub use layout::{
    BufferAttribute, BufferLayout, ConstLayout, GpuDataStructField, GpuDataStructFormat,
    LayoutCursor, LayoutRuleError, RowShape, StepMode, StructLayout, WgpuVertexLayout,
    layout_formats,
};
