//! Arrow columns larger than one buffer: an Arrow array cut into row ranges whose GPU bytes
//! fit one buffer ([`ChunkOptions`]), each range uploaded as its own [`GpuData`] (a zero-copy
//! slice of the array, so every conversion works per chunk: fround, unpacked booleans,
//! dictionaries, lists), the chunks gathered into one [`GpuVector`] that keeps the whole
//! column's [`ArrowReadback`] and reads back as one Arrow array. Record batches whose columns
//! exceed one buffer are cut at the same row ranges for every column
//! ([`record_batches_to_gpu_table`](super::record_batches_to_gpu_table)).

use std::ops::Range;

use arrow_array::{Array, ArrayRef};
use arrow_schema::Field;

use super::ArrowInteropError;
use super::buffers::buffer_from_gpu_vector;
use super::gpu::upload_source;
use super::source::{ArrowColumnSource, ArrowReadback, ColumnOptions, SourceFormat};
use crate::data::{DEFAULT_USAGE, GpuData, ReadbackMetadata};
use crate::device::Gpu;
use crate::format::GpuVectorFormat;
use crate::table::{ChunkOptions, DataVectorOptions, GpuVector, TableError};

fn table_error(source: TableError) -> ArrowInteropError {
    ArrowInteropError::Table { source }
}

/// How far one column's chunk may reach: a row count for fixed-width rows, the offsets for
/// lists and strings (whose rows hold different numbers of values).
pub(super) enum ColumnLimit {
    /// At most this many rows per chunk.
    Rows(u64),
    /// Rows whose values (`offsets[end] - offsets[start]`, `value_bytes` each) fit
    /// `max_bytes`, at most `max_rows` rows.
    Values {
        column: String,
        offsets: Vec<u64>,
        value_bytes: u64,
        max_bytes: u64,
        max_rows: u64,
    },
}

impl ColumnLimit {
    /// The limit of `source`'s column on `gpu` under `options`.
    pub(super) fn of(
        gpu: &Gpu,
        source: &ArrowColumnSource,
        options: &ChunkOptions,
    ) -> Result<ColumnLimit, ArrowInteropError> {
        let column = source.readback().column();
        let list = matches!(
            source.format(),
            SourceFormat::Vector(GpuVectorFormat::VertexList(_) | GpuVectorFormat::ValueList(_))
        );
        match source.readback().value_offsets() {
            Some(offsets) if list => {
                // Checks `rows_per_chunk` and that one value fits a chunk.
                options
                    .rows_per_chunk_for(gpu, column, source.byte_stride())
                    .map_err(table_error)?;
                Ok(ColumnLimit::Values {
                    column: column.to_owned(),
                    offsets: offsets.to_u64(),
                    value_bytes: source.byte_stride(),
                    max_bytes: options.chunk_bytes_for(gpu),
                    max_rows: options.rows_per_chunk.unwrap_or(u64::MAX),
                })
            }
            _ => options
                .rows_per_chunk_for(gpu, column, source.byte_stride())
                .map(ColumnLimit::Rows)
                .map_err(table_error),
        }
    }

    /// The furthest end (exclusive, at most `rows`) of a chunk starting at row `start`.
    fn end_from(&self, start: u64, rows: u64) -> Result<u64, ArrowInteropError> {
        match self {
            ColumnLimit::Rows(per_chunk) => Ok(start.saturating_add(*per_chunk).min(rows)),
            ColumnLimit::Values {
                column,
                offsets,
                value_bytes,
                max_bytes,
                max_rows,
            } => {
                let first = offsets[start as usize];
                let most_values = max_bytes / (*value_bytes).max(1);
                // The last row end whose values still fit (offsets only grow).
                let reach = start.saturating_add(*max_rows).min(rows) as usize;
                let fits = offsets[start as usize + 1..=reach]
                    .partition_point(|&o| o - first <= most_values);
                if fits == 0 && start < rows {
                    let values = offsets[start as usize + 1] - first;
                    return Err(table_error(TableError::RowExceedsChunk {
                        vector: column.clone(),
                        byte_stride: values.saturating_mul(*value_bytes),
                        max_chunk_bytes: *max_bytes,
                    }));
                }
                Ok(start + fits as u64)
            }
        }
    }
}

/// Row ranges covering `rows` rows, each as long as every column's limit allows (one empty
/// range for no rows).
pub(super) fn cut_rows(
    rows: usize,
    limits: &[ColumnLimit],
) -> Result<Vec<Range<usize>>, ArrowInteropError> {
    let rows = rows as u64;
    let mut ranges = Vec::new();
    let mut start = 0u64;
    loop {
        let mut end = rows;
        for limit in limits {
            end = end.min(limit.end_from(start, rows)?);
        }
        // Every limit lets at least one row through (checked by `end_from`).
        let end = end.max(start + u64::from(start < rows));
        ranges.push(start as usize..end as usize);
        if end >= rows {
            return Ok(ranges);
        }
        start = end;
    }
}

/// The readback of a whole column as its uploaded chunks read back (fround columns as their
/// `f32` pairs).
fn column_readback(source: &ArrowColumnSource) -> ReadbackMetadata {
    let readback = source.readback().clone();
    ReadbackMetadata::with_rows(if source.needs_fround() {
        readback.after_fround()
    } else {
        readback
    })
}

/// Uploads one Arrow column of any size as a [`GpuVector`]: one chunk when its GPU bytes fit
/// one buffer (`max_buffer_size`, or `chunks.max_chunk_bytes`), else as many chunks of whole
/// rows as needed, each the upload of a zero-copy slice of `array` (every type of
/// [`array_to_gpu`](super::array_to_gpu) works, conversions included). The vector keeps the
/// whole column's [`ArrowReadback`], so [`array_from_gpu_vector`] reads it back as one array.
///
/// ```
/// use arrow_array::Float32Array;
/// use arrow_schema::{DataType, Field};
/// use gpudata::arrow::{ColumnOptions, array_from_gpu_vector, array_to_gpu_vector};
/// use gpudata::table::ChunkOptions;
///
/// let gpu = gpudata::Gpu::headless()?;
/// let values = Float32Array::from((0..10).map(|i| i as f32).collect::<Vec<_>>());
/// let field = Field::new("weights", DataType::Float32, false);
/// let chunks = ChunkOptions { rows_per_chunk: Some(4), ..ChunkOptions::default() };
/// let vector = array_to_gpu_vector(&gpu, &field, &values, &ColumnOptions::default(), chunks)?;
/// assert_eq!(vector.chunks().len(), 3);
/// let back = array_from_gpu_vector(&gpu, &vector)?;
/// assert_eq!(back.as_ref(), &values as &dyn arrow_array::Array);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`ArrowColumnSource::new`] and [`upload_source`]; [`ArrowInteropError::Table`] with
/// [`TableError::ChunkRows`] or [`TableError::RowExceedsChunk`] (a row, or a list row's values,
/// larger than a chunk may be), or when the chunks do not form a vector. A chunk already
/// uploaded is freed on failure.
pub fn array_to_gpu_vector(
    gpu: &Gpu,
    field: &Field,
    array: &dyn Array,
    options: &ColumnOptions,
    chunks: ChunkOptions,
) -> Result<GpuVector, ArrowInteropError> {
    let whole = ArrowColumnSource::new(field, array, options)?;
    let ranges = cut_rows(array.len(), &[ColumnLimit::of(gpu, &whole, &chunks)?])?;
    let mut data: Vec<GpuData> = Vec::with_capacity(ranges.len());
    for range in ranges {
        let uploaded = if range.len() == array.len() {
            upload_source(gpu, &whole, DEFAULT_USAGE)
        } else {
            let slice = array.slice(range.start, range.len());
            ArrowColumnSource::new(field, slice.as_ref(), options)
                .and_then(|source| upload_source(gpu, &source, DEFAULT_USAGE))
        };
        match uploaded {
            Ok(chunk) => data.push(chunk),
            Err(error) => {
                data.into_iter().for_each(GpuData::destroy);
                return Err(error);
            }
        }
    }
    GpuVector::from_data_with(
        field.name().clone(),
        data,
        DataVectorOptions {
            readback_metadata: Some(column_readback(&whole)),
            ..DataVectorOptions::default()
        },
    )
    .map_err(table_error)
}

/// Reads a [`GpuVector`] uploaded from Arrow back as one Arrow array of its original type: the
/// chunks' bytes read straight into one Arrow buffer ([`buffer_from_gpu_vector`]), then the
/// whole column's offsets, validity and dictionary restored. A vector of one chunk without
/// vector-level metadata uses its chunk's.
///
/// # Errors
/// [`ArrowInteropError::MissingMetadata`] without Arrow readback metadata; as
/// [`buffer_from_gpu_vector`] and [`ArrowReadback::to_array`].
pub fn array_from_gpu_vector(gpu: &Gpu, vector: &GpuVector) -> Result<ArrayRef, ArrowInteropError> {
    let readback = vector
        .readback_metadata_as::<ArrowReadback>()
        .or_else(|| match vector.chunks() {
            [only] => only.readback_metadata_as::<ArrowReadback>(),
            _ => None,
        })
        .ok_or(ArrowInteropError::MissingMetadata)?;
    let bytes = buffer_from_gpu_vector(gpu, vector)?;
    readback.to_array(bytes)
}
