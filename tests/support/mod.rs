//! Helpers shared by the GPU tests: one device per test binary, buffers, pipelines, readback
//! of render targets and a small deterministic random number generator.
#![allow(
    dead_code,
    reason = "each test binary uses a different subset of the helpers"
)]

use std::sync::OnceLock;

use gpudata::Gpu;

/// The test binary's device. Tests never skip: without an adapter this panics with
/// [`Gpu::headless`]'s error, which says how to install the software adapter.
pub fn gpu() -> Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| Gpu::headless().unwrap_or_else(|e| panic!("{e}")))
        .clone()
}

/// A zeroed buffer of `size` bytes.
pub fn buffer(gpu: &Gpu, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("test buffer"),
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// A buffer holding `bytes` (padded with zeros to a multiple of 4).
pub fn buffer_with(gpu: &Gpu, bytes: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let size = (bytes.len() as u64).div_ceil(4) * 4;
    let buffer = buffer(gpu, size.max(4), usage | wgpu::BufferUsages::COPY_DST);
    let mut padded = bytes.to_vec();
    padded.resize(size as usize, 0);
    gpu.queue().write_buffer(&buffer, 0, &padded);
    gpu.queue().submit([]);
    buffer
}

/// Runs `f` inside a validation error scope and returns wgpu's error message, if any.
pub fn validation_error<R>(gpu: &Gpu, f: impl FnOnce() -> R) -> (R, Option<String>) {
    let scope = gpu.device().push_error_scope(wgpu::ErrorFilter::Validation);
    let out = f();
    let error = pollster::block_on(scope.pop()).map(|e| e.to_string());
    (out, error)
}

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

/// Deterministic xorshift64* numbers, so failures reproduce.
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A float in `[-1000, 1000)` that is not NaN (the tests compare bits).
    pub fn f32(&mut self) -> f32 {
        (self.next_u32() as f32 / u32::MAX as f32) * 2000.0 - 1000.0
    }

    /// Random bytes.
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        std::array::from_fn(|_| self.next_u32() as u8)
    }
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
            width: vertices,
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
        pass.draw(0..vertices, 0..1);
    }
    gpu.queue().submit([encoder.finish()]);
    None
}
