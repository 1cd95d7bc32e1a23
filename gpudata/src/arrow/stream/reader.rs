//! Synchronous ingest of any [`RecordBatchReader`] (IPC files and streams, Parquet, CSV, query
//! engines), read on its own thread a bounded number of batches ahead of the upload.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::sync_channel;

use arrow_array::{RecordBatch, RecordBatchReader};

use super::{CancelToken, IngestError, IngestOptions, Ingested, Progress, TableBuilder};
use crate::device::Gpu;

/// Streams `reader` into a GPU table that grows batch by batch.
///
/// The reader runs on a scoped thread, at most `options.in_flight` batches ahead of the upload
/// (so host memory stays bounded whatever the stream's length); each batch is converted by
/// `options.conversions` and uploaded; `progress` is called after each batch (it may cancel
/// through `cancel`). On any error or cancellation the partial table is destroyed and nothing
/// is returned but the error.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int64Array, RecordBatch, RecordBatchIterator};
/// use gpudata::arrow::stream::{CancelToken, IngestOptions, ingest_reader, read_table};
///
/// let gpu = gpudata::Gpu::headless()?;
/// let batch = RecordBatch::try_from_iter([("n", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef)])?;
/// let reader = RecordBatchIterator::new([Ok(batch.clone()), Ok(batch.clone())], batch.schema());
/// let ingested = ingest_reader(&gpu, reader, &IngestOptions::default(), |_| {}, &CancelToken::new())?;
/// assert_eq!((ingested.table.batches().len(), ingested.progress.rows), (2, 6));
/// assert_eq!(read_table(&gpu, &ingested.table)?, vec![batch.clone(), batch]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`IngestError::Read`] when the reader fails, [`IngestError::Cancelled`], and the errors of
/// [`TableBuilder::new`], [`TableBuilder::push`] and [`TableBuilder::finish`].
pub fn ingest_reader<R>(
    gpu: &Gpu,
    reader: R,
    options: &IngestOptions,
    mut progress: impl FnMut(&Progress),
    cancel: &CancelToken,
) -> Result<Ingested, IngestError>
where
    R: RecordBatchReader + Send,
{
    let schema = contained(|| reader.schema())
        .map_err(|message| IngestError::ReaderPanicked { batch: 0, message })?;
    let mut builder = TableBuilder::new(gpu, schema, options)?;
    std::thread::scope(|scope| {
        let (sender, receiver) = sync_channel::<Read>(options.in_flight - 1);
        let reader_cancel = cancel.clone();
        scope.spawn(move || {
            let mut reader = reader;
            loop {
                let item = match contained(|| reader.next()) {
                    Ok(Some(item)) => Read::Item(item),
                    Ok(None) => break,
                    Err(message) => Read::Panicked(message),
                };
                let panicked = matches!(item, Read::Panicked(_));
                if reader_cancel.is_cancelled() || sender.send(item).is_err() || panicked {
                    break;
                }
            }
            // A reader that panicked may panic again when dropped: contained too.
            let _ = contained(move || drop(reader));
        });
        for (index, item) in receiver.iter().enumerate() {
            if cancel.is_cancelled() {
                break;
            }
            let batch = match item {
                Read::Item(item) => item.map_err(|source| IngestError::Read {
                    batch: index as u64,
                    source,
                })?,
                Read::Panicked(message) => {
                    return Err(IngestError::ReaderPanicked {
                        batch: index as u64,
                        message,
                    });
                }
            };
            builder.push(&batch)?;
            progress(&builder.progress());
        }
        Ok::<(), IngestError>(())
    })?;
    if cancel.is_cancelled() {
        let rows = builder.progress().rows;
        builder.abort();
        return Err(IngestError::Cancelled { rows });
    }
    builder.finish()
}

/// What the reader thread hands over: the reader's item, or the message of its panic.
enum Read {
    Item(Result<RecordBatch, arrow_schema::ArrowError>),
    Panicked(String),
}

/// Runs one call into the caller's reader (or stream) with its panic caught and returned as
/// the panic's message: a `RecordBatchReader` over arrow-ipc panics on some corrupted messages
/// (see [`read_ipc_stream`](crate::arrow::read_ipc_stream)), and the ingest boundary reports
/// that as [`IngestError::ReaderPanicked`] instead of unwinding through the caller. The panic
/// hook still runs (the message is printed to stderr, as for any panic).
pub(crate) fn contained<T>(call: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(call))
        .map_err(|payload| crate::arrow::ipc::panic_message(payload.as_ref()))
}
