//! [`GpuTable::sort_by`]: a new table of the rows in the order of one or more key columns
//! (`ops::argsort_by` over every batch's key data at once), every column gathered on the GPU,
//! each batch keeping its row count; readback metadata (Arrow's validity, dictionaries) follows
//! the rows, and a key's nulls sort apart from its values.

use crate::data::{
    BufferHandle, GpuData, GpuDataDescriptor, GpuDataFormat, GpuDataView, RowMetadata,
};
use crate::device::Gpu;
use crate::format::VertexFormat;
use crate::ops::{self, GpuMask, NullOrder, SortKey, SortOrder};
use crate::table::TableError;
use crate::table::column::batch::{GpuRecordBatch, RecordBatchOptions};
use crate::table::column::schema::RESERVED_INDEX_COLUMN;
use crate::table::column::vector::format_text;

use super::GpuTable;

/// One key of [`GpuTable::sort_by`]: a column by name, its order, where its null rows go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSortKey {
    /// The column: one-lane rows of an integer, normalized or float format.
    pub column: String,
    /// Ascending or descending.
    pub order: SortOrder,
    /// Where its null rows (those its readback metadata says are null) go.
    pub nulls: NullOrder,
}

impl TableSortKey {
    /// Column `column`, ascending, nulls last.
    #[must_use]
    pub fn ascending(column: impl Into<String>) -> TableSortKey {
        TableSortKey {
            column: column.into(),
            order: SortOrder::Ascending,
            nulls: NullOrder::Last,
        }
    }

    /// Column `column`, descending, nulls last.
    #[must_use]
    pub fn descending(column: impl Into<String>) -> TableSortKey {
        TableSortKey {
            order: SortOrder::Descending,
            ..TableSortKey::ascending(column)
        }
    }

    /// The same key with its null rows placed `nulls`.
    #[must_use]
    pub fn with_nulls(mut self, nulls: NullOrder) -> TableSortKey {
        self.nulls = nulls;
        self
    }
}

fn sort_error(error: ops::OpError) -> TableError {
    match error {
        ops::OpError::Gpu { source, .. } => TableError::Gpu(source),
        source => TableError::Sort { source },
    }
}

/// The rows of `data` as a view the gather moves: the column's own format, or the words of a
/// struct row (4, 8, 12 or 16 bytes a row: `uint32` to `uint32x4`).
fn rows_view<'a>(name: &str, data: &'a GpuData) -> Result<GpuDataView<'a>, TableError> {
    let refuse = || TableError::SortColumn {
        column: name.to_owned(),
        format: format_text(data.format()),
    };
    if let Some(view) = data.as_view() {
        return Ok(view);
    }
    let Some(GpuDataFormat::Struct(rows)) = data.format() else {
        return Err(refuse());
    };
    let words = match rows.byte_stride() {
        4 => VertexFormat::Uint32,
        8 => VertexFormat::Uint32x2,
        12 => VertexFormat::Uint32x3,
        16 => VertexFormat::Uint32x4,
        _ => return Err(refuse()),
    };
    if !data.byte_offset().is_multiple_of(4) || !data.byte_stride().is_multiple_of(4) {
        return Err(refuse());
    }
    GpuDataView::new(
        data.buffer(),
        words,
        data.length(),
        data.byte_offset(),
        Some(data.byte_stride()),
    )
    .map(|view| match data.device() {
        Some(gpu) => view.on_device(gpu),
        None => view,
    })
    .map_err(|_| refuse())
}

fn row_metadata(data: &GpuData) -> Option<&dyn RowMetadata> {
    data.readback_metadata()?.rows()
}

impl GpuTable {
    /// A new table of this table's rows sorted by `keys`, lexicographically and stably
    /// ([`ops::argsort_by`](crate::ops::argsort_by) over all batches at once, each key in
    /// [`ops::sort`](crate::ops::sort())'s total order), on the GPU: every column of every
    /// batch is gathered in the sorted order, and each batch keeps its row count (batch `b`
    /// holds the sorted rows where batch `b` held rows). A key column's null rows (as its
    /// readback metadata says: Arrow's validity) sort apart from its values, where the key
    /// says. The columns come back packed, one buffer each (interleaved attributes are gathered
    /// column by column; struct rows of 4 to 16 bytes move whole, as words), with the schema,
    /// constants and adapter data types kept; readback
    /// metadata follows the rows, so a sorted table reads back as Arrow with its nulls and
    /// dictionaries.
    ///
    /// ```
    /// use gpudata::table::{ChunkOptions, TableSortKey};
    /// use gpudata::{GpuTable, GpuVector};
    ///
    /// let gpu = &gpudata::Gpu::headless()?;
    /// let usage = gpudata::data::DEFAULT_USAGE;
    /// let two = ChunkOptions { rows_per_chunk: Some(2), ..ChunkOptions::default() };
    /// let a = GpuVector::upload_values(gpu, "a", &[2u32, 1, 2, 1], usage, two)?;
    /// let b = GpuVector::upload_values(gpu, "b", &[0.5f32, 4.0, 1.5, 3.0], usage, two)?;
    /// let table = GpuTable::from_vectors(vec![a, b], Default::default())?;
    /// let sorted = table.sort_by(gpu, &[TableSortKey::ascending("a"), TableSortKey::descending("b")])?;
    /// let b = sorted.vector("b").expect("column b").read_bytes(gpu)?;
    /// assert_eq!(b, bytemuck::cast_slice::<f32, u8>(&[4.0, 3.0, 1.5, 0.5]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`TableError::UnknownColumn`] for a key that names no column; [`TableError::SortIndexed`]
    /// for a table with an index column; [`TableError::SortColumn`] for a column that is not
    /// one vertex format per row (list rows, struct rows of another size); [`TableError::SortMetadata`] for
    /// readback metadata that cannot follow its rows; [`TableError::Sort`] for what the sort
    /// refused (a key of several lanes, no keys, a table too large
    /// for one storage binding of its keys) and [`TableError::Gpu`] for the device's errors.
    pub fn sort_by(&self, gpu: &Gpu, keys: &[TableSortKey]) -> Result<GpuTable, TableError> {
        if self
            .batches
            .iter()
            .any(|b| b.column(RESERVED_INDEX_COLUMN).is_some())
        {
            return Err(TableError::SortIndexed);
        }
        let column_views = |name: &str| -> Result<Vec<GpuDataView<'_>>, TableError> {
            self.batches
                .iter()
                .map(|batch| {
                    let data = batch
                        .column(name)
                        .ok_or_else(|| TableError::UnknownColumn {
                            column: name.to_owned(),
                        })?;
                    data.buffer_on(gpu, "sort a table")?;
                    rows_view(name, data)
                })
                .collect()
        };
        // Each key's validity, as one mask over all rows, where a batch's data has nulls.
        let mut masks: Vec<Option<GpuMask>> = Vec::with_capacity(keys.len());
        for key in keys {
            if self.batches.is_empty() && self.schema.field(&key.column).is_none() {
                return Err(TableError::UnknownColumn {
                    column: key.column.clone(),
                });
            }
            masks.push(self.validity(gpu, &key.column)?);
        }
        let mut sort_keys = Vec::with_capacity(keys.len());
        for (key, mask) in keys.iter().zip(&masks) {
            let mut sort_key = SortKey::from_pieces(column_views(&key.column)?)
                .with_order(key.order)
                .with_nulls(key.nulls);
            if let Some(mask) = mask {
                sort_key = sort_key.with_validity(mask);
            }
            sort_keys.push(sort_key);
        }
        let order = ops::argsort_by(gpu, &sort_keys).map_err(sort_error)?;
        let rows = self.source_rows(gpu, &order)?;
        // Each column's data and readback metadata in every batch, read once.
        let mut sources = Vec::new();
        if let Some(template) = self.batches.first() {
            for (name, _) in template.columns() {
                sources.push(ColumnSource {
                    name,
                    views: column_views(name)?,
                    metadata: self
                        .batches
                        .iter()
                        .map(|b| b.column(name).and_then(row_metadata))
                        .collect(),
                });
            }
        }
        let mut batches = Vec::with_capacity(self.batches.len());
        let mut first = 0u64;
        for batch in &self.batches {
            let count = batch.num_rows();
            let ids = order
                .as_view()
                .and_then(|v| v.slice(first, count))
                .ok_or_else(|| {
                    sort_error(ops::OpError::WrongData {
                        op: "sort_by",
                        expected: "row ids for every row",
                        found: format!("{} row ids", order.length()),
                    })
                })?;
            let taken = rows.as_ref().map(|r| {
                let start = usize::try_from(first).unwrap_or(usize::MAX).min(r.len());
                let end = usize::try_from(first + count)
                    .unwrap_or(usize::MAX)
                    .min(r.len());
                &r[start..end]
            });
            batches.push(sorted_batch(gpu, batch, ids, taken, &sources)?);
            first += count;
        }
        self.with_batches(batches, None)
    }

    /// The validity of column `name` over all rows as a mask, when some batch's data of it
    /// has null rows; `None` otherwise.
    fn validity(&self, gpu: &Gpu, name: &str) -> Result<Option<GpuMask>, TableError> {
        let nulls = self.batches.iter().any(|b| {
            b.column(name)
                .and_then(row_metadata)
                .is_some_and(|m| m.null_count() > 0)
        });
        if !nulls {
            return Ok(None);
        }
        let mut valid = Vec::new();
        for batch in &self.batches {
            let rows = usize::try_from(batch.num_rows()).map_err(|_| TableError::Overflow {
                what: "the rows of a batch".to_owned(),
            })?;
            let batch_valid = batch
                .column(name)
                .and_then(row_metadata)
                .and_then(RowMetadata::validity)
                .unwrap_or_else(|| vec![true; rows]);
            valid.extend(
                batch_valid
                    .into_iter()
                    .chain(std::iter::repeat(true))
                    .take(rows),
            );
        }
        GpuMask::from_bools(gpu, &valid)
            .map(Some)
            .map_err(sort_error)
    }

    /// Where each sorted row comes from, (batch, row in the batch), read back once when some
    /// column carries readback metadata that describes its rows; `None` otherwise.
    fn source_rows(
        &self,
        gpu: &Gpu,
        order: &GpuData,
    ) -> Result<Option<Vec<(usize, u64)>>, TableError> {
        let described = self
            .batches
            .iter()
            .any(|b| b.columns().any(|(_, data)| row_metadata(data).is_some()));
        if !described {
            return Ok(None);
        }
        let bytes = order.read_bytes(gpu)?;
        let starts: Vec<u64> = self
            .batches
            .iter()
            .scan(0u64, |start, b| {
                let s = *start;
                *start += b.num_rows();
                Some(s)
            })
            .collect();
        let rows = bytes
            .chunks_exact(4)
            .map(|c| {
                let id = u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
                let batch = starts.partition_point(|&s| s <= id).saturating_sub(1);
                (batch, id - starts.get(batch).copied().unwrap_or(0))
            })
            .collect();
        Ok(Some(rows))
    }
}

/// One column of the table being sorted: its data in every batch, as views the gather reads,
/// and its readback metadata in every batch.
struct ColumnSource<'a> {
    name: &'a str,
    views: Vec<GpuDataView<'a>>,
    metadata: Vec<Option<&'a dyn RowMetadata>>,
}

/// Batch `batch` of the sorted table: every column's rows `ids` gathered from all batches'
/// data of it (`sources`), metadata taken from the rows `taken` says.
fn sorted_batch(
    gpu: &Gpu,
    batch: &GpuRecordBatch,
    ids: GpuDataView<'_>,
    taken: Option<&[(usize, u64)]>,
    sources: &[ColumnSource<'_>],
) -> Result<GpuRecordBatch, TableError> {
    let mut null_count = 0u64;
    let mut out = Vec::with_capacity(batch.columns().len());
    for (name, data) in batch.columns() {
        let Some(source) = sources.iter().find(|s| s.name == name) else {
            return Err(TableError::UnknownColumn {
                column: name.to_owned(),
            });
        };
        let format = rows_view(name, data)?.format();
        let mut gathered =
            ops::gather_pieces(gpu, &[ids], &source.views, format).map_err(sort_error)?;
        // One output per whole buffer of rows; a batch's rows fit one (its data did).
        let mut column = match (gathered.len(), gathered.pop(), source.views.first()) {
            (1, Some(column), _) => column,
            // No rows: an empty column of the format.
            (0, _, Some(view)) => ops::gather(gpu, ids, *view).map_err(sort_error)?,
            _ => {
                return Err(TableError::SortColumn {
                    column: name.to_owned(),
                    format: format_text(data.format()),
                });
            }
        };
        if let Some(rows @ GpuDataFormat::Struct(_)) = data.format() {
            // The words moved as they are: the rows again, in their struct format.
            let descriptor = GpuDataDescriptor::new(rows.clone(), column.length())
                .with_row_byte_length(data.row_byte_length());
            column = GpuData::new(BufferHandle::Owned(column.buffer().clone()), descriptor)?
                .on_device(gpu);
        }
        let metadata = &source.metadata;
        if let (Some(Some(first)), Some(taken)) = (metadata.first(), taken) {
            let all: Option<Vec<&dyn RowMetadata>> = metadata.iter().copied().collect();
            let moved = all
                .and_then(|s| first.take_rows(&s, taken))
                .ok_or_else(|| TableError::SortMetadata {
                    column: name.to_owned(),
                })?;
            null_count = null_count.saturating_add(moved.rows().map_or(0, RowMetadata::null_count));
            column.set_readback_metadata(Some(moved));
        } else if metadata.iter().any(Option::is_some) {
            return Err(TableError::SortMetadata {
                column: name.to_owned(),
            });
        }
        out.push((name.to_owned(), column));
    }
    let options = RecordBatchOptions {
        fields: Some(batch.schema().fields.clone()),
        num_rows: Some(batch.num_rows()),
        metadata: batch.schema().metadata.clone(),
        null_count,
        ..RecordBatchOptions::default()
    };
    GpuRecordBatch::with_options(out, options)
}
