//! Arrow interop (feature `arrow`): host conversions, uploads and readback on the device,
//! segmented tables, the `arrow_roundtrip` example, and the `ArrowError` catalogue.

#[path = "../support/mod.rs"]
pub mod support;

mod errors;
mod gpu;
mod host;
mod roundtrip;
mod segmented;
