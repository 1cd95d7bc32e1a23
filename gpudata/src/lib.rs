//! GPU record layouts for wgpu, checked at compile time.
//!
//! `gpudata` describes GPU memory as tables, after luma.gl's GPU tables: one buffer plus typed row
//! metadata ([`GpuData`]), borrowed strided views of one field ([`GpuDataView`]), struct formats
//! of named fixed-width fields ([`GpuDataStructFormat`]) under WebGPU vertex rules
//! ([`StructLayout::Packed`]) or WGSL storage rules ([`StructLayout::WgslStorage`]), columns and
//! tables ([`table`]), GPU operations ([`ops`]) and Apache Arrow interop (`arrow`, feature
//! `arrow`).
//!
//! # A guided tour
//!
//! **1. Formats.** [`VertexFormat`] lists the 49 formats luma.gl knows, with `const fn` facts
//! ([`byte_length`](VertexFormat::byte_length), [`components`](VertexFormat::components),
//! [`is_normalized`](VertexFormat::is_normalized), ...) and the exact WebGPU strings.
//! [`GpuVectorFormat`] adds `vertex-list<F>` and `value-list<F>` columns.
//!
//! ```
//! use gpudata::VertexFormat;
//!
//! let f: VertexFormat = "unorm8x4".parse()?;
//! assert_eq!((f.byte_length(), f.components(), f.is_normalized()), (4, 4, true));
//! assert_eq!(f.to_wgpu(), Some(wgpu::VertexFormat::Unorm8x4));
//! assert!("float16x3".parse::<VertexFormat>().is_err()); // no such WebGPU format
//! # Ok::<(), gpudata::FormatError>(())
//! ```
//!
//! **2. Layouts.** One `const fn` algorithm places fields for both the derive (in `const` items)
//! and runtime declarations ([`GpuDataStructFormat`]):
//!
//! ```
//! use gpudata::{GpuDataStructFormat, StepMode, StructLayout, VertexLayoutSource};
//!
//! let format = GpuDataStructFormat::parse(
//!     StructLayout::Packed,
//!     [("tag", "uint8"), ("value", "float32")],
//! )?;
//! assert_eq!(format.fields()[1].byte_offset(), 4);
//! assert_eq!(format.byte_stride(), 8);
//! // The one way to a wgpu vertex layout, from formats, data, views, constants and tables.
//! let layout = format.vertex_layout(0, StepMode::Instance)?;
//! assert_eq!(layout.buffers()[0].array_stride, 8);
//! # Ok::<(), gpudata::LayoutError>(())
//! ```
//!
//! **3. `#[derive(GpuStruct)]`.** A Rust struct becomes a row type whose [`GpuStruct::FORMAT`],
//! `'static` vertex layout ([`GpuStruct::vertex_buffer_layout`]) and field markers are
//! computed at compile time; see [`GpuStruct`](derive@GpuStruct) for the attributes and the
//! compile errors it reports. Field types implement [`GpuField`]:
//! scalars and arrays, `half::f16`, glam and mint vectors, the normalized newtypes, and your own
//! `bytemuck::Pod` types through [`impl_gpu_field!`].
//!
//! **4. Data on the GPU.** [`Gpu::headless`] opens the best adapter (or the software one);
//! [`TypedGpuData::from_rows`] uploads rows (one memcpy when the host layout equals the GPU
//! layout), [`TypedGpuData::get_child`] borrows one field as a strided view (typed by a field
//! marker; [`get_child_by_name`](TypedGpuData::get_child_by_name) and
//! [`get_child_at`](TypedGpuData::get_child_at) for run-time names), and readbacks decode every
//! format. [`GpuData`] is the runtime form for formats built from strings, with luma.gl's
//! row metadata and every byte range checked. One struct value for a shader: [`data::GpuUniform`]
//! (a `wgsl-uniform` struct) and [`data::GpuStorage`] (a struct ending in a
//! [`record::RuntimeArray`], uploaded as a header plus N elements).
//!
//! **5. Tables.** [`GpuVector`] (a column over chunks), [`GpuConstant`], [`GpuRecordBatch`],
//! [`GpuTable`] and [`table::SegmentedTable`] (columns as aligned segments of one allocation) bind as
//! vertex buffers for render passes and as storage ranges with generated WGSL accessors for
//! compute passes.
//!
//! **6. Operations.** [`ops`] runs luma.gl's operations as generated WGSL kernels, each with a
//! CPU reference of identical semantics: arithmetic and math functions, lane operations,
//! interleave and deinterleave, fround, row masks and compaction, prefix sums, `extent`,
//! `gather`, `sequence` and `segmented_map`. Chunked columns ([`GpuVector`]) run the same
//! kernels piece by piece through one driver, [`ops::piecewise`] (also as `GpuVector::arithmetic`,
//! `mask`, `filter`, `extent`, `prefix_sum`, `gather`), and [`GpuTable::filter`] keeps the rows
//! a mask selects with `ops`' compaction.
//!
//! **7. Arrow.** With feature `arrow`, arrays and record batches upload straight from their Arrow
//! buffers and read back with their original types.
//!
//! **8. Host and shader agree.** With feature `naga`, `#[gpu(shader = "shaders/particles.wgsl",
//! shader_struct = "Particle")]` (or `shader_global = "particles", group = 0, binding = 1`, or
//! `vertex_entry = "vs_main"`) makes a struct that disagrees with its WGSL, nested types included,
//! a compile error at the field, naming the WGSL line; `gpudata::check` checks structs,
//! vertex buffers, uniform/storage globals and table bindings against a parsed shader at run time,
//! every mismatch at once (a short guide is in that module's documentation).
//!
//! # Features
//!
//! `derive` (default): the derive macro. `half` (default): `half::f16` fields and float16
//! decoding. `serde`: luma.gl's JSON shape for formats and layouts. `glam`, `mint`: vector field
//! types. `arrow`: Apache Arrow interop on arrow-rs 60. `naga`: host/shader agreement checks
//! (`gpudata::check` at run time, the derive's `#[gpu(shader = "...")]` at compile time).
//!
//! # The crate root
//!
//! The root holds what the README and the examples name: [`Gpu`]; [`GpuData`], [`GpuDataView`],
//! [`GpuDataDescriptor`], [`BufferHandle`], [`TypedGpuData`]; [`GpuStruct`] (trait and derive),
//! [`GpuField`], [`impl_gpu_field!`] and the normalized field types ([`Unorm8x4`], ...);
//! [`VertexFormat`], [`GpuVectorFormat`], [`ShaderType`]; [`GpuDataStructFormat`],
//! [`StructLayout`], [`StepMode`], [`BufferLayout`]; [`GpuVector`], [`GpuConstant`],
//! [`GpuRecordBatch`], [`GpuTable`]; and the area errors. The engine's pieces stay public under
//! their modules: [`format`](mod@format), [`layout`], [`record`], [`data`], [`device`],
//! [`table`], [`ops`], [`error`].
//!
//! # Errors
//!
//! Every fallible function returns a typed error enum ([`FormatError`], [`LayoutError`],
//! [`DataError`], [`GpuError`], [`error::WgslError`], [`TableError`], [`OpError`]; all of them,
//! and the few more specific ones, in [`error`]); messages are
//! lowercase, name the field, format or value, and state what was expected and found. The
//! repository's `docs/ERRORS.md` lists each error with its cause, its fix and the test that pins
//! it.
#![deny(missing_docs)]
#![forbid(unsafe_op_in_unsafe_fn)]

#[cfg(feature = "arrow")]
pub mod arrow;
pub mod bind;
#[cfg(feature = "naga")]
pub mod check;
mod count;
pub mod data;
mod derive_support;
pub mod device;
pub mod error;
pub mod format;
#[cfg(feature = "serde")]
mod interchange;
pub mod layout;
pub mod ops;
pub mod record;
pub mod table;

// The front door: the types a user names in the README and the examples. Everything else is
// public under its module (`gpudata::layout::LayoutCursor`, `gpudata::data::GpuDataFormat`, ...).
// The bind group derive and its trait (one name, both namespaces).
pub use bind::GpuBindGroup;
pub use data::{BufferHandle, GpuConstant, GpuData, GpuDataDescriptor, GpuDataView, TypedGpuData};
pub use device::Gpu;
pub use error::{DataError, FormatError, GpuError, LayoutError, OpError, TableError};
pub use format::{GpuVectorFormat, ShaderType, VertexFormat};
#[cfg(feature = "derive")]
#[doc = include_str!("record/derive.md")]
pub use gpudata_derive::GpuStruct;
pub use layout::{BufferLayout, GpuDataStructFormat, StepMode, StructLayout, VertexLayoutSource};
pub use record::{GpuField, GpuStruct};
// The normalized field types, written in struct definitions as often as `f32`.
pub use record::{
    Snorm8, Snorm8x2, Snorm8x4, Snorm16, Snorm16x2, Snorm16x4, Unorm8, Unorm8x2, Unorm8x4,
    Unorm8x4Bgra, Unorm10_10_10_2, Unorm16, Unorm16x2, Unorm16x4,
};
pub use table::{GpuRecordBatch, GpuTable, GpuVector};

/// What the `#[derive(GpuStruct)]` and `impl_gpu_field!` expansions name (`derive_support/`).
/// Not API: nothing here is covered by semver.
#[doc(hidden)]
pub mod __private {
    pub use crate::derive_support::*;
    // `#[derive(GpuBindGroup)]`'s.
    pub use crate::bind::{
        BindResource, BindingField, BindingKeys, GpuBindGroup, PairField, ShaderGlobal,
        StorageTextureKeys, TextureKeys, WgslResource, WgslSample, binding_field, keys_problem,
        sampling_problem, shader_problem,
    };
    pub use crate::device::{Gpu, GpuError};
}
