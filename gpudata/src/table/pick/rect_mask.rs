//! [`PickingTarget::rect_mask`]: the rows drawn in a rectangle of a picking target, reduced on
//! the GPU to a [`GpuMask`] over the table's rows (one bit per row, set where the row covers at
//! least one pixel of the rectangle), so a brushed rectangle selects rows without reading pixels
//! back: the mask goes straight to [`GpuTable::filter`](crate::GpuTable::filter),
//! [`GpuMask::count`] or [`compact`](crate::ops::compact).
//!
//! luma.gl's `GPUIndexPickingTarget.addRegionPass` appends every covered pixel's pair into a
//! buffer of fixed capacity (duplicates kept, an overflow flag past it); a mask needs no
//! capacity, holds each row once, and is what the table's selection operations read.

use crate::device::Gpu;
use crate::device::buffers::{create_buffer, filled_buffer};
use crate::device::scope::error_scope;
use crate::ops::GpuMask;
use crate::ops::kernels::select::predicate::mask_words;

use super::target::check_rect;
use super::{PickError, PickingTarget, RowResolver};

/// Pixels per side of a workgroup.
const TILE: u32 = 8;

/// The kernel: one invocation per pixel of the rectangle; a texel holding row id `r + 1` with
/// `r` below the row count sets bit `r % 32` of word `r / 32`. The plain load before the atomic
/// keeps the many pixels of one large row from queueing on one word.
const WGSL: &str = "struct Params { origin: vec2<u32>, size: vec2<u32>, rows: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var ids: texture_2d<u32>;
@group(0) @binding(1) var<uniform> params: Params;
@group(0) @binding(2) var<storage, read_write> mask: array<atomic<u32>>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if (any(g.xy >= params.size)) { return; }
    let texel = textureLoad(ids, vec2<i32>(params.origin + g.xy), 0).x;
    if (texel == 0u || texel > params.rows) { return; }
    let row = texel - 1u;
    let bit = 1u << (row & 31u);
    if ((atomicLoad(&mask[row >> 5u]) & bit) == 0u) {
        atomicOr(&mask[row >> 5u], bit);
    }
}
";

impl PickingTarget {
    /// The rows drawn in the `size` (width, height) rectangle whose top-left pixel is `origin`,
    /// as a mask over the `resolver`'s rows (row `i` of the mask is the table's row id `i`, over
    /// all batches in order: the mask [`GpuTable::filter`](crate::GpuTable::filter) takes),
    /// computed on the GPU: nothing is read back. A row is kept when a pixel of the rectangle
    /// holds its id: a pixel holds the row drawn there last (or the one the depth test kept),
    /// so rows hidden under others in every pixel are not kept. Texels holding an id past the resolver's rows (a target drawn
    /// from another table) keep no row; [`read_rect`](Self::read_rect) shows them.
    ///
    /// The work is queued after everything submitted before, so it sees the draws submitted
    /// before the call.
    ///
    /// # Errors
    /// [`PickError::RectOutOfRange`] for an empty rectangle or one reaching outside;
    /// [`PickError::MaskTooLarge`] when the mask's words do not fit one storage binding of the
    /// device; [`PickError::Gpu`] when the device refuses the work (another device's `gpu`
    /// too).
    pub fn rect_mask(
        &self,
        gpu: &Gpu,
        resolver: &RowResolver,
        origin: (u32, u32),
        size: (u32, u32),
    ) -> Result<GpuMask, PickError> {
        gpu.check_same_device(Some(self.device()), "reduce a picking rectangle")?;
        check_rect(self, origin, size)?;
        let rows = resolver.rows();
        let ids = u32::try_from(rows).map_err(|_| PickError::TooManyRows { rows })?;
        // Whole workgroups of the mask kernel's words, as every mask has; at least 16 bytes.
        let bytes = mask_words(rows).saturating_mul(4).max(16);
        let limits = gpu.limits();
        let limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        if bytes > limit {
            return Err(PickError::MaskTooLarge { rows, bytes, limit });
        }
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        // Zeroed by wgpu before its first use, as every new buffer is.
        let words = create_buffer(gpu, bytes, usage, "gpudata picking rectangle mask")?;
        let pipeline =
            gpu.pipelines()
                .compute(gpu, "gpudata picking rectangle mask", WGSL, "main")?;
        let params: Vec<u8> = [origin.0, origin.1, size.0, size.1, ids, 0, 0, 0]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        error_scope(gpu, "reduce a picking rectangle", || {
            let device = gpu.device();
            let uniform = filled_buffer(
                gpu,
                "gpudata picking rectangle",
                &params,
                wgpu::BufferUsages::UNIFORM,
            );
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("gpudata picking rectangle mask"),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(self.view()),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: uniform.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: words.as_entire_binding(),
                    },
                ],
            });
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("gpudata picking rectangle mask"),
            });
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("gpudata picking rectangle mask"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &bind_group, &[]);
                // Sides are at most the texture's (≤ max_texture_dimension_2d), so a side's
                // workgroups stay far below the dispatch limit of 65,535.
                pass.dispatch_workgroups(size.0.div_ceil(TILE), size.1.div_ceil(TILE), 1);
            }
            gpu.queue().submit([encoder.finish()]);
        })?;
        GpuMask::from_buffer(gpu, words, rows).map_err(PickError::Mask)
    }
}
