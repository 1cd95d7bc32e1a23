//! Record batches as [`SegmentedTable`]s: every chosen column a contiguous, aligned segment of
//! one buffer, written straight from the Arrow buffers, each segment carrying its column's
//! [`ArrowReadback`] so the batch comes back with its original types. Float64 columns that ask
//! for fround are split on the GPU into their segment.

use arrow_array::RecordBatch;

use super::ArrowInteropError;
use super::batch::{
    BatchOptions, BatchSource, SkippedColumn, record_batch_from_gpu_columns, row_count,
};
use super::source::{ArrowColumnSource, ArrowReadback, SourceFormat};
use super::table::metadata_map;
use crate::data::{GpuData, GpuDataView, ReadbackMetadata};
use crate::device::Gpu;
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::ops::{self, OpsConfig, fround_output};
use crate::table::{SegmentOptions, SegmentSpec, SegmentedTable, SegmentedTableBuilder};

/// The segment a column source becomes: its vector format, rows and values, with its Arrow
/// type as the segment's data type and its [`ArrowReadback`] as readback metadata; and, for a
/// column that asked for fround, the format of its float64 words (`uint32x2` / `uint32x4`),
/// which the segment holds until [`fround_segments`] splits them into the segment's
/// `float32x2` / `float32x4` rows `[hi.., lo..]` (as [`upload_source`](super::upload_source)
/// gives, with the same readback metadata).
fn segment_spec(
    column: &ArrowColumnSource,
) -> Result<(SegmentSpec, Option<VertexFormat>), ArrowInteropError> {
    let readback = column.readback();
    let (format, metadata, fround) = match column.format() {
        SourceFormat::Vector(_) if column.unpacks_bits() => {
            return Err(ArrowInteropError::NotSegmentable {
                column: readback.column().to_owned(),
                data_type: arrow_schema::DataType::Boolean,
                reason: "booleans are unpacked on the gpu into a buffer of their own; upload the column with record_batch_to_gpu",
            });
        }
        SourceFormat::Vector(format) if column.needs_fround() => {
            // resolve_format gives fround only `uint32x2` / `uint32x4`, which fround_output maps.
            let fixed = match format {
                GpuVectorFormat::Fixed(words) => Some(*words),
                _ => None,
            };
            let (words, split) = fixed
                .and_then(|words| Some((words, fround_output("fround", words).ok()?)))
                .ok_or_else(|| ArrowInteropError::UnsupportedType {
                    column: readback.column().to_owned(),
                    data_type: readback.data_type().clone(),
                })?;
            let metadata = ReadbackMetadata::with_rows(readback.clone().after_fround());
            (GpuVectorFormat::Fixed(split), metadata, Some(words))
        }
        SourceFormat::Vector(format) => {
            let metadata = ReadbackMetadata::with_rows(readback.clone());
            (*format, metadata, None)
        }
        SourceFormat::Interleaved(_) => {
            return Err(ArrowInteropError::NotSegmentable {
                column: readback.column().to_owned(),
                data_type: readback.data_type().clone(),
                reason: "interleaved rows have no single vector format; upload the column with record_batch_to_gpu",
            });
        }
    };
    let data_type = ReadbackMetadata::new(readback.data_type().clone());
    let spec = SegmentSpec {
        value_length: Some(column.value_length()),
        data_type: Some(data_type),
        readback_metadata: Some(metadata),
        ..SegmentSpec::new(readback.column(), format, column.length())
    };
    Ok((spec, fround))
}

/// Splits the float64 words staged in the named segments of `table` with fround, in one
/// submission: each kernel reads its segment's range of the table's buffer into a buffer of
/// its own, which is then copied back over the segment.
///
/// The split keeps the byte size (a float64 becomes two `f32`), so the words fill the segment
/// exactly, and `float32x2` / `float32x4` rows are multiples of 4 bytes, so the segment's
/// stride is the rows' length under either [`SegmentStride`](crate::table::SegmentStride) and
/// one copy moves the whole segment.
fn fround_segments(
    gpu: &Gpu,
    table: &SegmentedTable,
    splits: &[(String, VertexFormat)],
) -> Result<(), ArrowInteropError> {
    let config = OpsConfig::default();
    let mut plans = Vec::with_capacity(splits.len());
    for (column, words) in splits {
        let Some(segment) = table.segment(column) else {
            continue;
        };
        let input = GpuDataView::new(
            table.buffer(),
            *words,
            segment.length(),
            segment.byte_offset(),
            Some(segment.byte_stride()),
        )
        .map_err(|source| ArrowInteropError::data(column, source))?;
        let plan = ops::plan_fround(gpu, &config, input)
            .map_err(|source| ArrowInteropError::op(column, source))?;
        debug_assert_eq!(plan.output().byte_stride(), segment.byte_stride());
        plans.push((segment, plan));
    }
    // Recorded and submitted in an error scope: a refusal (a segment's buffer destroyed
    // meanwhile) is an error of the split columns, not wgpu's panic.
    crate::device::error_scope(gpu, "submit the fround kernels", || {
        let mut encoder = gpu
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("gpudata fround segments"),
            });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("gpudata fround segments"),
                timestamp_writes: None,
            });
            for (_, plan) in &plans {
                plan.encode(&mut pass);
            }
        }
        for (segment, plan) in &plans {
            let bytes = plan.output().byte_length();
            if bytes > 0 {
                encoder.copy_buffer_to_buffer(
                    plan.output().buffer(),
                    0,
                    table.buffer(),
                    segment.byte_offset(),
                    Some(bytes),
                );
            }
        }
        gpu.queue().submit([encoder.finish()]);
    })
    .map_err(|source| ArrowInteropError::Gpu {
        column: splits
            .iter()
            .map(|(column, _)| column.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        source,
    })
}

/// Uploads the chosen columns of `batch` (per [`BatchOptions`]) as a [`SegmentedTable`]: one
/// buffer, each column a contiguous segment starting at a multiple of the device's
/// `min_storage_buffer_offset_alignment` (so each binds as its own storage range, see
/// [`SegmentedTable::segment_binding`]), written straight from the Arrow buffers with no host
/// copy. Values are packed; [`record_batch_to_segmented_with`] chooses another stride.
///
/// A Float64 (or `FixedSizeList<Float64, 1 | 2>`) column that asks for
/// [`FormatChoice::Fround`](super::FormatChoice::Fround) is a segment of fround's output, as
/// [`record_batch_to_gpu`](super::record_batch_to_gpu) gives it: `float32x2` / `float32x4` rows
/// `[hi.., lo..]`. Its float64 words are written into the segment, split on the GPU (the
/// [`ops::fround`](crate::ops::fround()) kernel reads the segment's range) and the split
/// copied back over them; the buffer gets `STORAGE` usage for that read. Readback gives the
/// column back as Float64 `hi + lo`: the original values wherever they fit in two `f32` (a
/// 48-bit significand in `f32`'s exponent range), else within about 2⁻⁴⁸ relative.
///
/// Each segment keeps its column's Arrow type as its [`data_type`](crate::table::Segment::data_type)
/// and its [`ArrowReadback`] as the segment data's readback metadata, so
/// [`record_batch_from_segmented`] restores the batch with its original types. The table has
/// the batch's row count and schema metadata.
///
/// Returns the columns left out under [`BatchOptions::skip_unsupported`] too (including the
/// ones a segment cannot hold: interleaved rows).
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Float32Array, Float64Array, RecordBatch, StringArray};
/// use gpudata::arrow::{
///     BatchOptions, ColumnOptions, FormatChoice, record_batch_from_segmented,
///     record_batch_to_segmented,
/// };
///
/// let gpu = gpudata::Gpu::headless()?;
/// let batch = RecordBatch::try_from_iter([
///     ("weights", Arc::new(Float32Array::from(vec![0.5, 1.5])) as _),
///     ("labels", Arc::new(StringArray::from(vec![Some("a"), None])) as _),
///     ("x", Arc::new(Float64Array::from(vec![-122.25, 16_777_217.0])) as _),
/// ])?;
/// let fround = ColumnOptions { format: FormatChoice::Fround, ..ColumnOptions::default() };
/// let options = BatchOptions::new().column("x", fround);
/// let (table, skipped) = record_batch_to_segmented(&gpu, &batch, &options)?;
/// assert!(skipped.is_empty());
/// let labels = table.segment("labels").unwrap();
/// assert_eq!(labels.byte_offset() % table.layout().alignment(), 0);
/// assert!(table.segment_binding("weights").is_some()); // a storage range of its own
/// let x = table.segment("x").unwrap(); // [hi, lo] f32 pairs: 16777217 is [16777216, 1]
/// assert_eq!(x.format().to_string(), "float32x2");
/// // hi + lo restores these doubles exactly (each fits in two f32).
/// assert_eq!(record_batch_from_segmented(&gpu, &table)?, batch);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`BatchSource::new`]; [`ArrowInteropError::NotSegmentable`] for a column of interleaved
/// rows (unless skipped); [`ArrowInteropError::Table`] when the segmented table cannot be built
/// (a buffer beyond `max_buffer_size`, duplicate column names); [`ArrowInteropError::Op`] when
/// fround cannot run on a segment (beyond the device's binding or dispatch limits).
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
    let mut splits = Vec::new();
    for column in &source.columns {
        match segment_spec(column) {
            Ok((spec, fround)) => {
                if let Some(words) = fround {
                    splits.push((spec.name.clone(), words));
                }
                // A fround segment holds the float64 words until they are split in place.
                columns.push((spec, column.bytes()));
            }
            Err(reason) if options.skip_unsupported => skipped.push(SkippedColumn {
                column: column.readback().column().to_owned(),
                reason,
            }),
            Err(e) => return Err(e),
        }
    }
    let usage = if splits.is_empty() {
        options.buffer_usage()
    } else {
        // fround reads the staged words as a storage binding.
        options.buffer_usage() | wgpu::BufferUsages::STORAGE
    };
    let builder = columns.into_iter().fold(
        SegmentedTableBuilder::new()
            .stride(segment_options.stride)
            .usage(usage)
            .num_rows(source.num_rows as u64)
            .metadata(metadata_map(source.schema.metadata())),
        |builder, (spec, bytes)| builder.column_spec(spec, bytes),
    );
    let table = builder
        .build(gpu)
        .map_err(|source| ArrowInteropError::Table { source })?;
    if !splits.is_empty() {
        fround_segments(gpu, &table, &splits)?;
    }
    Ok((table, skipped))
}

/// Reads a [`SegmentedTable`] uploaded by [`record_batch_to_segmented`] back as an Arrow
/// `RecordBatch`: one column per segment, in segment order, with the original fields (names,
/// types, nullability, field metadata), offsets, validity and dictionaries restored, and the
/// table's schema metadata. Constant columns are not part of it. Fround segments come back as
/// Float64 `hi + lo`, as [`record_batch_from_gpu`](super::record_batch_from_gpu) reads them.
///
/// # Errors
/// [`ArrowInteropError::MissingMetadata`] for a segment not uploaded from Arrow; as
/// [`record_batch_from_gpu_columns`].
pub fn record_batch_from_segmented(
    gpu: &Gpu,
    table: &SegmentedTable,
) -> Result<RecordBatch, ArrowInteropError> {
    let rows = row_count(table.num_rows())?;
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
