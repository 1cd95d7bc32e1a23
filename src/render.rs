//! Offscreen rendering for the examples: a color target, its readback and PNG output.

use std::path::Path;

use gpudata::Gpu;

/// The color format every example renders to.
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// An offscreen RGBA8 color target.
pub struct Offscreen {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    width: u32,
    height: u32,
}

impl Offscreen {
    /// A `width` × `height` target that can be rendered to and copied out.
    #[must_use]
    pub fn new(gpu: &Gpu, width: u32, height: u32) -> Offscreen {
        let texture = gpu.device().create_texture(&wgpu::TextureDescriptor {
            label: Some("offscreen color"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: COLOR_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Offscreen {
            texture,
            view,
            width,
            height,
        }
    }

    /// The view to attach as a render pass color attachment.
    #[must_use]
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// A color attachment that clears to `clear` and stores the result.
    #[must_use]
    pub fn attachment(&self, clear: wgpu::Color) -> wgpu::RenderPassColorAttachment<'_> {
        wgpu::RenderPassColorAttachment {
            view: &self.view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(clear),
                store: wgpu::StoreOp::Store,
            },
        }
    }

    /// Records one render pass into the target, cleared to `clear` first, and submits it.
    ///
    /// # Errors
    /// The error `record` returns; nothing is submitted then.
    pub fn render<E>(
        &self,
        gpu: &Gpu,
        label: &str,
        clear: wgpu::Color,
        record: impl FnOnce(&mut wgpu::RenderPass<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut encoder = gpu
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some(label),
                color_attachments: &[Some(self.attachment(clear))],
                ..Default::default()
            });
            record(&mut pass)?;
        }
        gpu.queue().submit([encoder.finish()]);
        Ok(())
    }

    /// Copies the target to the host as tightly packed RGBA8 rows.
    ///
    /// # Errors
    /// When mapping the readback buffer fails.
    pub fn read_rgba(&self, gpu: &Gpu) -> Result<Vec<u8>, String> {
        let unpadded = self.width * 4;
        let padded = unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("offscreen readback"),
            size: u64::from(padded) * u64::from(self.height),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = gpu
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        encoder.copy_texture_to_buffer(
            self.texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded),
                    rows_per_image: None,
                },
            },
            self.texture.size(),
        );
        gpu.queue().submit([encoder.finish()]);
        let slice = buffer.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        gpu.device()
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| e.to_string())?;
        rx.recv()
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
        let mapped = slice.get_mapped_range().map_err(|e| e.to_string())?;
        let mut rgba = Vec::with_capacity((unpadded * self.height) as usize);
        for row in mapped.chunks(padded as usize) {
            rgba.extend_from_slice(&row[..unpadded as usize]);
        }
        drop(mapped);
        buffer.unmap();
        Ok(rgba)
    }

    /// Reads the target back and writes it as a PNG file.
    ///
    /// # Errors
    /// When reading back or writing the file fails.
    pub fn save_png(&self, gpu: &Gpu, path: impl AsRef<Path>) -> Result<Vec<u8>, String> {
        let rgba = self.read_rgba(gpu)?;
        write_png(path, self.width, self.height, &rgba)?;
        Ok(rgba)
    }
}

/// Writes RGBA8 pixels as a PNG file.
///
/// # Errors
/// When the file cannot be created or encoded.
pub fn write_png(
    path: impl AsRef<Path>,
    width: u32,
    height: u32,
    rgba: &[u8],
) -> Result<(), String> {
    let file = std::fs::File::create(path.as_ref())
        .map_err(|e| format!("cannot create {}: {e}", path.as_ref().display()))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgba).map_err(|e| e.to_string())
}

/// Creates a render pipeline drawing `buffers` with `wgsl`'s `vs` and `fs` entry points into
/// [`COLOR_FORMAT`] with alpha blending.
#[must_use]
pub fn pipeline(
    gpu: &Gpu,
    wgsl: &str,
    buffers: &[Option<wgpu::VertexBufferLayout<'_>>],
    topology: wgpu::PrimitiveTopology,
) -> wgpu::RenderPipeline {
    let module = gpu
        .device()
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        });
    gpu.device()
        .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: None,
            layout: None,
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
                targets: &[Some(wgpu::ColorTargetState {
                    format: COLOR_FORMAT,
                    blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        })
}
