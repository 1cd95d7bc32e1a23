//! [`GpuTable::filter`] and [`GpuTable::filter_primitives`]: the rows a mask keeps, every column
//! of every batch compacted on the GPU, the schema, layouts and constants kept; an `indices`
//! column keeps the primitives whose every vertex is kept, renumbered to the compacted rows.

use crate::data::{BufferHandle, GpuData, GpuDataDescriptor, GpuDataFormat};
use crate::device::Gpu;
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::ops::{self, GpuMask, IndexRows, RowSet};
use crate::table::TableError;
use crate::table::column::batch::{GpuRecordBatch, RecordBatchOptions};
use crate::table::column::schema::RESERVED_INDEX_COLUMN;
use crate::table::column::vector::format_text;

use super::GpuTable;
use super::filter_nulls::Validity;

/// Columns of one batch that share a buffer and a stride and lie in one row window: one row set
/// to compact (an interleaved buffer's rows, or a packed column).
struct Group {
    buffer: wgpu::Buffer,
    stride: u64,
    start: u64,
    end: u64,
    columns: Vec<usize>,
}

/// The batch's columns but `indices` grouped by the rows they share; list columns refused
/// (their rows have no fixed place to compact).
fn groups(batch: &GpuRecordBatch) -> Result<Vec<Group>, TableError> {
    let mut groups: Vec<Group> = Vec::new();
    for (i, (name, data)) in batch.columns().enumerate() {
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
        let (offset, stride) = (data.byte_offset(), data.byte_stride());
        let end = offset + data.row_byte_length();
        let found = groups.iter_mut().find(|g| {
            g.buffer == *data.buffer()
                && g.stride == stride
                && offset.max(g.start) - offset.min(g.start) < stride.max(1)
        });
        match found {
            Some(g) => {
                g.start = g.start.min(offset);
                g.end = g.end.max(end);
                g.columns.push(i);
            }
            None => groups.push(Group {
                buffer: data.buffer().clone(),
                stride,
                start: offset,
                end,
                columns: vec![i],
            }),
        }
    }
    Ok(groups)
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
            let sliced;
            let part = if first == 0 && rows == mask.len() {
                mask
            } else {
                sliced = mask.slice(gpu, first, rows).map_err(TableError::from_op)?;
                &sliced
            };
            first += rows;
            batches.push(filter_batch(gpu, batch, part, primitive.unwrap_or(1))?);
        }
        let mut table = GpuTable {
            schema: self.schema.clone(),
            buffer_layouts: self.buffer_layouts.clone(),
            batches,
            constants: self.constants.clone(),
            vectors: Vec::new(),
            data_types: self.data_types.clone(),
            num_rows: 0,
            null_count: 0,
            uploads: self.uploads.clone(),
        };
        table.refresh()?;
        Ok(table)
    }
}

/// The rows `mask` keeps of `batch`, its layouts and schema kept; its indices (if any) filtered
/// as primitives of `primitive` indices.
fn filter_batch(
    gpu: &Gpu,
    batch: &GpuRecordBatch,
    mask: &GpuMask,
    primitive: u64,
) -> Result<GpuRecordBatch, TableError> {
    for (_, data) in batch.columns() {
        data.buffer_on(gpu, "filter a table")?;
    }
    let groups = groups(batch)?;
    let sets: Vec<RowSet<'_>> = groups
        .iter()
        .map(|g| RowSet {
            buffer: &g.buffer,
            offset: g.start,
            stride: g.stride,
            row_bytes: g.end - g.start,
            length: batch.num_rows(),
        })
        .collect();
    let (buffers, kept) = ops::compact_row_sets(gpu, mask, &sets).map_err(TableError::from_op)?;
    let columns: Vec<(&str, &GpuData)> = batch.columns().collect();
    let mut out: Vec<Option<(String, GpuData)>> = columns.iter().map(|_| None).collect();
    let validity = Validity::new(gpu, batch, mask)?;
    let mut null_count = 0u64;
    for (group, buffer) in groups.iter().zip(buffers) {
        for (k, &c) in group.columns.iter().enumerate() {
            let (name, data) = columns[c];
            let (readback_metadata, nulls) = validity.filtered(data, kept);
            null_count = null_count.saturating_add(nulls);
            let mut descriptor = GpuDataDescriptor {
                format: data.format().cloned(),
                length: kept,
                byte_offset: data.byte_offset() - group.start,
                byte_stride: Some(group.stride),
                row_byte_length: Some(data.row_byte_length()),
                readback_metadata,
                ..GpuDataDescriptor::default()
            };
            descriptor.stride = Some(data.stride());
            descriptor.value_length = Some(kept);
            let handle = if k == 0 {
                BufferHandle::Owned(buffer.clone())
            } else {
                BufferHandle::Shared(buffer.clone())
            };
            out[c] = Some((name.to_owned(), GpuData::new(handle, descriptor)?));
        }
    }
    if let Some(c) = columns
        .iter()
        .position(|(n, _)| *n == RESERVED_INDEX_COLUMN)
    {
        let indices = filter_indices(gpu, columns[c].1, mask, kept, primitive)?;
        out[c] = Some((RESERVED_INDEX_COLUMN.to_owned(), indices));
    }
    let options = RecordBatchOptions {
        buffer_layouts: Some(batch.buffer_layouts().to_vec()),
        fields: Some(batch.schema().fields.clone()),
        num_rows: Some(kept),
        metadata: batch.schema().metadata.clone(),
        null_count,
        ..RecordBatchOptions::default()
    };
    GpuRecordBatch::with_options(out.into_iter().flatten(), options)
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
