//! Apache Arrow interop (feature `arrow`, arrow-rs 60): Arrow columns to GPU vector formats and
//! upload-ready bytes, and bytes read back to Arrow arrays of the original types.
//!
//! Corresponds to luma.gl's `@luma.gl/arrow` GPU adapter.
//!
//! # Types
//!
//! | Arrow type | default GPU format | uploaded bytes | readback metadata |
//! |---|---|---|---|
//! | `Int8/16/32`, `UInt8/16/32`, `Float16`, `Float32` | `sint8` … `float32` | the values slice | validity |
//! | `FixedSizeList<T, 1..=4>` | `T` × n (`uint8x4`, `float32x3`, `uint16x3-webgl`) | the child values slice | validity |
//! | `List<T>`, `List<FixedSizeList<T, n>>` (and `Large`) | `vertex-list<F>` | the elements between the first and last offset | rebased offsets |
//! | `Utf8`, `Binary` (and `Large`) | `value-list<uint8>` | the value bytes between the first and last offset | rebased offsets, validity |
//! | `Dictionary<K: Int8..UInt32, V>` | the key's format (`sint32`) | the keys slice | the dictionary values, validity |
//! | `FixedSizeBinary(w)` tagged [`INTERLEAVED_ROWS_EXTENSION`] | interleaved rows of its [`BufferLayout`](crate::BufferLayout) | the rows slice | validity |
//! | `Boolean` | none by default; `uint8` / `uint32` asked explicitly | the bitmap (a bit per row), unpacked on the GPU into 0/1 values | validity |
//! | `Float64` / `FixedSizeList<Float64, 1..=2>` | none by default; [`FormatChoice::Fround`] or an explicit `uint32x2` / `uint32x4` | the values slice as 32-bit words | validity |
//!
//! An explicit format must store the same bytes ([`check_format`]): `unorm8x4` for
//! `FixedSizeList<UInt8, 4>`, `unorm10-10-10-2` for `UInt32`, `uint32x2` for `Int64`. Shader
//! input types choose formats as luma.gl's `getArrowVertexFormat` does
//! ([`vertex_format_for_shader`]). Nulls follow the [null policy](nulls).
//!
//! # Host round trip
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Array, ListArray, types::Int16Type};
//! use gpudata::arrow::{ArrowColumnSource, ColumnOptions};
//!
//! let lists = ListArray::from_iter_primitive::<Int16Type, _, _>([
//!     Some(vec![Some(10), Some(20), Some(30)]),
//!     Some(vec![Some(40), Some(50)]),
//! ]);
//! let source = ArrowColumnSource::from_array("paths", &lists, &ColumnOptions::default())?;
//! assert_eq!(source.vector_format().map(|f| f.to_string()).as_deref(), Some("vertex-list<sint16>"));
//! assert_eq!((source.length(), source.value_length(), source.bytes().len()), (2, 5, 10));
//! // ... upload source.bytes(), read them back ...
//! let back = source.readback().to_array(source.bytes().to_vec())?;
//! assert_eq!(back.as_ref(), &lists as &dyn Array);
//! # Ok::<(), gpudata::arrow::ArrowInteropError>(())
//! ```
//!
//! # Columns larger than one buffer, readback into Arrow buffers
//!
//! [`array_to_gpu_vector`] uploads a column of any size as a chunked
//! [`GpuVector`](crate::table::GpuVector) (chunks of whole rows, each within
//! `max_buffer_size`), which [`array_from_gpu_vector`] reads back as one array;
//! [`record_batches_to_gpu_table`] cuts a batch too large for one buffer into consecutive GPU
//! batches. Readbacks land straight in the Arrow buffers ([`buffer_from_gpu`],
//! [`buffer_from_gpu_into`], [`buffer_from_gpu_vector`]), which the rebuilt arrays hold
//! without a copy.
//!
//! # Record batches and tables
//!
//! [`record_batch_to_gpu`] uploads a batch as a [`GpuRecordBatch`](crate::table::GpuRecordBatch)
//! of one buffer per column; [`record_batches_to_gpu_table`] a table of such batches.
//! [`record_batch_to_segmented`] uploads it as a [`SegmentedTable`](crate::table::SegmentedTable)
//! instead: one buffer, each column a contiguous segment at an offset aligned for storage
//! bindings, written straight from the Arrow buffers (fround columns split on the GPU into their
//! segments). Each way has its readback restoring the
//! original types ([`record_batch_from_gpu`], [`record_batch_from_segmented`]).
//!
//! # Real files and streams
//!
//! [`convert`] carries the types real files have (timestamps, Int64, booleans, strings, decimals,
//! validity masks) under a per-column or `auto` policy, undone on readback; [`stream`] grows a
//! GPU table from any `RecordBatchReader` or async `Stream` with bounded memory, progress and
//! cancellation, and writes tables back out; `parquet` (feature `parquet`) reads Parquet row
//! groups in parallel into it.
//!
//! # IPC files and streams
//!
//! [`read_ipc_file`] and [`read_ipc_stream`] read an Arrow IPC file or stream into validated
//! record batches for the functions above; a corrupted file is an [`ArrowInteropError::Ipc`], or
//! an [`ArrowInteropError::IpcPanic`] where arrow-ipc 60 itself panics on it (caught there).

mod batch;
mod buffers;
mod chunked;
pub mod convert;
mod error;
#[cfg(feature = "flight")]
pub mod flight;
mod format;
mod gpu;
mod ipc;
mod metadata;
pub mod nulls;
#[cfg(feature = "parquet")]
pub mod parquet;
mod readback;
mod segmented;
mod source;
pub mod stream;
mod table;

pub use batch::{
    BatchOptions, BatchSource, GpuColumns, SkippedColumn, check_schemas,
    record_batch_from_gpu_columns, record_batch_to_gpu_columns,
};
pub use buffers::{buffer_from_gpu, buffer_from_gpu_into, buffer_from_gpu_vector};
pub use chunked::{array_from_gpu_vector, array_to_gpu_vector};
pub use error::{ArrowInteropError, IpcPart};
pub use format::{
    ArrowScalar, ArrowShape, BytesType, FormatChoice, ResolvedFormat, check_format, default_format,
    resolve_format, vertex_format_for_shader,
};
pub use gpu::{array_from_gpu, array_to_gpu, upload_source};
pub use ipc::{IpcBatches, read_ipc_file, read_ipc_stream};
pub use metadata::{INTERLEAVED_ROWS_EXTENSION, interleaved_field, interleaved_layout};
pub use nulls::NullPolicy;
pub use readback::compact_rows;
pub use segmented::{
    record_batch_from_segmented, record_batch_to_segmented, record_batch_to_segmented_with,
};
pub use source::{ArrowColumnSource, ArrowReadback, ColumnOptions, SourceFormat, ValueOffsets};
pub use table::{
    arrays_from_gpu_vector, record_batch_from_gpu, record_batch_to_gpu,
    record_batches_from_gpu_table, record_batches_to_gpu_table,
};
