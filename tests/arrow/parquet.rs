//! Parquet files (`gpudata::arrow::parquet`): row groups decoded in parallel and uploaded in
//! file order, column projection, the file's errors; against arrow-rs's own Parquet reader.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::UInt32Type;
use arrow_array::{Array, ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};
use gpudata::arrow::convert::{ConversionPlan, Conversions};
use gpudata::arrow::parquet::{ParquetOptions, ParquetSource, ingest_parquet};
use gpudata::arrow::stream::{CancelToken, IngestError, IngestOptions, Ingested, read_table};
use gpudata::{Gpu, GpuTable};
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
    write(&path, &batch, group_rows);
    path
}

/// `batch` written to `path` in row groups of `group_rows` rows.
fn write(path: &Path, batch: &RecordBatch, group_rows: usize) {
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group_rows))
        .build();
    let mut writer = ArrowWriter::try_new(
        File::create(path).unwrap(),
        batch.schema(),
        Some(properties),
    )
    .unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
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

/// `path` ingested with `parquet`'s options, the default ingest options, no progress callback and
/// nothing cancelled.
fn ingest(gpu: &Gpu, path: &Path, parquet: &ParquetOptions) -> Ingested {
    ingest_parquet(
        gpu,
        path,
        &IngestOptions::default(),
        parquet,
        |_| {},
        &CancelToken::new(),
    )
    .unwrap()
}

/// `table` read back into one record batch.
fn read_joined(gpu: &Gpu, table: &GpuTable) -> RecordBatch {
    let back = read_table(gpu, table).unwrap();
    arrow_select::concat::concat_batches(&back[0].schema(), &back).unwrap()
}

/// The `label` column's category ids a one-thread host conversion of `whole` gives (null rows
/// 0), as little-endian bytes, and its null rows.
fn host_label_ids(whole: &RecordBatch) -> (Vec<u8>, usize) {
    let mut plan = ConversionPlan::new(whole.schema(), Conversions::auto()).unwrap();
    let converted = plan.convert(whole).unwrap();
    let ids = converted.column_by_name("label").unwrap();
    let keys = ids.as_dictionary::<UInt32Type>().keys();
    let bytes = keys
        .values()
        .iter()
        .flat_map(|id| id.to_le_bytes())
        .collect();
    (bytes, keys.null_count())
}

#[test]
fn row_groups_decode_in_parallel_and_arrive_in_file_order() {
    let gpu = support::gpu();
    let path = file("order", 10_000, 1_500);
    let source = ParquetSource::open(&path, None).unwrap();
    assert_eq!((source.num_rows(), source.num_row_groups()), (10_000, 7));
    // The category ids a one-thread host conversion of the whole file gives (null rows 0):
    // workers upload their batches with ids of their own and rewrite them on the GPU.
    let (host_ids, null_labels) = host_label_ids(&read_with_arrow_rs(&path, None));
    assert!(null_labels > 0, "the file has null labels");
    let mut one_thread = None;
    // A read-ahead budget of one byte changes nothing when the workers convert (they upload
    // each batch at once and hold none on the host): the file still arrives whole and in
    // order.
    // Row groups in 3 parts (work units of 500 rows, the last group's of 333 and 334) decode
    // and convert on their own, in file order all the same.
    // By default (parts 0; the file has an offset index) each thread decodes one range of
    // the file's rows, cut where it crosses a row group (3 threads read rows 0..3333,
    // 3333..6666, 6666..10000), or, with fewer groups than threads but at least two thirds
    // as many, one whole group (8 threads: 7 of them).
    // Upload threads (`Some(n)`; `None`: the cores the workers leave) upload the converted
    // batches while the workers decode on: the same table.
    for (threads, read_ahead_bytes, parts, upload_threads) in [
        (1, 0, 0, None),
        (3, 0, 0, Some(2)),
        (8, 0, 1, None),
        (3, 1, 0, Some(0)),
        (4, 0, 3, Some(1)),
        (2, 1, 3, None),
        (8, 0, 0, Some(3)),
    ] {
        let parquet = ParquetOptions {
            threads,
            batch_size: 700,
            read_ahead_bytes,
            row_group_parts: parts,
            upload_threads,
            ..ParquetOptions::default()
        };
        let ingested = ingest(&gpu, &path, &parquet);
        // Each row group of 1500 rows decodes as 700 + 700 + 100 (the last one: 1000 = 700 +
        // 300); in 3 parts, each part as one batch. In ranges, each unit decodes in batches of
        // 700: 3 threads make units of 1500, 1500, 333 | 1167, 1500, 666 | 834, 1500, 1000
        // rows (20 batches, as whole groups make).
        let batches = match parts {
            0 | 1 => 6 * 3 + 2,
            _ => 7 * 3,
        };
        assert_eq!(
            ingested.table.batches().len(),
            batches,
            "threads {threads}, parts {parts}"
        );
        let joined = read_joined(&gpu, &ingested.table);
        assert_eq!(joined, read_with_arrow_rs(&path, None), "threads {threads}");
        // Workers convert with dictionaries of their own (each row group meets the labels in
        // another order); the stream's category ids, labels in id order, and the report are
        // those of one thread.
        let label_ids = ingested
            .table
            .vector("label")
            .unwrap()
            .read_bytes(&gpu)
            .unwrap();
        assert!(
            label_ids == host_ids,
            "threads {threads}, parts {parts}: other category ids than a host conversion's"
        );
        let seen = (
            label_ids,
            ingested.categories.clone(),
            ingested.report.clone(),
        );
        match &one_thread {
            None => one_thread = Some(seen),
            Some(expected) => {
                assert!(
                    seen.0 == expected.0,
                    "threads {threads}: other category ids"
                );
                assert_eq!(
                    (&seen.1, &seen.2),
                    (&expected.1, &expected.2),
                    "threads {threads}"
                );
            }
        }
    }
    let (_, categories, _) = one_thread.unwrap();
    let labels: Vec<&str> = categories[0]
        .1
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap()
        .iter()
        .map(Option::unwrap)
        .collect();
    let first_seen: Vec<String> = [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 0, 7]
        .iter()
        .map(|i| format!("l{i}"))
        .collect();
    assert_eq!(
        labels, first_seen,
        "ids in order of first occurrence in the file"
    );
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

/// Category ids rewritten in runs (a device whose storage bindings hold 1024 ids: batches of
/// 1500 rows take two) and a row group whose labels are all null (its worker's map is empty)
/// come out as a one-thread host conversion gives them.
#[test]
fn category_ids_rewritten_in_runs_and_from_empty_maps_match_the_host() {
    let small = support::limited_gpu("4 KiB storage bindings", |limits| {
        limits.max_storage_buffer_binding_size = 4096;
    });
    let rows = 6_000_i64;
    let dir = std::env::temp_dir().join(format!("gpudata-parquet-{}-runs", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("data.parquet");
    let batch = RecordBatch::try_from_iter([(
        "label",
        Arc::new(StringArray::from_iter((0..rows).map(|i| {
            (i >= 1_500 && i % 5 != 0).then(|| format!("l{}", (i * 7) % 23))
        }))) as ArrayRef,
    )])
    .unwrap();
    write(&path, &batch, 1_500);
    let whole = read_with_arrow_rs(&path, None);
    let (host, _) = host_label_ids(&whole);
    for (threads, upload_threads) in [(1, None), (3, Some(0)), (3, Some(2))] {
        let parquet = ParquetOptions {
            threads,
            upload_threads,
            ..ParquetOptions::default()
        };
        let ingested = ingest(&small, &path, &parquet);
        let ids = ingested
            .table
            .vector("label")
            .unwrap()
            .read_bytes(&small)
            .unwrap();
        assert!(
            ids == host,
            "threads {threads}: other category ids than a host conversion's"
        );
        assert_eq!(
            read_joined(&small, &ingested.table),
            whole,
            "threads {threads}"
        );
        ingested.table.destroy();
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A lost device fails a Parquet ingest on any number of threads with its typed error: no
/// panic, and no worker left waiting for a turn that never comes.
#[test]
fn a_lost_device_fails_the_parquet_ingest_on_every_thread_count() {
    let gpu = support::fresh_gpu();
    let path = file("lost", 10_000, 1_500);
    gpu.device().destroy();
    // With and without upload threads (`Some(0)`: the workers upload).
    for (threads, batch_rows, upload_threads) in [
        (1, None, Some(0)),
        (1, None, Some(1)),
        (3, None, Some(2)),
        (8, None, Some(0)),
        (3, Some(1_000), None),
    ] {
        let options = IngestOptions {
            batch_rows,
            ..IngestOptions::default()
        };
        let parquet = ParquetOptions {
            threads,
            batch_size: 700,
            upload_threads,
            ..ParquetOptions::default()
        };
        let e = ingest_parquet(&gpu, &path, &options, &parquet, |_| {}, &CancelToken::new())
            .unwrap_err();
        assert!(
            matches!(
                &e,
                IngestError::Upload {
                    source: gpudata::arrow::ArrowInteropError::Gpu {
                        source: gpudata::GpuError::DeviceLost { .. },
                        ..
                    }
                }
            ),
            "threads {threads}: {e:?}"
        );
    }
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

/// Under `batch_rows` the consumer converts (it re-batches first): workers decode ahead within
/// the read-ahead budget (one byte: one batch each at most), and the table is the file's, in
/// order, in GPU batches of the asked rows, with the ids of a host conversion.
#[test]
fn rebatched_parquet_ingests_read_ahead_within_the_budget() {
    let gpu = support::gpu();
    let path = file("rebatched", 10_000, 1_500);
    let whole = read_with_arrow_rs(&path, None);
    for (threads, read_ahead_bytes) in [(3, 1), (4, 0)] {
        let options = IngestOptions {
            batch_rows: Some(1_000),
            ..IngestOptions::default()
        };
        let parquet = ParquetOptions {
            threads,
            batch_size: 700,
            read_ahead_bytes,
            ..ParquetOptions::default()
        };
        let ingested =
            ingest_parquet(&gpu, &path, &options, &parquet, |_| {}, &CancelToken::new()).unwrap();
        assert_eq!(ingested.table.batches().len(), 10, "threads {threads}");
        assert_eq!(
            read_joined(&gpu, &ingested.table),
            whole,
            "threads {threads}"
        );
        ingested.table.destroy();
    }
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

/// A value error on a decoding worker names the row of the file, as on one thread.
#[test]
fn conversion_errors_on_workers_name_the_files_row() {
    use gpudata::arrow::convert::{Conversion, ConversionError, Conversions};
    let gpu = support::gpu();
    let dir = std::env::temp_dir().join(format!("gpudata-parquet-{}-row", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("wide.parquet");
    let values: Vec<i64> = (0..4000)
        .map(|i| if i == 2_345 { 1 << 40 } else { i })
        .collect();
    let batch = RecordBatch::try_from_iter([("n", Arc::new(Int64Array::from(values)) as ArrayRef)])
        .unwrap();
    write(&path, &batch, 1000);
    for (threads, parts) in [(1, 0), (3, 0), (3, 4)] {
        let options = IngestOptions {
            conversions: Conversions::auto().column("n", Conversion::Narrow),
            ..IngestOptions::default()
        };
        let parquet = ParquetOptions {
            threads,
            batch_size: 300,
            row_group_parts: parts,
            ..ParquetOptions::default()
        };
        let e = ingest_parquet(&gpu, &path, &options, &parquet, |_| {}, &CancelToken::new())
            .unwrap_err();
        assert!(
            matches!(
                &e,
                IngestError::Convert {
                    source: ConversionError::OutOfRange { row: 2_345, .. },
                    ..
                }
            ),
            "threads {threads}: {e:?}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn projection_reads_only_the_named_columns() {
    let gpu = support::gpu();
    let path = file("projection", 3_000, 1_000);
    let parquet = ParquetOptions {
        columns: Some(vec!["label".to_owned(), "id".to_owned()]),
        ..ParquetOptions::default()
    };
    let ingested = ingest(&gpu, &path, &parquet);
    let names: Vec<&str> = ingested.report.iter().map(|r| r.column.as_str()).collect();
    assert_eq!(names, ["id", "label"], "file order");
    let joined = read_joined(&gpu, &ingested.table);
    assert_eq!(joined, read_with_arrow_rs(&path, Some(&[0, 2])));
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn cancelling_a_parquet_ingest_leaves_nothing() {
    let gpu = support::limited_gpu("parquet cancel", |_| {});
    let path = file("cancel", 20_000, 2_000);
    let before = support::allocated_bytes(&gpu);
    // The workers uploading, and two upload threads uploading for them (cancelled with
    // batches queued or uploading).
    for upload_threads in [Some(0), Some(2)] {
        let cancel = CancelToken::new();
        let parquet = ParquetOptions {
            threads: 2,
            batch_size: 1_000,
            upload_threads,
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
        assert!(
            matches!(e, IngestError::Cancelled { rows: 5_000 }),
            "upload threads {upload_threads:?}: {e:?}"
        );
        support::assert_nothing_left(&gpu, before, "the cancelled ingest");
    }
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

/// A GPU table written by `write_table` through arrow-rs's Parquet `ArrowWriter` and read back
/// by arrow-rs's reader equals the file it came from: types (timestamps, Int64 with nulls,
/// booleans, strings, dictionaries), values, nulls.
#[test]
fn a_gpu_table_written_to_parquet_reads_back_equal() {
    use arrow_array::types::Int32Type;
    use arrow_array::{DictionaryArray, TimestampMicrosecondArray};
    use gpudata::arrow::stream::write_table;
    let gpu = support::gpu();
    let rows = 5000_i64;
    let dictionary: DictionaryArray<Int32Type> = (0..rows)
        .map(|i| (i % 11 != 5).then(|| ["ab", "cd", "ef"][(i % 3) as usize]))
        .collect();
    let batch = RecordBatch::try_from_iter([
        (
            "when",
            Arc::new(TimestampMicrosecondArray::from_iter_values(
                (0..rows).map(|i| 1_600_000_000_000_000 + i * 60_000_000),
            )) as ArrayRef,
        ),
        (
            "delay",
            Arc::new(Int64Array::from_iter(
                (0..rows).map(|i| (i % 9 != 4).then_some(i * 3 - 700)),
            )) as ArrayRef,
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
        ("kind", Arc::new(dictionary) as ArrayRef),
    ])
    .unwrap();
    let dir = std::env::temp_dir().join(format!("gpudata-parquet-{}-write", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("source.parquet");
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(1200))
        .build();
    let mut writer = ArrowWriter::try_new(
        File::create(&source).unwrap(),
        batch.schema(),
        Some(properties),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let original = read_with_arrow_rs(&source, None);

    // Two threads read rows 0..2500 and 2500..5000: row groups 0, 1, the first 100 rows of
    // 2 | its last 1100, 3, 4 (6 batches).
    let parquet = ParquetOptions {
        threads: 2,
        ..ParquetOptions::default()
    };
    let ingested = ingest(&gpu, &source, &parquet);
    assert_eq!(ingested.table.batches().len(), 6);
    let written = dir.join("written.parquet");
    let mut writer =
        ArrowWriter::try_new(File::create(&written).unwrap(), original.schema(), None).unwrap();
    assert_eq!(
        write_table(&gpu, &ingested.table, &mut writer).unwrap(),
        rows as u64
    );
    writer.close().unwrap();
    let back = read_with_arrow_rs(&written, None);
    assert_eq!(back, original);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `auto` narrows Int64 by the whole file's range (the row groups' statistics), not the first
/// batch's: a value beyond 32 bits in the last row group makes the column float32 from the
/// start instead of an error at that row; a file whose values all fit narrows exactly.
#[test]
fn auto_narrowing_is_decided_by_the_whole_files_statistics() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use gpudata::arrow::convert::Conversion;
    let gpu = support::gpu();
    let dir = std::env::temp_dir().join(format!("gpudata-parquet-{}-ranges", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, last, expected) in [
        ("wide", 1_i64 << 40, Conversion::Float32),
        ("fits", -(1_i64 << 31), Conversion::Narrow),
    ] {
        let path = dir.join(format!("{name}.parquet"));
        let values: Vec<i64> = (0..3000).chain([last]).collect();
        let batch = RecordBatch::try_from_iter([(
            "n",
            Arc::new(Int64Array::from(values.clone())) as ArrayRef,
        )])
        .unwrap();
        write(&path, &batch, 1000);
        let source = ParquetSource::open(&path, None).unwrap();
        assert_eq!(
            source.integer_ranges(),
            [(
                "n".to_owned(),
                i128::from(last.min(0)),
                i128::from(last.max(2999))
            )]
        );
        let ingested = ingest(&gpu, &path, &ParquetOptions::default());
        let report = &ingested.report[0];
        assert_eq!(report.conversion, expected, "{name}");
        assert!(
            report.reason.contains("the file's statistics"),
            "{}",
            report.reason
        );
        let back = read_table(&gpu, &ingested.table).unwrap();
        let back: Vec<i64> = back
            .iter()
            .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
            .collect();
        // float32 holds 0..3000 and 2^40 exactly.
        assert_eq!(back, values, "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
