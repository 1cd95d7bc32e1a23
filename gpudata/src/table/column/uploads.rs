//! [`ConstantUploads`]: the uploads of a table's constants, kept across binding calls.

use std::sync::{Arc, Mutex, PoisonError};

use crate::data::GpuConstant;
use crate::device::Gpu;
use crate::table::TableError;

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
