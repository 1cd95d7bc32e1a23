//! Columns and tables on the GPU: [`GpuVector`] (one logical column over
//! [`GpuData`](crate::GpuData) chunks, appendable by chunks or in one growing buffer, see
//! [`Growth`]), constant columns ([`GpuConstant`](crate::GpuConstant): one value for every
//! row), [`GpuSchema`], [`GpuRecordBatch`] and
//! [`GpuTable`] (luma.gl's GPU tables, with Rust ownership instead of runtime ownership flags),
//! and the *segmented* layout ([`SegmentedTable`]): columns as contiguous, storage-aligned
//! segments of one allocation.
//!
//! # Physical layouts
//!
//! | layout | columns per buffer | built by |
//! |---|---|---|
//! | packed | one | [`GpuTable::from_vectors`], [`GpuTable::to_packed`], [`GpuTable::pack_batches`] |
//! | interleaved | many, row-major | [`GpuVector::from_rows`], [`GpuTable::to_interleaved`] |
//! | segmented | many, column-major | [`SegmentedTableBuilder`], [`GpuTable::to_segmented`] |
//!
//! Conversions run on the GPU (buffer copies, or a small byte-moving compute kernel for strided
//! rows); nothing makes a host round trip.
//!
//! # Operations
//!
//! A [`GpuVector`] larger than one buffer is held in chunks; it is a
//! [`Chunked`](crate::ops::piecewise::Chunked) column of [`ops::piecewise`](crate::ops::piecewise),
//! whose one driver runs [`ops`](crate::ops)' kernels over every chunk and gives the one-buffer
//! result. Its operation methods delegate there: [`GpuVector::arithmetic`] and the lane and
//! math operations piece by piece, [`GpuVector::mask`] and [`GpuVector::filter`], and
//! [`GpuVector::extent`], [`GpuVector::prefix_sum`] and [`GpuVector::gather`] over the whole
//! column. [`GpuTable::filter`] keeps the rows a mask selects in every batch with `ops`'
//! compaction, with their Arrow nulls.
//!
//! # Binding
//!
//! [`GpuTable::render_bindings`] gives a render pipeline its vertex layouts (columns in layout
//! order, then constants as zero-stride vertex buffers) and each batch its buffers and index
//! buffer; [`GpuTable::storage_bindings`] gives a compute pass a storage range per column or
//! segment, a uniform per constant, and WGSL accessors that decode every format as vertex fetch
//! would.
//!
//! # Picking
//!
//! [`PickingTarget`] (an `r32uint` texture of row ids), [`PickOffsets`] (every batch's first
//! row id at its own dynamic offset of one write-once uniform buffer, so all batches draw in one
//! submission), [`RowResolver`] (ids to batch, row and Arrow source row) and [`PointPicking`] (a
//! ready point pipeline): which row is under a pixel or in a rectangle.
//!
//! # Example
//!
//! ```
//! use gpudata::table::{RecordBatchOptions, GpuColumn, GpuTable, GpuVector};
//! use gpudata::{GpuConstant, GpuData, VertexFormat};
//!
//! let gpu = &gpudata::Gpu::headless()?;
//! let positions = GpuData::from_slice(
//!     gpu,
//!     VertexFormat::Float32x2,
//!     &[[0.0f32, 0.0], [1.0, 0.0], [0.0, 1.0]],
//!     gpudata::data::DEFAULT_USAGE,
//! )?;
//! let table = GpuTable::from_columns(
//!     [
//!         ("positions", GpuColumn::from(GpuVector::from_data("positions", vec![positions])?)),
//!         ("color", GpuConstant::new(VertexFormat::Unorm8x4, &[255u8, 0, 0, 255])?.into()),
//!     ],
//!     RecordBatchOptions::default(),
//! )?;
//! assert_eq!(table.num_rows(), 3);
//! let bindings = table.render_bindings(gpu, Default::default())?;
//! assert_eq!(bindings.location("color"), Some(1));
//! assert_eq!(bindings.vertex_layout().buffers()[1].array_stride, 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bind;
mod column;
mod error;
mod pick;
mod relayout;

pub use crate::ops::piecewise::ChunkPiece;
pub use bind::TableBindings;
pub use bind::render::{
    BatchDraw, IndexBufferRange, RenderOptions, TableRenderBindings, VertexBufferRange,
};
pub use bind::storage::{BatchStorage, ConstantBinding, StorageColumn, TableStorageBindings};
pub use column::append::{AppendableOptions, Growth};
pub use column::batch::{GpuRecordBatch, RecordBatchOptions, SourceInfo};
pub use column::chunk_options::ChunkOptions;
pub use column::chunked::ChunkSpan;
pub use column::chunked_ops::{ChunkOperand, ChunkedPredicate};
pub use column::schema::{GpuSchema, GpuSchemaField, Metadata, RESERVED_INDEX_COLUMN};
pub use column::table::{GpuColumn, GpuColumnRef, GpuTable, TableSortKey};
pub use column::vector::{DataVectorOptions, GpuVector, InterleavedDescriptor};
pub use error::{ChunkMapError, TableError};
pub use pick::{
    NO_ROW, PickError, PickOffsets, PickRect, PickedRow, PickingTarget, PointPicking,
    PointPosition, PointView, RowResolver, SourceRow,
};
pub use relayout::pack::PackOptions;
#[doc(hidden)]
pub use relayout::pack::{__copy_blocks, __copy_blocks_into_fresh, BlockCopySpec, FreshCopySpec};
pub use relayout::segment::{Segment, SegmentSpec, SegmentStride, SegmentedLayout};
pub use relayout::segmented::{SegmentOptions, SegmentedTable, SegmentedTableBuilder};
