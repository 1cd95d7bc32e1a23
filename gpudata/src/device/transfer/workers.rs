//! Running a transfer's workers: on scoped threads when blocking (the calling thread is worker
//! 0), inline when awaited; a shared failure flag that stops the others early, and the progress
//! count reported to the configuration's callback.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::config::{Plan, ProgressCallback, TransferDirection, TransferProgress};
use super::wait::WaitMode;
use crate::device::{Gpu, GpuError};

/// The plan of a transfer of `len` bytes in chunks of whole `granule`s on `gpu`: the
/// configuration's threads when blocking, one worker when awaited.
pub(super) fn plan(gpu: &Gpu, mode: WaitMode, len: u64, granule: u64) -> Plan {
    let config = gpu.transfer_config();
    let threads = match mode {
        WaitMode::Block => config.threads_for(gpu.adapter_kind()),
        WaitMode::Async => 1,
    };
    config.plan(threads, len, granule)
}

/// What the workers of one transfer share: the failure flag and the progress count.
pub(super) struct Shared<'a> {
    failed: AtomicBool,
    done: AtomicU64,
    total: u64,
    direction: TransferDirection,
    progress: Option<&'a ProgressCallback>,
}

impl<'a> Shared<'a> {
    pub(super) fn new(
        direction: TransferDirection,
        total: u64,
        progress: Option<&'a ProgressCallback>,
    ) -> Shared<'a> {
        Shared {
            failed: AtomicBool::new(false),
            done: AtomicU64::new(0),
            total,
            direction,
            progress,
        }
    }

    /// Marks the transfer failed (so the other workers stop).
    pub(super) fn fail(&self) {
        self.failed.store(true, Ordering::Relaxed);
    }

    /// Whether another worker has failed (so this one should stop).
    pub(super) fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// Counts `bytes` as moved and tells the progress callback.
    pub(super) fn advance(&self, bytes: u64) {
        let done = self.done.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if let Some(callback) = self.progress {
            callback(TransferProgress {
                direction: self.direction,
                done_bytes: done.min(self.total),
                total_bytes: self.total,
            });
        }
    }
}

/// Runs `workers` workers, each given its index, and returns the first error any of them
/// returned. Blocking transfers run workers `1..` on scoped threads and worker 0 on the calling
/// thread; async ones run the (single) worker inline.
pub(super) async fn run_workers<F, Fut>(
    workers: usize,
    mode: WaitMode,
    shared: &Shared<'_>,
    work: F,
) -> Result<(), GpuError>
where
    F: Fn(usize) -> Fut + Sync,
    Fut: Future<Output = Result<(), GpuError>>,
{
    let work = &work;
    let guarded = move |w: usize| async move {
        let result = work(w).await;
        if result.is_err() {
            shared.failed.store(true, Ordering::Relaxed);
        }
        result
    };
    if workers <= 1 || mode == WaitMode::Async {
        return guarded(0).await;
    }
    let guarded = &guarded;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (1..workers)
            .map(|w| scope.spawn(move || pollster::block_on(guarded(w))))
            .collect();
        let mut result = pollster::block_on(guarded(0));
        for handle in handles {
            // A worker that panicked re-raises its panic here, as a single-threaded call would.
            let outcome = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            if result.is_ok() {
                result = outcome;
            }
        }
        result
    })
}
