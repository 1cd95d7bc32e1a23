//! The words around block copies' bodies, composed by the block kernel in the same dispatch
//! (edge vectors), and the bytes of fresh outputs no copy writes, zeroed there too: blocks of a
//! few words at every phase that share destination vectors (with kept words between some),
//! words at a source's end that is not a multiple of 16 bytes, a single tiny block, a fresh
//! output whose zeros span several storage bindings, and packs with empty and one-row batches;
//! on the adapter's limits and on devices that bind two or three storage buffers of 4 KiB.
//! Every byte is compared with the host.

use gpudata::Gpu;
use gpudata::ops::OpsConfig;
use gpudata::table::{
    __copy_blocks, __copy_blocks_into_fresh, BlockCopySpec, FreshCopySpec, GpuRecordBatch,
    GpuTable, PackOptions,
};
use gpudata::{GpuData, GpuDataDescriptor, VertexFormat};

use crate::blocks::{buffer, small_gpus, stale_memory};
use crate::fixtures::{USAGE, gpu, no_constants};
use crate::relayout::{assert_same, noise};
use crate::support::read_buffer;

/// The adapter, and devices of few and small storage bindings and small uniform tables.
fn devices() -> Vec<(String, Gpu)> {
    let mut out = vec![("adapter limits".to_owned(), gpu())];
    out.extend(small_gpus());
    out
}

/// Copies of a few words each, from two sources (of 4 100 and 3 000 bytes) at every phase,
/// one after the other in a destination of 2 048 bytes from byte 4 (sharing vectors), a kept
/// word after every seventh; some from a source's last bytes. `(source, offset, destination
/// offset, size)`.
fn small_copies() -> Vec<(usize, u64, u64, u64)> {
    const SIZES: [u64; 10] = [4, 8, 12, 16, 20, 24, 28, 36, 52, 4];
    const LENGTHS: [u64; 2] = [4_100, 3_000];
    let mut out = Vec::new();
    let mut cursor = 4;
    for k in 0..40u64 {
        let size = SIZES[(k % 10) as usize];
        let src = (k % 2) as usize;
        let src_offset = if k % 6 == 5 {
            LENGTHS[src] - size
        } else {
            (k * 52 + 4 * (k % 4)) % (LENGTHS[src] - 64)
        };
        out.push((src, src_offset, cursor, size));
        cursor += size + if k % 7 == 6 { 4 } else { 0 };
    }
    assert!(cursor <= 1_800);
    out
}

/// The host's result of `copies` from `sources` over `dst`.
fn host_copies(sources: &[Vec<u8>], dst: &[u8], copies: &[(usize, u64, u64, u64)]) -> Vec<u8> {
    let mut out = dst.to_vec();
    for &(s, so, dof, size) in copies {
        out[dof as usize..(dof + size) as usize]
            .copy_from_slice(&sources[s][so as usize..(so + size) as usize]);
    }
    out
}

#[test]
fn blocks_sharing_words_into_initialized_and_fresh_outputs() {
    for (what, gpu) in devices() {
        let sources = [noise(4_100, 11), noise(3_000, 12)];
        let src: Vec<wgpu::Buffer> = sources.iter().map(|b| buffer(&gpu, b)).collect();
        let copies = small_copies();
        // Into an initialized destination: words no copy writes keep their bytes.
        let before = noise(2_048, 13);
        let dst = buffer(&gpu, &before);
        let specs: Vec<BlockCopySpec<'_>> = copies
            .iter()
            .map(|&(s, so, dof, size)| BlockCopySpec {
                src: &src[s],
                src_offset: so,
                dst: &dst,
                dst_offset: dof,
                size,
            })
            .collect();
        __copy_blocks(&gpu, &specs, OpsConfig::default()).unwrap();
        let expected = host_copies(&sources, &before, &copies);
        let found = read_buffer(&gpu, &dst, 0, 2_048);
        assert_same(&found, &expected, &format!("{what}: initialized"));

        // Into a fresh output: they read zero.
        let fresh: Vec<FreshCopySpec<'_>> = copies
            .iter()
            .map(|&(s, so, dof, size)| FreshCopySpec {
                src: &src[s],
                src_offset: so,
                dst: 0,
                dst_offset: dof,
                size,
            })
            .collect();
        stale_memory(&gpu, &[2_048, 4_096]);
        let out =
            __copy_blocks_into_fresh(&gpu, &[2_040], &fresh, false, OpsConfig::default()).unwrap();
        let expected = host_copies(&sources, &[0; 2_048], &copies);
        let found = read_buffer(&gpu, &out[0], 0, 2_048);
        assert_same(&found, &expected, &format!("{what}: fresh"));
    }
}

#[test]
fn a_single_tiny_block_and_zeros_over_several_bindings() {
    for (what, gpu) in devices() {
        let source = noise(9_004, 21);
        let src = buffer(&gpu, &source);
        // One word into the middle of a vector, alone.
        let dst = buffer(&gpu, &[0xaa; 64]);
        let one = BlockCopySpec {
            src: &src,
            src_offset: 9_000,
            dst: &dst,
            dst_offset: 20,
            size: 4,
        };
        __copy_blocks(&gpu, &[one], OpsConfig::default()).unwrap();
        let mut expected = vec![0xaa; 64];
        expected[20..24].copy_from_slice(&source[9_000..]);
        assert_same(
            &read_buffer(&gpu, &dst, 0, 64),
            &expected,
            &format!("{what}: one word"),
        );
        stale_memory(&gpu, &[64, 256]);
        let word = FreshCopySpec {
            src: &src,
            src_offset: 8,
            dst: 0,
            dst_offset: 28,
            size: 4,
        };
        let out =
            __copy_blocks_into_fresh(&gpu, &[36], &[word], false, OpsConfig::default()).unwrap();
        let mut expected = vec![0; 48];
        expected[28..32].copy_from_slice(&source[8..12]);
        assert_same(
            &read_buffer(&gpu, &out[0], 0, 48),
            &expected,
            &format!("{what}: one word, fresh"),
        );

        // Two blocks far apart in a fresh output: zeros between and after them span several
        // 4 KiB bindings on the small devices.
        stale_memory(&gpu, &[20_000, 32_768]);
        let plan = [(4u64, 4u64, 5_000u64), (8, 12_004, 3_000)];
        let specs: Vec<FreshCopySpec<'_>> = plan
            .iter()
            .map(|&(so, dof, size)| FreshCopySpec {
                src: &src,
                src_offset: so,
                dst: 0,
                dst_offset: dof,
                size,
            })
            .collect();
        let out =
            __copy_blocks_into_fresh(&gpu, &[20_000], &specs, false, OpsConfig::default()).unwrap();
        let mut expected = vec![0; 20_000];
        for (so, dof, size) in plan {
            expected[dof as usize..(dof + size) as usize]
                .copy_from_slice(&source[so as usize..(so + size) as usize]);
        }
        assert_same(
            &read_buffer(&gpu, &out[0], 0, 20_000),
            &expected,
            &format!("{what}: zeros over several bindings"),
        );
    }
}

#[test]
fn pack_batches_with_empty_and_one_row_batches() {
    let columns = [
        ("v", VertexFormat::Uint32x3),
        ("f", VertexFormat::Float32),
        ("w", VertexFormat::Uint32x2),
    ];
    let counts = [5u64, 0, 1, 7, 0, 3, 1];
    for (what, gpu) in devices() {
        let mut host: Vec<Vec<u8>> = vec![Vec::new(); columns.len()];
        let mut batches = Vec::new();
        for (b, &rows) in counts.iter().enumerate() {
            let mut data = Vec::new();
            for (c, (name, format)) in columns.iter().enumerate() {
                let bytes = noise(rows * format.byte_length(), 40 + (b * 8 + c) as u64);
                host[c].extend_from_slice(&bytes);
                let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
                    label: Some("edges test column"),
                    size: (bytes.len() as u64).max(4),
                    usage: USAGE,
                    mapped_at_creation: false,
                });
                gpu.queue().write_buffer(&buffer, 0, &bytes);
                data.push((
                    (*name).to_owned(),
                    GpuData::new(
                        gpudata::data::BufferHandle::Shared(buffer),
                        GpuDataDescriptor::new(*format, rows),
                    )
                    .unwrap(),
                ));
            }
            batches.push(GpuRecordBatch::new(data).unwrap());
        }
        let mut table = GpuTable::from_batches(batches, no_constants()).unwrap();
        stale_memory(&gpu, &[80, 32, 64, 4_096]);
        table.pack_batches(&gpu, PackOptions::default()).unwrap();
        assert_eq!(table.batches().len(), 1);
        for ((name, _), bytes) in columns.iter().zip(&host) {
            let data = table.batches()[0].column(name).unwrap();
            let size = data.buffer().size();
            let mut expected = bytes.clone();
            expected.resize(size as usize, 0);
            assert_same(
                &read_buffer(&gpu, data.buffer(), 0, size),
                &expected,
                &format!("{what}: {name}"),
            );
        }
    }
}
