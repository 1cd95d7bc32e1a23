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
//!
//! Readback staging buffers outlive their readback: a finished readback hands them back
//! ([`keep_staging`]) and the next readback on the same device takes them
//! ([`acquire_staging`]) instead of making new ones (on the H200, making a readback's ring cost
//! about as much as moving 64 MiB). Kept buffers count against the budget like held ones
//! ([`staging_idle`]), but any transfer that needs their bytes takes them (the oldest are
//! dropped first), a device's buffers go when its last [`Gpu`] handle goes, all of them go after
//! [`STAGING_IDLE_RELEASE`] without use (a reaper thread runs while any are kept) and at once on
//! [`release_idle_staging`] (a caller's memory-pressure signal).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use super::wait::{WaitMode, wait_for_submission};
use crate::device::buffers::create_buffer_async;
use crate::device::{Gpu, GpuError};

/// How long a waiter sleeps when only other threads' permits (no finished GPU work) can free
/// bytes.
const RELEASE_WAIT: Duration = Duration::from_millis(1);

/// How long a readback staging buffer is kept unused before it is dropped.
pub const STAGING_IDLE_RELEASE: Duration = Duration::from_secs(1);

/// The label of readback staging buffers.
const STAGING_LABEL: &str = "gpudata readback staging";

/// An upload's bytes held until its submission finishes on the GPU.
struct Pending {
    id: u64,
    gpu: Gpu,
    submission: wgpu::SubmissionIndex,
    bytes: u64,
}

/// A readback staging buffer kept for the next readback on its device.
struct Idle {
    device: u64,
    buffer: wgpu::Buffer,
    since: Instant,
}

struct State {
    /// Readback staging buffers made so far.
    made: u64,
    /// Bytes held by transfers in progress (and uploads the GPU has not finished).
    in_use: u64,
    pending: VecDeque<Pending>,
    next_id: u64,
    /// Staging buffers kept idle, oldest first, and their bytes.
    idle: Vec<Idle>,
    idle_bytes: u64,
    /// Whether the reaper thread runs.
    reaper: bool,
}

/// The one budget of the process.
struct Budget {
    state: Mutex<State>,
    freed: Condvar,
}

static BUDGET: Budget = Budget {
    state: Mutex::new(State {
        made: 0,
        in_use: 0,
        pending: VecDeque::new(),
        next_id: 0,
        idle: Vec::new(),
        idle_bytes: 0,
        reaper: false,
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
/// saw its submission finish, whichever comes first). The lock is not held while the entry (and
/// its [`Gpu`] handle, possibly the last) drops: dropping a device's last handle forgets its
/// kept buffers, which takes the lock.
fn release_pending(id: u64) {
    let released = {
        let mut state = lock();
        let i = state.pending.iter().position(|p| p.id == id);
        i.and_then(|i| state.pending.remove(i)).inspect(|p| {
            release(&mut state, p.bytes);
        })
    };
    drop(released);
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
            .on_submitted_work_done(move || release_pending(id));
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        if self.bytes > 0 {
            release(&mut lock(), self.bytes);
        }
    }
}

/// Takes `bytes` when they fit under `limit` beside what is held and kept (or nothing is held),
/// moving the oldest kept buffers into `evicted` (for the caller to drop after unlocking) when
/// their bytes are what stands in the way.
fn take(
    state: &mut State,
    bytes: u64,
    limit: u64,
    evicted: &mut Vec<wgpu::Buffer>,
) -> Option<Permit> {
    if state.in_use != 0 && state.in_use.saturating_add(bytes) > limit {
        return None;
    }
    // Kept buffers give way, the oldest first.
    let mut count = 0;
    let mut kept = state.idle_bytes;
    while count < state.idle.len() && (state.in_use + kept).saturating_add(bytes) > limit {
        kept = kept.saturating_sub(state.idle[count].buffer.size());
        count += 1;
    }
    evicted.extend(state.idle.drain(..count).map(|i| i.buffer));
    state.idle_bytes = kept;
    state.in_use += bytes;
    Some(Permit { bytes })
}

/// `bytes` from the budget if they fit under `limit` now.
pub(crate) fn try_acquire(bytes: u64, limit: u64) -> Option<Permit> {
    let mut evicted = Vec::new();
    let permit = take(&mut lock(), bytes, limit, &mut evicted);
    drop(evicted);
    permit
}

/// A kept staging buffer of `device` of at least `size` bytes (the smallest such), its bytes
/// moved from kept to held.
fn take_idle(state: &mut State, device: u64, size: u64) -> Option<(wgpu::Buffer, Permit)> {
    let i = state
        .idle
        .iter()
        .enumerate()
        .filter(|(_, idle)| idle.device == device && idle.buffer.size() >= size)
        .min_by_key(|(_, idle)| idle.buffer.size())
        .map(|(i, _)| i)?;
    let buffer = state.idle.remove(i).buffer;
    let bytes = buffer.size();
    state.idle_bytes -= bytes;
    state.in_use += bytes;
    Some((buffer, Permit { bytes }))
}

/// `bytes` from the budget under `limit`, waiting (blocking the thread, or awaiting) for
/// uploads' submissions to finish or other transfers to return bytes. The caller must hold no
/// readback permit (see the module's note).
pub(crate) async fn acquire(bytes: u64, limit: u64, mode: WaitMode) -> Permit {
    acquire_with(mode, |state, evicted| take(state, bytes, limit, evicted)).await
}

/// Waits (as [`acquire`]) until `attempt` gives something.
async fn acquire_with<T>(
    mode: WaitMode,
    mut attempt: impl FnMut(&mut State, &mut Vec<wgpu::Buffer>) -> Option<T>,
) -> T {
    loop {
        let mut evicted = Vec::new();
        let oldest = {
            let mut state = lock();
            if let Some(got) = attempt(&mut state, &mut evicted) {
                drop(state);
                drop(evicted);
                return got;
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
                release_pending(id);
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

/// A staging buffer for a readback of `size` bytes on `gpu` and the permit for its bytes: a
/// kept one of that device when one is large enough, else a new one of `size` bytes once the
/// budget (`limit`) gives them, waiting as [`acquire`] does (the caller holds no readback
/// permit).
pub(crate) async fn acquire_staging(
    gpu: &Gpu,
    size: u64,
    limit: u64,
    mode: WaitMode,
) -> Result<(wgpu::Buffer, Permit), GpuError> {
    let device = gpu.id();
    let got = acquire_with(mode, |state, evicted| {
        match take_idle(state, device, size) {
            Some(kept) => Some(Ok(kept)),
            None => take(state, size, limit, evicted).map(Err),
        }
    })
    .await;
    match got {
        Ok(kept) => Ok(kept),
        Err(permit) => Ok((new_staging(gpu, size).await?, permit)),
    }
}

/// [`acquire_staging`] without waiting: `None` when no kept buffer fits and the budget has no
/// bytes to spare now.
pub(crate) async fn try_acquire_staging(
    gpu: &Gpu,
    size: u64,
    limit: u64,
) -> Option<Result<(wgpu::Buffer, Permit), GpuError>> {
    let mut evicted = Vec::new();
    let got = {
        let mut state = lock();
        match take_idle(&mut state, gpu.id(), size) {
            Some(kept) => Some(Ok(kept)),
            None => take(&mut state, size, limit, &mut evicted).map(Err),
        }
    };
    drop(evicted);
    Some(match got? {
        Ok(kept) => Ok(kept),
        Err(permit) => new_staging(gpu, size).await.map(|buffer| (buffer, permit)),
    })
}

async fn new_staging(gpu: &Gpu, size: u64) -> Result<wgpu::Buffer, GpuError> {
    lock().made += 1;
    create_buffer_async(
        gpu,
        size,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        STAGING_LABEL,
    )
    .await
}

/// Keeps `buffer` (a readback staging buffer of `gpu`, unmapped, with no mapping pending) for
/// the next readback on that device; its permit's bytes stay counted, as kept.
pub(crate) fn keep_staging(gpu: &Gpu, buffer: wgpu::Buffer, mut permit: Permit) {
    let bytes = std::mem::take(&mut permit.bytes);
    let start_reaper = {
        let mut state = lock();
        state.in_use = state.in_use.saturating_sub(bytes);
        state.idle_bytes += buffer.size();
        state.idle.push(Idle {
            device: gpu.id(),
            buffer,
            since: Instant::now(),
        });
        BUDGET.freed.notify_all();
        !std::mem::replace(&mut state.reaper, true)
    };
    if start_reaper
        && std::thread::Builder::new()
            .name("gpudata-staging-reaper".into())
            .spawn(reap)
            .is_err()
    {
        // No thread to drop them later: keep nothing.
        lock().reaper = false;
        release_idle_staging();
    }
}

/// The reaper thread: drops kept buffers unused for [`STAGING_IDLE_RELEASE`], and ends when none are
/// kept.
fn reap() {
    loop {
        let (stale, next) = {
            let mut state = lock();
            let now = Instant::now();
            let stale_count = state
                .idle
                .iter()
                .take_while(|i| now.duration_since(i.since) >= STAGING_IDLE_RELEASE)
                .count();
            let stale: Vec<Idle> = state.idle.drain(..stale_count).collect();
            let bytes: u64 = stale.iter().map(|i| i.buffer.size()).sum();
            state.idle_bytes = state.idle_bytes.saturating_sub(bytes);
            match state.idle.first() {
                Some(oldest) => (
                    stale,
                    STAGING_IDLE_RELEASE.saturating_sub(now.duration_since(oldest.since)),
                ),
                None => {
                    state.reaper = false;
                    if bytes > 0 {
                        BUDGET.freed.notify_all();
                    }
                    drop(state);
                    drop(stale);
                    return;
                }
            }
        };
        drop(stale);
        std::thread::sleep(next.max(Duration::from_millis(10)));
    }
}

/// Drops every kept staging buffer of device `device` (its last handle is going).
pub(crate) fn forget_device(device: u64) {
    let forgotten: Vec<Idle> = {
        let mut state = lock();
        let (gone, kept): (Vec<Idle>, Vec<Idle>) = std::mem::take(&mut state.idle)
            .into_iter()
            .partition(|i| i.device == device);
        state.idle = kept;
        let bytes: u64 = gone.iter().map(|i| i.buffer.size()).sum();
        state.idle_bytes = state.idle_bytes.saturating_sub(bytes);
        gone
    };
    drop(forgotten);
}

/// Drops every readback staging buffer kept for reuse, on every device, and returns their
/// bytes: call it on a memory-pressure signal. Readbacks keep their staging buffers (within
/// the staging budget) for the next readback on the same device and drop them after
/// [`STAGING_IDLE_RELEASE`] unused; any transfer that needs their bytes takes them sooner.
pub fn release_idle_staging() -> u64 {
    let released: Vec<Idle> = {
        let mut state = lock();
        state.idle_bytes = 0;
        BUDGET.freed.notify_all();
        std::mem::take(&mut state.idle)
    };
    let bytes = released.iter().map(|i| i.buffer.size()).sum();
    drop(released);
    bytes
}

/// The bytes the process's transfers hold now (for tests and benchmarks): staging of the
/// transfers in progress and of uploads the GPU has not finished, not the readback staging
/// kept idle for reuse ([`staging_idle`]).
#[must_use]
pub fn staging_in_use() -> u64 {
    lock().in_use
}

/// The bytes of readback staging buffers kept idle for the next readback on their device
/// (counted against the staging budget with [`staging_in_use`]; see
/// [`release_idle_staging`]).
#[must_use]
pub fn staging_idle() -> u64 {
    lock().idle_bytes
}

/// How many readback staging buffers the process has made (for tests and benchmarks: a
/// readback that finds the buffers it needs kept from an earlier one makes none).
#[must_use]
pub fn staging_buffers_made() -> u64 {
    lock().made
}
