//! [`RowResolver`]: a table's row ids mapped to (batch, row within the batch) and back to the
//! rows of the Arrow source the batches were uploaded from.

use crate::table::{GpuTable, SourceInfo};

use super::PickError;

/// A picked row: where a row id lies in the table, and in its Arrow source when the batch
/// records one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PickedRow {
    /// The row id: the row's index over all batches of the table, in batch order (what the
    /// target stores, plus one).
    pub global_row: u64,
    /// The batch holding the row ([`GpuTable::batches`]' index). Reading the table back
    /// ([`record_batches_from_gpu_table`](crate::arrow::record_batches_from_gpu_table) with
    /// feature `arrow`) gives one Arrow batch per GPU batch, so this is also that Arrow batch.
    pub batch: usize,
    /// The row within the batch (and within the read-back Arrow batch).
    pub row: u64,
    /// The row of the Arrow source, when the batch has a [`SourceInfo`] (tables made by
    /// `record_batches_to_gpu_table`); `None` otherwise (streamed tables keep their input's row
    /// order, so `global_row` is the input's row).
    pub source: Option<SourceRow>,
}

/// A row of the Arrow record batches a table was uploaded from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceRow {
    /// The source record batch ([`SourceInfo::source_batch_index`]).
    pub batch: u64,
    /// The row within that source batch.
    pub row: u64,
    /// The row over all source batches ([`SourceInfo::source_row_index_offset`] plus the row
    /// within the GPU batch).
    pub table_row: u64,
}

/// Maps row ids (a row's index over all batches of a table, in batch order) to the batch and
/// row within it, and to the Arrow source row. [`PickOffsets`](super::PickOffsets) is made from
/// one, so the ids drawn and the ids resolved come from the same batch starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowResolver {
    /// The first row id of every batch, then the table's rows.
    starts: Vec<u64>,
    /// Every batch's source, if recorded.
    sources: Vec<Option<SourceInfo>>,
}

impl RowResolver {
    /// The resolver of `table`'s batches (empty batches included: they hold no id).
    ///
    /// # Errors
    /// [`PickError::TooManyRows`] past `u32::MAX` rows.
    pub fn new(table: &GpuTable) -> Result<RowResolver, PickError> {
        let rows: Vec<u64> = table.batches().iter().map(|b| b.num_rows()).collect();
        let mut resolver = RowResolver::from_batch_rows(&rows)?;
        resolver.sources = table.batches().iter().map(|b| b.source_info()).collect();
        Ok(resolver)
    }

    /// The resolver of batches of `rows` rows each, without sources.
    ///
    /// # Errors
    /// [`PickError::TooManyRows`] past `u32::MAX` rows in all.
    pub fn from_batch_rows(rows: &[u64]) -> Result<RowResolver, PickError> {
        let mut starts = Vec::with_capacity(rows.len() + 1);
        let mut total = 0u64;
        starts.push(0);
        for &r in rows {
            total = total
                .checked_add(r)
                .ok_or(PickError::TooManyRows { rows: u64::MAX })?;
            starts.push(total);
        }
        if total > u64::from(u32::MAX) {
            return Err(PickError::TooManyRows { rows: total });
        }
        Ok(RowResolver {
            starts,
            sources: vec![None; rows.len()],
        })
    }

    /// The table's rows.
    #[must_use]
    pub fn rows(&self) -> u64 {
        self.starts.last().copied().unwrap_or(0)
    }

    /// The table's batches.
    #[must_use]
    pub fn batches(&self) -> usize {
        self.starts.len() - 1
    }

    /// The first row id of `batch` and its rows.
    ///
    /// # Errors
    /// [`PickError::BatchOutOfRange`].
    pub fn batch_rows(&self, batch: usize) -> Result<(u64, u64), PickError> {
        match (self.starts.get(batch), self.starts.get(batch + 1)) {
            (Some(&first), Some(&end)) => Ok((first, end - first)),
            _ => Err(PickError::BatchOutOfRange {
                batch,
                batches: self.batches(),
            }),
        }
    }

    /// The row id of `row` of `batch`.
    ///
    /// # Errors
    /// [`PickError::BatchOutOfRange`], [`PickError::RowBeyondBatch`].
    pub fn global_row(&self, batch: usize, row: u64) -> Result<u64, PickError> {
        let (first, rows) = self.batch_rows(batch)?;
        if row >= rows {
            return Err(PickError::RowBeyondBatch { batch, row, rows });
        }
        Ok(first + row)
    }

    /// Where row id `global_row` lies: its batch, its row there, and its Arrow source row.
    ///
    /// # Errors
    /// [`PickError::RowBeyondTable`] for an id past the table's rows.
    pub fn resolve(&self, global_row: u64) -> Result<PickedRow, PickError> {
        if global_row >= self.rows() {
            return Err(PickError::RowBeyondTable {
                row: global_row,
                rows: self.rows(),
            });
        }
        // The last batch starting at or before the id; empty batches before it start there too.
        let batch = self.starts.partition_point(|&s| s <= global_row) - 1;
        let row = global_row - self.starts[batch];
        let source = self.sources[batch].map(|info| self.source_row(info, row));
        Ok(PickedRow {
            global_row,
            batch,
            row,
            source,
        })
    }

    /// Every row id of `global_rows` resolved, in order.
    ///
    /// # Errors
    /// As [`resolve`](Self::resolve).
    pub fn resolve_all(
        &self,
        global_rows: impl IntoIterator<Item = u64>,
    ) -> Result<Vec<PickedRow>, PickError> {
        global_rows.into_iter().map(|g| self.resolve(g)).collect()
    }

    /// The source row of `row` of a batch from `info`: the source batch's first row is the
    /// smallest offset any batch of this table records for it (a source batch cut into several
    /// GPU batches starts with its piece at row 0, as `record_batches_to_gpu_table` makes it).
    fn source_row(&self, info: SourceInfo, row: u64) -> SourceRow {
        let start = self
            .sources
            .iter()
            .flatten()
            .filter(|s| s.source_batch_index == info.source_batch_index)
            .map(|s| s.source_row_index_offset)
            .min()
            .unwrap_or(info.source_row_index_offset);
        let table_row = info.source_row_index_offset.saturating_add(row);
        SourceRow {
            batch: info.source_batch_index,
            row: table_row - start,
            table_row,
        }
    }
}
