//! The `arrow_roundtrip` example on a generated IPC file: several batches, every carried type
//! (sliced columns, nulls, empty batch), and columns it must leave out with a reason.

use crate::support;

#[allow(dead_code, reason = "the example's `main` is not called here")]
#[path = "../../examples/arrow_roundtrip.rs"]
pub mod example;

use std::fs::File;
use std::sync::Arc;

use arrow_array::types::Int16Type;
use arrow_array::{
    Array, ArrayRef, BooleanArray, DictionaryArray, FixedSizeListArray, Float32Array, Float64Array,
    Int64Array, ListArray, RecordBatch, StringArray, UInt8Array,
};
use arrow_ipc::reader::FileReader;
use arrow_ipc::writer::FileWriter;
use arrow_schema::{DataType, Field, Schema};

fn batch(schema: &Arc<Schema>, rows: usize, seed: usize, null_list: bool) -> RecordBatch {
    let n = rows + 3;
    let floats =
        Float32Array::from_iter((0..n).map(|i| (i % 4 != 1).then_some((i * seed) as f32 * 0.25)));
    let doubles = Float64Array::from_iter_values((0..n).map(|i| (i + seed) as f64 / 7.0));
    let longs = Int64Array::from_iter_values((0..n).map(|i| -((i * seed) as i64) << 40));
    let colors = FixedSizeListArray::try_new(
        Arc::new(Field::new_list_field(DataType::UInt8, false)),
        4,
        Arc::new(UInt8Array::from_iter_values(
            (0..4 * n).map(|i| (i * seed) as u8),
        )),
        None,
    )
    .unwrap();
    let paths = ListArray::from_iter_primitive::<Int16Type, _, _>((0..n).map(|i| {
        (!null_list || i != 5).then(|| (0..i % 3).map(|k| Some((k + i) as i16)).collect::<Vec<_>>())
    }));
    let names = StringArray::from_iter((0..n).map(|i| (i % 5 != 0).then(|| format!("name {i}"))));
    let kinds = DictionaryArray::<arrow_array::types::Int8Type>::try_new(
        (0..n).map(|i| Some((i % 2) as i8)).collect(),
        Arc::new(StringArray::from(vec!["tree", "rock"])),
    )
    .unwrap();
    let flags = BooleanArray::from_iter((0..n).map(|i| Some(i % 2 == 0)));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(floats),
        Arc::new(doubles),
        Arc::new(longs),
        Arc::new(colors),
        Arc::new(paths),
        Arc::new(names),
        Arc::new(kinds),
        Arc::new(flags),
    ];
    // Sliced at a non-zero offset, as readers of larger files hand out.
    let full = RecordBatch::try_new(schema.clone(), columns).unwrap();
    full.slice(3, rows)
}

#[test]
fn example_round_trips_an_ipc_file() {
    let dir = std::env::temp_dir().join(format!("gpudata-arrow-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.arrow");
    let output = dir.join("out.arrow");
    let colors_type =
        DataType::FixedSizeList(Arc::new(Field::new_list_field(DataType::UInt8, false)), 4);
    let schema = Arc::new(
        Schema::new(vec![
            Field::new("weights", DataType::Float32, true),
            Field::new("doubles", DataType::Float64, false),
            Field::new("longs", DataType::Int64, false),
            Field::new("colors", colors_type, false).with_metadata([("unit", "srgb")]),
            Field::new(
                "paths",
                ListArray::from_iter_primitive::<Int16Type, _, _>([Some(vec![Some(1)])])
                    .data_type()
                    .clone(),
                true,
            ),
            Field::new("names", DataType::Utf8, true),
            Field::new(
                "kinds",
                DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8)),
                false,
            ),
            Field::new("flags", DataType::Boolean, false),
        ])
        .with_metadata([("origin", "generated")]),
    );
    let batches = [
        batch(&schema, 6, 1, false),
        batch(&schema, 0, 2, false),
        batch(&schema, 9, 3, true),
    ];
    let mut writer = FileWriter::try_new(File::create(&input).unwrap(), &schema).unwrap();
    for b in &batches {
        writer.write(b).unwrap();
    }
    writer.finish().unwrap();

    let mut log = Vec::new();
    let report = example::run(&support::gpu(), &input, &output, &mut log).unwrap();
    let log = String::from_utf8(log).unwrap();
    assert!(report.mismatches.is_empty(), "{log}");
    assert_eq!((report.batches, report.rows), (3, 15));
    let left_out: Vec<&str> = report.left_out.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(left_out, ["flags", "paths"], "{log}");
    assert!(
        log.contains("left out flags") && log.contains("Boolean"),
        "{log}"
    );
    assert!(log.contains("do not support nullable data"), "{log}");
    let carried: Vec<(&str, &str)> = report
        .carried
        .iter()
        .map(|(n, f)| (n.as_str(), f.as_str()))
        .collect();
    assert_eq!(
        carried,
        [
            ("weights", "float32"),
            ("doubles", "uint32x2"),
            ("longs", "sint32x2"),
            ("colors", "uint8x4"),
            ("names", "value-list<uint8>"),
            ("kinds", "sint8"),
        ]
    );

    // The output file holds the carried columns of every batch, identical to the input.
    let reader = FileReader::try_new(File::open(&output).unwrap(), None).unwrap();
    let kept: Vec<usize> = vec![0, 1, 2, 3, 5, 6];
    assert_eq!(reader.schema().as_ref(), &schema.project(&kept).unwrap());
    let read: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    assert_eq!(read.len(), 3, "batch boundaries are kept");
    for (got, want) in read.iter().zip(&batches) {
        assert_eq!(got, &want.project(&kept).unwrap());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
