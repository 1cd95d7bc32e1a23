//! Compute pipelines, cached per device by their generated WGSL text.
//!
//! The text is a complete key: it spells out the formats, strides, offset phases, rows per
//! invocation and workgroup size that shaped it, and nothing that varies from call to call
//! (lengths, offsets and constants travel in a uniform). A [`GpuOps`](super::GpuOps) owns one
//! cache, so one cache serves one device.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::ops::OpError;

/// Pipelines by WGSL text.
#[derive(Default)]
pub(crate) struct PipelineCache {
    pipelines: Mutex<HashMap<Arc<str>, wgpu::ComputePipeline>>,
}

impl PipelineCache {
    /// The pipeline of `wgsl`, compiled on first use.
    pub(crate) fn get(
        &self,
        device: &wgpu::Device,
        op: &'static str,
        wgsl: &str,
    ) -> Result<wgpu::ComputePipeline, OpError> {
        // A panic while holding the lock cannot leave the map inconsistent: insertion is the only
        // mutation.
        if let Some(pipeline) = self
            .pipelines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(wgsl)
        {
            return Ok(pipeline.clone());
        }
        let pipeline = device_scope(device, op, || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(op),
                source: wgpu::ShaderSource::Wgsl(wgsl.into()),
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(op),
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                cache: None,
            })
        })?;
        self.pipelines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(Arc::from(wgsl), pipeline.clone());
        Ok(pipeline)
    }

    /// How many pipelines are cached.
    pub(crate) fn len(&self) -> usize {
        self.pipelines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// Runs `f` with validation and out-of-memory errors captured, and turns a captured error into
/// [`OpError::Device`].
pub(crate) fn device_scope<R>(
    device: &wgpu::Device,
    op: &'static str,
    f: impl FnOnce() -> R,
) -> Result<R, OpError> {
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let result = f();
    let validation = pollster::block_on(validation.pop());
    let memory = pollster::block_on(memory.pop());
    match validation.or(memory) {
        Some(error) => Err(OpError::Device {
            op,
            message: error.to_string(),
        }),
        None => Ok(result),
    }
}
