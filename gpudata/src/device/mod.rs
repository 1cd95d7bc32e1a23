//! The device layer: [`Gpu`] (a wgpu device and queue with the adapter's facts) and
//! [`GpuError`], the errors of device, buffer and transfer work.

mod error;
mod gpu;

pub use error::GpuError;
pub use gpu::{AdapterKind, Gpu};
