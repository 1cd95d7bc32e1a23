//! Uploads: host bytes written into a buffer range.
//!
//! [`upload`] moves data in chunks on the workers of the device's transfer configuration: each
//! fills its chunk into wgpu's queue staging ([`wgpu::Queue::write_buffer_with`]) and submits it
//! while the GPU copies its earlier ones, with at most two of its chunks staged at once, so an
//! upload holds at most the configured budget of staging memory however large it is. Rows
//! written one by one ([`Stager`]) go through the same queue staging in steps of at most
//! [`STAGING_CHUNK_BYTES`], with at most two steps in flight.

use std::collections::VecDeque;

use super::budget::{self, Permit};
use super::config::{Plan, TransferDirection};
use super::wait::{WaitMode, wait_for_submission};
use super::workers::{Shared, plan, run_workers};
use crate::device::buffers::align4;
use crate::device::scope::scoped;
use crate::device::{Gpu, GpuError};

/// Fills bytes `at..at + dst.len()` of an upload into `dst` (`at` a multiple of the upload's
/// granule; bytes past the end of the caller's data are zeros).
pub(crate) type Fill<'f> = dyn Fn(u64, wgpu::WriteOnly<'_, [u8]>) + Sync + 'f;

/// The operation uploads name in their errors.
const OPERATION: &str = "stage an upload";

/// Bytes of wgpu staging memory one upload step fills before handing it to the queue.
pub const STAGING_CHUNK_BYTES: u64 = 4 << 20;

/// Staged chunks allowed in flight before an upload waits for the oldest to reach the GPU.
const MAX_IN_FLIGHT: usize = 2;

/// Feeds wgpu's staging memory in bounded chunks: callers [`write`](Self::write) pieces (each
/// filled in place by a closure, so rows can be encoded straight into the staging mapping) and
/// [`finish`](Self::finish) at the end. Every wgpu call runs inside error scopes, so wgpu's
/// refusals come back as [`GpuError`]s; a lost device as [`GpuError::DeviceLost`].
pub(crate) struct Stager<'g> {
    gpu: &'g Gpu,
    mode: WaitMode,
    staged: u64,
    /// The budget's bytes for the steps staged since the last submission.
    permit: Permit,
    in_flight: VecDeque<wgpu::SubmissionIndex>,
}

impl<'g> Stager<'g> {
    /// A stager for `gpu`, or [`GpuError::DeviceLost`] when its device is lost.
    pub(crate) fn new(gpu: &'g Gpu, mode: WaitMode) -> Result<Stager<'g>, GpuError> {
        gpu.check_reported_lost(OPERATION)?;
        Ok(Stager {
            gpu,
            mode,
            staged: 0,
            permit: Permit::empty(),
            in_flight: VecDeque::new(),
        })
    }

    /// Stages `len` bytes (a multiple of 4, at most [`STAGING_CHUNK_BYTES`] to keep the bound)
    /// for `buffer` at `offset` (a multiple of 4), filled by `fill`.
    pub(crate) async fn write(
        &mut self,
        buffer: &wgpu::Buffer,
        offset: u64,
        len: u64,
        fill: impl FnOnce(wgpu::WriteOnly<'_, [u8]>),
    ) -> Result<(), GpuError> {
        check_write(buffer, offset, len)?;
        let Some(size) = wgpu::BufferSize::new(len) else {
            return Ok(());
        };
        let limit = self.gpu.transfer_config().budget();
        let permit = match budget::try_acquire(len, limit) {
            Some(permit) => permit,
            None => {
                // Hand what is staged to the GPU first: its permit comes back when it is done.
                if self.staged > 0 {
                    self.submit().await?;
                }
                budget::acquire(len, limit, self.mode).await
            }
        };
        self.permit.merge(permit);
        let (staged, caught) = scoped(self.gpu, OPERATION, Some(len), || {
            let mut view = self.gpu.queue().write_buffer_with(buffer, offset, size)?;
            fill(view.slice(..));
            // Dropping the view hands the bytes to the queue (and may be refused too).
            drop(view);
            Some(())
        });
        caught.check(self.gpu).await?;
        if staged.is_none() {
            // wgpu reports nothing for a lost device: its calls just fail.
            self.gpu.confirm_lost(OPERATION)?;
            return Err(GpuError::Staging {
                byte_offset: offset,
                byte_length: len,
            });
        }
        self.staged += len;
        if self.staged >= STAGING_CHUNK_BYTES {
            self.submit().await?;
        }
        Ok(())
    }

    async fn submit(&mut self) -> Result<(), GpuError> {
        let staged = std::mem::take(&mut self.staged);
        let (submission, caught) = scoped(self.gpu, OPERATION, Some(staged), || {
            self.gpu.queue().submit([])
        });
        std::mem::replace(&mut self.permit, Permit::empty())
            .release_after(self.gpu, submission.clone());
        caught.check(self.gpu).await?;
        self.in_flight.push_back(submission);
        while self.in_flight.len() > MAX_IN_FLIGHT {
            if let Some(oldest) = self.in_flight.pop_front() {
                wait_for_submission(self.gpu, oldest, self.mode).await?;
            }
        }
        Ok(())
    }

    /// Hands the last chunk to the queue; the copies run before any later submission.
    pub(crate) async fn finish(mut self) -> Result<(), GpuError> {
        if self.staged > 0 {
            self.submit().await?;
        }
        Ok(())
    }
}

/// Writes `bytes` into `buffer` from `offset` (a multiple of 4) on, zero-padding the tail to a
/// whole word, through bounded staging; returns once the last chunk is handed to the queue.
pub(crate) async fn write_bytes(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    offset: u64,
    bytes: &[u8],
    mode: WaitMode,
) -> Result<(), GpuError> {
    // By DMA from the caller's pages where the handle asks for it and the range qualifies; the
    // rest (a tail shorter than a word, pieces the driver refused) is staged.
    #[cfg(feature = "host-dma")]
    if let Some(rest) = super::dma::write(gpu, buffer, offset, bytes, mode).await? {
        for range in rest {
            let at = offset + range.start as u64;
            write_staged(gpu, buffer, at, &bytes[range], mode).await?;
        }
        return Ok(());
    }
    write_staged(gpu, buffer, offset, bytes, mode).await
}

/// [`write_bytes`] through bounded staging.
async fn write_staged(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    offset: u64,
    bytes: &[u8],
    mode: WaitMode,
) -> Result<(), GpuError> {
    let len = align4(bytes.len() as u64).unwrap_or(u64::MAX);
    let fill = |at: u64, dst: wgpu::WriteOnly<'_, [u8]>| copy_padded(bytes, at, dst);
    upload(gpu, buffer, offset, len, 4, &fill, mode).await
}

/// The granule of an upload of rows `stride` bytes apart: the least multiple of both the stride
/// and 4, so every chunk starts at a whole row and a whole word.
pub(crate) const fn row_granule(stride: u64) -> u64 {
    let (mut a, mut b) = (stride, 4);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    stride / a * 4
}

/// [`GpuError::UnalignedWrite`] unless `offset` and `len` are multiples of 4 and the range lies
/// inside `buffer`.
fn check_write(buffer: &wgpu::Buffer, offset: u64, len: u64) -> Result<(), GpuError> {
    let aligned = offset.is_multiple_of(4) && len.is_multiple_of(4);
    let inside = offset
        .checked_add(len)
        .is_some_and(|end| end <= buffer.size());
    if aligned && inside {
        Ok(())
    } else {
        Err(GpuError::UnalignedWrite {
            byte_offset: offset,
            byte_length: len,
        })
    }
}

/// Copies `bytes[at..]` into `dst`, zeros past the end of `bytes`.
pub(crate) fn copy_padded(bytes: &[u8], at: u64, dst: wgpu::WriteOnly<'_, [u8]>) {
    let start = usize::try_from(at).unwrap_or(usize::MAX).min(bytes.len());
    let have = (bytes.len() - start).min(dst.len());
    let (mut head, mut tail) = dst.split_at(have);
    head.copy_from_slice(&bytes[start..start + have]);
    tail.fill(0);
}

/// Writes `len` bytes (a multiple of 4) into `buffer` from `offset` (a multiple of 4), filled by
/// `fill` in pieces whose starts are multiples of `granule` (a multiple of 4), on the workers
/// of the device's [transfer configuration](crate::device::TransferConfig); returns once the
/// last chunk is handed to the queue (later submissions see the bytes).
pub(crate) async fn upload(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    offset: u64,
    len: u64,
    granule: u64,
    fill: &Fill<'_>,
    mode: WaitMode,
) -> Result<(), GpuError> {
    check_write(buffer, offset, len)?;
    if len == 0 {
        return Ok(());
    }
    // Only a loss wgpu reported already, not `Gpu::is_lost`'s probe (a poll and a mapped buffer
    // made and destroyed, 2-3 µs on the H200): a loss not yet reported is found all the same,
    // since a destroyed device refuses the staging (`write_buffer_with` returns `None`) and the
    // refusal confirms the loss below.
    gpu.check_reported_lost(OPERATION)?;
    let plan = plan(gpu, mode, len, granule.max(4));
    let shared = Shared::new(
        TransferDirection::Upload,
        len,
        gpu.transfer_config().progress(),
    );
    let job = UploadJob {
        gpu,
        buffer,
        offset,
        len,
        plan,
        fill,
        shared: &shared,
        mode,
    };
    run_workers(plan.workers, mode, &shared, |w| job.run(w)).await
}

/// One chunked upload, shared by its workers.
struct UploadJob<'a> {
    gpu: &'a Gpu,
    buffer: &'a wgpu::Buffer,
    offset: u64,
    len: u64,
    plan: Plan,
    fill: &'a Fill<'a>,
    shared: &'a Shared<'a>,
    mode: WaitMode,
}

impl UploadJob<'_> {
    /// Worker `w`: chunks `w`, `w + workers`, ..., each filled into wgpu's queue staging
    /// (`write_buffer_with`) and submitted, with at most `depth` of its chunks staged at once.
    ///
    /// Measured on an H200 (BENCHMARKS.md): this beats staging buffers of the transfer's own
    /// that are re-mapped with `map_async` after each copy, and both are bound by the CPU's
    /// writes, because wgpu gives every `MAP_WRITE` buffer device-local, host-visible memory
    /// there (written over PCIe), never host memory a DMA copy could read.
    async fn run(&self, w: usize) -> Result<(), GpuError> {
        let Plan {
            chunk,
            chunks,
            workers,
            depth,
        } = self.plan;
        let gpu = self.gpu;
        let limit = gpu.transfer_config().budget();
        let mut in_flight = VecDeque::with_capacity(depth);
        let mut k = w as u64;
        while k < chunks && !self.shared.failed() {
            let at = k * chunk;
            let size = chunk.min(self.len - at);
            let Some(bytes) = wgpu::BufferSize::new(size) else {
                break;
            };
            // Waits while the process's other transfers hold the budget; this worker's own
            // earlier chunks come back as the GPU finishes them.
            let permit = budget::acquire(size, limit, self.mode).await;
            let (submission, caught) = scoped(gpu, OPERATION, Some(size), || {
                let mut view =
                    gpu.queue()
                        .write_buffer_with(self.buffer, self.offset + at, bytes)?;
                (self.fill)(at, view.slice(..));
                // Dropping the view hands the bytes to the queue (and may be refused too).
                drop(view);
                Some(gpu.queue().submit([]))
            });
            caught.check(gpu).await?;
            let Some(submission) = submission else {
                // wgpu reports nothing for a lost device: its calls just fail.
                gpu.confirm_lost(OPERATION)?;
                return Err(GpuError::Staging {
                    byte_offset: self.offset + at,
                    byte_length: size,
                });
            };
            permit.release_after(gpu, submission.clone());
            in_flight.push_back(submission);
            if in_flight.len() >= depth
                && let Some(oldest) = in_flight.pop_front()
            {
                wait_for_submission(gpu, oldest, self.mode).await?;
            }
            self.shared.advance(size);
            k += workers as u64;
        }
        Ok(())
    }
}
