//! Streaming ingest (`gpudata::arrow::stream`): readers into growing GPU tables, re-batching,
//! progress, cancellation and errors that leave no table behind (the device's allocator report
//! is the oracle), and GPU tables back out through a `RecordBatchWriter`.

use std::sync::Arc;

use arrow_array::{
    ArrayRef, Int64Array, RecordBatch, RecordBatchIterator, StringArray, TimestampMillisecondArray,
};
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{ArrowError, Schema};
use gpudata::arrow::stream::{
    CancelToken, IngestError, IngestOptions, Progress, ingest_reader, read_table, write_table,
};

use crate::support;

fn batch(seed: i64, rows: usize) -> RecordBatch {
    let n = rows as i64;
    RecordBatch::try_from_iter_with_nullable([
        (
            "when",
            Arc::new(TimestampMillisecondArray::from_iter_values(
                (0..n).map(|i| 1_000_000_000_000 + (seed * 1000 + i) * 60_000),
            )) as ArrayRef,
            false,
        ),
        (
            "delay",
            Arc::new(Int64Array::from_iter(
                (0..n).map(|i| (i % 5 != 3).then_some(seed * 7 - i)),
            )) as ArrayRef,
            true,
        ),
        (
            "origin",
            Arc::new(StringArray::from_iter_values(
                (0..n).map(|i| ["SEA", "LAX", "ORD"][((seed + i) % 3) as usize]),
            )) as ArrayRef,
            false,
        ),
    ])
    .unwrap()
}

fn batches(sizes: &[usize]) -> Vec<RecordBatch> {
    sizes
        .iter()
        .enumerate()
        .map(|(i, n)| batch(i as i64, *n))
        .collect()
}

fn reader(
    batches: Vec<RecordBatch>,
) -> RecordBatchIterator<std::vec::IntoIter<Result<RecordBatch, ArrowError>>> {
    let schema = batches[0].schema();
    RecordBatchIterator::new(
        batches.into_iter().map(Ok).collect::<Vec<_>>().into_iter(),
        schema,
    )
}

#[test]
fn a_reader_grows_a_table_batch_by_batch_and_reads_back_equal() {
    let gpu = support::gpu();
    let input = batches(&[100, 0, 37, 250]);
    let mut seen: Vec<Progress> = Vec::new();
    let ingested = ingest_reader(
        &gpu,
        reader(input.clone()),
        &IngestOptions::default(),
        |p| seen.push(*p),
        &CancelToken::new(),
    )
    .unwrap();
    assert_eq!(ingested.table.batches().len(), 4);
    assert_eq!(ingested.progress.rows, 387);
    assert_eq!(
        seen.iter().map(|p| p.rows).collect::<Vec<_>>(),
        [100, 100, 137, 387]
    );
    assert_eq!(seen.last().unwrap().gpu_batches, 4);
    // when: float32 offsets (4) + delay: sint32 (4) + delay_valid (4) + origin ids (4).
    assert_eq!(ingested.progress.gpu_bytes, 387 * 16);
    assert_eq!(ingested.categories.len(), 1);
    assert_eq!(read_table(&gpu, &ingested.table).unwrap(), input);
}

#[test]
fn batch_rows_rebatches_small_and_large_batches() {
    let gpu = support::gpu();
    let input = batches(&[7, 7, 25, 1, 0, 3]);
    let options = IngestOptions {
        batch_rows: Some(10),
        ..IngestOptions::default()
    };
    let ingested = ingest_reader(
        &gpu,
        reader(input.clone()),
        &options,
        |_| {},
        &CancelToken::new(),
    )
    .unwrap();
    let sizes: Vec<u64> = ingested
        .table
        .batches()
        .iter()
        .map(|b| b.num_rows())
        .collect();
    assert_eq!(sizes, [10, 10, 10, 10, 3]);
    let back = read_table(&gpu, &ingested.table).unwrap();
    let schema = input[0].schema();
    assert_eq!(
        arrow_select::concat::concat_batches(&schema, &back).unwrap(),
        arrow_select::concat::concat_batches(&schema, &input).unwrap()
    );
}

#[test]
fn cancellation_destroys_the_partial_table() {
    // A device of its own: the shared one's allocations change under other tests.
    let gpu = support::limited_gpu("ingest allocations", |_| {});
    let before = support::allocated_bytes(&gpu);
    let cancel = CancelToken::new();
    let result = ingest_reader(
        &gpu,
        reader(batches(&[5000, 5000, 5000, 5000])),
        &IngestOptions::default(),
        |p| {
            if p.gpu_batches == 2 {
                assert!(
                    support::allocated_bytes(&gpu) > before,
                    "two batches are on the gpu"
                );
                cancel.cancel();
            }
        },
        &cancel,
    );
    let e = result.unwrap_err();
    assert!(
        matches!(e, IngestError::Cancelled { rows: 10_000 }),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "ingest cancelled after 10000 rows: the partial gpu table was destroyed"
    );
    support::assert_nothing_left(&gpu, before, "the partial table");
}

#[test]
fn a_failing_reader_is_an_error_and_leaves_nothing() {
    // A device of its own: the shared one's allocations change under other tests.
    let gpu = support::limited_gpu("ingest allocations", |_| {});
    let before = support::allocated_bytes(&gpu);
    let good = batches(&[3000, 3000]);
    let schema = good[0].schema();
    let items: Vec<Result<RecordBatch, ArrowError>> = vec![
        Ok(good[0].clone()),
        Ok(good[1].clone()),
        Err(ArrowError::IpcError("truncated message".to_owned())),
    ];
    let e = ingest_reader(
        &gpu,
        RecordBatchIterator::new(items, schema),
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    )
    .unwrap_err();
    assert!(matches!(e, IngestError::Read { batch: 2, .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "reading record batch 2 failed: Ipc error: truncated message"
    );
    support::assert_nothing_left(&gpu, before, "the partial table");
}

#[test]
fn options_are_checked() {
    let gpu = support::gpu();
    let options = IngestOptions {
        in_flight: 0,
        ..IngestOptions::default()
    };
    let e = ingest_reader(
        &gpu,
        reader(batches(&[1])),
        &options,
        |_| {},
        &CancelToken::new(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid ingest options: in_flight is 0, expected at least 1"
    );
    let options = IngestOptions {
        batch_rows: Some(0),
        ..IngestOptions::default()
    };
    let e = ingest_reader(
        &gpu,
        reader(batches(&[1])),
        &options,
        |_| {},
        &CancelToken::new(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid ingest options: batch_rows is 0, expected at least 1 (or None for one gpu batch per record batch)"
    );
}

#[test]
fn an_empty_stream_gives_an_empty_table() {
    let gpu = support::gpu();
    let schema = batch(0, 1).schema();
    let empty = RecordBatchIterator::new(Vec::<Result<RecordBatch, ArrowError>>::new(), schema);
    let ingested = ingest_reader(
        &gpu,
        empty,
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    )
    .unwrap();
    assert!(ingested.table.batches().is_empty());
    assert_eq!(ingested.progress.rows, 0);
    assert_eq!(ingested.report.len(), 3);
}

#[test]
fn tables_stream_back_out_through_a_writer() {
    let gpu = support::gpu();
    let input = batches(&[40, 12]);
    let ingested = ingest_reader(
        &gpu,
        reader(input.clone()),
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    )
    .unwrap();
    let mut bytes = Vec::new();
    let schema: Arc<Schema> = input[0].schema();
    let mut writer = StreamWriter::try_new(&mut bytes, &schema).unwrap();
    assert_eq!(write_table(&gpu, &ingested.table, &mut writer).unwrap(), 52);
    writer.finish().unwrap();
    drop(writer);
    let back: Vec<RecordBatch> = StreamReader::try_new(std::io::Cursor::new(bytes), None)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(back, input);
}

/// A writer that refuses every batch.
struct Refusing;

impl arrow_array::RecordBatchWriter for Refusing {
    fn write(&mut self, _: &RecordBatch) -> Result<(), ArrowError> {
        Err(ArrowError::IoError(
            "disk full".to_owned(),
            std::io::Error::other("disk full"),
        ))
    }
    fn close(self) -> Result<(), ArrowError> {
        Ok(())
    }
}

#[test]
fn a_refusing_writer_is_an_error() {
    let gpu = support::gpu();
    let ingested = ingest_reader(
        &gpu,
        reader(batches(&[4])),
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    )
    .unwrap();
    let e = write_table(&gpu, &ingested.table, &mut Refusing).unwrap_err();
    assert!(matches!(e, IngestError::Write { batch: 0, .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "writing record batch 0 failed: Io error: disk full"
    );
}

#[test]
fn an_upload_the_device_refuses_is_an_error_naming_the_column() {
    let gpu = support::limited_gpu("ingest buffer limit", |limits| {
        limits.max_buffer_size = 1024
    });
    let big = RecordBatch::try_from_iter([(
        "n",
        Arc::new(Int64Array::from_iter_values(0..1000)) as ArrayRef,
    )])
    .unwrap();
    let e = ingest_reader(
        &gpu,
        reader(vec![big]),
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    )
    .unwrap_err();
    assert!(matches!(e, IngestError::Upload { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "column `n` needs 4000 bytes, beyond the device's max_buffer_size of 1024 bytes"
    );
}

#[test]
fn a_conversion_error_stops_the_ingest() {
    let gpu = support::gpu();
    let first =
        RecordBatch::try_from_iter([("n", Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef)])
            .unwrap();
    let second =
        RecordBatch::try_from_iter([("n", Arc::new(Int64Array::from(vec![1 << 40])) as ArrayRef)])
            .unwrap();
    let e = ingest_reader(
        &gpu,
        reader(vec![first, second]),
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    )
    .unwrap_err();
    assert!(matches!(e, IngestError::Convert { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "column `n`: value 1099511627776 at row 2 does not fit 32 bits (narrowing); choose float32 (rounded beyond 2^24) or words (exact, two 32-bit words)"
    );
}

/// A stream of ready batches (what an async source such as Arrow Flight yields).
#[cfg(feature = "async")]
struct Ready(std::collections::VecDeque<Result<RecordBatch, ArrowError>>);

#[cfg(feature = "async")]
impl futures_core::Stream for Ready {
    type Item = Result<RecordBatch, ArrowError>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        std::task::Poll::Ready(self.0.pop_front())
    }
}

#[cfg(feature = "async")]
#[test]
fn an_async_stream_grows_a_table_too() {
    use gpudata::arrow::stream::ingest_stream;
    let gpu = support::gpu();
    let input = batches(&[30, 0, 9]);
    let schema = input[0].schema();
    let stream = Ready(input.iter().cloned().map(Ok).collect());
    let ingested = pollster::block_on(ingest_stream(
        &gpu,
        schema.clone(),
        stream,
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    ))
    .unwrap();
    assert_eq!(read_table(&gpu, &ingested.table).unwrap(), input);
    let failing = Ready(
        [
            Ok(input[0].clone()),
            Err(ArrowError::ExternalError("connection reset".into())),
        ]
        .into_iter()
        .collect(),
    );
    let e = pollster::block_on(ingest_stream(
        &gpu,
        schema,
        failing,
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    ))
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "reading record batch 1 failed: External error: connection reset"
    );
    // A stream that panics when polled past its batches: an error at the boundary.
    let panicking = PanicAtEnd(Ready(input.iter().cloned().map(Ok).collect()));
    let e = pollster::block_on(ingest_stream(
        &gpu,
        input[0].schema(),
        panicking,
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    ))
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "reading record batch 3 failed: the reader panicked (connection state corrupted)"
    );
}

/// A stream that panics once its batches are out.
#[cfg(feature = "async")]
struct PanicAtEnd(Ready);

#[cfg(feature = "async")]
impl futures_core::Stream for PanicAtEnd {
    type Item = Result<RecordBatch, ArrowError>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        match std::pin::Pin::new(&mut self.0).poll_next(cx) {
            std::task::Poll::Ready(None) => panic!("connection state corrupted"),
            other => other,
        }
    }
}

/// A reader of the caller's own that panics at its third batch.
struct Panicking(std::vec::IntoIter<RecordBatch>, Arc<Schema>);

impl Iterator for Panicking {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.0.next() {
            Some(batch) => Some(Ok(batch)),
            None => panic!("decoder state corrupted"),
        }
    }
}

impl arrow_array::RecordBatchReader for Panicking {
    fn schema(&self) -> Arc<Schema> {
        self.1.clone()
    }
}

#[test]
fn a_panicking_reader_is_an_error_and_leaves_nothing() {
    // A device of its own: the shared one's allocations change under other tests.
    let gpu = support::limited_gpu("ingest allocations", |_| {});
    let before = support::allocated_bytes(&gpu);
    let good = batches(&[3000, 3000]);
    let schema = good[0].schema();
    let e = ingest_reader(
        &gpu,
        Panicking(good.into_iter(), schema),
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    )
    .unwrap_err();
    assert!(
        matches!(e, IngestError::ReaderPanicked { batch: 2, .. }),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "reading record batch 2 failed: the reader panicked (decoder state corrupted)"
    );
    support::assert_nothing_left(&gpu, before, "the partial table");
}

#[test]
fn a_corrupted_ipc_file_that_makes_arrow_ipc_panic_is_an_error() {
    use arrow_ipc::reader::FileReader;
    use gpudata::arrow::{ArrowInteropError, IpcPart, read_ipc_file};
    // A corruption on which arrow-ipc 60's FileReader panics inside `next` (a buffer past the
    // message body), handed to the ingest as the caller's own reader.
    let (_, file) = crate::faults::ipc(false);
    let (bad, expected) = crate::faults::corrupted(&file)
        .into_iter()
        .find_map(|f| match read_ipc_file(std::io::Cursor::new(&f)) {
            Err(ArrowInteropError::IpcPanic {
                part: IpcPart::Batch(_),
                message,
            }) => Some((f, message)),
            _ => None,
        })
        .expect("a corruption on which arrow-ipc panics reading a batch");
    let reader = FileReader::try_new(std::io::Cursor::new(bad), None).unwrap();
    let gpu = support::gpu();
    let e = ingest_reader(
        &gpu,
        reader,
        &IngestOptions::default(),
        |_| {},
        &CancelToken::new(),
    )
    .unwrap_err();
    let IngestError::ReaderPanicked { message, .. } = &e else {
        panic!("expected ReaderPanicked, found {e:?}");
    };
    assert_eq!(*message, expected);
}

#[test]
fn value_lists_rebatched_keep_offsets_from_zero_in_every_gpu_batch() {
    use arrow_array::cast::AsArray;
    use gpudata::arrow::convert::{Conversion, Conversions};
    use gpudata::arrow::record_batch_from_gpu;
    let gpu = support::gpu();
    let input = batches(&[7, 7, 25, 1, 0, 3]);
    let options = IngestOptions {
        batch_rows: Some(10),
        conversions: Conversions::auto().column("origin", Conversion::ValueList),
        ..IngestOptions::default()
    };
    let ingested = ingest_reader(
        &gpu,
        reader(input.clone()),
        &options,
        |_| {},
        &CancelToken::new(),
    )
    .unwrap();
    for gpu_batch in ingested.table.batches() {
        let back = record_batch_from_gpu(&gpu, gpu_batch).unwrap();
        let strings = back.column_by_name("origin").unwrap().as_string::<i32>();
        let pairs = back.column_by_name("origin_offsets").unwrap();
        let pairs = pairs
            .as_fixed_size_list()
            .values()
            .as_primitive::<arrow_array::types::UInt32Type>();
        let mut at = 0;
        for (i, pair) in pairs.values().chunks(2).enumerate() {
            let len = strings.value(i).len() as u32;
            assert_eq!(pair, [at, at + len], "row {i}");
            at += len;
        }
    }
    let back = read_table(&gpu, &ingested.table).unwrap();
    let schema = input[0].schema();
    assert_eq!(
        arrow_select::concat::concat_batches(&schema, &back).unwrap(),
        arrow_select::concat::concat_batches(&schema, &input).unwrap()
    );
}
