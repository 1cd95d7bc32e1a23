//! Uploads through the device's pinned staging ring (feature `host-dma`,
//! [`HostDmaMode::PinnedStaging`](crate::device::HostDmaMode::PinnedStaging)): the caller's
//! bytes are copied by the CPU into slots of host memory the device imported once
//! (`device/host_dma/ring.rs`), and the GPU's copy engine moves each slot into the device buffer
//! with `copy_buffer_to_buffer`. Importing (pinning) is paid once per device, not per transfer,
//! and any host address qualifies. Readbacks in this mode take the staged path (`dma.rs`): on
//! the hosts measured, copies out of pinned memory on wgpu's queue never beat it.
//!
//! A blocking upload on several threads runs as one pipeline: the calling thread alone submits
//! copies and waits for the device, tasks on the process's drain pool (`pipeline.rs`) copy the
//! next pieces of the caller's bytes into free slots; filled slots go to the GPU together, in
//! one submission, and a slot comes free again when its copy has finished. Async or one-thread
//! uploads run the same steps one slot at a time on the calling task.
//!
//! An upload holds the slots it checked out until it returns; when every slot is held by other
//! uploads it takes the staged path instead. It returns once its last copy is submitted (the
//! bytes are in the ring; later submissions see them), as staged uploads do; the slots remember
//! their last submission, and the next upload that takes one waits for it before the CPU
//! touches the slot. The last 1–3 bytes of a length that is not a multiple of 4 are left to the
//! staged path, as by the import path.

use std::collections::VecDeque;
use std::sync::{Arc, mpsc};

use super::config::TransferDirection;
use super::pipeline::drain_pool;
use super::wait::{WaitMode, wait_for_submission};
use super::workers::Shared;
use crate::device::host_dma::{PinnedRing, Slots};
use crate::device::scope::{Caught, scoped};
use crate::device::{Gpu, GpuError};

/// Byte ranges of a transfer (from its start) left for the staged path (the ring's uploads and
/// [`dma`](super::dma)'s transfers both).
pub(crate) type Rest = Vec<std::ops::Range<usize>>;

/// The operation ring transfers name in their errors.
const OPERATION: &str = "copy host memory through the pinned staging ring";

/// The most bytes of copies one submission of [`probe_pinned_dma`] carries (at least one slot),
/// as the staged readback's pipeline submits them.
const SUBMIT_BYTES: u64 = 4 << 20;

/// The device's ring, made on first use with this handle's configuration; `None` when the
/// device has no host DMA or the ring could not be made.
fn ring(gpu: &Gpu) -> Option<&PinnedRing> {
    let dma = gpu.dma_device().ok()?;
    gpu.pinned_ring(|| {
        let (slot_bytes, slots) = gpu.transfer_config().pinned_ring(gpu.adapter_kind());
        PinnedRing::new(gpu, dma, slot_bytes, slots)
    })
}

/// Uploads `bytes` into `buffer` at `offset` (4-byte aligned, inside the buffer: checked by the
/// caller) through the ring; returns, once the last copy is submitted, the ranges of `bytes`
/// left to stage (a tail shorter than a word), or `None` when the ring is unavailable or busy.
pub(super) async fn write(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    offset: u64,
    bytes: &[u8],
    mode: WaitMode,
) -> Result<Option<Rest>, GpuError> {
    let words = bytes.len() & !3;
    let Some((mut slots, job, pool)) = begin(gpu, buffer, offset, words, mode) else {
        return Ok(None);
    };
    gpu.check_reported_lost(OPERATION)?;
    match pool {
        Some(pool) => job.upload_pooled(&pool, &mut slots, &bytes[..words])?,
        None => job.upload_inline(&mut slots, &bytes[..words], mode).await?,
    }
    gpu.count_dma_transfer();
    Ok(Some(tail(bytes.len())))
}

/// What an upload of `words` bytes through the ring starts with: the slots it checked out (as
/// many as it has pieces, as many as are free), its job, and the drain pool when it blocks on
/// several threads (the configuration's transfer threads); `None` when the device has no ring
/// or every slot is held.
fn begin<'a>(
    gpu: &'a Gpu,
    buffer: &'a wgpu::Buffer,
    offset: u64,
    words: usize,
    mode: WaitMode,
) -> Option<(Slots<'a>, Job<'a>, Option<Arc<rayon_core::ThreadPool>>)> {
    let ring = ring(gpu)?;
    let slot = ring.slot_bytes() as usize;
    let slots = ring.take(words.div_ceil(slot));
    if slots.len() == 0 {
        return None;
    }
    let config = gpu.transfer_config();
    let threads = config.threads_for(gpu.adapter_kind());
    let pool = match mode {
        WaitMode::Block if threads > 1 => drain_pool(threads),
        _ => None,
    };
    let job = Job {
        gpu,
        buffer,
        offset,
        slot,
        shared: Shared::new(TransferDirection::Upload, words as u64, config.progress()),
    };
    Some((slots, job, pool))
}

/// The tail of a `len`-byte transfer the copies leave: the bytes after its last whole word.
fn tail(len: usize) -> Rest {
    let words = len & !3;
    std::iter::once(words..len)
        .filter(|r| !r.is_empty())
        .collect()
}

/// One upload's whole words from the caller's memory into `buffer` from `offset`, in pieces of
/// one `slot` each: piece `k` is bytes `k * slot..` of the caller's range.
struct Job<'a> {
    gpu: &'a Gpu,
    buffer: &'a wgpu::Buffer,
    offset: u64,
    slot: usize,
    shared: Shared<'a>,
}

/// A copy from held slot `.0` to piece `.1`, of `.2` bytes.
type SlotCopy = (usize, usize, usize);

impl Job<'_> {
    /// Records and submits the copies (each slot to its piece's place in the buffer); marks each
    /// slot as used by the submission. The caller awaits what the error scopes caught.
    fn submit(
        &self,
        slots: &mut Slots<'_>,
        copies: &[SlotCopy],
    ) -> (wgpu::SubmissionIndex, Caught) {
        let gpu = self.gpu;
        let bytes = copies.iter().map(|c| c.2 as u64).sum();
        let (submission, caught) = scoped(gpu, OPERATION, Some(bytes), || {
            let mut encoder =
                gpu.device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("gpudata pinned staging"),
                    });
            for &(i, k, size) in copies {
                let ring = (slots.buffer(), slots.buffer_offset(i));
                // Piece offsets are below the transfer's length, which fits the buffer.
                let at = self.offset + (k * self.slot) as u64;
                let size = Some(size as u64);
                encoder.copy_buffer_to_buffer(ring.0, ring.1, self.buffer, at, size);
            }
            gpu.queue().submit([encoder.finish()])
        });
        for &(i, _, _) in copies {
            slots.set_pending(i, submission.clone());
        }
        (submission, caught)
    }

    /// Waits until `submission` has finished; a failed wait on a lost device gives
    /// [`GpuError::DeviceLost`].
    async fn wait(
        &self,
        submission: wgpu::SubmissionIndex,
        mode: WaitMode,
    ) -> Result<(), GpuError> {
        let waited = wait_for_submission(self.gpu, submission, mode).await;
        if waited.is_err() {
            self.gpu.confirm_lost(OPERATION)?;
        }
        waited
    }

    /// Waits until the last submission that used held slot `i` (an earlier transfer's) has
    /// finished, so the CPU may touch the slot.
    async fn settle(
        &self,
        slots: &mut Slots<'_>,
        i: usize,
        mode: WaitMode,
    ) -> Result<(), GpuError> {
        if let Some(pending) = slots.pending(i) {
            self.wait(pending, mode).await?;
            slots.clear_pending(i);
        }
        Ok(())
    }

    /// An upload on the calling task: piece `k` into held slot `k % slots`, once that slot's
    /// previous copy has finished, then its copy submitted.
    async fn upload_inline(
        &self,
        slots: &mut Slots<'_>,
        bytes: &[u8],
        mode: WaitMode,
    ) -> Result<(), GpuError> {
        let held = slots.len();
        for (k, piece) in bytes.chunks(self.slot).enumerate() {
            let i = k % held;
            self.settle(slots, i, mode).await?;
            // SAFETY: slot `i` is held by this transfer alone and no submission uses it (settled
            // above); `piece` is at most one slot long.
            unsafe { slot_mut(slots.host_address(i), piece.len()) }.copy_from_slice(piece);
            let (_, caught) = self.submit(slots, &[(i, k, piece.len())]);
            caught.check(self.gpu).await?;
            self.shared.advance(piece.len() as u64);
        }
        Ok(())
    }

    /// A blocking upload as one pipeline: tasks on `pool` fill free slots with the next pieces,
    /// the calling thread submits every filled slot's copy (all that are ready in one
    /// submission) and, when no slot is free, waits for the oldest copy to finish.
    fn upload_pooled(
        &self,
        pool: &rayon_core::ThreadPool,
        slots: &mut Slots<'_>,
        bytes: &[u8],
    ) -> Result<(), GpuError> {
        let pieces: Vec<&[u8]> = bytes.chunks(self.slot).collect();
        let (filled, filled_rx) = mpsc::channel::<SlotCopy>();
        // Every task spawned here has finished when this returns (the scope waits), so none
        // outlives the caller's bytes or writes a slot after it went back to the ring.
        pool.in_place_scope_fifo(|scope| {
            let mut free: Vec<usize> = (0..slots.len()).rev().collect();
            let mut in_flight: VecDeque<(wgpu::SubmissionIndex, Vec<usize>)> = VecDeque::new();
            let mut next = 0;
            let mut filling = 0usize;
            loop {
                let mut ready: Vec<SlotCopy> = filled_rx.try_iter().collect();
                if ready.is_empty()
                    && next < pieces.len()
                    && let Some(i) = free.pop()
                {
                    pollster::block_on(self.settle(slots, i, WaitMode::Block))?;
                    let (piece, k, address) = (pieces[next], next, slots.host_address(i));
                    let filled = filled.clone();
                    scope.spawn_fifo(move |_| {
                        // SAFETY: slot `i` is held by this transfer and handed to this task
                        // alone until it reports back; no submission uses it (settled above);
                        // `piece` is at most one slot long.
                        unsafe { slot_mut(address, piece.len()) }.copy_from_slice(piece);
                        let _ = filled.send((i, k, piece.len()));
                    });
                    next += 1;
                    filling += 1;
                    continue;
                }
                if ready.is_empty() {
                    if next == pieces.len() && filling == 0 {
                        // Every copy is submitted; the slots remember theirs.
                        return Ok(());
                    }
                    if next < pieces.len()
                        && let Some((submission, done)) = in_flight.pop_front()
                    {
                        // No slot is free: the oldest copy's slots come free when it is done.
                        pollster::block_on(self.wait(submission, WaitMode::Block))?;
                        for i in done {
                            slots.clear_pending(i);
                            free.push(i);
                        }
                        continue;
                    }
                    // Only fills are outstanding: wait for one (this thread holds a sender,
                    // so the channel cannot close).
                    match filled_rx.recv() {
                        Ok(copy) => ready.push(copy),
                        Err(_) => unreachable!(),
                    }
                }
                filling -= ready.len();
                ready.sort_unstable_by_key(|c| c.1);
                let (submission, caught) = self.submit(slots, &ready);
                pollster::block_on(caught.check(self.gpu))?;
                for copy in &ready {
                    self.shared.advance(copy.2 as u64);
                }
                in_flight.push_back((submission, ready.iter().map(|c| c.0).collect()));
            }
        })
    }
}

/// `len` bytes of a held slot at `address`, to write.
///
/// # Safety
/// `address..address + len` lies in one slot of a ring that outlives the borrow, held by the
/// caller's transfer, which no submission still uses and no other thread touches meanwhile.
unsafe fn slot_mut<'s>(address: usize, len: usize) -> &'s mut [u8] {
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts_mut(address as *mut u8, len) }
}

/// Copies `len` bytes (a multiple of 4) from the device's pinned staging ring into `buffer` from
/// offset 0, slot by slot through every slot of the ring, submitted in groups of
/// [`SUBMIT_BYTES`], and waits until the device is idle: the copy engine's rate from pinned
/// host memory without any host copy, for `transferbench`'s `ring_dma` path. `Ok(false)` when
/// the device has no ring (made here with the handle's configuration when it has none yet) or
/// its slots are held by transfers.
///
/// # Errors
/// What the error scopes catch (`len` past the buffer, a buffer without the copy usage), a
/// lost device.
#[doc(hidden)]
pub fn probe_pinned_dma(gpu: &Gpu, buffer: &wgpu::Buffer, len: u64) -> Result<bool, GpuError> {
    let Some(ring) = ring(gpu) else {
        return Ok(false);
    };
    let mut slots = ring.take(ring.slots());
    if slots.len() < ring.slots() {
        return Ok(false);
    }
    let job = Job {
        gpu,
        buffer,
        offset: 0,
        slot: ring.slot_bytes() as usize,
        shared: Shared::new(TransferDirection::Upload, len, None),
    };
    let len = usize::try_from(len & !3).unwrap_or(usize::MAX);
    let group = (SUBMIT_BYTES / ring.slot_bytes()).max(1) as usize;
    let copies: Vec<SlotCopy> = (0..len.div_ceil(job.slot))
        .map(|k| (k % slots.len(), k, job.slot.min(len - k * job.slot)))
        .collect();
    let mut last = None;
    for batch in copies.chunks(group) {
        let (submission, caught) = job.submit(&mut slots, batch);
        pollster::block_on(caught.check(gpu))?;
        last = Some(submission);
    }
    if let Some(last) = last {
        pollster::block_on(job.wait(last, WaitMode::Block))?;
        for i in 0..slots.len() {
            slots.clear_pending(i);
        }
    }
    Ok(true)
}
