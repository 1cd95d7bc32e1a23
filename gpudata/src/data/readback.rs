//! Readback: bytes copied into a `MAP_READ` staging buffer, mapped and copied out; rows and
//! view values decoded from them. Blocking and async forms.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use super::decode::{HostValues, decode_values};
use super::upload::{align4, create_buffer, require_usage};
use super::{GpuData, GpuDataView};
use crate::data::DataError;
use crate::device::Gpu;
use crate::device::GpuError;

/// How a GPU operation waits for the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WaitMode {
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
struct Slot<T> {
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
    fn new() -> Slot<T> {
        Slot {
            state: Arc::new(Mutex::new(SlotState {
                value: None,
                waker: None,
            })),
        }
    }

    fn fill(&self, value: T) {
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
    let poll_error = |e: wgpu::PollError| GpuError::Poll {
        reason: e.to_string(),
    };
    match mode {
        WaitMode::Block => gpu
            .device()
            .poll(wgpu::PollType::Wait {
                submission_index: Some(submission),
                timeout: None,
            })
            .map(|_| ())
            .map_err(poll_error),
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

/// Copies `len` bytes of `buffer` from `offset` to the host.
pub(super) async fn read_range(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    offset: u64,
    len: u64,
    operation: &'static str,
    mode: WaitMode,
) -> Result<Vec<u8>, GpuError> {
    require_usage(buffer, wgpu::BufferUsages::COPY_SRC, operation)?;
    if len == 0 {
        return Ok(Vec::new());
    }
    let end = offset.checked_add(len);
    let start = offset & !3;
    let aligned_end = end.and_then(align4);
    let unaligned = || GpuError::UnalignedCopy {
        byte_offset: offset,
        byte_end: end.unwrap_or(u64::MAX),
        buffer_size: buffer.size(),
    };
    let aligned_end = aligned_end
        .filter(|&e| e <= buffer.size())
        .ok_or_else(unaligned)?;
    let size = aligned_end - start;
    let staging = create_buffer(
        gpu,
        size,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        "gpudata readback",
    )?;
    let mut encoder = gpu
        .device()
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("gpudata readback"),
        });
    encoder.copy_buffer_to_buffer(buffer, start, &staging, 0, Some(size));
    let submission = gpu.queue().submit([encoder.finish()]);
    let slot = Slot::new();
    let filler = slot.clone();
    staging.map_async(wgpu::MapMode::Read, ..size, move |result| {
        filler.fill(result);
    });
    let mapped = match mode {
        WaitMode::Block => {
            wait_for_submission(gpu, submission, WaitMode::Block).await?;
            match slot.take() {
                Some(result) => result,
                None => {
                    gpu.wait_idle()?;
                    slot.take().ok_or_else(|| GpuError::Map {
                        reason: "the map callback did not run after the device went idle".into(),
                    })?
                }
            }
        }
        WaitMode::Async => {
            SlotFuture {
                slot,
                device: gpu.device().clone(),
            }
            .await?
        }
    };
    mapped.map_err(|e| GpuError::Map {
        reason: e.to_string(),
    })?;
    let view = staging
        .get_mapped_range(..size)
        .map_err(|e| GpuError::Map {
            reason: e.to_string(),
        })?;
    let skip = (offset - start) as usize;
    let out = view[skip..skip + len as usize].to_vec();
    drop(view);
    staging.unmap();
    staging.destroy();
    Ok(out)
}

/// The first `row_len` bytes of each of `rows` rows spaced `stride` apart in `bytes`, packed one
/// after another; `bytes` itself when the rows are already packed. `bytes` must hold the rows
/// (`(rows - 1) * stride + row_len` bytes).
fn pack_rows(bytes: Vec<u8>, rows: usize, stride: usize, row_len: usize) -> Vec<u8> {
    if stride == row_len {
        return bytes;
    }
    let mut packed = Vec::with_capacity(rows * row_len);
    for i in 0..rows {
        packed.extend_from_slice(&bytes[i * stride..i * stride + row_len]);
    }
    packed
}

impl GpuData {
    /// The bytes of the data's rows as they lie in the buffer: from
    /// [`byte_offset`](Self::byte_offset), [`byte_length`](Self::byte_length) bytes, strides and
    /// padding included. Blocks until the copy is done.
    ///
    /// # Errors
    /// [`GpuError::MissingUsage`] without `COPY_SRC`; [`GpuError::UnalignedCopy`] when the rows
    /// end in the last, partial word of a buffer whose size is not a multiple of 4;
    /// [`GpuError::Map`], [`GpuError::Poll`].
    pub fn read_bytes(&self, gpu: &Gpu) -> Result<Vec<u8>, GpuError> {
        pollster::block_on(self.read_bytes_inner(gpu, WaitMode::Block))
    }

    /// The asynchronous form of [`read_bytes`](Self::read_bytes).
    ///
    /// # Errors
    /// As [`read_bytes`](Self::read_bytes).
    pub async fn read_bytes_async(&self, gpu: &Gpu) -> Result<Vec<u8>, GpuError> {
        self.read_bytes_inner(gpu, WaitMode::Async).await
    }

    async fn read_bytes_inner(&self, gpu: &Gpu, mode: WaitMode) -> Result<Vec<u8>, GpuError> {
        read_range(
            gpu,
            self.buffer(),
            self.byte_offset(),
            self.byte_length(),
            "read back gpu data",
            mode,
        )
        .await
    }

    /// The bytes of rows `first..first + rows`, each row's
    /// [`row_byte_length`](Self::row_byte_length) bytes, packed one after another (strides
    /// removed). Blocks until the copy is done.
    ///
    /// # Errors
    /// [`DataError::RowsOutOfRange`] (as [`GpuError::Data`]), then as
    /// [`read_bytes`](Self::read_bytes).
    pub fn read_row_bytes(&self, gpu: &Gpu, first: u64, rows: u64) -> Result<Vec<u8>, GpuError> {
        pollster::block_on(self.read_row_bytes_inner(gpu, first, rows, WaitMode::Block))
    }

    /// The asynchronous form of [`read_row_bytes`](Self::read_row_bytes).
    ///
    /// # Errors
    /// As [`read_row_bytes`](Self::read_row_bytes).
    pub async fn read_row_bytes_async(
        &self,
        gpu: &Gpu,
        first: u64,
        rows: u64,
    ) -> Result<Vec<u8>, GpuError> {
        self.read_row_bytes_inner(gpu, first, rows, WaitMode::Async)
            .await
    }

    async fn read_row_bytes_inner(
        &self,
        gpu: &Gpu,
        first: u64,
        rows: u64,
        mode: WaitMode,
    ) -> Result<Vec<u8>, GpuError> {
        if first
            .checked_add(rows)
            .is_none_or(|end| end > self.value_length())
        {
            return Err(DataError::RowsOutOfRange {
                row_offset: first,
                rows,
                length: self.value_length(),
            }
            .into());
        }
        if rows == 0 {
            return Ok(Vec::new());
        }
        let stride = self.byte_stride();
        let row_len = self.row_byte_length();
        // Inside the checked range of the data.
        let offset = self.byte_offset() + first * stride;
        let span = (rows - 1) * stride + row_len;
        let bytes =
            read_range(gpu, self.buffer(), offset, span, "read back gpu data", mode).await?;
        Ok(pack_rows(
            bytes,
            rows as usize,
            stride as usize,
            row_len as usize,
        ))
    }
}

impl GpuDataView<'_> {
    /// The view's values decoded as vertex fetch delivers them (normalized formats to `f32`,
    /// `float16` to `f32`, `unorm10-10-10-2` unpacked, `unorm8x4-bgra` swizzled to RGBA; see
    /// [`decode_values`]). Blocks until the copy is done.
    ///
    /// # Errors
    /// [`GpuError::MissingUsage`] without `COPY_SRC`, [`GpuError::UnalignedCopy`],
    /// [`GpuError::Map`], [`GpuError::Poll`].
    pub fn read_values(&self, gpu: &Gpu) -> Result<HostValues, GpuError> {
        pollster::block_on(self.read_values_inner(gpu, WaitMode::Block))
    }

    /// The asynchronous form of [`read_values`](Self::read_values).
    ///
    /// # Errors
    /// As [`read_values`](Self::read_values).
    pub async fn read_values_async(&self, gpu: &Gpu) -> Result<HostValues, GpuError> {
        self.read_values_inner(gpu, WaitMode::Async).await
    }

    async fn read_values_inner(&self, gpu: &Gpu, mode: WaitMode) -> Result<HostValues, GpuError> {
        let bytes = self.read_span(gpu, mode).await?;
        Ok(decode_values(
            self.format(),
            &bytes,
            self.length() as usize,
            self.byte_stride() as usize,
        )?)
    }

    /// The view's raw value bytes, packed one value after another (strides removed). Blocks
    /// until the copy is done.
    ///
    /// # Errors
    /// As [`read_values`](Self::read_values).
    pub fn read_raw(&self, gpu: &Gpu) -> Result<Vec<u8>, GpuError> {
        pollster::block_on(self.read_raw_inner(gpu, WaitMode::Block))
    }

    /// The asynchronous form of [`read_raw`](Self::read_raw).
    ///
    /// # Errors
    /// As [`read_values`](Self::read_values).
    pub async fn read_raw_async(&self, gpu: &Gpu) -> Result<Vec<u8>, GpuError> {
        self.read_raw_inner(gpu, WaitMode::Async).await
    }

    pub(super) async fn read_raw_inner(
        &self,
        gpu: &Gpu,
        mode: WaitMode,
    ) -> Result<Vec<u8>, GpuError> {
        let bytes = self.read_span(gpu, mode).await?;
        Ok(pack_rows(
            bytes,
            self.length() as usize,
            self.byte_stride() as usize,
            self.element_byte_length() as usize,
        ))
    }

    async fn read_span(&self, gpu: &Gpu, mode: WaitMode) -> Result<Vec<u8>, GpuError> {
        read_range(
            gpu,
            self.buffer(),
            self.byte_offset(),
            self.byte_length(),
            "read back a gpu data view",
            mode,
        )
        .await
    }
}
