//! Waiting for the device: for a submission to finish and for a wgpu callback (a buffer mapping,
//! a work-done notification) to fire, by blocking the thread or by awaiting a future.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use crate::device::{Gpu, GpuError};

/// How a transfer waits for the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitMode {
    /// Block the thread in `device.poll(Wait)`.
    Block,
    /// Await a future that drives `device.poll(Poll)` itself.
    Async,
}

struct SlotState<T> {
    value: Option<T>,
    waker: Option<Waker>,
}

/// A one-shot slot a wgpu callback fills. A blocked thread waits on the condition variable; a
/// future registers its waker.
pub(super) struct Slot<T> {
    state: Arc<(Mutex<SlotState<T>>, Condvar)>,
}

impl<T> Clone for Slot<T> {
    fn clone(&self) -> Self {
        Slot {
            state: Arc::clone(&self.state),
        }
    }
}

impl<T> Slot<T> {
    pub(super) fn new() -> Slot<T> {
        Slot {
            state: Arc::new((
                Mutex::new(SlotState {
                    value: None,
                    waker: None,
                }),
                Condvar::new(),
            )),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SlotState<T>> {
        self.state.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn fill(&self, value: T) {
        let mut state = self.lock();
        state.value = Some(value);
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
        self.state.1.notify_all();
    }

    fn take(&self) -> Option<T> {
        self.lock().value.take()
    }

    /// The value, waiting at most `timeout` for the callback to fill it.
    fn take_within(&self, timeout: Duration) -> Option<T> {
        let state = self.lock();
        let (mut state, _) = self
            .state
            .1
            .wait_timeout_while(state, timeout, |s| s.value.is_none())
            .unwrap_or_else(PoisonError::into_inner);
        state.value.take()
    }

    fn register(&self, waker: &Waker) {
        self.lock().waker = Some(waker.clone());
    }
}

/// A future for a wgpu callback that drives the device itself: each time it is polled and the
/// callback has not fired, it runs a non-blocking `device.poll` and asks to be polled again, so it
/// completes under any executor (`pollster`, tokio, ...) without another thread polling the
/// device. On the web the browser runs the callbacks and the future simply waits for its waker.
struct SlotFuture<T> {
    slot: Slot<T>,
    device: wgpu::Device,
}

impl<T> Future for SlotFuture<T> {
    type Output = Result<T, GpuError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Some(value) = self.slot.take() {
            return Poll::Ready(Ok(value));
        }
        self.slot.register(cx.waker());
        if cfg!(not(target_arch = "wasm32")) {
            if let Err(e) = self.device.poll(wgpu::PollType::Poll) {
                return Poll::Ready(Err(GpuError::Poll {
                    reason: e.to_string(),
                }));
            }
            if let Some(value) = self.slot.take() {
                return Poll::Ready(Ok(value));
            }
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    }
}

/// How long a blocked thread waits for a callback between polls of the device.
const CALLBACK_WAIT: Duration = Duration::from_millis(2);

/// Waits until `submission` has finished on the GPU.
pub(super) async fn wait_for_submission(
    gpu: &Gpu,
    submission: wgpu::SubmissionIndex,
    mode: WaitMode,
) -> Result<(), GpuError> {
    match mode {
        WaitMode::Block => gpu
            .device()
            .poll(wgpu::PollType::Wait {
                submission_index: Some(submission),
                timeout: None,
            })
            .map(|_| ())
            .map_err(|e| GpuError::Poll {
                reason: e.to_string(),
            }),
        WaitMode::Async => {
            // Work-done callbacks fire once everything submitted before them has finished.
            let slot = Slot::new();
            let filler = slot.clone();
            gpu.queue().on_submitted_work_done(move || filler.fill(()));
            SlotFuture {
                slot,
                device: gpu.device().clone(),
            }
            .await
        }
    }
}

/// Waits until the callback that fills `slot` has fired after `submission`, and returns what it
/// filled in.
pub(super) async fn wait_for_callback<T>(
    gpu: &Gpu,
    slot: Slot<T>,
    submission: wgpu::SubmissionIndex,
    mode: WaitMode,
) -> Result<T, GpuError> {
    match mode {
        WaitMode::Block => {
            wait_for_submission(gpu, submission, WaitMode::Block).await?;
            // wgpu hands the callbacks of finished work to whichever thread polls the device and
            // runs them after that poll has released the device: with several threads on one
            // device, another thread may hold this callback and run it a moment after this
            // thread's own poll returned. So the slot is waited for, never concluded empty; the
            // device is polled again between waits in case no other thread does.
            loop {
                if let Some(value) = slot.take_within(CALLBACK_WAIT) {
                    return Ok(value);
                }
                gpu.check_lost("wait for a buffer mapping")?;
            }
        }
        WaitMode::Async => {
            SlotFuture {
                slot,
                device: gpu.device().clone(),
            }
            .await
        }
    }
}
