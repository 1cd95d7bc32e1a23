//! The one compute pipeline cache of a [`Gpu`](super::Gpu), and the one place the library makes
//! a render pipeline ([`render_pipeline`]).
//!
//! A pipeline is keyed by its WGSL text and entry point. Generated kernels spell out everything
//! that shaped them in their text (formats, strides, offset phases, rows per invocation,
//! workgroup size) and nothing that varies from call to call (lengths, offsets and constants
//! travel in a uniform), and every pipeline uses the layout wgpu derives from its text, so text
//! and entry point are a complete key. Operations, table re-layouts and Arrow's `fround` all
//! compile through it, so one kernel compiles once per device.
//!
//! A kernel whose text holds [`UNINIT_WORKGROUP`] writes every workgroup variable before any
//! invocation reads it, and is compiled without wgpu's zeroing of workgroup memory (a store of
//! every variable, and a barrier, before the kernel's own first line).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Mutex, PoisonError};

use crate::device::scope::error_scope;
use crate::device::{Gpu, GpuError};

/// The line that marks a kernel compiled without zeroing its workgroup memory first (see the
/// module docs): every workgroup variable it reads, it has written first.
pub(crate) const UNINIT_WORKGROUP: &str =
    "// Workgroup memory: every variable written before it is read (not zeroed first).\n";

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
        gpu: &Gpu,
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
        let device = gpu.device();
        let pipeline = error_scope(gpu, "compile a compute pipeline", || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(wgsl.into()),
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: None,
                module: &module,
                entry_point: Some(entry_point),
                compilation_options: wgpu::PipelineCompilationOptions {
                    zero_initialize_workgroup_memory: !wgsl.contains(UNINIT_WORKGROUP),
                    ..wgpu::PipelineCompilationOptions::default()
                },
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

/// A render pipeline of `wgsl`'s `vs` and `fs` entry points over `bind_group_layouts` (in group
/// order) and vertex `buffers`, drawing `topology` into one color `target`, no depth test, one
/// sample, made inside an error scope whose errors name `operation` (also its wgpu label): what
/// the library draws with (picking's ids). Not cached: its callers keep what they make.
///
/// # Errors
/// [`GpuError::Validation`] when wgpu refuses the module, the layout or the pipeline,
/// [`GpuError::OutOfMemory`] when the device has no memory for it.
pub(crate) fn render_pipeline(
    gpu: &Gpu,
    operation: &'static str,
    wgsl: &str,
    bind_group_layouts: &[&wgpu::BindGroupLayout],
    buffers: &[Option<wgpu::VertexBufferLayout<'_>>],
    topology: wgpu::PrimitiveTopology,
    target: wgpu::ColorTargetState,
) -> Result<wgpu::RenderPipeline, GpuError> {
    let groups: Vec<Option<&wgpu::BindGroupLayout>> =
        bind_group_layouts.iter().copied().map(Some).collect();
    error_scope(gpu, operation, || {
        let device = gpu.device();
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(operation),
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(operation),
            bind_group_layouts: &groups,
            immediate_size: 0,
        });
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(operation),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                buffers,
            },
            primitive: wgpu::PrimitiveState {
                topology,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs"),
                compilation_options: Default::default(),
                targets: &[Some(target)],
            }),
            multiview_mask: None,
            cache: None,
        })
    })
}
