//! Record batches as segmented tables on a real device (lavapipe in CI): every supported Arrow
//! type goes RecordBatch → SegmentedTable → RecordBatch unchanged (slices at non-zero offsets,
//! empty batches, nulls kept or refused per the null policy, packed and vertex strides); every
//! segment starts at a multiple of `min_storage_buffer_offset_alignment`, binds as a storage
//! range of its own, and a compute shader reading it sees the column's values. Float64 columns
//! that ask for fround are segments of the GPU split (`float32x2` / `float32x4` `[hi.., lo..]`,
//! bit for bit `ops::cpu::fround`), read back as `record_batch_to_gpu`'s fround columns are.

use crate::support;

use std::sync::Arc;

use arrow_array::types::{Int16Type, Int32Type, UInt8Type};
use arrow_array::{
    Array, ArrayRef, BinaryArray, DictionaryArray, FixedSizeBinaryArray, FixedSizeListArray,
    Float16Array, Float32Array, Float64Array, Int8Array, Int16Array, Int32Array, Int64Array,
    LargeBinaryArray, LargeListArray, LargeStringArray, ListArray, RecordBatch, StringArray,
    UInt8Array, UInt16Array, UInt32Array,
};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Schema};
use gpudata::arrow::{
    ArrowColumnSource, ArrowInteropError, ArrowReadback, BatchOptions, BatchSource, ColumnOptions,
    FormatChoice, NullPolicy, interleaved_field, record_batch_from_gpu,
    record_batch_from_segmented, record_batch_to_gpu, record_batch_to_segmented,
    record_batch_to_segmented_with,
};
use gpudata::table::{SegmentOptions, SegmentStride, SegmentedTable, SegmentedTableBuilder};
use gpudata::{
    GpuData, GpuDataStructFormat, GpuVectorFormat, StructLayout, VertexFormat, data::DEFAULT_USAGE,
};
use proptest::prelude::*;

fn item(child: DataType) -> Arc<Field> {
    Arc::new(Field::new_list_field(child, false))
}

fn fixed_list(child: ArrayRef, size: i32, nulls: Option<NullBuffer>) -> FixedSizeListArray {
    FixedSizeListArray::try_new(item(child.data_type().clone()), size, child, nulls).unwrap()
}

/// A batch of `n` rows with one column of every type a segment can hold, from `seed`; nullable
/// columns have a null every third row.
fn every_type_batch(n: usize, seed: u64) -> RecordBatch {
    let mut rng = support::Rng::new(seed | 1);
    let mut next = || rng.next_u32();
    let valid: Vec<bool> = (0..n).map(|i| i % 3 != 1).collect();
    let validity = || Some(NullBuffer::from(valid.clone()));
    let lengths: Vec<usize> = (0..n).map(|_| next() as usize % 4).collect();
    let total: usize = lengths.iter().sum();
    let words =
        |next: &mut dyn FnMut() -> u32, k: usize| -> Vec<u32> { (0..k).map(|_| next()).collect() };
    let mut columns: Vec<(Field, ArrayRef)> = Vec::new();
    let mut push = |name: &str, nullable: bool, array: ArrayRef| {
        columns.push((Field::new(name, array.data_type().clone(), nullable), array));
    };
    push(
        "int8",
        true,
        Arc::new(Int8Array::from_iter(
            (0..n).map(|i| valid[i].then(|| next() as i8)),
        )),
    );
    push(
        "int16",
        false,
        Arc::new(Int16Array::from_iter_values((0..n).map(|_| next() as i16))),
    );
    push(
        "int32",
        false,
        Arc::new(Int32Array::from_iter_values((0..n).map(|_| next() as i32))),
    );
    push(
        "uint8",
        false,
        Arc::new(UInt8Array::from_iter_values((0..n).map(|_| next() as u8))),
    );
    push(
        "uint16",
        false,
        Arc::new(UInt16Array::from_iter_values((0..n).map(|_| next() as u16))),
    );
    push(
        "uint32",
        true,
        Arc::new(UInt32Array::from_iter(
            (0..n).map(|i| valid[i].then(&mut next)),
        )),
    );
    push(
        "float16",
        false,
        Arc::new(Float16Array::from_iter_values(
            (0..n).map(|_| half::f16::from_bits(next() as u16 & 0x7bff)),
        )),
    );
    push(
        "float32",
        true,
        Arc::new(Float32Array::from_iter(
            (0..n).map(|i| valid[i].then(|| next() as f32 / 7.0)),
        )),
    );
    push(
        "float64",
        false,
        Arc::new(Float64Array::from_iter_values(
            (0..n).map(|_| f64::from(next()) / 3.0),
        )),
    );
    push(
        "int64",
        false,
        Arc::new(Int64Array::from_iter_values(
            (0..n).map(|_| i64::from(next()) << 20),
        )),
    );
    let colors = UInt8Array::from_iter_values((0..4 * n).map(|_| next() as u8));
    push(
        "colors",
        false,
        Arc::new(fixed_list(Arc::new(colors), 4, None)),
    );
    let positions = Float32Array::from_iter_values((0..3 * n).map(|_| next() as f32));
    push(
        "positions",
        true,
        Arc::new(fixed_list(Arc::new(positions), 3, validity())),
    );
    let pairs = Int16Array::from_iter_values((0..2 * n).map(|_| next() as i16));
    push(
        "pairs",
        false,
        Arc::new(fixed_list(Arc::new(pairs), 2, None)),
    );
    let single = UInt32Array::from_iter_values(words(&mut next, n));
    push(
        "single",
        false,
        Arc::new(fixed_list(Arc::new(single), 1, None)),
    );
    let paths = Int16Array::from_iter_values((0..total).map(|_| next() as i16));
    push(
        "paths",
        false,
        Arc::new(ListArray::new(
            item(DataType::Int16),
            OffsetBuffer::from_lengths(lengths.iter().copied()),
            Arc::new(paths),
            None,
        )),
    );
    let vec2 = fixed_list(
        Arc::new(Float32Array::from_iter_values(
            (0..2 * total).map(|_| next() as f32),
        )),
        2,
        None,
    );
    push(
        "polygons",
        false,
        Arc::new(ListArray::new(
            item(vec2.data_type().clone()),
            OffsetBuffer::from_lengths(lengths.iter().copied()),
            Arc::new(vec2),
            None,
        )),
    );
    let large = Float32Array::from_iter_values((0..total).map(|_| next() as f32));
    push(
        "large_list",
        false,
        Arc::new(LargeListArray::new(
            item(DataType::Float32),
            OffsetBuffer::from_lengths(lengths.iter().copied()),
            Arc::new(large),
            None,
        )),
    );
    let text = |next: &mut dyn FnMut() -> u32| format!("row {}", next() % 1000);
    let names: Vec<Option<String>> = (0..n).map(|i| valid[i].then(|| text(&mut next))).collect();
    push("names", true, Arc::new(StringArray::from(names.clone())));
    push(
        "large_names",
        false,
        Arc::new(LargeStringArray::from_iter_values(
            (0..n).map(|_| text(&mut next)),
        )),
    );
    push(
        "blobs",
        true,
        Arc::new(BinaryArray::from_iter(
            names.iter().map(|s| s.as_ref().map(String::as_bytes)),
        )),
    );
    push(
        "large_blobs",
        false,
        Arc::new(LargeBinaryArray::from_iter_values(
            (0..n).map(|i| vec![i as u8; i % 5]),
        )),
    );
    push(
        "categories",
        true,
        Arc::new(
            DictionaryArray::<Int32Type>::try_new(
                Int32Array::from_iter((0..n).map(|i| valid[i].then(|| (next() % 3) as i32))),
                Arc::new(StringArray::from(vec!["low", "mid", "high"])),
            )
            .unwrap(),
        ),
    );
    push(
        "small_categories",
        false,
        Arc::new(
            DictionaryArray::<UInt8Type>::try_new(
                UInt8Array::from_iter_values((0..n).map(|_| (next() % 2) as u8)),
                Arc::new(StringArray::from(vec!["yes", "no"])),
            )
            .unwrap(),
        ),
    );
    push(
        "short_categories",
        false,
        Arc::new(
            DictionaryArray::<Int16Type>::try_new(
                Int16Array::from_iter_values((0..n).map(|_| (next() % 4) as i16)),
                Arc::new(Int32Array::from(vec![10, 20, 30, 40])),
            )
            .unwrap(),
        ),
    );
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = columns.into_iter().unzip();
    let schema = Schema::new(fields).with_metadata([("source", "arrow_segmented test")]);
    RecordBatch::try_new(Arc::new(schema), arrays).unwrap()
}

fn options() -> BatchOptions {
    // 64-bit columns travel as exact words; everything else takes its default format.
    BatchOptions::new()
        .format("float64", "uint32x2".parse().unwrap())
        .format("int64", "uint32x2".parse().unwrap())
}

/// Uploads `batch` as a segmented table with `stride`, checks its placement, and reads it back.
fn round_trip(batch: &RecordBatch, stride: SegmentStride) -> RecordBatch {
    let gpu = support::gpu();
    let (table, skipped) =
        record_batch_to_segmented_with(&gpu, batch, &options(), SegmentOptions { stride }).unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    check_placement(&gpu, &table, batch);
    record_batch_from_segmented(&gpu, &table).unwrap()
}

/// Every column is a segment of the one buffer, in schema order, at an offset that is a multiple
/// of the device's storage offset alignment, inside the buffer, not overlapping the next one,
/// carrying its column's Arrow type and readback metadata.
fn check_placement(gpu: &gpudata::Gpu, table: &SegmentedTable, batch: &RecordBatch) {
    let alignment = u64::from(gpu.limits().min_storage_buffer_offset_alignment);
    let segments = table.layout().segments();
    assert_eq!(segments.len(), batch.num_columns());
    assert_eq!(table.num_rows(), batch.num_rows() as u64);
    for (i, (segment, field)) in segments.iter().zip(batch.schema().fields()).enumerate() {
        assert_eq!(segment.name(), field.name());
        assert_eq!(
            segment.byte_offset() % alignment,
            0,
            "segment {}",
            segment.name()
        );
        let end = segment.byte_offset() + segment.reserved_byte_length();
        assert!(end <= table.buffer().size());
        if let Some(next) = segments.get(i + 1) {
            assert!(end <= next.byte_offset());
        }
        let data_type = segment
            .data_type()
            .and_then(|d| d.downcast_ref::<DataType>());
        assert_eq!(data_type, Some(field.data_type()));
        let readback = segment
            .readback_metadata()
            .and_then(|m| m.downcast_ref::<ArrowReadback>())
            .unwrap();
        assert_eq!(readback.field().as_ref(), field.as_ref());
        let data = table.segment_data(segment.name()).unwrap();
        assert_eq!(data.buffer(), table.buffer());
        assert_eq!(data.byte_offset(), segment.byte_offset());
        assert!(data.readback_metadata_as::<ArrowReadback>().is_some());
    }
}

#[test]
fn every_type_round_trips_through_a_segmented_table() {
    let batch = every_type_batch(37, 11);
    assert_eq!(round_trip(&batch, SegmentStride::Packed), batch);
    assert_eq!(round_trip(&batch, SegmentStride::Vertex), batch);
}

#[test]
fn empty_batches_round_trip() {
    let batch = every_type_batch(0, 5);
    assert_eq!(round_trip(&batch, SegmentStride::Packed), batch);
    let sliced = every_type_batch(9, 5).slice(9, 0);
    assert_eq!(round_trip(&sliced, SegmentStride::Packed), sliced);
    // No columns at all: the row count is kept.
    let none = RecordBatch::try_new_with_options(
        Arc::new(Schema::empty()),
        vec![],
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(4)),
    )
    .unwrap();
    let gpu = support::gpu();
    let (table, _) = record_batch_to_segmented(&gpu, &none, &BatchOptions::new()).unwrap();
    assert!(table.layout().segments().is_empty());
    assert_eq!(record_batch_from_segmented(&gpu, &table).unwrap(), none);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn sliced_batches_round_trip(
        n in 0_usize..40,
        offset in 0_usize..40,
        len in 0_usize..40,
        seed in any::<u64>(),
        vertex in any::<bool>(),
    ) {
        let batch = every_type_batch(n, seed);
        let offset = offset.min(n);
        let len = len.min(n - offset);
        let sliced = batch.slice(offset, len);
        let stride = if vertex { SegmentStride::Vertex } else { SegmentStride::Packed };
        prop_assert_eq!(round_trip(&sliced, stride), sliced);
    }
}

#[test]
fn nulls_follow_the_null_policy() {
    let gpu = support::gpu();
    let batch = every_type_batch(6, 3);
    // Reject: the first nullable column with nulls is refused, as on the packed path.
    let error = record_batch_to_segmented(&gpu, &batch, &options().null_policy(NullPolicy::Reject))
        .unwrap_err();
    assert!(
        matches!(&error, ArrowInteropError::Nulls { column, null_count: 2, .. } if column == "int8"),
        "{error:?}"
    );
    // Null list rows are always refused.
    let lists = ListArray::new(
        item(DataType::Int16),
        OffsetBuffer::from_lengths([1, 0, 2]),
        Arc::new(Int16Array::from(vec![1, 2, 3])),
        Some(NullBuffer::from(vec![true, false, true])),
    );
    let batch = RecordBatch::try_from_iter([("paths", Arc::new(lists) as ArrayRef)]).unwrap();
    let error = record_batch_to_segmented(&gpu, &batch, &BatchOptions::new()).unwrap_err();
    assert!(
        matches!(&error, ArrowInteropError::Nulls { column, .. } if column == "paths"),
        "{error:?}"
    );
}

fn fround() -> ColumnOptions {
    ColumnOptions {
        format: FormatChoice::Fround,
        ..ColumnOptions::default()
    }
}

/// Doubles of every fround class: exact in `hi + lo` (f32 values, 48-bit significands) and not
/// (π, 0.1, 2⁵³ − 1), beyond f32's range, infinite, NaN, tiny, negative zero.
const DOUBLES: [f64; 13] = [
    std::f64::consts::PI,
    -0.1,
    16_777_217.0,
    -1.0 / 3.0,
    9_007_199_254_740_991.0,
    3.5e38,
    f64::NEG_INFINITY,
    f64::NAN,
    1.0e-300,
    -0.0,
    1.5,
    -122.418_945_312_5,
    281_474_976_710_655.0,
];

/// A batch with two fround columns (Float64 and FixedSizeList<Float64, 2>) among others.
fn fround_batch(doubles: &[f64]) -> RecordBatch {
    let n = doubles.len();
    let pairs: Vec<f64> = doubles.iter().flat_map(|x| [*x, -2.0 * x]).collect();
    RecordBatch::try_from_iter([
        (
            "weights",
            Arc::new(Float32Array::from_iter_values((0..n).map(|i| i as f32))) as ArrayRef,
        ),
        ("doubles", Arc::new(Float64Array::from(doubles.to_vec()))),
        (
            "labels",
            Arc::new(StringArray::from_iter_values(
                (0..n).map(|i| "x".repeat(i % 3)),
            )),
        ),
        (
            "pairs",
            Arc::new(fixed_list(Arc::new(Float64Array::from(pairs)), 2, None)),
        ),
        (
            "ids",
            Arc::new(UInt8Array::from_iter_values((0..n).map(|i| i as u8))),
        ),
    ])
    .unwrap()
}

fn fround_options() -> BatchOptions {
    BatchOptions::new()
        .column("doubles", fround())
        .column("pairs", fround())
}

/// What the non-segmented fround path (`record_batch_to_gpu`, one buffer per column) reads
/// back, and its GPU data.
fn packed_fround(
    gpu: &gpudata::Gpu,
    batch: &RecordBatch,
    options: &BatchOptions,
) -> (RecordBatch, gpudata::table::GpuRecordBatch) {
    let (packed, skipped) = record_batch_to_gpu(gpu, batch, options).unwrap();
    assert!(skipped.is_empty());
    (record_batch_from_gpu(gpu, &packed).unwrap(), packed)
}

#[test]
fn fround_columns_are_segments_of_the_split() {
    let gpu = support::gpu();
    // Sliced at a non-zero offset, as the zero-copy bytes must honour.
    let whole = fround_batch(&[[0.25, 7.0].as_slice(), &DOUBLES].concat());
    let batch = whole.slice(2, DOUBLES.len());
    let options = fround_options();
    let (expected, packed) = packed_fround(&gpu, &batch, &options);
    for stride in [SegmentStride::Packed, SegmentStride::Vertex] {
        let (table, skipped) =
            record_batch_to_segmented_with(&gpu, &batch, &options, SegmentOptions { stride })
                .unwrap();
        assert!(skipped.is_empty(), "{skipped:?}");
        check_placement(&gpu, &table, &batch);
        for (name, format) in [
            ("doubles", VertexFormat::Float32x2),
            ("pairs", VertexFormat::Float32x4),
        ] {
            let segment = table.segment(name).unwrap();
            assert_eq!(segment.format(), GpuVectorFormat::Fixed(format), "{name}");
            assert_eq!(segment.byte_stride(), format.byte_length(), "{name}");
            // The same description as the non-segmented fround path's data.
            let data = table.segment_data(name).unwrap();
            let packed_data = packed.column(name).unwrap();
            assert_eq!(data.format(), packed_data.format(), "{name}");
            assert_eq!(data.length(), packed_data.length(), "{name}");
            assert_eq!(data.byte_stride(), packed_data.byte_stride(), "{name}");
            assert_eq!(
                data.row_byte_length(),
                packed_data.row_byte_length(),
                "{name}"
            );
            let readback = data.readback_metadata_as::<ArrowReadback>().unwrap();
            assert!(readback.is_fround(), "{name}");
            assert_eq!(
                data.read_bytes(&gpu).unwrap(),
                packed_data.read_bytes(&gpu).unwrap()
            );
        }
        // The segments hold the CPU reference's split, bit for bit.
        let doubles = batch
            .column(1)
            .as_any()
            .downcast_ref::<Float64Array>()
            .unwrap();
        let reference = gpudata::ops::cpu::fround_arrow(doubles).unwrap();
        let data = table.segment_data("doubles").unwrap();
        assert_eq!(data.read_bytes(&gpu).unwrap(), reference.bytes());
        let pairs =
            ArrowColumnSource::from_array("pairs", batch.column(3).as_ref(), &fround()).unwrap();
        let reference = gpudata::ops::cpu::fround(gpudata::ops::cpu::HostInput::new(
            pairs.bytes(),
            VertexFormat::Uint32x4,
            pairs.length(),
        ))
        .unwrap();
        let data = table.segment_data("pairs").unwrap();
        assert_eq!(data.read_bytes(&gpu).unwrap(), reference.bytes());
        // Read back as the non-segmented path reads it: Float64 hi + lo.
        let back = record_batch_from_segmented(&gpu, &table).unwrap();
        // (Arrow compares the values' bytes, so NaNs and signed zeros count.)
        assert_eq!(back, expected);
        // The other columns are untouched.
        for name in ["weights", "labels", "ids"] {
            assert_eq!(
                back.column_by_name(name).unwrap(),
                batch.column_by_name(name).unwrap()
            );
        }
    }
}

#[test]
fn fround_segments_restore_doubles_that_fit_in_two_f32() {
    // hi + lo is exact for a 48-bit significand in f32's exponent range (spec §8.8): the
    // batch comes back equal, as from record_batch_to_gpu, −0 with its sign.
    let gpu = support::gpu();
    let exact = [
        16_777_217.0,
        -122.418_945_312_5,
        281_474_976_710_655.0,
        1.5,
        0.75,
        -1.0 - 2f64.powi(-40),
        f64::INFINITY,
        -0.0,
        0.0,
    ];
    let batch = fround_batch(&exact);
    let options = fround_options();
    let bits = |batch: &RecordBatch| -> Vec<u64> {
        batch
            .column_by_name("doubles")
            .and_then(|c| c.as_any().downcast_ref::<Float64Array>())
            .expect("a float64 column")
            .values()
            .iter()
            .map(|v| v.to_bits())
            .collect()
    };
    let packed = packed_fround(&gpu, &batch, &options).0;
    assert_eq!(packed, batch);
    assert_eq!(bits(&packed), bits(&batch), "bit for bit, −0 included");
    for stride in [SegmentStride::Packed, SegmentStride::Vertex] {
        let (table, _) =
            record_batch_to_segmented_with(&gpu, &batch, &options, SegmentOptions { stride })
                .unwrap();
        let back = record_batch_from_segmented(&gpu, &table).unwrap();
        assert_eq!(back, batch);
        assert_eq!(bits(&back), bits(&batch), "bit for bit, −0 included");
    }
    // Empty columns too.
    let empty = fround_batch(&[]);
    let (table, _) = record_batch_to_segmented(&gpu, &empty, &options).unwrap();
    check_placement(&gpu, &table, &empty);
    assert_eq!(record_batch_from_segmented(&gpu, &table).unwrap(), empty);
}

#[test]
fn fround_segments_follow_the_null_policy() {
    let gpu = support::gpu();
    let doubles = Float64Array::from(vec![Some(0.1), None, Some(-16_777_217.0), None, Some(2.5)]);
    let batch = RecordBatch::try_from_iter([
        (
            "weights",
            Arc::new(Float32Array::from(vec![1.0; 5])) as ArrayRef,
        ),
        ("doubles", Arc::new(doubles.clone())),
    ])
    .unwrap();
    // Keep: the validity comes back, the valid rows as the non-segmented path gives them.
    let options = BatchOptions::new().column("doubles", fround());
    let (expected, _) = packed_fround(&gpu, &batch, &options);
    let (table, _) = record_batch_to_segmented(&gpu, &batch, &options).unwrap();
    let back = record_batch_from_segmented(&gpu, &table).unwrap();
    assert_eq!(back, expected);
    let values = back
        .column(1)
        .as_any()
        .downcast_ref::<Float64Array>()
        .unwrap();
    assert_eq!(values.nulls(), doubles.nulls());
    assert_eq!(values.value(2), -16_777_217.0);
    assert_eq!(values.value(4), 2.5);
    // Reject: refused, naming the column, as on the packed path.
    let reject = options.null_policy(NullPolicy::Reject);
    let error = record_batch_to_segmented(&gpu, &batch, &reject).unwrap_err();
    assert!(
        matches!(&error, ArrowInteropError::Nulls { column, null_count: 2, .. } if column == "doubles"),
        "{error:?}"
    );
    assert_eq!(
        error,
        record_batch_to_gpu(&gpu, &batch, &reject).unwrap_err()
    );
}

#[test]
fn interleaved_columns_are_skipped_or_refused_fround_columns_are_not() {
    let gpu = support::gpu();
    let rows =
        GpuDataStructFormat::parse(StructLayout::Packed, [("a", "float32"), ("b", "unorm8x4")])
            .unwrap();
    let layout = rows.buffer_layout("instances", None);
    let instances =
        FixedSizeBinaryArray::try_new(8, Buffer::from_vec(vec![7_u8; 24]), None).unwrap();
    let weights = Float32Array::from(vec![1.0, 2.0, 3.0]);
    let doubles = Float64Array::from(vec![0.5, -0.25, 16_777_217.0]);
    let schema = Schema::new(vec![
        interleaved_field("instances", &layout, false).unwrap(),
        Field::new("weights", DataType::Float32, false),
        Field::new("doubles", DataType::Float64, false),
    ]);
    let batch = RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(instances),
            Arc::new(weights.clone()),
            Arc::new(doubles.clone()),
        ],
    )
    .unwrap();
    let options = BatchOptions::new().column("doubles", fround());
    let error = record_batch_to_segmented(&gpu, &batch, &options).unwrap_err();
    assert!(
        matches!(&error, ArrowInteropError::NotSegmentable { column, .. } if column == "instances"),
        "{error:?}"
    );
    // A usage without STORAGE still gets the split (the buffer gains STORAGE for it).
    let mut options = options;
    options.usage = Some(wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_SRC);
    let (table, skipped) =
        record_batch_to_segmented(&gpu, &batch, &options.skip_unsupported()).unwrap();
    let skipped: Vec<&str> = skipped.iter().map(|s| s.column.as_str()).collect();
    assert_eq!(skipped, ["instances"]);
    let back = record_batch_from_segmented(&gpu, &table).unwrap();
    assert_eq!(back.num_columns(), 2);
    assert_eq!(back.column(0).as_ref(), &weights as &dyn Array);
    assert_eq!(back.column(1).as_ref(), &doubles as &dyn Array);
}

#[test]
fn tables_not_from_arrow_have_no_readback_metadata() {
    let gpu = support::gpu();
    let table = SegmentedTableBuilder::new()
        .column(
            "x",
            VertexFormat::Float32,
            bytemuck::cast_slice(&[1.0_f32, 2.0]),
        )
        .build(&gpu)
        .unwrap();
    let error = record_batch_from_segmented(&gpu, &table).unwrap_err();
    assert_eq!(error, ArrowInteropError::MissingMetadata);
}

/// Runs `wgsl` (entry `main`, one invocation per output word) over `inputs` bound at 0.. and
/// an output of `words` u32 bound after them; returns the output.
fn run_compute(
    gpu: &gpudata::Gpu,
    wgsl: &str,
    inputs: &[wgpu::BufferBinding<'_>],
    words: usize,
) -> Vec<u32> {
    let out = GpuData::from_slice(
        gpu,
        VertexFormat::Uint32,
        &vec![0_u32; words],
        DEFAULT_USAGE,
    )
    .unwrap();
    let module = support::shader(gpu, "segment reader", wgsl);
    let pipeline = gpu
        .device()
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("segment reader"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
    let mut entries: Vec<wgpu::BindGroupEntry<'_>> = inputs
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: wgpu::BindingResource::Buffer(b.clone()),
        })
        .collect();
    entries.push(wgpu::BindGroupEntry {
        binding: inputs.len() as u32,
        resource: out.buffer().as_entire_binding(),
    });
    let (bind_group, error) = support::validation_error(gpu, || {
        gpu.device().create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("segments"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        })
    });
    assert_eq!(error, None, "a segment must bind as a storage range");
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups((words as u32).div_ceil(64), 1, 1);
    }
    gpu.queue().submit([encoder.finish()]);
    bytemuck::pod_collect_to_vec(&out.read_bytes(gpu).unwrap())
}

#[test]
fn a_compute_shader_reads_typed_segments() {
    let gpu = support::gpu();
    let n = 300;
    let values: Vec<i32> = (0..n as i32).map(|i| i * 7 - 1000).collect();
    let weights: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let batch = RecordBatch::try_from_iter([
        // 5 bytes first, so the next segments start at the next aligned offset, not at 0.
        (
            "tags",
            Arc::new(UInt8Array::from(vec![1_u8, 2, 3, 4, 5])) as ArrayRef,
        ),
        (
            "values",
            Arc::new(Int32Array::from(values.clone())) as ArrayRef,
        ),
        (
            "weights",
            Arc::new(Float32Array::from(weights.clone())) as ArrayRef,
        ),
    ]);
    // Columns of one batch must agree on rows: give tags its own batch.
    assert!(batch.is_err());
    let batch = RecordBatch::try_from_iter([
        (
            "tags",
            Arc::new(UInt8Array::from_iter_values((0..n).map(|i| i as u8))) as ArrayRef,
        ),
        (
            "values",
            Arc::new(Int32Array::from(values.clone())) as ArrayRef,
        ),
        (
            "weights",
            Arc::new(Float32Array::from(weights.clone())) as ArrayRef,
        ),
    ])
    .unwrap();
    let (table, _) = record_batch_to_segmented(&gpu, &batch, &BatchOptions::new()).unwrap();
    let offset = table.segment("values").unwrap().byte_offset();
    assert!(
        offset > 0 && offset % u64::from(gpu.limits().min_storage_buffer_offset_alignment) == 0
    );
    let wgsl = "
        @group(0) @binding(0) var<storage, read> values: array<i32>;
        @group(0) @binding(1) var<storage, read> weights: array<f32>;
        @group(0) @binding(2) var<storage, read_write> out: array<f32>;
        @compute @workgroup_size(64)
        fn main(@builtin(global_invocation_id) id: vec3<u32>) {
            let i = id.x;
            if i < arrayLength(&values) && i < arrayLength(&out) {
                out[i] = f32(values[i]) * 2.0 + weights[i];
            }
        }
    ";
    let bindings = [
        table.segment_binding("values").unwrap(),
        table.segment_binding("weights").unwrap(),
    ];
    let out = run_compute(&gpu, wgsl, &bindings, n);
    let expected: Vec<u32> = values
        .iter()
        .zip(&weights)
        .map(|(v, w)| (*v as f32 * 2.0 + w).to_bits())
        .collect();
    assert_eq!(out, expected);
}

#[test]
fn every_segment_binds_and_a_shader_sees_its_bytes() {
    let gpu = support::gpu();
    let batch = every_type_batch(23, 9).slice(3, 17);
    let (table, _) = record_batch_to_segmented(&gpu, &batch, &options()).unwrap();
    let sources = BatchSource::new(&batch, &options()).unwrap();
    let wgsl = "
        @group(0) @binding(0) var<storage, read> segment: array<u32>;
        @group(0) @binding(1) var<storage, read_write> out: array<u32>;
        @compute @workgroup_size(64)
        fn main(@builtin(global_invocation_id) id: vec3<u32>) {
            let i = id.x;
            if i < arrayLength(&segment) && i < arrayLength(&out) {
                out[i] = segment[i];
            }
        }
    ";
    for (segment, source) in table.layout().segments().iter().zip(&sources.columns) {
        let Some(binding) = table.segment_binding(segment.name()) else {
            assert_eq!(segment.reserved_byte_length(), 0, "{}", segment.name());
            continue;
        };
        assert_eq!(binding.offset, segment.byte_offset());
        let words = segment.reserved_byte_length() as usize / 4;
        let out = run_compute(&gpu, wgsl, &[binding], words);
        // The column's bytes as Arrow holds them, then zero padding to a whole word.
        let mut expected = source.bytes().to_vec();
        expected.resize(words * 4, 0);
        assert_eq!(
            bytemuck::cast_slice::<u32, u8>(&out),
            expected,
            "segment {}",
            segment.name()
        );
        let format = segment.format();
        assert_eq!(Some(format), source.vector_format());
        assert!(!matches!(format, GpuVectorFormat::Fixed(f) if f.byte_length() == 0));
    }
}
