//! Transfers by host DMA (feature `host-dma`): which ranges qualify ([`write()`] and [`read()`],
//! the entry of both [`HostDmaMode`]s; `pinned.rs` moves uploads through the device's pinned
//! staging ring, while readbacks in that mode are left whole to the staged path, which the
//! ring's readbacks never beat on the hosts measured), and the import mode: the caller's pages
//! imported piece by piece (`device/host_dma`) and copied straight into or out of the device
//! buffer with `copy_buffer_to_buffer`.
//!
//! Importing a piece costs the driver pinning its pages, so blocking transfers import on the
//! workers of the handle's [`TransferConfig`](crate::device::TransferConfig) (pieces dealt
//! round-robin, at most two ready per worker) while the calling thread submits each piece's copy
//! as it arrives, keeping up to [`DEPTH`] copies in flight before it waits for the oldest and
//! releases its import. Async transfers import on the awaiting task. Each call returns the byte
//! ranges it did not move, for the caller's staged path: a tail shorter than a word, pieces the
//! driver refused; `None` when the range does not qualify at all.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use super::config::{HostDmaMode, TransferDirection};
use super::pinned::Rest;
use super::wait::{WaitMode, wait_for_submission};
use super::workers::Shared;
use crate::device::host_dma::{DmaDevice, Imported};
use crate::device::scope::scoped;
use crate::device::{Gpu, GpuError};

/// Copies a transfer keeps in flight before it waits for the oldest.
const DEPTH: usize = 3;

/// The bytes one piece covers unless the configuration sets a chunk size: a 256 MiB transfer
/// imports on 8 workers (not measured on hardware yet: `transferbench --dma-sweep`).
const PIECE_BYTES: u64 = 32 << 20;

/// The operation host-DMA transfers name in their errors.
const OPERATION: &str = "copy host memory by dma";

/// Uploads `bytes` into `buffer` at `offset` by DMA when the handle's configuration, the device
/// and the range allow; returns, once the GPU has finished reading the caller's pages, the
/// ranges of `bytes` left to stage, or `None` when the range does not qualify.
pub(crate) async fn write(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    offset: u64,
    bytes: &[u8],
    mode: WaitMode,
) -> Result<Option<Rest>, GpuError> {
    if !qualifies(gpu, buffer, offset, bytes.len()) {
        return Ok(None);
    }
    if gpu.transfer_config().dma_mode() == HostDmaMode::PinnedStaging {
        return super::pinned::write(gpu, buffer, offset, bytes, mode).await;
    }
    let host = (bytes.as_ptr() as usize, bytes.len());
    let Some(job) = Job::new(gpu, buffer, offset, host, TransferDirection::Upload, mode) else {
        return Ok(None);
    };
    // SAFETY: `bytes` is borrowed for this whole call, and `run` drops every import (each
    // drop waiting until wgpu has freed it) before it returns; the copies only read it.
    unsafe { job.run() }.await.map(Some)
}

/// Reads `out.len()` bytes of `buffer` from `offset` into `out` by DMA when the handle's
/// configuration, the device and the range allow; returns, once the bytes are in `out`, the
/// ranges of `out` left to stage, or `None` when the range does not qualify. Only
/// [`HostDmaMode::ImportCallerPages`] reads by DMA: under [`HostDmaMode::PinnedStaging`] every
/// readback is `None`, staged whole by the caller (measured on three H100 hosts, the ring's
/// readbacks never beat the staged path: BENCHMARKS.md, session 12).
pub(crate) async fn read(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    offset: u64,
    out: &mut [u8],
    mode: WaitMode,
) -> Result<Option<Rest>, GpuError> {
    if gpu.transfer_config().dma_mode() == HostDmaMode::PinnedStaging
        || !qualifies(gpu, buffer, offset, out.len())
    {
        return Ok(None);
    }
    let host = (out.as_mut_ptr() as usize, out.len());
    let Some(job) = Job::new(gpu, buffer, offset, host, TransferDirection::Readback, mode) else {
        return Ok(None);
    };
    // SAFETY: `out` is borrowed mutably for this whole call (nothing else reads or writes
    // it), and `run` drops every import (each drop waiting until wgpu has freed it) before it
    // returns.
    unsafe { job.run() }.await.map(Some)
}

/// One DMA transfer: `len` bytes between host address `host` (an address, not a pointer, so the
/// futures stay `Send`) and `buffer` at `offset`.
struct Job<'a> {
    gpu: &'a Gpu,
    dma: &'a DmaDevice,
    buffer: &'a wgpu::Buffer,
    offset: u64,
    host: usize,
    len: usize,
    direction: TransferDirection,
    mode: WaitMode,
}

/// Whether a transfer of `len` bytes at `offset` of `buffer` goes by host DMA on this handle:
/// host DMA on, at least the configured minimum and one whole word, at a 4-byte-aligned offset,
/// inside the buffer (either mode; the import mode also wants the host address aligned).
fn qualifies(gpu: &Gpu, buffer: &wgpu::Buffer, offset: u64, len: usize) -> bool {
    let Some(threshold) = gpu.transfer_config().host_dma_threshold() else {
        return false;
    };
    len >= 4
        && len as u64 >= threshold
        && offset.is_multiple_of(4)
        && offset
            .checked_add(len as u64)
            .is_some_and(|end| end <= buffer.size())
}

/// A piece's import with its range, or the range when the driver refused it.
type Ready = (Range<usize>, Option<Imported>);

impl<'a> Job<'a> {
    /// The transfer of `host` (address, length), a range that [`qualifies`], when its first
    /// byte is 4-byte aligned and the device has host DMA.
    fn new(
        gpu: &'a Gpu,
        buffer: &'a wgpu::Buffer,
        offset: u64,
        (host, len): (usize, usize),
        direction: TransferDirection,
        mode: WaitMode,
    ) -> Option<Job<'a>> {
        if !host.is_multiple_of(4) {
            return None;
        }
        Some(Job {
            gpu,
            dma: gpu.dma_device().ok()?,
            buffer,
            offset,
            host,
            len,
            direction,
            mode,
        })
    }

    /// The pieces of the range's whole words: cut where the host address crosses an
    /// import-alignment boundary past each piece's size, so no two pieces import one page.
    fn pieces(&self) -> Vec<Range<usize>> {
        let words = self.len & !3;
        let piece = self
            .gpu
            .transfer_config()
            .host_dma_piece()
            .unwrap_or(PIECE_BYTES) as usize;
        let alignment = self.dma.alignment() as usize;
        let mut pieces = Vec::with_capacity(words.div_ceil(piece));
        let mut at = 0;
        while at < words {
            let end = (self.host + at)
                .saturating_add(piece)
                .checked_next_multiple_of(alignment)
                .map_or(words, |e| (e - self.host).min(words));
            pieces.push(at..end);
            at = end;
        }
        pieces
    }

    /// Imports `range` of the caller's memory, `None` when the driver refuses it.
    ///
    /// # Safety
    /// As [`run`](Self::run): the caller's memory stays valid until the import is dropped.
    unsafe fn import(&self, range: &Range<usize>) -> Option<Imported> {
        let (imported, caught) = scoped(self.gpu, OPERATION, Some(range.len() as u64), || {
            // SAFETY: inside the caller's range, valid until the import is dropped (`run`'s
            // contract).
            unsafe {
                self.dma.import(
                    self.gpu.device(),
                    (self.host + range.start) as *const u8,
                    range.len() as u64,
                )
            }
        });
        // wgpu refusing the wrapped buffer counts as the driver refusing the piece.
        pollster::block_on(caught.check(self.gpu)).ok()?;
        imported
    }

    /// Moves the pieces; returns the ranges left to stage (refused pieces, the tail).
    ///
    /// # Safety
    /// `host..host + len` stays valid until this returns (for a readback also writable and
    /// touched by nobody else meanwhile). Every [`Imported`] made here is dropped before it
    /// returns, on success, error, panic or cancellation alike, and each drop waits until wgpu
    /// has freed it.
    async unsafe fn run(self) -> Result<Rest, GpuError> {
        self.gpu.check_reported_lost(OPERATION)?;
        let pieces = self.pieces();
        let shared = Shared::new(
            self.direction,
            (self.len & !3) as u64,
            self.gpu.transfer_config().progress(),
        );
        let workers = match self.mode {
            WaitMode::Block => self
                .gpu
                .transfer_config()
                .threads_for(self.gpu.adapter_kind())
                .min(pieces.len()),
            WaitMode::Async => 1,
        };
        let mut submitter = Submitter {
            job: &self,
            shared: &shared,
            in_flight: VecDeque::new(),
            rest: Vec::new(),
            moved: false,
        };
        if workers <= 1 {
            for range in pieces {
                // SAFETY: `run`'s contract; the import is dropped inside `submitter` below.
                let imported = unsafe { self.import(&range) };
                submitter.submit(range, imported).await?;
            }
        } else {
            // SAFETY: `run`'s contract; every import is dropped before the scope ends.
            unsafe { self.import_on_workers(pieces, workers, &mut submitter) }?;
        }
        submitter.finish().await?;
        let mut rest = submitter.rest;
        if !self.len.is_multiple_of(4) {
            rest.push(self.len & !3..self.len);
        }
        Ok(rest)
    }

    /// Imports the pieces on `workers` scoped threads (pieces dealt round-robin, at most two
    /// ready per worker) while the calling thread submits their copies.
    ///
    /// # Safety
    /// As [`run`](Self::run).
    unsafe fn import_on_workers(
        &self,
        pieces: Vec<Range<usize>>,
        workers: usize,
        submitter: &mut Submitter<'_, '_>,
    ) -> Result<(), GpuError> {
        let count = pieces.len();
        let stop = AtomicBool::new(false);
        let pieces = &pieces;
        let stop = &stop;
        std::thread::scope(|scope| {
            let (send, receive) = mpsc::sync_channel::<Ready>(workers);
            for w in 0..workers {
                let send = send.clone();
                scope.spawn(move || {
                    for range in pieces.iter().skip(w).step_by(workers) {
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        // SAFETY: `run`'s contract; the import goes to the submitter, or is
                        // dropped here when the submitter has stopped, before the scope ends.
                        let imported = unsafe { self.import(range) };
                        if send.send((range.clone(), imported)).is_err() {
                            return;
                        }
                    }
                });
            }
            drop(send);
            let mut result = Ok(());
            for _ in 0..count {
                let Ok((range, imported)) = receive.recv() else {
                    break;
                };
                result = pollster::block_on(submitter.submit(range, imported));
                if result.is_err() {
                    break;
                }
            }
            // Workers still importing stop; their imports (and those queued in the channel)
            // are dropped with the receiver or by the workers, unused.
            stop.store(true, Ordering::Relaxed);
            drop(receive);
            result
        })
    }
}

/// The submitting side of a transfer: each piece's copy, up to [`DEPTH`] in flight.
struct Submitter<'j, 's> {
    job: &'j Job<'j>,
    shared: &'s Shared<'s>,
    in_flight: VecDeque<(wgpu::SubmissionIndex, Imported, u64)>,
    rest: Rest,
    moved: bool,
}

impl Submitter<'_, '_> {
    /// Submits the copy of one piece (or records it for the staged path when its import was
    /// refused), then waits for the oldest copies beyond [`DEPTH`].
    async fn submit(
        &mut self,
        range: Range<usize>,
        imported: Option<Imported>,
    ) -> Result<(), GpuError> {
        let Some(imported) = imported else {
            self.rest.push(range);
            return Ok(());
        };
        let job = self.job;
        let gpu = job.gpu;
        let size = range.len() as u64;
        let at = job.offset + range.start as u64;
        let (submission, caught) = scoped(gpu, OPERATION, Some(size), || {
            let mut encoder =
                gpu.device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("gpudata host dma"),
                    });
            let host = (imported.buffer(), imported.offset());
            match job.direction {
                TransferDirection::Upload => {
                    encoder.copy_buffer_to_buffer(host.0, host.1, job.buffer, at, Some(size));
                    gpu.queue().submit([encoder.finish()])
                }
                TransferDirection::Readback => {
                    encoder.copy_buffer_to_buffer(job.buffer, at, host.0, host.1, Some(size));
                    let barrier = job.dma.host_read_barrier(gpu.device());
                    gpu.queue().submit([encoder.finish(), barrier])
                }
            }
        });
        self.in_flight.push_back((submission, imported, size));
        caught.check(gpu).await?;
        if !self.moved {
            gpu.count_dma_transfer();
            self.moved = true;
        }
        while self.in_flight.len() > DEPTH {
            self.release_oldest().await?;
        }
        Ok(())
    }

    /// Waits for every copy in flight and releases its import.
    async fn finish(&mut self) -> Result<(), GpuError> {
        while !self.in_flight.is_empty() {
            self.release_oldest().await?;
        }
        Ok(())
    }

    /// Waits for the oldest copy, then drops its import (which returns once wgpu has freed it)
    /// and counts its bytes.
    async fn release_oldest(&mut self) -> Result<(), GpuError> {
        if let Some((submission, imported, size)) = self.in_flight.pop_front() {
            let waited = wait_for_submission(self.job.gpu, submission, self.job.mode).await;
            drop(imported);
            waited?;
            self.shared.advance(size);
        }
        Ok(())
    }
}
