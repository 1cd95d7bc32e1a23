//! Arrow interop (feature `arrow`): host conversions, uploads and readback on the device,
//! segmented tables, the `arrow_roundtrip` example, and the `ArrowError` catalogue.

#[path = "../support/mod.rs"]
pub mod support;

mod chunked;
mod convert;
mod errors;
mod faults;
mod filter;
#[cfg(feature = "flight")]
mod flight;
#[cfg(feature = "parquet")]
mod flights;
mod gpu;
mod host;
#[cfg(feature = "parquet")]
mod parquet;
mod roundtrip;
mod segmented;
mod stream;
mod stream_memory;
