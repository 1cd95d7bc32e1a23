//! Ingest options, progress and cancellation.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::arrow::convert::Conversions;

/// How a stream of record batches becomes a GPU table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IngestOptions {
    /// Column conversions ([`Conversions::auto`] by default).
    pub conversions: Conversions,
    /// Rows per GPU batch: `None` keeps one GPU batch per record batch; `Some(n)` re-batches
    /// (small batches joined, large ones cut) to `n` rows, the last one shorter.
    pub batch_rows: Option<usize>,
    /// Record batches read ahead of the upload, at most (at least 1): with `n`, host memory
    /// holds at most `n` read batches plus the one being uploaded (and a re-batching buffer
    /// under `batch_rows`), whatever the stream's length.
    pub in_flight: usize,
    /// Buffer usages of the uploaded buffers ([`DEFAULT_USAGE`](crate::data::DEFAULT_USAGE)
    /// when `None`).
    pub usage: Option<wgpu::BufferUsages>,
}

impl Default for IngestOptions {
    fn default() -> IngestOptions {
        IngestOptions {
            conversions: Conversions::auto(),
            batch_rows: None,
            in_flight: 2,
            usage: None,
        }
    }
}

/// Where an ingest stands, passed to the progress callback after each GPU batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Record batches read.
    pub batches_read: u64,
    /// GPU batches added to the table.
    pub gpu_batches: u64,
    /// Rows uploaded.
    pub rows: u64,
    /// Bytes of the uploaded GPU buffers.
    pub gpu_bytes: u64,
    /// Arrow bytes of the batches read (their buffers' memory).
    pub arrow_bytes: u64,
    /// Time since the ingest started.
    pub elapsed: Duration,
}

/// Cancels an ingest from another thread (or from the progress callback): the ingest stops
/// before its next batch, destroys the partial table and returns
/// [`IngestError::Cancelled`](super::IngestError::Cancelled).
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token not cancelled.
    #[must_use]
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Asks the ingest to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether [`cancel`](Self::cancel) was called.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}
