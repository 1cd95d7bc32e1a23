//! [`Gpu`]: the device and queue that uploads, readbacks, bindings and operations take.

use std::fmt;
use std::sync::Arc;
#[cfg(feature = "host-dma")]
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::device::GpuError;
use crate::device::layouts::LayoutCache;
use crate::device::pipelines::PipelineCache;
use crate::device::transfer::TransferConfig;

/// A wgpu device and its queue, with the facts about the adapter they came from.
///
/// Cloning is cheap (one reference count); every clone talks to the same device. Build one with
/// [`Gpu::headless`] (tests, tools, examples) or wrap a device your application already has with
/// [`Gpu::from_device_queue`].
///
/// ```no_run
/// let gpu = gpudata::Gpu::headless()?;
/// println!("running on {}", gpu.adapter_summary());
/// # Ok::<(), gpudata::GpuError>(())
/// ```
#[derive(Clone)]
pub struct Gpu {
    inner: Arc<GpuInner>,
    /// How this handle's uploads and readbacks move bytes (clones share it; see
    /// [`Gpu::with_transfer_config`]).
    transfer: Arc<TransferConfig>,
}

struct GpuInner {
    /// This wrapper's number, unique in the process (the key of its kept readback staging).
    id: u64,
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter_info: wgpu::AdapterInfo,
    limits: wgpu::Limits,
    /// Every compute pipeline compiled on this device (operations, table re-layouts, Arrow's
    /// `fround`). Kept here rather than in a cache keyed by `wgpu::Device`: devices of different
    /// instances can compare equal (their ids are per instance).
    pipelines: PipelineCache,
    /// Every bind group layout made for a derived bind group (`gpudata::bind`), by entries.
    layouts: LayoutCache,
    /// Whether [`Gpu::headless_on_async`] opened this device in an instance of its own (so no
    /// other `GpuInner` wraps it), rather than [`Gpu::from_device_queue`] wrapping a device.
    own_instance: bool,
    /// Set by the device-lost callback: the device was destroyed or lost.
    lost: Arc<AtomicBool>,
    /// Transfers (or their leading parts) that moved by host DMA on this device.
    dma_transfers: AtomicU64,
    /// The device's host-memory import functions, or why it has none (read on first use).
    #[cfg(feature = "host-dma")]
    dma: OnceLock<Result<crate::device::host_dma::DmaDevice, crate::device::HostDmaError>>,
    /// The pinned staging ring (made by the first upload that uses it; `None` when the
    /// memory could not be allocated or imported). Dropped with the device wrapper: its drop
    /// waits until wgpu has freed the import, then frees the host memory.
    #[cfg(feature = "host-dma")]
    ring: OnceLock<Option<crate::device::host_dma::PinnedRing>>,
}

/// The next [`GpuInner::id`].
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

impl Drop for GpuInner {
    fn drop(&mut self) {
        // The readback staging kept for this device holds the device alive: it goes now.
        crate::device::transfer::forget_device(self.id);
        // The pinned staging ring goes before the queue: its drop waits until wgpu has freed
        // its import, then frees the host memory.
        #[cfg(feature = "host-dma")]
        drop(self.ring.take());
    }
}

/// Which kind of adapter [`Gpu::headless`] chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AdapterKind {
    /// A hardware GPU (discrete, integrated or virtual).
    Hardware,
    /// A software rasterizer such as lavapipe or WARP.
    Software,
    /// The backend did not say.
    Unknown,
}

impl AdapterKind {
    /// The kind of an adapter of `device_type`.
    #[must_use]
    pub const fn of(device_type: wgpu::DeviceType) -> AdapterKind {
        match device_type {
            wgpu::DeviceType::DiscreteGpu
            | wgpu::DeviceType::IntegratedGpu
            | wgpu::DeviceType::VirtualGpu => AdapterKind::Hardware,
            wgpu::DeviceType::Cpu => AdapterKind::Software,
            wgpu::DeviceType::Other => AdapterKind::Unknown,
        }
    }
}

impl fmt::Display for AdapterKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AdapterKind::Hardware => "hardware",
            AdapterKind::Software => "software",
            AdapterKind::Unknown => "unknown",
        })
    }
}

/// Preference order of [`Gpu::headless`]: lower is better.
const fn rank(device_type: wgpu::DeviceType) -> u8 {
    match device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

/// Backend preference inside one adapter kind: native APIs before GL.
const fn backend_rank(backend: wgpu::Backend) -> u8 {
    match backend {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        wgpu::Backend::BrowserWebGpu => 1,
        wgpu::Backend::Gl => 2,
        wgpu::Backend::Noop => 3,
    }
}

impl Gpu {
    /// A device on the best adapter this machine has, without a window: discrete, then
    /// integrated, then virtual GPUs, then a software adapter (lavapipe, WARP). Native backends
    /// are preferred to GL. [`adapter_kind`](Self::adapter_kind) and
    /// [`adapter_info`](Self::adapter_info) report the choice.
    ///
    /// The device gets the adapter's own limits (so storage offset alignment, buffer sizes and
    /// vertex strides are the adapter's, not WebGPU's defaults) and one optional feature,
    /// [`wgpu::Features::SUBGROUP`] where the adapter has it (the mask kernel's ballots use it; see
    /// [`OpsConfig::subgroups`](crate::ops::OpsConfig::subgroups)).
    ///
    /// # Errors
    /// [`GpuError::NoAdapter`] when the machine has no usable adapter (the message says how to
    /// install the software one), [`GpuError::RequestDevice`] when every adapter refuses a device
    /// (naming the last one tried).
    ///
    /// The `WGPU_BACKEND` environment variable (e.g. `vulkan`, `gl`) restricts the backends
    /// searched, as in wgpu.
    pub fn headless() -> Result<Gpu, GpuError> {
        pollster::block_on(Gpu::headless_async())
    }

    /// The asynchronous form of [`headless`](Self::headless).
    ///
    /// # Errors
    /// As [`headless`](Self::headless).
    pub async fn headless_async() -> Result<Gpu, GpuError> {
        Gpu::headless_on_async(wgpu::Backends::all().with_env()).await
    }

    /// [`headless`](Self::headless), searching only `backends`.
    ///
    /// # Errors
    /// As [`headless`](Self::headless).
    pub fn headless_on(backends: wgpu::Backends) -> Result<Gpu, GpuError> {
        pollster::block_on(Gpu::headless_on_async(backends))
    }

    /// The asynchronous form of [`headless_on`](Self::headless_on).
    ///
    /// # Errors
    /// As [`headless`](Self::headless).
    pub async fn headless_on_async(backends: wgpu::Backends) -> Result<Gpu, GpuError> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends,
            ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
        });
        let mut adapters = instance.enumerate_adapters(backends).await;
        adapters.sort_by_key(|a| {
            let info = a.get_info();
            (rank(info.device_type), backend_rank(info.backend))
        });
        if adapters.is_empty() {
            // `enumerate_adapters` lists nothing on some platforms (the web); ask directly.
            let direct = match instance
                .request_adapter(&wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::HighPerformance,
                    ..Default::default()
                })
                .await
            {
                Ok(adapter) => adapter,
                Err(_) => instance
                    .request_adapter(&wgpu::RequestAdapterOptions {
                        force_fallback_adapter: true,
                        ..Default::default()
                    })
                    .await
                    .map_err(|e| GpuError::NoAdapter {
                        reason: e.to_string(),
                    })?,
            };
            adapters.push(direct);
        }
        // The best adapter whose device opens; a broken driver falls through to the next one
        // (in the end, the software adapter).
        let mut refusal = None;
        for adapter in adapters {
            let adapter_info = adapter.get_info();
            let desc = wgpu::DeviceDescriptor {
                label: Some("gpudata headless device"),
                // Subgroups where the adapter has them: the mask kernel's ballots use them.
                required_features: adapter.features() & wgpu::Features::SUBGROUP,
                required_limits: adapter.limits(),
                ..Default::default()
            };
            // With `host-dma`, Vulkan devices get VK_EXT_external_memory_host where offered.
            #[cfg(feature = "host-dma")]
            let request = crate::device::host_dma::request_device(&adapter, &desc);
            #[cfg(not(feature = "host-dma"))]
            let request = adapter.request_device(&desc);
            match request.await {
                Ok((device, queue)) => {
                    return Ok(Gpu::with_info(device, queue, adapter_info, true));
                }
                Err(e) => {
                    refusal = Some(GpuError::RequestDevice {
                        adapter: adapter_info.name.clone(),
                        reason: e.to_string(),
                    });
                }
            }
        }
        Err(refusal.unwrap_or_else(|| GpuError::NoAdapter {
            reason: "no adapter was listed".into(),
        }))
    }

    /// Wraps a device and queue the application already created.
    ///
    /// The `Gpu` installs the device's device-lost callback (to answer
    /// [`is_lost`](Self::is_lost)), replacing one the application set before.
    #[must_use]
    pub fn from_device_queue(device: wgpu::Device, queue: wgpu::Queue) -> Gpu {
        let adapter_info = device.adapter_info();
        Gpu::with_info(device, queue, adapter_info, false)
    }

    fn with_info(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter_info: wgpu::AdapterInfo,
        own_instance: bool,
    ) -> Gpu {
        let limits = device.limits();
        let lost = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&lost);
        device.set_device_lost_callback(move |_, _| flag.store(true, Ordering::Release));
        Gpu {
            inner: Arc::new(GpuInner {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                device,
                queue,
                adapter_info,
                limits,
                pipelines: PipelineCache::default(),
                layouts: LayoutCache::default(),
                own_instance,
                lost,
                dma_transfers: AtomicU64::new(0),
                #[cfg(feature = "host-dma")]
                dma: OnceLock::new(),
                #[cfg(feature = "host-dma")]
                ring: OnceLock::new(),
            }),
            transfer: Arc::new(TransferConfig::default()),
        }
    }

    /// A handle to the same device whose uploads and readbacks use `config` (staging budget,
    /// threads, chunk size, progress callback). This handle and its other clones keep theirs.
    ///
    /// ```no_run
    /// use gpudata::device::TransferConfig;
    /// let gpu = gpudata::Gpu::headless()?;
    /// let frugal = gpu.with_transfer_config(TransferConfig::new().budget_bytes(8 << 20));
    /// assert!(frugal.same_device(&gpu));
    /// # Ok::<(), gpudata::GpuError>(())
    /// ```
    #[must_use]
    pub fn with_transfer_config(&self, config: TransferConfig) -> Gpu {
        Gpu {
            inner: Arc::clone(&self.inner),
            transfer: Arc::new(config),
        }
    }

    /// How this handle's uploads and readbacks move bytes.
    #[must_use]
    pub fn transfer_config(&self) -> &TransferConfig {
        &self.transfer
    }

    /// The number of the device wrapper this handle shares with its clones, unique in the
    /// process.
    pub(crate) fn id(&self) -> u64 {
        self.inner.id
    }

    /// The device.
    #[must_use]
    pub fn device(&self) -> &wgpu::Device {
        &self.inner.device
    }

    /// The queue.
    #[must_use]
    pub fn queue(&self) -> &wgpu::Queue {
        &self.inner.queue
    }

    /// What the adapter says about itself (name, backend, device type, driver).
    #[must_use]
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.inner.adapter_info
    }

    /// Whether the device runs on a hardware GPU or a software adapter.
    #[must_use]
    pub fn adapter_kind(&self) -> AdapterKind {
        AdapterKind::of(self.inner.adapter_info.device_type)
    }

    /// One line naming the adapter: `"llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, software)"`.
    #[must_use]
    pub fn adapter_summary(&self) -> String {
        let info = &self.inner.adapter_info;
        format!("{} ({}, {})", info.name, info.backend, self.adapter_kind())
    }

    /// The device's limits (storage offset alignment, maximum buffer size, vertex stride, ...).
    #[must_use]
    pub fn limits(&self) -> &wgpu::Limits {
        &self.inner.limits
    }

    /// The device's compute pipeline cache.
    pub(crate) fn pipelines(&self) -> &PipelineCache {
        &self.inner.pipelines
    }

    /// How many compute pipelines this device has compiled so far (each distinct kernel once,
    /// shared by every clone of this `Gpu`).
    #[must_use]
    pub fn compiled_pipelines(&self) -> usize {
        self.inner.pipelines.len()
    }

    /// The device's host-memory import functions, or why it has none.
    #[cfg(feature = "host-dma")]
    pub(crate) fn dma_device(
        &self,
    ) -> Result<&crate::device::host_dma::DmaDevice, crate::device::HostDmaError> {
        self.inner
            .dma
            .get_or_init(|| {
                crate::device::host_dma::DmaDevice::of(&self.inner.device, &self.inner.adapter_info)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The device's pinned staging ring: made by `make` on first use (the first upload's
    /// configuration sets its size), kept with the device.
    #[cfg(feature = "host-dma")]
    pub(crate) fn pinned_ring(
        &self,
        make: impl FnOnce() -> Option<crate::device::host_dma::PinnedRing>,
    ) -> Option<&crate::device::host_dma::PinnedRing> {
        self.inner.ring.get_or_init(make).as_ref()
    }

    /// The pinned staging ring's slot size and slot count, once an upload (or
    /// `probe_pinned_dma`) has made it (an engine report for the tests and benchmarks).
    #[doc(hidden)]
    #[must_use]
    pub fn pinned_staging(&self) -> Option<(u64, usize)> {
        #[cfg(feature = "host-dma")]
        {
            let ring = self.inner.ring.get()?.as_ref()?;
            Some((ring.slot_bytes(), ring.slots()))
        }
        #[cfg(not(feature = "host-dma"))]
        {
            None
        }
    }

    /// How many transfers on this device moved bytes by host DMA (an engine counter for the
    /// tests and benchmarks: a transfer that fell back to staging does not count).
    #[doc(hidden)]
    #[must_use]
    pub fn host_dma_transfers(&self) -> u64 {
        self.inner.dma_transfers.load(Ordering::Relaxed)
    }

    /// Counts one transfer that moved bytes by host DMA.
    #[cfg(feature = "host-dma")]
    pub(crate) fn count_dma_transfer(&self) {
        self.inner.dma_transfers.fetch_add(1, Ordering::Relaxed);
    }

    /// The device's bind group layout cache.
    pub(crate) fn layouts(&self) -> &LayoutCache {
        &self.inner.layouts
    }

    /// How many bind group layouts derived bind groups have made on this device so far (each
    /// distinct list of entries once, shared by every clone of this `Gpu`).
    #[must_use]
    pub fn cached_bind_group_layouts(&self) -> usize {
        self.inner.layouts.len()
    }

    /// Blocks until every submitted command has finished and runs pending callbacks (buffer
    /// mappings, work-done notifications).
    ///
    /// # Errors
    /// [`GpuError::Poll`] when the device is lost or the wait times out.
    pub fn wait_idle(&self) -> Result<(), GpuError> {
        self.inner
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| GpuError::Poll {
                reason: e.to_string(),
            })
    }

    /// Whether the device is lost: destroyed (`gpu.device().destroy()`) or lost by the driver.
    /// Transfers and buffer creation on a lost device return [`GpuError::DeviceLost`].
    ///
    /// wgpu reports the loss of a destroyed device (its device-lost callback) only once the work
    /// queued before has finished, and drops the errors of calls on a lost device without a
    /// word, so this does not wait for the callback: after a non-blocking `device.poll`, it
    /// creates a 4-byte buffer mapped at creation, which a lost device leaves unmapped (wgpu
    /// then refuses its mapped range), and remembers the loss it found.
    #[must_use]
    pub fn is_lost(&self) -> bool {
        if self.inner.lost.load(Ordering::Acquire) {
            return true;
        }
        // The poll's own error (a lost device) is the answer being looked for, not a failure.
        let _ = self.inner.device.poll(wgpu::PollType::Poll);
        if self.inner.lost.load(Ordering::Acquire) {
            return true;
        }
        if self.refuses_mapped_buffers() {
            self.inner.lost.store(true, Ordering::Release);
            return true;
        }
        false
    }

    /// Whether a 4-byte buffer created mapped comes back without its mapping: what a lost
    /// device's (invalid) buffers do. Inside error scopes, so a refusal on a live device (out of
    /// memory) is no panic and no loss.
    fn refuses_mapped_buffers(&self) -> bool {
        let device = &self.inner.device;
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let probe = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpudata loss probe"),
            size: 4,
            usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: true,
        });
        let unmapped = probe.get_mapped_range(..).is_err();
        probe.destroy();
        let validation = validation.pop();
        let oom = oom.pop();
        // A refusal the scopes caught is a live device's: no loss.
        let caught = pollster::block_on(validation).is_some() | pollster::block_on(oom).is_some();
        unmapped && !caught
    }

    /// [`GpuError::DeviceLost`] naming `operation` when the device [is lost](Self::is_lost).
    pub(crate) fn check_lost(&self, operation: &'static str) -> Result<(), GpuError> {
        if self.is_lost() {
            Err(GpuError::DeviceLost { operation })
        } else {
            Ok(())
        }
    }

    /// [`check_lost`](Self::check_lost) after waiting for the device to go idle: for a call that
    /// just failed, where a lost device is the likely cause and wgpu reports the loss of a
    /// destroyed device only once its queued work has finished.
    pub(crate) fn confirm_lost(&self, operation: &'static str) -> Result<(), GpuError> {
        if !self.inner.lost.load(Ordering::Acquire) {
            // A failed wait is itself a sign of loss; the flag is the answer.
            let _ = self.inner.device.poll(wgpu::PollType::wait_indefinitely());
        }
        self.check_lost(operation)
    }

    /// [`check_lost`](Self::check_lost) without the poll: only a loss wgpu has reported already.
    /// For calls too frequent to poll the device each time (buffer creation).
    pub(crate) fn check_reported_lost(&self, operation: &'static str) -> Result<(), GpuError> {
        if self.inner.lost.load(Ordering::Acquire) {
            Err(GpuError::DeviceLost { operation })
        } else {
            Ok(())
        }
    }

    /// Whether two handles talk to the same device: clones of one `Gpu`, or `Gpu`s wrapping
    /// clones of one `wgpu::Device` through [`from_device_queue`](Self::from_device_queue).
    ///
    /// Two [`headless`](Self::headless) devices are never the same (each opens its own wgpu
    /// instance). wgpu's `Device` equality compares ids that are unique only within one
    /// `wgpu::Instance`, so devices of two instances can compare equal: when it says equal and
    /// a wrapped device is involved, wgpu is asked directly whether both handles report errors
    /// to one device (an error scope pushed through one handle catches an invalid, empty-usage
    /// buffer created through the other only when they are one device).
    #[must_use]
    pub fn same_device(&self, other: &Gpu) -> bool {
        if Arc::ptr_eq(&self.inner, &other.inner) {
            return true;
        }
        if self.inner.own_instance && other.inner.own_instance {
            return false;
        }
        self.inner.device == other.inner.device
            && shares_error_sink(&self.inner.device, &other.inner.device)
    }

    /// `Ok` when data made on `data_device` may be used on this device: it is the same device,
    /// or the data's device is unknown (data over a buffer the caller made, not said to be on a
    /// device). Otherwise [`GpuError::DeviceLost`] when this device is lost (a lost device
    /// answers no probe), else [`GpuError::OtherDevice`] naming `operation`. Every entry point
    /// that uses data on a `Gpu` goes through this check (through `GpuData::buffer_on` and
    /// `GpuDataView::buffer_on`), so another device's data is refused before wgpu resolves
    /// its buffer id among this device's buffers.
    pub(crate) fn check_same_device(
        &self,
        data_device: Option<&Gpu>,
        operation: &'static str,
    ) -> Result<(), GpuError> {
        match data_device {
            Some(device) if !device.same_device(self) => {
                self.check_reported_lost(operation)?;
                Err(GpuError::OtherDevice {
                    operation,
                    data_adapter: device.inner.adapter_info.name.clone(),
                    adapter: self.inner.adapter_info.name.clone(),
                })
            }
            _ => Ok(()),
        }
    }
}

/// Whether `a` and `b`, two handles whose ids compare equal, report errors to one device: an
/// error scope pushed through `b` and then one through `a`; an invalid buffer (no usage flags)
/// created through `b` lands in the innermost scope of its device, `a`'s only when `a` is the
/// same device. Both scopes catch validation errors, so the probe never reaches wgpu's default
/// handler, and scopes are per thread, so other threads' work is not caught.
fn shares_error_sink(a: &wgpu::Device, b: &wgpu::Device) -> bool {
    let outer = b.push_error_scope(wgpu::ErrorFilter::Validation);
    let inner = a.push_error_scope(wgpu::ErrorFilter::Validation);
    let probe = b.create_buffer(&wgpu::BufferDescriptor {
        label: Some("gpudata device probe"),
        size: 4,
        usage: wgpu::BufferUsages::empty(),
        mapped_at_creation: false,
    });
    // Popped innermost first; on one device `inner` is above `outer` on the same stack.
    let inner = inner.pop();
    let outer = outer.pop();
    drop(probe);
    let same = pollster::block_on(inner).is_some();
    drop(pollster::block_on(outer));
    same
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.inner.adapter_info.name)
            .field("backend", &self.inner.adapter_info.backend)
            .field("kind", &self.adapter_kind())
            .finish_non_exhaustive()
    }
}
