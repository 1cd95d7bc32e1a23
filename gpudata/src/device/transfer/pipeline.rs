//! Readbacks on several threads as one pipeline: the calling thread alone submits the chunks'
//! copies into a ring of `MAP_READ` staging buffers (a few copies per submission, as buffers
//! come free) and polls the device; drain threads copy each chunk whose mapping has fired into
//! its piece of host memory, unmap the buffer and hand it back to the ring.
//!
//! Why one submitter: with every worker submitting its own copy and blocking in
//! `device.poll(Wait)` for it, the workers queued on wgpu's device locks and a readback
//! stayed at 25–35 GB/s on the H200, while the copy out of mapped memory alone reaches
//! 61–64 GB/s on 16 threads and the DMA into staging 50.5–51.5 GB/s (BENCHMARKS.md). Here the
//! drainers never touch the queue or poll: they only read mapped memory.

use std::collections::VecDeque;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use super::staging::range_error;
use super::workers::Shared;
use crate::device::scope::scoped;
use crate::device::{Gpu, GpuError};

/// The operation readbacks name in their errors from wgpu.
const OPERATION: &str = "read back a buffer";

/// The most bytes of copies one submission carries (at least one chunk). On the H200, one
/// submission of the whole ring (64 MiB) left the DMA idle while the drainers emptied it and
/// the drainers idle while it refilled: 24 GB/s for 256 MiB readbacks, 36–40 for 1–4 GiB.
const SUBMIT_BYTES: u64 = 4 << 20;

/// How long the submitter waits for a drained buffer between checks that the device lives.
const RETURN_WAIT: Duration = Duration::from_millis(2);

/// What the drain threads receive: a chunk whose mapping has fired, or the order to stop.
enum Drain {
    Chunk {
        slot: usize,
        k: u64,
        mapped: Result<(), wgpu::BufferAsyncError>,
    },
    Stop,
}

/// One pipelined readback of `size` bytes of `buffer` from `start` (a multiple of 4): chunk `k`
/// covers `k * chunk..`, and its bytes from `skip` on (chunk 0; 0 for the others) go into
/// `pieces[k]`.
pub(super) struct Pipeline<'a> {
    pub(super) gpu: &'a Gpu,
    pub(super) buffer: &'a wgpu::Buffer,
    pub(super) start: u64,
    pub(super) size: u64,
    pub(super) skip: usize,
    pub(super) chunk: u64,
    pub(super) shared: &'a Shared<'a>,
}

impl Pipeline<'_> {
    /// Runs the readback with `staging` buffers (each `chunk` bytes, or the whole range when
    /// smaller) and `drainers` drain threads.
    pub(super) fn run(
        &self,
        staging: &[wgpu::Buffer],
        drainers: usize,
        pieces: Vec<&mut [u8]>,
    ) -> Result<(), GpuError> {
        let chunks = pieces.len() as u64;
        let pieces: Vec<Mutex<Option<&mut [u8]>>> =
            pieces.into_iter().map(|p| Mutex::new(Some(p))).collect();
        let (to_drain, drain_rx) = mpsc::channel::<Drain>();
        let drain_rx = Mutex::new(drain_rx);
        let (to_ring, ring_rx) = mpsc::channel::<(usize, Result<(), GpuError>)>();
        std::thread::scope(|scope| {
            for _ in 0..drainers.max(1) {
                let to_ring = to_ring.clone();
                let (drain_rx, pieces) = (&drain_rx, &pieces);
                scope.spawn(move || self.drain(staging, drain_rx, pieces, &to_ring));
            }
            let result = self.submit(staging, chunks, &to_drain, &ring_rx);
            for _ in 0..drainers.max(1) {
                // The drainers stop after the chunks sent before; a late mapping (after a
                // failure) goes to a channel no one reads.
                let _ = to_drain.send(Drain::Stop);
            }
            result
        })
    }

    /// The submitter: copies chunks into free staging buffers, asks for their mappings, polls
    /// the device, and takes drained buffers back, until every chunk is drained or one fails.
    fn submit(
        &self,
        staging: &[wgpu::Buffer],
        chunks: u64,
        to_drain: &mpsc::Sender<Drain>,
        ring_rx: &mpsc::Receiver<(usize, Result<(), GpuError>)>,
    ) -> Result<(), GpuError> {
        let gpu = self.gpu;
        let mut free: Vec<usize> = (0..staging.len()).rev().collect();
        let mut submitted: VecDeque<wgpu::SubmissionIndex> = VecDeque::new();
        let mut next = 0u64;
        let mut outstanding = 0usize;
        let mut failure: Option<GpuError> = None;
        let take_back = |slot: usize,
                         result: Result<(), GpuError>,
                         free: &mut Vec<usize>,
                         failure: &mut Option<GpuError>| {
            free.push(slot);
            if let Err(error) = result {
                self.shared.fail();
                failure.get_or_insert(error);
            }
        };
        loop {
            while let Ok((slot, result)) = ring_rx.try_recv() {
                outstanding -= 1;
                take_back(slot, result, &mut free, &mut failure);
            }
            let stopping = self.shared.failed();
            if !stopping && next < chunks && !free.is_empty() {
                // Small submissions: the wait below returns as soon as the oldest few copies are
                // done, so drained buffers go back to the GPU while the later copies still run.
                let group = (SUBMIT_BYTES / self.chunk).clamp(1, chunks - next) as usize;
                let batch: Vec<(usize, u64, u64)> = free
                    .drain(free.len().saturating_sub(group)..)
                    .rev()
                    .zip(next..)
                    .map(|(slot, k)| (slot, k, self.chunk.min(self.size - k * self.chunk)))
                    .collect();
                next += batch.len() as u64;
                outstanding += batch.len();
                let bytes = batch.iter().map(|b| b.2).sum();
                let (submission, caught) = scoped(gpu, OPERATION, Some(bytes), || {
                    let mut encoder =
                        gpu.device()
                            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                                label: Some("gpudata readback"),
                            });
                    for &(slot, k, size) in &batch {
                        encoder.copy_buffer_to_buffer(
                            self.buffer,
                            self.start + k * self.chunk,
                            &staging[slot],
                            0,
                            Some(size),
                        );
                    }
                    let submission = gpu.queue().submit([encoder.finish()]);
                    // Inside the scopes too: a lost device refuses the mappings.
                    for &(slot, k, size) in &batch {
                        let tx = to_drain.clone();
                        staging[slot].map_async(wgpu::MapMode::Read, ..size, move |mapped| {
                            let _ = tx.send(Drain::Chunk { slot, k, mapped });
                        });
                    }
                    submission
                });
                if let Err(error) = pollster::block_on(caught.check(gpu)) {
                    // The mappings asked for may never fire: stop without waiting for them.
                    self.shared.fail();
                    return Err(error);
                }
                submitted.push_back(submission);
                continue;
            }
            if outstanding == 0 {
                return failure.map_or(Ok(()), Err);
            }
            if let Some(oldest) = submitted.pop_front() {
                // Fires the mappings of every finished copy; the drainers take over from there.
                if let Err(e) = gpu.device().poll(wgpu::PollType::Wait {
                    submission_index: Some(oldest),
                    timeout: None,
                }) {
                    self.shared.fail();
                    gpu.confirm_lost(OPERATION)?;
                    return Err(GpuError::Poll {
                        reason: e.to_string(),
                    });
                }
                continue;
            }
            // Every copy has finished: wait for a drainer (another thread polling the device may
            // hold a mapping callback a moment longer, so never conclude it will not come).
            match ring_rx.recv_timeout(RETURN_WAIT) {
                Ok((slot, result)) => {
                    outstanding -= 1;
                    take_back(slot, result, &mut free, &mut failure);
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(error) = gpu.check_lost(OPERATION) {
                        self.shared.fail();
                        return Err(error);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(failure.unwrap_or(GpuError::Map {
                        reason: "the readback's drain threads stopped".to_owned(),
                    }));
                }
            }
        }
    }

    /// A drain thread: copies each mapped chunk it receives into its piece and hands the buffer
    /// back (with the error, when the mapping failed), until told to stop.
    fn drain(
        &self,
        staging: &[wgpu::Buffer],
        drain_rx: &Mutex<mpsc::Receiver<Drain>>,
        pieces: &[Mutex<Option<&mut [u8]>>],
        to_ring: &mpsc::Sender<(usize, Result<(), GpuError>)>,
    ) {
        loop {
            let message = drain_rx
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .recv();
            let Ok(Drain::Chunk { slot, k, mapped }) = message else {
                return;
            };
            let result = self.copy_out(&staging[slot], k, mapped, pieces);
            if to_ring.send((slot, result)).is_err() {
                return;
            }
        }
    }

    /// Copies chunk `k` out of its mapped `buffer` into its piece and unmaps the buffer.
    fn copy_out(
        &self,
        buffer: &wgpu::Buffer,
        k: u64,
        mapped: Result<(), wgpu::BufferAsyncError>,
        pieces: &[Mutex<Option<&mut [u8]>>],
    ) -> Result<(), GpuError> {
        if let Err(e) = mapped {
            // A lost device fails the mapping without a word from wgpu.
            self.gpu.confirm_lost(OPERATION)?;
            return Err(GpuError::Map {
                reason: e.to_string(),
            });
        }
        let size = self.chunk.min(self.size - k * self.chunk);
        let piece = pieces
            .get(k as usize)
            .and_then(|p| p.lock().unwrap_or_else(PoisonError::into_inner).take());
        let copied = match piece {
            Some(piece) => {
                let skip = if k == 0 { self.skip } else { 0 };
                buffer
                    .get_mapped_range(..size)
                    .map(|view| {
                        piece.copy_from_slice(&view[skip..skip + piece.len()]);
                        piece.len() as u64
                    })
                    .map_err(range_error)
            }
            None => Ok(0),
        };
        buffer.unmap();
        self.shared.advance(copied?);
        Ok(())
    }
}
