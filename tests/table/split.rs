//! Table conversions whose strided copies are larger than one storage binding: on a device whose
//! `max_storage_buffer_binding_size` is lowered to 1 MiB (offsets aligned to 256 bytes), the copy
//! kernel runs over several MiB in runs of rows, each binding its own bytes. Every segment,
//! packed column and interleaved row must equal the host's bytes and the same conversion on the
//! adapter's own limits (one dispatch per copy).

use std::sync::OnceLock;

use crate::fixtures::{Small, USAGE, field_bytes, gpu, limited_gpu};
use gpudata::GpuConstant;
use gpudata::table::{
    GpuRecordBatch, GpuTable, PackOptions, RecordBatchOptions, SegmentOptions, SegmentedTable,
};
use gpudata::{
    BufferHandle, BufferLayout, Gpu, GpuData, GpuDataDescriptor, GpuStruct, StructLayout,
    VertexFormat,
};

/// The binding limit of the small device.
const BINDING: u64 = 1 << 20;

/// A device of the same adapter that binds at most [`BINDING`] bytes of storage, at offsets that
/// are multiples of 256 bytes.
fn small() -> Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        limited_gpu("table_split", |limits| {
            limits.max_storage_buffer_binding_size = BINDING;
            limits.min_storage_buffer_offset_alignment =
                limits.min_storage_buffer_offset_alignment.max(256);
        })
    })
    .clone()
}

/// Rows of batch `batch`: values that differ from row to row in every byte.
fn small_rows(n: usize, batch: u32) -> Vec<Small> {
    (0..n)
        .map(|i| {
            let h = (i as u32 ^ (batch << 24)).wrapping_mul(0x9e37_79b9);
            Small {
                pair: [h as u8, (h >> 8) as u8],
                half: (h >> 16) as u16,
                tag: (h >> 5) as u8,
                value: i as f32 * 0.75 - batch as f32,
            }
        })
        .collect()
}

/// `unorm8x2` values of batch `batch`.
fn pairs(n: usize, batch: u8) -> Vec<[u8; 2]> {
    (0..n)
        .map(|i| [(i as u8).wrapping_mul(7) ^ batch, (i >> 8) as u8])
        .collect()
}

/// `rows` encoded after `lead` bytes of filler, as struct data `lead` bytes into its buffer.
fn rows_at(gpu: &Gpu, rows: &[Small], lead: u64) -> GpuData {
    let mut bytes = vec![0xa5; lead as usize];
    bytes.extend(gpudata::record::encode_rows_to_vec(rows));
    GpuData::from_bytes(
        gpu,
        &bytes,
        GpuDataDescriptor::new(Small::FORMAT, rows.len() as u64).with_byte_offset(lead),
        USAGE,
    )
    .unwrap()
}

/// Two batches of odd row counts, several MiB each: a packed `unorm8x2` column (the second
/// batch lands at an unaligned offset when concatenated) and interleaved `Small` rows (the
/// second batch 6 bytes into its buffer).
fn big_table(gpu: &Gpu) -> (GpuTable, Vec<Small>, Vec<[u8; 2]>) {
    let counts = [400_001usize, 300_003];
    let rows = [small_rows(counts[0], 0), small_rows(counts[1], 1)];
    let p = [pairs(counts[0], 0), pairs(counts[1], 1)];
    let batches = (0..2)
        .map(|i| {
            let small = if i == 0 {
                gpudata::TypedGpuData::from_rows(gpu, &rows[i], USAGE)
                    .unwrap()
                    .into_data()
            } else {
                rows_at(gpu, &rows[i], 6)
            };
            GpuRecordBatch::with_options(
                [
                    (
                        "pairs",
                        crate::fixtures::column(gpu, VertexFormat::Unorm8x2, &p[i]),
                    ),
                    ("small", small),
                ],
                RecordBatchOptions {
                    buffer_layouts: Some(vec![
                        BufferLayout::single("pairs", VertexFormat::Unorm8x2, 2),
                        Small::FORMAT.buffer_layout("small", None),
                    ]),
                    ..Default::default()
                },
            )
            .unwrap()
        })
        .collect();
    let table = GpuTable::from_batches(batches, [("k", GpuConstant::from_value(3.0f32))]).unwrap();
    (table, rows.concat(), p.concat())
}

/// Asserts equal bytes, naming the first difference.
fn assert_bytes(found: &[u8], expected: &[u8], what: &str) {
    assert_eq!(found.len(), expected.len(), "{what}: lengths");
    if let Some(at) = found.iter().zip(expected).position(|(a, b)| a != b) {
        panic!(
            "{what}: first difference at byte {at}: found {}, expected {}",
            found[at], expected[at]
        );
    }
}

fn segment_bytes(gpu: &Gpu, segmented: &SegmentedTable, name: &str) -> Vec<u8> {
    segmented
        .segment_data(name)
        .unwrap()
        .read_bytes(gpu)
        .unwrap()
}

#[test]
fn conversions_copy_more_than_one_binding() {
    let small = small();
    let (table, rows, p) = big_table(&small);
    let encoded = gpudata::record::encode_rows_to_vec(&rows);
    assert!(encoded.len() as u64 > 8 * BINDING);

    // Segmented: each field of the rows through the kernel, in runs of rows.
    let segmented = table
        .to_segmented(&small, SegmentOptions::default())
        .unwrap();
    assert_bytes(
        &segment_bytes(&small, &segmented, "pairs"),
        bytemuck::cast_slice::<[u8; 2], u8>(&p),
        "segment pairs",
    );
    for field in ["pair", "half", "tag", "value"] {
        assert_bytes(
            &segment_bytes(&small, &segmented, field),
            &field_bytes(&rows, field),
            &format!("segment {field}"),
        );
    }

    // The same conversion on the adapter's limits gives the same bytes.
    let large = gpu();
    let (reference, _, _) = big_table(&large);
    let whole = reference
        .to_segmented(&large, SegmentOptions::default())
        .unwrap();
    for field in ["pairs", "pair", "half", "tag", "value"] {
        assert_bytes(
            &segment_bytes(&small, &segmented, field),
            &segment_bytes(&large, &whole, field),
            &format!("segment {field} against one dispatch"),
        );
    }

    // Packed: one buffer per field.
    let packed = table.to_packed(&small, SegmentOptions::default()).unwrap();
    for field in ["pair", "half", "tag", "value"] {
        let data = packed.batches()[0].column(field).unwrap();
        assert_bytes(
            &data.read_bytes(&small).unwrap(),
            &field_bytes(&rows, field),
            &format!("packed {field}"),
        );
    }

    // Interleaved again: the segments back into rows, packed and wgsl-storage.
    let mut only_small = big_table(&small).0;
    only_small.select(&["small", "k"]).unwrap();
    let back = only_small
        .to_segmented(&small, SegmentOptions::default())
        .unwrap();
    let interleaved = back
        .to_interleaved(&small, "small", StructLayout::Packed, None)
        .unwrap();
    let data = interleaved.batches()[0].column("small").unwrap();
    assert_bytes(
        &data.read_bytes(&small).unwrap(),
        &encoded[..data.byte_length() as usize],
        "interleaved rows",
    );
    let storage_rows = back
        .to_interleaved(&small, "small", StructLayout::WgslStorage, None)
        .unwrap();
    let data = storage_rows.batches()[0].column("small").unwrap();
    for field in ["pair", "half", "tag", "value"] {
        assert_bytes(
            &data
                .get_child(field)
                .unwrap()
                .read_packed_bytes(&small)
                .unwrap(),
            &field_bytes(&rows, field),
            &format!("wgsl-storage field {field}"),
        );
    }
}

#[test]
fn pack_batches_copies_more_than_one_binding() {
    let small = small();
    let (mut table, rows, p) = big_table(&small);
    let stride = Small::FORMAT.byte_stride() as usize;
    let mut expected_small = gpudata::record::encode_rows_to_vec(&rows);
    expected_small.truncate((rows.len() - 1) * stride + Small::FORMAT.row_byte_length() as usize);
    table.pack_batches(&small, PackOptions::default()).unwrap();
    let batch = &table.batches()[0];
    assert_bytes(
        &batch.column("pairs").unwrap().read_bytes(&small).unwrap(),
        bytemuck::cast_slice::<[u8; 2], u8>(&p),
        "packed pairs",
    );
    assert_bytes(
        &batch.column("small").unwrap().read_bytes(&small).unwrap(),
        &expected_small,
        "packed rows",
    );
}

#[test]
fn unaligned_sources_without_storage_usage_copy_in_runs() {
    // 1.5 M uint16 values 2 bytes into a buffer that can only be copied from: staged into a
    // storage buffer, then copied by the kernel in runs of rows.
    let small = small();
    let n = 1_500_000u64;
    let values: Vec<u16> = (0..n).map(|i| (i as u16).wrapping_mul(0x9e37)).collect();
    let mut raw = vec![0xee, 0xee];
    raw.extend_from_slice(bytemuck::cast_slice(&values));
    raw.resize(raw.len().next_multiple_of(4), 0xee);
    let buffer = small.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("copy source"),
        size: raw.len() as u64,
        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    small.queue().write_buffer(&buffer, 0, &raw);
    let data = GpuData::new(
        BufferHandle::Owned(buffer),
        GpuDataDescriptor::new(VertexFormat::Uint16, n).with_byte_offset(2),
    )
    .unwrap();
    let table = GpuTable::from_vectors(
        [gpudata::table::GpuVector::from_data("v", vec![data]).unwrap()],
        RecordBatchOptions::default(),
    )
    .unwrap();
    let vertex = table
        .to_packed(
            &small,
            SegmentOptions {
                stride: gpudata::table::SegmentStride::Vertex,
            },
        )
        .unwrap();
    let data = vertex.batches()[0].column("v").unwrap();
    assert_eq!(data.byte_stride(), 4);
    assert_bytes(
        &data.as_view().unwrap().read_packed_bytes(&small).unwrap(),
        bytemuck::cast_slice::<u16, u8>(&values),
        "uint16 at stride 4",
    );
}
