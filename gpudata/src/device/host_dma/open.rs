//! Opening a Vulkan device with `VK_EXT_external_memory_host` enabled.
//!
//! wgpu 30 has no descriptor field for extra Vulkan extensions; wgpu-hal's
//! `vulkan::Adapter::open_with_callback` lets a callback add extensions to the list wgpu-hal
//! enables, and `wgpu::Adapter::create_device_from_hal` wraps the opened device as wgpu's.

use ash::vk;
use wgpu::hal::api::Vulkan;
use wgpu::hal::vulkan::CreateDeviceCallbackArgs;

/// The extension, as ash names it.
const EXTENSION: &std::ffi::CStr = ash::ext::external_memory_host::NAME;

/// A device and queue on `adapter` for `desc`: on a Vulkan adapter that offers
/// `VK_EXT_external_memory_host` on Vulkan 1.1 or later, opened with it enabled; otherwise (or
/// when that device fails to open) `adapter.request_device(desc)`.
pub(crate) async fn request_device(
    adapter: &wgpu::Adapter,
    desc: &wgpu::DeviceDescriptor<'_>,
) -> Result<(wgpu::Device, wgpu::Queue), wgpu::RequestDeviceError> {
    if let Some(opened) = open_with_host_memory(adapter, desc) {
        return Ok(opened);
    }
    adapter.request_device(desc).await
}

/// Whether a Vulkan adapter offers the extension with what it needs: Vulkan 1.1 on the device
/// (external memory is core there) and on the instance (properties2, to read the alignment).
pub(super) fn offers_extension(adapter: &wgpu::hal::vulkan::Adapter) -> bool {
    let caps = adapter.physical_device_capabilities();
    caps.supports_extension(EXTENSION)
        && caps.properties().api_version >= vk::API_VERSION_1_1
        && adapter.shared_instance().instance_api_version() >= vk::API_VERSION_1_1
}

/// The device opened with the extension, or `None` where the adapter is not Vulkan, does not
/// offer it, or the device does not open.
fn open_with_host_memory(
    adapter: &wgpu::Adapter,
    desc: &wgpu::DeviceDescriptor<'_>,
) -> Option<(wgpu::Device, wgpu::Queue)> {
    if adapter.get_info().backend != wgpu::Backend::Vulkan {
        return None;
    }
    let opened = {
        // SAFETY: the hal adapter is used only inside this block, while `adapter` (which owns
        // it) is borrowed; nothing is destroyed through it.
        let hal = unsafe { adapter.as_hal::<Vulkan>() }?;
        if !offers_extension(&hal) {
            return None;
        }
        let add_extension: Box<wgpu::hal::vulkan::CreateDeviceCallback<'_>> =
            Box::new(|args: CreateDeviceCallbackArgs<'_, '_, '_>| {
                if !args.extensions.contains(&EXTENSION) {
                    args.extensions.push(EXTENSION);
                }
            });
        // SAFETY: `open`'s contract: the features and limits are the adapter's own (the
        // caller's descriptor asks for the adapter's limits and a subset of its features, as
        // `Adapter::request_device` would pass them). `open_with_callback`'s: the callback only
        // adds an extension the physical device lists (checked above, with the Vulkan 1.1 it
        // depends on), and removes no feature.
        unsafe {
            hal.open_with_callback(
                desc.required_features,
                &desc.required_limits,
                &desc.memory_hints,
                Some(add_extension),
            )
        }
        .ok()?
    };
    // SAFETY: `opened` was opened from this adapter's own hal adapter just above, with exactly
    // `desc.required_features`, which the adapter supports.
    unsafe { adapter.create_device_from_hal(opened, desc) }.ok()
}
