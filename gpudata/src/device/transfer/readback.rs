//! Readback: a buffer range copied chunk by chunk into `MAP_READ` staging buffers, mapped and
//! copied into host memory, holding at most the configured budget of staging memory however
//! large the range (and, with every other transfer of the process, at most the largest budget
//! in use: the staging buffers hold permits of the shared budget). Blocking readbacks on
//! several threads run as one pipeline ([`Pipeline`]: the calling thread submits the copies and
//! polls, the process's drain pool copies out); async or one-thread ones keep up to two chunks
//! in flight (one being copied by the GPU while the worker drains the other). Staging buffers
//! come from, and go back to, the ones the budget keeps for the device between readbacks.

use std::collections::VecDeque;

use super::budget::{self, Permit};
use super::config::{Plan, TransferDirection};
use super::host::zeroed_bytes;
use super::pipeline::{Pipeline, drain_pool};
use super::staging::{Staging, range_error};
use super::wait::WaitMode;
use super::workers::{Shared, plan, run_workers};
use crate::device::buffers::{align4, require_usage};
use crate::device::scope::scoped;
use crate::device::{Gpu, GpuError};

/// The operation readbacks name in their errors from wgpu.
const OPERATION: &str = "read back a buffer";

/// Copies `len` bytes of `buffer` from `offset` to the host. Any offset and length inside the
/// buffer work: the copy covers the enclosing 4-byte words and the extra bytes are dropped.
/// `operation` names the caller's operation in [`GpuError::MissingUsage`]. The copies and the
/// mappings run inside error scopes; a lost device gives [`GpuError::DeviceLost`].
pub(crate) async fn read_range(
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
    let source = Source::new(buffer, offset, len)?;
    let size = usize::try_from(len).map_err(|_| source.unaligned())?;
    // Zeroed pages the workers touch first (in parallel), not a host pass of its own.
    let mut out = zeroed_bytes(size);
    #[cfg(feature = "host-dma")]
    if dma_read(gpu, buffer, offset, &mut out, mode).await? {
        return Ok(out);
    }
    read_source(gpu, &source, &mut out, mode).await?;
    Ok(out)
}

/// [`read_range`] into `out` (`out.len()` bytes from `offset`), for callers that own the
/// destination (a slice, an Arrow buffer).
pub(crate) async fn read_into(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    offset: u64,
    out: &mut [u8],
    operation: &'static str,
    mode: WaitMode,
) -> Result<(), GpuError> {
    require_usage(buffer, wgpu::BufferUsages::COPY_SRC, operation)?;
    if out.is_empty() {
        return Ok(());
    }
    let source = Source::new(buffer, offset, out.len() as u64)?;
    #[cfg(feature = "host-dma")]
    if dma_read(gpu, buffer, offset, out, mode).await? {
        return Ok(());
    }
    read_source(gpu, &source, out, mode).await
}

/// Reads `out` by DMA where the handle asks for it and the range qualifies (`out` lies inside
/// the buffer: checked by the caller), the ranges it leaves (a tail shorter than a word, pieces
/// the driver refused) through staging; `false` when the range does not qualify (nothing read).
#[cfg(feature = "host-dma")]
async fn dma_read(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    offset: u64,
    out: &mut [u8],
    mode: WaitMode,
) -> Result<bool, GpuError> {
    let Some(rest) = super::dma::read(gpu, buffer, offset, out, mode).await? else {
        return Ok(false);
    };
    for range in rest {
        let at = offset + range.start as u64;
        let piece = &mut out[range];
        read_source(
            gpu,
            &Source::new(buffer, at, piece.len() as u64)?,
            piece,
            mode,
        )
        .await?;
    }
    Ok(true)
}

/// The bytes wanted (`offset..offset + len`) and the whole words enclosing them
/// (`start..start + size`).
struct Source<'a> {
    buffer: &'a wgpu::Buffer,
    offset: u64,
    len: u64,
    start: u64,
    size: u64,
}

impl<'a> Source<'a> {
    fn new(buffer: &'a wgpu::Buffer, offset: u64, len: u64) -> Result<Source<'a>, GpuError> {
        let mut source = Source {
            buffer,
            offset,
            len,
            start: offset & !3,
            size: 0,
        };
        let aligned_end = offset
            .checked_add(len)
            .and_then(align4)
            .filter(|&e| e <= buffer.size())
            .ok_or_else(|| source.unaligned())?;
        source.size = aligned_end - source.start;
        Ok(source)
    }

    fn unaligned(&self) -> GpuError {
        GpuError::UnalignedCopy {
            byte_offset: self.offset,
            byte_end: self.offset.saturating_add(self.len),
            buffer_size: self.buffer.size(),
        }
    }
}

async fn read_source(
    gpu: &Gpu,
    source: &Source<'_>,
    out: &mut [u8],
    mode: WaitMode,
) -> Result<(), GpuError> {
    if source.len == 0 {
        return Ok(());
    }
    gpu.check_lost(OPERATION)?;
    let plan = plan(gpu, mode, source.size, 4);
    // The destination cut at chunk boundaries (the first chunk also holds the bytes before
    // `offset` in its first word).
    let mut pieces: Vec<&mut [u8]> = Vec::with_capacity(plan.chunks as usize);
    let mut rest = out;
    let skip = source.offset - source.start;
    for k in 0..plan.chunks {
        let chunk_end = ((k + 1) * plan.chunk).min(source.size);
        let take =
            usize::try_from(chunk_end.saturating_sub(skip) - (k * plan.chunk).saturating_sub(skip))
                .unwrap_or(usize::MAX)
                .min(rest.len());
        let (piece, tail) = rest.split_at_mut(take);
        pieces.push(piece);
        rest = tail;
    }
    let shared = Shared::new(
        TransferDirection::Readback,
        source.len,
        gpu.transfer_config().progress(),
    );
    if mode == WaitMode::Block && plan.workers > 1 {
        return read_pipelined(gpu, source, plan, pieces, &shared).await;
    }
    read_on_workers(gpu, source, plan, pieces, &shared, mode).await
}

/// A readback on the plan's workers (inline when awaited), each copying its chunks (dealt
/// round-robin) through staging buffers of its own.
async fn read_on_workers(
    gpu: &Gpu,
    source: &Source<'_>,
    plan: Plan,
    pieces: Vec<&mut [u8]>,
    shared: &Shared<'_>,
    mode: WaitMode,
) -> Result<(), GpuError> {
    let mut dealt: Vec<Vec<(u64, &mut [u8])>> = (0..plan.workers).map(|_| Vec::new()).collect();
    for (k, piece) in pieces.into_iter().enumerate() {
        dealt[k % plan.workers].push((k as u64, piece));
    }
    let job = ReadJob {
        gpu,
        source,
        plan,
        shared,
        mode,
    };
    let dealt: Vec<_> = dealt.into_iter().map(std::sync::Mutex::new).collect();
    run_workers(plan.workers, mode, shared, |w| {
        let mine = std::mem::take(
            &mut *dealt[w]
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        job.run(mine)
    })
    .await
}

/// A blocking readback on several threads: the staging ring the budget grants (two chunks per
/// worker at most, one at least; buffers kept from earlier readbacks on this device first),
/// then [`Pipeline::run`] on the process's drain pool for the configured threads. The ring is
/// kept for the next readback when this one succeeds. Without a drain pool (no threads on this
/// platform) the readback runs on the calling thread's worker loop instead.
async fn read_pipelined(
    gpu: &Gpu,
    source: &Source<'_>,
    plan: Plan,
    pieces: Vec<&mut [u8]>,
    shared: &Shared<'_>,
) -> Result<(), GpuError> {
    let drainers = gpu.transfer_config().drain_threads_for(gpu.adapter_kind());
    let Some(pool) = drain_pool(drainers) else {
        return read_on_workers(gpu, source, plan, pieces, shared, WaitMode::Block).await;
    };
    let limit = gpu.transfer_config().budget();
    let size = plan.chunk.min(source.size);
    let wanted = (plan.chunks as usize).min(plan.workers * plan.depth).max(1);
    let mut ring = Vec::with_capacity(wanted);
    ring.push(budget::acquire_staging(gpu, size, limit, WaitMode::Block).await?);
    while ring.len() < wanted {
        match budget::try_acquire_staging(gpu, size, limit).await {
            Some(more) => ring.push(more?),
            None => break,
        }
    }
    let (staging, permits): (Vec<wgpu::Buffer>, Vec<Permit>) = ring.into_iter().unzip();
    let pipeline = Pipeline {
        gpu,
        buffer: source.buffer,
        start: source.start,
        size: source.size,
        skip: (source.offset - source.start) as usize,
        chunk: plan.chunk,
        shared,
    };
    let result = pipeline.run(&pool, &staging, pieces);
    if result.is_ok() {
        // Every buffer came back drained and unmapped.
        for (buffer, permit) in staging.into_iter().zip(permits) {
            budget::keep_staging(gpu, buffer, permit);
        }
    }
    result
}

/// One chunked readback, shared by its workers.
struct ReadJob<'a> {
    gpu: &'a Gpu,
    source: &'a Source<'a>,
    plan: Plan,
    shared: &'a Shared<'a>,
    mode: WaitMode,
}

impl ReadJob<'_> {
    /// One worker: its chunks, each copied into a staging buffer and drained into its piece of
    /// the destination, with up to `depth` chunks in flight (fewer when the process's staging
    /// budget has no bytes to spare).
    async fn run(&self, pieces: Vec<(u64, &mut [u8])>) -> Result<(), GpuError> {
        let Plan { chunk, depth, .. } = self.plan;
        let gpu = self.gpu;
        let limit = gpu.transfer_config().budget();
        let buffer_size = chunk.min(self.source.size);
        let mut spare: Vec<(wgpu::Buffer, Permit)> = Vec::new();
        let mut in_flight: VecDeque<(Staging, Permit, u64, &mut [u8])> = VecDeque::new();
        for (k, piece) in pieces {
            if self.shared.failed() {
                return Ok(());
            }
            if in_flight.len() == depth
                && let Some((staging, permit, k, piece)) = in_flight.pop_front()
            {
                spare.push((self.drain(staging, k, piece).await?, permit));
            }
            let at = k * chunk;
            let size = chunk.min(self.source.size - at);
            let (staging, permit) = match spare.pop() {
                Some(spare) => spare,
                None => {
                    // Holding no buffer in flight, wait for one; holding some, only try, and
                    // drain the oldest for its buffer when the budget has none to spare.
                    let got = if in_flight.is_empty() {
                        Some(budget::acquire_staging(gpu, buffer_size, limit, self.mode).await)
                    } else {
                        budget::try_acquire_staging(gpu, buffer_size, limit).await
                    };
                    match got {
                        Some(got) => got?,
                        None => {
                            // Not empty: a worker without buffers in flight waited above.
                            let (staging, permit, k, piece) =
                                in_flight.pop_front().ok_or_else(|| GpuError::Map {
                                    reason: "a readback worker holds no staging buffer".into(),
                                })?;
                            (self.drain(staging, k, piece).await?, permit)
                        }
                    }
                }
            };
            let (staging, caught) = scoped(gpu, OPERATION, Some(size), || {
                let mut encoder =
                    gpu.device()
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                            label: Some("gpudata readback"),
                        });
                encoder.copy_buffer_to_buffer(
                    self.source.buffer,
                    self.source.start + at,
                    &staging,
                    0,
                    Some(size),
                );
                let submission = gpu.queue().submit([encoder.finish()]);
                // Inside the scopes too: a lost device refuses the mapping.
                Staging::map_after(staging, wgpu::MapMode::Read, size, submission)
            });
            caught.check(gpu).await?;
            in_flight.push_back((staging, permit, k, piece));
        }
        while let Some((staging, permit, k, piece)) = in_flight.pop_front() {
            spare.push((self.drain(staging, k, piece).await?, permit));
        }
        // Drained and unmapped: kept for the next readback on this device.
        for (buffer, permit) in spare {
            budget::keep_staging(gpu, buffer, permit);
        }
        Ok(())
    }

    /// Waits for chunk `k`'s mapping, copies its bytes into `piece` and unmaps the buffer.
    async fn drain(
        &self,
        staging: Staging,
        k: u64,
        piece: &mut [u8],
    ) -> Result<wgpu::Buffer, GpuError> {
        let buffer = staging.mapped(self.gpu, self.mode, OPERATION).await?;
        let at = k * self.plan.chunk;
        let size = self.plan.chunk.min(self.source.size - at);
        {
            let view = buffer.get_mapped_range(..size).map_err(range_error)?;
            // Chunk 0 starts at the word holding `offset`.
            let skip = if k == 0 {
                (self.source.offset - self.source.start) as usize
            } else {
                0
            };
            piece.copy_from_slice(&view[skip..skip + piece.len()]);
        }
        buffer.unmap();
        self.shared.advance(piece.len() as u64);
        Ok(buffer)
    }
}
