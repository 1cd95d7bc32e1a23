//! [`PickOffsets`]: every batch's first row id in one immutable uniform buffer, one slot per
//! batch at a multiple of the device's `min_uniform_buffer_offset_alignment`, chosen per draw
//! by a dynamic offset.

use std::num::NonZeroU64;
use std::ops::Range;

use crate::device::Gpu;
use crate::device::buffers::create_filled_buffer;
use crate::device::scope::error_scope;
use crate::table::{BatchDraw, TableRenderBindings};

use super::{PickError, RowResolver};

/// Bytes of one slot's value: `first_row`, `rows`, `batch` and a padding word, as `u32`s.
const SLOT_BYTES: u64 = 16;

/// The WGSL struct name of a slot.
const STRUCT: &str = "GpudataPickBatch";

/// Every batch's first row id and row count in one uniform buffer, one slot per batch of the
/// table (empty ones included), each at a multiple of the device's
/// `min_uniform_buffer_offset_alignment`. A draw of batch `b` binds the one
/// [`bind_group`](Self::bind_group) with the dynamic offset [`offset`](Self::offset)`(b)`, and the
/// shader's [`gpudata_pick_id`](Self::wgsl) turns the row being drawn into its id.
///
/// # Why every batch sees its own offset
///
/// The buffer is filled once, when it is made (mapped at creation), and has no `COPY_DST`
/// usage: nothing, not even `queue.write_buffer`, can change it afterwards (wgpu refuses the
/// write). What differs between the draws of two batches is only the dynamic offset, which
/// is recorded into the render pass with the draw itself. So any number of batches drawn in
/// one pass, one encoder and one submission each read their own slot. The failure this rules
/// out is luma.gl's: writing one uniform with `queue.write_buffer` before each batch's draw,
/// when all the writes run at submission, before any draw, so every draw reads the last
/// batch's value (luma.gl PR 3169's review).
#[derive(Debug)]
pub struct PickOffsets {
    device: Gpu,
    buffer: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    stride: u64,
    resolver: RowResolver,
}

impl PickOffsets {
    /// The slots of `resolver`'s batches (`resolver` is kept: [`resolver`](Self::resolver)).
    ///
    /// # Errors
    /// [`PickError::OffsetOverflow`] when the last slot's offset passes `u32::MAX`;
    /// [`PickError::Gpu`] when the device refuses the buffer or bind group.
    pub fn new(gpu: &Gpu, resolver: &RowResolver) -> Result<PickOffsets, PickError> {
        let align = u64::from(gpu.limits().min_uniform_buffer_offset_alignment).max(1);
        let stride = SLOT_BYTES.div_ceil(align) * align;
        let batches = resolver.batches();
        let overflow = PickError::OffsetOverflow { batches, stride };
        let slots = batches.max(1) as u64;
        let last = (slots - 1).checked_mul(stride).ok_or(overflow.clone())?;
        if last > u64::from(u32::MAX) {
            return Err(overflow);
        }
        let size = last + SLOT_BYTES;
        let buffer = create_filled_buffer(
            gpu,
            size,
            wgpu::BufferUsages::UNIFORM,
            "gpudata pick offsets",
            |view| {
                let mut bytes = vec![0u8; size as usize];
                for batch in 0..batches {
                    let (first, rows) = resolver.batch_rows(batch)?;
                    // `RowResolver` holds at most u32::MAX rows in all.
                    let words = [first as u32, rows as u32, batch as u32, 0];
                    let at = batch * stride as usize;
                    bytes[at..at + SLOT_BYTES as usize]
                        .copy_from_slice(bytemuck::cast_slice(&words));
                }
                view.copy_from_slice(&bytes);
                Ok::<(), PickError>(())
            },
        )?;
        let layout = Self::bind_group_layout(gpu)?;
        let bind_group = error_scope(gpu, "create the pick offsets' bind group", || {
            gpu.device().create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("gpudata pick offsets"),
                layout: &layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(Self::binding_of(&buffer)),
                }],
            })
        })?;
        Ok(PickOffsets {
            device: gpu.clone(),
            buffer,
            bind_group,
            stride,
            resolver: resolver.clone(),
        })
    }

    /// The resolver the slots were made from: it resolves what draws through them wrote.
    #[must_use]
    pub fn resolver(&self) -> &RowResolver {
        &self.resolver
    }

    /// Bytes between slots: 16 rounded up to `min_uniform_buffer_offset_alignment`.
    #[must_use]
    pub fn stride(&self) -> u64 {
        self.stride
    }

    /// The dynamic offset of `batch`'s slot, for `set_bind_group(.., &[offset])`.
    ///
    /// # Errors
    /// [`PickError::BatchOutOfRange`].
    pub fn offset(&self, batch: usize) -> Result<u32, PickError> {
        self.resolver.batch_rows(batch)?;
        // `new` checked that the last slot's offset fits in u32.
        Ok((batch as u64 * self.stride) as u32)
    }

    /// The buffer (`UNIFORM` only: it cannot be written after it is made).
    #[must_use]
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// The `min_binding_size` of the binding: one slot, 16 bytes.
    #[must_use]
    pub fn min_binding_size() -> NonZeroU64 {
        NonZeroU64::MIN.saturating_add(SLOT_BYTES - 1)
    }

    /// A bind group layout entry for the slots at `binding`: a uniform buffer with a dynamic
    /// offset, seen by `visibility`, [`min_binding_size`](Self::min_binding_size) bytes. For a
    /// group of your own that holds other bindings too; bind [`binding`](Self::binding) there.
    #[must_use]
    pub fn layout_entry(
        binding: u32,
        visibility: wgpu::ShaderStages,
    ) -> wgpu::BindGroupLayoutEntry {
        wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: true,
                min_binding_size: Some(Self::min_binding_size()),
            },
            count: None,
        }
    }

    /// The binding of one slot (offset 0, 16 bytes): the dynamic offset picks the batch.
    #[must_use]
    pub fn binding(&self) -> wgpu::BufferBinding<'_> {
        Self::binding_of(&self.buffer)
    }

    fn binding_of(buffer: &wgpu::Buffer) -> wgpu::BufferBinding<'_> {
        wgpu::BufferBinding {
            buffer,
            offset: 0,
            size: Some(Self::min_binding_size()),
        }
    }

    /// The layout of [`bind_group`](Self::bind_group): the slots alone at binding 0, seen by the
    /// vertex and fragment stages (made once per device). Put it at the group index your
    /// pipeline layout gives [`wgsl`](Self::wgsl).
    ///
    /// # Errors
    /// [`PickError::Gpu`] when the device refuses it.
    pub fn bind_group_layout(gpu: &Gpu) -> Result<wgpu::BindGroupLayout, PickError> {
        let entry =
            Self::layout_entry(0, wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT);
        Ok(gpu
            .layouts()
            .layout(gpu, "gpudata pick offsets", &[entry])?)
    }

    /// The bind group of the slots alone, on [`bind_group_layout`](Self::bind_group_layout).
    #[must_use]
    pub fn bind_group(&self) -> &wgpu::BindGroup {
        &self.bind_group
    }

    /// The WGSL the shader declares to write ids: the slot's struct, the uniform at
    /// `@group(group) @binding(binding)`, and `fn gpudata_pick_id(row: u32) -> u32`, the value
    /// to write to the `r32uint` target for row `row` of the batch being drawn (its row id plus
    /// one; 0, "no row", for a row past the batch's rows). `row` is the draw's vertex index (or
    /// the index buffer's value) for vertex-stepped rows, its instance index for
    /// instance-stepped ones. Pass it to the fragment stage `@interpolate(flat)`.
    ///
    /// ```wgsl
    /// struct GpudataPickBatch { first_row: u32, rows: u32, batch: u32, pad: u32, }
    /// @group(0) @binding(0) var<uniform> gpudata_pick: GpudataPickBatch;
    /// fn gpudata_pick_id(row: u32) -> u32 { ... }
    /// ```
    #[must_use]
    pub fn wgsl(group: u32, binding: u32) -> String {
        format!(
            "struct {STRUCT} {{
    first_row: u32,
    rows: u32,
    batch: u32,
    pad: u32,
}}

@group({group}) @binding({binding}) var<uniform> gpudata_pick: {STRUCT};

// The picking id of row `row` of the batch being drawn: its row id over the table plus one;
// 0 (no row) past the batch's rows.
fn gpudata_pick_id(row: u32) -> u32 {{
    if (row >= gpudata_pick.rows) {{
        return 0u;
    }}
    return gpudata_pick.first_row + row + 1u;
}}
"
        )
    }

    /// Binds [`bind_group`](Self::bind_group) at `group` with `batch`'s slot.
    ///
    /// # Errors
    /// [`PickError::BatchOutOfRange`].
    pub fn set_batch(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        group: u32,
        batch: usize,
    ) -> Result<(), PickError> {
        let offset = self.offset(batch)?;
        pass.set_bind_group(group, &self.bind_group, &[offset]);
        Ok(())
    }

    /// Draws every batch of `bindings` with its slot: per batch, [`set_batch`](Self::set_batch)
    /// at `group`, then `draw` (which sets the batch's buffers and draws, e.g.
    /// [`BatchDraw::draw_rows`]). All in the caller's one pass.
    ///
    /// # Errors
    /// [`PickError::BatchOutOfRange`] for bindings of another table; `draw`'s error.
    pub fn draw_batches<E: Into<PickError>>(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        group: u32,
        bindings: &TableRenderBindings,
        mut draw: impl FnMut(&mut wgpu::RenderPass<'_>, &BatchDraw) -> Result<(), E>,
    ) -> Result<(), PickError> {
        for batch in bindings.batches() {
            self.set_batch(pass, group, batch.batch())?;
            draw(pass, batch).map_err(Into::into)?;
        }
        Ok(())
    }

    /// [`draw_batches`](Self::draw_batches) drawing each batch's rows as vertices
    /// ([`BatchDraw::draw_rows`]), `instances` each.
    ///
    /// # Errors
    /// As [`draw_batches`](Self::draw_batches); [`PickError::Table`] for a batch of more rows
    /// than a draw counts.
    pub fn draw_rows(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        group: u32,
        bindings: &TableRenderBindings,
        instances: Range<u32>,
    ) -> Result<(), PickError> {
        self.draw_batches(pass, group, bindings, |pass, batch| {
            batch.draw_rows(pass, instances.clone())
        })
    }

    /// The device the buffer was made on.
    pub(crate) fn device(&self) -> &Gpu {
        &self.device
    }
}
