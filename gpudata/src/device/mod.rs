//! The device layer: [`Gpu`] (a wgpu device and queue with the adapter's facts), buffer creation
//! and usage rules, error scopes around wgpu calls, the transfer engine (staging uploads,
//! readbacks, waiting), and [`GpuError`], the errors of device, buffer and transfer work. It
//! knows nothing of data, tables or formats' meaning: the layers above call it.

pub(crate) mod buffers;
mod error;
mod gpu;
pub(crate) mod host_dma;
pub(crate) mod layouts;
pub(crate) mod pipelines;
pub(crate) mod scope;
pub(crate) mod transfer;
pub(crate) mod uninitialized;
mod wgpu_error;

pub use error::GpuError;
pub use gpu::{AdapterKind, Gpu};
pub use host_dma::{HOST_DMA_EXTENSION, HostDmaError, HostDmaSupport};
// Importing host memory without a copy: an engine part, for `transferbench --dma-sweep`.
#[doc(hidden)]
pub use host_dma::probe_import;
// The copy engine's rate from the pinned staging ring alone: an engine part, for
// `transferbench`'s `ring_dma` path.
pub(crate) use scope::error_scope;
#[cfg(feature = "host-dma")]
#[doc(hidden)]
pub use transfer::probe_pinned_dma;
pub use transfer::{
    DEFAULT_BUDGET_BYTES, DEFAULT_HOST_DMA_MIN_BYTES, HostDmaMode, MIN_CHUNK_BYTES,
    ProgressCallback, STAGING_CHUNK_BYTES, STAGING_IDLE_RELEASE, TransferConfig, TransferDirection,
    TransferProgress, release_idle_staging,
};
// The staging budget's counters: engine parts, for the transfer tests and benchmarks.
#[doc(hidden)]
pub use transfer::{staging_buffers_made, staging_idle, staging_in_use};
pub use wgpu_error::WgpuError;
