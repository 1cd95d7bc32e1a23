//! The process's staging budget: every chunk a transfer stages (an upload's queue staging, a
//! readback's `MAP_READ` buffer) holds a [`Permit`] for its bytes from one budget shared by all
//! transfers of the process, on every device, so a series of uploads, or transfers on many
//! threads at once, hold at most the configured budget of staging memory together, not each.
//!
//! A transfer asks with its own configuration's budget as the limit: it gets the bytes when
//! they fit under that limit beside what others hold (or when nothing is held at all, so one
//! chunk always moves). An upload's permit is kept until the GPU has finished the submission
//! that copies its staging (wgpu frees queue staging then): a waiter for bytes waits for the
//! oldest such submission. A readback's permit lives as long as its staging buffer.
//!
//! Waiting never deadlocks: upload permits come back when the GPU finishes, without any host
//! thread; a readback that already holds buffers only *tries* for more (and drains its own when
//! it gets none), so a thread blocked in [`acquire`] holds no readback buffer.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use super::wait::{WaitMode, wait_for_submission};
use crate::device::Gpu;

/// How long a waiter sleeps when only other threads' permits (no finished GPU work) can free
/// bytes.
const RELEASE_WAIT: Duration = Duration::from_millis(1);

/// An upload's bytes held until its submission finishes on the GPU.
struct Pending {
    id: u64,
    gpu: Gpu,
    submission: wgpu::SubmissionIndex,
    bytes: u64,
}

struct State {
    in_use: u64,
    pending: VecDeque<Pending>,
    next_id: u64,
}

/// The one budget of the process.
struct Budget {
    state: Mutex<State>,
    freed: Condvar,
}

static BUDGET: Budget = Budget {
    state: Mutex::new(State {
        in_use: 0,
        pending: VecDeque::new(),
        next_id: 0,
    }),
    freed: Condvar::new(),
};

fn lock() -> MutexGuard<'static, State> {
    BUDGET.state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Returns `bytes` to the budget and wakes the waiters.
fn release(state: &mut State, bytes: u64) {
    state.in_use = state.in_use.saturating_sub(bytes);
    BUDGET.freed.notify_all();
}

/// Releases pending upload `id` if it is still pending (by its GPU callback or by a waiter that
/// saw its submission finish, whichever comes first).
fn release_pending(state: &mut State, id: u64) {
    if let Some(i) = state.pending.iter().position(|p| p.id == id) {
        let bytes = state.pending[i].bytes;
        state.pending.remove(i);
        release(state, bytes);
    }
}

/// Staging bytes held from the process's budget; returned when dropped, or once the GPU has
/// finished a submission ([`release_after`](Self::release_after)).
#[must_use]
pub(crate) struct Permit {
    bytes: u64,
}

impl Permit {
    /// A permit of no bytes, to [`merge`](Self::merge) others into.
    pub(crate) fn empty() -> Permit {
        Permit { bytes: 0 }
    }

    /// The bytes held.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Holds `other`'s bytes in this permit too.
    pub(crate) fn merge(&mut self, mut other: Permit) {
        self.bytes += std::mem::take(&mut other.bytes);
    }

    /// Keeps the bytes held until `submission` (just submitted on `gpu`) has finished.
    pub(crate) fn release_after(mut self, gpu: &Gpu, submission: wgpu::SubmissionIndex) {
        let bytes = std::mem::take(&mut self.bytes);
        if bytes == 0 {
            return;
        }
        let id = {
            let mut state = lock();
            let id = state.next_id;
            state.next_id += 1;
            state.pending.push_back(Pending {
                id,
                gpu: gpu.clone(),
                submission,
                bytes,
            });
            id
        };
        // Fires once everything submitted so far, `submission` included, has finished.
        gpu.queue()
            .on_submitted_work_done(move || release_pending(&mut lock(), id));
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        if self.bytes > 0 {
            release(&mut lock(), self.bytes);
        }
    }
}

/// Takes `bytes` when they fit under `limit` beside what is held (or nothing is held).
fn take(state: &mut State, bytes: u64, limit: u64) -> Option<Permit> {
    let fits = state.in_use == 0 || state.in_use.saturating_add(bytes) <= limit;
    fits.then(|| {
        state.in_use += bytes;
        Permit { bytes }
    })
}

/// `bytes` from the budget if they fit under `limit` now.
pub(crate) fn try_acquire(bytes: u64, limit: u64) -> Option<Permit> {
    take(&mut lock(), bytes, limit)
}

/// `bytes` from the budget under `limit`, waiting (blocking the thread, or awaiting) for
/// uploads' submissions to finish or other transfers to return bytes. The caller must hold no
/// readback permit (see the module's note).
pub(crate) async fn acquire(bytes: u64, limit: u64, mode: WaitMode) -> Permit {
    loop {
        let oldest = {
            let mut state = lock();
            if let Some(permit) = take(&mut state, bytes, limit) {
                return permit;
            }
            match state.pending.front() {
                Some(p) => Some((p.id, p.gpu.clone(), p.submission.clone())),
                None => {
                    if mode == WaitMode::Block {
                        // Only other transfers' permits can free bytes now.
                        drop(
                            BUDGET
                                .freed
                                .wait_timeout(state, RELEASE_WAIT)
                                .unwrap_or_else(PoisonError::into_inner),
                        );
                    }
                    None
                }
            }
        };
        match oldest {
            Some((id, gpu, submission)) => {
                // Finished (or failed, on a lost device, which finishes nothing): either way its
                // staging is no longer held, so its bytes return now.
                let _ = wait_for_submission(&gpu, submission, mode).await;
                release_pending(&mut lock(), id);
            }
            None if mode == WaitMode::Async => YieldNow(false).await,
            None => {}
        }
    }
}

/// A future that is pending once (waking itself), so an awaited wait lets other tasks run.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// The bytes the process's transfers hold now (for tests and benchmarks).
#[must_use]
pub fn staging_in_use() -> u64 {
    lock().in_use
}
