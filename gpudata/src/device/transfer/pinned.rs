//! Transfers through the device's pinned staging ring (feature `host-dma`,
//! [`HostDmaMode::PinnedStaging`](crate::device::HostDmaMode::PinnedStaging)): the caller's
//! bytes are copied by the CPU into or out of slots of host memory the device imported once
//! (`device/host_dma/ring.rs`), and the GPU's copy engine moves each slot to or from the device
//! buffer with `copy_buffer_to_buffer`. Importing (pinning) is paid once per device, not per
//! transfer, and any host address qualifies.
//!
//! Blocking transfers on several threads run as one pipeline, as staged readbacks do
//! (`pipeline.rs`): the calling thread alone submits copies and waits for the device, tasks on
//! the process's drain pool do the host copies. An upload hands each free slot to a task that
//! copies the next piece of the caller's bytes into it; filled slots go to the GPU together, in
//! one submission, and a slot comes free again when its copy has finished. A readback submits
//! copies into free slots ahead (a few per submission, with the barrier that makes them
//! visible to the host), and hands each finished slot to a task that copies it into the
//! caller's memory. Async or one-thread transfers run the same steps one slot at a time on the
//! calling task, every slot of the transfer in flight.
//!
//! A transfer holds the slots it checked out until it returns; when every slot is held by
//! other transfers it takes the staged path instead. An upload returns once its last copy is
//! submitted (the bytes are in the ring; later submissions see them), as staged uploads do;
//! the slots remember their last submission, and the next transfer that takes one waits for it
//! before the CPU touches the slot. The last 1–3 bytes of a length that is not a multiple of 4
//! are left to the staged path, as by the import path.

use std::collections::VecDeque;
use std::sync::{Arc, mpsc};

use super::config::TransferDirection;
use super::pipeline::{copy_in_parts, drain_pool};
use super::wait::{WaitMode, wait_for_submission};
use super::workers::Shared;
use crate::device::host_dma::{DmaDevice, PinnedRing, Slots};
use crate::device::scope::{Caught, scoped};
use crate::device::{Gpu, GpuError};

/// Byte ranges of a transfer (from its start) left for the staged path (the ring's and
/// [`dma`](super::dma)'s both).
pub(crate) type Rest = Vec<std::ops::Range<usize>>;

/// The operation ring transfers name in their errors.
const OPERATION: &str = "copy host memory through the pinned staging ring";

/// The most bytes of readback copies one submission carries (at least one slot), as the staged
/// readback's pipeline submits them: small submissions finish early, so drained slots go back
/// to the GPU while later copies still run.
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
    let direction = TransferDirection::Upload;
    let Some((mut slots, job, pool)) = begin(gpu, buffer, offset, words, direction, mode) else {
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

/// Reads `out.len()` bytes of `buffer` from `offset` (4-byte aligned, inside the buffer:
/// checked by the caller) into `out` through the ring; returns, once the bytes are in `out`,
/// the ranges of `out` left to stage (a tail shorter than a word), or `None` when the ring is
/// unavailable or busy.
pub(super) async fn read(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    offset: u64,
    out: &mut [u8],
    mode: WaitMode,
) -> Result<Option<Rest>, GpuError> {
    let len = out.len();
    let words = len & !3;
    let direction = TransferDirection::Readback;
    let Some((mut slots, job, pool)) = begin(gpu, buffer, offset, words, direction, mode) else {
        return Ok(None);
    };
    // As staged readbacks: the loss probe, since a lost device's submissions never finish.
    gpu.check_lost(OPERATION)?;
    match pool {
        Some(pool) => job.read_pooled(&pool, &mut slots, &mut out[..words])?,
        None => job.read_inline(&mut slots, &mut out[..words], mode).await?,
    }
    gpu.count_dma_transfer();
    Ok(Some(tail(len)))
}

/// What a transfer of `words` bytes through the ring starts with: the slots it checked out (as
/// many as it has pieces, as many as are free), its job, and the drain pool when it blocks on
/// several threads (the configuration's upload threads, or its readback drain threads);
/// `None` when the device has no ring or every slot is held.
fn begin<'a>(
    gpu: &'a Gpu,
    buffer: &'a wgpu::Buffer,
    offset: u64,
    words: usize,
    direction: TransferDirection,
    mode: WaitMode,
) -> Option<(Slots<'a>, Job<'a>, Option<Arc<rayon_core::ThreadPool>>)> {
    let (ring, dma) = ring(gpu).zip(gpu.dma_device().ok())?;
    let slot = ring.slot_bytes() as usize;
    let slots = ring.take(words.div_ceil(slot));
    if slots.len() == 0 {
        return None;
    }
    let config = gpu.transfer_config();
    let threads = match direction {
        TransferDirection::Upload => config.threads_for(gpu.adapter_kind()),
        TransferDirection::Readback => config.drain_threads_for(gpu.adapter_kind()),
    };
    let pool = match mode {
        WaitMode::Block if threads > 1 => drain_pool(threads),
        _ => None,
    };
    let job = Job {
        gpu,
        dma,
        buffer,
        offset,
        slot,
        shared: Shared::new(direction, words as u64, config.progress()),
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

/// One transfer's whole words between the caller's memory and `buffer` from `offset`, in
/// pieces of one `slot` each: piece `k` is bytes `k * slot..` of the caller's range.
struct Job<'a> {
    gpu: &'a Gpu,
    dma: &'a DmaDevice,
    buffer: &'a wgpu::Buffer,
    offset: u64,
    slot: usize,
    shared: Shared<'a>,
}

/// A copy between held slot `.0` and piece `.1`, of `.2` bytes.
type SlotCopy = (usize, usize, usize);

impl Job<'_> {
    /// Records and submits the copies (each slot to its piece's place in the buffer, or back),
    /// with the host barrier after readback copies; marks each slot as used by the submission.
    /// The caller awaits what the error scopes caught.
    fn submit(
        &self,
        slots: &mut Slots<'_>,
        copies: &[SlotCopy],
        direction: TransferDirection,
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
                match direction {
                    TransferDirection::Upload => {
                        encoder.copy_buffer_to_buffer(ring.0, ring.1, self.buffer, at, size);
                    }
                    TransferDirection::Readback => {
                        encoder.copy_buffer_to_buffer(self.buffer, at, ring.0, ring.1, size);
                    }
                }
            }
            match direction {
                TransferDirection::Upload => gpu.queue().submit([encoder.finish()]),
                TransferDirection::Readback => {
                    let barrier = self.dma.host_read_barrier(gpu.device());
                    gpu.queue().submit([encoder.finish(), barrier])
                }
            }
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
            let (_, caught) = self.submit(slots, &[(i, k, piece.len())], TransferDirection::Upload);
            caught.check(self.gpu).await?;
            self.shared.advance(piece.len() as u64);
        }
        Ok(())
    }

    /// A readback on the calling task: a copy into every held slot submitted ahead, then for
    /// each finished slot in turn its bytes copied out and the slot's next copy submitted.
    async fn read_inline(
        &self,
        slots: &mut Slots<'_>,
        out: &mut [u8],
        mode: WaitMode,
    ) -> Result<(), GpuError> {
        let mut pieces = out.chunks_mut(self.slot).enumerate();
        let mut in_flight = VecDeque::with_capacity(slots.len());
        for i in 0..slots.len() {
            let Some((k, piece)) = pieces.next() else {
                break;
            };
            let (submission, caught) =
                self.submit(slots, &[(i, k, piece.len())], TransferDirection::Readback);
            caught.check(self.gpu).await?;
            in_flight.push_back((submission, i, piece));
        }
        while let Some((submission, i, piece)) = in_flight.pop_front() {
            self.wait(submission, mode).await?;
            slots.clear_pending(i);
            // SAFETY: slot `i` is held by this transfer alone and its copy (with the barrier
            // after it) has finished; `piece` is at most one slot long.
            piece.copy_from_slice(unsafe { slot_ref(slots.host_address(i), piece.len()) });
            self.shared.advance(piece.len() as u64);
            if let Some((k, next)) = pieces.next() {
                let (submission, caught) =
                    self.submit(slots, &[(i, k, next.len())], TransferDirection::Readback);
                caught.check(self.gpu).await?;
                in_flight.push_back((submission, i, next));
            }
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
                let (submission, caught) = self.submit(slots, &ready, TransferDirection::Upload);
                pollster::block_on(caught.check(self.gpu))?;
                for copy in &ready {
                    self.shared.advance(copy.2 as u64);
                }
                in_flight.push_back((submission, ready.iter().map(|c| c.0).collect()));
            }
        })
    }

    /// A blocking readback as one pipeline: the calling thread submits copies into free slots
    /// (up to [`SUBMIT_BYTES`] per submission) and waits for the oldest submission, then hands
    /// its slots to tasks on `pool` that copy them into the caller's memory (in 2 MiB parts of the
    /// destination on several of the pool's threads, as staged readbacks drain, so a fresh
    /// vector's page faults spread) and free them.
    fn read_pooled(
        &self,
        pool: &rayon_core::ThreadPool,
        slots: &mut Slots<'_>,
        out: &mut [u8],
    ) -> Result<(), GpuError> {
        let mut pieces: Vec<Option<&mut [u8]>> = out.chunks_mut(self.slot).map(Some).collect();
        let count = pieces.len();
        let group = (SUBMIT_BYTES / self.slot as u64).max(1) as usize;
        let (drained, drained_rx) = mpsc::channel::<usize>();
        // Every task spawned here has finished when this returns (the scope waits), so none
        // outlives the caller's memory or reads a slot after it went back to the ring.
        pool.in_place_scope_fifo(|scope| {
            let mut free: Vec<usize> = (0..slots.len()).rev().collect();
            let mut in_flight: VecDeque<(wgpu::SubmissionIndex, Vec<SlotCopy>)> = VecDeque::new();
            let mut next = 0;
            let mut draining = 0usize;
            loop {
                for i in drained_rx.try_iter() {
                    draining -= 1;
                    free.push(i);
                }
                if next < count && !free.is_empty() {
                    // The GPU orders these copies after the slots' earlier uses; the CPU reads
                    // them only after this submission, which finishes after those.
                    let n = group.min(free.len()).min(count - next);
                    let batch: Vec<SlotCopy> = free
                        .drain(free.len() - n..)
                        .rev()
                        .zip(next..)
                        .map(|(i, k)| (i, k, pieces[k].as_ref().map_or(0, |p| p.len())))
                        .collect();
                    next += n;
                    let (submission, caught) =
                        self.submit(slots, &batch, TransferDirection::Readback);
                    pollster::block_on(caught.check(self.gpu))?;
                    in_flight.push_back((submission, batch));
                    continue;
                }
                if let Some((submission, batch)) = in_flight.pop_front() {
                    pollster::block_on(self.wait(submission, WaitMode::Block))?;
                    for (i, k, _) in batch {
                        slots.clear_pending(i);
                        let Some(piece) = pieces[k].take() else {
                            free.push(i);
                            continue;
                        };
                        let (address, drained, shared) =
                            (slots.host_address(i), drained.clone(), &self.shared);
                        scope.spawn_fifo(move |_| {
                            // SAFETY: slot `i` is held by this transfer and handed to this task
                            // alone until it reports back; its copy (with the host barrier
                            // after it) has finished; `piece` is at most one slot long.
                            copy_in_parts(piece, unsafe { slot_ref(address, piece.len()) });
                            shared.advance(piece.len() as u64);
                            let _ = drained.send(i);
                        });
                        draining += 1;
                    }
                    continue;
                }
                if draining == 0 {
                    return Ok(());
                }
                // Only drains are outstanding: wait for one (this thread holds a sender, so
                // the channel cannot close).
                match drained_rx.recv() {
                    Ok(i) => {
                        draining -= 1;
                        free.push(i);
                    }
                    Err(_) => unreachable!(),
                }
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

/// `len` bytes of a held slot at `address`, to read.
///
/// # Safety
/// As [`slot_mut`]; the copy into the slot has finished and was made visible to the host.
unsafe fn slot_ref<'s>(address: usize, len: usize) -> &'s [u8] {
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(address as *const u8, len) }
}

/// Copies `len` bytes (a multiple of 4) between the device's pinned staging ring and `buffer`
/// from offset 0 (into `buffer` when `upload`, else out of it), slot by slot through every slot
/// of the ring, submitted in groups of [`SUBMIT_BYTES`], and waits until the device is idle:
/// the copy engine's rate from and into pinned host memory without any host copy, for
/// `transferbench`'s `ring_dma` path. `Ok(false)` when the device has no ring (made here with
/// the handle's configuration when it has none yet) or its slots are held by transfers.
///
/// # Errors
/// What the error scopes catch (`len` past the buffer, a buffer without the copy usage), a
/// lost device.
#[doc(hidden)]
pub fn probe_pinned_dma(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    len: u64,
    upload: bool,
) -> Result<bool, GpuError> {
    let Some((ring, dma)) = ring(gpu).zip(gpu.dma_device().ok()) else {
        return Ok(false);
    };
    let mut slots = ring.take(ring.slots());
    if slots.len() < ring.slots() {
        return Ok(false);
    }
    let job = Job {
        gpu,
        dma,
        buffer,
        offset: 0,
        slot: ring.slot_bytes() as usize,
        shared: Shared::new(TransferDirection::Upload, len, None),
    };
    let direction = if upload {
        TransferDirection::Upload
    } else {
        TransferDirection::Readback
    };
    let len = usize::try_from(len & !3).unwrap_or(usize::MAX);
    let group = (SUBMIT_BYTES / ring.slot_bytes()).max(1) as usize;
    let copies: Vec<SlotCopy> = (0..len.div_ceil(job.slot))
        .map(|k| (k % slots.len(), k, job.slot.min(len - k * job.slot)))
        .collect();
    let mut last = None;
    for batch in copies.chunks(group) {
        let (submission, caught) = job.submit(&mut slots, batch, direction);
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
