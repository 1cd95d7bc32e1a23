//! Fault injection through every data entry point (uploads, readbacks, views, bindings): data of
//! another device, destroyed and mapped buffers, invalid usages, device loss and, in a child
//! process under `ulimit -v`, out of memory. Each fault returns its typed error; none reaches
//! wgpu's default handler (which panics), and no test installs a handler of its own.

use gpudata::data::DEFAULT_USAGE;
use gpudata::{
    BufferHandle, DataError, Gpu, GpuData, GpuDataDescriptor, GpuDataView, GpuError, GpuStruct,
    StepMode, TypedGpuData, VertexFormat,
};

use crate::support::{assert_other_device, assert_validation, floats, fresh_gpu, gpu, other_gpu};

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
struct Row {
    value: f32,
}

/// Every data entry point that takes a `Gpu`, run against `data` (float32 rows) and `rows`
/// (typed rows) with `gpu`; each result's error, or `None` where it succeeded.
fn every_entry_point(
    gpu: &Gpu,
    data: &GpuData,
    rows: &TypedGpuData<Row>,
) -> Vec<(&'static str, Option<GpuError>)> {
    let view = data.as_view().unwrap();
    let typed = rows.get_child::<row_fields::Value>();
    let data_error = |r: Result<(), DataError>| match r {
        Ok(()) => None,
        Err(DataError::Gpu(e)) => Some(e),
        Err(e) => panic!("expected a device error, found {e:?}"),
    };
    vec![
        ("read_bytes", data.read_bytes(gpu).err()),
        (
            "read_bytes_async",
            pollster::block_on(data.read_bytes_async(gpu)).err(),
        ),
        (
            "read_packed_rows",
            data_error(data.read_packed_rows(gpu, 0, 1).map(drop)),
        ),
        (
            "read_packed_rows_async",
            data_error(pollster::block_on(data.read_packed_rows_async(gpu, 0, 1)).map(drop)),
        ),
        ("read_rows", rows.read_rows(gpu).err()),
        (
            "read_rows_async",
            pollster::block_on(rows.read_rows_async(gpu)).err(),
        ),
        (
            "write_rows",
            data_error(rows.write_rows(gpu, 0, &[Row { value: 9.0 }])),
        ),
        (
            "write_rows_async",
            data_error(pollster::block_on(rows.write_rows_async(
                gpu,
                0,
                &[Row { value: 9.0 }],
            ))),
        ),
        (
            "view read_values",
            data_error(view.read_values(gpu).map(drop)),
        ),
        ("view read_packed_bytes", view.read_packed_bytes(gpu).err()),
        ("typed view read", typed.read(gpu).err()),
        ("vertex_buffer_slice", data.vertex_buffer_slice(gpu).err()),
        ("storage_binding", data.storage_binding(gpu).err()),
        (
            "view vertex_binding",
            view.vertex_binding(gpu, 0, StepMode::Vertex).err(),
        ),
    ]
}

/// The operation each entry point names in its error.
fn operation(entry: &str) -> &'static str {
    match entry {
        "read_bytes" | "read_bytes_async" | "read_packed_rows" | "read_packed_rows_async" => {
            "read back gpu data"
        }
        "read_rows" | "read_rows_async" => "read back rows",
        "write_rows" | "write_rows_async" => "write rows",
        "view read_values" | "view read_packed_bytes" | "typed view read" => {
            "read back a gpu data view"
        }
        "vertex_buffer_slice" | "view vertex_binding" => "bind a vertex buffer",
        "storage_binding" => "bind a storage buffer",
        other => panic!("unknown entry point {other}"),
    }
}

#[test]
fn another_devices_data_is_refused_by_every_entry_point() {
    // Both devices' first buffers have the same wgpu id: without the check the readback copies
    // from an unrelated buffer of the device given and returns Ok with its bytes.
    let (gpu, other) = (gpu(), other_gpu());
    let data = floats(&other, &[1.0, 2.0]);
    let rows = TypedGpuData::from_rows(&other, &[Row { value: 1.0 }], DEFAULT_USAGE).unwrap();
    for (entry, error) in every_entry_point(&gpu, &data, &rows) {
        let error = error.unwrap_or_else(|| panic!("{entry} accepted another device's data"));
        assert_other_device(&error, operation(entry));
    }
    // On their own device every entry point works, and nothing was written by the refusals.
    for (entry, error) in every_entry_point(&other, &data, &rows) {
        assert_eq!(error, None, "{entry}");
    }
    assert_eq!(
        data.read_bytes(&other).unwrap(),
        [1.0f32.to_le_bytes(), 2.0f32.to_le_bytes()].concat()
    );
    // Shared handles and views keep the device.
    let shared = data.share();
    assert_eq!(shared.device().map(|d| d.same_device(&other)), Some(true));
    assert_other_device(&shared.read_bytes(&gpu).unwrap_err(), "read back gpu data");
    let slice = data.as_view().unwrap().slice(1, 1).unwrap();
    assert_other_device(
        &slice.read_packed_bytes(&gpu).unwrap_err(),
        "read back a gpu data view",
    );
}

#[test]
fn devices_wrapped_from_two_instances_are_told_apart() {
    // `from_device_queue` devices of two instances compare equal in wgpu (same per-instance id);
    // gpudata asks wgpu which device reports the errors and refuses the mix.
    let a = crate::support::limited_gpu("faults a", |_| {});
    let b = crate::support::limited_gpu("faults b", |_| {});
    assert_eq!(
        a.device(),
        b.device(),
        "wgpu's ids collide across instances"
    );
    assert!(!a.same_device(&b));
    let data = floats(&b, &[5.0]);
    assert_other_device(&data.read_bytes(&a).unwrap_err(), "read back gpu data");
    // A second wrapper of the same device is the same device.
    let wrapped = Gpu::from_device_queue(b.device().clone(), b.queue().clone());
    assert!(wrapped.same_device(&b));
    assert_eq!(data.read_bytes(&wrapped).unwrap(), 5.0f32.to_le_bytes());
}

#[test]
fn data_over_a_users_buffer_knows_its_device_once_told() {
    let (gpu, other) = (gpu(), other_gpu());
    let buffer = crate::support::buffer_with(&other, &7.0f32.to_le_bytes(), DEFAULT_USAGE);
    let descriptor = GpuDataDescriptor::new(VertexFormat::Float32, 1);
    let data = GpuData::new(BufferHandle::Owned(buffer.clone()), descriptor.clone()).unwrap();
    assert!(data.device().is_none());
    let data = data.on_device(&other);
    assert_other_device(&data.read_bytes(&gpu).unwrap_err(), "read back gpu data");
    assert_eq!(data.read_bytes(&other).unwrap(), 7.0f32.to_le_bytes());
    let view = GpuDataView::new(&buffer, VertexFormat::Float32, 1, 0, None)
        .unwrap()
        .on_device(&other);
    assert_other_device(
        &view.read_packed_bytes(&gpu).unwrap_err(),
        "read back a gpu data view",
    );
}

#[test]
fn destroyed_buffers_are_refused_by_every_entry_point() {
    let gpu = fresh_gpu();
    let data = floats(&gpu, &[1.0, 2.0]);
    let rows = TypedGpuData::from_rows(&gpu, &[Row { value: 1.0 }], DEFAULT_USAGE).unwrap();
    let (shared, shared_rows) = (data.share(), rows.share());
    data.destroy();
    rows.destroy();
    for (entry, error) in every_entry_point(&gpu, &shared, &shared_rows) {
        match entry {
            // Bindings hand out ranges for the caller's own pass; wgpu cannot say whether a
            // buffer was destroyed before that pass uses it (RELIABILITY.md, "Limits").
            "vertex_buffer_slice" | "storage_binding" | "view vertex_binding" => {
                assert_eq!(error, None, "{entry}");
            }
            "write_rows" | "write_rows_async" => {
                let error = error.unwrap_or_else(|| panic!("{entry} wrote a destroyed buffer"));
                assert_validation(&error, "stage an upload", "destroyed");
            }
            _ => {
                let error = error.unwrap_or_else(|| panic!("{entry} read a destroyed buffer"));
                assert_validation(&error, "read back a buffer", "destroyed");
            }
        }
    }
    assert!(!gpu.is_lost());
}

#[test]
fn a_mapped_users_buffer_is_refused() {
    // A buffer the caller created mapped (and never unmapped): copies from it and writes into it
    // are wgpu validation errors, returned from the error scopes.
    let gpu = gpu();
    let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("still mapped"),
        size: 16,
        usage: DEFAULT_USAGE,
        mapped_at_creation: true,
    });
    let rows = TypedGpuData::<Row>::try_from_data(
        GpuData::new(
            BufferHandle::Owned(buffer.clone()),
            GpuDataDescriptor::new(Row::FORMAT, 4),
        )
        .unwrap()
        .on_device(&gpu),
    )
    .unwrap();
    let data = rows.as_data();
    assert_validation(
        &data.read_bytes(&gpu).unwrap_err(),
        "read back a buffer",
        "mapped",
    );
    assert_validation(
        &rows.read_rows(&gpu).unwrap_err(),
        "read back a buffer",
        "mapped",
    );
    let Err(DataError::Gpu(error)) = rows.write_rows(&gpu, 0, &[Row { value: 1.0 }]) else {
        panic!("a write into a mapped buffer was accepted");
    };
    assert_validation(&error, "stage an upload", "mapped");
    // Once unmapped, the same data works.
    buffer.unmap();
    rows.write_rows(&gpu, 0, &[Row { value: 1.5 }]).unwrap();
    assert_eq!(rows.read_rows(&gpu).unwrap()[0], Row { value: 1.5 });
}

#[test]
fn invalid_usages_are_refused_by_every_upload() {
    use wgpu::BufferUsages as U;
    let gpu = gpu();
    let map_read = |usage| GpuError::MapUsage {
        usage,
        map: U::MAP_READ,
        partner: U::COPY_DST,
    };
    let map_write = |usage| GpuError::MapUsage {
        usage,
        map: U::MAP_WRITE,
        partner: U::COPY_SRC,
    };
    let bad = U::MAP_READ | U::STORAGE;
    let expected = DataError::Gpu(map_read(bad | U::COPY_DST));
    let descriptor = GpuDataDescriptor::new(VertexFormat::Float32, 1);
    let bytes = 1.0f32.to_le_bytes();
    assert_eq!(
        GpuData::from_bytes(&gpu, &bytes, descriptor.clone(), bad).unwrap_err(),
        expected
    );
    assert_eq!(
        pollster::block_on(GpuData::from_bytes_async(&gpu, &bytes, descriptor, bad)).unwrap_err(),
        expected
    );
    assert_eq!(
        GpuData::from_slice(&gpu, VertexFormat::Float32, &[1.0f32], bad).unwrap_err(),
        expected
    );
    assert_eq!(
        GpuData::from_values(&gpu, &[1.0f32], bad).unwrap_err(),
        expected
    );
    assert_eq!(
        GpuData::zeroed(&gpu, VertexFormat::Float32, 1, bad).unwrap_err(),
        expected
    );
    assert_eq!(
        TypedGpuData::from_rows(&gpu, &[Row { value: 1.0 }], bad).err(),
        Some(expected.clone())
    );
    assert_eq!(
        pollster::block_on(TypedGpuData::from_rows_async(
            &gpu,
            &[Row { value: 1.0 }],
            bad
        ))
        .err(),
        Some(expected)
    );
    // MAP_WRITE never combines with the COPY_DST every upload adds.
    assert_eq!(
        GpuData::zeroed(&gpu, VertexFormat::Float32, 1, U::MAP_WRITE).unwrap_err(),
        DataError::Gpu(map_write(U::MAP_WRITE | U::COPY_DST))
    );
    // An empty usage is no error for uploads: they add COPY_DST, and the data reads back only
    // with COPY_SRC, which it lacks.
    let data = GpuData::zeroed(&gpu, VertexFormat::Float32, 1, U::empty()).unwrap();
    assert_eq!(data.buffer().usage(), U::COPY_DST);
    assert!(matches!(
        data.read_bytes(&gpu).unwrap_err(),
        GpuError::MissingUsage {
            required: U::COPY_SRC,
            ..
        }
    ));
}

#[test]
fn a_lost_device_is_reported_by_every_entry_point() {
    let gpu = fresh_gpu();
    let data = floats(&gpu, &[1.0, 2.0]);
    let rows = TypedGpuData::from_rows(&gpu, &[Row { value: 1.0 }], DEFAULT_USAGE).unwrap();
    gpu.device().destroy();
    let lost = |operation| GpuError::DeviceLost { operation };
    for (entry, error) in every_entry_point(&gpu, &data, &rows) {
        match entry {
            "vertex_buffer_slice" | "storage_binding" | "view vertex_binding" => {
                assert_eq!(error, None, "{entry}: bindings are for the caller's pass");
            }
            "write_rows" | "write_rows_async" => {
                assert_eq!(error, Some(lost("stage an upload")), "{entry}");
            }
            _ => assert_eq!(error, Some(lost("read back a buffer")), "{entry}"),
        }
    }
    assert!(gpu.is_lost());
    let created = DataError::Gpu(lost("create a buffer"));
    assert_eq!(
        GpuData::zeroed(&gpu, VertexFormat::Float32, 4, DEFAULT_USAGE).unwrap_err(),
        created
    );
    assert_eq!(
        GpuData::from_slice(&gpu, VertexFormat::Float32, &[1.0f32], DEFAULT_USAGE).unwrap_err(),
        created
    );
    assert_eq!(
        TypedGpuData::from_rows(&gpu, &[Row { value: 1.0 }], DEFAULT_USAGE).err(),
        Some(created)
    );
}

#[test]
fn zeroed_on_a_just_destroyed_device() {
    // Before wgpu has reported the loss (no poll since the destroy), buffer creation itself
    // must find it.
    let gpu = fresh_gpu();
    // Work queued before the destroy, which wgpu finishes before it reports the loss.
    let queued = floats(&gpu, &[1.0; 1024]);
    gpu.device().destroy();
    assert_eq!(
        GpuData::zeroed(&gpu, VertexFormat::Float32, 4, DEFAULT_USAGE).unwrap_err(),
        DataError::Gpu(GpuError::DeviceLost {
            operation: "create a buffer"
        })
    );
    assert_eq!(
        pollster::block_on(GpuData::from_bytes_async(
            &gpu,
            &[0; 4],
            GpuDataDescriptor::new(VertexFormat::Float32, 1),
            DEFAULT_USAGE
        ))
        .unwrap_err(),
        DataError::Gpu(GpuError::DeviceLost {
            operation: "create a buffer"
        })
    );
    assert_eq!(
        queued.read_bytes(&gpu),
        Err(GpuError::DeviceLost {
            operation: "read back a buffer"
        })
    );
}

/// Set in the child process of [`out_of_memory_in_a_child_process`].
const OOM_CHILD: &str = "GPUDATA_OOM_CHILD";
/// What the child prints when every allocation ended in `GpuError::OutOfMemory`.
const OOM_MARKER: &str = "gpudata-oom-child: out of memory after";

/// Virtual memory of this process in KiB (`VmSize` of `/proc/self/status`).
fn vm_size_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmSize in /proc/self/status"))
}

#[test]
fn out_of_memory_in_a_child_process() {
    // The test binary runs itself again with `ulimit -v` a little above what it uses now and
    // GPUDATA_OOM_CHILD set, so only `oom_child` runs there and allocates until the limit.
    let _device = gpu();
    let limit_kib = vm_size_kib() + (1 << 20);
    let exe = std::env::current_exe().unwrap();
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {limit_kib} && exec \"$0\" \"$@\""))
        .arg(&exe)
        .args([
            "--exact",
            "faults::oom_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(OOM_CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "child failed ({:?}):\n{stdout}\n{stderr}",
        output.status
    );
    assert!(
        stdout.contains(OOM_MARKER),
        "child did not run out of memory:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("1 passed"), "{stdout}");
}

#[test]
fn oom_child() {
    // The child side of `out_of_memory_in_a_child_process`; in the parent's run it checks only
    // that the error renders as the catalogue says.
    if std::env::var_os(OOM_CHILD).is_none() {
        let error = GpuError::OutOfMemory {
            operation: "create a buffer",
            bytes: Some(256 << 20),
        };
        assert_eq!(
            error.to_string(),
            "the device ran out of memory to create a buffer (268435456 bytes asked for)"
        );
        return;
    }
    let gpu = fresh_gpu();
    let chunk = 256u64 << 20;
    let mut held = Vec::new();
    // Within the limit (1 GiB above the parent's use) the 8th allocation at the latest fails.
    for i in 0..64 {
        match GpuData::zeroed(&gpu, VertexFormat::Uint32, chunk / 4, DEFAULT_USAGE) {
            Ok(data) => held.push(data),
            Err(DataError::Gpu(GpuError::OutOfMemory { operation, bytes })) => {
                assert_eq!(operation, "create a buffer");
                assert_eq!(bytes, Some(chunk));
                // The device stays usable once memory is freed.
                held.clear();
                gpu.wait_idle().unwrap();
                let small = floats(&gpu, &[4.0]);
                assert_eq!(small.read_bytes(&gpu).unwrap(), 4.0f32.to_le_bytes());
                println!("{OOM_MARKER} {i} buffers");
                return;
            }
            Err(other) => panic!("allocation {i}: expected OutOfMemory, found {other:?}"),
        }
    }
    panic!("64 buffers of 256 MiB fit under the limit");
}
