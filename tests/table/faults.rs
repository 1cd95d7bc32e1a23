//! Fault injection through the table entry points that take a `Gpu`: a table of another
//! device's data, and a lost device; appends into a reallocating vector's destroyed buffer. Each returns `TableError::Gpu` with the typed device
//! error; none reaches wgpu's default handler, and no test installs a handler of its own.

use gpudata::table::{
    AppendableOptions, GpuVector, PackOptions, RenderOptions, SegmentOptions, SegmentedTable,
    SegmentedTableBuilder, TableError,
};
use gpudata::{Gpu, GpuConstant, GpuError, GpuTable, StructLayout, VertexFormat};

use crate::fixtures::batches_table;
use crate::support::{
    assert_other_device, assert_validation, f32_bytes, fresh_gpu, gpu, other_gpu, read_buffer,
};

/// Every table entry point that takes `gpu`, over `table`, by name: `Err` with what each
/// returned, `Ok` where it succeeded. `pack_batches`, which changes the table, runs last.
fn every_entry_point(
    gpu: &Gpu,
    table: &mut GpuTable,
) -> Vec<(&'static str, Result<(), TableError>)> {
    let mut results = vec![
        (
            "to_segmented",
            table.to_segmented(gpu, SegmentOptions::default()).map(drop),
        ),
        (
            "SegmentedTable::from_table",
            SegmentedTable::from_table(gpu, table, SegmentOptions::default()).map(drop),
        ),
        (
            "to_packed",
            table.to_packed(gpu, SegmentOptions::default()).map(drop),
        ),
        (
            "to_interleaved",
            table
                .to_interleaved(gpu, "rows", StructLayout::Packed, None)
                .map(drop),
        ),
        ("storage_bindings", table.storage_bindings(gpu).map(drop)),
        (
            "render_bindings",
            table
                .render_bindings(gpu, RenderOptions::default())
                .map(drop),
        ),
        (
            "bindings",
            table.bindings(gpu, RenderOptions::default()).map(drop),
        ),
    ];
    results.push((
        "pack_batches",
        table.pack_batches(gpu, PackOptions::default()),
    ));
    results
}

fn operation(entry: &str) -> &'static str {
    match entry {
        "pack_batches" => "pack batches",
        "to_segmented" | "SegmentedTable::from_table" => "segment a table",
        "to_packed" => "pack a table's columns",
        "to_interleaved" => "interleave a table's columns",
        "storage_bindings" => "bind a storage buffer",
        "render_bindings" | "bindings" => "bind a vertex buffer",
        other => panic!("unknown entry point {other}"),
    }
}

#[test]
fn another_devices_table_is_refused_by_every_entry_point() {
    let (gpu, other) = (gpu(), other_gpu());
    let mut table = batches_table(&other, &[0.0, 10.0]);
    for (entry, result) in every_entry_point(&gpu, &mut table) {
        let Err(TableError::Gpu(error)) = &result else {
            panic!("{entry} on another device's table: {result:?}");
        };
        assert_other_device(error, operation(entry));
    }
    for (entry, result) in every_entry_point(&other, &mut table) {
        assert!(result.is_ok(), "{entry}: {result:?}");
    }
}

#[test]
fn a_lost_device_is_reported_by_the_table_copies() {
    let gpu = fresh_gpu();
    let mut table = batches_table(&gpu, &[0.0, 10.0]);
    gpu.device().destroy();
    for (entry, result) in every_entry_point(&gpu, &mut table) {
        match entry {
            // Bindings hand out ranges for the caller's own pass.
            "storage_bindings" | "render_bindings" | "bindings" => {}
            _ => {
                let Err(TableError::Gpu(GpuError::DeviceLost { .. })) = &result else {
                    panic!("{entry} on a lost device: {result:?}");
                };
            }
        }
    }
}

/// A vector growing in one buffer, holding `[1, 2, 3]` as uint8 rows (capacity 64: the next
/// append writes into the same buffer, from inside its first word).
fn reallocating_vector(gpu: &Gpu) -> GpuVector {
    let options = AppendableOptions::reallocating();
    let mut vector = GpuVector::appendable("bytes", gpu, VertexFormat::Uint8, options).unwrap();
    vector.append_bytes(&[1, 2, 3]).unwrap();
    vector
}

#[test]
fn an_append_into_a_destroyed_buffer_is_a_validation_error() {
    let gpu = fresh_gpu();
    let mut vector = reallocating_vector(&gpu);
    vector.single_chunk().unwrap().buffer().destroy();
    let result = vector.append_bytes(&[4, 5]);
    let Err(TableError::Gpu(error)) = &result else {
        panic!("an append into a destroyed buffer: {result:?}");
    };
    assert_validation(error, "stage an upload", "destroyed");
    assert_eq!(vector.length(), 3, "a refused append adds no rows");
    assert!(!gpu.is_lost());
}

#[test]
fn an_append_on_a_lost_device_is_reported() {
    let gpu = fresh_gpu();
    let mut vector = reallocating_vector(&gpu);
    gpu.device().destroy();
    let result = vector.append_bytes(&[4, 5]);
    assert!(
        matches!(result, Err(TableError::Gpu(GpuError::DeviceLost { .. }))),
        "{result:?}"
    );
    assert_eq!(vector.length(), 3);
}

#[test]
fn a_constants_buffer_is_made_on_the_device_asked_for() {
    // The shared device and `other` are the first devices of two wgpu instances: their ids
    // collide, so a cache keyed by wgpu's device equality handed `other`'s buffer to `gpu`.
    // The table keeps its constants' uploads per device.
    let (gpu, other) = (gpu(), other_gpu());
    let constant = GpuConstant::new(VertexFormat::Float32x2, &[1.5f32, -2.0]).unwrap();
    let table = GpuTable::from_columns(
        [("c", gpudata::table::GpuColumn::from(constant))],
        gpudata::table::RecordBatchOptions {
            num_rows: Some(3),
            ..Default::default()
        },
    )
    .unwrap();
    let buffer = |gpu: &Gpu| {
        table
            .storage_bindings(gpu)
            .map(|b| b.batches()[0].constants()[0].buffer().clone())
    };
    let mut expected = f32_bytes(&[1.5, -2.0]);
    expected.resize(16, 0);
    let on_other = buffer(&other).unwrap();
    let on_gpu = buffer(&gpu).unwrap();
    assert_eq!(read_buffer(&gpu, &on_gpu, 0, 16), expected);
    assert_eq!(read_buffer(&other, &on_other, 0, 16), expected);
    // The first upload is kept for its own device.
    let again = buffer(&other).unwrap();
    assert_eq!(read_buffer(&other, &again, 0, 16), expected);
    assert_eq!(again, on_other);

    let lost = fresh_gpu();
    lost.device().destroy();
    let result = buffer(&lost);
    assert!(
        matches!(result, Err(TableError::Gpu(GpuError::DeviceLost { .. }))),
        "{result:?}"
    );
    let result = constant.upload(&lost);
    assert!(
        matches!(
            result,
            Err(gpudata::DataError::Gpu(GpuError::DeviceLost { .. }))
        ),
        "{result:?}"
    );
}

#[test]
fn a_bad_usage_is_refused_by_the_segmented_builder() {
    use wgpu::BufferUsages as U;
    let gpu = gpu();
    let bytes = f32_bytes(&[1.0, 2.0, 3.0]);
    let build = |usage| {
        SegmentedTableBuilder::new()
            .column("a", VertexFormat::Float32, &bytes)
            .usage(usage)
            .build(&gpu)
    };
    let error = build(U::MAP_WRITE | U::STORAGE).unwrap_err();
    assert!(
        matches!(&error, TableError::Gpu(GpuError::MapUsage { map, .. }) if *map == U::MAP_WRITE),
        "{error:?}"
    );
    let table = build(U::STORAGE | U::COPY_SRC).unwrap();
    assert_eq!(read_buffer(&gpu, table.buffer(), 0, 12), bytes);
}
