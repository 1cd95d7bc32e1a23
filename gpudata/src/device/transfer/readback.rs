//! Readback: a buffer range copied into a `MAP_READ` staging buffer, mapped and copied into a
//! `Vec`.

use super::wait::{Slot, WaitMode, wait_for_callback};
use crate::device::buffers::{align4, create_buffer_async, require_usage};
use crate::device::scope::scoped;
use crate::device::{Gpu, GpuError};

/// The operation readbacks name in their errors from wgpu.
const OPERATION: &str = "read back a buffer";

/// Copies `len` bytes of `buffer` from `offset` to the host. Any offset and length inside the
/// buffer work: the copy covers the enclosing 4-byte words and the extra bytes are dropped.
/// `operation` names the caller's operation in [`GpuError::MissingUsage`]. The copy and the
/// mapping run inside error scopes; a lost device gives [`GpuError::DeviceLost`].
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
    gpu.check_lost(OPERATION)?;
    let staging = create_buffer_async(
        gpu,
        size,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        "gpudata readback",
    )
    .await?;
    let slot = Slot::new();
    let filler = slot.clone();
    let (submission, caught) = scoped(gpu, OPERATION, Some(size), || {
        let mut encoder = gpu
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("gpudata readback"),
            });
        encoder.copy_buffer_to_buffer(buffer, start, &staging, 0, Some(size));
        let submission = gpu.queue().submit([encoder.finish()]);
        staging.map_async(wgpu::MapMode::Read, ..size, move |result| {
            filler.fill(result);
        });
        submission
    });
    if let Err(error) = caught.check(gpu).await {
        staging.destroy();
        return Err(error);
    }
    let mapped = wait_for_callback(gpu, slot, submission, mode).await;
    if mapped.is_err() || matches!(mapped, Ok(Err(_))) {
        // A lost device fails the wait or the mapping without a word from wgpu.
        gpu.confirm_lost(OPERATION)?;
    }
    mapped?.map_err(|e| GpuError::Map {
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
