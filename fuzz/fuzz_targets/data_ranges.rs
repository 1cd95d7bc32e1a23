//! Arbitrary offsets, strides, lengths and buffer sizes through `GpuDataDescriptor::resolve` and
//! `GpuDataView::new`/`slice`: no panic, no wrap-around, and whatever is accepted lies inside the
//! buffer. Views use real `wgpu::Buffer`s from wgpu's noop backend (no GPU needed).
#![no_main]

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use gpudata::data::GpuDataDescriptor;
use gpudata::{GpuDataStructFormat, GpuDataView, GpuVectorFormat, StructLayout, VertexFormat};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    format: u8,
    list: u8,
    struct_fields: Vec<u8>,
    length: u64,
    value_length: Option<u64>,
    stride: Option<u64>,
    byte_offset: u64,
    byte_stride: Option<u64>,
    row_byte_length: Option<u64>,
    buffer_size: u64,
    view_buffer_size: u16,
    view_length: u64,
    view_offset: u64,
    view_stride: Option<u64>,
    slice_first: u64,
    slice_rows: u64,
}

fn device() -> &'static wgpu::Device {
    static DEVICE: OnceLock<wgpu::Device> = OnceLock::new();
    DEVICE.get_or_init(|| {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::NOOP,
            backend_options: wgpu::BackendOptions {
                noop: wgpu::NoopBackendOptions {
                    enable: true,
                    ..Default::default()
                },
                ..Default::default()
            },
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let adapter = pollster::block_on(instance.request_adapter(&Default::default()))
            .expect("the noop adapter exists");
        pollster::block_on(adapter.request_device(&Default::default()))
            .expect("the noop device exists")
            .0
    })
}

fuzz_target!(|input: Input| {
    let element = VertexFormat::ALL[usize::from(input.format) % VertexFormat::ALL.len()];
    let mut descriptor = if input.struct_fields.is_empty() {
        let format = match input.list % 3 {
            0 => GpuVectorFormat::Fixed(element),
            1 => GpuVectorFormat::VertexList(element),
            _ => GpuVectorFormat::ValueList(element),
        };
        GpuDataDescriptor::new(format, input.length)
    } else {
        let fields = input.struct_fields.iter().take(16).enumerate().map(|(i, f)| {
            (format!("f{i}"), VertexFormat::ALL[usize::from(*f) % VertexFormat::ALL.len()])
        });
        let Ok(format) = GpuDataStructFormat::new(StructLayout::WgslStorage, fields) else {
            return;
        };
        GpuDataDescriptor::new(format, input.length)
    };
    descriptor.value_length = input.value_length;
    descriptor.stride = input.stride;
    descriptor.byte_offset = input.byte_offset;
    descriptor.byte_stride = input.byte_stride;
    descriptor.row_byte_length = input.row_byte_length;
    if let Ok(metrics) = descriptor.resolve(input.buffer_size) {
        let len = metrics.checked_byte_length().expect("accepted ranges do not overflow");
        let end = metrics.byte_offset.checked_add(len).expect("accepted ranges do not overflow");
        assert!(end <= input.buffer_size, "{metrics:?} exceeds {}", input.buffer_size);
        assert!(metrics.value_length == 0 || metrics.byte_stride >= metrics.row_byte_length);
    }

    let size = u64::from(input.view_buffer_size);
    let buffer = device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::VERTEX,
        mapped_at_creation: false,
    });
    if let Ok(view) = GpuDataView::new(
        &buffer,
        element,
        input.view_length,
        input.view_offset,
        input.view_stride,
    ) {
        let end = view.byte_offset().checked_add(view.byte_length()).expect("no overflow");
        assert!(end <= size);
        assert!(view.byte_stride() >= element.byte_length());
        if let Some(part) = view.slice(input.slice_first, input.slice_rows) {
            let end = part.byte_offset().checked_add(part.byte_length()).expect("no overflow");
            assert!(end <= size);
            assert!(part.length() <= view.length());
        }
    }
});
