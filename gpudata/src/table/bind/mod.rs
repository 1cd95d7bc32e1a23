//! Binding a table to a pipeline: render bindings (vertex and index buffers), storage bindings
//! and the WGSL accessors that decode every format as vertex fetch would.

pub(crate) mod render;
pub(crate) mod storage;
mod vertex;
pub(crate) mod wgsl;

use std::sync::{Arc, Mutex, PoisonError};

use crate::data::GpuConstant;
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

/// The uploads of a table's constants, one per value and device, kept across binding calls (and
/// shared with the tables made from this one), so binding a table again binds the same buffers.
#[derive(Clone, Default)]
pub(crate) struct ConstantUploads(Arc<Mutex<Vec<(GpuConstant, Gpu, wgpu::Buffer)>>>);

impl ConstantUploads {
    /// The upload of `constant` on `gpu`: the one made before on that device
    /// ([`Gpu::same_device`], exact across instances), else a new one, kept.
    ///
    /// # Errors
    /// [`TableError::Gpu`] when the upload fails.
    pub(crate) fn buffer(
        &self,
        gpu: &Gpu,
        constant: &GpuConstant,
    ) -> Result<wgpu::Buffer, TableError> {
        let mut uploads = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let made = uploads
            .iter()
            .find(|(value, owner, _)| value == constant && owner.same_device(gpu));
        if let Some((_, _, buffer)) = made {
            return Ok(buffer.clone());
        }
        let buffer = constant.upload(gpu)?;
        uploads.push((*constant, gpu.clone(), buffer.clone()));
        Ok(buffer)
    }
}
