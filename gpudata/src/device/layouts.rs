//! The bind group layout cache of a [`Gpu`](super::Gpu): one `wgpu::BindGroupLayout` per
//! distinct list of entries, made on first use inside an error scope, so a derived bind group
//! (`gpudata::bind`) creates its layout once per device, and two groups of equal entries share
//! one (as WebGPU deems them compatible anyway).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::device::scope::error_scope;
use crate::device::{Gpu, GpuError};

/// Bind group layouts by their entries.
#[derive(Default)]
pub(crate) struct LayoutCache {
    layouts: Mutex<HashMap<Vec<wgpu::BindGroupLayoutEntry>, wgpu::BindGroupLayout>>,
}

impl LayoutCache {
    /// The layout of `entries`, created on first use (labelled `label`).
    ///
    /// # Errors
    /// [`GpuError::Validation`] when wgpu refuses the entries (a binding twice, a type the
    /// device does not support), [`GpuError::OutOfMemory`].
    pub(crate) fn layout(
        &self,
        gpu: &Gpu,
        label: &str,
        entries: &[wgpu::BindGroupLayoutEntry],
    ) -> Result<wgpu::BindGroupLayout, GpuError> {
        // Insertion is the only mutation: a panic while holding the lock leaves the map whole.
        let mut layouts = self.layouts.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(layout) = layouts.get(entries) {
            return Ok(layout.clone());
        }
        let layout = error_scope(gpu, "create a bind group layout", || {
            gpu.device()
                .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some(label),
                    entries,
                })
        })?;
        layouts.insert(entries.to_vec(), layout.clone());
        Ok(layout)
    }

    /// How many layouts were made (and kept).
    pub(crate) fn len(&self) -> usize {
        self.layouts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}
