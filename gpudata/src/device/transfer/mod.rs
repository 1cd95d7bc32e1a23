//! The transfer engine: host bytes uploaded into a buffer range ([`upload`], [`write_bytes`],
//! [`Stager`] for rows written one by one), a buffer range read back into host memory
//! ([`read_range`], [`read_into`]), both in bounded chunks on the workers of a
//! [`TransferConfig`] under one staging budget shared by the process, and waiting for submissions and mappings, blocking or async ([`WaitMode`]).
//! With feature `host-dma` and [`TransferConfig::host_dma`] on, [`write_bytes`], [`read_into`]
//! and [`read_range`] first try `dma.rs`: by default uploads through the device's pinned
//! staging ring (`pinned.rs`) and readbacks staged, or both with the caller's pages imported
//! and copied by the GPU ([`HostDmaMode`]); the ranges they leave are staged as before.

mod budget;
mod config;
#[cfg(feature = "host-dma")]
mod dma;
mod host;
#[cfg(feature = "host-dma")]
mod pinned;
mod pipeline;
mod readback;
mod staging;
mod upload;
mod wait;
mod workers;

pub(crate) use budget::forget_device;
pub use budget::{
    STAGING_IDLE_RELEASE, release_idle_staging, staging_buffers_made, staging_idle, staging_in_use,
};
pub use config::{
    DEFAULT_BUDGET_BYTES, DEFAULT_HOST_DMA_MIN_BYTES, HostDmaMode, MIN_CHUNK_BYTES,
    ProgressCallback, TransferConfig, TransferDirection, TransferProgress,
};
pub(crate) use host::{advise_huge_pages, zeroed_bytes};
#[cfg(feature = "host-dma")]
pub use pinned::probe_pinned_dma;
pub(crate) use readback::{read_into, read_range};
pub use upload::STAGING_CHUNK_BYTES;
#[cfg(feature = "arrow")]
pub(crate) use upload::copy_padded;
pub(crate) use upload::{Stager, row_granule, upload, write_bytes};
pub(crate) use wait::WaitMode;
