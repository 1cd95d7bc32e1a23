//! The one compute pipeline cache of a [`Gpu`](super::Gpu), and the error scope that device work
//! gpudata records runs in.
//!
//! A pipeline is keyed by its WGSL text and entry point. Generated kernels spell out everything
//! that shaped them in their text (formats, strides, offset phases, rows per invocation,
//! workgroup size) and nothing that varies from call to call (lengths, offsets and constants
//! travel in a uniform), and every pipeline uses the layout wgpu derives from its text, so text
//! and entry point are a complete key. Operations, table re-layouts and Arrow's `fround` all
//! compile through it, so one kernel compiles once per device.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Mutex, PoisonError};

use crate::device::GpuError;

/// Compute pipelines by entry point, then WGSL text.
#[derive(Default)]
pub(crate) struct PipelineCache {
    pipelines: Mutex<HashMap<&'static str, HashMap<Arc<str>, wgpu::ComputePipeline>>>,
}

impl PipelineCache {
    /// The pipeline of entry point `entry_point` of `wgsl`, compiled on first use (inside an
    /// error scope: a module or pipeline wgpu refuses is an error, never wgpu's panic).
    ///
    /// The lock is held while compiling, so concurrent first uses of one kernel compile it once.
    ///
    /// # Errors
    /// [`GpuError::Validation`] when wgpu refuses the module or the pipeline,
    /// [`GpuError::OutOfMemory`] when the device has no memory for it.
    pub(crate) fn compute(
        &self,
        device: &wgpu::Device,
        label: &'static str,
        wgsl: &str,
        entry_point: &'static str,
    ) -> Result<wgpu::ComputePipeline, GpuError> {
        // A panic while holding the lock cannot leave the map inconsistent: insertion is the only
        // mutation.
        let mut pipelines = self
            .pipelines
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let by_text = pipelines.entry(entry_point).or_default();
        if let Some(pipeline) = by_text.get(wgsl) {
            return Ok(pipeline.clone());
        }
        let pipeline = error_scope(device, "compile a compute pipeline", || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(wgsl.into()),
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: None,
                module: &module,
                entry_point: Some(entry_point),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                cache: None,
            })
        })?;
        match by_text.entry(Arc::from(wgsl)) {
            Entry::Occupied(e) => Ok(e.get().clone()),
            Entry::Vacant(e) => Ok(e.insert(pipeline).clone()),
        }
    }

    /// How many pipelines have been compiled (and kept).
    pub(crate) fn len(&self) -> usize {
        self.pipelines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .map(HashMap::len)
            .sum()
    }
}

/// Runs `f` with wgpu's validation and out-of-memory errors captured, and returns the first one
/// as a [`GpuError`] naming `operation` (what `f` does, as a verb phrase: `"submit the kernels"`).
///
/// # Errors
/// [`GpuError::Validation`], [`GpuError::OutOfMemory`].
pub(crate) fn error_scope<R>(
    device: &wgpu::Device,
    operation: &'static str,
    f: impl FnOnce() -> R,
) -> Result<R, GpuError> {
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let result = f();
    let validation = pollster::block_on(validation.pop());
    let memory = pollster::block_on(memory.pop());
    match validation.or(memory) {
        Some(error) => Err(crate::device::scope::to_gpu_error(operation, None, error)),
        None => Ok(result),
    }
}
