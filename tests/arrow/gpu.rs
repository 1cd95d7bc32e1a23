//! The Arrow adapter on a real device (lavapipe in CI): every supported type uploaded from Arrow
//! and read back identical (sliced, empty, with nulls, several batches, segmented), fround on
//! the GPU, a record batch drawn through formats chosen from shader inputs, and the errors for
//! device limits and mismatched schemas.

use crate::support;

use std::sync::Arc;

use arrow_array::types::{Float32Type, Int16Type, Int32Type};
use arrow_array::{
    Array, ArrayRef, DictionaryArray, FixedSizeBinaryArray, FixedSizeListArray, Float32Array,
    Float64Array, Int8Array, ListArray, RecordBatch, StringArray, UInt8Array, UInt16Array,
};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Schema};
use gpudata::arrow::{
    ArrowInteropError, BatchOptions, ColumnOptions, FormatChoice, array_from_gpu, array_to_gpu,
    check_schemas, interleaved_field, record_batch_from_gpu_columns, record_batch_from_segmented,
    record_batch_to_gpu_columns, record_batch_to_segmented,
};
use gpudata::{GpuData, GpuDataStructFormat, GpuVectorFormat, StructLayout, VertexFormat};
use proptest::prelude::*;

fn fsl_field(child: DataType) -> Arc<Field> {
    Arc::new(Field::new_list_field(child, false))
}

/// A batch of `n` rows holding one column of every supported shape, from `seed`.
pub(crate) fn every_type_batch(n: usize, seed: u64) -> RecordBatch {
    let mut rng = support::Rng::new(seed | 1);
    let mut next = || rng.next_u32();
    let valid: Vec<bool> = (0..n).map(|i| i % 3 != 1).collect();
    let int8 = Int8Array::from_iter((0..n).map(|i| valid[i].then(|| next() as i8)));
    let uint16 = UInt16Array::from_iter_values((0..n).map(|_| next() as u16));
    let float16 = arrow_array::Float16Array::from_iter_values(
        (0..n).map(|_| half::f16::from_bits(next() as u16 & 0x7bff)),
    );
    let float32 = Float32Array::from_iter((0..n).map(|i| valid[i].then(|| next() as f32 / 7.0)));
    let float64 = Float64Array::from_iter_values((0..n).map(|_| f64::from(next()) / 3.0));
    let colors = FixedSizeListArray::try_new(
        fsl_field(DataType::UInt8),
        4,
        Arc::new(UInt8Array::from_iter_values(
            (0..4 * n).map(|_| next() as u8),
        )),
        None,
    )
    .unwrap();
    let positions = FixedSizeListArray::try_new(
        fsl_field(DataType::Float32),
        3,
        Arc::new(Float32Array::from_iter_values(
            (0..3 * n).map(|_| next() as f32),
        )),
        Some(NullBuffer::from(valid.clone())),
    )
    .unwrap();
    let lengths: Vec<usize> = (0..n).map(|_| next() as usize % 4).collect();
    let total: usize = lengths.iter().sum();
    let paths = ListArray::new(
        fsl_field(DataType::Int16),
        OffsetBuffer::from_lengths(lengths.iter().copied()),
        Arc::new(arrow_array::Int16Array::from_iter_values(
            (0..total).map(|_| next() as i16),
        )),
        None,
    );
    let vec2 = FixedSizeListArray::try_new(
        fsl_field(DataType::Float32),
        2,
        Arc::new(Float32Array::from_iter_values(
            (0..2 * total).map(|_| next() as f32),
        )),
        None,
    )
    .unwrap();
    let polygons = ListArray::new(
        fsl_field(vec2.data_type().clone()),
        OffsetBuffer::from_lengths(lengths.iter().copied()),
        Arc::new(vec2),
        None,
    );
    let names =
        StringArray::from_iter((0..n).map(|i| valid[i].then(|| format!("row {}", next() % 1000))));
    let categories = DictionaryArray::<Int32Type>::try_new(
        arrow_array::Int32Array::from_iter((0..n).map(|i| valid[i].then(|| (next() % 3) as i32))),
        Arc::new(StringArray::from(vec!["low", "mid", "high"])),
    )
    .unwrap();
    let rows =
        GpuDataStructFormat::parse(StructLayout::Packed, [("a", "float32"), ("b", "unorm8x4")])
            .unwrap();
    let layout = rows.buffer_layout("instances", None);
    let instances_field = interleaved_field("instances", &layout, false).unwrap();
    let instances = FixedSizeBinaryArray::try_new(
        8,
        Buffer::from_vec((0..8 * n).map(|_| next() as u8).collect::<Vec<u8>>()),
        None,
    )
    .unwrap();
    let columns: Vec<(Field, ArrayRef)> = vec![
        (Field::new("int8", DataType::Int8, true), Arc::new(int8)),
        (
            Field::new("uint16", DataType::UInt16, false),
            Arc::new(uint16),
        ),
        (
            Field::new("float16", DataType::Float16, false),
            Arc::new(float16),
        ),
        (
            Field::new("float32", DataType::Float32, true),
            Arc::new(float32),
        ),
        (
            Field::new("float64", DataType::Float64, false),
            Arc::new(float64),
        ),
        (
            Field::new("colors", colors.data_type().clone(), false),
            Arc::new(colors),
        ),
        (
            Field::new("positions", positions.data_type().clone(), true),
            Arc::new(positions),
        ),
        (
            Field::new("paths", paths.data_type().clone(), false),
            Arc::new(paths),
        ),
        (
            Field::new("polygons", polygons.data_type().clone(), false),
            Arc::new(polygons),
        ),
        (Field::new("names", DataType::Utf8, true), Arc::new(names)),
        (
            Field::new("categories", categories.data_type().clone(), true),
            Arc::new(categories),
        ),
        (instances_field, Arc::new(instances)),
    ];
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = columns.into_iter().unzip();
    let schema = Schema::new(fields).with_metadata([("source", "arrow_gpu test")]);
    RecordBatch::try_new(Arc::new(schema), arrays).unwrap()
}

pub(crate) fn options() -> BatchOptions {
    // Float64 travels as exact words; everything else takes its default format.
    BatchOptions::new().format("float64", "uint32x2".parse().unwrap())
}

fn round_trip(batch: &RecordBatch) -> RecordBatch {
    let gpu = support::gpu();
    let (columns, skipped) = record_batch_to_gpu_columns(&gpu, batch, &options()).unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(columns.len(), batch.num_columns());
    let metadata = batch.schema().metadata().clone();
    record_batch_from_gpu_columns(
        &gpu,
        columns.iter().map(|(n, d)| (n.as_str(), d)),
        batch.num_rows(),
        metadata,
    )
    .unwrap()
}

#[test]
fn every_type_round_trips_through_the_gpu() {
    let batch = every_type_batch(37, 11);
    assert_eq!(round_trip(&batch), batch);
}

#[test]
fn empty_batches_round_trip() {
    let batch = every_type_batch(0, 5);
    assert_eq!(round_trip(&batch), batch);
    let sliced = every_type_batch(9, 5).slice(9, 0);
    assert_eq!(round_trip(&sliced), sliced);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn sliced_batches_round_trip(n in 0_usize..40, offset in 0_usize..40, len in 0_usize..40, seed in any::<u64>()) {
        let batch = every_type_batch(n, seed);
        let offset = offset.min(n);
        let len = len.min(n - offset);
        let sliced = batch.slice(offset, len);
        prop_assert_eq!(round_trip(&sliced), sliced);
    }
}

#[test]
fn several_batches_keep_their_boundaries() {
    let batches = [
        every_type_batch(5, 1),
        every_type_batch(0, 2),
        every_type_batch(8, 3),
    ];
    check_schemas(&batches).unwrap();
    for batch in &batches {
        assert_eq!(&round_trip(batch), batch);
    }
}

#[test]
fn segmented_batch_shares_one_buffer() {
    let gpu = support::gpu();
    let batch = every_type_batch(13, 7).slice(2, 9);
    // Interleaved rows have no single vector format: a segment cannot hold them.
    let batch = batch
        .project(&(0..batch.num_columns() - 1).collect::<Vec<_>>())
        .unwrap();
    let (segmented, skipped) = record_batch_to_segmented(&gpu, &batch, &options()).unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    let alignment = u64::from(gpu.limits().min_storage_buffer_offset_alignment);
    for segment in segmented.layout().segments() {
        let data = segmented.segment_data(segment.name()).unwrap();
        assert_eq!(data.buffer(), segmented.buffer());
        assert_eq!(data.byte_offset(), segment.byte_offset());
        assert_eq!(segment.byte_offset() % alignment, 0);
    }
    assert_eq!(
        record_batch_from_segmented(&gpu, &segmented).unwrap(),
        batch
    );
}

#[test]
fn fround_splits_float64_on_the_gpu() {
    let gpu = support::gpu();
    let values = vec![
        std::f64::consts::PI,
        -std::f64::consts::E,
        0.1,
        -1.0 / 3.0,
        16_777_217.0,
        3.5e38,
        f64::INFINITY,
    ];
    let array = Float64Array::from(values.clone());
    let field = Field::new("x", DataType::Float64, false);
    let options = ColumnOptions {
        format: FormatChoice::Fround,
        ..ColumnOptions::default()
    };
    let data = array_to_gpu(&gpu, &field, &array, &options).unwrap();
    assert_eq!(
        data.format().and_then(|f| f.as_vector()),
        Some(GpuVectorFormat::Fixed(VertexFormat::Float32x2))
    );
    let words = data.read_bytes(&gpu).unwrap();
    let parts: &[f32] = bytemuck::cast_slice(&words);
    for (row, x) in parts.chunks(2).zip(&values) {
        // spec §8.8: hi = f32(x), lo = f32(x − hi); overflow → (±Inf, ∓Inf); ±Inf → (±Inf, NaN)
        let hi = *x as f32;
        assert_eq!(row[0].to_bits(), hi.to_bits(), "hi of {x}");
        if hi.is_finite() {
            assert_eq!(row[1], (x - f64::from(hi)) as f32, "lo of {x}");
        }
    }
    let back = array_from_gpu(&gpu, &data).unwrap();
    let back = back.as_any().downcast_ref::<Float64Array>().unwrap();
    for (got, want) in back.values().iter().zip(&values) {
        if want.is_finite() && want.abs() < 3.4e38 {
            assert!((got - want).abs() <= want.abs() * 1e-14, "{got} vs {want}");
        } else {
            assert!(
                got.is_infinite() && got.signum() == want.signum(),
                "{got} vs {want}"
            );
        }
    }
}

#[test]
fn float64_columns_compile_fround_once_per_gpu() {
    // A device of its own, so the count is this test's: every Float64 column of every upload
    // (one column at a time, a batch of columns, a segmented table) runs fround's kernel from the
    // device's pipeline cache. Columns whose words end inside the last 16-byte load unit (an odd
    // row count) also run its tail variant, which reads the last rows in 8-byte units; each
    // variant compiles once, on the first column that needs it.
    let gpu = gpudata::Gpu::headless().unwrap();
    assert_eq!(gpu.compiled_pipelines(), 0);
    let field = Field::new("x", DataType::Float64, false);
    let options = ColumnOptions {
        format: FormatChoice::Fround,
        ..ColumnOptions::default()
    };
    let upload = |gpu: &gpudata::Gpu, n: u32| {
        let values: Vec<f64> = (0..n).map(|i| f64::from(i) * 0.1).collect();
        let data = array_to_gpu(gpu, &field, &Float64Array::from(values), &options).unwrap();
        assert_eq!(data.length(), u64::from(n));
    };
    for n in [4, 1000, 78, 4096, 2, 10, 64, 512, 30, 6] {
        upload(&gpu, n);
        assert_eq!(gpu.compiled_pipelines(), 1, "after a column of {n} rows");
    }
    for n in [3, 1001, 77, 4095, 5, 8, 1] {
        upload(&gpu, n);
        assert_eq!(gpu.compiled_pipelines(), 2, "after a column of {n} rows");
    }
    let columns: Vec<(String, ArrayRef)> = (0..6)
        .map(|i| {
            let values: Vec<f64> = (0..101).map(|v| f64::from(v + i) / 3.0).collect();
            (
                format!("c{i}"),
                Arc::new(Float64Array::from(values)) as ArrayRef,
            )
        })
        .collect();
    let batch = RecordBatch::try_from_iter(
        columns
            .iter()
            .map(|(name, array)| (name.as_str(), Arc::clone(array)))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let fround_all = || {
        columns
            .iter()
            .fold(BatchOptions::new(), |b, (name, _)| b.column(name, options))
    };
    record_batch_to_gpu_columns(&gpu, &batch, &fround_all()).unwrap();
    record_batch_to_segmented(&gpu, &batch, &fround_all()).unwrap();
    assert_eq!(gpu.compiled_pipelines(), 2);
    // Clones share the cache; another device compiles its own.
    assert_eq!(gpu.clone().compiled_pipelines(), 2);
    let other = gpudata::Gpu::headless().unwrap();
    upload(&other, 2);
    assert_eq!(other.compiled_pipelines(), 1);
}

/// Draws one point per row with `positions` (vec2<f32>) and `colors` (vec4<f32>) bound from the
/// uploaded columns; the fragment stage writes what the vertex stage fetched to a storage
/// buffer.
fn draw_and_fetch(
    gpu: &gpudata::Gpu,
    positions: &GpuData,
    colors: &GpuData,
    rows: u32,
) -> Vec<f32> {
    let wgsl = format!(
        "struct VsOut {{ @builtin(position) pos: vec4<f32>, @location(0) @interpolate(flat) idx: u32,
                        @location(1) @interpolate(flat) p: vec2<f32>, @location(2) @interpolate(flat) c: vec4<f32> }}
         @group(0) @binding(0) var<storage, read_write> out: array<f32>;
         @vertex fn vs(@builtin(vertex_index) vi: u32, @location(0) p: vec2<f32>, @location(1) c: vec4<f32>) -> VsOut {{
             var o: VsOut;
             o.pos = vec4<f32>((f32(vi) + 0.5) / {rows}.0 * 2.0 - 1.0, 0.0, 0.0, 1.0);
             o.idx = vi; o.p = p; o.c = c;
             return o;
         }}
         @fragment fn fs(i: VsOut) -> @location(0) vec4<f32> {{
             let b = i.idx * 6u;
             out[b] = i.p.x; out[b + 1u] = i.p.y;
             out[b + 2u] = i.c.x; out[b + 3u] = i.c.y; out[b + 4u] = i.c.z; out[b + 5u] = i.c.w;
             return vec4<f32>(1.0);
         }}"
    );
    let module = support::shader(gpu, "arrow draw", &wgsl);
    let layouts = [
        positions
            .as_view()
            .unwrap()
            .vertex_binding(gpu, 0, gpudata::StepMode::Vertex)
            .unwrap(),
        colors
            .as_view()
            .unwrap()
            .vertex_binding(gpu, 1, gpudata::StepMode::Vertex)
            .unwrap(),
    ];
    let buffers: Vec<_> = layouts.iter().map(|b| (b.slice(), b.layout())).collect();
    let out = support::buffer(
        gpu,
        u64::from(rows) * 24,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let error = support::draw_points(gpu, &module, &buffers, &out, rows);
    assert_eq!(
        error, None,
        "wgpu refused the pipeline for the Arrow-chosen formats"
    );
    let data = GpuData::new(
        gpudata::BufferHandle::Shared(out),
        gpudata::GpuDataDescriptor::new(VertexFormat::Float32, u64::from(rows) * 6),
    )
    .unwrap();
    bytemuck::cast_slice(&data.read_bytes(gpu).unwrap()).to_vec()
}

#[test]
fn record_batch_drawn_with_formats_from_shader_inputs() {
    let gpu = support::gpu();
    let rows = 5_u32;
    let positions = FixedSizeListArray::from_iter_primitive::<Float32Type, _, _>(
        (0..rows).map(|i| Some(vec![Some(i as f32 * 0.5), Some(-(i as f32))])),
        2,
    );
    let color_bytes: Vec<u8> = (0..4 * rows).map(|i| (i * 37 % 256) as u8).collect();
    let colors = FixedSizeListArray::try_new(
        fsl_field(DataType::UInt8),
        4,
        Arc::new(UInt8Array::from(color_bytes.clone())),
        None,
    )
    .unwrap();
    let labels = StringArray::from_iter_values((0..rows).map(|i| format!("p{i}")));
    let schema = Schema::new(vec![
        Field::new("positions", positions.data_type().clone(), false),
        Field::new("labels", DataType::Utf8, false),
        Field::new("colors", colors.data_type().clone(), false),
    ]);
    let batch = RecordBatch::try_new(
        Arc::new(schema),
        vec![Arc::new(positions), Arc::new(labels), Arc::new(colors)],
    )
    .unwrap();
    // luma.gl §11.9 vector 159: a shader input without a column (`missing`) is skipped, the
    // uint8 × 4 colors read as vec4<f32> become unorm8x4, the label column is not an input.
    let options = BatchOptions::from_shader_inputs([
        ("positions", "vec2<f32>".parse().unwrap()),
        ("colors", "vec4<f32>".parse().unwrap()),
        ("missing", "vec4<f32>".parse().unwrap()),
    ]);
    let (columns, skipped) = record_batch_to_gpu_columns(&gpu, &batch, &options).unwrap();
    assert!(skipped.is_empty());
    let names: Vec<&str> = columns.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["positions", "colors"]);
    let formats: Vec<String> = columns
        .iter()
        .map(|(_, d)| d.format().unwrap().to_string())
        .collect();
    assert_eq!(formats, ["float32x2", "unorm8x4"]);
    let fetched = draw_and_fetch(&gpu, &columns[0].1, &columns[1].1, rows);
    for i in 0..rows as usize {
        let row = &fetched[i * 6..i * 6 + 6];
        assert_eq!(
            row[..2],
            [i as f32 * 0.5, -(i as f32)],
            "position of row {i}"
        );
        for k in 0..4 {
            let expected = f32::from(color_bytes[i * 4 + k]) / 255.0;
            assert!(
                (row[2 + k] - expected).abs() < 1e-6,
                "color {k} of row {i}: {} vs {expected}",
                row[2 + k]
            );
        }
    }
    // The same formats from a vertex buffer layout.
    let layouts = [
        gpudata::BufferLayout::single("colors", VertexFormat::Unorm8x4, 4),
        gpudata::BufferLayout::single("positions", VertexFormat::Float32x2, 8),
    ];
    let (columns, _) =
        record_batch_to_gpu_columns(&gpu, &batch, &BatchOptions::from_buffer_layouts(&layouts))
            .unwrap();
    let formats: Vec<String> = columns
        .iter()
        .map(|(_, d)| d.format().unwrap().to_string())
        .collect();
    assert_eq!(formats, ["unorm8x4", "float32x2"]);
    let fetched_again = draw_and_fetch(&gpu, &columns[1].1, &columns[0].1, rows);
    assert_eq!(fetched_again, fetched);
}

#[test]
fn columns_beyond_the_device_limit_are_refused_by_name() {
    let small = support::limited_gpu("arrow gpu", |l| l.max_buffer_size = 1024);
    assert_eq!(small.limits().max_buffer_size, 1024);
    let big = Float32Array::from(vec![0.0; 300]);
    let e = array_to_gpu(
        &small,
        &Field::new("heights", DataType::Float32, false),
        &big,
        &ColumnOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            ArrowInteropError::DeviceLimit {
                bytes: 1200,
                max: 1024,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("`heights`"), "{e}");
    let fits = big.slice(0, 256);
    array_to_gpu(
        &small,
        &Field::new("heights", DataType::Float32, false),
        &fits,
        &ColumnOptions::default(),
    )
    .unwrap();
}

#[test]
fn mismatched_batch_schemas_are_refused() {
    let a =
        RecordBatch::try_from_iter([("x", Arc::new(Float32Array::from(vec![1.0])) as ArrayRef)])
            .unwrap();
    let b = RecordBatch::try_from_iter([(
        "x",
        Arc::new(arrow_array::Int32Array::from(vec![1])) as ArrayRef,
    )])
    .unwrap();
    let e = check_schemas(&[a, b]).unwrap_err();
    assert!(
        matches!(e, ArrowInteropError::SchemaMismatch { batch: 1, .. }),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("expected fields [x: Float32], found [x: Int32]"),
        "{e}"
    );
}

#[test]
fn unsupported_columns_are_reported_or_refused() {
    let gpu = support::gpu();
    let batch = RecordBatch::try_from_iter([
        (
            "ok",
            Arc::new(Float32Array::from(vec![1.0, 2.0])) as ArrayRef,
        ),
        (
            "flags",
            Arc::new(arrow_array::BooleanArray::from(vec![true, false])) as ArrayRef,
        ),
        (
            "nested",
            Arc::new(ListArray::from_iter_primitive::<Int16Type, _, _>([
                Some(vec![Some(1)]),
                None,
            ])) as ArrayRef,
        ),
    ])
    .unwrap();
    let e = record_batch_to_gpu_columns(&gpu, &batch, &BatchOptions::new()).unwrap_err();
    assert!(e.to_string().contains("`flags`"), "{e}");
    let (columns, skipped) =
        record_batch_to_gpu_columns(&gpu, &batch, &BatchOptions::new().skip_unsupported()).unwrap();
    assert_eq!(columns.len(), 1);
    let left_out: Vec<&str> = skipped.iter().map(|s| s.column.as_str()).collect();
    assert_eq!(left_out, ["flags", "nested"]);
    let e = record_batch_to_gpu_columns(
        &gpu,
        &batch,
        &BatchOptions::new().format("nope", "float32".parse().unwrap()),
    )
    .unwrap_err();
    assert!(matches!(e, ArrowInteropError::MissingColumn { .. }), "{e}");
}

#[test]
fn tables_keep_batch_boundaries_and_round_trip() {
    let gpu = support::gpu();
    let batches = [
        every_type_batch(4, 21),
        every_type_batch(7, 22).slice(2, 5),
        every_type_batch(3, 23),
    ];
    let schema = batches[0].schema();
    let (table, skipped) =
        gpudata::arrow::record_batches_to_gpu_table(&gpu, &schema, &batches, &options()).unwrap();
    assert!(skipped.is_empty());
    assert_eq!(table.num_rows(), 12);
    assert_eq!(table.batches().len(), 3);
    let infos: Vec<(u64, u64, u64)> = table
        .batches()
        .iter()
        .map(|b| {
            let s = b.source_info().unwrap();
            (
                s.source_batch_index,
                s.source_row_index_offset,
                s.source_row_count,
            )
        })
        .collect();
    assert_eq!(infos, [(0, 0, 4), (1, 4, 5), (2, 9, 3)]);
    // Fixed-format and interleaved columns get vertex layouts; lists and strings are storage data.
    let layouts: Vec<&str> = table
        .buffer_layouts()
        .iter()
        .map(|l| l.name.as_str())
        .collect();
    assert_eq!(
        layouts,
        [
            "int8",
            "uint16",
            "float16",
            "float32",
            "float64",
            "colors",
            "positions",
            "categories",
            "instances"
        ]
    );
    let colors = table.batches()[0].schema().field("colors").unwrap();
    assert!(!colors.nullable);
    let back = gpudata::arrow::record_batches_from_gpu_table(&gpu, &table).unwrap();
    assert_eq!(back.len(), 3);
    for (got, want) in back.iter().zip(&batches) {
        assert_eq!(got, want);
    }
    // A column's vector reads back one array per batch.
    let names = table.vector("names").unwrap();
    let arrays = gpudata::arrow::arrays_from_gpu_vector(&gpu, names).unwrap();
    let lengths: Vec<usize> = arrays.iter().map(|a| a.len()).collect();
    assert_eq!(lengths, [4, 5, 3]);
    assert_eq!(
        arrays[1].as_ref(),
        batches[1].column_by_name("names").unwrap().as_ref()
    );
    // One batch alone.
    let (gpu_batch, _) =
        gpudata::arrow::record_batch_to_gpu(&gpu, &batches[1], &options()).unwrap();
    assert_eq!(gpu_batch.num_rows(), 5);
    assert_eq!(
        gpudata::arrow::record_batch_from_gpu(&gpu, &gpu_batch).unwrap(),
        batches[1]
    );
}

#[test]
fn tables_without_batches_and_with_mismatched_schemas() {
    let gpu = support::gpu();
    let batch = every_type_batch(2, 1);
    let (table, _) =
        gpudata::arrow::record_batches_to_gpu_table(&gpu, &batch.schema(), &[], &options())
            .unwrap();
    assert_eq!(table.num_rows(), 0);
    assert!(table.schema().field("colors").is_some());
    let other =
        RecordBatch::try_from_iter([("x", Arc::new(Float32Array::from(vec![1.0])) as ArrayRef)])
            .unwrap();
    let e = gpudata::arrow::record_batches_to_gpu_table(
        &gpu,
        &batch.schema(),
        &[batch.clone(), other],
        &options(),
    )
    .unwrap_err();
    assert!(
        matches!(e, ArrowInteropError::SchemaMismatch { batch: 1, .. }),
        "{e}"
    );
}

/// Arrow column names are free: a column named `dep delay` uploads, gets a vertex layout and
/// renders under its name; only interleaving columns into struct rows needs field paths.
#[test]
fn column_names_with_spaces_upload_and_render() {
    let gpu = support::gpu();
    let schema = Arc::new(Schema::new(vec![Field::new(
        "dep delay",
        DataType::Float32,
        false,
    )]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(Float32Array::from(vec![1.5f32, -2.0, 3.25]))],
    )
    .unwrap();
    let (table, skipped) =
        gpudata::arrow::record_batches_to_gpu_table(&gpu, &schema, &[batch], &BatchOptions::new())
            .unwrap();
    assert!(skipped.is_empty());
    let bindings = table
        .render_bindings(&gpu, gpudata::table::RenderOptions::default())
        .unwrap();
    assert_eq!(bindings.location("dep delay"), Some(0));
}
