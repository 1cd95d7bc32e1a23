//! Null counts of filtered batches: a column uploaded from Arrow carries its row validity in
//! its readback metadata ([`ArrowReadback`]); filtering keeps the validity of the kept rows
//! (the mask read back once per batch that has nulls), so the filtered column reads back as
//! Arrow with its nulls, and the batch's null count is the sum of its columns' kept nulls.
//! Without feature `arrow` there is no per-row validity: counts are 0.

use crate::data::{GpuData, ReadbackMetadata};
use crate::device::Gpu;
use crate::ops::GpuMask;
use crate::table::TableError;
use crate::table::column::batch::GpuRecordBatch;

#[cfg(feature = "arrow")]
use crate::arrow::ArrowReadback;

/// The kept rows of one batch, as far as filtering validity needs them.
pub(super) struct Validity {
    #[cfg(feature = "arrow")]
    keep: Option<arrow_buffer::BooleanBuffer>,
}

#[cfg(feature = "arrow")]
fn arrow_readback(data: &GpuData) -> Option<&ArrowReadback> {
    data.readback_metadata_as::<ArrowReadback>()
}

impl Validity {
    /// The mask of `batch`'s rows, read back when one of its columns has null rows.
    ///
    /// # Errors
    /// [`TableError::Filter`] when the mask cannot be read back.
    #[cfg(feature = "arrow")]
    pub(super) fn new(
        gpu: &Gpu,
        batch: &GpuRecordBatch,
        mask: &GpuMask,
    ) -> Result<Validity, TableError> {
        let nulls = batch.columns().any(|(_, data)| {
            arrow_readback(data)
                .and_then(ArrowReadback::nulls)
                .is_some_and(|n| n.null_count() > 0)
        });
        let keep = if nulls {
            Some(
                mask.read_arrow(gpu)
                    .map_err(TableError::from_op)?
                    .values()
                    .clone(),
            )
        } else {
            None
        };
        Ok(Validity { keep })
    }

    /// Without per-row validity there is nothing to read.
    #[cfg(not(feature = "arrow"))]
    #[allow(clippy::unnecessary_wraps)] // The same signature as with feature `arrow`.
    pub(super) fn new(
        _gpu: &Gpu,
        _batch: &GpuRecordBatch,
        _mask: &GpuMask,
    ) -> Result<Validity, TableError> {
        Ok(Validity {})
    }

    /// The readback metadata of `data`'s `kept` rows, and their nulls: the Arrow readback with
    /// its validity filtered and its length `kept`; `(None, 0)` for other metadata (and for
    /// columns with offsets, which filtering refuses before).
    #[cfg(feature = "arrow")]
    pub(super) fn filtered(&self, data: &GpuData, kept: u64) -> (Option<ReadbackMetadata>, u64) {
        let Some(readback) = arrow_readback(data) else {
            return (None, 0);
        };
        let Ok(length) = usize::try_from(kept) else {
            return (None, 0);
        };
        if readback.offsets.is_some() {
            return (None, 0);
        }
        let nulls = match (&readback.nulls, &self.keep) {
            (None, _) => None,
            (Some(nulls), Some(keep)) => {
                let valid: arrow_buffer::BooleanBuffer =
                    keep.set_indices().map(|row| nulls.is_valid(row)).collect();
                Some(arrow_buffer::NullBuffer::new(valid)).filter(|n| n.null_count() > 0)
            }
            // Nulls, yet the mask was not read: not reached (`new` reads it for any null).
            (Some(_), None) => return (None, 0),
        };
        let count = nulls.as_ref().map_or(0, |n| n.null_count() as u64);
        let filtered = ArrowReadback {
            length,
            nulls,
            ..readback.clone()
        };
        (Some(std::sync::Arc::new(filtered)), count)
    }

    /// No readback metadata to carry without feature `arrow`.
    #[cfg(not(feature = "arrow"))]
    pub(super) fn filtered(&self, _data: &GpuData, _kept: u64) -> (Option<ReadbackMetadata>, u64) {
        (None, 0)
    }
}
