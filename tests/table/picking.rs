//! Picking (issue 28 item 6): a table of seven batches of different row counts (one empty),
//! each column chunked over them, drawn in one submission with every row a point at its own
//! pixel of an `r32uint` target; every texel, a row of each batch, an empty pixel and a
//! rectangle read back and resolved, against the host's placement of the rows. The draws carry
//! each batch's first row id at a dynamic offset of one uniform buffer that refuses writes.

use std::collections::BTreeSet;

use gpudata::data::DEFAULT_USAGE;
use gpudata::ops::GpuMask;
use gpudata::table::{
    GpuColumn, GpuRecordBatch, GpuTable, GpuVector, NO_ROW, PickError, PickOffsets, PickedRow,
    PickingTarget, PointPicking, PointPosition, PointView, RecordBatchOptions, RenderOptions,
    RowResolver, SourceInfo, SourceRow, TableError, TableRenderBindings,
};
use gpudata::{Gpu, GpuData, GpuError, StepMode, VertexFormat};

use crate::fixtures::{assert_error, gpu};
use crate::support::{Rng, fresh_gpu, validation_error};

/// The target: odd sides, so a row of texels is no multiple of the 256-byte copy pitch.
const WIDTH: u32 = 61;
const HEIGHT: u32 = 37;
/// Rows per batch: different counts, one empty batch (which draws nothing and holds no id).
const BATCH_ROWS: [u64; 7] = [13, 1, 0, 97, 40, 256, 5];

/// A table whose row `g` (over all batches) lies at `pixels[g]`: columns `xy` (`float32x2`,
/// the pixel's centre), `px` and `py` (`uint32`, the pixel), each one chunk per batch.
struct Scene {
    table: GpuTable,
    pixels: Vec<(u32, u32)>,
}

fn scene(gpu: &Gpu) -> Scene {
    let total = BATCH_ROWS.iter().sum::<u64>() as usize;
    // Distinct pixels: the first `total` of a shuffle of all of them.
    let mut rng = Rng::new(286);
    let mut all: Vec<u32> = (0..WIDTH * HEIGHT).collect();
    for i in (1..all.len()).rev() {
        all.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let pixels: Vec<(u32, u32)> = all[..total]
        .iter()
        .map(|&i| (i % WIDTH, i / WIDTH))
        .collect();
    let (mut xy, mut px, mut py) = (Vec::new(), Vec::new(), Vec::new());
    let mut first = 0;
    for rows in BATCH_ROWS {
        let batch = &pixels[first..first + rows as usize];
        first += rows as usize;
        let centres: Vec<[f32; 2]> = batch
            .iter()
            .map(|&(x, y)| [x as f32 + 0.5, y as f32 + 0.5])
            .collect();
        let xs: Vec<u32> = batch.iter().map(|p| p.0).collect();
        let ys: Vec<u32> = batch.iter().map(|p| p.1).collect();
        xy.push(
            GpuData::from_slice(gpu, VertexFormat::Float32x2, &centres, DEFAULT_USAGE).unwrap(),
        );
        px.push(GpuData::from_slice(gpu, VertexFormat::Uint32, &xs, DEFAULT_USAGE).unwrap());
        py.push(GpuData::from_slice(gpu, VertexFormat::Uint32, &ys, DEFAULT_USAGE).unwrap());
    }
    let table = GpuTable::from_columns(
        [
            (
                "xy",
                GpuColumn::from(GpuVector::from_data("xy", xy).unwrap()),
            ),
            ("px", GpuVector::from_data("px", px).unwrap().into()),
            ("py", GpuVector::from_data("py", py).unwrap().into()),
        ],
        RecordBatchOptions::default(),
    )
    .unwrap();
    assert_eq!(table.batches().len(), BATCH_ROWS.len());
    assert_eq!(table.vector("xy").unwrap().chunks().len(), BATCH_ROWS.len());
    Scene { table, pixels }
}

/// The table's render bindings, rows stepping per `step_mode`.
fn step_bindings(gpu: &Gpu, table: &GpuTable, step_mode: StepMode) -> TableRenderBindings {
    table
        .render_bindings(
            gpu,
            RenderOptions {
                step_mode,
                base_location: 0,
            },
        )
        .unwrap()
}

/// The host's target: row id plus one at each row's pixel, [`NO_ROW`] elsewhere.
fn expected_texels(pixels: &[(u32, u32)]) -> Vec<u32> {
    let mut texels = vec![NO_ROW; (WIDTH * HEIGHT) as usize];
    for (row, &(x, y)) in pixels.iter().enumerate() {
        texels[(y * WIDTH + x) as usize] = row as u32 + 1;
    }
    texels
}

/// The host's (batch, row within it) of row id `global`.
fn batch_and_row(global: u64) -> (usize, u64) {
    let mut first = 0;
    for (batch, rows) in BATCH_ROWS.into_iter().enumerate() {
        if global < first + rows {
            return (batch, global - first);
        }
        first += rows;
    }
    panic!("row {global} is past the table");
}

/// Checks the whole target, one row of every batch, an empty pixel and a rectangle.
fn check_target(gpu: &Gpu, target: &PickingTarget, resolver: &RowResolver, pixels: &[(u32, u32)]) {
    let whole = target.read_rect(gpu, 0, 0, WIDTH, HEIGHT).unwrap();
    let expected = expected_texels(pixels);
    assert_eq!(whole.texels, expected);
    assert_eq!(whole.covered(), pixels.len());

    // A row of every batch with rows: its middle one.
    let mut first = 0;
    for (batch, rows) in BATCH_ROWS.into_iter().enumerate() {
        if rows > 0 {
            let row = rows / 2;
            let global = first + row;
            let (x, y) = pixels[global as usize];
            let picked = target.pick(gpu, resolver, x, y).unwrap();
            assert_eq!(
                picked,
                Some(PickedRow {
                    global_row: global,
                    batch,
                    row,
                    source: None,
                }),
                "batch {batch} at ({x}, {y})"
            );
        }
        first += rows;
    }
    // Row 0 is not "no row".
    let (x0, y0) = pixels[0];
    assert_eq!(target.read_pixel(gpu, x0, y0).unwrap(), Some(0));

    // An empty pixel.
    let empty = (0..WIDTH * HEIGHT)
        .find(|&i| expected[i as usize] == NO_ROW)
        .unwrap();
    let (ex, ey) = (empty % WIDTH, empty / WIDTH);
    assert_eq!(target.read_pixel(gpu, ex, ey).unwrap(), None);
    assert_eq!(target.pick(gpu, resolver, ex, ey).unwrap(), None);

    // A rectangle: the set of rows whose pixels lie inside it.
    let (rx, ry, rw, rh) = (7, 5, 23, 17);
    let inside: BTreeSet<u64> = pixels
        .iter()
        .enumerate()
        .filter(|(_, (x, y))| (rx..rx + rw).contains(x) && (ry..ry + rh).contains(y))
        .map(|(g, _)| g as u64)
        .collect();
    assert!(inside.len() > 10, "{} rows in the rectangle", inside.len());
    let rect = target.read_rect(gpu, rx, ry, rw, rh).unwrap();
    assert_eq!(rect.rows(), inside);
    let picked = target.pick_rect(gpu, resolver, (rx, ry), (rw, rh)).unwrap();
    let want: Vec<PickedRow> = inside
        .iter()
        .map(|&g| {
            let (batch, row) = batch_and_row(g);
            PickedRow {
                global_row: g,
                batch,
                row,
                source: None,
            }
        })
        .collect();
    assert_eq!(picked, want);
    let batches: BTreeSet<usize> = picked.iter().map(|p| p.batch).collect();
    assert!(batches.len() >= 3, "rows of {batches:?} in the rectangle");

    // The same rectangle reduced on the GPU to a row mask over the table's rows.
    let mask = target.rect_mask(gpu, resolver, (rx, ry), (rw, rh)).unwrap();
    assert_eq!(mask.len(), pixels.len() as u64);
    assert_eq!(kept_rows(gpu, &mask), inside);
    assert_eq!(mask.count(gpu).unwrap(), inside.len() as u64);
    // The whole target keeps every row; one empty pixel keeps none.
    let all = target
        .rect_mask(gpu, resolver, (0, 0), (WIDTH, HEIGHT))
        .unwrap();
    assert_eq!(all.count(gpu).unwrap(), pixels.len() as u64);
    let none = target.rect_mask(gpu, resolver, (ex, ey), (1, 1)).unwrap();
    assert_eq!(none.count(gpu).unwrap(), 0);
}

/// The rows a mask keeps.
fn kept_rows(gpu: &Gpu, mask: &GpuMask) -> BTreeSet<u64> {
    let bools = mask.read(gpu).unwrap();
    (0..bools.len() as u64)
        .filter(|&g| bools[g as usize])
        .collect()
}

#[test]
fn point_picking_draws_every_batch_in_one_submission_and_resolves_rows() {
    let gpu = gpu();
    let Scene { table, pixels } = scene(&gpu);
    let bindings = step_bindings(&gpu, &table, StepMode::Vertex);
    // The empty batch has no draw: draws name their table batch.
    let drawn: Vec<usize> = bindings.batches().iter().map(|b| b.batch()).collect();
    assert_eq!(drawn, [0, 1, 3, 4, 5, 6]);
    let resolver = RowResolver::new(&table).unwrap();
    assert_eq!(resolver.rows(), pixels.len() as u64);
    let offsets = PickOffsets::new(&gpu, &resolver).unwrap();
    let align = u64::from(gpu.limits().min_uniform_buffer_offset_alignment);
    assert_eq!(offsets.stride(), 16u64.div_ceil(align) * align);
    assert_eq!(offsets.offset(3).unwrap() as u64, 3 * offsets.stride());
    let target = PickingTarget::new(&gpu, WIDTH, HEIGHT).unwrap();
    let view = PointView {
        x_range: [0.0, WIDTH as f32],
        y_range: [HEIGHT as f32, 0.0],
    };
    let points =
        PointPicking::new(&gpu, &bindings, &PointPosition::Lanes("xy".into()), view).unwrap();
    assert!(
        points
            .wgsl()
            .contains("fn gpudata_pick_id(row: u32) -> u32")
    );
    points.render(&gpu, &target, &offsets, &bindings).unwrap();
    check_target(&gpu, &target, &resolver, &pixels);

    // Brushing: the rows under a rectangle, selected on the GPU, filter the table; the kept
    // rows' pixels are those inside, in table order.
    let (rx, ry, rw, rh) = (3, 2, 40, 21);
    let brush = target
        .rect_mask(&gpu, &resolver, (rx, ry), (rw, rh))
        .unwrap();
    let brushed = table.filter(&gpu, &brush).unwrap();
    let inside: Vec<(u32, u32)> = pixels
        .iter()
        .copied()
        .filter(|(x, y)| (rx..rx + rw).contains(x) && (ry..ry + rh).contains(y))
        .collect();
    let column = |name: &str| -> Vec<u32> {
        let bytes = brushed.vector(name).unwrap().read_bytes(&gpu).unwrap();
        bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    };
    let kept: Vec<(u32, u32)> = column("px").into_iter().zip(column("py")).collect();
    assert!(inside.len() > 100, "{} rows brushed", inside.len());
    assert_eq!(kept, inside);
    // A resolver of fewer rows than were drawn: ids past its rows keep nothing.
    let first_100 = RowResolver::from_batch_rows(&[60, 40]).unwrap();
    let mask = target
        .rect_mask(&gpu, &first_100, (0, 0), (WIDTH, HEIGHT))
        .unwrap();
    assert_eq!(mask.len(), 100);
    assert_eq!(kept_rows(&gpu, &mask), (0..100).collect());
    assert_eq!(mask.count(&gpu).unwrap(), 100);

    // Two columns, instance-stepped, give the same target.
    let instanced = step_bindings(&gpu, &table, StepMode::Instance);
    let columns = PointPosition::Columns {
        x: "px".into(),
        y: "py".into(),
    };
    let view = PointView {
        x_range: [-0.5, WIDTH as f32 - 0.5],
        y_range: [HEIGHT as f32 - 0.5, -0.5],
    };
    let points = PointPicking::new(&gpu, &instanced, &columns, view).unwrap();
    assert!(points.wgsl().contains("@builtin(instance_index)"));
    let target = PickingTarget::new(&gpu, WIDTH, HEIGHT).unwrap();
    points.render(&gpu, &target, &offsets, &instanced).unwrap();
    check_target(&gpu, &target, &resolver, &pixels);
}

#[test]
fn a_shader_of_its_own_writes_ids_with_the_offsets_snippet() {
    let gpu = gpu();
    let Scene { table, pixels } = scene(&gpu);
    let bindings = step_bindings(&gpu, &table, StepMode::Instance);
    let (lx, ly) = (
        bindings.location("px").unwrap(),
        bindings.location("py").unwrap(),
    );
    // The offsets at group 1; group 0 holds a uniform of the shader's own.
    let wgsl = format!(
        "{snippet}
@group(0) @binding(0) var<uniform> size: vec4<f32>;

struct Out {{
    @builtin(position) position: vec4<f32>,
    @location(0) @interpolate(flat) id: u32,
}}

@vertex
fn vs(@builtin(instance_index) row: u32, @location({lx}) px: u32, @location({ly}) py: u32) -> Out {{
    let centre = (vec2<f32>(f32(px), f32(py)) + 0.5) / size.xy;
    var out: Out;
    out.position = vec4<f32>(centre.x * 2.0 - 1.0, 1.0 - centre.y * 2.0, 0.0, 1.0);
    out.id = gpudata_pick_id(row);
    return out;
}}

@fragment
fn fs(in: Out) -> @location(0) u32 {{
    return in.id;
}}
",
        snippet = PickOffsets::wgsl(1, 0)
    );
    let device = gpu.device();
    let size_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::VERTEX,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }],
    });
    let size = crate::support::buffer_with(
        &gpu,
        bytemuck::cast_slice(&[WIDTH as f32, HEIGHT as f32, 0.0, 0.0]),
        wgpu::BufferUsages::UNIFORM,
    );
    let size_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &size_layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: size.as_entire_binding(),
        }],
    });
    let offsets_layout = PickOffsets::bind_group_layout(&gpu).unwrap();
    let pipeline = PickingTarget::pipeline(
        &gpu,
        &wgsl,
        &[&size_layout, &offsets_layout],
        &bindings.vertex_layouts(),
        wgpu::PrimitiveTopology::PointList,
    )
    .unwrap();
    let resolver = RowResolver::new(&table).unwrap();
    let offsets = PickOffsets::new(&gpu, &resolver).unwrap();
    let target = PickingTarget::new(&gpu, WIDTH, HEIGHT).unwrap();
    // Every batch in one pass of one encoder, one submission.
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: None,
            color_attachments: &[Some(target.color_attachment())],
            ..Default::default()
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &size_group, &[]);
        offsets
            .draw_batches(&mut pass, 1, &bindings, |pass, batch| {
                batch.draw_instances(pass, 0..1)
            })
            .unwrap();
    }
    gpu.queue().submit([encoder.finish()]);
    check_target(&gpu, &target, &resolver, &pixels);
}

#[test]
fn the_offsets_buffer_refuses_writes() {
    let gpu = gpu();
    let resolver = RowResolver::from_batch_rows(&[3, 4, 5]).unwrap();
    let offsets = PickOffsets::new(&gpu, &resolver).unwrap();
    assert_eq!(offsets.buffer().usage(), wgpu::BufferUsages::UNIFORM);
    // What luma.gl's per-batch draws did between draws: wgpu refuses it here.
    let ((), error) = validation_error(&gpu, || {
        gpu.queue()
            .write_buffer(offsets.buffer(), 0, bytemuck::cast_slice(&[7u32; 4]));
    });
    assert!(error.is_some(), "a write into the offsets was accepted");
}

#[test]
fn rows_resolve_to_their_arrow_source_rows() {
    let gpu = gpu();
    // Source batch 0 (rows 0..7) cut into two GPU batches, source batch 1 (rows 7..12) whole.
    let infos = [(0, 0, 4), (0, 4, 3), (1, 7, 5)];
    let batches = infos
        .iter()
        .map(
            |&(source_batch_index, source_row_index_offset, source_row_count)| {
                let values = vec![0.0f32; source_row_count as usize];
                let data = GpuData::from_slice(&gpu, VertexFormat::Float32, &values, DEFAULT_USAGE)
                    .unwrap();
                GpuRecordBatch::with_options(
                    [("v", data)],
                    RecordBatchOptions {
                        source_info: Some(SourceInfo {
                            source_batch_index,
                            source_row_index_offset,
                            source_row_count,
                        }),
                        ..RecordBatchOptions::default()
                    },
                )
                .unwrap()
            },
        )
        .collect();
    let table =
        GpuTable::from_batches(batches, Vec::<(String, gpudata::GpuConstant)>::new()).unwrap();
    let resolver = RowResolver::new(&table).unwrap();
    let source = |batch, row, table_row| {
        Some(SourceRow {
            batch,
            row,
            table_row,
        })
    };
    let cases = [
        (0, 0, 0, source(0, 0, 0)),
        (5, 1, 1, source(0, 5, 5)),
        (8, 2, 1, source(1, 1, 8)),
        (11, 2, 4, source(1, 4, 11)),
    ];
    for (global_row, batch, row, source) in cases {
        assert_eq!(
            resolver.resolve(global_row).unwrap(),
            PickedRow {
                global_row,
                batch,
                row,
                source,
            }
        );
        assert_eq!(resolver.global_row(batch, row).unwrap(), global_row);
    }
}

#[test]
fn pick_errors() {
    let gpu = gpu();
    let max = gpu.limits().max_texture_dimension_2d;
    assert_error(
        &PickingTarget::new(&gpu, 0, 4).unwrap_err(),
        PickError::TargetSize {
            width: 0,
            height: 4,
            max,
        },
        &format!(
            "a picking target of 0x4 pixels: expected 1 to {max} pixels per side (the device's max_texture_dimension_2d)"
        ),
    );
    let target = PickingTarget::new(&gpu, 8, 4).unwrap();
    assert_error(
        &target.read_pixel(&gpu, 8, 0).unwrap_err(),
        PickError::PixelOutOfRange {
            x: 8,
            y: 0,
            width: 8,
            height: 4,
        },
        "pixel (8, 0) lies outside the 8x4 picking target",
    );
    assert_error(
        &target.read_rect(&gpu, 6, 1, 3, 2).unwrap_err(),
        PickError::RectOutOfRange {
            x: 6,
            y: 1,
            rect_width: 3,
            rect_height: 2,
            width: 8,
            height: 4,
        },
        "rectangle of 3x2 pixels at (6, 1) does not lie inside the 8x4 picking target (expected at least one pixel, all inside)",
    );
    assert!(matches!(
        target.read_rect(&gpu, 0, 0, 0, 1),
        Err(PickError::RectOutOfRange { .. })
    ));
    let other = fresh_gpu();
    assert!(matches!(
        target.read_rect(&other, 0, 0, 1, 1),
        Err(PickError::Gpu(GpuError::OtherDevice { .. }))
    ));
    let resolver = RowResolver::from_batch_rows(&[5]).unwrap();
    assert!(matches!(
        target.rect_mask(&gpu, &resolver, (6, 1), (3, 2)),
        Err(PickError::RectOutOfRange { x: 6, y: 1, .. })
    ));
    assert!(matches!(
        target.rect_mask(&gpu, &resolver, (0, 0), (1, 0)),
        Err(PickError::RectOutOfRange { .. })
    ));
    assert!(matches!(
        target.rect_mask(&other, &resolver, (0, 0), (1, 1)),
        Err(PickError::Gpu(GpuError::OtherDevice { .. }))
    ));
    assert_error(
        &RowResolver::from_batch_rows(&[u64::from(u32::MAX), 1]).unwrap_err(),
        PickError::TooManyRows { rows: 1 << 32 },
        "a table of 4294967296 rows cannot be picked: a texel holds the row id plus one in 32 bits (0 is no row), so at most 4294967295 rows",
    );
    let resolver = RowResolver::from_batch_rows(&[2, 1]).unwrap();
    assert_error(
        &resolver.resolve(3).unwrap_err(),
        PickError::RowBeyondTable { row: 3, rows: 3 },
        "row id 3 is beyond the table's 3 rows",
    );
    let offsets = PickOffsets::new(&gpu, &resolver).unwrap();
    assert_error(
        &offsets.offset(2).unwrap_err(),
        PickError::BatchOutOfRange {
            batch: 2,
            batches: 2,
        },
        "batch 2 does not exist: the table has 2 batches",
    );
    assert_error(
        &resolver.global_row(1, 1).unwrap_err(),
        PickError::RowBeyondBatch {
            batch: 1,
            row: 1,
            rows: 1,
        },
        "row 1 does not exist in batch 1 of 1 row",
    );

    let Scene { table, .. } = scene(&gpu);
    let bindings = table
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap();
    let view = PointView {
        x_range: [0.0, 1.0],
        y_range: [0.0, 1.0],
    };
    assert_error(
        &PointPicking::new(&gpu, &bindings, &PointPosition::Lanes("z".into()), view).unwrap_err(),
        PickError::NoSuchColumn { column: "z".into() },
        "no vertex attribute `z` in the table's render bindings",
    );
    assert_error(
        &PointPicking::new(&gpu, &bindings, &PointPosition::Lanes("px".into()), view).unwrap_err(),
        PickError::PositionFormat {
            column: "px".into(),
            format: VertexFormat::Uint32,
            expected: "a column of two or more lanes",
        },
        "position column `px` has format uint32: expected a column of two or more lanes",
    );
}

/// Messages of variants no table of a test's size reaches: slots past `u32::MAX` bytes need
/// 16.7 million batches, a draw past `u32::MAX` rows a larger table than picking takes.
#[test]
fn pick_error_messages_past_u32() {
    assert_eq!(
        PickError::OffsetOverflow {
            batches: 16_777_217,
            stride: 256,
        }
        .to_string(),
        "uniform slots for 16777217 batches, 256 bytes apart, reach past u32::MAX, the largest dynamic offset"
    );
    assert_eq!(
        PickError::Table(TableError::TooManyRows { rows: 1 << 32 }).to_string(),
        "cannot draw 4294967296 rows: more than one draw can count (u32)"
    );
    assert_eq!(
        PickError::MaskTooLarge {
            rows: 4_000_000_000,
            bytes: 500_006_912,
            limit: 134_217_728,
        }
        .to_string(),
        "a row mask of 4000000000 rows needs 500006912 bytes, over the device's storage binding limit of 134217728 bytes"
    );
}
