//! Arrow record batches and tables to [`GpuRecordBatch`] / [`GpuTable`] and back (luma.gl's
//! `makeGPURecordBatchFromArrowRecordBatch`, `makeGPUTableFromArrowTable` and the readbacks).

use std::collections::BTreeMap;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::Schema;

use super::ArrowInteropError;
use super::batch::{
    BatchOptions, BatchSource, SkippedColumn, check_schemas, describe_schema,
    record_batch_from_gpu_columns, row_count,
};
use super::chunked::{ColumnLimit, cut_rows};
use super::format::{FormatChoice, resolve_format};
use super::gpu::{array_from_gpu, upload_sources};
use super::source::{ArrowColumnSource, SourceFormat};
use crate::data::{GpuData, GpuDataFormat};
use crate::device::Gpu;
use crate::format::GpuVectorFormat;
use crate::layout::BufferLayout;
use crate::table::TableError;
use crate::table::{
    GpuRecordBatch, GpuSchema, GpuSchemaField, GpuTable, GpuVector, RecordBatchOptions, SourceInfo,
};

fn table_error(source: TableError) -> ArrowInteropError {
    ArrowInteropError::Table { source }
}

pub(super) fn metadata_map(metadata: &arrow_schema::Metadata) -> BTreeMap<String, String> {
    metadata
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The buffer layout a column contributes: fixed formats their single attribute, interleaved
/// rows their layout (named after the column); list columns none (they are storage data).
fn column_layout(source: &ArrowColumnSource) -> Option<BufferLayout> {
    let name = source.readback().column();
    match source.format() {
        SourceFormat::Vector(GpuVectorFormat::Fixed(format)) => {
            Some(BufferLayout::single(name, *format, source.byte_stride()))
        }
        SourceFormat::Vector(_) => None,
        SourceFormat::Interleaved(layout) => Some(BufferLayout {
            name: name.to_owned(),
            ..layout.clone()
        }),
    }
}

fn schema_field(source: &ArrowColumnSource, data: &GpuData) -> GpuSchemaField {
    let field = source.readback().field();
    GpuSchemaField {
        name: field.name().clone(),
        format: data.format().cloned(),
        nullable: field.is_nullable(),
        metadata: metadata_map(field.metadata()),
    }
}

/// Uploads prepared columns as a [`GpuRecordBatch`].
fn upload_batch(
    gpu: &Gpu,
    source: &BatchSource,
    options: &BatchOptions,
    source_info: Option<SourceInfo>,
) -> Result<GpuRecordBatch, ArrowInteropError> {
    let usage = options.buffer_usage();
    let mut columns = Vec::with_capacity(source.columns.len());
    let mut layouts = Vec::new();
    let mut fields = Vec::new();
    let mut null_count = 0_u64;
    let uploaded = upload_sources(gpu, &source.columns, usage)?;
    for (column, data) in source.columns.iter().zip(uploaded) {
        layouts.extend(column_layout(column));
        fields.push(schema_field(column, &data));
        null_count += column
            .readback()
            .nulls()
            .map_or(0, |n| n.null_count() as u64);
        columns.push((column.readback().column().to_owned(), data));
    }
    GpuRecordBatch::with_options(
        columns,
        RecordBatchOptions {
            buffer_layouts: Some(layouts),
            fields: Some(fields),
            num_rows: Some(source.num_rows as u64),
            metadata: metadata_map(source.schema.metadata()),
            source_info,
            null_count,
        },
    )
    .map_err(table_error)
}

/// Uploads an Arrow `RecordBatch` as a [`GpuRecordBatch`]: one packed buffer per chosen column
/// (formats per [`BatchOptions`]), buffer layouts for the fixed-format and interleaved columns
/// (list and string columns are storage data without a vertex layout), fields with the Arrow
/// nullability and metadata, the schema metadata, and the batch's null count.
///
/// Returns the columns left out under [`BatchOptions::skip_unsupported`] too.
///
/// # Errors
/// As [`BatchSource::new`] and [`upload_source`](super::upload_source);
/// [`ArrowInteropError::Table`] when the table layer refuses the batch.
pub fn record_batch_to_gpu(
    gpu: &Gpu,
    batch: &RecordBatch,
    options: &BatchOptions,
) -> Result<(GpuRecordBatch, Vec<SkippedColumn>), ArrowInteropError> {
    let source = BatchSource::new(batch, options)?;
    let gpu_batch = upload_batch(gpu, &source, options, None)?;
    Ok((gpu_batch, source.skipped))
}

/// The GPU schema of an Arrow schema (for tables without batches): every field whose default
/// format resolves.
fn gpu_schema(schema: &Schema) -> GpuSchema {
    let fields = schema
        .fields()
        .iter()
        .filter_map(|field| {
            let format = resolve_format(
                field.name(),
                field.data_type(),
                FormatChoice::Default,
                false,
            )
            .ok()?;
            Some(GpuSchemaField {
                name: field.name().clone(),
                format: Some(GpuDataFormat::Vector(format.format)),
                nullable: field.is_nullable(),
                metadata: metadata_map(field.metadata()),
            })
        })
        .collect();
    GpuSchema {
        fields,
        metadata: metadata_map(schema.metadata()),
    }
}

/// Uploads Arrow record batches as a [`GpuTable`] with one GPU batch per Arrow batch (batch
/// boundaries preserved), each with its `SourceInfo` (source batch index, first row, rows).
/// An Arrow batch with a column too large for one buffer (`max_buffer_size`, or
/// [`BatchOptions::chunks`]) becomes several consecutive GPU batches of whole rows, cut at the
/// same rows for every column (their `SourceInfo`s name the source batch and the rows each
/// holds); reading the table back gives one record batch per GPU batch.
/// With [`BatchOptions::skip_unsupported`], a column that any batch cannot carry is left out of
/// all of them, so the batches share one schema. No batches give an empty table with the
/// schema's carried fields.
///
/// # Errors
/// [`ArrowInteropError::SchemaMismatch`] when the batches' schemas differ; as
/// [`record_batch_to_gpu`]; [`ArrowInteropError::Table`] (with
/// [`TableError::RowExceedsChunk`] for one row larger than a buffer may be).
pub fn record_batches_to_gpu_table(
    gpu: &Gpu,
    schema: &Schema,
    batches: &[RecordBatch],
    options: &BatchOptions,
) -> Result<(GpuTable, Vec<SkippedColumn>), ArrowInteropError> {
    check_schemas(batches)?;
    if let Some(first) = batches.first()
        && first.schema().fields() != schema.fields()
    {
        return Err(ArrowInteropError::SchemaMismatch {
            batch: 0,
            expected: describe_schema(schema),
            found: describe_schema(&first.schema()),
        });
    }
    let mut sources = batches
        .iter()
        .map(|b| BatchSource::new(b, options))
        .collect::<Result<Vec<_>, _>>()?;
    let mut skipped: Vec<SkippedColumn> = Vec::new();
    for source in &sources {
        for s in &source.skipped {
            if !skipped.iter().any(|k| k.column == s.column) {
                skipped.push(s.clone());
            }
        }
    }
    for source in &mut sources {
        source
            .columns
            .retain(|c| !skipped.iter().any(|s| s.column == c.readback().column()));
    }
    if sources.is_empty() {
        let mut empty_schema = gpu_schema(schema);
        empty_schema
            .fields
            .retain(|f| !skipped.iter().any(|s| s.column == f.name));
        return Ok((GpuTable::empty(empty_schema, None), skipped));
    }
    let mut gpu_batches = Vec::with_capacity(sources.len());
    let mut first_row = 0_u64;
    for (index, source) in sources.iter().enumerate() {
        let limits = source
            .columns
            .iter()
            .map(|c| ColumnLimit::of(gpu, c, &options.chunks))
            .collect::<Result<Vec<_>, _>>()?;
        let ranges = cut_rows(source.num_rows, &limits)?;
        for range in ranges {
            let info = SourceInfo {
                source_batch_index: index as u64,
                source_row_index_offset: first_row + range.start as u64,
                source_row_count: range.len() as u64,
            };
            if range.len() == source.num_rows {
                gpu_batches.push(upload_batch(gpu, source, options, Some(info))?);
                continue;
            }
            // Too large for one buffer: consecutive GPU batches of whole rows, each from a
            // zero-copy slice of the Arrow batch.
            let slice = batches[index].slice(range.start, range.len());
            let mut piece = BatchSource::new(&slice, options)?;
            piece
                .columns
                .retain(|c| !skipped.iter().any(|s| s.column == c.readback().column()));
            gpu_batches.push(upload_batch(gpu, &piece, options, Some(info))?);
        }
        first_row += source.num_rows as u64;
    }
    let table = GpuTable::from_batches(
        gpu_batches,
        Vec::<(String, crate::data::GpuConstant)>::new(),
    )
    .map_err(table_error)?;
    Ok((table, skipped))
}

/// Reads a [`GpuRecordBatch`] uploaded from Arrow back as an Arrow `RecordBatch` with the
/// original fields and the batch's schema metadata.
///
/// # Errors
/// As [`record_batch_from_gpu_columns`].
pub fn record_batch_from_gpu(
    gpu: &Gpu,
    batch: &GpuRecordBatch,
) -> Result<RecordBatch, ArrowInteropError> {
    let metadata: arrow_schema::Metadata = batch.schema().metadata.clone().into();
    record_batch_from_gpu_columns(gpu, batch.columns(), row_count(batch.num_rows())?, metadata)
}

/// Reads every batch of a [`GpuTable`] uploaded from Arrow back as Arrow record batches, one
/// per GPU batch (batch boundaries preserved).
///
/// # Errors
/// As [`record_batch_from_gpu`].
pub fn record_batches_from_gpu_table(
    gpu: &Gpu,
    table: &GpuTable,
) -> Result<Vec<RecordBatch>, ArrowInteropError> {
    table
        .batches()
        .iter()
        .map(|b| record_batch_from_gpu(gpu, b))
        .collect()
}

/// Reads a [`GpuVector`] uploaded from Arrow back as Arrow arrays, one per chunk (luma.gl's
/// `readArrowGPUVectorAsync`).
///
/// # Errors
/// As [`array_from_gpu`].
pub fn arrays_from_gpu_vector(
    gpu: &Gpu,
    vector: &GpuVector,
) -> Result<Vec<ArrayRef>, ArrowInteropError> {
    vector
        .chunks()
        .iter()
        .map(|data| array_from_gpu(gpu, data))
        .collect()
}
