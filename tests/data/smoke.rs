//! The headless device: which adapter was chosen and what it allows; the error without one.

use crate::support;

use gpudata::device::AdapterKind;
use gpudata::{Gpu, GpuError};

#[test]
fn headless_reports_its_adapter() {
    let gpu = support::gpu();
    let info = gpu.adapter_info();
    assert!(!info.name.is_empty());
    let summary = gpu.adapter_summary();
    assert!(summary.contains(&info.name), "{summary}");
    assert!(
        summary.contains(&gpu.adapter_kind().to_string()),
        "{summary}"
    );
    assert_eq!(gpu.adapter_kind(), AdapterKind::of(info.device_type));
    // The device gets the adapter's limits, not WebGPU's defaults.
    assert_eq!(gpu.limits(), &gpu.device().limits());
    let clone = gpu.clone();
    assert!(clone.same_device(&gpu));
    let wrapped = Gpu::from_device_queue(gpu.device().clone(), gpu.queue().clone());
    assert!(wrapped.same_device(&gpu));
    // A second headless device lives in a wgpu instance of its own, where its id can equal the
    // first device's: it is still another device.
    let other = Gpu::headless().unwrap();
    assert!(!other.same_device(&gpu));
    assert_eq!(wrapped.adapter_info().name, info.name);
    gpu.wait_idle().unwrap();
}

#[test]
fn no_adapter_is_an_error_that_says_how_to_install_one() {
    let error = Gpu::headless_on(wgpu::Backends::empty()).unwrap_err();
    assert!(matches!(error, GpuError::NoAdapter { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.starts_with("no gpu adapter found ("), "{message}");
    assert!(
        message.contains("apt-get install mesa-vulkan-drivers"),
        "{message}"
    );
}
