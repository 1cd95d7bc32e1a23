//! [`TransferConfig`]: how much host staging memory a transfer may hold, how many threads fill
//! and drain it, how large its chunks are, and who hears of its progress.

use std::fmt;
use std::num::NonZeroUsize;
use std::sync::{Arc, OnceLock};

use crate::device::AdapterKind;

/// The staging memory budget a transfer gets unless told otherwise: 64 MiB.
pub const DEFAULT_BUDGET_BYTES: u64 = 64 << 20;

/// The smallest chunk a transfer moves at once: a smaller budget or chunk size is raised to it.
pub const MIN_CHUNK_BYTES: u64 = 64 << 10;

/// The largest chunk chosen automatically (an explicit [`TransferConfig::chunk_bytes`] may be
/// larger).
const MAX_AUTO_CHUNK_BYTES: u64 = 16 << 20;

/// The most threads chosen automatically on a hardware adapter. Measured on the H200
/// (BENCHMARKS.md): stores into `MAP_WRITE` memory stop scaling at 8 (31.9 GB/s at 8 and at 16
/// threads), and the readback pipeline is fastest with 8 drain threads and 4 MiB chunks (the
/// default 64 MiB budget's split): 36.3 / 42.0 / 44.0 GB/s at 256 MiB / 1 GiB / 4 GiB, against
/// 34.7 / 37.6 / 41.6 with 16 threads and 2 MiB chunks.
const MAX_AUTO_THREADS: usize = 8;

/// The most drain threads a blocking readback's pipeline gets automatically (its chunks and
/// ring are planned for [`MAX_AUTO_THREADS`]: 4 MiB chunks, 16 staging buffers). Measured on
/// the H200 with the drain pool (BENCHMARKS.md, session 5): 16 drain threads 42.2 / 44.1 / 44.7
/// GB/s into the caller's memory at 256 MiB / 1 GiB / 4 GiB against 37.0 / 39.3 / 41.7 with 8,
/// and 20.0 against 11.8 GB/s into a new vector (its page faults spread over more threads).
const MAX_AUTO_DRAIN_THREADS: usize = 16;

/// Which way a transfer goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TransferDirection {
    /// Host memory to a GPU buffer.
    Upload,
    /// A GPU buffer to host memory.
    Readback,
}

/// How far a transfer has come, as handed to [`TransferConfig::on_progress`]'s callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransferProgress {
    /// Which way the bytes go.
    pub direction: TransferDirection,
    /// Bytes moved so far (uploads: handed to the queue; readbacks: in host memory).
    pub done_bytes: u64,
    /// Bytes the transfer moves in all.
    pub total_bytes: u64,
}

/// A progress callback: called after each chunk, possibly from several threads at once (each
/// call reports a larger `done_bytes` than the transfer's calls before it on the same thread).
pub type ProgressCallback = Arc<dyn Fn(TransferProgress) + Send + Sync>;

/// How uploads and readbacks move bytes between host memory and the GPU.
///
/// Large transfers move in chunks through host-visible staging buffers the transfer creates:
/// several threads fill (uploads) or drain (readbacks) them while the GPU copies the others,
/// so the staging memory a transfer holds is at most [`budget_bytes`](Self::budget_bytes)
/// however large the data. A transfer of at most one chunk goes through wgpu's queue staging
/// (`Queue::write_buffer_with`) or one staging buffer.
///
/// Every [`Gpu`](crate::Gpu) carries one ([`Gpu::transfer_config`](crate::Gpu::transfer_config));
/// [`Gpu::with_transfer_config`](crate::Gpu::with_transfer_config) gives a handle to the same
/// device that transfers with another.
///
/// ```
/// use gpudata::device::TransferConfig;
/// let config = TransferConfig::new().budget_bytes(16 << 20).threads(4);
/// assert_eq!(config.budget(), 16 << 20);
/// ```
#[derive(Clone, Default)]
pub struct TransferConfig {
    budget: Option<u64>,
    threads: Option<NonZeroUsize>,
    chunk: Option<u64>,
    progress: Option<ProgressCallback>,
    host_dma: bool,
    host_dma_min: Option<u64>,
    host_dma_mode: HostDmaMode,
}

/// How a transfer with [`TransferConfig::host_dma`] on moves bytes by DMA.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HostDmaMode {
    /// Uploads through a ring of pinned staging slots the device keeps: host memory gpudata
    /// allocates and imports once per device (on the first upload that uses it, bounded by the
    /// handle's [budget](TransferConfig::budget_bytes)), so no upload pays the driver's page
    /// pinning. Worker threads copy the caller's bytes into free slots while the GPU's copy
    /// engine moves the others into the device buffer. Any host address qualifies. Readbacks
    /// take the staged path: through the ring they never beat it on the hosts measured (the
    /// GPU's copies into pinned memory are the limit). The default.
    #[default]
    PinnedStaging,
    /// Straight from and into the caller's pages: the pages enclosing the range are imported
    /// for each transfer (the driver pins them every time), so there is no host copy; the
    /// caller's first byte must be 4-byte aligned.
    ImportCallerPages,
}

/// The smallest transfer that goes by host DMA unless told otherwise
/// ([`TransferConfig::host_dma_min_bytes`]): 1 MiB. Smaller ones cost more to import than to
/// stage.
pub const DEFAULT_HOST_DMA_MIN_BYTES: u64 = 1 << 20;

impl TransferConfig {
    /// The default configuration: a [`DEFAULT_BUDGET_BYTES`] budget, threads and chunk size
    /// chosen for the machine and adapter (one thread on a software adapter, which copies on
    /// the CPU itself; up to 8 on hardware), no progress callback.
    #[must_use]
    pub fn new() -> TransferConfig {
        TransferConfig::default()
    }

    /// Caps the host staging memory transfers made with this configuration hold at `bytes`
    /// (raised to at least [`MIN_CHUNK_BYTES`]): one transfer, and every transfer of the process
    /// together, since all of them take their staging from one budget shared by the process
    /// (a transfer waits while the others hold its limit; see
    /// [`staging_in_use`](crate::device::staging_in_use)). Fewer threads run when the budget
    /// cannot give each two chunks.
    #[must_use]
    pub fn budget_bytes(mut self, bytes: u64) -> TransferConfig {
        self.budget = Some(bytes);
        self
    }

    /// Runs transfers on `threads` threads (the calling one among them; 0 counts as 1).
    #[must_use]
    pub fn threads(mut self, threads: usize) -> TransferConfig {
        self.threads = Some(NonZeroUsize::new(threads).unwrap_or(NonZeroUsize::MIN));
        self
    }

    /// Moves `bytes` per chunk (raised to at least [`MIN_CHUNK_BYTES`], rounded to whole rows
    /// for row uploads) instead of the size derived from the budget and threads. Readback chunks
    /// above 4 MiB measured slow on the H200 (8 MiB: 13 GB/s at 1 GiB against 42 at 4 MiB):
    /// larger staging buffers get memory of their own from the driver on each readback.
    #[must_use]
    pub fn chunk_bytes(mut self, bytes: u64) -> TransferConfig {
        self.chunk = Some(bytes);
        self
    }

    /// Calls `callback` after each chunk of every transfer made with this configuration.
    #[must_use]
    pub fn on_progress(
        mut self,
        callback: impl Fn(TransferProgress) + Send + Sync + 'static,
    ) -> TransferConfig {
        self.progress = Some(Arc::new(callback));
        self
    }

    /// Moves byte uploads (`GpuData::from_bytes`, `write_rows` and `write_bytes` of rows whose
    /// host layout is their GPU layout) and readbacks into memory the caller owns
    /// (`read_bytes_into`, zero-copy `read_rows_into`, Arrow buffers) by host DMA when `on`,
    /// the device [can](crate::Gpu::host_dma) (feature
    /// `host-dma`, a Vulkan device with `VK_EXT_external_memory_host`) and the range qualifies:
    /// at least [`host_dma_min_bytes`](Self::host_dma_min_bytes), at a 4-byte-aligned buffer
    /// offset. [`host_dma_mode`](Self::host_dma_mode) says how: by default
    /// ([`HostDmaMode::PinnedStaging`]) uploads go through a ring of host memory the device
    /// imports once (at most the budget; any host address qualifies) and readbacks are staged;
    /// with [`HostDmaMode::ImportCallerPages`] the pages enclosing the caller's range are
    /// imported for the transfer's duration, both ways (its first byte 4-byte aligned; any
    /// allocation qualifies, Arrow's 64-byte-aligned buffers included) and the call returns once
    /// the GPU is done with them. The last 1–3 bytes of a length that is not a multiple of 4,
    /// ranges or parts the driver refuses to import, and uploads that find every slot of the
    /// ring held by other uploads take the staged path. Off by default.
    #[must_use]
    pub fn host_dma(mut self, on: bool) -> TransferConfig {
        self.host_dma = on;
        self
    }

    /// Which way host DMA moves bytes when [`host_dma`](Self::host_dma) is on (default
    /// [`HostDmaMode::PinnedStaging`]).
    #[must_use]
    pub fn host_dma_mode(mut self, mode: HostDmaMode) -> TransferConfig {
        self.host_dma_mode = mode;
        self
    }

    /// The [`HostDmaMode`] host DMA takes when on.
    #[must_use]
    pub fn dma_mode(&self) -> HostDmaMode {
        self.host_dma_mode
    }

    /// The smallest transfer that goes by host DMA when [`host_dma`](Self::host_dma) is on
    /// (default [`DEFAULT_HOST_DMA_MIN_BYTES`]).
    #[must_use]
    pub fn host_dma_min_bytes(mut self, bytes: u64) -> TransferConfig {
        self.host_dma_min = Some(bytes);
        self
    }

    /// The smallest transfer that goes by host DMA, or `None` when host DMA is off.
    #[must_use]
    pub fn host_dma_threshold(&self) -> Option<u64> {
        self.host_dma
            .then(|| self.host_dma_min.unwrap_or(DEFAULT_HOST_DMA_MIN_BYTES))
    }

    /// The bytes one host-DMA piece covers when a chunk size is configured.
    #[cfg(feature = "host-dma")]
    pub(crate) fn host_dma_piece(&self) -> Option<u64> {
        self.chunk.map(|c| c.max(MIN_CHUNK_BYTES))
    }

    /// The pinned staging ring a device makes for [`HostDmaMode::PinnedStaging`] when this
    /// configuration's upload is its first user, on an adapter of `kind`: `(slot bytes,
    /// slots)`. A slot is a chunk of [`plan`](Self::plan)'s rule (the configured chunk size, else
    /// the budget split into two chunks per thread, at most 16 MiB) and at most half the budget;
    /// as many slots as the budget holds, at least 2 and at most 4 per thread.
    #[doc(hidden)]
    #[must_use]
    pub fn pinned_ring(&self, kind: AdapterKind) -> (u64, usize) {
        let threads = self.threads_for(kind).max(1) as u64;
        let budget = self.budget();
        let slot = self
            .chunk
            .unwrap_or_else(|| {
                (budget / (2 * threads)).clamp(MIN_CHUNK_BYTES, MAX_AUTO_CHUNK_BYTES)
            })
            .min(budget / 2)
            .max(MIN_CHUNK_BYTES);
        let slots = (budget / slot).clamp(2, 4 * threads.max(2));
        (slot, slots as usize)
    }

    /// The staging budget in bytes.
    #[must_use]
    pub fn budget(&self) -> u64 {
        self.budget
            .unwrap_or(DEFAULT_BUDGET_BYTES)
            .max(MIN_CHUNK_BYTES)
    }

    /// The threads transfers run on for an adapter of `kind`: the configured number, else one
    /// on a software adapter and `min(available parallelism, 8)` on others. A blocking readback
    /// on several threads submits its copies from the calling thread and drains them on the
    /// process's drain pool: on the configured number of threads, else on `min(available
    /// parallelism, 16)` (its chunks planned for this count).
    #[must_use]
    pub fn threads_for(&self, kind: AdapterKind) -> usize {
        if let Some(threads) = self.threads {
            return threads.get();
        }
        match kind {
            AdapterKind::Software => 1,
            AdapterKind::Hardware | AdapterKind::Unknown => host_threads().min(MAX_AUTO_THREADS),
        }
    }

    /// The threads a blocking readback's pipeline drains on for an adapter of `kind` (besides
    /// the calling thread, which submits): the configured number, else one on a software
    /// adapter and `min(available parallelism, 16)` on others.
    #[must_use]
    pub fn drain_threads_for(&self, kind: AdapterKind) -> usize {
        if let Some(threads) = self.threads {
            return threads.get();
        }
        match kind {
            AdapterKind::Software => 1,
            AdapterKind::Hardware | AdapterKind::Unknown => {
                host_threads().min(MAX_AUTO_DRAIN_THREADS)
            }
        }
    }

    /// The progress callback, if one is set.
    pub(crate) fn progress(&self) -> Option<&ProgressCallback> {
        self.progress.as_ref()
    }

    /// The plan for moving `len` bytes on at most `threads` threads in chunks that are
    /// multiples of `granule` (a multiple of 4: whole words, and whole rows for row uploads).
    pub(crate) fn plan(&self, threads: usize, len: u64, granule: u64) -> Plan {
        let budget = self.budget();
        let threads = threads.max(1) as u64;
        let chunk = self.chunk.unwrap_or_else(|| {
            (budget / (2 * threads)).clamp(MIN_CHUNK_BYTES, MAX_AUTO_CHUNK_BYTES)
        });
        let chunk = chunk.max(MIN_CHUNK_BYTES).min(budget.max(granule));
        let chunk = (chunk / granule).max(1) * granule;
        let chunks = len.div_ceil(chunk).max(1);
        // Each worker keeps two chunks (one filling or draining, one copying) when the budget
        // allows, one otherwise; no more workers than chunks or than the budget holds.
        let per_budget = (budget / chunk).max(1);
        let workers = threads.min(chunks).min(per_budget).max(1);
        let depth = if workers * 2 * chunk <= budget { 2 } else { 1 };
        Plan {
            chunk,
            chunks,
            workers: workers as usize,
            depth,
        }
    }
}

/// How one transfer is cut up: `chunks` chunks of `chunk` bytes (the last one shorter), moved by
/// `workers` threads that each hold `depth` staging buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) chunk: u64,
    pub(crate) chunks: u64,
    pub(crate) workers: usize,
    pub(crate) depth: usize,
}

impl fmt::Debug for TransferConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TransferConfig")
            .field("budget", &self.budget())
            .field("threads", &self.threads)
            .field("chunk", &self.chunk)
            .field("progress", &self.progress.is_some())
            .field("host_dma", &self.host_dma_threshold())
            .field("host_dma_mode", &self.host_dma_mode)
            .finish()
    }
}

/// The host's available parallelism, asked once per process: `available_parallelism` reads the
/// cgroup quota files on Linux each time, which cost every transfer on a hardware adapter about
/// 25 µs (a 4 KiB upload took 56 µs against `write_buffer`'s 44 on the H200; BENCHMARKS.md).
fn host_threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, NonZeroUsize::get))
}
