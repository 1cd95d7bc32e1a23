//! Block copies in few dispatches: the word-aligned blocks of one re-layout run as one
//! block-copy dispatch (or as few as the device's binding limits allow), each workgroup finding
//! its block in a table. Many blocks, at every phase of 16 bytes on both sides, from and into
//! several buffers (a buffer read by one block and written by another), near a source's end,
//! beside unaligned copies; on the adapter's limits and on devices that bind two or three
//! storage buffers, 4 KiB per binding and seven blocks per uniform table. Every byte of every
//! destination is compared with the host (bytes no copy writes keep their values). And the
//! re-layouts' fresh outputs, made without wgpu's zero-fill, over memory that held other bytes.

use gpudata::Gpu;
use gpudata::ops::OpsConfig;
use gpudata::table::{
    __copy_blocks, __copy_blocks_into_fresh, BlockCopySpec, FreshCopySpec, GpuRecordBatch,
    GpuTable, PackOptions, SegmentOptions, SegmentedTable,
};
use gpudata::{GpuData, GpuDataDescriptor, StructLayout, VertexFormat};

use crate::fixtures::{USAGE, gpu, limited_gpu, no_constants};
use crate::relayout::{assert_same, noise};
use crate::support::read_buffer;

/// A table of batches of `counts` rows of packed `columns` (bytes from `seed` on), and each
/// column's bytes over all batches.
fn table_of(
    gpu: &Gpu,
    columns: &[(&str, VertexFormat)],
    counts: &[u64],
    seed: u64,
) -> (GpuTable, Vec<Vec<u8>>) {
    let mut host: Vec<Vec<u8>> = vec![Vec::new(); columns.len()];
    let mut batches = Vec::new();
    for (b, &rows) in counts.iter().enumerate() {
        let mut data = Vec::new();
        for (c, (name, format)) in columns.iter().enumerate() {
            let bytes = noise(rows * format.byte_length(), seed + (b * 8 + c) as u64);
            host[c].extend_from_slice(&bytes);
            data.push((
                (*name).to_owned(),
                GpuData::from_bytes(gpu, &bytes, GpuDataDescriptor::new(*format, rows), USAGE)
                    .unwrap(),
            ));
        }
        batches.push(GpuRecordBatch::new(data).unwrap());
    }
    let table = GpuTable::from_batches(batches, no_constants()).unwrap();
    (table, host)
}

/// A buffer holding `bytes` (its size theirs: not always a multiple of 16).
pub(crate) fn buffer(gpu: &Gpu, bytes: &[u8]) -> wgpu::Buffer {
    let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("blocks test"),
        size: bytes.len() as u64,
        usage: USAGE,
        mapped_at_creation: false,
    });
    gpu.queue().write_buffer(&buffer, 0, bytes);
    buffer
}

/// The copies: `(source buffer, source offset, destination buffer, destination offset, size)`
/// over buffers 0 and 1 (sources) and 2 and 3 (destinations; 3 is also read where no copy
/// writes it).
fn copies(lengths: &[u64]) -> Vec<(usize, u64, usize, u64, u64)> {
    const SIZES: [u64; 9] = [4, 8, 12, 16, 20, 44, 1_000, 4_108, 9_000];
    let mut out = Vec::new();
    let mut cursor = [0u64; 2];
    for k in 0..36u64 {
        let size = SIZES[(k % 9) as usize];
        let src = (k % 2) as usize;
        let room = lengths[src] - size - 16;
        let src_offset = (k * 1_236) % room / 16 * 16 + 4 * (k % 4);
        let target = ((k / 2) % 2) as usize;
        let dst_offset = cursor[target] + 4 * ((k / 4) % 4);
        cursor[target] = dst_offset + size + 20;
        out.push((src, src_offset, 2 + target, dst_offset, size));
    }
    // The last bytes of a source at a phase (its last vector goes with the edge words).
    out.push((1, lengths[1] - 1_000, 2, cursor[0] + 4, 1_000));
    cursor[0] += 1_024;
    // Bytes, not words: the row kernel, beside the blocks.
    out.push((0, 3, 2, cursor[0] + 1, 7));
    cursor[0] += 16;
    // From the region of buffer 3 no copy writes, into buffer 2.
    assert!(cursor[1] < 50_000 && cursor[0] + 400 < lengths[2]);
    out.push((3, 50_004, 2, cursor[0] + 8, 400));
    out
}

/// Runs the copies on `gpu` (kernels tuned by `config`) and compares every destination byte
/// with the host.
fn check_copies(gpu: &Gpu, config: OpsConfig, what: &str) {
    let host = vec![
        noise(40_000, 1),
        noise(12_004, 2),
        vec![0xaa; 80_000],
        noise(60_000, 3),
    ];
    let lengths: Vec<u64> = host.iter().map(|b| b.len() as u64).collect();
    let buffers: Vec<wgpu::Buffer> = host.iter().map(|b| buffer(gpu, b)).collect();
    let plan = copies(&lengths);
    let specs: Vec<BlockCopySpec<'_>> = plan
        .iter()
        .map(|&(s, so, d, dof, size)| BlockCopySpec {
            src: &buffers[s],
            src_offset: so,
            dst: &buffers[d],
            dst_offset: dof,
            size,
        })
        .collect();
    __copy_blocks(gpu, &specs, config).unwrap();
    let mut expected = host.clone();
    for &(s, so, d, dof, size) in &plan {
        let bytes = host[s][so as usize..(so + size) as usize].to_vec();
        expected[d][dof as usize..(dof + size) as usize].copy_from_slice(&bytes);
    }
    for d in 2..4 {
        let found = read_buffer(gpu, &buffers[d], 0, lengths[d]);
        assert_same(&found, &expected[d], &format!("{what}: destination {d}"));
    }
}

#[test]
fn many_blocks_at_every_phase_from_several_buffers_move_every_byte() {
    let gpu = gpu();
    // One vector per invocation (the default), and several: blocks end inside an invocation's
    // run and a workgroup's.
    for per in [None, Some(4), Some(16)] {
        let config = OpsConfig {
            rows_per_thread: per,
            ..OpsConfig::default()
        };
        check_copies(
            &gpu,
            config,
            &format!("adapter limits, {per:?} vectors per invocation"),
        );
    }
}

/// Devices that bind two storage buffers, or three or five of 4 KiB (offsets aligned to 256
/// bytes), with small uniform tables; each with its description.
pub(crate) fn small_gpus() -> Vec<(String, Gpu)> {
    [(2, 1 << 30, 1 << 16), (3, 4_096, 256), (5, 4_096, 48)]
        .into_iter()
        .map(|(storage, binding, uniform)| {
            let small = limited_gpu("table_blocks small", |limits| {
                limits.max_storage_buffers_per_shader_stage = storage;
                limits.max_storage_buffer_binding_size =
                    limits.max_storage_buffer_binding_size.min(binding);
                limits.min_storage_buffer_offset_alignment =
                    limits.min_storage_buffer_offset_alignment.max(256);
                limits.max_uniform_buffer_binding_size =
                    limits.max_uniform_buffer_binding_size.min(uniform);
            });
            let what = format!("{storage} storage bindings of {binding} bytes, uniform {uniform}");
            (what, small)
        })
        .collect()
}

#[test]
fn few_storage_bindings_and_small_tables_split_the_block_dispatch() {
    for (what, small) in small_gpus() {
        check_copies(&small, OpsConfig::default(), &what);
    }
}

/// Packing 41 batches of word-wide columns: 123 blocks at every phase, from 123 source
/// buffers into three columns, in one dispatch on the adapter's limits.
#[test]
fn pack_batches_of_many_batches_moves_every_byte() {
    let gpu = gpu();
    let columns = [
        ("f", VertexFormat::Float32),
        ("v", VertexFormat::Uint32x3),
        ("w", VertexFormat::Uint32x2),
    ];
    let counts: Vec<u64> = (0..41u64).map(|b| 37 + b * 13 % 29).collect();
    let (mut table, host) = table_of(&gpu, &columns, &counts, 0);
    table.pack_batches(&gpu, PackOptions::default()).unwrap();
    assert_eq!(table.batches().len(), 1);
    for ((name, _), bytes) in columns.iter().zip(&host) {
        let data = table.batches()[0].column(name).unwrap();
        assert_same(&data.read_bytes(&gpu).unwrap(), bytes, name);
    }
}

/// Stale bytes where the next buffers will likely be allocated: buffers of `sizes` filled with
/// 0xff and freed.
pub(crate) fn stale_memory(gpu: &Gpu, sizes: &[usize]) {
    for &size in sizes {
        drop(buffer(gpu, &vec![0xff; size]));
    }
    gpu.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
}

/// Re-layout outputs are made without wgpu's zero-fill where the device allows, the bytes no
/// copy writes cleared first: the tail past the last row, a sub-word column's rows (which a
/// kernel writes), the padding of `WgslStorage` rows and the space between segments read as
/// zero even where the memory held other bytes before.
#[test]
fn relayout_outputs_read_zero_where_no_copy_writes() {
    let gpu = gpu();
    let columns = [("v", VertexFormat::Uint32x3), ("b", VertexFormat::Uint8)];
    let counts = [5u64, 7, 9];
    let (table, host) = table_of(&gpu, &columns, &counts, 90);
    let rows: u64 = counts.iter().sum();

    // Interleaved rows of 16 bytes (3 of them padding), and the tail past them.
    stale_memory(&gpu, &[352, 4096]);
    let interleaved = table
        .to_interleaved(&gpu, "rows", StructLayout::WgslStorage, None)
        .unwrap();
    let data = interleaved.batches()[0].column("rows").unwrap();
    let format = data.struct_format().unwrap().clone();
    let stride = format.byte_stride() as usize;
    let mut expected = vec![0u8; data.buffer().size() as usize];
    for (field, (bytes, (_, f))) in format.fields().iter().zip(host.iter().zip(&columns)) {
        let width = f.byte_length() as usize;
        let at = field.byte_offset() as usize;
        for r in 0..rows as usize {
            expected[r * stride + at..r * stride + at + width]
                .copy_from_slice(&bytes[r * width..(r + 1) * width]);
        }
    }
    let found = read_buffer(&gpu, data.buffer(), 0, expected.len() as u64);
    assert_same(&found, &expected, "interleaved rows");

    // Segments of the interleaved rows: every byte of the buffer outside the values is zero.
    stale_memory(&gpu, &[1024, 4096]);
    let segmented =
        SegmentedTable::from_table(&gpu, &interleaved, SegmentOptions::default()).unwrap();
    let mut expected = vec![0u8; segmented.buffer().size() as usize];
    for ((name, f), bytes) in columns.iter().zip(&host) {
        let segment = segmented.segment(name).unwrap();
        let (width, step) = (f.byte_length() as usize, segment.byte_stride() as usize);
        for r in 0..rows as usize {
            let at = segment.byte_offset() as usize + r * step;
            expected[at..at + width].copy_from_slice(&bytes[r * width..(r + 1) * width]);
        }
    }
    let found = read_buffer(&gpu, segmented.buffer(), 0, expected.len() as u64);
    assert_same(&found, &expected, "segments");

    // Packed columns: the tail past the last row.
    stale_memory(&gpu, &[256, 32, 4096]);
    let mut table = table;
    table.pack_batches(&gpu, PackOptions::default()).unwrap();
    for ((name, _), bytes) in columns.iter().zip(&host) {
        let data = table.batches()[0].column(name).unwrap();
        let size = data.buffer().size();
        let mut expected = bytes.clone();
        expected.resize(size as usize, 0);
        assert_same(&read_buffer(&gpu, data.buffer(), 0, size), &expected, name);
    }
}

/// The benchmarks' probe of fresh outputs: blocks at several phases into outputs the re-layout
/// makes, one buffer per output or all in one (each output at a multiple of 256 bytes), over
/// memory that held other bytes: the copied bytes land, every other byte reads zero, and a copy
/// past its output is refused.
#[test]
fn blocks_into_fresh_outputs_separate_or_in_one_buffer() {
    let gpu = gpu();
    let source = noise(9_000, 7);
    let src = buffer(&gpu, &source);
    let sizes = [1_000u64, 4_004, 36];
    // (source offset, output, offset in the output, bytes)
    let plan = [
        (0u64, 0usize, 0u64, 400u64),
        (4, 0, 400, 596),
        (1_236, 1, 8, 3_996),
        (8_000, 2, 4, 32),
    ];
    let specs: Vec<FreshCopySpec<'_>> = plan
        .iter()
        .map(|&(so, d, dof, size)| FreshCopySpec {
            src: &src,
            src_offset: so,
            dst: d,
            dst_offset: dof,
            size,
        })
        .collect();
    let mut outputs: Vec<Vec<u8>> = sizes.iter().map(|&s| vec![0u8; s as usize]).collect();
    for &(so, d, dof, size) in &plan {
        outputs[d][dof as usize..(dof + size) as usize]
            .copy_from_slice(&source[so as usize..(so + size) as usize]);
    }
    stale_memory(&gpu, &[1_024, 4_096, 256, 8_192]);
    let separate =
        __copy_blocks_into_fresh(&gpu, &sizes, &specs, false, OpsConfig::default()).unwrap();
    assert_eq!(separate.len(), 3);
    for (d, expected) in outputs.iter().enumerate() {
        let found = read_buffer(&gpu, &separate[d], 0, sizes[d]);
        assert_same(&found, expected, &format!("output {d} in its own buffer"));
    }
    stale_memory(&gpu, &[8_192]);
    let one = __copy_blocks_into_fresh(&gpu, &sizes, &specs, true, OpsConfig::default()).unwrap();
    assert_eq!(one.len(), 1);
    let mut expected = Vec::new();
    for bytes in &outputs {
        expected.extend_from_slice(bytes);
        expected.resize(expected.len().next_multiple_of(256), 0);
    }
    let found = read_buffer(&gpu, &one[0], 0, expected.len() as u64);
    assert_same(&found, &expected, "outputs in one buffer");

    let past = FreshCopySpec {
        dst_offset: 8,
        ..specs[3]
    };
    assert!(matches!(
        __copy_blocks_into_fresh(&gpu, &sizes, &[past], true, OpsConfig::default()),
        Err(gpudata::table::TableError::CopyRange { .. })
    ));
}
