//! [`GpuTable::filter`] and [`GpuTable::filter_primitives`]: the rows a mask keeps, every column
//! of every batch compacted on the GPU by `ops` (the mask cut per batch by
//! [`GpuMask::slice`], as the piecewise driver cuts it per piece; each batch's columns by
//! `ops::compact_in_layout`, which keeps interleaved rows interleaved), the schema, layouts
//! and constants kept; an `indices` column keeps the primitives whose every vertex is kept,
//! renumbered to the compacted rows.

use crate::data::{BufferHandle, GpuData, GpuDataDescriptor, GpuDataFormat};
use crate::device::Gpu;
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::ops::{self, GpuMask, IndexRows};
use crate::table::TableError;
use crate::table::column::batch::{GpuRecordBatch, RecordBatchOptions};
use crate::table::column::schema::RESERVED_INDEX_COLUMN;
use crate::table::column::vector::format_text;

use super::GpuTable;
use super::filter_nulls::Validity;

/// The batch's columns but `indices`; list columns refused (their rows have no fixed place to
/// compact).
fn row_columns(batch: &GpuRecordBatch) -> Result<Vec<(&str, &GpuData)>, TableError> {
    let mut columns = Vec::new();
    for (name, data) in batch.columns() {
        if name == RESERVED_INDEX_COLUMN {
            continue;
        }
        if let Some(GpuDataFormat::Vector(
            GpuVectorFormat::VertexList(_) | GpuVectorFormat::ValueList(_),
        )) = data.format()
        {
            return Err(TableError::FilterList {
                column: name.to_owned(),
                format: format_text(data.format()),
            });
        }
        columns.push((name, data));
    }
    Ok(columns)
}

/// Indices per primitive of `topology`: 1, 2 or 3; strips refused (their primitives share
/// vertices with their neighbours, so dropping one renumbers the rest).
fn primitive_size(topology: wgpu::PrimitiveTopology) -> Result<u64, TableError> {
    match topology {
        wgpu::PrimitiveTopology::PointList => Ok(1),
        wgpu::PrimitiveTopology::LineList => Ok(2),
        wgpu::PrimitiveTopology::TriangleList => Ok(3),
        wgpu::PrimitiveTopology::LineStrip | wgpu::PrimitiveTopology::TriangleStrip => {
            Err(TableError::FilterStrip { topology })
        }
    }
}

impl GpuTable {
    /// A new table of the rows `mask` keeps (row `i` of the mask is row `i` of the table, over
    /// all batches in order), on the GPU: each batch's columns are compacted in one pass, rows
    /// that share an interleaved buffer together, so every column keeps its format, offset in
    /// the row and stride, and the table its schema, buffer layouts, constants and adapter data
    /// types. Each batch keeps its kept rows (possibly none).
    ///
    /// Null counts are the kept rows' nulls: columns uploaded from Arrow (feature `arrow`) keep
    /// their readback metadata, its validity filtered by the mask (read back once per batch
    /// that has nulls), so a filtered table reads back as Arrow with its nulls where they were
    /// and each batch's null count is the sum of its columns' kept nulls. A batch null count
    /// given without per-row validity cannot be filtered and becomes 0; other readback metadata
    /// is not carried over.
    ///
    /// A table with an `indices` column needs the primitive topology:
    /// [`filter_primitives`](Self::filter_primitives).
    ///
    /// # Errors
    /// [`TableError::MaskLength`] for a mask of another length than the table;
    /// [`TableError::FilterIndexed`] for a table with an index column;
    /// [`TableError::FilterList`] for a list column; [`TableError::Filter`] for what the
    /// compaction refused ([`OpError::WrongData`](crate::OpError::WrongData) for a batch whose
    /// rows lie in several pieces of the mask), and [`TableError::Gpu`] for the device's errors.
    pub fn filter(&self, gpu: &Gpu, mask: &GpuMask) -> Result<GpuTable, TableError> {
        self.filter_with(gpu, mask, None)
    }

    /// [`filter`](Self::filter) for a table drawn with `topology`, whose `indices` column (if
    /// any) names vertex rows of its batch: the filtered batch keeps the primitives (points,
    /// lines or triangles: 1, 2 or 3 consecutive indices) whose every vertex the mask keeps,
    /// in their order, each index renumbered to its vertex's row in the filtered batch (the
    /// mask's exclusive prefix sum at that row), all on the GPU. Indices past the batch's rows
    /// and the incomplete primitive a count that is not a multiple of the primitive size ends
    /// with (what a draw ignores) are dropped. Kept vertex rows that no kept primitive uses
    /// stay (the mask decides the rows). The index column keeps its format (`uint16` or
    /// `uint32`), packed, with INDEX usage; its value length is the kept indices.
    ///
    /// Strip topologies are refused: a strip's primitives share vertices with their
    /// neighbours, so there is no list of whole primitives to keep.
    ///
    /// # Errors
    /// [`TableError::FilterStrip`] for `line-strip` and `triangle-strip`;
    /// [`TableError::IndexFormat`] for indices other than `uint16` / `uint32`;
    /// [`TableError::IndexLayout`] for indices not aligned to their size; then as
    /// [`filter`](Self::filter) (without [`TableError::FilterIndexed`]).
    pub fn filter_primitives(
        &self,
        gpu: &Gpu,
        mask: &GpuMask,
        topology: wgpu::PrimitiveTopology,
    ) -> Result<GpuTable, TableError> {
        let size = primitive_size(topology)?;
        self.filter_with(gpu, mask, Some(size))
    }

    fn filter_with(
        &self,
        gpu: &Gpu,
        mask: &GpuMask,
        primitive: Option<u64>,
    ) -> Result<GpuTable, TableError> {
        if mask.len() != self.num_rows {
            return Err(TableError::MaskLength {
                expected: self.num_rows,
                found: mask.len(),
            });
        }
        if primitive.is_none()
            && self
                .batches
                .iter()
                .any(|b| b.column(RESERVED_INDEX_COLUMN).is_some())
        {
            return Err(TableError::FilterIndexed);
        }
        let mut batches = Vec::with_capacity(self.batches.len());
        let mut first = 0;
        for batch in &self.batches {
            let rows = batch.num_rows();
            let part = mask.slice(gpu, first, rows).map_err(TableError::from_op)?;
            first += rows;
            batches.push(filter_batch(gpu, batch, &part, primitive.unwrap_or(1))?);
        }
        self.with_batches(batches, self.buffer_layouts.clone())
    }
}

/// The rows `mask` keeps of `batch` (`ops`' compaction keeping every column's layout), its
/// layouts and schema kept; its indices (if any) filtered as primitives of `primitive` indices.
fn filter_batch(
    gpu: &Gpu,
    batch: &GpuRecordBatch,
    mask: &GpuMask,
    primitive: u64,
) -> Result<GpuRecordBatch, TableError> {
    for (_, data) in batch.columns() {
        data.buffer_on(gpu, "filter a table")?;
    }
    let columns = row_columns(batch)?;
    let data: Vec<&GpuData> = columns.iter().map(|(_, d)| *d).collect();
    let compacted = ops::compact_in_layout(gpu, mask, &data).map_err(TableError::from_op)?;
    let kept = compacted.kept;
    let validity = Validity::new(gpu, batch, mask)?;
    let mut null_count = 0u64;
    let mut out: Vec<(String, GpuData)> = Vec::with_capacity(batch.columns().len());
    for ((name, data), mut filtered) in columns.into_iter().zip(compacted.columns) {
        let (readback_metadata, nulls) = validity.filtered(data, kept);
        null_count = null_count.saturating_add(nulls);
        filtered.set_readback_metadata(readback_metadata);
        out.push((name.to_owned(), filtered));
    }
    if let Some((_, indices)) = batch.columns().find(|(n, _)| *n == RESERVED_INDEX_COLUMN) {
        let indices = filter_indices(gpu, indices, mask, kept, primitive)?;
        // In its place among the columns.
        let at = batch
            .columns()
            .position(|(n, _)| n == RESERVED_INDEX_COLUMN)
            .unwrap_or(out.len());
        out.insert(at, (RESERVED_INDEX_COLUMN.to_owned(), indices));
    }
    let options = RecordBatchOptions {
        buffer_layouts: Some(batch.buffer_layouts().to_vec()),
        fields: Some(batch.schema().fields.clone()),
        num_rows: Some(kept),
        metadata: batch.schema().metadata.clone(),
        null_count,
        ..RecordBatchOptions::default()
    };
    GpuRecordBatch::with_options(out, options)
}

/// The index column `data` under the vertex `mask`: the primitives of `primitive` indices whose
/// vertices are all kept, renumbered, as index data of the filtered batch's `kept` rows.
fn filter_indices(
    gpu: &Gpu,
    data: &GpuData,
    mask: &GpuMask,
    kept: u64,
    primitive: u64,
) -> Result<GpuData, TableError> {
    let format = match data.format() {
        Some(GpuDataFormat::Vector(v)) => v.element_format(),
        _ => VertexFormat::Float32,
    };
    let unit = match format {
        VertexFormat::Uint16 => 2,
        VertexFormat::Uint32 => 4,
        _ => {
            return Err(TableError::IndexFormat {
                found: format_text(data.format()),
            });
        }
    };
    if !data.byte_offset().is_multiple_of(unit) || !data.byte_stride().is_multiple_of(unit) {
        return Err(TableError::IndexLayout {
            byte_offset: data.byte_offset(),
            byte_stride: data.byte_stride(),
            index_bytes: unit,
        });
    }
    let rows = IndexRows {
        buffer: data.buffer(),
        offset: data.byte_offset(),
        stride: data.byte_stride(),
        unit,
        count: data.value_length(),
    };
    let (buffer, count) =
        ops::compact_indices(gpu, mask, rows, primitive).map_err(TableError::from_op)?;
    let descriptor = GpuDataDescriptor {
        format: data.format().cloned(),
        length: kept,
        value_length: Some(count),
        ..GpuDataDescriptor::default()
    };
    Ok(GpuData::new(BufferHandle::Owned(buffer), descriptor)?.on_device(gpu))
}
