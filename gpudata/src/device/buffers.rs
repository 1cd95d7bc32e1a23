//! Buffer creation with checked sizes and usages, inside error scopes, and the usage rules
//! operations check before they touch a buffer.

use crate::device::scope::scoped;
use crate::device::{Gpu, GpuError};

/// `value` rounded up to a multiple of 4, or `None` when that overflows.
pub(crate) const fn align4(value: u64) -> Option<u64> {
    match value.checked_add(3) {
        Some(v) => Some(v & !3),
        None => None,
    }
}

/// The capacity, in elements, that a growing buffer of `capacity` elements moves to when it
/// must hold `needed`: `capacity × factor` (`factor` at least 1; at least `needed`), or exactly
/// `needed` when `fits` says the grown capacity cannot be one buffer (its bytes overflow, or pass
/// the device's limit). `GpuStorage::reserve` (factor 2) and a `Growth::Reallocate` vector (its
/// growth factor) both grow by this rule.
pub(crate) fn grown_capacity(
    capacity: u64,
    factor: f64,
    needed: u64,
    fits: impl Fn(u64) -> bool,
) -> u64 {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "a float capacity estimate, clamped to u64 and to the elements needed"
    )]
    let grown = (capacity as f64 * factor).min(u64::MAX as f64) as u64;
    let grown = grown.max(needed);
    if fits(grown) { grown } else { needed }
}

/// Whether [`create_buffer`] can make a buffer of `size` bytes on `gpu`: `size` rounded up to
/// 4 (at least 4) within the device's `max_buffer_size`.
pub(crate) fn fits_one_buffer(gpu: &Gpu, size: u64) -> bool {
    align4(size.max(4)).is_some_and(|allocated| allocated <= gpu.limits().max_buffer_size)
}

/// The usage rules wgpu applies to a new buffer, checked before asking it: at least one flag,
/// and without `MAPPABLE_PRIMARY_BUFFERS`, `MAP_READ` only beside `COPY_DST` and `MAP_WRITE`
/// only beside `COPY_SRC`.
pub(crate) fn check_usage(gpu: &Gpu, usage: wgpu::BufferUsages) -> Result<(), GpuError> {
    use wgpu::BufferUsages as U;
    if usage.is_empty() {
        return Err(GpuError::EmptyUsage);
    }
    if gpu
        .device()
        .features()
        .contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS)
    {
        return Ok(());
    }
    for (map, partner) in [(U::MAP_READ, U::COPY_DST), (U::MAP_WRITE, U::COPY_SRC)] {
        if usage.contains(map) && !(map | partner).contains(usage) {
            return Err(GpuError::MapUsage {
                usage,
                map,
                partner,
            });
        }
    }
    Ok(())
}

/// A buffer of at least `size` bytes (rounded up to 4, at least 4), of exactly `usage` (callers
/// that write it add `COPY_DST`). Blocks only on wgpu's error scope, which native backends
/// answer at once.
///
/// # Errors
/// [`GpuError::EmptyUsage`], [`GpuError::MapUsage`], [`GpuError::BufferTooLarge`],
/// [`GpuError::DeviceLost`], and what wgpu reports: [`GpuError::OutOfMemory`],
/// [`GpuError::Validation`].
pub(crate) fn create_buffer(
    gpu: &Gpu,
    size: u64,
    usage: wgpu::BufferUsages,
    label: &str,
) -> Result<wgpu::Buffer, GpuError> {
    pollster::block_on(create_buffer_async(gpu, size, usage, label))
}

/// [`create_buffer`], filled before first use: mapped at creation, `fill` writes the mapped
/// bytes (zero-initialized; every byte of the allocation, `size` rounded up to 4), then the
/// buffer is unmapped. The mapping stays here: callers only write bytes. A `fill` error
/// destroys the buffer and is returned.
///
/// # Errors
/// As [`create_buffer`], [`GpuError::Map`] when the new buffer's mapping cannot be read, and
/// `fill`'s errors.
pub(crate) fn create_filled_buffer<E: From<GpuError>>(
    gpu: &Gpu,
    size: u64,
    usage: wgpu::BufferUsages,
    label: &str,
    fill: impl FnOnce(&mut wgpu::BufferViewMut) -> Result<(), E>,
) -> Result<wgpu::Buffer, E> {
    let buffer = pollster::block_on(create(gpu, size, usage, label, true))?;
    let filled = match buffer.get_mapped_range_mut(..) {
        Ok(mut view) => fill(&mut view),
        Err(e) => Err(GpuError::Map {
            reason: format!("the new buffer `{label}` cannot be written: {e}"),
        }
        .into()),
    };
    buffer.unmap();
    match filled {
        Ok(()) => Ok(buffer),
        Err(e) => {
            buffer.destroy();
            Err(e)
        }
    }
}

/// The asynchronous form of [`create_buffer`], for the transfer engine's async paths.
pub(crate) async fn create_buffer_async(
    gpu: &Gpu,
    size: u64,
    usage: wgpu::BufferUsages,
    label: &str,
) -> Result<wgpu::Buffer, GpuError> {
    create(gpu, size, usage, label, false).await
}

async fn create(
    gpu: &Gpu,
    size: u64,
    usage: wgpu::BufferUsages,
    label: &str,
    mapped_at_creation: bool,
) -> Result<wgpu::Buffer, GpuError> {
    check_usage(gpu, usage)?;
    let max = gpu.limits().max_buffer_size;
    let allocated = align4(size.max(4)).ok_or(GpuError::BufferTooLarge { size, max })?;
    if allocated > max {
        return Err(GpuError::BufferTooLarge {
            size: allocated,
            max,
        });
    }
    const OPERATION: &str = "create a buffer";
    gpu.check_lost(OPERATION)?;
    let (buffer, caught) = scoped(gpu, OPERATION, Some(allocated), || {
        gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: allocated,
            usage,
            mapped_at_creation,
        })
    });
    caught.check(gpu).await?;
    Ok(buffer)
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

/// A small buffer holding `contents` (a kernel's parameters or accumulator), of `usage` plus
/// `COPY_DST`: created unmapped and filled through the queue. Not wgpu's `create_buffer_init`:
/// that one panics when the device is lost (its buffer comes back unmapped), while a queue write
/// on a lost device is only refused. Call it inside an error scope (`device::scope`), which
/// reports what wgpu refuses.
pub(crate) fn filled_buffer(
    gpu: &Gpu,
    label: &str,
    contents: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: contents.len() as u64,
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    gpu.queue().write_buffer(&buffer, 0, contents);
    buffer
}

/// Copies the first `size` bytes of `source` to the start of `destination` on the GPU (one
/// `copy_buffer_to_buffer`, queued after earlier work), inside an error scope. `size` is a
/// multiple of 4 no larger than either buffer; 0 copies nothing.
///
/// # Errors
/// [`GpuError::Validation`] (a destroyed buffer, a missing `COPY_SRC`/`COPY_DST`),
/// [`GpuError::DeviceLost`].
pub(crate) fn copy_prefix(
    gpu: &Gpu,
    source: &wgpu::Buffer,
    destination: &wgpu::Buffer,
    size: u64,
    label: &str,
) -> Result<(), GpuError> {
    if size == 0 {
        return Ok(());
    }
    crate::device::scope::error_scope(gpu, "copy a buffer", || {
        let mut encoder = gpu
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
        encoder.copy_buffer_to_buffer(source, 0, destination, 0, Some(size));
        gpu.queue().submit([encoder.finish()]);
    })
}
