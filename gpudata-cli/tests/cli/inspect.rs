//! `gpudata inspect FILE`: columns, conversions, GPU formats, bytes per row, what cannot be
//! carried; errors in one line.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StructArray};
use arrow_schema::{DataType, Field};

use crate::{fails, gpudata, succeeds, vega_file};

#[test]
fn inspect_shows_what_each_flights_column_becomes() {
    let path = vega_file("flights-3m.parquet");
    let text = succeeds(gpudata().arg("inspect").arg(&path));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "{}: parquet, 3000000 rows, 11 row groups, 5 columns",
            path.display()
        )
    );
    let cells = |line: &str| {
        line.split_whitespace()
            .take(5)
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        cells(lines[1]),
        ["column", "arrow", "type", "conversion", "gpu"]
    );
    assert_eq!(
        cells(lines[2])[..4],
        ["date", "Timestamp(µs)", "time-offset", "float32"]
    );
    assert_eq!(cells(lines[3]), ["delay", "Int64", "narrow", "sint32", "4"]);
    assert_eq!(
        cells(lines[4]),
        ["distance", "Int64", "narrow", "sint32", "4"]
    );
    assert_eq!(
        cells(lines[5]),
        ["origin", "LargeUtf8", "categories", "uint32", "4"]
    );
    assert_eq!(
        lines[7],
        "total: 5 carried, 0 cannot be carried, 20 bytes per row, 60000000 gpu bytes for 3000000 rows"
    );
}

#[test]
fn inspect_takes_explicit_conversions_and_reports_what_cannot_be_carried() {
    let dir = std::env::temp_dir().join(format!("gpudata-cli-inspect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("nested.arrow");
    let inner = Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef;
    let nested = StructArray::from(vec![(
        Arc::new(Field::new("x", DataType::Int64, false)),
        inner.clone(),
    )]);
    let batch =
        RecordBatch::try_from_iter([("n", inner), ("s", Arc::new(nested) as ArrayRef)]).unwrap();
    let mut writer = arrow_ipc::writer::FileWriter::try_new(
        std::fs::File::create(&path).unwrap(),
        &batch.schema(),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();

    let text = succeeds(
        gpudata()
            .args(["inspect", "--convert", "n=float32"])
            .arg(&path),
    );
    assert!(
        text.starts_with(&format!(
            "{}: arrow ipc file, rows unknown until read, 1 record batches, 2 columns\n",
            path.display()
        )),
        "{text}"
    );
    assert!(text.contains("\nn       Int64"), "{text}");
    assert!(
        text.contains("float32     float32     4          asked for"),
        "{text}"
    );
    assert!(
        text.contains(
            "cannot be carried: column `s`: gpu vector does not support arrow type Struct"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("total: 1 carried, 1 cannot be carried, 4 bytes per row\n"),
        "{text}"
    );

    let stderr = fails(gpudata().args(["inspect", "--strict"]).arg(&path));
    assert!(stderr.starts_with("error: column `s` (Struct"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1);

    assert_eq!(
        fails(
            gpudata()
                .args(["inspect", "--convert", "n=categories"])
                .arg(&path)
        ),
        "error: column `n` (Int64) cannot take conversion `categories`: expected Utf8, LargeUtf8, Utf8View or Dictionary<_, Utf8>\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn inspect_errors_are_one_line_with_status_1() {
    let stderr = fails(gpudata().args(["inspect", "no-such-file.parquet"]));
    assert!(
        stderr.starts_with("error: cannot open `no-such-file.parquet`: "),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1);

    let path = vega_file("flights-3m.parquet");
    assert_eq!(
        fails(
            gpudata()
                .args(["inspect", "--columns", "date,speed"])
                .arg(&path)
        ),
        format!(
            "error: `{}`: no column `speed` in the file: found [date, delay, distance, origin, destination]\n",
            path.display()
        )
    );
    let stderr = fails(gpudata().args(["inspect", "--convert", "delay"]).arg(&path));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("expected COLUMN=CONVERSION, found `delay`"),
        "{stderr}"
    );
}

/// `--convert COLUMN=value-list` shows the string bytes as `value-list<uint8>` with their
/// byte-range column and its 8 bytes per row; `auto` narrowing of a Parquet file's Int64 says
/// it was decided by the whole file's statistics.
#[test]
fn inspect_shows_value_lists_and_narrowing_by_the_files_statistics() {
    let path = vega_file("flights-3m.parquet");
    let text = succeeds(
        gpudata()
            .args([
                "inspect",
                "--columns",
                "delay,origin",
                "--convert",
                "origin=value-list",
            ])
            .arg(&path),
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[2],
        "delay   Int64       narrow      sint32             4          the whole stream's values lie in -1116..=1688 (the file's statistics): narrowed to 32 bits exactly"
    );
    assert_eq!(
        lines[3],
        "origin  LargeUtf8   value-list  value-list<uint8>  variable   asked for; byte ranges `origin_offsets` (uint32x2, 8 bytes per row)"
    );
    assert_eq!(
        lines[4],
        "total: 2 carried, 0 cannot be carried, 12 bytes per row plus variable-length values, 36000000 gpu bytes for 3000000 rows"
    );
}
