//! Waiting for the device: for a submission to finish and for a wgpu callback (a buffer mapping,
//! a work-done notification) to fire, by blocking the thread or by awaiting a future.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

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

/// A one-shot slot a wgpu callback fills.
pub(super) struct Slot<T> {
    state: Arc<Mutex<SlotState<T>>>,
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
            state: Arc::new(Mutex::new(SlotState {
                value: None,
                waker: None,
            })),
        }
    }

    pub(super) fn fill(&self, value: T) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.value = Some(value);
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
    }

    fn take(&self) -> Option<T> {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .value
            .take()
    }

    fn register(&self, waker: &Waker) {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .waker = Some(waker.clone());
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
            match slot.take() {
                Some(value) => Ok(value),
                None => {
                    gpu.wait_idle()?;
                    slot.take().ok_or_else(|| GpuError::Map {
                        reason: "the map callback did not run after the device went idle".into(),
                    })
                }
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
