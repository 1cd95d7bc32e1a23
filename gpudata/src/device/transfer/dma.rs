//! Transfers by host DMA (feature `host-dma`): the caller's pages imported piece by piece
//! (`device/host_dma`) and copied straight into or out of the device buffer with
//! `copy_buffer_to_buffer`, with up to [`DEPTH`] pieces in flight so importing one piece (the
//! driver pins its pages) overlaps the copy of the ones before. Each call returns the bytes it
//! moved from the start of the range, which the caller's staged path completes: 0 when the
//! range does not qualify or the driver refuses its first piece.

use std::collections::VecDeque;

use super::config::TransferDirection;
use super::wait::{WaitMode, wait_for_submission};
use super::workers::Shared;
use crate::device::host_dma::{DmaDevice, Imported};
use crate::device::scope::scoped;
use crate::device::{Gpu, GpuError};

/// Pieces a transfer keeps in flight (imported and submitted, not yet released).
const DEPTH: usize = 3;

/// The bytes one piece covers unless the configuration sets a chunk size.
const PIECE_BYTES: u64 = 64 << 20;

/// The operation host-DMA transfers name in their errors.
const OPERATION: &str = "copy host memory by dma";

/// Uploads the leading whole words of `bytes` into `buffer` at `offset` by DMA when the handle's
/// configuration, the device and the range allow; returns the bytes written (a multiple of 4,
/// possibly 0), once the GPU has finished reading them.
pub(crate) async fn write(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    offset: u64,
    bytes: &[u8],
    mode: WaitMode,
) -> Result<u64, GpuError> {
    let Some((dma, len)) = qualifies(gpu, offset, bytes.as_ptr(), bytes.len()) else {
        return Ok(0);
    };
    // SAFETY: `bytes` is borrowed for this whole call, and `run` drops every import (each
    // drop waiting for wgpu to free it) before it returns; the copies only read it.
    unsafe {
        run(
            gpu,
            dma,
            buffer,
            offset,
            bytes.as_ptr() as usize,
            len,
            TransferDirection::Upload,
            mode,
        )
    }
    .await
}

/// Reads `out.len()` bytes of `buffer` from `offset` into the leading whole words of `out` by DMA
/// when the handle's configuration, the device and the range allow; returns the bytes read (a
/// multiple of 4, possibly 0), once they are in `out`.
pub(crate) async fn read(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    offset: u64,
    out: &mut [u8],
    mode: WaitMode,
) -> Result<u64, GpuError> {
    let Some((dma, len)) = qualifies(gpu, offset, out.as_ptr(), out.len()) else {
        return Ok(0);
    };
    // SAFETY: `out` is borrowed mutably for this whole call (nothing else reads or writes
    // it), and `run` drops every import (each drop waiting for wgpu to free it) before it
    // returns.
    unsafe {
        run(
            gpu,
            dma,
            buffer,
            offset,
            out.as_mut_ptr() as usize,
            len,
            TransferDirection::Readback,
            mode,
        )
    }
    .await
}

/// The device's import functions and the bytes to move by DMA (the range's whole words), when
/// host DMA is on for this handle, the device has it, and the range qualifies: at least the
/// configured minimum, its first byte and the buffer offset 4-byte aligned.
fn qualifies(gpu: &Gpu, offset: u64, ptr: *const u8, len: usize) -> Option<(&DmaDevice, u64)> {
    let threshold = gpu.transfer_config().host_dma_threshold()?;
    let words = (len as u64) & !3;
    if words == 0
        || (len as u64) < threshold
        || !offset.is_multiple_of(4)
        || !(ptr as usize).is_multiple_of(4)
    {
        return None;
    }
    let dma = gpu.dma_device().ok()?;
    Some((dma, words))
}

/// Moves `len` bytes (a multiple of 4) between host memory at address `host` (an address, not
/// a pointer, so the future stays `Send`) and `buffer` at `offset`
/// in pieces cut at the import alignment, [`DEPTH`] in flight; returns the bytes moved (fewer
/// than `len` when the driver refuses a piece: the pieces before it are done).
///
/// # Safety
/// `host..host + len` stays valid until this returns (for a readback also writable and touched
/// by nobody else meanwhile). Every [`Imported`] made here is dropped before it returns, on
/// success, error or cancellation alike, and each drop waits until wgpu has freed it.
#[allow(clippy::too_many_arguments)]
async unsafe fn run(
    gpu: &Gpu,
    dma: &DmaDevice,
    buffer: &wgpu::Buffer,
    offset: u64,
    host: usize,
    len: u64,
    direction: TransferDirection,
    mode: WaitMode,
) -> Result<u64, GpuError> {
    let inside = offset.checked_add(len).is_some_and(|e| e <= buffer.size());
    if !inside {
        // The staged path reports the range.
        return Ok(0);
    }
    gpu.check_reported_lost(OPERATION)?;
    let piece = gpu
        .transfer_config()
        .host_dma_piece()
        .unwrap_or(PIECE_BYTES);
    let address = host as u64;
    let shared = Shared::new(direction, len, gpu.transfer_config().progress());
    let mut in_flight: VecDeque<(wgpu::SubmissionIndex, Imported, u64)> = VecDeque::new();
    let mut at = 0u64;
    let mut counted = false;
    while at < len {
        // Piece ends on an import-alignment boundary of the host address (so two pieces never
        // import the same page), a multiple of 4 bytes from the start.
        let end = address
            .saturating_add(at)
            .saturating_add(piece)
            .checked_next_multiple_of(dma.alignment())
            .map_or(len, |e| (e - address).min(len));
        let size = end - at;
        // SAFETY: inside the caller's range (`at + size <= len`), which stays valid until this
        // function returns; the import is dropped before then (the queue below, or the end).
        let Some(imported) =
            (unsafe { dma.import(gpu.device(), (host + at as usize) as *const u8, size) })
        else {
            break;
        };
        let (submission, caught) = scoped(gpu, OPERATION, Some(size), || {
            let mut encoder =
                gpu.device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("gpudata host dma"),
                    });
            match direction {
                TransferDirection::Upload => encoder.copy_buffer_to_buffer(
                    imported.buffer(),
                    imported.offset(),
                    buffer,
                    offset + at,
                    Some(size),
                ),
                TransferDirection::Readback => encoder.copy_buffer_to_buffer(
                    buffer,
                    offset + at,
                    imported.buffer(),
                    imported.offset(),
                    Some(size),
                ),
            }
            let copy = encoder.finish();
            match direction {
                TransferDirection::Upload => gpu.queue().submit([copy]),
                TransferDirection::Readback => gpu
                    .queue()
                    .submit([copy, dma.host_read_barrier(gpu.device())]),
            }
        });
        in_flight.push_back((submission, imported, size));
        caught.check(gpu).await?;
        if !counted {
            gpu.count_dma_transfer();
            counted = true;
        }
        at = end;
        while in_flight.len() > DEPTH {
            release_oldest(gpu, &mut in_flight, &shared, mode).await?;
        }
    }
    while !in_flight.is_empty() {
        release_oldest(gpu, &mut in_flight, &shared, mode).await?;
    }
    Ok(at)
}

/// Waits for the oldest piece's copy, then drops its import (which returns once wgpu has freed
/// it) and counts its bytes.
async fn release_oldest(
    gpu: &Gpu,
    in_flight: &mut VecDeque<(wgpu::SubmissionIndex, Imported, u64)>,
    shared: &Shared<'_>,
    mode: WaitMode,
) -> Result<(), GpuError> {
    if let Some((submission, imported, size)) = in_flight.pop_front() {
        let waited = wait_for_submission(gpu, submission, mode).await;
        drop(imported);
        waited?;
        shared.advance(size);
    }
    Ok(())
}
