//! What the device sees: shader modules checked by wgpu, a vertex shader declaring a format's
//! attributes, point draws that write what vertex fetch delivered, render and compute captures,
//! and buffer readback.

use gpudata::Gpu;

use super::device::validation_error;

/// A shader module from WGSL text, failing the test with wgpu's message when it is invalid.
pub fn shader(gpu: &Gpu, label: &str, wgsl: &str) -> wgpu::ShaderModule {
    let (module, error) = validation_error(gpu, || {
        gpu.device()
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(wgsl.into()),
            })
    });
    if let Some(error) = error {
        panic!("shader `{label}` is invalid: {error}\n{wgsl}");
    }
    module
}

/// A vertex + fragment shader (`vs`, `fs`) declaring one `@location(i)` input per field of
/// `format`, typed as vertex fetch delivers it; it draws nothing useful, it only makes a pipeline
/// validate the format's vertex layout against real shader inputs.
pub fn attribute_probe_shader(format: &gpudata::GpuDataStructFormat) -> String {
    let inputs: Vec<String> = format
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| format!("@location({i}) a{i}: {}", f.format().vertex_input_type()))
        .collect();
    format!(
        "@vertex fn vs({}) -> @builtin(position) vec4<f32> {{ return vec4<f32>(0.0, 0.0, 0.0, 1.0); }}\n\
         @fragment fn fs() -> @location(0) vec4<f32> {{ return vec4<f32>(1.0); }}\n",
        inputs.join(", ")
    )
}

/// A vertex + fragment shader (`vs`, `fs`) that hands what vertex fetch delivered to a storage
/// buffer: the vertex stage (inputs `params`, among them the builtin `index`, e.g.
/// `@builtin(vertex_index) vi: u32`) runs `prelude`, evaluates the `u32` expressions `scalars`,
/// packs them into flat `vec4<u32>` varyings and puts point `index` of `points` on its own pixel;
/// the fragment stage writes them to `out[index * scalars.len() + k]`. Draw it with
/// [`draw_points`] or [`draw_instanced_points`].
pub fn fetch_probe_shader(
    params: &[String],
    index: &str,
    points: u32,
    prelude: &str,
    scalars: &[String],
) -> String {
    let count = scalars.len();
    let mut padded = scalars.to_vec();
    while !padded.len().is_multiple_of(4) {
        padded.push("0u".to_owned());
    }
    let varyings = padded.len() / 4;
    let mut wgsl = String::from(
        "struct VsOut {\n    @builtin(position) pos: vec4<f32>,\n    @location(0) @interpolate(flat) idx: u32,\n",
    );
    for v in 0..varyings {
        wgsl += &format!(
            "    @location({}) @interpolate(flat) v{v}: vec4<u32>,\n",
            v + 1
        );
    }
    wgsl += "}\n@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n";
    wgsl += &format!(
        "@vertex fn vs({}) -> VsOut {{\n    var o: VsOut;\n",
        params.join(", ")
    );
    wgsl += prelude;
    wgsl += &format!(
        "    o.pos = vec4<f32>((f32({index}) + 0.5) / {points}.0 * 2.0 - 1.0, 0.0, 0.0, 1.0);\n    o.idx = {index};\n"
    );
    for v in 0..varyings {
        wgsl += &format!(
            "    o.v{v} = vec4<u32>({});\n",
            padded[4 * v..4 * v + 4].join(", ")
        );
    }
    wgsl += "    return o;\n}\n@fragment fn fs(i: VsOut) -> @location(0) vec4<f32> {\n";
    wgsl += &format!("    let b = i.idx * {count}u;\n");
    for k in 0..count {
        wgsl += &format!("    out[b + {k}u] = i.v{}[{}];\n", k / 4, k % 4);
    }
    wgsl += "    return vec4<f32>(1.0);\n}\n";
    wgsl
}

/// Draws `vertices` points with `module`'s `vs`/`fs` into a one-pixel-high `rgba8unorm`
/// target, the vertex buffers `buffers` bound at slots 0.. and `out` at group 0, binding 0 (where
/// the shader writes what it fetched). Returns wgpu's validation error for the pipeline, if any
/// (nothing is drawn then).
pub fn draw_points(
    gpu: &Gpu,
    module: &wgpu::ShaderModule,
    buffers: &[(wgpu::BufferSlice<'_>, wgpu::VertexBufferLayout<'_>)],
    out: &wgpu::Buffer,
    vertices: u32,
) -> Option<String> {
    draw_instanced_points(gpu, module, buffers, out, vertices, 1)
}

/// [`draw_points`] with `instances` instances of the `vertices` points (the target is
/// `vertices * instances` pixels wide).
pub fn draw_instanced_points(
    gpu: &Gpu,
    module: &wgpu::ShaderModule,
    buffers: &[(wgpu::BufferSlice<'_>, wgpu::VertexBufferLayout<'_>)],
    out: &wgpu::Buffer,
    vertices: u32,
    instances: u32,
) -> Option<String> {
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let layouts: Vec<Option<wgpu::VertexBufferLayout<'_>>> =
        buffers.iter().map(|(_, l)| Some(l.clone())).collect();
    let (pipeline, error) = validation_error(gpu, || {
        gpu.device()
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("draw points"),
                layout: None,
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some("vs"),
                    compilation_options: Default::default(),
                    buffers: &layouts,
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::PointList,
                    ..Default::default()
                },
                depth_stencil: None,
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some("fs"),
                    compilation_options: Default::default(),
                    targets: &[Some(format.into())],
                }),
                multiview_mask: None,
                cache: None,
            })
    });
    if error.is_some() {
        return error;
    }
    let bind_group = gpu.device().create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: out.as_entire_binding(),
        }],
    });
    let target = gpu.device().create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: vertices * instances,
            height: 1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let mut encoder = gpu
        .device()
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: None,
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations::default(),
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        for (slot, (slice, _)) in (0u32..).zip(buffers) {
            pass.set_vertex_buffer(slot, *slice);
        }
        pass.draw(0..vertices, 0..instances);
    }
    gpu.queue().submit([encoder.finish()]);
    None
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

/// Renders points with `wgsl` (entry points `vs_main` and `fs_main`, the fragment writing
/// `vec4<u32>` to `targets` `rgba32uint` attachments of `width` × 1 pixels, cleared to
/// `u32::MAX`), `draw` recording the draws, and returns each target's pixels.
pub fn render_capture(
    gpu: &Gpu,
    wgsl: &str,
    layouts: &[Option<wgpu::VertexBufferLayout<'_>>],
    targets: usize,
    width: u32,
    draw: impl FnOnce(&mut wgpu::RenderPass<'_>),
) -> Vec<Vec<[u32; 4]>> {
    let device = gpu.device();
    let module = shader(gpu, "capture", wgsl);
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

/// Runs the compute shader `wgsl` (entry `main`, `@workgroup_size(64)`) over `invocations` with the
/// bind group built from `layout_entries` / `entries` plus a read-write `array<u32>` output of
/// `out_words` words at binding `out_binding`, and returns the output.
pub fn compute_capture(
    gpu: &Gpu,
    wgsl: &str,
    layout_entries: Vec<wgpu::BindGroupLayoutEntry>,
    entries: Vec<wgpu::BindGroupEntry<'_>>,
    out_binding: u32,
    out_words: u64,
    invocations: u32,
) -> Vec<u32> {
    let out = (out_binding, out_words);
    compute_capture_at(gpu, wgsl, layout_entries, entries, out, invocations, &[])
}

/// [`compute_capture`] with the bind group set at `dynamic_offsets` (for entries with
/// `has_dynamic_offset`); `out` is the output's binding and words.
pub fn compute_capture_at(
    gpu: &Gpu,
    wgsl: &str,
    mut layout_entries: Vec<wgpu::BindGroupLayoutEntry>,
    entries: Vec<wgpu::BindGroupEntry<'_>>,
    (out_binding, out_words): (u32, u64),
    invocations: u32,
    dynamic_offsets: &[u32],
) -> Vec<u32> {
    let device = gpu.device();
    let module = shader(gpu, "compute capture", wgsl);
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
            pass.set_bind_group(0, &group, dynamic_offsets);
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
