//! Binding a table to a pipeline: render bindings (vertex and index buffers), storage bindings
//! and the WGSL accessors that decode every format as vertex fetch would.

pub(crate) mod render;
pub(crate) mod storage;
mod vertex;
pub(crate) mod wgsl;

use crate::device::Gpu;
use crate::table::{
    GpuTable, RenderOptions, TableError, TableRenderBindings, TableStorageBindings,
};

/// The body of [`GpuTable::bindings`].
pub(crate) fn bindings(
    table: &GpuTable,
    gpu: &Gpu,
    options: RenderOptions,
) -> Result<TableBindings, TableError> {
    Ok(TableBindings {
        render: render::render_bindings(table, gpu, options)?,
        storage: storage::storage_bindings(table, gpu)?,
    })
}

/// Render and compute bindings of a table (see [`GpuTable::bindings`]).
#[derive(Clone, Debug)]
pub struct TableBindings {
    /// For render pipelines and draws.
    pub render: TableRenderBindings,
    /// For compute passes.
    pub storage: TableStorageBindings,
}
