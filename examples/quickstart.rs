//! Quickstart: derive a GPU row type, upload instances, draw them with the generated vertex
//! layout into an offscreen texture, save `quickstart.png`, and read one field back.
//!
//! ```text
//! cargo run --example quickstart
//! ```
//!
//! Runs on any adapter, including the software one (`mesa-vulkan-drivers` on Debian/Ubuntu).

use std::error::Error;
use std::fs::File;
use std::io::BufWriter;

use gpudata::check::{Shader, VertexBufferInput};
use gpudata::{BufferHandle, Gpu, GpuData, GpuDataDescriptor, GpuStruct, TypedGpuData, Unorm8x4};

/// One square: its centre, half its side, its colour. `#[repr(C)]` and the packed layout make the
/// host bytes the GPU bytes, so the upload is a plain copy (`zero_copy` asserts it at compile
/// time).
#[derive(Clone, Copy, Debug, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", step_mode = "instance", zero_copy)]
struct Square {
    center: [f32; 2],
    half_size: f32,
    color: Unorm8x4,
}

const SHADER: &str = r"
struct Out {
    @builtin(position) position: vec4<f32>,
    @location(0) color: vec4<f32>,
}

// Locations 0..3 are the generated layout's: center, half_size, color (unorm8x4 arrives as
// floats in [0, 1]).
@vertex
fn vs(@builtin(vertex_index) corner: u32,
      @location(0) center: vec2<f32>,
      @location(1) half_size: f32,
      @location(2) color: vec4<f32>) -> Out {
    var corners = array<vec2<f32>, 6>(
        vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0),
        vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0));
    var out: Out;
    out.position = vec4(center + corners[corner] * half_size, 0.0, 1.0);
    out.color = color;
    return out;
}

@fragment
fn fs(in: Out) -> @location(0) vec4<f32> {
    return in.color;
}
";

const SIZE: u32 = 256;

fn main() -> Result<(), Box<dyn Error>> {
    let gpu = Gpu::headless()?;
    println!("adapter: {}", gpu.adapter_summary());

    // 1. Rows on the host: a 6 × 6 grid of coloured squares.
    let squares: Vec<Square> = (0..36u8)
        .map(|i| {
            let (x, y) = (f32::from(i % 6), f32::from(i / 6));
            Square {
                center: [-0.8 + x * 0.32, -0.8 + y * 0.32],
                half_size: 0.05 + 0.01 * f32::from(i % 7),
                color: Unorm8x4([i * 7, 255 - i * 7, 40 + i * 5, 255]),
            }
        })
        .collect();

    // 2. Upload: one owned buffer, rows at the derived stride.
    let instances = TypedGpuData::from_rows(&gpu, &squares, gpudata::data::DEFAULT_USAGE)?;
    println!(
        "uploaded {} rows of {} bytes ({} layout)",
        instances.as_data().length(),
        instances.as_data().byte_stride(),
        Square::FORMAT.layout()
    );

    // 3. Draw with the generated vertex layout.
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let target = gpu.device().create_texture(&wgpu::TextureDescriptor {
        label: Some("quickstart target"),
        size: wgpu::Extent3d {
            width: SIZE,
            height: SIZE,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    // The shader reads what the buffer feeds (locations, component counts, numeric kinds).
    let buffers = [VertexBufferInput::of::<Square>("squares")];
    Shader::parse(SHADER)?.check_vertex_inputs("vs", &buffers)?;
    let module = gpu
        .device()
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("quickstart"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
    let pipeline = gpu
        .device()
        .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("quickstart"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                buffers: &[Some(Square::vertex_buffer_layout())],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs"),
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let mut encoder = gpu
        .device()
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("quickstart"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: 0.05,
                        g: 0.05,
                        b: 0.08,
                        a: 1.0,
                    }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_vertex_buffer(0, instances.as_data().vertex_buffer_slice(&gpu)?);
        pass.draw(0..6, 0..instances.as_data().length() as u32);
    }

    // 4. Copy the image out (rows of 256 px × 4 bytes are already 256-byte aligned) and read it
    //    back through a GpuData over the copy buffer.
    let bytes_per_row = SIZE * 4;
    let pixels = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("quickstart pixels"),
        size: u64::from(bytes_per_row * SIZE),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    encoder.copy_texture_to_buffer(
        target.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &pixels,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes_per_row),
                rows_per_image: Some(SIZE),
            },
        },
        target.size(),
    );
    gpu.queue().submit([encoder.finish()]);
    let image = GpuData::new(
        BufferHandle::Shared(pixels),
        GpuDataDescriptor::new(gpudata::VertexFormat::Unorm8x4, u64::from(SIZE * SIZE)),
    )?;
    let rgba = image.read_bytes(&gpu)?;
    let mut png = png::Encoder::new(BufWriter::new(File::create("quickstart.png")?), SIZE, SIZE);
    png.set_color(png::ColorType::Rgba);
    png.set_depth(png::BitDepth::Eight);
    png.write_header()?.write_image_data(&rgba)?;
    println!("wrote quickstart.png ({SIZE} × {SIZE})");

    // 5. Read one field back through a typed child view: no copy of the rows on the GPU, one
    //    strided readback.
    let colors = instances.get_child::<square_fields::Color>();
    println!(
        "color view: {} values of {} at byte offset {}, stride {}",
        colors.length(),
        colors.format(),
        colors.byte_offset(),
        colors.byte_stride()
    );
    let decoded = colors.read_values(&gpu)?;
    let decoded = decoded.as_f32().unwrap_or_default();
    for (i, rgba) in decoded.chunks(4).take(3).enumerate() {
        println!("square {i}: rgba {rgba:.3?}");
    }
    let centers = instances.get_child::<square_fields::Center>().read(&gpu)?;
    println!("last center: {:?}", centers.last());
    Ok(())
}
