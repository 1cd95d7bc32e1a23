//! The one way every kernel of the crate is bound, dispatched and submitted, for the row
//! transform ([`transform`](super::transform): operations and table re-layouts) and the
//! selection kernels ([`select`](super::select)) alike: the checks of its storage bindings
//! against the device's limits, its workgroups folded into a two-dimensional dispatch, its
//! pipeline from the device's cache, its uniform and bind group made inside an error scope
//! ([`Kernel::dispatch`]), and the recording and submission of dispatches ([`record_pass`],
//! [`submit`]).
//!
//! What a kernel binds, and how rows are split over dispatches, is each family's; the rules those
//! splits follow are [`split`](super::split)'s.

use std::sync::Arc;

use crate::device::buffers::filled_buffer;
use crate::device::{Gpu, GpuError, error_scope};
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::split::{check_binding_count, dispatch_shape, max_binding_size};

/// A storage range one dispatch binds: `size` bytes of `buffer` from `start` (a storage-aligned
/// offset).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Binding<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub start: u64,
    pub size: u64,
}

/// A generated kernel, ready to bind: the operation it serves (for errors and labels), its WGSL
/// (entry point `main`, bindings in group 0: the uniform at 0, storage from 1), the invocations
/// per workgroup its text declares and the rows each invocation handles.
pub(crate) struct Kernel {
    pub op: &'static str,
    pub wgsl: Arc<str>,
    pub workgroup_size: u32,
    pub rows_per_thread: u32,
}

impl Kernel {
    /// One dispatch of the kernel over `workgroups` workgroups, with `params` in the uniform
    /// (binding 0, padded to whole `vec4<u32>`s, at least one) and `bindings` as bindings 1,
    /// 2, ….
    ///
    /// # Errors
    /// [`OpError::TooLarge`] for a binding over the device's limit, [`OpError::TooManyBindings`],
    /// [`OpError::DispatchTooLarge`] when the workgroups do not fit two dimensions or their
    /// invocations a `u32`, [`OpError::Gpu`] when the device refuses the kernel or its bindings.
    pub(crate) fn dispatch(
        self,
        planner: &Planner<'_>,
        params: &[u32],
        bindings: &[Binding<'_>],
        workgroups: u64,
    ) -> Result<Dispatch, OpError> {
        let op = self.op;
        let device = planner.device();
        let limits = device.limits();
        let max_binding = max_binding_size(&limits);
        for b in bindings {
            if b.size > max_binding {
                return Err(OpError::TooLarge {
                    op,
                    what: "a storage binding",
                    size: b.size,
                    limit: max_binding,
                });
            }
        }
        check_binding_count(op, &limits, bindings.len() as u64)?;
        let grid = grid(op, &limits, workgroups, self.workgroup_size)?;
        let pipeline = planner.pipeline(op, &self.wgsl)?;
        let mut words = params.to_vec();
        words.resize(params.len().div_ceil(4).max(1) * 4, 0);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let bind_group = planner.scope(op, "bind the kernel's buffers", || {
            let uniform = filled_buffer(planner.gpu(), op, &bytes, wgpu::BufferUsages::UNIFORM);
            let mut entries = vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            }];
            for (i, b) in bindings.iter().enumerate() {
                entries.push(wgpu::BindGroupEntry {
                    binding: i as u32 + 1,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: b.buffer,
                        offset: b.start,
                        size: wgpu::BufferSize::new(b.size),
                    }),
                });
            }
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(op),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &entries,
            })
        })?;
        Ok(Dispatch {
            pipeline,
            bind_group,
            workgroups: grid,
            rows_per_thread: self.rows_per_thread,
            wgsl: self.wgsl,
        })
    }
}

/// `workgroups` workgroups of `workgroup_size` invocations as a two-dimensional dispatch within
/// the device's limit per dimension, its invocations countable in a `u32` (the kernels' index
/// arithmetic).
fn grid(
    op: &'static str,
    limits: &wgpu::Limits,
    workgroups: u64,
    workgroup_size: u32,
) -> Result<(u32, u32), OpError> {
    let max_dim = limits.max_compute_workgroups_per_dimension;
    let too_large = OpError::DispatchTooLarge {
        op,
        workgroups,
        limit: max_dim,
    };
    let (x, y) = dispatch_shape(workgroups.max(1), max_dim).ok_or(too_large.clone())?;
    if u64::from(x) * u64::from(y) * u64::from(workgroup_size) > u64::from(u32::MAX) {
        return Err(too_large);
    }
    Ok((x, y))
}

/// The recorded parts of one dispatch.
pub(crate) struct Dispatch {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    workgroups: (u32, u32),
    rows_per_thread: u32,
    wgsl: Arc<str>,
}

impl Dispatch {
    /// Records the dispatch into `pass`.
    pub(crate) fn encode(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.dispatch_workgroups(self.workgroups.0, self.workgroups.1, 1);
    }

    /// Workgroups in x and y.
    pub(crate) fn workgroups(&self) -> (u32, u32) {
        self.workgroups
    }

    /// Rows each invocation handles.
    pub(crate) fn rows_per_thread(&self) -> u32 {
        self.rows_per_thread
    }

    /// The kernel's WGSL.
    pub(crate) fn wgsl(&self) -> &str {
        &self.wgsl
    }
}

/// Records `dispatches`, in order, into one compute pass of `encoder` labelled `label`.
pub(crate) fn record_pass(
    encoder: &mut wgpu::CommandEncoder,
    label: &str,
    dispatches: &[Dispatch],
) {
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(label),
        timestamp_writes: None,
    });
    for d in dispatches {
        d.encode(&mut pass);
    }
}

/// Records what `record` writes into one command encoder labelled `label` and submits it,
/// inside an error scope: what wgpu refuses when the encoder is finished or submitted (a buffer
/// destroyed since it was recorded, a device out of memory) is an error about `what`, never
/// wgpu's panic.
///
/// # Errors
/// [`GpuError::Validation`] or [`GpuError::OutOfMemory`] as the scope captures them.
pub(crate) fn submit(
    gpu: &Gpu,
    label: &str,
    what: &'static str,
    record: impl FnOnce(&mut wgpu::CommandEncoder),
) -> Result<(), GpuError> {
    error_scope(gpu, what, || {
        let mut encoder = gpu
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
        record(&mut encoder);
        gpu.queue().submit([encoder.finish()]);
    })
}
