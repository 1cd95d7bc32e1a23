//! The device layer: [`Gpu`] (a wgpu device and queue with the adapter's facts) and
//! [`GpuError`], the errors of device, buffer and transfer work.

mod error;
mod gpu;
mod pipelines;

pub use error::GpuError;
pub use gpu::{AdapterKind, Gpu};
pub(crate) use pipelines::error_scope;
