//! `interleave` on the GPU: columns of every format family and layout into packed and
//! wgsl-storage rows, against the CPU reference; the rows bind as a vertex buffer and as a
//! storage array; `deinterleave` undoes it byte for byte.

use crate::fixtures::*;
use crate::support::draw_points;
use gpudata::ops::cpu::{self, HostInput};
use gpudata::ops::{self, Operand, OpsConfig};
use gpudata::{
    BufferHandle, Gpu, GpuData, GpuDataDescriptor, GpuDataStructFormat, GpuDataView, OpError,
    StepMode, StructLayout, VertexFormat,
};

/// A column in one of three layouts, with its bytes kept for the CPU side.
struct Column {
    bytes: Vec<u8>,
    buffer_index: usize,
    format: VertexFormat,
    offset: u64,
    stride: u64,
}

fn unit(format: VertexFormat) -> u64 {
    if format.is_packed_bits() {
        4
    } else {
        format.data_type().byte_length()
    }
}

/// Formats whose bytes fit a field of `format`: itself, and its integer/normalized twin.
fn twin(format: VertexFormat) -> VertexFormat {
    use gpudata::format::DataType::*;
    let swapped = match format.data_type() {
        Uint8 => Some(Unorm8),
        Unorm8 if !format.is_packed_bits() && !format.is_bgra() => Some(Uint8),
        Sint16 => Some(Snorm16),
        Float32 => Some(Uint32),
        _ => None,
    };
    swapped
        .and_then(|t| VertexFormat::from_parts(t, format.components(), false).ok())
        .filter(|f| f.byte_length() == format.byte_length())
        .unwrap_or(format)
}

/// Random columns for the fields of `format`: `layout` 0 = one packed buffer each, 1 = segments of
/// one shared buffer, 2 = strided children of other rows, 3 = mixed.
fn columns(
    rng: &mut Rng,
    format: &GpuDataStructFormat,
    length: u64,
    layout: u32,
) -> (Vec<Column>, Vec<Vec<u8>>) {
    let mut buffers: Vec<Vec<u8>> = Vec::new();
    let mut shared = Vec::new();
    let mut out = Vec::new();
    for (i, field) in format.fields().iter().enumerate() {
        let f = if rng.below(2) == 0 {
            field.format()
        } else {
            twin(field.format())
        };
        let mode = if layout == 3 { (i % 3) as u32 } else { layout };
        match mode {
            0 => {
                buffers.push(random_rows(rng, f, length, 0, f.byte_length(), 0));
                out.push(Column {
                    bytes: Vec::new(),
                    buffer_index: buffers.len() - 1,
                    format: f,
                    offset: 0,
                    stride: f.byte_length(),
                });
            }
            1 => {
                let pad = unit(f) * rng.below(5);
                let offset = (shared.len() as u64).next_multiple_of(unit(f)) + pad;
                let rows = random_rows(rng, f, length, 0, f.byte_length(), 0);
                shared.resize(offset as usize, 0xee);
                shared.extend_from_slice(&rows);
                out.push(Column {
                    bytes: Vec::new(),
                    buffer_index: usize::MAX,
                    format: f,
                    offset,
                    stride: f.byte_length(),
                });
            }
            _ => {
                let stride = f.byte_length() + unit(f) * (1 + rng.below(4));
                let offset = unit(f) * rng.below(4);
                let field_offset = unit(f) * rng.below((stride - f.byte_length()) / unit(f) + 1);
                buffers.push(random_rows(rng, f, length, offset, stride, field_offset));
                out.push(Column {
                    bytes: Vec::new(),
                    buffer_index: buffers.len() - 1,
                    format: f,
                    offset: offset + field_offset,
                    stride,
                });
            }
        }
    }
    let shared_index = buffers.len();
    buffers.push(shared);
    for c in &mut out {
        if c.buffer_index == usize::MAX {
            c.buffer_index = shared_index;
        }
        c.bytes = buffers[c.buffer_index].clone();
    }
    (out, buffers)
}

fn run(
    gpu: &Gpu,
    config: &OpsConfig,
    rng: &mut Rng,
    format: &GpuDataStructFormat,
    length: u64,
    layout: u32,
) {
    let (cols, buffers) = columns(rng, format, length, layout);
    let uploaded: Vec<wgpu::Buffer> = buffers.iter().map(|b| upload(gpu, b)).collect();
    let gpu_inputs: Vec<GpuDataView<'_>> = cols
        .iter()
        .map(|c| {
            view_at(
                &uploaded[c.buffer_index],
                c.format,
                length,
                c.offset,
                Some(c.stride),
            )
        })
        .collect();
    let cpu_inputs: Vec<HostInput<'_>> = cols
        .iter()
        .map(|c| {
            HostInput::new(&c.bytes, c.format, length)
                .with_byte_offset(c.offset)
                .with_byte_stride(c.stride)
        })
        .collect();
    let what = format!(
        "{:?} {length} rows, layout {layout}, inputs {:?}",
        format
            .fields()
            .iter()
            .map(|f| (f.format(), f.byte_offset()))
            .collect::<Vec<_>>(),
        cols.iter()
            .map(|c| (c.format, c.offset, c.stride))
            .collect::<Vec<_>>()
    );
    let expected = cpu::interleave(&cpu_inputs, format).unwrap();
    let rows = ops::plan_interleave(gpu, config, &gpu_inputs, format)
        .unwrap()
        .run(gpu)
        .unwrap();
    assert_eq!(rows.length(), length);
    assert_eq!(rows.read_bytes(gpu).unwrap(), expected.bytes(), "{what}");

    // The inverse gives every column back, packed, byte for byte.
    let columns = ops::plan_deinterleave(gpu, config, &rows, None)
        .unwrap()
        .run(gpu)
        .unwrap();
    let originals = cpu::deinterleave_views(&cpu_inputs).unwrap();
    for (i, (column, original)) in columns.iter().zip(&originals).enumerate() {
        assert_eq!(format_of(column), format.fields()[i].format());
        assert_eq!(
            column.read_bytes(gpu).unwrap(),
            original.bytes(),
            "{what}: field {i} after deinterleave"
        );
    }
}

#[test]
fn spec_vector_103_as_a_struct() {
    let gpu = fresh_gpu();
    let a = upload(
        &gpu,
        &f32_bytes(&(0..10).map(|v| v as f32).collect::<Vec<_>>()),
    );
    let b = upload(&gpu, &f32_bytes(&[0., 0., 1., 1., 2., 2., 3., 3., 4., 4.]));
    let format = GpuDataStructFormat::parse(
        StructLayout::Packed,
        [("a", "float32x2"), ("b", "float32x2")],
    )
    .unwrap();
    let rows = ops::interleave(
        &gpu,
        &[
            view(&a, VertexFormat::Float32x2, 5),
            view(&b, VertexFormat::Float32x2, 5),
        ],
        &format,
    )
    .unwrap();
    assert_eq!(
        f32s(&rows.read_bytes(&gpu).unwrap()),
        [
            0., 1., 0., 0., 2., 3., 1., 1., 4., 5., 2., 2., 6., 7., 3., 3., 8., 9., 4., 4.
        ]
    );
}

#[test]
fn random_formats_and_layouts_match_the_cpu_and_round_trip() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(11);
    for case in 0..60u32 {
        let layout = if case % 2 == 0 {
            StructLayout::Packed
        } else {
            StructLayout::WgslStorage
        };
        let format = random_format(&mut rng, layout, 6);
        let length = [0, 1, 3, 17, 64, 255, 1000][(case % 7) as usize] + rng.below(2);
        run(
            &gpu,
            &OpsConfig::default(),
            &mut rng,
            &format,
            length,
            case % 4,
        );
    }
}

#[test]
fn eight_and_sixteen_bit_fields_in_packed_rows() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(12);
    // Spec vector 23's struct, luma.gl's mesh layout (vector 160) and one of 2-byte fields.
    for fields in [
        &[
            ("tag", "uint8"),
            ("pair", "uint8x2"),
            ("color", "unorm8x4"),
            ("position", "float32x3"),
        ][..],
        &[
            ("positions", "float32x3"),
            ("normals", "float32x3"),
            ("colors", "unorm8x4"),
            ("uv", "float32x2"),
        ][..],
        &[
            ("a", "uint16"),
            ("b", "sint16"),
            ("c", "float16x2"),
            ("d", "snorm8x2"),
        ][..],
    ] {
        let format =
            GpuDataStructFormat::parse(StructLayout::Packed, fields.iter().copied()).unwrap();
        for length in [1, 2, 5, 31, 333] {
            run(
                &gpu,
                &OpsConfig::default(),
                &mut rng,
                &format,
                length,
                (length % 4) as u32,
            );
        }
    }
}

#[test]
fn rows_bind_as_a_storage_array_of_the_wgsl_struct() {
    let gpu = fresh_gpu();
    let format = GpuDataStructFormat::parse(
        StructLayout::WgslStorage,
        [
            ("tag", "uint8"),
            ("position", "float32x3"),
            ("color", "unorm8x4"),
        ],
    )
    .unwrap();
    let n = 37u64;
    let tags: Vec<u8> = (0..n as u8).collect();
    let positions: Vec<f32> = (0..3 * n).map(|v| v as f32 * 0.5).collect();
    let colors: Vec<u8> = (0..4 * n).map(|v| v as u8).collect();
    let (t, p, c) = (
        upload(&gpu, &tags),
        upload(&gpu, &f32_bytes(&positions)),
        upload(&gpu, &colors),
    );
    let rows = ops::interleave(
        &gpu,
        &[
            view(&t, VertexFormat::Uint8, n),
            view(&p, VertexFormat::Float32x3, n),
            view(&c, VertexFormat::Uint8x4, n),
        ],
        &format,
    )
    .unwrap();
    let wgsl = format!(
        "{}\n@group(0) @binding(0) var<storage, read> rows: array<Row>;\n\
         @group(0) @binding(1) var<storage, read_write> out: array<f32>;\n\
         @compute @workgroup_size(1) fn main(@builtin(global_invocation_id) id: vec3<u32>) {{\n\
             let r = rows[id.x];\n\
             out[id.x * 5u] = f32(r.tag);\n\
             out[id.x * 5u + 1u] = r.position.x;\n\
             out[id.x * 5u + 2u] = r.position.y;\n\
             out[id.x * 5u + 3u] = r.position.z;\n\
             out[id.x * 5u + 4u] = unpack4x8unorm(r.color).w;\n\
         }}\n",
        format.wgsl_struct("Row").unwrap()
    );
    let values = run_compute(&gpu, &wgsl, rows.buffer(), n, 5);
    for i in 0..n as usize {
        assert_eq!(values[i * 5], tags[i] as f32);
        assert_eq!(&values[i * 5 + 1..i * 5 + 4], &positions[i * 3..i * 3 + 3]);
        assert_eq!(values[i * 5 + 4], colors[i * 4 + 3] as f32 / 255.0);
    }
}

/// Runs `wgsl` (`rows` at binding 0, an `f32` output at binding 1) over `n` invocations.
fn run_compute(gpu: &Gpu, wgsl: &str, rows: &wgpu::Buffer, n: u64, per_row: u64) -> Vec<f32> {
    let device = gpu.device();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: n * per_row * 4,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: rows.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: out.as_entire_binding(),
            },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(n as u32, 1, 1);
    }
    gpu.queue().submit([encoder.finish()]);
    let out = GpuData::new(
        BufferHandle::Shared(out),
        GpuDataDescriptor::new(VertexFormat::Float32, n * per_row),
    )
    .unwrap();
    f32s(&out.read_bytes(gpu).unwrap())
}

#[test]
fn packed_rows_bind_as_a_vertex_buffer() {
    let gpu = fresh_gpu();
    let format = GpuDataStructFormat::parse(
        StructLayout::Packed,
        [
            ("tag", "uint8"),
            ("value", "float32x2"),
            ("color", "unorm8x4"),
        ],
    )
    .unwrap();
    let n = 16u32;
    let tags: Vec<u8> = (0..n as u8).map(|v| v * 3).collect();
    let values: Vec<f32> = (0..2 * n).map(|v| v as f32 - 7.5).collect();
    let colors: Vec<u8> = (0..4 * n).map(|v| (v * 5) as u8).collect();
    let (t, v, c) = (
        upload(&gpu, &tags),
        upload(&gpu, &f32_bytes(&values)),
        upload(&gpu, &colors),
    );
    let rows: GpuData = ops::interleave(
        &gpu,
        &[
            view(&t, VertexFormat::Uint8, n.into()),
            view(&v, VertexFormat::Float32x2, n.into()),
            view(&c, VertexFormat::Unorm8x4, n.into()),
        ],
        &format,
    )
    .unwrap();
    let layout = format
        .buffer_layout("rows", Some(StepMode::Vertex))
        .to_wgpu(0)
        .unwrap();
    let wgsl = format!(
        "struct V {{ @builtin(position) p: vec4<f32>, @location(0) @interpolate(flat) i: u32,\n\
            @location(1) @interpolate(flat) a: vec4<f32> }}\n\
         @group(0) @binding(0) var<storage, read_write> out: array<f32>;\n\
         @vertex fn vs(@builtin(vertex_index) i: u32, @location(0) tag: u32, @location(1) value: vec2<f32>,\n\
             @location(2) color: vec4<f32>) -> V {{\n\
             let x = (f32(i) + 0.5) / {n}.0 * 2.0 - 1.0;\n\
             return V(vec4<f32>(x, 0.0, 0.0, 1.0), i, vec4<f32>(f32(tag), value, color.y));\n\
         }}\n\
         @fragment fn fs(v: V) -> @location(0) vec4<f32> {{\n\
             out[v.i * 4u] = v.a.x; out[v.i * 4u + 1u] = v.a.y; out[v.i * 4u + 2u] = v.a.z;\n\
             out[v.i * 4u + 3u] = v.a.w;\n\
             return vec4<f32>(1.0);\n\
         }}\n"
    );
    let device = gpu.device();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: u64::from(n) * 16,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let slice = rows.buffer().slice(..rows.byte_length());
    let error = draw_points(&gpu, &module, &[(slice, layout.as_wgpu())], &out, n);
    assert_eq!(error, None);
    let out = GpuData::new(
        BufferHandle::Shared(out),
        GpuDataDescriptor::new(VertexFormat::Float32x4, n.into()),
    )
    .unwrap();
    let fetched = f32s(&out.read_bytes(&gpu).unwrap());
    for i in 0..n as usize {
        assert_eq!(fetched[i * 4], tags[i] as f32, "vertex {i}");
        assert_eq!(
            &fetched[i * 4 + 1..i * 4 + 3],
            &values[i * 2..i * 2 + 2],
            "vertex {i}"
        );
        assert!((fetched[i * 4 + 3] - colors[i * 4 + 1] as f32 / 255.0).abs() < 1e-6);
    }
}

#[test]
fn gpu_data_in_and_out() {
    let gpu = fresh_gpu();
    let a = GpuData::from_bytes(
        &gpu,
        &f32_bytes(&[1., 2., 3., 4., 5., 6.]),
        GpuDataDescriptor::new(VertexFormat::Float32x2, 3),
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    )
    .unwrap();
    let b = GpuData::from_bytes(
        &gpu,
        &[9, 8, 7],
        GpuDataDescriptor::new(VertexFormat::Uint8, 3),
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    )
    .unwrap();
    let format =
        GpuDataStructFormat::parse(StructLayout::Packed, [("xy", "float32x2"), ("id", "uint8")])
            .unwrap();
    let rows =
        ops::interleave(&gpu, &[a.as_view().unwrap(), b.as_view().unwrap()], &format).unwrap();
    let data = rows;
    let id = data.get_child("id").unwrap();
    assert_eq!(id.byte_offset(), 8);
    assert_eq!(id.byte_stride(), 12);
    // A child view feeds the next operation directly.
    let column = ops::deinterleave_views(&gpu, &[id]).unwrap().remove(0);
    assert_eq!(column.read_bytes(&gpu).unwrap(), [9, 8, 7]);
    // Struct data is rows, not a column.
    assert!(matches!(
        Operand::try_from(&data).unwrap_err(),
        OpError::WrongData { op: "input", .. }
    ));
    let plain = GpuData::new(
        BufferHandle::Shared(a.buffer().clone()),
        GpuDataDescriptor::new(VertexFormat::Float32x2, 3),
    )
    .unwrap();
    assert!(matches!(
        ops::deinterleave(&gpu, &plain, None).unwrap_err(),
        OpError::WrongData { .. }
    ));
}

#[test]
fn errors_name_the_field_and_the_limit() {
    let gpu = ops_with_limits(|l| l.max_storage_buffers_per_shader_stage = 8);
    let mut rng = Rng::new(13);
    let format = GpuDataStructFormat::parse(
        StructLayout::Packed,
        [("position", "float32x3"), ("color", "unorm8x4")],
    )
    .unwrap();
    let p = upload(&gpu, &rng.bytes(120));
    let c = upload(&gpu, &rng.bytes(40));
    let position = view(&p, VertexFormat::Float32x3, 10);
    assert_eq!(
        ops::interleave(&gpu, &[position], &format).unwrap_err(),
        OpError::FieldCountMismatch {
            op: "interleave",
            expected: 2,
            found: 1
        }
    );
    let err = ops::interleave(
        &gpu,
        &[position, view(&c, VertexFormat::Uint16x2, 10)],
        &format,
    )
    .unwrap_err();
    assert_eq!(
        err,
        OpError::FieldFormatMismatch {
            op: "interleave",
            field: "color".to_owned(),
            input: 1,
            expected: VertexFormat::Unorm8x4,
            found: VertexFormat::Uint16x2
        }
    );
    assert_eq!(
        err.to_string(),
        "interleave: field `color` has format `unorm8x4`, but input 1 has `uint16x2`: interleave and deinterleave move bytes, so formats need the same components and component size"
    );
    assert_eq!(
        ops::interleave(
            &gpu,
            &[position, view(&c, VertexFormat::Uint8x4, 9)],
            &format
        )
        .unwrap_err(),
        OpError::LengthMismatch {
            op: "interleave",
            input: 1,
            expected: 10,
            found: 9
        }
    );
    assert_eq!(
        ops::interleave(&gpu, &[], &format).unwrap_err(),
        OpError::NoInputs { op: "interleave" }
    );

    // Eight columns in eight buffers plus the output: nine storage buffers.
    let wide = GpuDataStructFormat::new(
        StructLayout::Packed,
        (0..8).map(|i| (format!("c{i}"), VertexFormat::Float32)),
    )
    .unwrap();
    let buffers: Vec<wgpu::Buffer> = (0..8).map(|_| upload(&gpu, &rng.bytes(40))).collect();
    let inputs: Vec<GpuDataView<'_>> = buffers
        .iter()
        .map(|b| view(b, VertexFormat::Float32, 10))
        .collect();
    assert_eq!(
        ops::interleave(&gpu, &inputs, &wide).unwrap_err(),
        OpError::TooManyBindings {
            op: "interleave",
            what: "storage buffers per shader stage",
            needed: 9,
            limit: 8
        }
    );
    // The same eight columns as segments of one buffer bind once.
    let segmented = upload(&gpu, &rng.bytes(320));
    let segments: Vec<GpuDataView<'_>> = (0..8)
        .map(|i| view_at(&segmented, VertexFormat::Float32, 10, i * 40, None))
        .collect();
    ops::interleave(&gpu, &segments, &wide).unwrap();
}

#[test]
fn every_tuning_agrees_with_the_cpu() {
    let mut rng = Rng::new(14);
    for (wg, rows, staging) in [
        (256, None, false),
        (256, Some(4), true),
        (64, Some(8), true),
        (32, Some(2), true),
    ] {
        let (gpu, config) = ops_tuned(wg, rows, staging);
        for case in 0..12u32 {
            let layout = if case % 2 == 0 {
                StructLayout::Packed
            } else {
                StructLayout::WgslStorage
            };
            let format = random_format(&mut rng, layout, 6);
            let length = [1, 9, 100, 777][(case % 4) as usize];
            run(&gpu, &config, &mut rng, &format, length, case % 4);
        }
    }
}
