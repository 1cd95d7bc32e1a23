//! Asynchronous ingest of any `Stream` of record batches (feature `async`): Arrow Flight's
//! `do_get`, DataFusion's `SendableRecordBatchStream`, object-store readers.

use std::pin::Pin;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures_core::Stream;

use super::{CancelToken, IngestError, IngestOptions, Ingested, Progress, TableBuilder};
use crate::device::Gpu;

/// Streams `stream` (batches of `schema`) into a GPU table that grows batch by batch, as
/// [`ingest_reader`](super::ingest_reader) does: one batch in the stream's hands at a time, so
/// host memory stays bounded by the stream's own buffering. Uploads block the task while they
/// run (they wait for the GPU): run it where blocking is allowed (`spawn_blocking`, a runtime
/// of its own) when other tasks must progress meanwhile.
///
/// # Errors
/// [`IngestError::Read`] with the stream's error converted into an Arrow error; otherwise as
/// [`ingest_reader`](super::ingest_reader).
pub async fn ingest_stream<S, E>(
    gpu: &Gpu,
    schema: SchemaRef,
    mut stream: S,
    options: &IngestOptions,
    mut progress: impl FnMut(&Progress),
    cancel: &CancelToken,
) -> Result<Ingested, IngestError>
where
    S: Stream<Item = Result<RecordBatch, E>> + Unpin,
    E: Into<arrow_schema::ArrowError>,
{
    let mut builder = TableBuilder::new(gpu, schema, options)?;
    let mut index = 0_u64;
    loop {
        if cancel.is_cancelled() {
            let rows = builder.progress().rows;
            builder.abort();
            return Err(IngestError::Cancelled { rows });
        }
        let next = std::future::poll_fn(|cx| {
            match super::reader::contained(|| Pin::new(&mut stream).poll_next(cx)) {
                Ok(poll) => poll.map(|item| item.map(|r| r.map_err(Failure::Read))),
                Err(message) => std::task::Poll::Ready(Some(Err(Failure::Panicked(message)))),
            }
        })
        .await;
        let Some(item) = next else { break };
        let batch = match item {
            Ok(batch) => batch,
            Err(Failure::Read(e)) => {
                return Err(IngestError::Read {
                    batch: index,
                    source: e.into(),
                });
            }
            // The stream is not polled again after it panicked.
            Err(Failure::Panicked(message)) => {
                return Err(IngestError::ReaderPanicked {
                    batch: index,
                    message,
                });
            }
        };
        builder.push(&batch)?;
        progress(&builder.progress());
        index += 1;
    }
    builder.finish()
}

/// Why the stream gave no batch: its own error, or its panic's message.
enum Failure<E> {
    Read(E),
    Panicked(String),
}
