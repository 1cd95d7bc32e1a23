//! Device sweep: random struct layouts, each uploaded, read back byte for byte, bound as a vertex
//! buffer in a real render pipeline and (where WGSL can express it) copied row by row by a
//! compute shader using the generated WGSL struct, all under wgpu validation error scopes.
//!
//! `GPUDATA_SWEEP_CASES` sets the number of layouts (default 1000, sized for CI on lavapipe; the
//! H200 run in RELIABILITY.md used more) and `GPUDATA_SWEEP_SEED` the first seed.

use crate::support::{self, Rng, USAGE, attribute_probe_shader, gpu, shader, validation_error};
use gpudata::data::GpuDataDescriptor;
use gpudata::format::DataType;
use gpudata::{Gpu, GpuData, GpuDataStructFormat, StepMode, StructLayout};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A random packed or wgsl-storage format of at most 16 fields (the WebGPU default limit on
/// vertex attributes).
fn random_format(rng: &mut Rng) -> GpuDataStructFormat {
    let layout = if rng.next_u32().is_multiple_of(2) {
        StructLayout::Packed
    } else {
        StructLayout::WgslStorage
    };
    support::random_format(rng, layout, 16)
}

/// Random rows: every payload byte random (floats finite, so a shader copy cannot canonicalize
/// a NaN), every padding byte zero.
fn random_rows(rng: &mut Rng, format: &GpuDataStructFormat, rows: u64) -> Vec<u8> {
    let stride = format.byte_stride() as usize;
    let mut bytes = vec![0u8; stride * rows as usize];
    for row in bytes.chunks_mut(stride) {
        for field in format.fields() {
            let at = field.byte_offset() as usize;
            let payload = &mut row[at..at + field.byte_length() as usize];
            if field.format().data_type() == DataType::Float32 {
                for word in payload.chunks_mut(4) {
                    word.copy_from_slice(&(rng.f32() * 2000.0 - 1000.0).to_le_bytes());
                }
            } else {
                for b in payload.iter_mut() {
                    *b = rng.next_u32() as u8;
                }
            }
        }
    }
    bytes
}

/// Draws the rows as points with the format's generated vertex layout.
fn draw_as_vertices(gpu: &Gpu, data: &GpuData, format: &GpuDataStructFormat) -> Option<String> {
    let layout = format
        .buffer_layout("", Some(StepMode::Vertex))
        .to_wgpu(0)
        .expect("fetchable formats lower to wgpu");
    let module = shader(gpu, "sweep vertex", &attribute_probe_shader(format));
    let target = gpu.device().create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: 4,
            height: 4,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = target.create_view(&Default::default());
    let ((), error) = validation_error(gpu, || {
        let pipeline = gpu
            .device()
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: None,
                layout: None,
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs"),
                    compilation_options: Default::default(),
                    buffers: &[Some(layout.as_wgpu())],
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::PointList,
                    ..Default::default()
                },
                depth_stencil: None,
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs"),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::TextureFormat::Rgba8Unorm.into())],
                }),
                multiview_mask: None,
                cache: None,
            });
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: None,
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations::default(),
                })],
                ..Default::default()
            });
            pass.set_pipeline(&pipeline);
            pass.set_vertex_buffer(0, data.vertex_buffer_slice(gpu).expect("vertex usage"));
            pass.draw(0..data.length() as u32, 0..1);
        }
        gpu.queue().submit([encoder.finish()]);
    });
    error
}

/// Copies every row with a compute shader declaring the generated WGSL struct; returns the
/// destination's bytes.
fn copy_with_storage_struct(
    gpu: &Gpu,
    src: &GpuData,
    wgsl_struct: &str,
) -> (Vec<u8>, Option<String>) {
    let format = src.struct_format().expect("struct data").clone();
    let dst = GpuData::zeroed(gpu, format, src.length(), USAGE).expect("allocate");
    let wgsl = format!(
        "{wgsl_struct}\n@group(0) @binding(0) var<storage, read> src: array<Row>;\n\
         @group(0) @binding(1) var<storage, read_write> dst: array<Row>;\n\
         @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {{\n\
             if id.x < arrayLength(&src) {{ dst[id.x] = src[id.x]; }}\n}}\n"
    );
    let module = shader(gpu, "sweep copy", &wgsl);
    let ((), error) = validation_error(gpu, || {
        let pipeline = gpu
            .device()
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: None,
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
        let bind_group = gpu.device().create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(src.storage_binding(gpu).expect("src")),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Buffer(dst.storage_binding(gpu).expect("dst")),
                },
            ],
        });
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups((src.length() as u32).div_ceil(64), 1, 1);
        }
        gpu.queue().submit([encoder.finish()]);
    });
    (dst.read_bytes(gpu).expect("read back"), error)
}

#[test]
fn random_layouts_round_trip_and_bind_without_validation_errors() {
    let gpu = gpu();
    let cases = env_u64("GPUDATA_SWEEP_CASES", 1000);
    let seed = env_u64("GPUDATA_SWEEP_SEED", 0x5eed);
    let (mut vertex_checked, mut storage_checked) = (0, 0);
    for case in 0..cases {
        let mut rng = Rng::new(seed.wrapping_add(case));
        let format = random_format(&mut rng);
        let rows = 1 + u64::from(rng.next_u32() % 64);
        let bytes = random_rows(&mut rng, &format, rows);
        let context = || format!("case {case} (seed {}): {format:?}", seed.wrapping_add(case));

        let data = GpuData::from_bytes(
            &gpu,
            &bytes,
            GpuDataDescriptor::new(format.clone(), rows),
            USAGE,
        )
        .unwrap_or_else(|e| panic!("upload failed: {e}\n{}", context()));
        // Readback covers the described range: every row's stride except the last row's
        // trailing padding.
        let described =
            &bytes[..bytes.len() - (format.byte_stride() - format.row_byte_length()) as usize];
        assert_eq!(
            data.read_bytes(&gpu).unwrap(),
            described,
            "readback differs\n{}",
            context()
        );

        if format.fields().iter().all(|f| !f.format().is_webgl_only()) {
            let error = draw_as_vertices(&gpu, &data, &format);
            assert_eq!(error, None, "vertex binding rejected\n{}", context());
            vertex_checked += 1;
        }
        if let Ok(wgsl_struct) = format.wgsl_struct("Row") {
            let (copied, error) = copy_with_storage_struct(&gpu, &data, &wgsl_struct);
            assert_eq!(
                error,
                None,
                "storage copy rejected\n{}\n{wgsl_struct}",
                context()
            );
            assert_eq!(
                copied,
                described,
                "storage copy differs\n{}\n{wgsl_struct}",
                context()
            );
            storage_checked += 1;
        } else {
            assert_eq!(format.layout(), StructLayout::Packed, "{}", context());
        }
    }
    println!(
        "sweep: {cases} layouts round-tripped, {vertex_checked} drawn as vertex buffers, \
         {storage_checked} copied through the generated WGSL struct"
    );
    // Both kinds of binding were exercised by the sweep.
    assert!(vertex_checked > cases / 3 && storage_checked > cases / 3);
}
