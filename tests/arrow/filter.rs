//! `GpuTable::filter` on tables uploaded from Arrow with nulls: the kept rows' validity comes
//! along (the filtered table reads back as Arrow equal to arrow-select's `filter_record_batch`
//! of each batch), and the null counts are the kept rows' nulls.

use std::sync::Arc;

use arrow_array::types::Int8Type;
use arrow_array::{
    Array, ArrayRef, BooleanArray, DictionaryArray, FixedSizeListArray, Float32Array, Int16Array,
    Int32Array, RecordBatch, StringArray, UInt8Array,
};
use arrow_schema::{DataType, Field, Schema};
use gpudata::arrow::{BatchOptions, record_batches_from_gpu_table, record_batches_to_gpu_table};
use gpudata::ops::GpuMask;

use crate::support::{self, Rng};

/// Nullable float32, int16, int32, fixed-size-list and dictionary columns.
fn schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("floats", DataType::Float32, true),
        Field::new("shorts", DataType::Int16, true),
        Field::new("ints", DataType::Int32, true),
        Field::new(
            "colors",
            DataType::FixedSizeList(Arc::new(Field::new_list_field(DataType::UInt8, true)), 4),
            true,
        ),
        Field::new(
            "kinds",
            DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8)),
            true,
        ),
    ]))
}

fn batch(schema: &Arc<Schema>, rng: &mut Rng, rows: usize) -> RecordBatch {
    let mut maybe = |p: u64| rng.below(100) >= p;
    let valid: Vec<[bool; 5]> = (0..rows)
        .map(|_| [maybe(20), maybe(50), maybe(3), maybe(10), maybe(0)])
        .collect();
    let floats = Float32Array::from_iter((0..rows).map(|i| valid[i][0].then_some(i as f32 * 0.5)));
    let shorts = Int16Array::from_iter((0..rows).map(|i| valid[i][1].then_some(-(i as i16))));
    let ints = Int32Array::from_iter((0..rows).map(|i| valid[i][4].then_some(i as i32 * 7)));
    let colors = FixedSizeListArray::try_new(
        Arc::new(Field::new_list_field(DataType::UInt8, true)),
        4,
        Arc::new(UInt8Array::from_iter_values(
            (0..4 * rows).map(|i| (i * 3) as u8),
        )),
        Some((0..rows).map(|i| valid[i][2]).collect()),
    )
    .unwrap();
    let kinds = DictionaryArray::<Int8Type>::try_new(
        (0..rows)
            .map(|i| valid[i][3].then_some((i % 3) as i8))
            .collect(),
        Arc::new(StringArray::from(vec!["tree", "rock", "lake"])),
    )
    .unwrap();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(floats),
        Arc::new(shorts),
        Arc::new(ints),
        Arc::new(colors),
        Arc::new(kinds),
    ];
    RecordBatch::try_new(schema.clone(), columns).unwrap()
}

#[test]
fn filtering_keeps_the_kept_rows_nulls() {
    let gpu = support::gpu();
    let mut rng = Rng::new(160);
    let schema = schema();
    // Batches that start inside mask words, and an empty one.
    let sizes = [37, 1000, 0, 2500];
    let batches: Vec<RecordBatch> = sizes.iter().map(|&n| batch(&schema, &mut rng, n)).collect();
    let (table, skipped) =
        record_batches_to_gpu_table(&gpu, &schema, &batches, &BatchOptions::default()).unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    let nulls =
        |b: &RecordBatch| -> u64 { b.columns().iter().map(|c| c.null_count() as u64).sum() };
    assert_eq!(table.null_count(), batches.iter().map(nulls).sum::<u64>());
    let n = sizes.iter().sum::<usize>();
    let masks: Vec<(&str, Vec<bool>)> = vec![
        ("all", vec![true; n]),
        ("none", vec![false; n]),
        ("alternating", (0..n).map(|i| i % 2 == 1).collect()),
        ("random", (0..n).map(|_| rng.below(2) == 0).collect()),
        ("1%", (0..n).map(|_| rng.below(100) == 0).collect()),
    ];
    for (name, keep) in masks {
        let mask = GpuMask::from_bools(&gpu, &keep).unwrap();
        let filtered = table.filter(&gpu, &mask).unwrap();
        let mut first = 0;
        let expected: Vec<RecordBatch> = batches
            .iter()
            .map(|b| {
                let part = BooleanArray::from(keep[first..first + b.num_rows()].to_vec());
                first += b.num_rows();
                arrow_select::filter::filter_record_batch(b, &part).unwrap()
            })
            .collect();
        let got = record_batches_from_gpu_table(&gpu, &filtered).unwrap();
        assert_eq!(got, expected, "{name} mask");
        for (gpu_batch, want) in filtered.batches().iter().zip(&expected) {
            assert_eq!(gpu_batch.null_count(), nulls(want), "{name} mask");
        }
        assert_eq!(
            filtered.null_count(),
            expected.iter().map(nulls).sum::<u64>(),
            "{name} mask"
        );
    }
}

/// `GpuTable::sort_by` of the same batches: by `floats` descending with its nulls first, then
/// `ints` ascending. The sorted table reads back equal to arrow-select's `take` of the
/// concatenated batches in the order a stable host sort gives, cut into the batches' sizes:
/// values, nulls and dictionaries follow their rows across batches.
#[test]
fn sorting_moves_rows_with_their_nulls_and_dictionaries() {
    use gpudata::ops::NullOrder;
    use gpudata::table::TableSortKey;
    let gpu = support::gpu();
    let mut rng = Rng::new(161);
    let schema = schema();
    let sizes = [37usize, 1000, 0, 700];
    let batches: Vec<RecordBatch> = sizes.iter().map(|&n| batch(&schema, &mut rng, n)).collect();
    let (table, _) =
        record_batches_to_gpu_table(&gpu, &schema, &batches, &BatchOptions::default()).unwrap();
    let keys = [
        TableSortKey::descending("floats").with_nulls(NullOrder::First),
        TableSortKey::ascending("ints"),
    ];
    let sorted = table.sort_by(&gpu, &keys).unwrap();
    let all = arrow_select::concat::concat_batches(&schema, &batches).unwrap();
    let floats = all
        .column(0)
        .as_any()
        .downcast_ref::<Float32Array>()
        .unwrap();
    let ints = all.column(2).as_any().downcast_ref::<Int32Array>().unwrap();
    let mut order: Vec<u32> = (0..all.num_rows() as u32).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        let first = match (floats.is_valid(a), floats.is_valid(b)) {
            (false, false) => std::cmp::Ordering::Equal,
            (false, true) => std::cmp::Ordering::Less,
            (true, false) => std::cmp::Ordering::Greater,
            (true, true) => floats.value(b).total_cmp(&floats.value(a)),
        };
        first.then(ints.value(a).cmp(&ints.value(b)))
    });
    let taken = arrow_select::take::take_record_batch(&all, &arrow_array::UInt32Array::from(order))
        .unwrap();
    let mut first = 0;
    let expected: Vec<RecordBatch> = sizes
        .iter()
        .map(|&n| {
            first += n;
            taken.slice(first - n, n)
        })
        .collect();
    let got = record_batches_from_gpu_table(&gpu, &sorted).unwrap();
    assert_eq!(got, expected);
    assert_eq!(sorted.null_count(), table.null_count());
}

/// Batches whose dictionaries differ: the same id means another string in each, so the sorted
/// rows could not read back; the sort refuses the column rather than mix them.
#[test]
fn sorting_refuses_batches_with_different_dictionaries() {
    use gpudata::table::{TableError, TableSortKey};
    let gpu = support::gpu();
    let schema = Arc::new(Schema::new(vec![
        Field::new("ints", DataType::Int32, false),
        Field::new(
            "kinds",
            DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8)),
            true,
        ),
    ]));
    let batch = |words: Vec<&str>| {
        let kinds = DictionaryArray::<Int8Type>::try_new(
            vec![Some(0i8), Some(1), None].into(),
            Arc::new(StringArray::from(words)),
        )
        .unwrap();
        let columns: Vec<ArrayRef> =
            vec![Arc::new(Int32Array::from(vec![3, 1, 2])), Arc::new(kinds)];
        RecordBatch::try_new(schema.clone(), columns).unwrap()
    };
    let batches = [batch(vec!["tree", "rock"]), batch(vec!["lake", "sand"])];
    let (table, _) =
        record_batches_to_gpu_table(&gpu, &schema, &batches, &BatchOptions::default()).unwrap();
    assert_eq!(
        table
            .sort_by(&gpu, &[TableSortKey::ascending("ints")])
            .unwrap_err(),
        TableError::SortMetadata {
            column: "kinds".to_owned()
        }
    );
    // One dictionary in both: the rows move with their strings.
    let batches = [batch(vec!["tree", "rock"]), batch(vec!["tree", "rock"])];
    let (table, _) =
        record_batches_to_gpu_table(&gpu, &schema, &batches, &BatchOptions::default()).unwrap();
    let sorted = table
        .sort_by(&gpu, &[TableSortKey::ascending("ints")])
        .unwrap();
    let got = record_batches_from_gpu_table(&gpu, &sorted).unwrap();
    let all = arrow_select::concat::concat_batches(&schema, &batches).unwrap();
    let order = arrow_array::UInt32Array::from(vec![1, 4, 2, 5, 0, 3]);
    let expected = arrow_select::take::take_record_batch(&all, &order).unwrap();
    assert_eq!(got, vec![expected.slice(0, 3), expected.slice(3, 3)]);
}
