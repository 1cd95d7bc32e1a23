//! The headless device: which adapter was chosen and what it allows.

mod common;

#[test]
fn headless_reports_its_adapter() {
    let gpu = common::gpu();
    let info = gpu.adapter_info();
    assert!(!info.name.is_empty());
    assert!(gpu.adapter_summary().contains(&info.name));
    eprintln!("{}", gpu.adapter_summary());
    eprintln!("{:?}", gpu.limits());
    let clone = gpu.clone();
    assert!(clone.same_device(&gpu));
}
