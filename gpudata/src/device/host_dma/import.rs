//! One host range imported as Vulkan memory and wrapped as a [`wgpu::Buffer`].
//!
//! Safety argument, in one place:
//! - The caller's range lies inside the enclosing blocks of `minImportedHostPointerAlignment`
//!   bytes that are imported; those pages are mapped for as long as any byte of the range is
//!   (an allocator unmaps or discards only whole pages it owns entirely), so they stay valid
//!   while the caller's borrow does. The copies touch only the caller's bytes (the buffer
//!   offset of its first byte, its length).
//! - [`Imported`] is made from a borrow that outlives it (the transfer functions hold the
//!   caller's slice for their whole run) and is dropped before they return.
//! - The memory object must outlive every GPU use and the host memory must outlive the memory
//!   object (the extension's rule). wgpu destroys the buffer when its last user lets go: our
//!   handle and every submission that used it, released once the device reports that
//!   submission done. The wgpu-hal buffer is *externally owned*: wgpu-hal destroys nothing
//!   itself and calls our callback, which destroys the `VkBuffer`, frees the `VkDeviceMemory`
//!   and only then raises a flag. [`Imported`]'s drop waits for that flag (polling the device
//!   so finished submissions are released), so the caller's borrow cannot end while Vulkan
//!   still holds the pages. The wgpu buffer is never handed out, so nothing else can hold it.
//! - A device that never lets the buffer go (lost, so its submissions never finish) would make
//!   that wait endless; after [`RELEASE_TIMEOUT`] the process aborts rather than return memory
//!   the device may still write.

use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ash::vk;
use wgpu::hal::api::Vulkan;

use super::HostDmaError;

/// The handle type of host-pointer imports.
const HOST_ALLOCATION: vk::ExternalMemoryHandleTypeFlags =
    vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT;

/// How long [`Imported`]'s drop waits for wgpu to release the buffer before aborting.
const RELEASE_TIMEOUT: Duration = Duration::from_secs(60);

/// What one device needs to import host memory.
pub(crate) struct DmaDevice {
    device: ash::Device,
    ext: ash::ext::external_memory_host::Device,
    alignment: u64,
    /// The memory types that are `HOST_COHERENT`, as a bit mask: imports use only these, so
    /// host writes before a submission and device writes made available to the host (the
    /// readback's barrier) need no flush or invalidation of mapped ranges.
    coherent: u32,
}

impl DmaDevice {
    /// The import functions of `device`, or why it has none.
    pub(crate) fn of(
        device: &wgpu::Device,
        adapter: &wgpu::AdapterInfo,
    ) -> Result<DmaDevice, HostDmaError> {
        // SAFETY: the hal device is used only to read handles and properties and to load the
        // extension's functions; `device` keeps it alive meanwhile, and the `ash::Device` kept
        // is a function table over a handle that `Gpu` keeps alive (it holds the device).
        let hal = unsafe { device.as_hal::<Vulkan>() }.ok_or_else(|| HostDmaError::NotVulkan {
            adapter: adapter.name.clone(),
            backend: adapter.backend.to_string(),
        })?;
        let instance = hal.shared_instance();
        if instance.instance_api_version() < vk::API_VERSION_1_1 {
            return Err(HostDmaError::Unsupported {
                adapter: adapter.name.clone(),
            });
        }
        if !hal
            .enabled_device_extensions()
            .contains(&ash::ext::external_memory_host::NAME)
        {
            return Err(HostDmaError::NotEnabled {
                adapter: adapter.name.clone(),
            });
        }
        let mut host = vk::PhysicalDeviceExternalMemoryHostPropertiesEXT::default();
        let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut host);
        // SAFETY: a physical device of this instance, which is Vulkan 1.1 (checked above).
        unsafe {
            instance
                .raw_instance()
                .get_physical_device_properties2(hal.raw_physical_device(), &mut props);
        }
        let alignment = host.min_imported_host_pointer_alignment.max(1);
        if !alignment.is_power_of_two() {
            return Err(HostDmaError::Unsupported {
                adapter: adapter.name.clone(),
            });
        }
        // Buffers for copies both ways must be importable from host allocations, without a
        // dedicated allocation (each import is one buffer, but not declared dedicated).
        let external = vk::PhysicalDeviceExternalBufferInfo::default()
            .usage(vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST)
            .handle_type(HOST_ALLOCATION);
        let mut importable = vk::ExternalBufferProperties::default();
        // SAFETY: a physical device of this instance, which is Vulkan 1.1 (checked above).
        unsafe {
            instance
                .raw_instance()
                .get_physical_device_external_buffer_properties(
                    hal.raw_physical_device(),
                    &external,
                    &mut importable,
                );
        }
        let features = importable
            .external_memory_properties
            .external_memory_features;
        if !features.contains(vk::ExternalMemoryFeatureFlags::IMPORTABLE)
            || features.contains(vk::ExternalMemoryFeatureFlags::DEDICATED_ONLY)
        {
            return Err(HostDmaError::Unsupported {
                adapter: adapter.name.clone(),
            });
        }
        // SAFETY: a physical device of this instance.
        let memory = unsafe {
            instance
                .raw_instance()
                .get_physical_device_memory_properties(hal.raw_physical_device())
        };
        let coherent = memory
            .memory_types_as_slice()
            .iter()
            .enumerate()
            .filter(|(_, t)| {
                t.property_flags
                    .contains(vk::MemoryPropertyFlags::HOST_COHERENT)
            })
            .fold(0u32, |mask, (i, _)| mask | (1 << i));
        let raw = hal.raw_device().clone();
        let ext = ash::ext::external_memory_host::Device::new(instance.raw_instance(), &raw);
        Ok(DmaDevice {
            device: raw,
            ext,
            alignment,
            coherent,
        })
    }

    /// `minImportedHostPointerAlignment`.
    pub(crate) fn alignment(&self) -> u64 {
        self.alignment
    }

    /// Records, through wgpu's raw encoding, a barrier making transfer writes of the commands
    /// submitted before it available to the host (the readback's imported memory is read by
    /// the CPU after the fence): a command buffer of its own, submitted after the copies.
    pub(crate) fn host_read_barrier(&self, device: &wgpu::Device) -> wgpu::CommandBuffer {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("gpudata host dma barrier"),
        });
        // SAFETY: the raw command buffer is open (wgpu-hal begins it for raw recording), only
        // recorded into, neither ended nor destroyed; the wgpu encoder is not used until the
        // callback returns, and only raw commands go into it (wgpu forbids mixing).
        unsafe {
            encoder.as_hal_mut::<Vulkan, _, _>(|hal| {
                if let Some(hal) = hal {
                    let barrier = vk::MemoryBarrier::default()
                        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                        .dst_access_mask(vk::AccessFlags::HOST_READ);
                    self.device.cmd_pipeline_barrier(
                        hal.raw_handle(),
                        vk::PipelineStageFlags::TRANSFER,
                        vk::PipelineStageFlags::HOST,
                        vk::DependencyFlags::empty(),
                        &[barrier],
                        &[],
                        &[],
                    );
                }
            });
        }
        encoder.finish()
    }

    /// Imports `len` bytes (a multiple of 4, more than 0) from `ptr` (4-byte aligned) as a
    /// buffer on `device` with `COPY_SRC | COPY_DST` usage, or `None` when the driver refuses
    /// (memory it cannot import: read-only or file-backed pages, no common host-coherent memory
    /// type, out of memory). The caller's bytes are at [`Imported::offset`] in it.
    ///
    /// # Safety
    /// `ptr..ptr + len` is memory the caller keeps valid (allocated, mapped) until the returned
    /// [`Imported`] is dropped; writable, and neither read nor written by anyone else until
    /// then, when the buffer is a copy's destination.
    pub(crate) unsafe fn import(
        &self,
        device: &wgpu::Device,
        ptr: *const u8,
        len: u64,
    ) -> Option<Imported> {
        let address = ptr as u64;
        let base = address & !(self.alignment - 1);
        let end = address
            .checked_add(len)?
            .checked_next_multiple_of(self.alignment)?;
        let size = end - base;
        let base_ptr = base as usize as *mut c_void;
        let mut pointer = vk::MemoryHostPointerPropertiesEXT::default();
        // SAFETY: a pointer to mapped host memory (the caller's range lies in its blocks),
        // aligned to minImportedHostPointerAlignment.
        // ash 0.38 has only the raw function pointer for this extension.
        let result = unsafe {
            (self.ext.fp().get_memory_host_pointer_properties_ext)(
                self.device.handle(),
                HOST_ALLOCATION,
                base_ptr,
                &mut pointer,
            )
        };
        result.result().ok()?;
        let mut external =
            vk::ExternalMemoryBufferCreateInfo::default().handle_types(HOST_ALLOCATION);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .push_next(&mut external);
        // SAFETY: a valid create info on a live device.
        let buffer = unsafe { self.device.create_buffer(&info, None) }.ok()?;
        let memory = match self.bind(buffer, base_ptr, size, pointer.memory_type_bits) {
            Some(memory) => memory,
            None => {
                // SAFETY: created above, bound to nothing, used by nothing.
                unsafe { self.device.destroy_buffer(buffer, None) };
                return None;
            }
        };
        let released = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&released);
        let raw = self.device.clone();
        let drop_callback: wgpu::hal::DropCallback = Box::new(move || {
            // SAFETY: wgpu-hal calls this once, when wgpu destroys the buffer: after every
            // submission using it is done, while the device lives (wgpu's buffer holds it).
            unsafe {
                raw.destroy_buffer(buffer, None);
                raw.free_memory(memory, None);
            }
            flag.store(true, Ordering::Release);
        });
        // SAFETY: `buffer` lives until the drop callback destroys it, after wgpu-hal's buffer is
        // gone; wgpu never maps it (no MAP usage).
        let hal_buffer =
            unsafe { wgpu::hal::vulkan::Buffer::from_raw_externally_owned(buffer, drop_callback) };
        // SAFETY: created on this device, `size` bytes (not zero) with TRANSFER_SRC |
        // TRANSFER_DST usage as the descriptor says, bound to memory whose bytes are the host's
        // (initialized).
        let wrapped = unsafe {
            device.create_buffer_from_hal::<Vulkan>(
                hal_buffer,
                &wgpu::BufferDescriptor {
                    label: Some("gpudata host dma"),
                    size,
                    usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                },
            )
        };
        Some(Imported {
            buffer: Some(wrapped),
            offset: address - base,
            released,
            device: device.clone(),
        })
    }

    /// Imports `size` bytes at `base` and binds them to `buffer`: the memory, or `None`.
    fn bind(
        &self,
        buffer: vk::Buffer,
        base: *mut c_void,
        size: u64,
        host_types: u32,
    ) -> Option<vk::DeviceMemory> {
        // SAFETY: a buffer of this device.
        let needs = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let types = needs.memory_type_bits & host_types & self.coherent;
        if types == 0 || needs.size > size {
            return None;
        }
        let mut import = vk::ImportMemoryHostPointerInfoEXT::default()
            .handle_type(HOST_ALLOCATION)
            .host_pointer(base);
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(size)
            .memory_type_index(types.trailing_zeros())
            .push_next(&mut import);
        // SAFETY: `base` and `size` are multiples of minImportedHostPointerAlignment and the
        // memory type is one the driver reported for this pointer (the caller keeps it valid).
        let memory = unsafe { self.device.allocate_memory(&info, None) }.ok()?;
        // SAFETY: offset 0 of memory at least `needs.size` bytes large, of an allowed type.
        if unsafe { self.device.bind_buffer_memory(buffer, memory, 0) }.is_err() {
            // SAFETY: allocated above, bound to nothing.
            unsafe { self.device.free_memory(memory, None) };
            return None;
        }
        Some(memory)
    }
}

/// A host range imported and wrapped as a [`wgpu::Buffer`]; its drop returns only once wgpu has
/// destroyed the buffer and freed its memory object (module docs).
pub(crate) struct Imported {
    buffer: Option<wgpu::Buffer>,
    /// The buffer offset of the caller's first byte.
    offset: u64,
    released: Arc<AtomicBool>,
    device: wgpu::Device,
}

impl Imported {
    /// The wrapped buffer (only for copies submitted before this is dropped).
    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        // Always `Some` until drop.
        self.buffer.as_ref().unwrap_or_else(|| unreachable!())
    }

    /// The buffer offset of the caller's first byte.
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }
}

impl Drop for Imported {
    fn drop(&mut self) {
        drop(self.buffer.take());
        let start = Instant::now();
        while !self.released.load(Ordering::Acquire) {
            // Releases finished submissions (and with them their hold on the buffer); a lost
            // device answers at once, so pause between tries.
            if self
                .device
                .poll(wgpu::PollType::wait_indefinitely())
                .is_err()
            {
                std::thread::sleep(Duration::from_millis(1));
            }
            if !self.released.load(Ordering::Acquire) && start.elapsed() > RELEASE_TIMEOUT {
                eprintln!(
                    "gpudata: the device did not release imported host memory within {} s; aborting rather than return memory it may still use",
                    RELEASE_TIMEOUT.as_secs()
                );
                std::process::abort();
            }
        }
    }
}
