//! Parquet files (`gpudata::arrow::parquet`): row groups decoded in parallel and uploaded in
//! file order, column projection, the file's errors; against arrow-rs's own Parquet reader.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};
use gpudata::arrow::parquet::{ParquetOptions, ParquetSource, ingest_parquet};
use gpudata::arrow::stream::{CancelToken, IngestError, IngestOptions, read_table};
use parquet::arrow::ArrowWriter;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::properties::WriterProperties;

use crate::support;

/// A Parquet file of `rows` rows in row groups of `group_rows`, in a directory of its own.
fn file(name: &str, rows: i64, group_rows: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpudata-parquet-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("data.parquet");
    let batch = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(Int64Array::from_iter_values(0..rows)) as ArrayRef,
        ),
        (
            "even",
            Arc::new(BooleanArray::from_iter((0..rows).map(|i| Some(i % 2 == 0)))) as ArrayRef,
        ),
        (
            "label",
            Arc::new(StringArray::from_iter(
                (0..rows).map(|i| (i % 7 != 0).then(|| format!("l{}", i % 13))),
            )) as ArrayRef,
        ),
    ])
    .unwrap();
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group_rows))
        .build();
    let mut writer = ArrowWriter::try_new(
        File::create(&path).unwrap(),
        batch.schema(),
        Some(properties),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    path
}

fn read_with_arrow_rs(path: &Path, columns: Option<&[usize]>) -> RecordBatch {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    let builder = match columns {
        Some(c) => {
            let mask = ProjectionMask::roots(builder.parquet_schema(), c.iter().copied());
            builder.with_projection(mask)
        }
        None => builder,
    };
    let batches: Vec<RecordBatch> = builder.build().unwrap().collect::<Result<_, _>>().unwrap();
    arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap()
}

#[test]
fn row_groups_decode_in_parallel_and_arrive_in_file_order() {
    let gpu = support::gpu();
    let path = file("order", 10_000, 1_500);
    let source = ParquetSource::open(&path, None).unwrap();
    assert_eq!((source.num_rows(), source.num_row_groups()), (10_000, 7));
    for threads in [1, 3, 8] {
        let parquet = ParquetOptions {
            threads,
            batch_size: 700,
            ..ParquetOptions::default()
        };
        let ingested = ingest_parquet(
            &gpu,
            &path,
            &IngestOptions::default(),
            &parquet,
            |_| {},
            &CancelToken::new(),
        )
        .unwrap();
        // Each row group of 1500 rows decodes as 700 + 700 + 100 (the last one: 1000 = 700 + 300).
        assert_eq!(
            ingested.table.batches().len(),
            6 * 3 + 2,
            "threads {threads}"
        );
        let back = read_table(&gpu, &ingested.table).unwrap();
        let joined = arrow_select::concat::concat_batches(&back[0].schema(), &back).unwrap();
        assert_eq!(joined, read_with_arrow_rs(&path, None), "threads {threads}");
    }
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn projection_reads_only_the_named_columns() {
    let gpu = support::gpu();
    let path = file("projection", 3_000, 1_000);
    let parquet = ParquetOptions {
        columns: Some(vec!["label".to_owned(), "id".to_owned()]),
        ..ParquetOptions::default()
    };
    let ingested = ingest_parquet(
        &gpu,
        &path,
        &IngestOptions::default(),
        &parquet,
        |_| {},
        &CancelToken::new(),
    )
    .unwrap();
    let names: Vec<&str> = ingested.report.iter().map(|r| r.column.as_str()).collect();
    assert_eq!(names, ["id", "label"], "file order");
    let back = read_table(&gpu, &ingested.table).unwrap();
    let joined = arrow_select::concat::concat_batches(&back[0].schema(), &back).unwrap();
    assert_eq!(joined, read_with_arrow_rs(&path, Some(&[0, 2])));
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn cancelling_a_parquet_ingest_leaves_nothing() {
    let gpu = support::limited_gpu("parquet cancel", |_| {});
    let path = file("cancel", 20_000, 2_000);
    let before = gpu
        .device()
        .generate_allocator_report()
        .unwrap()
        .total_allocated_bytes;
    let cancel = CancelToken::new();
    let parquet = ParquetOptions {
        threads: 2,
        batch_size: 1_000,
        ..ParquetOptions::default()
    };
    let e = ingest_parquet(
        &gpu,
        &path,
        &IngestOptions::default(),
        &parquet,
        |p| {
            if p.rows >= 5_000 {
                cancel.cancel()
            }
        },
        &cancel,
    )
    .unwrap_err();
    assert!(matches!(e, IngestError::Cancelled { rows: 5_000 }), "{e:?}");
    gpu.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let after = gpu
        .device()
        .generate_allocator_report()
        .unwrap()
        .total_allocated_bytes;
    assert!(after <= before, "{after} > {before}");
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn file_errors_name_the_file_or_column() {
    let e = ParquetSource::open(Path::new("no-such-file.parquet"), None).unwrap_err();
    assert!(matches!(e, IngestError::Io { .. }), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("cannot open `no-such-file.parquet`: "),
        "{e}"
    );

    let dir = std::env::temp_dir().join(format!("gpudata-parquet-{}-errors", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let garbage = dir.join("garbage.parquet");
    std::fs::write(&garbage, b"PAR1 this is not a parquet file").unwrap();
    let e = ParquetSource::open(&garbage, None).unwrap_err();
    assert!(matches!(e, IngestError::Parquet { .. }), "{e:?}");
    assert!(e.to_string().starts_with("parquet: "), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();

    let path = file("columns", 10, 10);
    let e = ParquetSource::open(&path, Some(&["id".to_owned(), "speed".to_owned()])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "no column `speed` in the file: found [id, even, label]"
    );
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}
