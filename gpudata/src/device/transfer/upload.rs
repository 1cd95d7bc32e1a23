//! Staging upload: host bytes written into a buffer range through wgpu's own staging memory
//! ([`wgpu::Queue::write_buffer_with`]) in chunks of at most [`STAGING_CHUNK_BYTES`], with at
//! most two chunks in flight, so an upload holds a bounded amount of staging memory however large
//! it is.

use std::collections::VecDeque;

use super::wait::{WaitMode, wait_for_submission};
use crate::device::buffers::align4;
use crate::device::scope::scoped;
use crate::device::{Gpu, GpuError};

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
    in_flight: VecDeque<wgpu::SubmissionIndex>,
}

impl<'g> Stager<'g> {
    /// A stager for `gpu`, or [`GpuError::DeviceLost`] when its device is lost.
    pub(crate) fn new(gpu: &'g Gpu, mode: WaitMode) -> Result<Stager<'g>, GpuError> {
        gpu.check_lost(OPERATION)?;
        Ok(Stager {
            gpu,
            mode,
            staged: 0,
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
        let unaligned = GpuError::UnalignedWrite {
            byte_offset: offset,
            byte_length: len,
        };
        if !offset.is_multiple_of(4) || !len.is_multiple_of(4) {
            return Err(unaligned);
        }
        let Some(size) = wgpu::BufferSize::new(len) else {
            return Ok(());
        };
        if offset
            .checked_add(len)
            .is_none_or(|end| end > buffer.size())
        {
            return Err(unaligned);
        }
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

    /// Stages `bytes` for `buffer` at `offset` (a multiple of 4) in chunks of
    /// [`STAGING_CHUNK_BYTES`], zero-padding the tail to a whole word.
    pub(crate) async fn write_bytes(
        &mut self,
        buffer: &wgpu::Buffer,
        offset: u64,
        bytes: &[u8],
    ) -> Result<(), GpuError> {
        let chunk = STAGING_CHUNK_BYTES as usize;
        for (i, piece) in bytes.chunks(chunk).enumerate() {
            let at = offset + (i * chunk) as u64;
            let padded = align4(piece.len() as u64).unwrap_or(u64::MAX);
            self.write(buffer, at, padded, |mut dst| {
                let (mut head, mut tail) = dst.slice(..).split_at(piece.len());
                head.copy_from_slice(piece);
                tail.fill(0);
            })
            .await?;
        }
        Ok(())
    }

    async fn submit(&mut self) -> Result<(), GpuError> {
        let staged = std::mem::take(&mut self.staged);
        let (submission, caught) = scoped(self.gpu, OPERATION, Some(staged), || {
            self.gpu.queue().submit([])
        });
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
    let mut stager = Stager::new(gpu, mode)?;
    stager.write_bytes(buffer, offset, bytes).await?;
    stager.finish().await
}
