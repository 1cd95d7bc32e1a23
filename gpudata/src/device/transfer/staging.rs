//! Staging buffers of chunked readbacks: `MAP_READ` buffers a worker drains while the GPU copies
//! into others, with the mapping each waits for before it is read.

use super::wait::{Slot, WaitMode, wait_for_callback};
use crate::device::{Gpu, GpuError};

/// What a mapping callback reports.
type MapResult = Result<(), wgpu::BufferAsyncError>;

/// A staging buffer and the mapping requested after its last copy, if any.
pub(super) struct Staging {
    pub(super) buffer: wgpu::Buffer,
    pending: Option<(Slot<MapResult>, wgpu::SubmissionIndex)>,
}

impl Staging {
    /// Asks for `buffer` to be mapped in `mode` once `submission` (its copy) has finished.
    pub(super) fn map_after(
        buffer: wgpu::Buffer,
        mode: wgpu::MapMode,
        size: u64,
        submission: wgpu::SubmissionIndex,
    ) -> Staging {
        let slot = Slot::new();
        let filler = slot.clone();
        buffer.map_async(mode, ..size, move |result| filler.fill(result));
        Staging {
            buffer,
            pending: Some((slot, submission)),
        }
    }

    /// Waits for the mapping asked for, if any; a failed mapping on a lost device gives
    /// [`GpuError::DeviceLost`], other failures [`GpuError::Map`].
    pub(super) async fn mapped(
        self,
        gpu: &Gpu,
        mode: WaitMode,
        operation: &'static str,
    ) -> Result<wgpu::Buffer, GpuError> {
        let Some((slot, submission)) = self.pending else {
            return Ok(self.buffer);
        };
        let mapped = wait_for_callback(gpu, slot, submission, mode).await;
        if mapped.is_err() || matches!(mapped, Ok(Err(_))) {
            // A lost device fails the wait or the mapping without a word from wgpu.
            gpu.confirm_lost(operation)?;
        }
        mapped?.map_err(|e| GpuError::Map {
            reason: e.to_string(),
        })?;
        Ok(self.buffer)
    }
}

/// The [`GpuError::Map`] for a mapped range wgpu refused to hand out.
pub(super) fn range_error(error: impl std::fmt::Display) -> GpuError {
    GpuError::Map {
        reason: error.to_string(),
    }
}
