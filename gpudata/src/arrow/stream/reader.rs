//! Synchronous ingest of any [`RecordBatchReader`] (IPC files and streams, Parquet, CSV, query
//! engines), read on its own thread a bounded number of batches ahead of the upload.

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
    let mut builder = TableBuilder::new(gpu, reader.schema(), options)?;
    std::thread::scope(|scope| {
        let (sender, receiver) =
            sync_channel::<Result<RecordBatch, arrow_schema::ArrowError>>(options.in_flight - 1);
        let reader_cancel = cancel.clone();
        scope.spawn(move || {
            for item in reader {
                if reader_cancel.is_cancelled() || sender.send(item).is_err() {
                    break;
                }
            }
        });
        for (index, item) in receiver.iter().enumerate() {
            if cancel.is_cancelled() {
                break;
            }
            let batch = item.map_err(|source| IngestError::Read {
                batch: index as u64,
                source,
            })?;
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
