//! Null counts of filtered batches: a column whose readback metadata describes its rows
//! ([`RowMetadata`], as Arrow's readback does with its validity) keeps the metadata of its kept
//! rows (the mask read back once per batch that has null rows), so the filtered column reads
//! back with its nulls, and the batch's null count is the sum of its columns' kept nulls.
//! Other readback metadata is not carried over.

use crate::data::{GpuData, ReadbackMetadata, RowMetadata};
use crate::device::Gpu;
use crate::ops::GpuMask;
use crate::table::TableError;
use crate::table::column::batch::GpuRecordBatch;

/// The kept rows of one batch, as far as filtering readback metadata needs them.
pub(super) struct Validity {
    /// Whether each row is kept: read back only when a column of the batch has null rows.
    keep: Option<Vec<bool>>,
}

fn rows(data: &GpuData) -> Option<&dyn RowMetadata> {
    data.readback_metadata()?.rows()
}

impl Validity {
    /// The mask of `batch`'s rows, read back when one of its columns has null rows.
    ///
    /// # Errors
    /// [`TableError::Filter`] when the mask cannot be read back.
    pub(super) fn new(
        gpu: &Gpu,
        batch: &GpuRecordBatch,
        mask: &GpuMask,
    ) -> Result<Validity, TableError> {
        let nulls = batch
            .columns()
            .any(|(_, data)| rows(data).is_some_and(|r| r.null_count() > 0));
        let keep = if nulls {
            Some(mask.read(gpu).map_err(TableError::from_op)?)
        } else {
            None
        };
        Ok(Validity { keep })
    }

    /// The readback metadata of `data`'s `kept` rows, and their nulls: the metadata's
    /// [`RowMetadata::keep_rows`]; `(None, 0)` for metadata that does not describe its rows.
    pub(super) fn filtered(&self, data: &GpuData, kept: u64) -> (Option<ReadbackMetadata>, u64) {
        let Some(metadata) = rows(data).and_then(|r| r.keep_rows(kept, self.keep.as_deref()))
        else {
            return (None, 0);
        };
        let nulls = metadata.rows().map_or(0, RowMetadata::null_count);
        (Some(metadata), nulls)
    }
}
