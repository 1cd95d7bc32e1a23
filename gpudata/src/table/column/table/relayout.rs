//! The table's physical re-layouts: its entry points onto [`relayout`](crate::table::relayout)
//! (packing batches, segmented tables, packed and interleaved columns).

use crate::device::{Gpu, GpuError};
use crate::layout::{StepMode, StructLayout};
use crate::table::relayout::{pack, segmented};
use crate::table::{PackOptions, SegmentOptions, SegmentedTable, TableError};

use super::GpuTable;

impl GpuTable {
    /// Merges batches into fewer, larger ones with GPU copies (luma.gl's `packBatches`; no host
    /// round trip). Each column of a group becomes one new owned buffer (usage
    /// [`DEFAULT_USAGE`](crate::data::DEFAULT_USAGE)) in which chunk after chunk is copied,
    /// `length × byte_stride` bytes apart; every byte of each row (the last row's trailing padding aside)
    /// is kept. The superseded batches are destroyed once the copies are submitted (wgpu frees
    /// their buffers after the copies ran). A table of at most one batch is left as is.
    ///
    /// # Errors
    /// [`TableError::PackIndexed`] when a batch has an `indices` column;
    /// [`TableError::MinBatchSize`] for `min_batch_size: Some(0)`;
    /// [`TableError::PackEmptyBatch`] when a group's first batch has no column;
    /// [`TableError::PackVariableLength`] for list columns; [`TableError::MissingBatchData`];
    /// [`TableError::Overflow`]; [`TableError::Gpu`] when a buffer cannot be created or a copy is
    /// out of range. The table is unchanged on error.
    pub fn pack_batches(&mut self, gpu: &Gpu, options: PackOptions) -> Result<(), TableError> {
        pack::pack_batches(self, gpu, options)
    }

    /// This table as a [`SegmentedTable`] (see [`SegmentedTable::from_table`]).
    ///
    /// # Errors
    /// As [`SegmentedTable::from_table`].
    pub fn to_segmented(
        &self,
        gpu: &Gpu,
        options: SegmentOptions,
    ) -> Result<SegmentedTable, TableError> {
        SegmentedTable::from_table(gpu, self, options)
    }

    /// Every field as a packed column of one batch, each in a new owned buffer (GPU copies):
    /// interleaved columns are split into one column per field or attribute, batches are
    /// concatenated, constants are kept.
    ///
    /// # Errors
    /// As [`SegmentedTable::from_table`], then as [`GpuTable::from_columns`].
    pub fn to_packed(&self, gpu: &Gpu, options: SegmentOptions) -> Result<GpuTable, TableError> {
        self.check_device(gpu, "pack a table's columns")?;
        segmented::to_packed(self, gpu, options)
    }

    /// Every fixed-width field interleaved into rows of one struct column `name` of `layout`
    /// (GPU copies), as one batch: the struct's fields follow the table's columns (split as in
    /// [`to_packed`](Self::to_packed)); the rows' padding is zero. An `indices` column stays a
    /// packed column; constants are kept.
    ///
    /// # Errors
    /// [`TableError::InterleaveList`] for a list column other than `indices`;
    /// [`TableError::Layout`] when the fields cannot form a struct of `layout` (a `-webgl`
    /// format in `packed`); as [`to_packed`](Self::to_packed).
    pub fn to_interleaved(
        &self,
        gpu: &Gpu,
        name: &str,
        layout: StructLayout,
        step_mode: Option<StepMode>,
    ) -> Result<GpuTable, TableError> {
        self.check_device(gpu, "interleave a table's columns")?;
        segmented::to_interleaved(self, gpu, name, layout, step_mode)
    }

    /// [`GpuError::OtherDevice`] when a column of any batch lives on another device than
    /// `gpu`'s: the device check of every data entry point, for the table re-layouts that copy
    /// chunks without going through the data layer.
    pub(crate) fn check_device(&self, gpu: &Gpu, operation: &'static str) -> Result<(), GpuError> {
        for batch in self.batches() {
            for (_, data) in batch.columns() {
                data.buffer_on(gpu, operation)?;
            }
        }
        Ok(())
    }
}
