//! [`GpuTable::filter`]: the rows a mask keeps, every column of every batch compacted on the
//! GPU, the schema, layouts and constants kept.

use crate::data::{BufferHandle, GpuData, GpuDataDescriptor};
use crate::device::Gpu;
use crate::ops::{self, GpuMask, RowSet};
use crate::table::TableError;
use crate::table::column::batch::{GpuRecordBatch, RecordBatchOptions};
use crate::table::column::schema::RESERVED_INDEX_COLUMN;

use super::GpuTable;

/// Columns of one batch that share a buffer and a stride and lie in one row window: one row set
/// to compact (an interleaved buffer's rows, or a packed column).
struct Group {
    buffer: wgpu::Buffer,
    stride: u64,
    start: u64,
    end: u64,
    columns: Vec<usize>,
}

/// The batch's columns grouped by the rows they share.
fn groups(batch: &GpuRecordBatch) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (i, (_, data)) in batch.columns().enumerate() {
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
    groups
}

impl GpuTable {
    /// A new table of the rows `mask` keeps (row `i` of the mask is row `i` of the table, over
    /// all batches in order), on the GPU: each batch's columns are compacted in one pass, rows
    /// that share an interleaved buffer together, so every column keeps its format, offset in
    /// the row and stride, and the table its schema, buffer layouts, constants and adapter data
    /// types. Each batch keeps its kept rows (possibly none). Null counts, which describe the
    /// unfiltered rows, are reset to 0; readback metadata of the batches' data is not carried
    /// over.
    ///
    /// # Errors
    /// [`TableError::MaskLength`] for a mask of another length than the table;
    /// [`TableError::FilterIndexed`] for a table with an index column (its indices name rows
    /// that filtering moves); [`TableError::Filter`] for what the compaction refused, and
    /// [`TableError::Gpu`] for the device's errors.
    pub fn filter(&self, gpu: &Gpu, mask: &GpuMask) -> Result<GpuTable, TableError> {
        if mask.len() != self.num_rows {
            return Err(TableError::MaskLength {
                expected: self.num_rows,
                found: mask.len(),
            });
        }
        let mut batches = Vec::with_capacity(self.batches.len());
        let mut first = 0;
        for batch in &self.batches {
            if batch.column(RESERVED_INDEX_COLUMN).is_some() {
                return Err(TableError::FilterIndexed);
            }
            let rows = batch.num_rows();
            let sliced;
            let part = if first == 0 && rows == mask.len() {
                mask
            } else {
                sliced = mask.slice(gpu, first, rows).map_err(TableError::from_op)?;
                &sliced
            };
            first += rows;
            batches.push(filter_batch(gpu, batch, part)?);
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
        };
        table.refresh()?;
        Ok(table)
    }
}

/// The rows `mask` keeps of `batch`, its layouts and schema kept.
fn filter_batch(
    gpu: &Gpu,
    batch: &GpuRecordBatch,
    mask: &GpuMask,
) -> Result<GpuRecordBatch, TableError> {
    for (_, data) in batch.columns() {
        data.buffer_on(gpu, "filter a table")?;
    }
    let groups = groups(batch);
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
    for (group, buffer) in groups.iter().zip(buffers) {
        for (k, &c) in group.columns.iter().enumerate() {
            let (name, data) = columns[c];
            let mut descriptor = GpuDataDescriptor {
                format: data.format().cloned(),
                length: kept,
                byte_offset: data.byte_offset() - group.start,
                byte_stride: Some(group.stride),
                row_byte_length: Some(data.row_byte_length()),
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
    let options = RecordBatchOptions {
        buffer_layouts: Some(batch.buffer_layouts().to_vec()),
        fields: Some(batch.schema().fields.clone()),
        num_rows: Some(kept),
        metadata: batch.schema().metadata.clone(),
        ..RecordBatchOptions::default()
    };
    GpuRecordBatch::with_options(out.into_iter().flatten(), options)
}
