//! Helpers shared by the table tests: one device per test binary, uploads, liveness checks.
#![allow(
    dead_code,
    reason = "each test binary uses a different subset of the helpers"
)]

use std::sync::OnceLock;

use gpudata::{Gpu, GpuData, GpuDataDescriptor, GpuDataFormat, VertexFormat};

/// Usage of the test data.
pub const USAGE: wgpu::BufferUsages = gpudata::data::DEFAULT_USAGE;

/// The test binary's device. Tests never skip: without an adapter this panics with
/// [`Gpu::headless`]'s error, which names `mesa-vulkan-drivers`.
pub fn gpu() -> Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| Gpu::headless().unwrap_or_else(|e| panic!("{e}")))
        .clone()
}

/// Runs `f` inside a validation error scope and returns wgpu's error message, if any.
pub fn validation_error<R>(gpu: &Gpu, f: impl FnOnce() -> R) -> (R, Option<String>) {
    let scope = gpu.device().push_error_scope(wgpu::ErrorFilter::Validation);
    let out = f();
    let error = pollster::block_on(scope.pop()).map(|e| e.to_string());
    (out, error)
}

/// Whether `data`'s buffer can still be read (a destroyed buffer makes wgpu report an error).
pub fn alive(gpu: &Gpu, data: &GpuData) -> bool {
    let (result, error) = validation_error(gpu, || data.read_bytes(gpu));
    match (&result, &error) {
        (Ok(_), None) => true,
        (_, Some(message)) => {
            assert!(
                message.contains("destroyed"),
                "unexpected wgpu error: {message}"
            );
            false
        }
        (Err(e), None) => panic!("readback failed without a wgpu error: {e}"),
    }
}

/// `values` of `format` in a new owned buffer.
pub fn column<P: bytemuck::Pod>(gpu: &Gpu, format: VertexFormat, values: &[P]) -> GpuData {
    GpuData::from_slice(gpu, format, values, USAGE).unwrap()
}

/// `rows` zeroed rows of `format`.
pub fn zeroed(gpu: &Gpu, format: impl Into<GpuDataFormat>, rows: u64) -> GpuData {
    GpuData::zeroed(gpu, format, rows, USAGE).unwrap()
}

/// `bytes` described by `descriptor`, in a new owned buffer.
pub fn bytes(gpu: &Gpu, bytes: &[u8], descriptor: GpuDataDescriptor) -> GpuData {
    GpuData::from_bytes(gpu, bytes, descriptor, USAGE).unwrap()
}

/// Little-endian bytes of `f32`s.
pub fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Copies `len` bytes of `buffer` from `offset` to the host.
pub fn read_buffer(gpu: &Gpu, buffer: &wgpu::Buffer, offset: u64, len: u64) -> Vec<u8> {
    let staging = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("test readback"),
        size: len,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu
        .device()
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, Some(len));
    gpu.queue().submit([encoder.finish()]);
    map_read(gpu, &staging, len)
}

fn map_read(gpu: &Gpu, staging: &wgpu::Buffer, len: u64) -> Vec<u8> {
    staging.map_async(wgpu::MapMode::Read, ..len, |r| {
        r.expect("map readback buffer")
    });
    gpu.wait_idle().unwrap();
    let view = staging.get_mapped_range(..len).unwrap();
    let out = view.to_vec();
    drop(view);
    staging.unmap();
    out
}

/// Renders points with `shader` (entry points `vs_main` and `fs_main`, the fragment writing
/// `vec4<u32>` to `targets` `rgba32uint` attachments of `width` × 1 pixels, cleared to
/// `u32::MAX`), `draw` recording the draws, and returns each target's pixels.
pub fn render_capture(
    gpu: &Gpu,
    shader: &str,
    layouts: &[Option<wgpu::VertexBufferLayout<'_>>],
    targets: usize,
    width: u32,
    draw: impl FnOnce(&mut wgpu::RenderPass<'_>),
) -> Vec<Vec<[u32; 4]>> {
    let device = gpu.device();
    let (module, error) = validation_error(gpu, || {
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("capture"),
            source: wgpu::ShaderSource::Wgsl(shader.into()),
        })
    });
    assert!(error.is_none(), "invalid shader: {error:?}\n{shader}");
    let format = wgpu::TextureFormat::Rgba32Uint;
    let color_targets: Vec<Option<wgpu::ColorTargetState>> = (0..targets)
        .map(|_| Some(wgpu::ColorTargetState::from(format)))
        .collect();
    let (pipeline, error) = validation_error(gpu, || {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("capture"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                buffers: layouts,
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::PointList,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_main"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                targets: &color_targets,
            }),
            multiview_mask: None,
            cache: None,
        })
    });
    assert!(error.is_none(), "invalid pipeline: {error:?}");
    let textures: Vec<wgpu::Texture> = (0..targets)
        .map(|_| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some("capture target"),
                size: wgpu::Extent3d {
                    width,
                    height: 1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            })
        })
        .collect();
    let views: Vec<wgpu::TextureView> = textures
        .iter()
        .map(|t| t.create_view(&wgpu::TextureViewDescriptor::default()))
        .collect();
    let bytes_per_row = (u64::from(width) * 16).next_multiple_of(256);
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("capture readback"),
        size: bytes_per_row * targets as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let (_, error) = validation_error(gpu, || {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let attachments: Vec<Option<wgpu::RenderPassColorAttachment<'_>>> = views
                .iter()
                .map(|view| {
                    Some(wgpu::RenderPassColorAttachment {
                        view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Clear(wgpu::Color {
                                r: f64::from(u32::MAX),
                                g: f64::from(u32::MAX),
                                b: f64::from(u32::MAX),
                                a: f64::from(u32::MAX),
                            }),
                            store: wgpu::StoreOp::Store,
                        },
                    })
                })
                .collect();
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("capture"),
                color_attachments: &attachments,
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&pipeline);
            draw(&mut pass);
        }
        for (i, texture) in textures.iter().enumerate() {
            encoder.copy_texture_to_buffer(
                texture.as_image_copy(),
                wgpu::TexelCopyBufferInfo {
                    buffer: &readback,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: bytes_per_row * i as u64,
                        bytes_per_row: Some(bytes_per_row as u32),
                        rows_per_image: None,
                    },
                },
                wgpu::Extent3d {
                    width,
                    height: 1,
                    depth_or_array_layers: 1,
                },
            );
        }
        gpu.queue().submit([encoder.finish()]);
    });
    assert!(error.is_none(), "render failed: {error:?}");
    let bytes = map_read(gpu, &readback, bytes_per_row * targets as u64);
    (0..targets)
        .map(|t| {
            let row = &bytes[t * bytes_per_row as usize..];
            (0..width as usize)
                .map(|x| {
                    let px: &[u8] = &row[x * 16..x * 16 + 16];
                    let words: Vec<u32> = px
                        .chunks_exact(4)
                        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                        .collect();
                    [words[0], words[1], words[2], words[3]]
                })
                .collect()
        })
        .collect()
}

/// Runs a compute shader (entry `main`, `@workgroup_size(64)`) over `invocations` with the
/// bind group built from `layout_entries` / `entries` plus a read-write `array<u32>` output of
/// `out_words` words at binding `out_binding`, and returns the output.
pub fn compute_capture(
    gpu: &Gpu,
    shader: &str,
    mut layout_entries: Vec<wgpu::BindGroupLayoutEntry>,
    entries: Vec<wgpu::BindGroupEntry<'_>>,
    out_binding: u32,
    out_words: u64,
    invocations: u32,
) -> Vec<u32> {
    let device = gpu.device();
    let (module, error) = validation_error(gpu, || {
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("compute capture"),
            source: wgpu::ShaderSource::Wgsl(shader.into()),
        })
    });
    assert!(error.is_none(), "invalid shader: {error:?}\n{shader}");
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("compute capture out"),
        size: out_words * 4,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    layout_entries.push(wgpu::BindGroupLayoutEntry {
        binding: out_binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: false },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    });
    let mut entries: Vec<wgpu::BindGroupEntry<'_>> = entries.into_iter().collect();
    entries.push(wgpu::BindGroupEntry {
        binding: out_binding,
        resource: out.as_entire_binding(),
    });
    let (_, error) = validation_error(gpu, || {
        let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("compute capture"),
            entries: &layout_entries,
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("compute capture"),
            bind_group_layouts: &[Some(&bgl)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("compute capture"),
            layout: Some(&layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("compute capture"),
            layout: &bgl,
            entries: &entries,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(invocations.div_ceil(64), 1, 1);
        }
        gpu.queue().submit([encoder.finish()]);
    });
    assert!(error.is_none(), "compute failed: {error:?}");
    read_buffer(gpu, &out, 0, out_words * 4)
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}
