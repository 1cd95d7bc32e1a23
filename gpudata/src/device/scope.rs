//! Error scopes around wgpu calls: wgpu's validation, out-of-memory and internal errors of the
//! calls made inside a scope are returned as [`GpuError`]s instead of reaching wgpu's default
//! handler (which panics).
//!
//! Scopes are per thread, so a scope is pushed and popped around synchronous wgpu calls only,
//! never across an `.await`; what it caught is awaited afterwards (a `Send` future).

use std::future::Future;
use std::pin::Pin;

use crate::device::{Gpu, GpuError, WgpuError};

/// What an error scope caught, turned into a [`GpuError`]: `OutOfMemory` with the bytes the
/// operation asked for, `Validation` naming the operation otherwise.
pub(crate) struct Caught {
    future: Pin<Box<dyn Future<Output = Option<wgpu::Error>> + Send>>,
    operation: &'static str,
    bytes: Option<u64>,
}

/// Runs `calls` inside error scopes for out-of-memory, validation and internal errors, and
/// returns its result with what the scopes caught (await [`Caught::check`]). `operation` and
/// `bytes` (what the work allocates, when it does) describe the work for the error.
pub(crate) fn scoped<T>(
    gpu: &Gpu,
    operation: &'static str,
    bytes: Option<u64>,
    calls: impl FnOnce() -> T,
) -> (T, Caught) {
    let device = gpu.device();
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let value = calls();
    // Popped innermost first, as wgpu requires; the pops take effect now.
    let internal = internal.pop();
    let validation = validation.pop();
    let oom = oom.pop();
    let future = Box::pin(async move {
        let internal = internal.await;
        let validation = validation.await;
        let oom = oom.await;
        oom.or(validation).or(internal)
    });
    (
        value,
        Caught {
            future,
            operation,
            bytes,
        },
    )
}

impl Caught {
    /// `Ok` when the scopes caught nothing, else the error they caught; on a lost device
    /// [`GpuError::DeviceLost`] (wgpu then refuses calls on the invalid objects the lost device
    /// handed out, which says less).
    pub(crate) async fn check(self, gpu: &Gpu) -> Result<(), GpuError> {
        let caught = self.future.await;
        if caught.is_some() {
            gpu.confirm_lost(self.operation)?;
        }
        match caught {
            None => Ok(()),
            Some(error) => Err(to_gpu_error(self.operation, self.bytes, error)),
        }
    }
}

/// [`scoped`] for synchronous work that allocates nothing the error should count (submissions,
/// pipelines, bind groups): runs `calls` and blocks until the scopes report.
///
/// # Errors
/// [`GpuError::Validation`], [`GpuError::OutOfMemory`], or [`GpuError::DeviceLost`] when the
/// refusal came from a lost device.
pub(crate) fn error_scope<R>(
    gpu: &Gpu,
    operation: &'static str,
    calls: impl FnOnce() -> R,
) -> Result<R, GpuError> {
    let (value, caught) = scoped(gpu, operation, None, calls);
    pollster::block_on(caught.check(gpu))?;
    Ok(value)
}

/// The [`GpuError`] for what an error scope around `operation` caught.
fn to_gpu_error(operation: &'static str, bytes: Option<u64>, error: wgpu::Error) -> GpuError {
    match error {
        wgpu::Error::OutOfMemory { .. } => GpuError::OutOfMemory { operation, bytes },
        error => GpuError::Validation {
            operation,
            source: WgpuError::new(error),
        },
    }
}
