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
use std::sync::{Arc, Mutex, PoisonError};
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

/// The most bytes one drain task copies: a mapped chunk is copied in parts that end where the
/// destination's address crosses a multiple of 2 MiB, on several of the pool's threads. So the
/// last chunks of a readback (whose copies finish after the DMA has) drain on several threads
/// rather than on one (one thread copies 4 MiB out of mapped memory in about 0.4 ms on the
/// H200), and each transparent huge page of a fresh destination is faulted in (zeroed by the
/// kernel) and filled by one thread instead of being waited for by several. Measured on the
/// H200 against 1 MiB and 512 KiB parts cut without regard to the address (BENCHMARKS.md,
/// session 5): into a new vector 21.6 / 26.8 GB/s at 256 MiB / 1 GiB against 17.9 / 21.6 and
/// 17.2 / 18.3; into the caller's memory 39.1 / 42.9 against 40.6 / 39.7 and 41.4 / 43.9.
const DRAIN_PART_BYTES: usize = 2 << 20;

/// How long the submitter waits for a drain or a mapping between checks that the device lives.
const RETURN_WAIT: Duration = Duration::from_millis(2);

/// The largest drain pool: more threads than the host has (or than 8, on small hosts) would
/// only wait for each other.
fn max_pool_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .max(8)
}

/// The process's drain pool of `threads` threads (clamped to the host), started on first use
/// and kept for the process, so readbacks start no threads of their own (their threads sleep
/// between readbacks). One pool per thread count asked for; `None` when threads cannot be
/// started.
pub(super) fn drain_pool(threads: usize) -> Option<Arc<rayon_core::ThreadPool>> {
    static POOLS: Mutex<Vec<(usize, Arc<rayon_core::ThreadPool>)>> = Mutex::new(Vec::new());
    let threads = threads.clamp(1, max_pool_threads());
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, pool)) = pools.iter().find(|(n, _)| *n == threads) {
        return Some(Arc::clone(pool));
    }
    let pool = rayon_core::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("gpudata-drain-{i}"))
        .build()
        .ok()?;
    let pool = Arc::new(pool);
    pools.push((threads, Arc::clone(&pool)));
    Some(pool)
}

/// What the submitter hears: a chunk whose mapping has fired (from wgpu's callback), or a
/// buffer a drain task has emptied and unmapped (with the error, when draining failed).
enum Event {
    Mapped {
        slot: usize,
        k: u64,
        mapped: Result<(), wgpu::BufferAsyncError>,
    },
    Drained {
        slot: usize,
        result: Result<(), GpuError>,
    },
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
    /// smaller), draining on `pool`'s threads; the calling thread submits and polls.
    pub(super) fn run(
        &self,
        pool: &rayon_core::ThreadPool,
        staging: &[wgpu::Buffer],
        pieces: Vec<&mut [u8]>,
    ) -> Result<(), GpuError> {
        let chunks = pieces.len() as u64;
        let pieces: Vec<Mutex<Option<&mut [u8]>>> =
            pieces.into_iter().map(|p| Mutex::new(Some(p))).collect();
        let (events, events_rx) = mpsc::channel::<Event>();
        // Every drain task spawned here has finished when this returns (the scope waits), so
        // no task outlives the pieces or the staging buffers it borrows.
        pool.in_place_scope_fifo(|scope| {
            let drain = |slot: usize, k: u64, mapped| {
                let events = events.clone();
                let pieces = &pieces;
                scope.spawn_fifo(move |_| {
                    let result = self.copy_out(&staging[slot], k, mapped, pieces);
                    let _ = events.send(Event::Drained { slot, result });
                });
            };
            self.submit(staging, chunks, &events, &events_rx, drain)
        })
    }

    /// The submitter: copies chunks into free staging buffers, asks for their mappings, polls
    /// the device, hands mapped chunks to `drain` and takes drained buffers back, until every
    /// chunk is drained or one fails.
    fn submit(
        &self,
        staging: &[wgpu::Buffer],
        chunks: u64,
        events: &mpsc::Sender<Event>,
        events_rx: &mpsc::Receiver<Event>,
        drain: impl Fn(usize, u64, Result<(), wgpu::BufferAsyncError>),
    ) -> Result<(), GpuError> {
        let gpu = self.gpu;
        let mut free: Vec<usize> = (0..staging.len()).rev().collect();
        let mut submitted: VecDeque<wgpu::SubmissionIndex> = VecDeque::new();
        let mut next = 0u64;
        let mut outstanding = 0usize;
        let mut failure: Option<GpuError> = None;
        let mut hear = |event: Event, free: &mut Vec<usize>, outstanding: &mut usize| match event {
            Event::Mapped { slot, k, mapped } => drain(slot, k, mapped),
            Event::Drained { slot, result } => {
                *outstanding -= 1;
                free.push(slot);
                if let Err(error) = result {
                    self.shared.fail();
                    failure.get_or_insert(error);
                }
            }
        };
        loop {
            while let Ok(event) = events_rx.try_recv() {
                hear(event, &mut free, &mut outstanding);
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
                        let events = events.clone();
                        staging[slot].map_async(wgpu::MapMode::Read, ..size, move |mapped| {
                            let _ = events.send(Event::Mapped { slot, k, mapped });
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
                // Fires the mappings of every finished copy; they come back as events.
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
            // Every copy has finished: wait for the drains and the last mappings (another
            // thread polling the device may hold a mapping callback a moment longer, so never
            // conclude it will not come).
            match events_rx.recv_timeout(RETURN_WAIT) {
                Ok(event) => hear(event, &mut free, &mut outstanding),
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(error) = gpu.check_lost(OPERATION) {
                        self.shared.fail();
                        return Err(error);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(failure.unwrap_or(GpuError::Map {
                        reason: "the readback's events stopped".to_owned(),
                    }));
                }
            }
        }
    }

    /// A drain task: copies chunk `k` out of its mapped `buffer` into its piece (in parts on
    /// several of the pool's threads) and unmaps the buffer.
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
                        copy_in_parts(piece, &view[skip..skip + piece.len()]);
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

/// Copies `src` into `dst` (of the same length) in parts of at most [`DRAIN_PART_BYTES`],
/// cut at the destination's multiples of it, spread over the current pool's threads.
fn copy_in_parts(dst: &mut [u8], src: &[u8]) {
    // Up to the destination's next multiple of the part size (a whole part when it starts on one).
    let first = DRAIN_PART_BYTES - dst.as_ptr() as usize % DRAIN_PART_BYTES;
    if dst.len() <= first {
        dst.copy_from_slice(src);
        return;
    }
    let (head, rest) = dst.split_at_mut(first);
    let (head_src, rest_src) = src.split_at(first);
    rayon_core::scope(|scope| {
        for (d, s) in rest
            .chunks_mut(DRAIN_PART_BYTES)
            .zip(rest_src.chunks(DRAIN_PART_BYTES))
        {
            scope.spawn(move |_| d.copy_from_slice(s));
        }
        // This thread copies the first part itself; the others go to idle threads.
        head.copy_from_slice(head_src);
    });
}

#[cfg(test)]
mod tests {
    use super::{DRAIN_PART_BYTES, copy_in_parts};

    /// Every byte lands, for destinations starting on, just before and just after a 2 MiB
    /// boundary and lengths around whole parts.
    #[test]
    fn copies_in_parts_cut_at_the_destination_s_boundaries() {
        const P: usize = DRAIN_PART_BYTES;
        let src: Vec<u8> = (0..4 * P + 64).map(|i| (i * 31 + 7) as u8).collect();
        let mut dst = vec![0u8; 6 * P];
        let base = dst.as_ptr() as usize;
        let boundary = base.next_multiple_of(P) - base;
        for start in [boundary, boundary + 1, boundary + P - 1] {
            for len in [1, 3, P - 1, P, P + 1, 2 * P + 5, 4 * P + 64] {
                let target = &mut dst[start..start + len];
                target.fill(0);
                copy_in_parts(target, &src[..len]);
                assert!(
                    target == &src[..len],
                    "{len} bytes at {} past a boundary differ",
                    start - boundary
                );
            }
        }
    }
}
