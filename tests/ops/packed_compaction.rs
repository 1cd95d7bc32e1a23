//! The packed one- and two-byte rows' compaction kernel at each of its tilings (groups of 1, 2
//! or 4 source vectors; the block's output copied whole or per 8 or 16 rows an invocation, as
//! `OpsConfig::rows_per_thread` sets them): lengths at every vector, group, step and block
//! boundary, keep ratios 0%, 50% and 100%, masks that keep a row or two per step (a block's
//! first and last four output bytes then come from different phases), a device with 16 KiB
//! of workgroup memory, and chunked columns; every result byte for byte the host's.

use crate::filter::blocky_mask;
use crate::fixtures::*;
use gpudata::ops::{self, GpuMask, OpsConfig};
use gpudata::table::{ChunkOptions, GpuVector};
use gpudata::{Gpu, VertexFormat};

/// `rows_per_thread` of every tiling: the default, groups of 1, 2 and 4 vectors (the block
/// whole), one-vector groups stored every 8 or 16 rows an invocation.
const TILINGS: [Option<u32>; 6] = [None, Some(1), Some(2), Some(4), Some(8), Some(16)];

const FORMATS: [VertexFormat; 3] = [
    VertexFormat::Uint8,
    VertexFormat::Uint16,
    VertexFormat::Unorm8x2,
];

/// The rows of `bytes` (packed `format` rows from byte `offset`) that `bools` keeps.
fn host(bytes: &[u8], format: VertexFormat, offset: u64, bools: &[bool]) -> Vec<u8> {
    let size = format.byte_length() as usize;
    (0..bools.len())
        .filter(|&r| bools[r])
        .flat_map(|r| {
            let at = offset as usize + r * size;
            bytes[at..at + size].to_vec()
        })
        .collect()
}

/// Compacts `bools.len()` packed rows of `format` (random bytes from a 16-byte offset of a
/// buffer sized in 16 bytes, so the packed kernel takes them) with `config`, against the host.
fn check(gpu: &Gpu, rng: &mut Rng, format: VertexFormat, bools: &[bool], config: &OpsConfig) {
    let length = bools.len() as u64;
    let offset = 16 * rng.below(3);
    let size = (offset + length * format.byte_length()).next_multiple_of(16);
    let bytes = rng.bytes(size as usize);
    let buffer = upload(gpu, &bytes);
    let v = view_at(&buffer, format, length, offset, None);
    let mask = GpuMask::from_bools(gpu, bools).unwrap();
    let out = ops::plan_compact(gpu, &mask, &[v], config)
        .unwrap()
        .run(gpu)
        .unwrap();
    let kept = bools.iter().filter(|&&k| k).count() as u64;
    assert_eq!(out.kept, kept);
    assert_eq!(
        out.columns[0].read_bytes(gpu).unwrap(),
        host(&bytes, format, offset, bools),
        "{length} rows of {format} at offset {offset}, {kept} kept, rows_per_thread {:?}",
        config.rows_per_thread
    );
}

/// Lengths at the boundaries of a uint16 vector (8 rows), a uint8 one (16), a mask word (32),
/// a uint16 step (2048), a uint8 step (4096) and a block (8192), and odd ones between.
const LENGTHS: [u64; 16] = [
    1, 7, 8, 9, 15, 16, 17, 33, 2047, 2049, 4095, 4096, 4097, 8191, 8193, 24_587,
];

/// The masks of round `i` over `length` rows: none, half at random, all, every other row.
fn mask_of(rng: &mut Rng, i: usize, length: u64) -> Vec<bool> {
    match i % 4 {
        0 => vec![false; length as usize],
        1 => (0..length).map(|_| rng.below(2) == 1).collect(),
        2 => vec![true; length as usize],
        _ => (0..length).map(|r| r % 2 == 0).collect(),
    }
}

#[test]
fn packed_compaction_at_every_tiling_and_boundary() {
    // With the block scan in subgroups (the test device has them) and in workgroup memory.
    let gpu = fresh_gpu();
    let mut rng = Rng::new(61);
    for subgroups in [true, false] {
        for rows_per_thread in TILINGS {
            let config = OpsConfig {
                rows_per_thread,
                subgroups,
                ..OpsConfig::default()
            };
            for (i, &length) in LENGTHS.iter().enumerate() {
                for (f, &format) in FORMATS.iter().enumerate() {
                    let bools = mask_of(&mut rng, i + f, length);
                    check(&gpu, &mut rng, format, &bools, &config);
                }
            }
        }
    }
}

#[test]
fn packed_compaction_carries_words_between_phases() {
    // Blocks that keep one row at the end of each uint16 step (2048 rows) or each uint8 one
    // (4096), or one row at a step's start and one at the block's end, or blocky masks: a
    // block's output of a few bytes then spans several phases of the copy.
    let gpu = fresh_gpu();
    let mut rng = Rng::new(62);
    let length = 5 * 8192 + 333;
    let masks: Vec<Vec<bool>> = vec![
        (0..length).map(|r| r % 2048 == 2047).collect(),
        (0..length).map(|r| r % 4096 == 4095).collect(),
        (0..length)
            .map(|r| r % 8192 == 2048 || r % 8192 == 8191)
            .collect(),
        (0..length).map(|r| r % 2048 < 3).collect(),
        blocky_mask(&mut rng, length),
        blocky_mask(&mut rng, length),
    ];
    for rows_per_thread in TILINGS {
        let config = OpsConfig {
            rows_per_thread,
            ..OpsConfig::default()
        };
        for bools in &masks {
            for format in FORMATS {
                check(&gpu, &mut rng, format, bools, &config);
            }
        }
    }
}

#[test]
fn packed_compaction_fits_sixteen_kib_of_workgroup_memory() {
    // WebGPU's default 16 KiB: uint16's whole-block copy does not fit, so the default tiling
    // stores it in two phases (and an explicit whole block falls back to the general kernel).
    let gpu = ops_with_limits(|l| l.max_compute_workgroup_storage_size = 16384);
    let mut rng = Rng::new(63);
    for rows_per_thread in TILINGS {
        let config = OpsConfig {
            rows_per_thread,
            ..OpsConfig::default()
        };
        for format in FORMATS {
            let bools = blocky_mask(&mut rng, 3 * 8192 + 17);
            check(&gpu, &mut rng, format, &bools, &config);
        }
    }
}

#[test]
fn chunked_sub_word_columns_filter_like_the_host() {
    // uint8, uint16 and [u8; 2] columns in chunks of 16-byte multiples (the packed kernel per
    // chunk) and of odd rows (the general one), kept by none, half, all of 2999 rows.
    let gpu = crate::support::small_gpu();
    let mut rng = Rng::new(64);
    let n = 2999;
    let a: Vec<u8> = (0..n).map(|_| rng.below(256) as u8).collect();
    let b: Vec<u16> = (0..n).map(|_| rng.below(65536) as u16).collect();
    let c: Vec<[u8; 2]> = (0..n)
        .map(|_| [rng.below(256) as u8, rng.below(256) as u8])
        .collect();
    let chunks = |rows| ChunkOptions {
        rows_per_chunk: Some(rows),
        ..ChunkOptions::default()
    };
    let usage = gpudata::data::DEFAULT_USAGE;
    let vectors = [
        GpuVector::upload_values(&gpu, "a", &a, usage, chunks(512)).unwrap(),
        GpuVector::upload_values(&gpu, "a", &a, usage, chunks(333)).unwrap(),
        GpuVector::upload_values(&gpu, "b", &b, usage, chunks(256)).unwrap(),
        GpuVector::upload_values(&gpu, "b", &b, usage, chunks(101)).unwrap(),
        GpuVector::upload_values(&gpu, "c", &c, usage, chunks(496)).unwrap(),
    ];
    let hosts = [
        (a.clone(), VertexFormat::Uint8),
        (a.clone(), VertexFormat::Uint8),
        (bytemuck::cast_slice(&b).to_vec(), VertexFormat::Uint16),
        (bytemuck::cast_slice(&b).to_vec(), VertexFormat::Uint16),
        (bytemuck::cast_slice(&c).to_vec(), VertexFormat::Uint8x2),
    ];
    for i in 0..3 {
        let bools: Vec<bool> = match i {
            0 => vec![false; n],
            1 => (0..n).map(|_| rng.below(2) == 1).collect(),
            _ => vec![true; n],
        };
        let mask = GpuMask::from_bools(&gpu, &bools).unwrap();
        let columns: Vec<&GpuVector> = vectors.iter().collect();
        let filtered = GpuVector::filter(&gpu, &mask, &columns).unwrap();
        for ((vector, (bytes, format)), original) in filtered.iter().zip(&hosts).zip(&vectors) {
            assert_eq!(vector.format(), original.format());
            let want = host(bytes, *format, 0, &bools);
            let got = if want.is_empty() {
                Vec::new()
            } else {
                vector.read_bytes(&gpu).unwrap()
            };
            let chunks = original.chunks().len();
            assert_eq!(got, want, "{format} in {chunks} chunks, mask {i}");
        }
    }
}
