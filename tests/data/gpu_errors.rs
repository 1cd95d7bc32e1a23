//! The error catalogue (`docs/ERRORS.md`): every [`GpuError`] variant triggered through the
//! public API on lavapipe, pinned by variant and by its whole rendered message. Tests that
//! destroy a buffer or the device open their own device, so the shared one stays usable.

use gpudata::data::DEFAULT_USAGE;
use gpudata::layout::VertexLayoutSource as _;
use gpudata::{
    BufferHandle, DataError, Gpu, GpuData, GpuDataDescriptor, GpuDataView, GpuError, GpuStruct,
    StepMode, TypedGpuData, VertexFormat,
};

use crate::support::{buffer, floats_with, fresh_gpu, gpu};

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
struct Row {
    value: f32,
}

#[test]
fn no_adapter() {
    let error = Gpu::headless_on(wgpu::Backends::empty()).unwrap_err();
    let GpuError::NoAdapter { reason } = &error else {
        panic!("expected NoAdapter, found {error:?}");
    };
    assert_eq!(
        error.to_string(),
        format!(
            "no gpu adapter found ({reason}); to run without a GPU install a software Vulkan driver: `sudo apt-get install mesa-vulkan-drivers` on Debian or Ubuntu (lavapipe), `mesa-vulkan-drivers` on Fedora"
        )
    );
}

#[test]
fn request_device_message() {
    // Every adapter `Gpu::headless` finds opens a device with its own limits and no features,
    // so a refusal comes only from a broken driver; the message is pinned from the variant.
    let error = GpuError::RequestDevice {
        adapter: "llvmpipe".into(),
        reason: "out of memory".into(),
    };
    assert_eq!(
        error.to_string(),
        "adapter `llvmpipe` refused to create a device: out of memory"
    );
}

#[test]
fn poll() {
    // Transfers report what wgpu refused (Validation) and a lost device (DeviceLost) before they
    // wait, so no public call fails the wait itself on lavapipe; pinned from the variant.
    let error = GpuError::Poll {
        reason: "wait timed out".into(),
    };
    assert_eq!(
        error.to_string(),
        "waiting for the gpu failed: wait timed out"
    );
}

#[test]
fn map() {
    // A lost device gives DeviceLost and a refused mapping Validation; a bare mapping failure on
    // a live device does not happen on lavapipe, so the message is pinned from the variant.
    let error = GpuError::Map {
        reason: "Buffer map failed".into(),
    };
    assert_eq!(
        error.to_string(),
        "mapping the readback buffer failed: Buffer map failed"
    );
}

#[test]
fn validation() {
    // Reading through a shared handle after the owner destroyed the buffer: wgpu refuses the
    // copy. The error scope returns its refusal; wgpu's default handler (which panics) is never
    // reached, so this device installs no handler of its own.
    let gpu = fresh_gpu();
    let data = floats_with(&gpu, &[1.0, 2.0], DEFAULT_USAGE);
    let shared = data.share();
    data.destroy();
    for error in [
        shared.read_bytes(&gpu).unwrap_err(),
        pollster::block_on(shared.read_bytes_async(&gpu)).unwrap_err(),
    ] {
        let GpuError::Validation { operation, source } = &error else {
            panic!("expected Validation, found {error:?}");
        };
        assert_eq!(*operation, "read back a buffer");
        assert!(
            matches!(source.wgpu_error(), wgpu::Error::Validation { .. }),
            "{source:?}"
        );
        assert!(source.to_string().contains("destroyed"), "{source}");
        assert!(!source.to_string().contains('\n'), "{source}");
        assert_eq!(
            error.to_string(),
            format!("wgpu refused to read back a buffer: {source}")
        );
        let chained = std::error::Error::source(&error).map(ToString::to_string);
        assert_eq!(chained, Some(source.to_string()));
    }
    // The device is still usable.
    assert!(!gpu.is_lost());
    assert_eq!(
        floats_with(&gpu, &[3.0], DEFAULT_USAGE)
            .read_bytes(&gpu)
            .unwrap(),
        3.0f32.to_le_bytes()
    );
}

#[test]
fn device_lost() {
    let gpu = fresh_gpu();
    let data = floats_with(&gpu, &[1.0, 2.0], DEFAULT_USAGE);
    let rows = TypedGpuData::from_rows(&gpu, &[Row { value: 1.0 }], DEFAULT_USAGE).unwrap();
    assert!(!gpu.is_lost());
    gpu.device().destroy();
    let lost = |operation| GpuError::DeviceLost { operation };
    // The first transfer finds the loss (wgpu reports a destroyed device only once the work
    // queued before has finished, and says nothing in the meantime).
    assert_eq!(data.read_bytes(&gpu), Err(lost("read back a buffer")));
    assert!(gpu.is_lost());
    assert!(gpu.clone().is_lost());
    // Readbacks, blocking and async.
    assert_eq!(data.read_bytes(&gpu), Err(lost("read back a buffer")));
    assert_eq!(
        pollster::block_on(data.read_bytes_async(&gpu)),
        Err(lost("read back a buffer"))
    );
    assert_eq!(rows.read_rows(&gpu), Err(lost("read back a buffer")));
    assert_eq!(
        data.as_view().unwrap().read_values(&gpu),
        Err(DataError::Gpu(lost("read back a buffer")))
    );
    // Uploads, blocking and async, and writes.
    assert_eq!(
        GpuData::from_slice(&gpu, VertexFormat::Float32, &[1.0f32; 4], DEFAULT_USAGE).unwrap_err(),
        DataError::Gpu(lost("create a buffer"))
    );
    assert_eq!(
        pollster::block_on(TypedGpuData::from_rows_async(
            &gpu,
            &[Row { value: 2.0 }],
            DEFAULT_USAGE
        ))
        .err(),
        Some(DataError::Gpu(lost("create a buffer")))
    );
    assert_eq!(
        rows.write_rows(&gpu, 0, &[Row { value: 3.0 }]),
        Err(DataError::Gpu(lost("stage an upload")))
    );
    assert_eq!(
        pollster::block_on(rows.write_rows_async(&gpu, 0, &[Row { value: 3.0 }])),
        Err(DataError::Gpu(lost("stage an upload")))
    );
    assert_eq!(
        lost("read back a buffer").to_string(),
        "cannot read back a buffer: the device is lost (destroyed or reset by the driver); create a new Gpu"
    );
}

#[test]
fn map_usage() {
    // wgpu's rule, checked before wgpu is asked (its default handler would panic).
    let gpu = gpu();
    use wgpu::BufferUsages as U;
    let error =
        GpuData::zeroed(&gpu, VertexFormat::Float32, 4, U::MAP_READ | U::STORAGE).unwrap_err();
    let expected = GpuError::MapUsage {
        usage: U::MAP_READ | U::STORAGE | U::COPY_DST,
        map: U::MAP_READ,
        partner: U::COPY_DST,
    };
    assert_eq!(error, DataError::Gpu(expected.clone()));
    assert_eq!(
        error.to_string(),
        "cannot create a buffer with usage MAP_READ | COPY_DST | STORAGE: MAP_READ combines only with COPY_DST unless the device has the MAPPABLE_PRIMARY_BUFFERS feature"
    );
    // Uploads add COPY_DST, which MAP_WRITE does not combine with.
    let error =
        GpuData::from_slice(&gpu, VertexFormat::Float32, &[1.0f32], U::MAP_WRITE).unwrap_err();
    assert_eq!(
        error,
        DataError::Gpu(GpuError::MapUsage {
            usage: U::MAP_WRITE | U::COPY_DST,
            map: U::MAP_WRITE,
            partner: U::COPY_SRC,
        })
    );
    assert_eq!(
        error.to_string(),
        "cannot create a buffer with usage MAP_WRITE | COPY_DST: MAP_WRITE combines only with COPY_SRC unless the device has the MAPPABLE_PRIMARY_BUFFERS feature"
    );
    // MAP_READ with COPY_DST alone is what readbacks use, and works.
    let data = GpuData::zeroed(&gpu, VertexFormat::Float32, 4, U::MAP_READ).unwrap();
    assert_eq!(data.buffer().usage(), U::MAP_READ | U::COPY_DST);
}

#[test]
fn empty_usage() {
    // Checked before wgpu is asked (its default handler would panic). Every public upload adds
    // COPY_DST (and growable columns COPY_SRC too), so no public call asks for an empty usage;
    // pinned from the variant.
    assert_eq!(
        GpuError::EmptyUsage.to_string(),
        "cannot create a buffer with no usage flags: expected at least one"
    );
}

#[test]
fn out_of_memory() {
    // lavapipe allocates host memory lazily up to max_buffer_size (BufferTooLarge above it), so
    // no cheap call runs it out of memory; the messages are pinned from the variant.
    let error = GpuError::OutOfMemory {
        operation: "create a buffer",
        bytes: Some(1 << 30),
    };
    assert_eq!(
        error.to_string(),
        "the device ran out of memory to create a buffer (1073741824 bytes asked for)"
    );
    let error = GpuError::OutOfMemory {
        operation: "compile a compute pipeline",
        bytes: None,
    };
    assert_eq!(
        error.to_string(),
        "the device ran out of memory to compile a compute pipeline"
    );
}

#[test]
fn missing_usage() {
    let gpu = gpu();
    let data = floats_with(&gpu, &[1.0, 2.0], wgpu::BufferUsages::VERTEX);
    let error = data.read_bytes(&gpu).unwrap_err();
    assert_eq!(
        error,
        GpuError::MissingUsage {
            operation: "read back gpu data",
            required: wgpu::BufferUsages::COPY_SRC,
            found: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        }
    );
    assert_eq!(
        error.to_string(),
        "cannot read back gpu data: the buffer needs usage COPY_SRC but was created with COPY_DST | VERTEX"
    );
    // Several flags are joined the same way; no flags at all are said in words.
    let error = GpuError::MissingUsage {
        operation: "map the buffer",
        required: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        found: wgpu::BufferUsages::empty(),
    };
    assert_eq!(
        error.to_string(),
        "cannot map the buffer: the buffer needs usage MAP_READ | COPY_DST but was created with no usage flags"
    );
}

#[test]
fn buffer_too_large() {
    let gpu = gpu();
    let max = gpu.limits().max_buffer_size;
    let rows = max / 4 + 1;
    let error = GpuData::zeroed(&gpu, VertexFormat::Float32, rows, DEFAULT_USAGE).unwrap_err();
    assert_eq!(
        error,
        DataError::Gpu(GpuError::BufferTooLarge {
            size: rows * 4,
            max
        })
    );
    assert_eq!(
        error.to_string(),
        format!(
            "a buffer of {} bytes exceeds the device's max_buffer_size {max}",
            rows * 4
        )
    );
}

#[test]
fn storage_offset_alignment() {
    let gpu = gpu();
    let alignment = gpu.limits().min_storage_buffer_offset_alignment;
    let buffer = buffer(&gpu, 64, DEFAULT_USAGE);
    let data = GpuData::new(
        BufferHandle::Shared(buffer),
        GpuDataDescriptor::new(VertexFormat::Uint16, 4).with_byte_offset(2),
    )
    .unwrap();
    let error = data.storage_binding(&gpu).unwrap_err();
    assert_eq!(
        error,
        GpuError::StorageOffsetAlignment {
            byte_offset: 2,
            alignment
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "storage binding at byte offset 2: the device requires storage buffer offsets to be multiples of {alignment} bytes (limits.min_storage_buffer_offset_alignment); upload the data into its own buffer or place it at an aligned offset"
        )
    );
}

#[test]
fn storage_binding_size() {
    let gpu = gpu();
    let max = gpu.limits().max_storage_buffer_binding_size;
    let data =
        GpuData::from_slice(&gpu, VertexFormat::Uint16, &[1u16, 2, 3], DEFAULT_USAGE).unwrap();
    let error = data.storage_binding(&gpu).unwrap_err();
    assert_eq!(error, GpuError::StorageBindingSize { size: 6, max });
    assert_eq!(
        error.to_string(),
        format!(
            "storage binding of 6 bytes: storage bindings must be non-empty multiples of 4 bytes, at most {max} bytes (limits.max_storage_buffer_binding_size)"
        )
    );
}

#[test]
fn storage_out_of_buffer() {
    // Two float32 rows every 8 bytes end at byte 12, but a storage binding covers whole rows
    // (16 bytes), past the 12-byte buffer.
    let gpu = gpu();
    let data = GpuData::from_bytes(
        &gpu,
        &[0u8; 12],
        GpuDataDescriptor::new(VertexFormat::Float32, 2).with_byte_stride(8),
        DEFAULT_USAGE,
    )
    .unwrap();
    let error = data.storage_binding(&gpu).unwrap_err();
    assert_eq!(
        error,
        GpuError::StorageOutOfBuffer {
            rows: 2,
            byte_stride: 8,
            byte_offset: 0,
            needed: 16,
            buffer_size: 12
        }
    );
    assert_eq!(
        error.to_string(),
        "storage binding of 2 rows every 8 bytes at byte offset 0 needs 16 bytes, but the buffer holds 12"
    );
}

#[test]
fn vertex_stride() {
    let gpu = gpu();
    let max = gpu.limits().max_vertex_buffer_array_stride;
    let buffer = buffer(&gpu, 64, DEFAULT_USAGE);
    let view = GpuDataView::new(&buffer, VertexFormat::Float32, 4, 0, Some(6)).unwrap();
    let error = view.vertex_binding(&gpu, 0, StepMode::Vertex).unwrap_err();
    assert_eq!(
        error,
        GpuError::VertexStride {
            byte_stride: 6,
            max
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "vertex binding with byte stride 6: vertex strides must be multiples of 4 bytes, at most {max} (limits.max_vertex_buffer_array_stride)"
        )
    );
}

#[test]
fn vertex_offset() {
    let gpu = gpu();
    let buffer = buffer(&gpu, 64, DEFAULT_USAGE);
    let view = GpuDataView::new(&buffer, VertexFormat::Float32, 4, 2, Some(4)).unwrap();
    let error = view.vertex_binding(&gpu, 0, StepMode::Vertex).unwrap_err();
    assert_eq!(
        error,
        GpuError::VertexOffset {
            format: VertexFormat::Float32,
            byte_offset: 2,
            rebase: 2,
            format_byte_length: 4,
            byte_stride: 4
        }
    );
    assert_eq!(
        error.to_string(),
        "vertex binding of float32 at byte offset 2: vertex buffers bind at multiples of 4 bytes, and the 2 bytes before the value plus its 4 bytes exceed the byte stride 4"
    );
}

#[test]
fn vertex_alignment() {
    // A `uint8x2` field one byte into packed rows: its attribute would start at byte 1 of the
    // binding, where wgpu refuses a 2-byte attribute when the pipeline is made.
    let gpu = gpu();
    let buffer = buffer(&gpu, 64, DEFAULT_USAGE);
    let view = GpuDataView::new(&buffer, VertexFormat::Uint8x2, 4, 1, Some(4)).unwrap();
    let error = view.vertex_binding(&gpu, 0, StepMode::Vertex).unwrap_err();
    assert_eq!(
        error,
        GpuError::VertexAlignment {
            format: VertexFormat::Uint8x2,
            byte_offset: 1,
            alignment: 2
        }
    );
    assert_eq!(
        error.to_string(),
        "vertex binding of uint8x2 at byte offset 1: vertex buffers bind at multiples of 4 bytes, and an attribute of uint8x2 must start on a multiple of 2 bytes past that"
    );
    // Its layout says the same, naming the attribute.
    assert_eq!(
        view.vertex_layout(0, StepMode::Vertex),
        Err(gpudata::LayoutError::MisalignedAttribute {
            attribute: "view".into(),
            byte_offset: 1,
            alignment: 2
        })
    );
}

#[test]
fn vertex_data_offset() {
    let gpu = gpu();
    let buffer = buffer(&gpu, 64, DEFAULT_USAGE);
    let data = GpuData::new(
        BufferHandle::Shared(buffer),
        GpuDataDescriptor::new(VertexFormat::Float32, 4).with_byte_offset(2),
    )
    .unwrap();
    let error = data.vertex_buffer_slice(&gpu).unwrap_err();
    assert_eq!(error, GpuError::VertexDataOffset { byte_offset: 2 });
    assert_eq!(
        error.to_string(),
        "gpu data at byte offset 2 cannot be bound as a vertex buffer: vertex buffers bind at multiples of 4 bytes; bind its child views, which rebase their attributes, or move the rows"
    );
}

#[test]
fn empty_binding() {
    let gpu = gpu();
    let data = floats_with(&gpu, &[], DEFAULT_USAGE);
    let error = data.vertex_buffer_slice(&gpu).unwrap_err();
    assert_eq!(
        error,
        GpuError::EmptyBinding {
            binding: "vertex buffer"
        }
    );
    assert_eq!(
        error.to_string(),
        "cannot bind an empty range as a vertex buffer: the data has no rows"
    );
}

#[test]
fn staging() {
    // A lost device gives DeviceLost and a refusal wgpu reports OutOfMemory or Validation; a
    // staging refusal without either does not happen on lavapipe, so the message is pinned
    // from the variant.
    let error = GpuError::Staging {
        byte_offset: 0,
        byte_length: 16,
    };
    assert_eq!(
        error.to_string(),
        "wgpu refused to stage 16 bytes for byte offset 0 (out of memory, or a destroyed or mapped buffer)"
    );
}

#[test]
fn vertex_format() {
    let gpu = gpu();
    let buffer = buffer(&gpu, 64, DEFAULT_USAGE);
    let view = GpuDataView::new(&buffer, VertexFormat::Uint8x3Webgl, 4, 0, Some(4)).unwrap();
    let error = view.vertex_binding(&gpu, 0, StepMode::Vertex).unwrap_err();
    assert_eq!(
        error,
        GpuError::VertexFormat {
            format: VertexFormat::Uint8x3Webgl
        }
    );
    assert_eq!(
        error.to_string(),
        "vertex binding of uint8x3-webgl: WebGL-only formats cannot be fetched by wgpu"
    );
}

#[test]
fn unaligned_copy() {
    // A 6-byte buffer made by the application: the readback would copy the partial last word.
    let gpu = gpu();
    let buffer = buffer(&gpu, 6, DEFAULT_USAGE);
    let data = GpuData::new(
        BufferHandle::Shared(buffer),
        GpuDataDescriptor::new(VertexFormat::Uint16, 3),
    )
    .unwrap();
    let error = data.read_bytes(&gpu).unwrap_err();
    assert_eq!(
        error,
        GpuError::UnalignedCopy {
            byte_offset: 0,
            byte_end: 6,
            buffer_size: 6
        }
    );
    assert_eq!(
        error.to_string(),
        "cannot copy bytes 0..6 of a 6-byte buffer: copies move whole 4-byte words and the buffer size is not a multiple of 4"
    );
}

#[test]
fn unaligned_write() {
    // Rows placed 2 bytes into the buffer cannot be written by whole 4-byte words.
    let gpu = gpu();
    let buffer = buffer(&gpu, 64, DEFAULT_USAGE);
    let data = GpuData::new(
        BufferHandle::Shared(buffer),
        GpuDataDescriptor::new(Row::FORMAT, 4).with_byte_offset(2),
    )
    .unwrap();
    let rows = TypedGpuData::<Row>::try_from_data(data).unwrap();
    let error = rows.write_rows(&gpu, 1, &[Row { value: 1.0 }]).unwrap_err();
    assert_eq!(
        error,
        DataError::Gpu(GpuError::UnalignedWrite {
            byte_offset: 6,
            byte_length: 4
        })
    );
    assert_eq!(
        error.to_string(),
        "cannot write 4 bytes at byte offset 6: queue writes start at multiples of 4 bytes and cover whole 4-byte words"
    );
}

#[test]
fn data() {
    // An upload whose descriptor does not fit the bytes: the data error itself, not wrapped.
    let gpu = gpu();
    let error = GpuData::from_bytes(
        &gpu,
        &[0u8; 8],
        GpuDataDescriptor::new(VertexFormat::Float32, 3),
        DEFAULT_USAGE,
    )
    .unwrap_err();
    assert_eq!(
        error,
        DataError::OutOfBuffer {
            what: "gpu data",
            byte_offset: 0,
            byte_end: 12,
            buffer_size: 8,
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu data exceeds its backing buffer: it covers bytes 0..12 but the buffer holds 8 bytes"
    );
}

#[test]
fn validation_of_an_upload() {
    // Writing rows through a shared handle after the owner destroyed the buffer: wgpu refuses
    // the staged write, and the error scope around it returns the refusal.
    let gpu = fresh_gpu();
    let owner = TypedGpuData::from_rows(&gpu, &[Row { value: 1.0 }; 4], DEFAULT_USAGE).unwrap();
    let shared = owner.share();
    owner.destroy();
    let error = shared
        .write_rows(&gpu, 0, &[Row { value: 2.0 }])
        .unwrap_err();
    let DataError::Gpu(GpuError::Validation { operation, source }) = &error else {
        panic!("expected Validation, found {error:?}");
    };
    assert_eq!(*operation, "stage an upload");
    assert!(source.to_string().contains("destroyed"), "{source}");
    assert_eq!(
        error.to_string(),
        format!("wgpu refused to stage an upload: {source}")
    );
    assert!(!gpu.is_lost());
}
