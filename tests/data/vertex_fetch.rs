//! Device truth for vertex fetch: a packed derived struct holding every WebGPU vertex format
//! family is drawn with its generated vertex layout (and again with each field's child view bound
//! as its own vertex buffer); the vertex shader forwards the values it received, as bits, to a
//! fragment shader that writes them to a storage buffer; they are compared with gpudata's CPU
//! decoding of the same bytes.

use crate::support;

use crate::support::Rng;
use gpudata::data::HostValues;
use gpudata::format::PrimitiveType;
use gpudata::{
    GpuData, GpuDataDescriptor, GpuDataView, GpuError, GpuStruct, Snorm8x4, Snorm16x2, StepMode,
    TypedGpuData, Unorm8, Unorm8x2, Unorm8x4Bgra, Unorm10_10_10_2, Unorm16x4, VertexFormat,
};
use half::f16;

/// Every family: 8/16/32-bit integers, unorm/snorm 8/16, float16, float32, unorm10-10-10-2,
/// unorm8x4-bgra; scalar, 2- and 4-component forms; fields at offsets 1 and 2 mod 4.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
struct Every {
    tag: u8,
    unorm8: Unorm8,
    sint8x2: [i8; 2],
    unorm8x2: Unorm8x2,
    uint8x4: [u8; 4],
    snorm8x4: Snorm8x4,
    uint16x2: [u16; 2],
    sint16x4: [i16; 4],
    unorm16x4: Unorm16x4,
    snorm16x2: Snorm16x2,
    float16x2: [f16; 2],
    float16x4: [f16; 4],
    float32: f32,
    float32x3: [f32; 3],
    uint32x2: [u32; 2],
    sint32: i32,
    rgb10a2: Unorm10_10_10_2,
    bgra: Unorm8x4Bgra,
}

fn random_row(rng: &mut Rng) -> Every {
    let h = |rng: &mut Rng| f16::from_f32(rng.f32() / 16.0);
    Every {
        tag: rng.next_u32() as u8,
        unorm8: Unorm8(rng.next_u32() as u8),
        sint8x2: rng.array::<2>().map(|b| b as i8),
        unorm8x2: Unorm8x2(rng.array()),
        uint8x4: rng.array(),
        snorm8x4: Snorm8x4(rng.array::<4>().map(|b| b as i8)),
        uint16x2: [rng.next_u32() as u16, rng.next_u32() as u16],
        sint16x4: std::array::from_fn(|_| rng.next_u32() as i16),
        unorm16x4: Unorm16x4(std::array::from_fn(|_| rng.next_u32() as u16)),
        snorm16x2: Snorm16x2([rng.next_u32() as i16, rng.next_u32() as i16]),
        float16x2: [h(rng), h(rng)],
        float16x4: [h(rng), h(rng), h(rng), h(rng)],
        float32: rng.f32(),
        float32x3: [rng.f32(), rng.f32(), rng.f32()],
        uint32x2: [rng.next_u32(), rng.next_u32()],
        sint32: rng.next_u32() as i32,
        rgb10a2: Unorm10_10_10_2(rng.next_u32()),
        bgra: Unorm8x4Bgra(rng.array()),
    }
}

/// Rows 0 and 1 are the extremes (all bits clear, all integer bits set, the most negative
/// snorm values); the others are random.
fn rows(n: usize) -> Vec<Every> {
    let mut rng = Rng::new(0x5eed);
    let mut rows: Vec<Every> = (0..n).map(|_| random_row(&mut rng)).collect();
    rows[0] = bytemuck_zeroed();
    let mut max = random_row(&mut rng);
    max.tag = u8::MAX;
    max.unorm8 = Unorm8(u8::MAX);
    max.sint8x2 = [i8::MIN, i8::MAX];
    max.unorm8x2 = Unorm8x2([u8::MAX; 2]);
    max.uint8x4 = [u8::MAX; 4];
    max.snorm8x4 = Snorm8x4([i8::MIN, -127, 127, 0]);
    max.uint16x2 = [u16::MAX; 2];
    max.sint16x4 = [i16::MIN, i16::MAX, -1, 0];
    max.unorm16x4 = Unorm16x4([u16::MAX, 0, 1, 32768]);
    max.snorm16x2 = Snorm16x2([i16::MIN, -32767]);
    max.uint32x2 = [u32::MAX, 0];
    max.sint32 = i32::MIN;
    max.rgb10a2 = Unorm10_10_10_2(u32::MAX);
    max.bgra = Unorm8x4Bgra([255, 0, 128, 64]);
    rows[1] = max;
    rows
}

fn bytemuck_zeroed() -> Every {
    Every::decode_row(&[0u8; 128])
}

/// One vertex input the generated shader declares.
struct Input {
    format: VertexFormat,
    location: u32,
}

/// The shader (`support::fetch_probe_shader`): inputs converted to `u32` bits, packed into flat
/// `vec4<u32>` varyings, written by the fragment stage to `out[vertex * scalars + k]`.
fn shader(inputs: &[Input], vertices: u32) -> (String, u32) {
    let mut scalars = Vec::new();
    let mut params = vec!["@builtin(vertex_index) vi: u32".to_owned()];
    for (j, input) in inputs.iter().enumerate() {
        let ty = input.format.vertex_input_type();
        params.push(format!("@location({}) a{j}: {ty}", input.location));
        let c = ty.components();
        for k in 0..c {
            let e = if c == 1 {
                format!("a{j}")
            } else {
                format!("a{j}.{}", ["x", "y", "z", "w"][k as usize])
            };
            scalars.push(match ty.primitive() {
                PrimitiveType::U32 => e,
                _ => format!("bitcast<u32>({e})"),
            });
        }
    }
    let count = scalars.len() as u32;
    let wgsl = support::fetch_probe_shader(&params, "vi", vertices, "", &scalars);
    (wgsl, count)
}

/// Draws `vertices` points with `buffers` bound at slots 0.., returns each vertex's scalars.
fn fetch(
    gpu: &gpudata::Gpu,
    inputs: &[Input],
    buffers: &[(wgpu::BufferSlice<'_>, wgpu::VertexBufferLayout<'_>)],
    vertices: u32,
) -> Vec<Vec<u32>> {
    let (wgsl, scalars) = shader(inputs, vertices);
    let module = support::shader(gpu, "vertex fetch", &wgsl);
    let out = support::buffer(
        gpu,
        u64::from(vertices * scalars) * 4,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let error = support::draw_points(gpu, &module, buffers, &out, vertices);
    assert_eq!(
        error, None,
        "wgpu refused the pipeline for the generated layout"
    );
    let data = GpuData::new(
        gpudata::BufferHandle::Shared(out),
        GpuDataDescriptor::new(VertexFormat::Uint32, u64::from(vertices * scalars)),
    )
    .unwrap();
    let HostValues::U32(values) = data.as_view().unwrap().read_values(gpu).unwrap() else {
        unreachable!("uint32 decodes to u32")
    };
    values
        .chunks(scalars as usize)
        .map(<[u32]>::to_vec)
        .collect()
}

/// gpudata's CPU decoding of each row's fields, in field order, as bits, with whether the
/// scalar is a normalized conversion (compared with a tolerance).
fn cpu_decoding(views: &[GpuDataView<'_>], gpu: &gpudata::Gpu) -> Vec<Vec<(u32, bool)>> {
    let per_field: Vec<(HostValues, u32, bool)> = views
        .iter()
        .map(|v| {
            (
                v.read_values(gpu).unwrap(),
                v.format().components(),
                v.format().is_normalized(),
            )
        })
        .collect();
    let rows = views[0].length() as usize;
    (0..rows)
        .map(|r| {
            let mut row = Vec::new();
            for (values, c, normalized) in &per_field {
                let c = *c as usize;
                let bits: Vec<u32> = match values {
                    HostValues::F32(v) => {
                        v[r * c..(r + 1) * c].iter().map(|x| x.to_bits()).collect()
                    }
                    HostValues::I32(v) => v[r * c..(r + 1) * c].iter().map(|&x| x as u32).collect(),
                    HostValues::U32(v) => v[r * c..(r + 1) * c].to_vec(),
                };
                row.extend(bits.into_iter().map(|b| (b, *normalized)));
            }
            row
        })
        .collect()
}

fn compare(received: &[Vec<u32>], expected: &[Vec<(u32, bool)>], what: &str) {
    assert_eq!(received.len(), expected.len());
    for (r, (got, want)) in received.iter().zip(expected).enumerate() {
        assert_eq!(got.len(), want.len(), "{what}: row {r} scalar count");
        for (k, (&g, &(w, normalized))) in got.iter().zip(want).enumerate() {
            let same = if normalized {
                (f32::from_bits(g) - f32::from_bits(w)).abs() <= 1e-6
            } else {
                g == w
            };
            assert!(
                same,
                "{what}: row {r} scalar {k}: shader received {g:#010x} ({}), cpu decoded {w:#010x} ({})",
                f32::from_bits(g),
                f32::from_bits(w)
            );
        }
    }
}

const ROWS: usize = 64;

#[test]
fn every_format_family_fetches_as_the_cpu_decodes_it() {
    let gpu = support::gpu();
    assert_eq!(Every::FORMAT.byte_stride(), 88);
    let rows = rows(ROWS);
    let data = TypedGpuData::from_rows(&gpu, &rows, gpudata::data::DEFAULT_USAGE).unwrap();
    let views: Vec<GpuDataView<'_>> = (0..Every::FORMAT.fields().len())
        .map(|i| data.get_child_at(i).unwrap())
        .collect();
    let expected = cpu_decoding(&views, &gpu);

    // Interleaved: the whole rows with the derive's generated layout.
    let inputs: Vec<Input> = Every::ATTRIBUTES
        .iter()
        .zip(Every::FORMAT.fields())
        .map(|(a, f)| Input {
            format: f.format(),
            location: a.shader_location,
        })
        .collect();
    let slice = data.as_data().vertex_buffer_slice(&gpu).unwrap();
    let received = fetch(
        &gpu,
        &inputs,
        &[(slice, Every::vertex_buffer_layout())],
        ROWS as u32,
    );
    compare(&received, &expected, "interleaved");
}

#[test]
fn child_views_bound_as_separate_vertex_buffers_fetch_the_same_values() {
    let gpu = support::gpu();
    let rows = rows(ROWS);
    let data = TypedGpuData::from_rows(&gpu, &rows, gpudata::data::DEFAULT_USAGE).unwrap();
    let views: Vec<GpuDataView<'_>> = (0..Every::FORMAT.fields().len())
        .map(|i| data.get_child_at(i).unwrap())
        .collect();
    let expected = cpu_decoding(&views, &gpu);

    let limits = gpu.limits();
    let per_draw = limits.max_vertex_buffers.min(limits.max_vertex_attributes) as usize;
    let mut received: Vec<Vec<u32>> = vec![Vec::new(); ROWS];
    for group in views.chunks(per_draw) {
        let bindings: Vec<_> = group
            .iter()
            .enumerate()
            .map(|(i, v)| v.vertex_binding(&gpu, i as u32, StepMode::Vertex).unwrap())
            .collect();
        let inputs: Vec<Input> = group
            .iter()
            .enumerate()
            .map(|(i, v)| Input {
                format: v.format(),
                location: i as u32,
            })
            .collect();
        let buffers: Vec<_> = bindings.iter().map(|b| (b.slice(), b.layout())).collect();
        for (row, part) in received
            .iter_mut()
            .zip(fetch(&gpu, &inputs, &buffers, ROWS as u32))
        {
            row.extend(part);
        }
    }
    compare(&received, &expected, "child views");
}

#[test]
fn typed_children_rebase_to_aligned_vertex_bindings() {
    let gpu = support::gpu();
    let data = TypedGpuData::from_rows(&gpu, &rows(4), gpudata::data::DEFAULT_USAGE).unwrap();
    let unorm8 = data.get_child::<every_fields::Unorm8>();
    assert_eq!(unorm8.byte_offset(), 1);
    let binding = unorm8.vertex_binding(&gpu, 3, StepMode::Instance).unwrap();
    assert_eq!(binding.offset(), 0);
    let layout = binding.layout();
    assert_eq!(layout.array_stride, 88);
    assert_eq!(layout.step_mode, wgpu::VertexStepMode::Instance);
    assert_eq!(
        layout.attributes,
        [wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Unorm8,
            offset: 1,
            shader_location: 3
        }]
    );
    assert_eq!(binding.size(), 1 + 3 * 88 + 1);
    let float32 = data.get_child::<every_fields::Float32>();
    let binding = float32.vertex_binding(&gpu, 0, StepMode::Vertex).unwrap();
    assert_eq!(
        (binding.offset(), binding.layout().attributes[0].offset),
        (52, 0)
    );
    // Host values of a typed child are the Rust field values.
    let rows = rows(4);
    let values = data
        .get_child::<every_fields::Float16x4>()
        .read(&gpu)
        .unwrap();
    assert_eq!(values, rows.iter().map(|r| r.float16x4).collect::<Vec<_>>());
}

#[test]
fn views_wgpu_cannot_fetch_are_refused_before_wgpu_sees_them() {
    let gpu = support::gpu();
    let buffer = support::buffer(&gpu, 64, gpudata::data::DEFAULT_USAGE);
    // A 4-byte value 2 bytes into a 4-byte stride cannot be reached from an aligned offset.
    let view = GpuDataView::new(&buffer, VertexFormat::Float32, 4, 2, Some(6)).unwrap();
    assert!(matches!(
        view.vertex_binding(&gpu, 0, StepMode::Vertex),
        Err(GpuError::VertexStride { byte_stride: 6, .. })
    ));
    let view = GpuDataView::new(&buffer, VertexFormat::Float32, 4, 2, Some(4)).unwrap();
    let error = view.vertex_binding(&gpu, 0, StepMode::Vertex).unwrap_err();
    assert_eq!(
        error,
        GpuError::VertexOffset {
            format: VertexFormat::Float32,
            byte_offset: 2,
            rebase: 2,
            format_byte_length: 4,
            byte_stride: 4
        }
    );
    let webgl = GpuDataView::new(&buffer, VertexFormat::Uint8x3Webgl, 4, 0, Some(4)).unwrap();
    assert!(matches!(
        webgl.vertex_binding(&gpu, 0, StepMode::Vertex),
        Err(GpuError::VertexFormat { .. })
    ));
    let packed_bytes = GpuDataView::new(&buffer, VertexFormat::Uint8, 4, 0, None).unwrap();
    assert!(matches!(
        packed_bytes.vertex_binding(&gpu, 0, StepMode::Vertex),
        Err(GpuError::VertexStride { byte_stride: 1, .. })
    ));
    let data = GpuData::new(
        gpudata::BufferHandle::Shared(buffer.clone()),
        GpuDataDescriptor::new(VertexFormat::Float32, 4).with_byte_offset(2),
    )
    .unwrap();
    assert!(matches!(
        data.vertex_buffer_slice(&gpu),
        Err(GpuError::VertexDataOffset { byte_offset: 2 })
    ));
}

#[test]
fn every_source_gives_its_vertex_layout_and_names_what_it_cannot() {
    use gpudata::layout::VertexLayoutSource as _;
    use gpudata::{GpuConstant, LayoutError, Unorm8x4};
    let gpu = support::gpu();
    let usage = gpudata::data::DEFAULT_USAGE;
    // A derived type: its format's layout at its location and step mode is its `'static` one,
    // and so is its typed data's.
    let format = Every::FORMAT.vertex_layout(0, Every::STEP_MODE).unwrap();
    assert_eq!(format.buffers()[0].as_wgpu(), Every::vertex_buffer_layout());
    let names: Vec<&str> = format.attributes().map(|(name, ..)| name).collect();
    let fields: Vec<&str> = Every::FORMAT.fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, fields);
    let data = TypedGpuData::from_rows(&gpu, &rows(4), usage).unwrap();
    let typed = data.vertex_layout(0, Every::STEP_MODE).unwrap();
    assert_eq!(typed.buffers(), format.buffers());
    assert!(typed.attributes().eq(format.attributes()));
    assert_eq!(data.as_data().vertex_layout(0, Every::STEP_MODE), Ok(typed));
    // A view: the layout its vertex binding binds.
    let unorm8 = data.get_child::<every_fields::Unorm8>();
    let layout = unorm8.vertex_layout(3, StepMode::Instance).unwrap();
    let binding = unorm8.vertex_binding(&gpu, 3, StepMode::Instance).unwrap();
    assert_eq!(layout.buffers()[0].as_wgpu(), binding.layout());
    // A constant: one attribute of stride 0.
    let tint = GpuConstant::from_value(Unorm8x4([1, 2, 3, 4]));
    let layout = tint.vertex_layout(5, StepMode::Vertex).unwrap();
    assert_eq!(layout.buffers()[0].array_stride, 0);
    assert_eq!(
        layout.attributes().collect::<Vec<_>>(),
        [("constant", VertexFormat::Unorm8x4, 5, 0)]
    );
    // What cannot be fetched is an error naming the attribute and its format.
    let webgl = GpuConstant::from_bytes(VertexFormat::Uint8x3Webgl, &[1, 2, 3]).unwrap();
    assert_eq!(
        webgl.vertex_layout(0, StepMode::Vertex),
        Err(LayoutError::WebglOnlyVertexAttribute {
            attribute: "constant".into(),
            format: VertexFormat::Uint8x3Webgl
        })
    );
    let buffer = support::buffer(&gpu, 64, usage);
    let list = GpuData::new(
        gpudata::BufferHandle::Shared(buffer.clone()),
        GpuDataDescriptor::new(
            gpudata::GpuVectorFormat::VertexList(VertexFormat::Float32),
            2,
        )
        .with_value_length(4),
    )
    .unwrap();
    assert_eq!(
        list.vertex_layout(0, StepMode::Vertex),
        Err(LayoutError::NoVertexLayout {
            name: "data".into(),
            format: "vertex-list<float32>".into()
        })
    );
    let untyped = GpuData::new(
        gpudata::BufferHandle::Shared(buffer),
        GpuDataDescriptor {
            length: 4,
            byte_stride: Some(4),
            ..GpuDataDescriptor::default()
        },
    )
    .unwrap();
    let error = untyped.vertex_layout(0, StepMode::Vertex).unwrap_err();
    assert_eq!(
        error.to_string(),
        "`data` (no format) has no vertex layout: vertex buffers hold rows of fixed-width vertex formats"
    );
}
