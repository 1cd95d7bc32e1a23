//! What the fault-injection modules (`faults.rs` of the data, ops, table and arrow binaries)
//! share: a second device, fresh devices to destroy, and the typed errors they expect. No helper
//! installs an `on_uncaptured_error` handler: every fault must come back as a typed error with
//! wgpu's default (panicking) handler in place.

use std::sync::OnceLock;

use gpudata::{Gpu, GpuError};

/// A second headless device, in a wgpu instance of its own: its buffer ids collide with the
/// shared device's ([`crate::support::gpu`]), so only gpudata's device check tells their data
/// apart.
pub fn other_gpu() -> Gpu {
    static OTHER: OnceLock<Gpu> = OnceLock::new();
    OTHER
        .get_or_init(|| Gpu::headless().unwrap_or_else(|e| panic!("{e}")))
        .clone()
}

/// Panics unless `error` is [`GpuError::OtherDevice`] naming `operation`, with the message
/// naming both adapters.
pub fn assert_other_device(error: &GpuError, operation: &str) {
    let GpuError::OtherDevice {
        operation: found,
        data_adapter,
        adapter,
    } = error
    else {
        panic!("expected OtherDevice for `{operation}`, found {error:?}");
    };
    assert_eq!(*found, operation);
    assert_eq!(
        error.to_string(),
        format!(
            "cannot {operation}: the data lives on another device (`{data_adapter}`) than the gpu given (`{adapter}`); use the Gpu (or a clone of it) that created the data"
        )
    );
}

/// Panics unless `error` is [`GpuError::Validation`] of `operation` whose wgpu message contains
/// `needle`.
pub fn assert_validation(error: &GpuError, operation: &str, needle: &str) {
    let GpuError::Validation {
        operation: found,
        source,
    } = error
    else {
        panic!("expected Validation of `{operation}`, found {error:?}");
    };
    assert_eq!(*found, operation, "{error}");
    assert!(source.to_string().contains(needle), "{source}");
}
