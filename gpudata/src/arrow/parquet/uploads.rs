//! The upload threads of [`ingest_parquet`](super::ingest_parquet): where the decoding workers
//! leave cores free, they hand each converted batch to an upload thread and go on decoding
//! while it is uploaded; a [`Ticket`] stands for the batch's GPU batch until then. The wgpu
//! calls of an upload (staging, buffers, submission, the pacer's wait) then overlap the next
//! batch's decode and conversion instead of following them on the same thread.

use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, SendError, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

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
/// ticket dropped before it is redeemed destroys its batch, once uploaded. (`None` only once
/// redeemed.)
pub(super) struct Ticket(Option<Upload>);

/// Where a [`Ticket`]'s batch is.
enum Upload {
    Done(Uploaded),
    Queued(Receiver<Uploaded>),
}

impl Upload {
    /// The upload, waited for; `None` when the upload threads stopped without it.
    fn wait(self) -> Option<Uploaded> {
        match self {
            Upload::Done(uploaded) => Some(uploaded),
            Upload::Queued(receiver) => receiver.recv().ok(),
        }
    }
}

impl Ticket {
    /// The ticket of a batch uploaded on the calling thread.
    pub(super) fn done(uploaded: Uploaded) -> Ticket {
        Ticket(Some(Upload::Done(uploaded)))
    }

    /// Hands `batch` to the upload threads (it may wait for room in their queue, which bounds
    /// the converted batches held on the host).
    pub(super) fn queue(
        jobs: &JobSender<'_>,
        batch: RecordBatch,
        options: Arc<BatchOptions>,
    ) -> Ticket {
        let (reply, receiver) = channel();
        // When the queue is closed (an upload thread panicked) the job is dropped with its
        // `reply`, and `redeem` says so.
        let _ = jobs.0.push(Job {
            batch,
            options,
            reply,
        });
        Ticket(Some(Upload::Queued(receiver)))
    }

    /// Waits for the upload; `None` when the upload threads stopped without it (the ingest
    /// was cancelled).
    pub(super) fn redeem(mut self) -> Option<Uploaded> {
        self.0.take()?.wait()
    }
}

impl Drop for Ticket {
    /// Waits for a queued upload (an upload thread always replies or, cancelled, drops the
    /// job: nothing it does waits for the workers) and destroys the batch, so that none is
    /// left behind when a worker stops early.
    fn drop(&mut self) {
        if let Some(Ok(batch)) = self.0.take().and_then(Upload::wait) {
            batch.destroy();
        }
    }
}

/// Converted batches queued per upload thread before a worker waits for room.
const QUEUED_PER_THREAD: usize = 2;

/// The upload threads' one queue, bounded, shared by every worker and upload thread (so that
/// an idle upload thread takes the next batch, whichever worker queued it). Nobody holds its
/// lock while waiting, so an upload thread that panics can always close it
/// ([`CloseOnPanic`]), and no worker or upload thread then waits for ever.
pub(super) struct Jobs<T> {
    state: Mutex<Queued<T>>,
    changed: Condvar,
    capacity: usize,
}

struct Queued<T> {
    jobs: VecDeque<T>,
    /// Workers that may still queue ([`JobSender`]s alive).
    senders: usize,
    /// An upload thread panicked: nothing is queued or taken any more.
    closed: bool,
}

/// A worker's end of [`Jobs`]; when the last one is dropped and the queue is empty, the upload
/// threads stop.
pub(super) struct JobSender<'a, T = Job>(&'a Jobs<T>);

impl<T> Drop for JobSender<'_, T> {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.senders = state.senders.saturating_sub(1);
        drop(state);
        self.0.changed.notify_all();
    }
}

impl<T> Jobs<T> {
    /// A queue of at most `capacity` jobs (at least 1).
    pub(super) fn new(capacity: usize) -> Jobs<T> {
        Jobs {
            state: Mutex::new(Queued {
                jobs: VecDeque::new(),
                senders: 0,
                closed: false,
            }),
            changed: Condvar::new(),
            capacity: capacity.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Queued<T>> {
        // Nothing panics while holding the lock; a poisoned one is still consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'g>(&self, state: MutexGuard<'g, Queued<T>>) -> MutexGuard<'g, Queued<T>> {
        self.changed
            .wait(state)
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A worker's end; make every worker's before starting the upload threads, which stop
    /// when no sender is left.
    pub(super) fn sender(&self) -> JobSender<'_, T> {
        self.lock().senders += 1;
        JobSender(self)
    }

    /// Queues `job`, waiting for room; the job back when the queue is closed.
    fn push(&self, job: T) -> Result<(), T> {
        let mut state = self.lock();
        loop {
            if state.closed {
                return Err(job);
            }
            if state.jobs.len() < self.capacity {
                state.jobs.push_back(job);
                drop(state);
                self.changed.notify_all();
                return Ok(());
            }
            state = self.wait(state);
        }
    }

    /// The next job, waiting for one; `None` once no worker may queue and the queue is empty,
    /// or once it is closed.
    fn pop(&self) -> Option<T> {
        let mut state = self.lock();
        loop {
            if state.closed {
                return None;
            }
            if let Some(job) = state.jobs.pop_front() {
                drop(state);
                self.changed.notify_all();
                return Some(job);
            }
            if state.senders == 0 {
                return None;
            }
            state = self.wait(state);
        }
    }

    /// Closes the queue: the jobs in it are dropped (their tickets end), waiting workers and
    /// upload threads return.
    fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        let dropped = std::mem::take(&mut state.jobs);
        drop(state);
        self.changed.notify_all();
        drop(dropped);
    }
}

/// Closes [`Jobs`] when an upload thread panics.
struct CloseOnPanic<'a, T>(&'a Jobs<T>);

impl<T> Drop for CloseOnPanic<'_, T> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.close();
        }
    }
}

/// The queue of `threads` upload threads.
pub(super) fn jobs(threads: usize) -> Jobs<Job> {
    Jobs::new(threads.saturating_mul(QUEUED_PER_THREAD))
}

/// An upload thread: uploads the batches of the queue in the order it takes them, each paced
/// as a worker's own uploads are, until no worker may queue more. Once the ingest is cancelled
/// it drops the batches it takes without uploading them.
pub(super) fn run(gpu: &Gpu, jobs: &Jobs<Job>, cancel: &CancelToken) {
    let _close = CloseOnPanic(jobs);
    let mut pacer = UploadPacer::default();
    while let Some(job) = jobs.pop() {
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
/// workers leave; never more than one per worker (more would mostly wait: each worker
/// converts one batch at a time).
pub(super) fn upload_threads(requested: Option<usize>, workers: usize, cores: usize) -> usize {
    requested
        .unwrap_or_else(|| cores.saturating_sub(workers))
        .min(workers)
}

#[cfg(test)]
mod tests {
    use super::{CloseOnPanic, Jobs, upload_threads};

    #[test]
    fn queued_jobs_reach_one_taker_each_within_the_bound() {
        let jobs = Jobs::new(2);
        let senders: Vec<_> = (0..3).map(|_| jobs.sender()).collect();
        let (mut taken, most) = std::thread::scope(|scope| {
            for (p, sender) in senders.into_iter().enumerate() {
                scope.spawn(move || {
                    // The whole end, not only the field `push` reads: dropped when done.
                    let sender = sender;
                    for i in 0..200 {
                        assert!(sender.0.push(p * 1000 + i).is_ok());
                    }
                });
            }
            let takers: Vec<_> = (0..2)
                .map(|_| {
                    scope.spawn(|| {
                        let (mut got, mut most) = (Vec::new(), 0);
                        while let Some(job) = jobs.pop() {
                            most = most.max(jobs.lock().jobs.len());
                            got.push(job);
                        }
                        (got, most)
                    })
                })
                .collect();
            let mut taken = Vec::new();
            let mut most = 0;
            for taker in takers {
                let (got, m) = taker.join().unwrap();
                // Each taker sees one worker's jobs in the order it queued them.
                for p in 0..3 {
                    let mine: Vec<_> = got.iter().filter(|&&j| j / 1000 == p).collect();
                    assert!(mine.windows(2).all(|w| w[0] < w[1]), "worker {p}'s order");
                }
                taken.extend(got);
                most = most.max(m);
            }
            (taken, most)
        });
        taken.sort_unstable();
        let all: Vec<usize> = (0..3)
            .flat_map(|p| (0..200).map(move |i| p * 1000 + i))
            .collect();
        assert_eq!(taken, all, "every job taken once");
        assert!(most <= 2, "never more queued than the bound: {most}");
    }

    #[test]
    fn a_panicking_upload_thread_closes_the_queue() {
        let jobs = Jobs::new(1);
        let sender = jobs.sender();
        assert!(sender.0.push(0).is_ok());
        std::thread::scope(|scope| {
            let taker = scope.spawn(|| {
                let _close = CloseOnPanic(&jobs);
                let _first = jobs.pop();
                panic!("an upload thread's bug (this test's)");
            });
            assert!(taker.join().is_err());
        });
        // Refused, not queued for no one (a worker then stops instead of waiting for ever).
        assert!(sender.0.push(1).is_err());
        assert!(jobs.pop().is_none());
    }

    #[test]
    fn upload_threads_stop_when_every_worker_is_done() {
        let jobs = Jobs::new(4);
        let (a, b) = (jobs.sender(), jobs.sender());
        assert!(a.0.push(1).is_ok());
        drop(a);
        assert!(b.0.push(2).is_ok());
        drop(b);
        assert_eq!(
            (jobs.pop(), jobs.pop(), jobs.pop()),
            (Some(1), Some(2), None)
        );
    }

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
