//! Record batches as [`SegmentedTable`]s: every chosen column a contiguous, aligned segment of
//! one buffer, written straight from the Arrow buffers, each segment carrying its column's
//! [`ArrowReadback`] so the batch comes back with its original types.

use std::sync::Arc;

use arrow_array::RecordBatch;

use super::ArrowInteropError;
use super::batch::{BatchOptions, BatchSource, SkippedColumn, record_batch_from_gpu_columns};
use super::source::{ArrowColumnSource, ArrowReadback, SourceFormat};
use super::table::metadata_map;
use crate::data::{GpuData, ReadbackMetadata};
use crate::gpu::Gpu;
use crate::table::{SegmentOptions, SegmentSpec, SegmentedTable, SegmentedTableBuilder};

/// The segment a column source becomes: its vector format, rows and values, with its Arrow
/// type as the segment's data type and its [`ArrowReadback`] as readback metadata.
fn segment_spec(column: &ArrowColumnSource) -> Result<SegmentSpec, ArrowInteropError> {
    let readback = column.readback();
    let refuse = |reason| ArrowInteropError::NotSegmentable {
        column: readback.column().to_owned(),
        data_type: readback.data_type().clone(),
        reason,
    };
    if column.needs_fround() {
        return Err(refuse(
            "fround splits float64 on the gpu into a buffer of its own; upload the column with record_batch_to_gpu, or choose an explicit uint32x2 / uint32x4 format",
        ));
    }
    let format = match column.format() {
        SourceFormat::Vector(format) => *format,
        SourceFormat::Interleaved(_) => {
            return Err(refuse(
                "interleaved rows have no single vector format; upload the column with record_batch_to_gpu",
            ));
        }
    };
    let data_type: ReadbackMetadata = Arc::new(readback.data_type().clone());
    let metadata: ReadbackMetadata = Arc::new(readback.clone());
    Ok(SegmentSpec {
        value_length: Some(column.value_length()),
        data_type: Some(data_type),
        readback_metadata: Some(metadata),
        ..SegmentSpec::new(readback.column(), format, column.length())
    })
}

/// Uploads the chosen columns of `batch` (per [`BatchOptions`]) as a [`SegmentedTable`]: one
/// buffer, each column a contiguous segment starting at a multiple of the device's
/// `min_storage_buffer_offset_alignment` (so each binds as its own storage range, see
/// [`SegmentedTable::segment_binding`]), written straight from the Arrow buffers with no host
/// copy. Values are packed; [`record_batch_to_segmented_with`] chooses another stride.
///
/// Each segment keeps its column's Arrow type as its [`data_type`](crate::table::Segment::data_type)
/// and its [`ArrowReadback`] as the segment data's readback metadata, so
/// [`record_batch_from_segmented`] restores the batch with its original types. The table has
/// the batch's row count and schema metadata.
///
/// Returns the columns left out under [`BatchOptions::skip_unsupported`] too (including the
/// ones a segment cannot hold).
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Float32Array, RecordBatch, StringArray};
/// use gpudata::arrow::{BatchOptions, record_batch_from_segmented, record_batch_to_segmented};
///
/// let gpu = gpudata::Gpu::headless()?;
/// let batch = RecordBatch::try_from_iter([
///     ("weights", Arc::new(Float32Array::from(vec![0.5, 1.5])) as _),
///     ("labels", Arc::new(StringArray::from(vec![Some("a"), None])) as _),
/// ])?;
/// let (table, skipped) = record_batch_to_segmented(&gpu, &batch, &BatchOptions::new())?;
/// assert!(skipped.is_empty());
/// let labels = table.segment("labels").unwrap();
/// assert_eq!(labels.byte_offset() % table.layout().alignment(), 0);
/// assert!(table.segment_binding("weights").is_some()); // a storage range of its own
/// assert_eq!(record_batch_from_segmented(&gpu, &table)?, batch);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`BatchSource::new`]; [`ArrowInteropError::NotSegmentable`] for a column that needs
/// fround or holds interleaved rows (unless skipped); [`ArrowInteropError::Table`] when the
/// segmented table cannot be built (a buffer beyond `max_buffer_size`, duplicate column names).
pub fn record_batch_to_segmented(
    gpu: &Gpu,
    batch: &RecordBatch,
    options: &BatchOptions,
) -> Result<(SegmentedTable, Vec<SkippedColumn>), ArrowInteropError> {
    record_batch_to_segmented_with(gpu, batch, options, SegmentOptions::default())
}

/// [`record_batch_to_segmented`] with the segments' stride from `segment_options`
/// ([`SegmentStride::Vertex`](crate::table::SegmentStride::Vertex) spreads values to multiples
/// of 4 bytes so every segment also binds as a vertex buffer).
///
/// # Errors
/// As [`record_batch_to_segmented`].
pub fn record_batch_to_segmented_with(
    gpu: &Gpu,
    batch: &RecordBatch,
    options: &BatchOptions,
    segment_options: SegmentOptions,
) -> Result<(SegmentedTable, Vec<SkippedColumn>), ArrowInteropError> {
    let source = BatchSource::new(batch, options)?;
    let mut skipped = source.skipped;
    let mut columns = Vec::with_capacity(source.columns.len());
    for column in &source.columns {
        match segment_spec(column) {
            Ok(spec) => columns.push((spec, column.bytes())),
            Err(reason) if options.skip_unsupported => skipped.push(SkippedColumn {
                column: column.readback().column().to_owned(),
                reason,
            }),
            Err(e) => return Err(e),
        }
    }
    let builder = columns.into_iter().fold(
        SegmentedTableBuilder::new()
            .stride(segment_options.stride)
            .usage(options.buffer_usage())
            .num_rows(source.num_rows as u64)
            .metadata(metadata_map(source.schema.metadata())),
        |builder, (spec, bytes)| builder.column_spec(spec, bytes),
    );
    let table = builder
        .build(gpu)
        .map_err(|source| ArrowInteropError::Table { source })?;
    Ok((table, skipped))
}

/// Reads a [`SegmentedTable`] uploaded by [`record_batch_to_segmented`] back as an Arrow
/// `RecordBatch`: one column per segment, in segment order, with the original fields (names,
/// types, nullability, field metadata), offsets, validity and dictionaries restored, and the
/// table's schema metadata. Constant columns are not part of it.
///
/// # Errors
/// [`ArrowInteropError::MissingMetadata`] for a segment not uploaded from Arrow; as
/// [`record_batch_from_gpu_columns`].
pub fn record_batch_from_segmented(
    gpu: &Gpu,
    table: &SegmentedTable,
) -> Result<RecordBatch, ArrowInteropError> {
    let rows = usize::try_from(table.num_rows()).map_err(|_| ArrowInteropError::Overflow {
        column: "(record batch)".to_owned(),
        what: "the row count",
    })?;
    let columns = table
        .layout()
        .segments()
        .iter()
        .map(|segment| {
            table
                .segment_data(segment.name())
                .filter(|data| data.readback_metadata_as::<ArrowReadback>().is_some())
                .map(|data| (segment.name(), data))
                .ok_or(ArrowInteropError::MissingMetadata)
        })
        .collect::<Result<Vec<(&str, &GpuData)>, _>>()?;
    let metadata: arrow_schema::Metadata = table.table().schema().metadata.clone().into();
    record_batch_from_gpu_columns(gpu, columns, rows, metadata)
}
