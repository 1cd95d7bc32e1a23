//! GPU data on a real device (lavapipe without a GPU): uploads and readback, views, vertex fetch,
//! the codec of every format against vertex fetch and WGSL (every 8/16-bit pattern), storage
//! layouts, WGSL structs, derived bind groups (the shadow example's scene drawn), the device
//! sweep, the transfer engine (boundaries, threads, staging budget), and the
//! `DataError`/`GpuError` catalogue.

#[path = "../support/mod.rs"]
pub mod support;

mod allocation;
mod bind_group;
mod codec;
mod device_sweep;
mod errors;
mod faults;
mod gpu_errors;
#[cfg(feature = "host-dma")]
mod host_dma;
mod nested;
mod nested_random;
mod packed_vertex;
mod particles;
#[cfg(feature = "host-dma")]
mod pinned_staging;
mod roundtrip;
mod runtime_array;
mod shadow;
mod smoke;
mod storage;
mod transfer;
mod typed_bindings;
mod validation;
mod vertex_fetch;
mod wgsl;
