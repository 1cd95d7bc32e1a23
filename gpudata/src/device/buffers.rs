//! Buffer creation with checked sizes, and the usage rules operations check before they touch a
//! buffer.

use crate::device::{Gpu, GpuError};

/// `value` rounded up to a multiple of 4, or `None` when that overflows.
pub(crate) const fn align4(value: u64) -> Option<u64> {
    match value.checked_add(3) {
        Some(v) => Some(v & !3),
        None => None,
    }
}

/// A buffer of at least `size` bytes (rounded up to 4, at least 4), of exactly `usage` (callers
/// that write it add `COPY_DST`).
pub(crate) fn create_buffer(
    gpu: &Gpu,
    size: u64,
    usage: wgpu::BufferUsages,
    label: &str,
) -> Result<wgpu::Buffer, GpuError> {
    let max = gpu.limits().max_buffer_size;
    let allocated = align4(size.max(4)).ok_or(GpuError::BufferTooLarge { size, max })?;
    if allocated > max {
        return Err(GpuError::BufferTooLarge {
            size: allocated,
            max,
        });
    }
    Ok(gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: allocated,
        usage,
        mapped_at_creation: false,
    }))
}

/// `Ok` when `buffer` has every flag of `required`, else [`GpuError::MissingUsage`] naming
/// `operation`.
pub(crate) fn require_usage(
    buffer: &wgpu::Buffer,
    required: wgpu::BufferUsages,
    operation: &'static str,
) -> Result<(), GpuError> {
    if buffer.usage().contains(required) {
        Ok(())
    } else {
        Err(GpuError::MissingUsage {
            operation,
            required,
            found: buffer.usage(),
        })
    }
}
