//! [`PickingTarget`]: the `r32uint` texture rows are drawn into with their ids, and the pixels
//! and rectangles read back from it.

use std::collections::BTreeSet;

use crate::device::Gpu;
use crate::device::buffers::create_buffer;
use crate::device::pipelines::render_pipeline;
use crate::device::scope::error_scope;
use crate::device::transfer::{WaitMode, read_range};

use super::{PickError, PickedRow, RowResolver};

/// What a texel of a [`PickingTarget`] holds where no row was drawn: the clear value. A row
/// writes its row id plus one, so row 0 is `1` and never reads as "no row".
pub const NO_ROW: u32 = 0;

/// An `r32uint` render target of row ids, `width × height` pixels: a pass clears it to
/// [`NO_ROW`] ([`color_attachment`](Self::color_attachment)) and draws each row's
/// `gpudata_pick_id` ([`PickOffsets::wgsl`](super::PickOffsets::wgsl)); a pixel or a rectangle
/// is then read back ([`read_pixel`](Self::read_pixel), [`read_rect`](Self::read_rect)) and
/// resolved by a [`RowResolver`]. Pixel `(0, 0)` is the top-left one, as in wgpu's
/// framebuffer coordinates.
#[derive(Debug)]
pub struct PickingTarget {
    device: Gpu,
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    width: u32,
    height: u32,
}

impl PickingTarget {
    /// The texture format: one `u32` per pixel.
    pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Uint;

    /// A target of `width × height` pixels (render attachment, copy source and sampled).
    ///
    /// # Errors
    /// [`PickError::TargetSize`] for a side of 0 or past `max_texture_dimension_2d`;
    /// [`PickError::Gpu`] when the device refuses the texture.
    pub fn new(gpu: &Gpu, width: u32, height: u32) -> Result<PickingTarget, PickError> {
        let max = gpu.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(PickError::TargetSize { width, height, max });
        }
        gpu.check_lost("create a picking target")?;
        let texture = error_scope(gpu, "create a picking target", || {
            gpu.device().create_texture(&wgpu::TextureDescriptor {
                label: Some("gpudata picking target"),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: Self::FORMAT,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                    | wgpu::TextureUsages::COPY_SRC
                    | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
        })?;
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Ok(PickingTarget {
            device: gpu.clone(),
            texture,
            view,
            width,
            height,
        })
    }

    /// The device the texture was made on.
    pub(crate) fn device(&self) -> &Gpu {
        &self.device
    }

    /// Pixels per row.
    #[must_use]
    pub const fn width(&self) -> u32 {
        self.width
    }

    /// Rows of pixels.
    #[must_use]
    pub const fn height(&self) -> u32 {
        self.height
    }

    /// The texture.
    #[must_use]
    pub fn texture(&self) -> &wgpu::Texture {
        &self.texture
    }

    /// The texture's view (the whole texture).
    #[must_use]
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// A color attachment that clears the target to [`NO_ROW`] and stores what is drawn.
    #[must_use]
    pub fn color_attachment(&self) -> wgpu::RenderPassColorAttachment<'_> {
        wgpu::RenderPassColorAttachment {
            view: &self.view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color {
                    r: f64::from(NO_ROW),
                    g: 0.0,
                    b: 0.0,
                    a: 0.0,
                }),
                store: wgpu::StoreOp::Store,
            },
        }
    }

    /// The pipeline's color target for it: `r32uint`, no blending (integer targets have none;
    /// the last fragment drawn at a pixel wins, or the nearest one with a depth test).
    #[must_use]
    pub fn color_target() -> wgpu::ColorTargetState {
        wgpu::ColorTargetState {
            format: Self::FORMAT,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
        }
    }

    /// A render pipeline writing ids into a target: `wgsl`'s `vs` and `fs` entry points
    /// (`fs` returning `@location(0) u32`, e.g. `gpudata_pick_id`'s value), `bind_group_layouts`
    /// in group order (one of them [`PickOffsets::bind_group_layout`](super::PickOffsets::bind_group_layout)),
    /// vertex `buffers` (a table's [`TableRenderBindings::vertex_layouts`](crate::table::TableRenderBindings::vertex_layouts)),
    /// `topology`, [`color_target`](Self::color_target), no depth test, one sample.
    ///
    /// # Errors
    /// [`PickError::Gpu`] when the device refuses the shader or the pipeline (WGSL that does
    /// not parse or validate, a layout the shader does not match).
    pub fn pipeline(
        gpu: &Gpu,
        wgsl: &str,
        bind_group_layouts: &[&wgpu::BindGroupLayout],
        buffers: &[Option<wgpu::VertexBufferLayout<'_>>],
        topology: wgpu::PrimitiveTopology,
    ) -> Result<wgpu::RenderPipeline, PickError> {
        gpu.check_lost("create a picking pipeline")?;
        Ok(render_pipeline(
            gpu,
            "create a picking pipeline",
            wgsl,
            bind_group_layouts,
            buffers,
            topology,
            Self::color_target(),
        )?)
    }

    /// The row id drawn at pixel `(x, y)`, or `None` where no row was drawn.
    ///
    /// # Errors
    /// [`PickError::PixelOutOfRange`]; [`PickError::Gpu`] when the copy or readback fails.
    pub fn read_pixel(&self, gpu: &Gpu, x: u32, y: u32) -> Result<Option<u64>, PickError> {
        if x >= self.width || y >= self.height {
            return Err(PickError::PixelOutOfRange {
                x,
                y,
                width: self.width,
                height: self.height,
            });
        }
        let rect = self.read_rect(gpu, x, y, 1, 1)?;
        Ok(rect.row_at(0, 0))
    }

    /// The texels of the `width × height` rectangle whose top-left pixel is `(x, y)`.
    ///
    /// # Errors
    /// [`PickError::RectOutOfRange`] for an empty rectangle or one reaching outside;
    /// [`PickError::Gpu`] when the copy or readback fails (another device's `gpu` too).
    pub fn read_rect(
        &self,
        gpu: &Gpu,
        x: u32,
        y: u32,
        width: u32,
        height: u32,
    ) -> Result<PickRect, PickError> {
        gpu.check_same_device(Some(&self.device), "read back a picking target")?;
        check_rect(self, (x, y), (width, height))?;
        // Rows of the copy are 256-byte aligned; the texture's sides fit u32, so these do too.
        let align = u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let pitch = (u64::from(width) * 4).div_ceil(align) * align;
        let size = pitch * u64::from(height);
        let buffer = create_buffer(
            gpu,
            size,
            wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            "gpudata picking readback",
        )?;
        error_scope(gpu, "copy a picking target", || {
            let mut encoder =
                gpu.device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("gpudata picking readback"),
                    });
            encoder.copy_texture_to_buffer(
                wgpu::TexelCopyTextureInfo {
                    texture: &self.texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d { x, y, z: 0 },
                    aspect: wgpu::TextureAspect::All,
                },
                wgpu::TexelCopyBufferInfo {
                    buffer: &buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(pitch as u32),
                        rows_per_image: Some(height),
                    },
                },
                wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
            );
            gpu.queue().submit([encoder.finish()]);
        })?;
        let bytes = pollster::block_on(read_range(
            gpu,
            &buffer,
            0,
            size,
            "read back a picking target",
            WaitMode::Block,
        ));
        buffer.destroy();
        let bytes = bytes?;
        let texels = bytes
            .chunks_exact(pitch as usize)
            .flat_map(|row| {
                row[..width as usize * 4]
                    .chunks_exact(4)
                    .map(|t| u32::from_le_bytes([t[0], t[1], t[2], t[3]]))
            })
            .collect();
        Ok(PickRect {
            x,
            y,
            width,
            height,
            texels,
        })
    }

    /// The row at pixel `(x, y)`, resolved: [`read_pixel`](Self::read_pixel) then
    /// [`RowResolver::resolve`].
    ///
    /// # Errors
    /// As both.
    pub fn pick(
        &self,
        gpu: &Gpu,
        resolver: &RowResolver,
        x: u32,
        y: u32,
    ) -> Result<Option<PickedRow>, PickError> {
        self.read_pixel(gpu, x, y)?
            .map(|row| resolver.resolve(row))
            .transpose()
    }

    /// The distinct rows drawn in a rectangle, resolved, by row id:
    /// [`read_rect`](Self::read_rect) then [`RowResolver::resolve`].
    ///
    /// # Errors
    /// As both.
    pub fn pick_rect(
        &self,
        gpu: &Gpu,
        resolver: &RowResolver,
        origin: (u32, u32),
        size: (u32, u32),
    ) -> Result<Vec<PickedRow>, PickError> {
        let rect = self.read_rect(gpu, origin.0, origin.1, size.0, size.1)?;
        resolver.resolve_all(rect.rows())
    }
}

/// Refuses a rectangle of no pixels or one reaching outside `target`.
pub(super) fn check_rect(
    target: &PickingTarget,
    (x, y): (u32, u32),
    (width, height): (u32, u32),
) -> Result<(), PickError> {
    let inside = |start: u32, len: u32, side: u32| {
        len > 0 && start.checked_add(len).is_some_and(|end| end <= side)
    };
    if inside(x, width, target.width) && inside(y, height, target.height) {
        return Ok(());
    }
    Err(PickError::RectOutOfRange {
        x,
        y,
        rect_width: width,
        rect_height: height,
        width: target.width,
        height: target.height,
    })
}

/// A rectangle of a [`PickingTarget`] read back: its texels row by row (top row first), each
/// a row id plus one or [`NO_ROW`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PickRect {
    /// The target column of the left edge.
    pub x: u32,
    /// The target row of the top edge.
    pub y: u32,
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// `width × height` texels, row by row, as stored.
    pub texels: Vec<u32>,
}

impl PickRect {
    /// The row id at `(dx, dy)` from the rectangle's top-left pixel; `None` where no row was
    /// drawn or outside the rectangle.
    #[must_use]
    pub fn row_at(&self, dx: u32, dy: u32) -> Option<u64> {
        if dx >= self.width || dy >= self.height {
            return None;
        }
        let texel = self.texels[dy as usize * self.width as usize + dx as usize];
        texel.checked_sub(1).map(u64::from)
    }

    /// The distinct row ids drawn in the rectangle, ascending.
    #[must_use]
    pub fn rows(&self) -> BTreeSet<u64> {
        self.texels
            .iter()
            .filter_map(|t| t.checked_sub(1).map(u64::from))
            .collect()
    }

    /// Pixels where a row was drawn.
    #[must_use]
    pub fn covered(&self) -> usize {
        self.texels.iter().filter(|&&t| t != NO_ROW).count()
    }
}
