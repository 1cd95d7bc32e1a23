//! The upload threads of [`ingest_parquet`](super::ingest_parquet): where the decoding workers
//! leave cores free, they hand each converted batch to an upload thread and go on decoding
//! while it is uploaded; a [`Ticket`] stands for the batch's GPU batch until then. The wgpu
//! calls of an upload (staging, buffers, submission, the pacer's wait) then overlap the next
//! batch's decode and conversion instead of following them on the same thread.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, SendError, Sender, SyncSender, channel};

use arrow_array::RecordBatch;

use crate::arrow::BatchOptions;
use crate::arrow::stream::{CancelToken, IngestError, UploadPacer, upload_converted};
use crate::device::Gpu;
use crate::table::GpuRecordBatch;

/// A batch's upload: its GPU batch or why it failed.
pub(super) type Uploaded = Result<GpuRecordBatch, IngestError>;

/// A converted batch for an upload thread, and where its GPU batch goes.
pub(super) struct Job {
    batch: RecordBatch,
    options: Arc<BatchOptions>,
    reply: Sender<Uploaded>,
}

/// The GPU batch of a converted batch: uploaded already, or queued for an upload thread. A
/// ticket dropped before it is redeemed destroys its batch, once uploaded.
pub(super) struct Ticket {
    done: Option<Uploaded>,
    queued: Option<Receiver<Uploaded>>,
}

impl Ticket {
    /// The ticket of a batch uploaded on the calling thread.
    pub(super) fn done(uploaded: Uploaded) -> Ticket {
        Ticket {
            done: Some(uploaded),
            queued: None,
        }
    }

    /// Hands `batch` to the upload threads behind `jobs` (it may wait for room in their queue,
    /// which bounds the converted batches held on the host).
    pub(super) fn queue(
        jobs: &SyncSender<Job>,
        batch: RecordBatch,
        options: Arc<BatchOptions>,
    ) -> Ticket {
        let (reply, receiver) = channel();
        // When no upload thread is left (they stop only on cancellation) the job is dropped
        // with its `reply`, and `redeem` says so.
        let _ = jobs.send(Job {
            batch,
            options,
            reply,
        });
        Ticket {
            done: None,
            queued: Some(receiver),
        }
    }

    /// Waits for the upload; `None` when the upload threads stopped without it (the ingest
    /// was cancelled).
    pub(super) fn redeem(mut self) -> Option<Uploaded> {
        if let Some(uploaded) = self.done.take() {
            return Some(uploaded);
        }
        self.queued.take()?.recv().ok()
    }
}

impl Drop for Ticket {
    /// Waits for a queued upload (an upload thread always replies or, cancelled, drops the
    /// job: nothing it does waits for the workers) and destroys the batch, so that none is
    /// left behind when a worker stops early.
    fn drop(&mut self) {
        let uploaded = match (self.done.take(), self.queued.take()) {
            (Some(uploaded), _) => Some(uploaded),
            (None, Some(receiver)) => receiver.recv().ok(),
            (None, None) => None,
        };
        if let Some(Ok(batch)) = uploaded {
            batch.destroy();
        }
    }
}

/// Converted batches queued per upload thread before a worker waits for room.
const QUEUED_PER_THREAD: usize = 2;

/// The queues of `threads` upload threads (each its own, so that a thread that stops, even by
/// panicking, drops its receiving end and wakes the workers waiting on it): the workers' ends
/// and the threads' ends. Worker `w` queues to thread `w % threads`.
pub(super) fn queues(threads: usize) -> (Vec<SyncSender<Job>>, Vec<Receiver<Job>>) {
    (0..threads)
        .map(|_| std::sync::mpsc::sync_channel(QUEUED_PER_THREAD))
        .unzip()
}

/// An upload thread: uploads the batches of its queue in order, each paced as a worker's own
/// uploads are, until every worker that queues to it dropped its end. Once the ingest is
/// cancelled it drops the batches it takes without uploading them.
pub(super) fn run(gpu: &Gpu, jobs: Receiver<Job>, cancel: &CancelToken) {
    let mut pacer = UploadPacer::default();
    for job in jobs {
        if cancel.is_cancelled() {
            continue;
        }
        let uploaded = upload_converted(gpu, &job.batch, &job.options, &mut pacer);
        drop(job.batch);
        if let Err(SendError(Ok(batch))) = job.reply.send(uploaded) {
            batch.destroy();
        }
    }
}

/// Upload threads beside `workers` decoding workers on a machine of `cores` (`requested`:
/// [`ParquetOptions::upload_threads`](super::ParquetOptions)): by default the cores the
/// workers leave; never more than one per worker (a thread more would have no worker).
pub(super) fn upload_threads(requested: Option<usize>, workers: usize, cores: usize) -> usize {
    requested
        .unwrap_or_else(|| cores.saturating_sub(workers))
        .min(workers)
}

#[cfg(test)]
mod tests {
    use super::upload_threads;

    #[test]
    fn upload_threads_take_the_cores_the_workers_leave() {
        // flights-3m's default on 16 cores: 11 workers (one per row group), 5 uploaders.
        assert_eq!(upload_threads(None, 11, 16), 5);
        // At most one per worker.
        assert_eq!(upload_threads(None, 1, 16), 1);
        assert_eq!(upload_threads(None, 8, 16), 8);
        // No core left: the workers upload.
        assert_eq!(upload_threads(None, 16, 16), 0);
        assert_eq!(upload_threads(None, 20, 16), 0);
        assert_eq!(upload_threads(Some(0), 1, 16), 0);
        assert_eq!(upload_threads(Some(3), 16, 16), 3);
        assert_eq!(upload_threads(Some(20), 4, 16), 4);
    }
}
