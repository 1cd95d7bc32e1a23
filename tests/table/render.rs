//! Tables on the device: a table with a packed column, an interleaved `#[derive(GpuStruct)]`
//! column and a constant is drawn and its attribute values captured; the same table as a
//! segmented layout (and as it is) gives the same values through storage bindings and the
//! generated WGSL accessors; indexed draws go through the `indices` column.

use crate::fixtures::{bytes, column, compute_capture, gpu, render_capture};
use gpudata::GpuConstant;
use gpudata::table::{
    BatchStorage, GpuColumn, GpuTable, GpuVector, RecordBatchOptions, RenderOptions,
    SegmentOptions, TableRenderBindings,
};
use gpudata::{
    GpuDataDescriptor, GpuStruct, GpuVectorFormat, StepMode, StructLayout, Unorm8x4, VertexFormat,
};

const WIDTH: u32 = 16;

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
struct Instance {
    color: Unorm8x4,
    scale: f32,
    id: u32,
}

fn offsets(rows: usize) -> Vec<[f32; 2]> {
    (0..rows)
        .map(|i| [i as f32 * 0.25 - 1.0, 100.0 + i as f32 * 3.5])
        .collect()
}

fn instances(rows: usize) -> Vec<Instance> {
    (0..rows)
        .map(|i| Instance {
            color: Unorm8x4([i as u8 * 17, 255 - i as u8 * 9, 3, 128]),
            scale: 0.5 + i as f32,
            id: 1000 + i as u32 * 7,
        })
        .collect()
}

const TINT: [u8; 4] = [51, 102, 153, 204];

/// The table of the issue: `offset` (packed `float32x2`), `instance` (interleaved rows of a
/// derived struct) and `tint` (a `unorm8x4` constant).
pub(super) fn mixed_table(gpu: &gpudata::Gpu, rows: usize) -> GpuTable {
    let offset = column(gpu, VertexFormat::Float32x2, &offsets(rows));
    GpuTable::from_columns(
        [
            (
                "offset",
                GpuColumn::from(GpuVector::from_data("offset", vec![offset]).unwrap()),
            ),
            (
                "instance",
                GpuVector::from_rows(gpu, "instance", &instances(rows), None)
                    .unwrap()
                    .into(),
            ),
            (
                "tint",
                GpuConstant::new(VertexFormat::Unorm8x4, &TINT)
                    .unwrap()
                    .into(),
            ),
        ],
        RecordBatchOptions::default(),
    )
    .unwrap()
}

/// What every path should deliver for row `i`: offset.xy, scale, id, color.rgba, tint.rgba,
/// as bits.
fn expected_row(i: usize) -> [u32; 12] {
    let o = offsets(i + 1)[i];
    let inst = instances(i + 1)[i];
    let c = inst.color.0.map(|v| (f32::from(v) / 255.0).to_bits());
    let t = TINT.map(|v| (f32::from(v) / 255.0).to_bits());
    [
        o[0].to_bits(),
        o[1].to_bits(),
        inst.scale.to_bits(),
        inst.id,
        c[0],
        c[1],
        c[2],
        c[3],
        t[0],
        t[1],
        t[2],
        t[3],
    ]
}

/// Bits of normalized values may differ by the shader's division rounding (WGSL allows 2.5
/// ULP); everything else must match exactly.
fn assert_row(path: &str, i: usize, got: &[u32], expected: &[u32; 12]) {
    for (k, (g, e)) in got.iter().zip(expected).enumerate() {
        if k < 4 {
            assert_eq!(g, e, "{path}: row {i} word {k}");
        } else {
            let (g, e) = (f32::from_bits(*g), f32::from_bits(*e));
            assert!(
                (g - e).abs() <= 1e-6,
                "{path}: row {i} word {k}: {g} vs {e}"
            );
        }
    }
}

pub(super) fn vertex_shader(bindings: &TableRenderBindings) -> String {
    let loc = |name: &str| bindings.location(name).unwrap();
    format!(
        r"
struct In {{
    @builtin(vertex_index) index: u32,
    @location({offset}) offset: vec2<f32>,
    @location({color}) color: vec4<f32>,
    @location({scale}) scale: f32,
    @location({id}) id: u32,
    @location({tint}) tint: vec4<f32>,
}}
struct Out {{
    @builtin(position) position: vec4<f32>,
    @location(0) @interpolate(flat) a: vec4<u32>,
    @location(1) @interpolate(flat) b: vec4<u32>,
    @location(2) @interpolate(flat) c: vec4<u32>,
}}
@vertex fn vs_main(v: In) -> Out {{
    var out: Out;
    let x = (f32(v.index) + 0.5) / {WIDTH}.0 * 2.0 - 1.0;
    out.position = vec4<f32>(x, 0.0, 0.0, 1.0);
    out.a = vec4<u32>(bitcast<u32>(v.offset.x), bitcast<u32>(v.offset.y), bitcast<u32>(v.scale), v.id);
    out.b = bitcast<vec4<u32>>(v.color);
    out.c = bitcast<vec4<u32>>(v.tint);
    return out;
}}
struct Targets {{
    @location(0) a: vec4<u32>,
    @location(1) b: vec4<u32>,
    @location(2) c: vec4<u32>,
}}
@fragment fn fs_main(v: Out) -> Targets {{
    return Targets(v.a, v.b, v.c);
}}
",
        offset = loc("offset"),
        color = loc("color"),
        scale = loc("scale"),
        id = loc("id"),
        tint = loc("tint"),
    )
}

fn render_rows(gpu: &gpudata::Gpu, table: &GpuTable) -> Vec<[u32; 12]> {
    let bindings = table
        .render_bindings(gpu, RenderOptions::default())
        .unwrap();
    let shader = vertex_shader(&bindings);
    let targets = render_capture(gpu, &shader, &bindings.vertex_layouts(), 3, WIDTH, |pass| {
        for batch in bindings.batches() {
            batch.draw_rows(pass, 0..1).unwrap();
        }
    });
    (0..WIDTH as usize)
        .map(|x| {
            let mut row = [0u32; 12];
            row[..4].copy_from_slice(&targets[0][x]);
            row[4..8].copy_from_slice(&targets[1][x]);
            row[8..].copy_from_slice(&targets[2][x]);
            row
        })
        .collect()
}

/// Reads every row through the storage bindings and the generated accessors.
fn storage_rows(gpu: &gpudata::Gpu, batch: &BatchStorage, wgsl: &str) -> Vec<[u32; 12]> {
    let out_binding = (batch.columns().len() + batch.constants().len()) as u32;
    let rows = batch.rows();
    let shader = format!(
        r"{wgsl}
@group(0) @binding({out_binding}) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    let row = g.x;
    if (row >= {rows}u) {{
        return;
    }}
    let o = offset_at(row);
    let c = color_at(row);
    let t = tint_at(row);
    let w = row * 12u;
    out[w + 0u] = bitcast<u32>(o.x);
    out[w + 1u] = bitcast<u32>(o.y);
    out[w + 2u] = bitcast<u32>(scale_at(row));
    out[w + 3u] = id_at(row);
    out[w + 4u] = bitcast<u32>(c.x);
    out[w + 5u] = bitcast<u32>(c.y);
    out[w + 6u] = bitcast<u32>(c.z);
    out[w + 7u] = bitcast<u32>(c.w);
    out[w + 8u] = bitcast<u32>(t.x);
    out[w + 9u] = bitcast<u32>(t.y);
    out[w + 10u] = bitcast<u32>(t.z);
    out[w + 11u] = bitcast<u32>(t.w);
}}
"
    );
    let words = compute_capture(
        gpu,
        &shader,
        batch.bind_group_layout_entries(0, wgpu::ShaderStages::COMPUTE),
        batch.bind_group_entries(0),
        out_binding,
        rows * 12,
        rows as u32,
    );
    words
        .chunks_exact(12)
        .map(|w| {
            let mut row = [0u32; 12];
            row.copy_from_slice(w);
            row
        })
        .collect()
}

#[test]
fn packed_interleaved_and_constant_columns_render_and_segment() {
    let gpu = gpu();
    let rows = WIDTH as usize;
    let table = mixed_table(&gpu, rows);
    assert_eq!(table.num_rows(), rows as u64);
    assert_eq!(table.buffer_layouts().len(), 2);

    // 1. Vertex fetch: packed + interleaved + zero-stride constant.
    let bindings = table
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap();
    let layouts = bindings.vertex_layout().buffers();
    assert_eq!(layouts.len(), 3);
    assert_eq!(layouts[1].array_stride, Instance::FORMAT.byte_stride());
    assert_eq!(
        layouts[2].array_stride, 0,
        "the constant binds with stride 0"
    );
    let locations: Vec<(&str, u32)> = bindings
        .locations()
        .iter()
        .map(|(n, l)| (n.as_str(), *l))
        .collect();
    assert_eq!(
        locations,
        [
            ("offset", 0),
            ("color", 1),
            ("scale", 2),
            ("id", 3),
            ("tint", 4)
        ]
    );
    let rendered = render_rows(&gpu, &table);
    for (i, row) in rendered.iter().enumerate() {
        assert_row("vertex fetch", i, row, &expected_row(i));
    }

    // 2. The same table, segmented: one buffer, storage-aligned segments, same values.
    let segmented = table.to_segmented(&gpu, SegmentOptions::default()).unwrap();
    let alignment = u64::from(gpu.limits().min_storage_buffer_offset_alignment).max(4);
    let names: Vec<&str> = segmented
        .layout()
        .segments()
        .iter()
        .map(|s| s.name())
        .collect();
    assert_eq!(names, ["offset", "color", "scale", "id"]);
    for segment in segmented.layout().segments() {
        assert_eq!(segment.byte_offset() % alignment, 0, "{segment:?}");
        assert_eq!(segment.length(), rows as u64);
    }
    let color = segmented.segment("color").unwrap();
    assert_eq!(
        color.format(),
        GpuVectorFormat::Fixed(VertexFormat::Unorm8x4)
    );
    assert_eq!(color.byte_stride(), 4);
    assert_eq!(segmented.table().constant("tint").unwrap().bytes(), &TINT);
    // The segments hold the packed bytes of each field.
    let id_bytes = segmented
        .segment_data("id")
        .unwrap()
        .read_bytes(&gpu)
        .unwrap();
    let ids: Vec<u32> = instances(rows).iter().map(|i| i.id).collect();
    assert_eq!(id_bytes, bytemuck::cast_slice::<u32, u8>(&ids));

    let storage = segmented.table().storage_bindings(&gpu).unwrap();
    let wgsl = storage.wgsl(0, 0).unwrap();
    assert!(
        wgsl.contains("var<storage, read> color_words: array<u32>"),
        "{wgsl}"
    );
    assert!(
        wgsl.contains("var<uniform> tint_words: vec4<u32>"),
        "{wgsl}"
    );
    let batch = &storage.batches()[0];
    for column in batch.columns() {
        assert_eq!(column.base(), 0, "segments bind exactly at their offset");
        let segment = segmented.segment(column.name()).unwrap();
        assert_eq!(column.offset(), segment.byte_offset());
    }
    let stored = storage_rows(&gpu, batch, &wgsl);
    for (i, row) in stored.iter().enumerate() {
        assert_row("segmented storage", i, row, &expected_row(i));
    }

    // 3. The original table through storage bindings: interleaved accessors read the rows.
    let storage = table.storage_bindings(&gpu).unwrap();
    let wgsl = storage.wgsl(0, 0).unwrap();
    assert!(wgsl.contains("var<storage, read> instance_words"), "{wgsl}");
    let stored = storage_rows(&gpu, &storage.batches()[0], &wgsl);
    for (i, row) in stored.iter().enumerate() {
        assert_row("interleaved storage", i, row, &expected_row(i));
    }

    // 4. Back from segments to packed columns and to interleaved rows: same draws.
    let packed = segmented
        .to_packed(&gpu, SegmentOptions::default())
        .unwrap();
    assert_eq!(packed.buffer_layouts().len(), 4);
    assert_eq!(render_rows(&gpu, &packed), rendered);
    let interleaved = segmented
        .to_interleaved(&gpu, "rows", StructLayout::Packed, None)
        .unwrap();
    assert_eq!(interleaved.buffer_layouts().len(), 1);
    assert_eq!(render_rows(&gpu, &interleaved), rendered);
    segmented.destroy();
}

#[test]
fn multi_batch_tables_draw_batch_by_batch() {
    let gpu = gpu();
    let all = offsets(8);
    let chunk = |range: std::ops::Range<usize>| column(&gpu, VertexFormat::Float32x2, &all[range]);
    let table = GpuTable::from_vectors(
        [GpuVector::from_data("offset", vec![chunk(0..5), chunk(5..8)]).unwrap()],
        RecordBatchOptions::default(),
    )
    .unwrap();
    assert_eq!(table.batches().len(), 2);
    let bindings = table
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap();
    assert_eq!(bindings.batches().len(), 2);
    let shader = format!(
        r"
struct Out {{
    @builtin(position) position: vec4<f32>,
    @location(0) @interpolate(flat) a: vec4<u32>,
}}
@vertex fn vs_main(@builtin(vertex_index) index: u32, @builtin(instance_index) batch: u32, @location(0) offset: vec2<f32>) -> Out {{
    var out: Out;
    // The second batch draws with first instance 5, so its rows land after the first's.
    let x = (f32(index + batch) + 0.5) / {WIDTH}.0 * 2.0 - 1.0;
    out.position = vec4<f32>(x, 0.0, 0.0, 1.0);
    out.a = vec4<u32>(bitcast<u32>(offset.x), bitcast<u32>(offset.y), index, batch);
    return out;
}}
@fragment fn fs_main(v: Out) -> @location(0) vec4<u32> {{
    return v.a;
}}
"
    );
    let targets = render_capture(
        &gpu,
        &shader,
        &bindings.vertex_layouts(),
        1,
        WIDTH,
        |pass| {
            let mut first = 0u32;
            for batch in bindings.batches() {
                batch.draw_rows(pass, first..first + 1).unwrap();
                first += batch.rows() as u32;
            }
        },
    );
    for (i, o) in all.iter().enumerate() {
        let px = targets[0][i];
        assert_eq!([px[0], px[1]], [o[0].to_bits(), o[1].to_bits()], "row {i}");
    }
}

#[test]
fn indexed_tables_draw_through_their_index_buffer() {
    let gpu = gpu();
    let rows = 6;
    let indices: Vec<u32> = vec![4, 1, 5];
    let index_descriptor = GpuDataDescriptor {
        format: Some(GpuVectorFormat::VertexList(VertexFormat::Uint32).into()),
        length: rows,
        value_length: Some(indices.len() as u64),
        ..Default::default()
    };
    let index_data = bytes(
        &gpu,
        bytemuck::cast_slice(&indices),
        index_descriptor.clone(),
    );
    // The index buffer needs INDEX usage: copy the indices into such a buffer.
    let index_buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("indices"),
        size: 12,
        usage: wgpu::BufferUsages::INDEX
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    gpu.queue()
        .write_buffer(&index_buffer, 0, bytemuck::cast_slice(&indices));
    // Offsets and the indices `index_data`.
    let offsets_and_indices = |index_data: gpudata::GpuData| {
        GpuTable::from_vectors(
            [
                GpuVector::from_data(
                    "offset",
                    vec![column(
                        &gpu,
                        VertexFormat::Float32x2,
                        &offsets(rows as usize),
                    )],
                )
                .unwrap(),
                GpuVector::from_data("indices", vec![index_data]).unwrap(),
            ],
            RecordBatchOptions::default(),
        )
        .unwrap()
    };
    let no_index_usage = offsets_and_indices(index_data);
    let error = no_index_usage
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap_err();
    assert!(error.to_string().contains("INDEX"), "{error}");

    let index_data =
        gpudata::GpuData::new(gpudata::BufferHandle::Owned(index_buffer), index_descriptor)
            .unwrap();
    let table = offsets_and_indices(index_data);
    let bindings = table
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap();
    let index = bindings.batches()[0].index().unwrap();
    assert_eq!((index.count, index.format), (3, wgpu::IndexFormat::Uint32));
    let shader = format!(
        r"
struct Out {{
    @builtin(position) position: vec4<f32>,
    @location(0) @interpolate(flat) a: vec4<u32>,
}}
@vertex fn vs_main(@builtin(vertex_index) index: u32, @location(0) offset: vec2<f32>) -> Out {{
    var out: Out;
    let x = (f32(index) + 0.5) / {WIDTH}.0 * 2.0 - 1.0;
    out.position = vec4<f32>(x, 0.0, 0.0, 1.0);
    out.a = vec4<u32>(bitcast<u32>(offset.x), bitcast<u32>(offset.y), index, 7u);
    return out;
}}
@fragment fn fs_main(v: Out) -> @location(0) vec4<u32> {{
    return v.a;
}}
"
    );
    let targets = render_capture(
        &gpu,
        &shader,
        &bindings.vertex_layouts(),
        1,
        WIDTH,
        |pass| {
            bindings.batches()[0].draw_rows(pass, 0..1).unwrap();
        },
    );
    let all = offsets(rows as usize);
    for x in 0..rows as usize {
        let px = targets[0][x];
        if indices.contains(&(x as u32)) {
            assert_eq!(
                px,
                [all[x][0].to_bits(), all[x][1].to_bits(), x as u32, 7],
                "row {x}"
            );
        } else {
            assert_eq!(px, [u32::MAX; 4], "row {x} is not indexed");
        }
    }
}

#[test]
fn instance_stepped_layouts_draw_rows_as_instances() {
    let gpu = gpu();
    let rows = 5usize;
    let table = GpuTable::from_vectors(
        [
            GpuVector::from_rows(&gpu, "instance", &instances(rows), Some(StepMode::Instance))
                .unwrap(),
        ],
        RecordBatchOptions::default(),
    )
    .unwrap();
    let bindings = table
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap();
    assert_eq!(
        bindings.vertex_layout().buffers()[0].step_mode,
        wgpu::VertexStepMode::Instance
    );
    let shader = format!(
        r"
struct Out {{
    @builtin(position) position: vec4<f32>,
    @location(0) @interpolate(flat) a: vec4<u32>,
}}
@vertex fn vs_main(@builtin(instance_index) instance: u32, @location(0) color: vec4<f32>, @location(1) scale: f32, @location(2) id: u32) -> Out {{
    var out: Out;
    let x = (f32(instance) + 0.5) / {WIDTH}.0 * 2.0 - 1.0;
    out.position = vec4<f32>(x, 0.0, 0.0, 1.0);
    out.a = vec4<u32>(bitcast<u32>(scale), id, instance, bitcast<u32>(color.w));
    return out;
}}
@fragment fn fs_main(v: Out) -> @location(0) vec4<u32> {{
    return v.a;
}}
"
    );
    let targets = render_capture(
        &gpu,
        &shader,
        &bindings.vertex_layouts(),
        1,
        WIDTH,
        |pass| {
            bindings.batches()[0].draw_instances(pass, 0..1).unwrap();
        },
    );
    for (i, inst) in instances(rows).iter().enumerate() {
        let px = targets[0][i];
        assert_eq!(
            &px[..3],
            &[inst.scale.to_bits(), inst.id, i as u32],
            "instance {i}"
        );
        assert_eq!(f32::from_bits(px[3]), 128.0 / 255.0);
    }
}

#[test]
fn a_tables_vertex_layout_is_what_its_render_bindings_bind() {
    use gpudata::layout::VertexLayoutSource as _;
    let gpu = gpu();
    let table = mixed_table(&gpu, 4);
    let layout = table.vertex_layout(2, StepMode::Instance).unwrap();
    let options = RenderOptions {
        step_mode: StepMode::Instance,
        base_location: 2,
    };
    let bindings = table.render_bindings(&gpu, options).unwrap();
    assert_eq!(&layout, bindings.vertex_layout());
    // Every attribute with its name, format, location and slot; the constant is named after
    // its column.
    let attributes: Vec<(&str, VertexFormat, u32, usize)> = layout.attributes().collect();
    assert_eq!(
        attributes,
        [
            ("offset", VertexFormat::Float32x2, 2, 0),
            ("color", VertexFormat::Unorm8x4, 3, 1),
            ("scale", VertexFormat::Float32, 4, 1),
            ("id", VertexFormat::Uint32, 5, 1),
            ("tint", VertexFormat::Unorm8x4, 6, 2)
        ]
    );
    assert_eq!(layout.buffer_name(2), Some("tint"));
    assert_eq!(layout.next_location(2), Ok(7));
    // The WGSL inputs leave no attribute out.
    let inputs = bindings.wgsl_vertex_inputs();
    assert_eq!(inputs.lines().count(), 5, "{inputs}");
    assert!(
        inputs.contains("    @location(6) tint: vec4<f32>,"),
        "{inputs}"
    );
    // Each vector and batch gives its own part of it.
    let instance = table
        .vector("instance")
        .unwrap()
        .vertex_layout(3, StepMode::Instance);
    assert_eq!(instance.unwrap().buffers(), &layout.buffers()[1..2]);
    let offset = table
        .vector("offset")
        .unwrap()
        .vertex_layout(2, StepMode::Instance);
    assert_eq!(offset.unwrap().buffers(), &layout.buffers()[..1]);
    let batch = table.batches()[0]
        .vertex_layout(2, StepMode::Instance)
        .unwrap();
    assert_eq!(batch.buffers(), &layout.buffers()[..2]);
}

#[test]
fn a_list_vector_has_no_vertex_layout() {
    use gpudata::layout::VertexLayoutSource as _;
    let gpu = gpu();
    let list = bytes(
        &gpu,
        &[0; 16],
        GpuDataDescriptor::new(GpuVectorFormat::VertexList(VertexFormat::Float32), 2)
            .with_value_length(4),
    );
    let vector = GpuVector::from_data("paths", vec![list]).unwrap();
    let error = vector.vertex_layout(0, StepMode::Vertex).unwrap_err();
    assert_eq!(
        error,
        gpudata::LayoutError::NoVertexLayout {
            name: "paths".into(),
            format: "vertex-list<float32>".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "`paths` (vertex-list<float32>) has no vertex layout: vertex buffers hold rows of fixed-width vertex formats"
    );
}
