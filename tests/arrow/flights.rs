//! The real data: vega-datasets' `flights-3m.parquet` (3,000,000 rows, 11 row groups:
//! `date: timestamp[us]`, `delay` and `distance: int64`, `origin` and `destination:
//! large_string`) and `flights-200k.arrow` streamed onto the GPU under the `auto` policy, every
//! column carried exactly, and read back equal to what arrow-rs reads from the files.

use std::fs::File;

use arrow_array::RecordBatch;
use gpudata::arrow::convert::Conversion;
use gpudata::arrow::parquet::{ParquetOptions, ingest_parquet};
use gpudata::arrow::stream::{CancelToken, IngestOptions, ingest_reader, read_table};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::support;

#[test]
fn flights_3m_parquet_carries_every_column_exactly() {
    let gpu = support::gpu();
    let path = support::vega_file("flights-3m.parquet");
    let ingested = ingest_parquet(
        &gpu,
        &path,
        &IngestOptions::default(),
        &ParquetOptions::default(),
        |_| {},
        &CancelToken::new(),
    )
    .unwrap();
    assert_eq!(ingested.progress.rows, 3_000_000);
    let conversions: Vec<(String, Conversion, u64)> = ingested
        .report
        .iter()
        .map(|r| (r.column.clone(), r.conversion, r.rounded))
        .collect();
    let offsets = Conversion::TimeOffset {
        origin: None,
        step: None,
    };
    assert_eq!(
        conversions,
        [
            ("date".to_owned(), offsets, 0),
            ("delay".to_owned(), Conversion::Narrow, 0),
            ("distance".to_owned(), Conversion::Narrow, 0),
            ("origin".to_owned(), Conversion::Categories, 0),
            ("destination".to_owned(), Conversion::Categories, 0),
        ]
    );
    // The oracle: arrow-rs reading the file alone.
    let expected: Vec<RecordBatch> =
        ParquetRecordBatchReaderBuilder::try_new(File::open(&path).unwrap())
            .unwrap()
            .build()
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
    let back = read_table(&gpu, &ingested.table).unwrap();
    let schema = expected[0].schema();
    assert_eq!(
        back[0].schema(),
        schema,
        "types, nullability and metadata restored"
    );
    let concat = |b: &[RecordBatch]| arrow_select::concat::concat_batches(&schema, b).unwrap();
    assert_eq!(concat(&back), concat(&expected));
}

#[test]
fn flights_200k_arrow_file_reads_back_equal() {
    let gpu = support::gpu();
    let path = support::vega_file("flights-200k.arrow");
    let open = || arrow_ipc::reader::FileReader::try_new(File::open(&path).unwrap(), None).unwrap();
    let ingested = ingest_reader(
        &gpu,
        open(),
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    )
    .unwrap();
    assert!(
        ingested
            .report
            .iter()
            .all(|r| r.conversion != Conversion::Skip && r.rounded == 0),
        "{:?}",
        ingested.report
    );
    let expected: Vec<RecordBatch> = open().collect::<Result<_, _>>().unwrap();
    let rows: usize = expected.iter().map(RecordBatch::num_rows).sum();
    assert_eq!((rows, ingested.progress.rows), (200_000, 200_000));
    assert_eq!(read_table(&gpu, &ingested.table).unwrap(), expected);
}
