//! Helpers shared by the table tests: one device per test binary, uploads, liveness checks,
//! the columns, vectors, batches and tables the tests build again and again, and error checks.
#![allow(
    dead_code,
    reason = "each test binary uses a different subset of the helpers"
)]

use std::fmt::{Debug, Display};
use std::sync::OnceLock;

use gpudata::table::{
    AppendableOptions, ColumnsOptions, DataVectorOptions, GpuColumn, GpuConstant, GpuRecordBatch,
    GpuSchemaField, GpuTable, GpuVector, RecordBatchOptions, SegmentSpec, SegmentedLayout,
    SegmentedTable, SegmentedTableBuilder, VectorDescriptor,
};
use gpudata::{
    BufferAttribute, BufferHandle, BufferLayout, Gpu, GpuData, GpuDataDescriptor, GpuDataFormat,
    GpuStruct, GpuVectorFormat, TableError, VertexFormat,
};

/// Usage of the test data.
pub const USAGE: wgpu::BufferUsages = gpudata::data::DEFAULT_USAGE;

/// The test binary's device. Tests never skip: without an adapter this panics with
/// [`Gpu::headless`]'s error, which names `mesa-vulkan-drivers`.
pub fn gpu() -> Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| Gpu::headless().unwrap_or_else(|e| panic!("{e}")))
        .clone()
}

/// A new device of the test adapter, labelled `label`, with the limits `adjust` sets.
pub fn limited_gpu(label: &str, adjust: impl FnOnce(&mut wgpu::Limits)) -> Gpu {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        force_fallback_adapter: false,
        ..Default::default()
    }))
    .unwrap_or_else(|e| panic!("no adapter (install `mesa-vulkan-drivers`): {e}"));
    let mut limits = adapter.limits();
    adjust(&mut limits);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some(label),
        required_limits: limits,
        ..Default::default()
    }))
    .unwrap_or_else(|e| panic!("the adapter refused a device: {e}"));
    Gpu::from_device_queue(device, queue)
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

// ---------------------------------------------------------------------------------------------
// Columns, vectors, batches and tables

/// `rows` `float32x2` positions counting up from `[start, start + 0.5]`.
pub fn positions(gpu: &Gpu, rows: u64, start: f32) -> GpuData {
    let values: Vec<[f32; 2]> = (0..rows)
        .map(|i| [start + i as f32, start + i as f32 + 0.5])
        .collect();
    column(gpu, VertexFormat::Float32x2, &values)
}

/// `rows` `unorm8x4` colors derived from `seed` and the row index.
pub fn colors(gpu: &Gpu, rows: u64, seed: u8) -> GpuData {
    let values: Vec<[u8; 4]> = (0..rows as u8)
        .map(|i| [seed, i, seed.wrapping_add(i), 255])
        .collect();
    column(gpu, VertexFormat::Unorm8x4, &values)
}

/// A batch of `rows` rows: [`positions`] from `start` and [`colors`] seeded with `start`.
pub fn batch(gpu: &Gpu, rows: u64, start: f32) -> GpuRecordBatch {
    GpuRecordBatch::new([
        ("positions", positions(gpu, rows, start)),
        ("colors", colors(gpu, rows, start as u8)),
    ])
    .unwrap()
}

/// Two zeroed `float32x2` rows at a 12-byte stride: positions laid out unlike [`positions`].
pub fn strided_positions(gpu: &Gpu) -> GpuData {
    bytes(
        gpu,
        &[0; 20],
        GpuDataDescriptor::new(VertexFormat::Float32x2, 2).with_byte_stride(12),
    )
}

/// Attributes of a 16-byte row: `positions` (`float32x3` at 0), `colors` (`uint8x4` at 12).
pub fn instance_attributes() -> Vec<BufferAttribute> {
    vec![
        BufferAttribute {
            attribute: "positions".into(),
            format: VertexFormat::Float32x3,
            byte_offset: 0,
        },
        BufferAttribute {
            attribute: "colors".into(),
            format: VertexFormat::Uint8x4,
            byte_offset: 12,
        },
    ]
}

/// A table of no constants and one [`batch`] of 2 rows from each of `starts`.
pub fn batches_table(gpu: &Gpu, starts: &[f32]) -> GpuTable {
    let batches = starts.iter().map(|&start| batch(gpu, 2, start)).collect();
    GpuTable::from_batches(batches, no_constants()).unwrap()
}

/// A batch of 2 [`positions`] and the list column `texts`, with a layout for positions only.
pub fn texts_batch(gpu: &Gpu, texts: GpuData) -> GpuRecordBatch {
    with_layouts(
        [("positions", positions(gpu, 2, 0.0)), ("texts", texts)],
        vec![BufferLayout::single(
            "positions",
            VertexFormat::Float32x2,
            8,
        )],
    )
    .unwrap()
}

/// An empty appendable vector `positions` of `float32x2`.
pub fn appendable_positions(gpu: &Gpu) -> GpuVector {
    GpuVector::appendable(
        "positions",
        gpu,
        VertexFormat::Float32x2,
        AppendableOptions::default(),
    )
    .unwrap()
}

/// Two zeroed `float32` rows at byte offset 2: storage access cannot reach them.
pub fn misaligned_floats(gpu: &Gpu) -> GpuData {
    bytes(
        gpu,
        &[0u8; 10],
        GpuDataDescriptor::new(VertexFormat::Float32, 2).with_byte_offset(2),
    )
}

/// Two zeroed rows of 16 bytes without a format.
pub fn untyped(gpu: &Gpu) -> GpuData {
    bytes(
        gpu,
        &[0; 32],
        GpuDataDescriptor {
            length: 2,
            byte_stride: Some(16),
            ..Default::default()
        },
    )
}

/// The descriptor of `rows` rows of list `format` holding `values` values in all.
pub fn list_descriptor(format: GpuVectorFormat, rows: u64, values: u64) -> GpuDataDescriptor {
    GpuDataDescriptor {
        format: Some(format.into()),
        length: rows,
        value_length: Some(values),
        ..Default::default()
    }
}

/// `rows` rows of list `format` over `values` zeroed values.
pub fn zeroed_list(gpu: &Gpu, format: GpuVectorFormat, rows: u64, values: u64) -> GpuData {
    let len = values * format.element_format().byte_length();
    bytes(
        gpu,
        &vec![0; len as usize],
        list_descriptor(format, rows, values),
    )
}

/// A table of one `vertex-list<uint32>` column `paths` (2 rows, 3 values, 4-byte stride layout).
pub fn paths_table(gpu: &Gpu) -> GpuTable {
    let list = zeroed_list(gpu, GpuVectorFormat::VertexList(VertexFormat::Uint32), 2, 3);
    let paths = GpuVector::from_data_with(
        "paths",
        vec![list],
        DataVectorOptions {
            buffer_layout: Some(BufferLayout {
                name: "paths".into(),
                format: None,
                byte_stride: Some(4),
                step_mode: None,
                attributes: Vec::new(),
            }),
            ..Default::default()
        },
    )
    .unwrap();
    GpuTable::from_columns(
        [("paths", GpuColumn::from(paths))],
        ColumnsOptions::default(),
    )
    .unwrap()
}

/// Vector `name` of [`positions`] chunks (from 0) of `chunks` rows each.
pub fn positions_vector(gpu: &Gpu, name: &str, chunks: &[u64]) -> GpuVector {
    let chunks = chunks.iter().map(|&rows| positions(gpu, rows, 0.0));
    GpuVector::from_data(name, chunks.collect()).unwrap()
}

/// Vector `name` of `float32` chunks of `chunks` rows each, every value 1.
pub fn float_vector(gpu: &Gpu, name: &str, chunks: &[u64]) -> GpuVector {
    let chunks = chunks
        .iter()
        .map(|&rows| column(gpu, VertexFormat::Float32, &vec![1.0f32; rows as usize]));
    GpuVector::from_data(name, chunks.collect()).unwrap()
}

/// Vector `name` over a new zeroed buffer of `byte_length` bytes, read through `descriptor`.
pub fn buffer_vector(
    gpu: &Gpu,
    name: &str,
    byte_length: u64,
    descriptor: VectorDescriptor,
) -> Result<GpuVector, TableError> {
    let buffer = zeroed(gpu, VertexFormat::Uint32, byte_length / 4).into_buffer_handle();
    GpuVector::from_buffer(name, buffer, descriptor)
}

/// A table of one column `name`: a vector of the one chunk `data`.
pub fn vector_table(name: &str, data: GpuData) -> GpuTable {
    let vector = GpuVector::from_data(name, vec![data]).unwrap();
    GpuTable::from_vectors([vector], ColumnsOptions::default()).unwrap()
}

/// Four `float32` rows in a buffer with `VERTEX` usage only: it cannot be copied from.
pub fn vertex_only_data(gpu: &Gpu) -> GpuData {
    let locked = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("no copy"),
        size: 16,
        usage: wgpu::BufferUsages::VERTEX,
        mapped_at_creation: false,
    });
    GpuData::new(
        BufferHandle::Owned(locked),
        GpuDataDescriptor::new(VertexFormat::Float32, 4),
    )
    .unwrap()
}

/// A batch of `columns` with the explicit buffer layouts `layouts`.
pub fn with_layouts<N: Into<String>>(
    columns: impl IntoIterator<Item = (N, GpuData)>,
    layouts: Vec<BufferLayout>,
) -> Result<GpuRecordBatch, TableError> {
    GpuRecordBatch::with_options(
        columns,
        RecordBatchOptions {
            buffer_layouts: Some(layouts),
            ..Default::default()
        },
    )
}

/// A batch of `columns` with the explicit schema fields `fields`.
pub fn with_fields<N: Into<String>>(
    columns: impl IntoIterator<Item = (N, GpuData)>,
    fields: Vec<GpuSchemaField>,
) -> Result<GpuRecordBatch, TableError> {
    GpuRecordBatch::with_options(
        columns,
        RecordBatchOptions {
            fields: Some(fields),
            ..Default::default()
        },
    )
}

/// A layout whose only segment, `float32x3` column `a`, has a byte stride of 8: too small.
pub fn narrow_segment_layout() -> Result<SegmentedLayout, TableError> {
    SegmentedLayout::new(
        4,
        [SegmentSpec {
            byte_stride: Some(8),
            ..SegmentSpec::new("a", VertexFormat::Float32x3, 1)
        }],
    )
}

/// Builds a segmented table of one `float32` column `a` of `values` values from `bytes`.
pub fn build_floats(gpu: &Gpu, values: u64, bytes: &[u8]) -> Result<SegmentedTable, TableError> {
    SegmentedTableBuilder::new()
        .column_spec(SegmentSpec::new("a", VertexFormat::Float32, values), bytes)
        .build(gpu)
}

/// No table constants.
pub fn no_constants() -> Vec<(String, GpuConstant)> {
    Vec::new()
}

/// A packed struct of 1-, 2- and 4-byte fields, so rows and fields sit at unaligned offsets.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
pub struct Small {
    pub pair: [u8; 2],
    pub half: u16,
    pub tag: u8,
    pub value: f32,
}

/// Host bytes of one field of `rows`.
pub fn field_bytes(rows: &[Small], field: &str) -> Vec<u8> {
    let encoded = gpudata::record::encode_rows_to_vec(rows);
    let format = Small::FORMAT;
    let (_, f) = format.field(field).unwrap();
    let stride = format.byte_stride() as usize;
    let (offset, len) = (f.byte_offset() as usize, f.byte_length() as usize);
    encoded
        .chunks_exact(stride)
        .flat_map(|row| row[offset..offset + len].to_vec())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Errors

/// Asserts that `error` is `expected` and renders as `message`, whole.
#[track_caller]
pub fn assert_error<E: PartialEq + Debug + Display>(error: &E, expected: E, message: &str) {
    assert_eq!(*error, expected);
    assert_eq!(error.to_string(), message);
}

/// Asserts that `error` is `expected` and that its message contains `fragment`.
#[track_caller]
pub fn assert_error_contains<E: PartialEq + Debug + Display>(
    error: &E,
    expected: E,
    fragment: &str,
) {
    assert_eq!(*error, expected);
    assert!(error.to_string().contains(fragment), "{error}");
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
