//! Host memory as a direct DMA source and target (feature `host-dma`).
//!
//! wgpu stages every transfer: uploads are CPU stores into `MAP_WRITE` memory (on discrete
//! NVIDIA cards the card's own memory through the PCIe BAR), readbacks a DMA into `MAP_READ`
//! memory and a host copy out of it. Vulkan's `VK_EXT_external_memory_host` lets the copy engine
//! read and write ordinary host pages instead: the pages are imported as `VkDeviceMemory`, bound
//! to a `VkBuffer` and wrapped as a [`wgpu::Buffer`] (`Device::create_buffer_from_hal`), and
//! `copy_buffer_to_buffer` moves the bytes between it and the device buffer.
//!
//! - `open.rs`: [`Gpu::headless`](crate::Gpu::headless) opens Vulkan devices with the extension
//!   where the adapter lists it (wgpu-hal's `Adapter::open_with_callback`, then
//!   `wgpu::Adapter::create_device_from_hal`), and the plain device otherwise.
//! - `import.rs`: [`DmaDevice`], what one device needs to import (the extension's functions,
//!   `minImportedHostPointerAlignment`), and [`Imported`], one host range imported and wrapped,
//!   whose drop waits until wgpu has destroyed the buffer and freed the memory object.
//! - `ring.rs`: [`PinnedRing`], the device's pinned staging ring: host memory gpudata allocates
//!   and imports once (kept with the device, freed with it), cut into slots uploads check out
//!   ([`Slots`]) and write on the CPU only once the GPU is done with them.
//! - `device/transfer/pinned.rs`: the uploads through the ring
//!   ([`HostDmaMode::PinnedStaging`](crate::device::HostDmaMode::PinnedStaging), the default;
//!   its readbacks are staged).
//! - `device/transfer/dma.rs`: the transfers over imports of the caller's own pages
//!   ([`HostDmaMode::ImportCallerPages`](crate::device::HostDmaMode::ImportCallerPages)), and
//!   the entry of both modes, used by the byte uploads and readbacks when the handle's
//!   [`TransferConfig::host_dma`](crate::device::TransferConfig::host_dma) is on and the range
//!   qualifies; every other transfer keeps the staged path.

#[cfg(feature = "host-dma")]
mod import;
#[cfg(feature = "host-dma")]
mod open;
#[cfg(feature = "host-dma")]
mod ring;

#[cfg(feature = "host-dma")]
pub(crate) use import::{DmaDevice, Imported};
#[cfg(feature = "host-dma")]
pub(crate) use open::request_device;
#[cfg(feature = "host-dma")]
pub(crate) use ring::{PinnedRing, Slots};

use crate::device::Gpu;

/// The Vulkan extension host DMA needs on the device.
pub const HOST_DMA_EXTENSION: &str = "VK_EXT_external_memory_host";

/// What a device's host DMA can do: returned by [`Gpu::host_dma`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostDmaSupport {
    /// `minImportedHostPointerAlignment`: imports cover whole blocks of this many bytes (the
    /// enclosing blocks of the caller's range), so any 4-byte-aligned range qualifies.
    pub import_alignment: u64,
}

/// Why a device cannot move host memory by DMA ([`Gpu::host_dma`]). Transfers never fail for
/// it: they take the staged path instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HostDmaError {
    /// gpudata was built without the `host-dma` feature.
    #[error("host dma needs gpudata's `host-dma` feature")]
    FeatureOff,
    /// The device is not a Vulkan device.
    #[error("host dma needs a vulkan device; adapter `{adapter}` runs on {backend}")]
    NotVulkan {
        /// The adapter's name.
        adapter: String,
        /// Its backend.
        backend: String,
    },
    /// The adapter does not offer `VK_EXT_external_memory_host` on Vulkan 1.1 or later (or does
    /// not report copy buffers importable from host allocations without a dedicated allocation).
    #[error(
        "adapter `{adapter}` does not offer VK_EXT_external_memory_host on vulkan 1.1 or later"
    )]
    Unsupported {
        /// The adapter's name.
        adapter: String,
    },
    /// The device was opened without `VK_EXT_external_memory_host` (a device the application
    /// made and wrapped with [`Gpu::from_device_queue`]).
    #[error(
        "the device on adapter `{adapter}` was opened without VK_EXT_external_memory_host; open it with `Gpu::headless` or enable the extension"
    )]
    NotEnabled {
        /// The adapter's name.
        adapter: String,
    },
}

/// Imports `bytes` (whole words from a 4-byte-aligned address) as one piece and releases it
/// without copying: what a DMA transfer pays the driver per piece (pinning the pages), for
/// `transferbench --dma-sweep`. `false` when the device has no host DMA or refuses the range.
#[doc(hidden)]
#[must_use]
pub fn probe_import(gpu: &Gpu, bytes: &[u8]) -> bool {
    #[cfg(feature = "host-dma")]
    {
        let Ok(dma) = gpu.dma_device() else {
            return false;
        };
        let len = (bytes.len() as u64) & !3;
        if len == 0 || !(bytes.as_ptr() as usize).is_multiple_of(4) {
            return false;
        }
        // SAFETY: `bytes` is borrowed for this call and the import is dropped (waiting until
        // wgpu has freed it) before it returns; nothing reads or writes through it.
        let imported = unsafe { dma.import(gpu.device(), bytes.as_ptr(), len) };
        imported.is_some()
    }
    #[cfg(not(feature = "host-dma"))]
    {
        let _ = (gpu, bytes);
        false
    }
}

impl Gpu {
    /// Whether this device can move host memory by DMA, and with what import alignment; the
    /// reason when not. Transfers use it when their
    /// [`TransferConfig::host_dma`](crate::device::TransferConfig::host_dma) is on.
    ///
    /// # Errors
    /// A [`HostDmaError`] naming what is missing: the `host-dma` feature, a Vulkan device, the
    /// adapter's `VK_EXT_external_memory_host`, or the extension on this device.
    pub fn host_dma(&self) -> Result<HostDmaSupport, HostDmaError> {
        #[cfg(feature = "host-dma")]
        {
            self.dma_device().map(|dma| HostDmaSupport {
                import_alignment: dma.alignment(),
            })
        }
        #[cfg(not(feature = "host-dma"))]
        {
            Err(HostDmaError::FeatureOff)
        }
    }
}
