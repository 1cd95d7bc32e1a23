//! The table's bindings: its entry points onto [`bind`](crate::table::bind) (render and storage
//! bindings).

use crate::device::Gpu;
use crate::table::bind::{self, render, storage};
use crate::table::{
    RenderOptions, TableBindings, TableError, TableRenderBindings, TableStorageBindings,
};

use super::GpuTable;

impl GpuTable {
    /// Everything a render pass needs: the vertex layouts of the pipeline (the table's layouts in
    /// order, each attribute at the next shader location from `options.base_location`, then one
    /// zero-stride layout per constant), and per batch the vertex buffer ranges in the same slot
    /// order plus the index buffer of an `indices` column. Batches without rows are left out.
    ///
    /// # Errors
    /// [`TableError::Layout`] for layouts wgpu cannot fetch (a `-webgl` format, a stride that is
    /// not a multiple of 4); [`TableError::MissingBatchData`]; [`TableError::Gpu`] for data that
    /// cannot be bound as a vertex buffer (see
    /// [`GpuData::vertex_buffer_slice`](crate::GpuData::vertex_buffer_slice)) or an index buffer
    /// without `INDEX` usage; [`TableError::IndexFormat`] and [`TableError::IndexLayout`] for an
    /// `indices` column that is not packed `uint32` or `uint16` values.
    pub fn render_bindings(
        &self,
        gpu: &Gpu,
        options: RenderOptions,
    ) -> Result<TableRenderBindings, TableError> {
        render::render_bindings(self, gpu, options)
    }

    /// Everything a compute pass needs, per batch: every column (the first batch's order,
    /// `indices` included) as a read-only storage range that starts at the device's storage
    /// offset alignment at or below the data (segments start exactly there) and ends at the last
    /// value rounded up to a word, then every constant as a 16-byte uniform; and the WGSL that
    /// declares them with accessors ([`BatchStorage::wgsl`](crate::table::BatchStorage::wgsl)).
    /// Batches without rows bind a one-word range.
    ///
    /// # Errors
    /// [`TableError::MissingBatchData`]; [`TableError::Gpu`] for data without `STORAGE` usage,
    /// out of its buffer or larger than the device binds; [`TableError::StorageMisaligned`] for
    /// values that do not start on a multiple of their component size.
    pub fn storage_bindings(&self, gpu: &Gpu) -> Result<TableStorageBindings, TableError> {
        storage::storage_bindings(self, gpu)
    }

    /// [`render_bindings`](Self::render_bindings) and
    /// [`storage_bindings`](Self::storage_bindings) in one call.
    ///
    /// # Errors
    /// As the two.
    pub fn bindings(&self, gpu: &Gpu, options: RenderOptions) -> Result<TableBindings, TableError> {
        bind::bindings(self, gpu, options)
    }
}
