//! The edges of the one copy engine (re-layouts as placed plans of the operations' kernels):
//! sub-word fields at batch edges, odd row counts around the kernels' blocks of rows, several
//! batches into one buffer, interleaved sources split into segments, more columns than one
//! kernel's storage bindings, and runs of rows split over a small storage binding. Every result
//! is compared byte for byte with the host re-layout written here (padding and gaps zero).

use gpudata::table::{
    GpuRecordBatch, GpuTable, PackOptions, SegmentOptions, SegmentStride, SegmentedTable,
};
use gpudata::{Gpu, GpuData, GpuDataDescriptor, GpuDataStructFormat, StructLayout, VertexFormat};

use crate::fixtures::{USAGE, gpu, limited_gpu, no_constants};
use crate::support::read_buffer;

/// Batch sizes around the kernels' 16-row blocks: every batch edge falls inside a block, and
/// inside a word for 1- and 2-byte fields.
const BATCHES: [u64; 8] = [1, 3, 16, 17, 5, 31, 64, 2];

/// The columns: a byte, two bytes, a 16-bit value and twelve bytes (packed: 17-byte rows whose
/// fields start at odd offsets).
const COLUMNS: [(&str, VertexFormat); 4] = [
    ("tag", VertexFormat::Uint8),
    ("pair", VertexFormat::Unorm8x2),
    ("half", VertexFormat::Uint16),
    ("pos", VertexFormat::Uint32x3),
];

/// `n` bytes that differ from byte to byte and from `seed` to `seed`.
pub(crate) fn noise(n: u64, seed: u64) -> Vec<u8> {
    (0..n)
        .map(|i| {
            let h = (i ^ (seed << 40)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            (h >> 56) as u8
        })
        .collect()
}

/// Host columns: per column, every batch's bytes concatenated.
struct Host {
    columns: Vec<(String, VertexFormat, Vec<u8>)>,
    rows: u64,
}

/// A table of `batches` batches of packed `columns`, and the host bytes it holds.
fn packed_table(gpu: &Gpu, columns: &[(&str, VertexFormat)], batches: &[u64]) -> (GpuTable, Host) {
    let mut host: Vec<(String, VertexFormat, Vec<u8>)> = columns
        .iter()
        .map(|(n, f)| ((*n).to_owned(), *f, Vec::new()))
        .collect();
    let mut out = Vec::new();
    for (b, &rows) in batches.iter().enumerate() {
        let mut data = Vec::new();
        for (c, (name, format)) in columns.iter().enumerate() {
            let bytes = noise(rows * format.byte_length(), (b * 16 + c) as u64);
            host[c].2.extend_from_slice(&bytes);
            data.push((
                (*name).to_owned(),
                GpuData::from_bytes(gpu, &bytes, GpuDataDescriptor::new(*format, rows), USAGE)
                    .unwrap(),
            ));
        }
        out.push(GpuRecordBatch::new(data).unwrap());
    }
    let table = GpuTable::from_batches(out, no_constants()).unwrap();
    let rows = batches.iter().sum();
    (
        table,
        Host {
            columns: host,
            rows,
        },
    )
}

/// The host interleave of `host` into rows of `format` (padding zero).
fn host_rows(host: &Host, format: &GpuDataStructFormat) -> Vec<u8> {
    let stride = format.byte_stride() as usize;
    let mut out = vec![0u8; host.rows as usize * stride];
    for (field, (_, f, bytes)) in format.fields().iter().zip(&host.columns) {
        let width = f.byte_length() as usize;
        let at = field.byte_offset() as usize;
        for r in 0..host.rows as usize {
            out[r * stride + at..r * stride + at + width]
                .copy_from_slice(&bytes[r * width..(r + 1) * width]);
        }
    }
    out
}

/// `values` of `width` bytes spread to `stride` bytes each (gaps zero), `reserved` bytes long.
fn spread(values: &[u8], width: u64, stride: u64, reserved: u64) -> Vec<u8> {
    let mut out = vec![0u8; reserved as usize];
    for (i, value) in values.chunks_exact(width as usize).enumerate() {
        let at = i * stride as usize;
        out[at..at + width as usize].copy_from_slice(value);
    }
    out
}

pub(crate) fn assert_same(found: &[u8], expected: &[u8], what: &str) {
    assert_eq!(found.len(), expected.len(), "{what}: length");
    if let Some(at) = found.iter().zip(expected).position(|(a, b)| a != b) {
        panic!(
            "{what}: first difference at byte {at}: found {:?}, expected {:?}",
            &found[at..found.len().min(at + 8)],
            &expected[at..expected.len().min(at + 8)]
        );
    }
}

/// Interleaves, segments and packs `table` on `gpu` and compares every byte with the host.
fn check_every_relayout(gpu: &Gpu, table: &GpuTable, host: &Host, what: &str) {
    for layout in [StructLayout::Packed, StructLayout::WgslStorage] {
        let rows = table.to_interleaved(gpu, "rows", layout, None).unwrap();
        let data = rows.batches()[0].column("rows").unwrap();
        let format = data.struct_format().unwrap().clone();
        let len = host.rows * format.byte_stride();
        assert_same(
            &read_buffer(gpu, data.buffer(), data.byte_offset(), len),
            &host_rows(host, &format),
            &format!("{what}: rows ({layout:?})"),
        );
        // And back: the interleaved rows (one batch) into segments, one kernel per column.
        let segmented = SegmentedTable::from_table(gpu, &rows, SegmentOptions::default()).unwrap();
        for (name, format, bytes) in &host.columns {
            let segment = segmented.segment(name).unwrap();
            assert_same(
                &read_buffer(
                    gpu,
                    segmented.buffer(),
                    segment.byte_offset(),
                    segment.reserved_byte_length(),
                ),
                &spread(
                    bytes,
                    format.byte_length(),
                    segment.byte_stride(),
                    segment.reserved_byte_length(),
                ),
                &format!("{what}: segment {name} of the rows ({layout:?})"),
            );
        }
    }
    for stride in [SegmentStride::Packed, SegmentStride::Vertex] {
        let options = SegmentOptions { stride };
        let segmented = SegmentedTable::from_table(gpu, table, options).unwrap();
        let packed = table.to_packed(gpu, options).unwrap();
        for (name, format, bytes) in &host.columns {
            let segment = segmented.segment(name).unwrap();
            let expected = spread(
                bytes,
                format.byte_length(),
                segment.byte_stride(),
                segment.reserved_byte_length(),
            );
            assert_same(
                &read_buffer(
                    gpu,
                    segmented.buffer(),
                    segment.byte_offset(),
                    segment.reserved_byte_length(),
                ),
                &expected,
                &format!("{what}: segment {name} ({stride:?})"),
            );
            let data = packed.batches()[0].column(name).unwrap();
            let len = host.rows * data.byte_stride();
            assert_same(
                &read_buffer(gpu, data.buffer(), 0, len.next_multiple_of(4)),
                &spread(
                    bytes,
                    format.byte_length(),
                    data.byte_stride(),
                    len.next_multiple_of(4),
                ),
                &format!("{what}: packed {name} ({stride:?})"),
            );
        }
    }
}

#[test]
fn sub_word_fields_over_odd_batches_move_every_byte() {
    let gpu = gpu();
    let (table, host) = packed_table(&gpu, &COLUMNS, &BATCHES);
    check_every_relayout(&gpu, &table, &host, "odd batches");
}

#[test]
fn interleaved_batches_split_into_segments_in_one_kernel_each() {
    // Batches of interleaved 17-byte rows (fields at odd offsets) into one segmented buffer.
    let gpu = gpu();
    let format = GpuDataStructFormat::new(
        StructLayout::Packed,
        COLUMNS.iter().map(|(n, f)| ((*n).to_owned(), *f)),
    )
    .unwrap();
    let mut batches = Vec::new();
    let mut host: Vec<Vec<u8>> = vec![Vec::new(); COLUMNS.len()];
    for (b, &rows) in BATCHES.iter().enumerate() {
        let bytes = noise(rows * format.byte_stride(), 100 + b as u64);
        for (f, field) in format.fields().iter().enumerate() {
            for r in 0..rows {
                let at = (r * format.byte_stride() + field.byte_offset()) as usize;
                host[f].extend_from_slice(&bytes[at..at + field.byte_length() as usize]);
            }
        }
        let data = GpuData::from_bytes(
            &gpu,
            &bytes,
            GpuDataDescriptor::new(format.clone(), rows),
            USAGE,
        )
        .unwrap();
        batches.push(GpuRecordBatch::new([("rows", data)]).unwrap());
    }
    let table = GpuTable::from_batches(batches, no_constants()).unwrap();
    let segmented = SegmentedTable::from_table(&gpu, &table, SegmentOptions::default()).unwrap();
    for ((name, format), expected) in COLUMNS.iter().zip(&host) {
        let segment = segmented.segment(name).unwrap();
        assert_same(
            &read_buffer(
                &gpu,
                segmented.buffer(),
                segment.byte_offset(),
                segment.reserved_byte_length(),
            ),
            &spread(
                expected,
                format.byte_length(),
                segment.byte_stride(),
                segment.reserved_byte_length(),
            ),
            &format!("segment {name}"),
        );
    }
}

#[test]
fn pack_batches_of_sub_word_columns_merges_their_edge_words() {
    let gpu = gpu();
    let columns = [("b", VertexFormat::Uint8), ("h", VertexFormat::Uint16)];
    let (mut table, host) = packed_table(&gpu, &columns, &BATCHES);
    table.pack_batches(&gpu, PackOptions::default()).unwrap();
    assert_eq!(table.batches().len(), 1);
    for (name, _, bytes) in &host.columns {
        let data = table.batches()[0].column(name).unwrap();
        assert_same(&data.read_bytes(&gpu).unwrap(), bytes, name);
    }
}

/// Packing word-wide columns copies each batch as one block by a kernel whose stores are whole
/// aligned vectors: batches starting 0, 4, 8 and 12 bytes past a 16-byte boundary of the packed
/// column read their source at every phase (one or two source vectors per store), with the
/// words around each block's aligned body copied as they are.
#[test]
fn pack_batches_of_word_columns_at_every_phase_move_every_byte() {
    let gpu = gpu();
    let columns = [("f", VertexFormat::Float32), ("v", VertexFormat::Uint32x3)];
    // Row starts 0, 1001, 2004, 3011 and 4022: every residue mod 4 for both columns.
    let (mut table, host) = packed_table(&gpu, &columns, &[1_001, 1_003, 1_007, 1_011, 993]);
    table.pack_batches(&gpu, PackOptions::default()).unwrap();
    assert_eq!(table.batches().len(), 1);
    for (name, _, bytes) in &host.columns {
        let data = table.batches()[0].column(name).unwrap();
        assert_same(&data.read_bytes(&gpu).unwrap(), bytes, name);
    }
}

#[test]
fn a_small_device_splits_rows_and_fields_and_keeps_every_byte() {
    // Storage bindings of 64 KiB at 256-byte offsets, and four storage buffers per kernel: the
    // batches' rows run in several dispatches each, and six columns interleave in groups (a
    // later group keeps the fields an earlier one wrote into the same rows).
    let small = limited_gpu("table_relayout small", |limits| {
        limits.max_storage_buffer_binding_size = 1 << 16;
        limits.min_storage_buffer_offset_alignment =
            limits.min_storage_buffer_offset_alignment.max(256);
        limits.max_storage_buffers_per_shader_stage = 4;
    });
    let columns = [
        ("a", VertexFormat::Uint8),
        ("b", VertexFormat::Uint8x2),
        ("c", VertexFormat::Uint16),
        ("d", VertexFormat::Uint8),
        ("e", VertexFormat::Uint32x3),
        ("f", VertexFormat::Unorm8x4),
    ];
    let (table, host) = packed_table(&small, &columns, &[9_001, 1, 40_017]);
    check_every_relayout(&small, &table, &host, "small device");
}
