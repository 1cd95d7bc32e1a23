//! The row encoder's paths give the bytes the `GpuStruct` contract defines: every
//! `FIELD_COPIES` entry's host bytes at its GPU offset, every other byte zero (written here copy
//! by copy, the oracle), and for the nested bench row the bytes encase 0.13 writes. Covered: the
//! encoder in registers (chunk plans, with shuffled, shifted and multi-load chunks), the
//! buffered streaming path, the row-by-row path, `encode_row` (merged runs, gaps zeroed), and
//! the threaded encode and decode at row counts around the 4 MiB threshold and the per-thread
//! split boundaries, against the same encode or decode on one thread.

use gpudata::GpuStruct;
use gpudata::record::{
    THREADED_ENCODE_BYTES, decode_rows, decode_rows_on, encode_rows, encode_rows_on,
    encode_rows_to_vec,
};

/// The contract's bytes of `rows`: zeroed rows, each `FIELD_COPIES` entry copied on its own.
fn oracle<T: GpuStruct>(rows: &[T]) -> Vec<u8> {
    let stride = T::FORMAT.byte_stride() as usize;
    let mut out = vec![0u8; rows.len() * stride];
    for (row, dst) in rows.iter().zip(out.chunks_exact_mut(stride)) {
        for copy in T::FIELD_COPIES {
            assert!(copy.host + copy.len <= size_of::<T>());
            // SAFETY: the derive's `FIELD_COPIES` host ranges are initialized plain-data fields
            // inside `T` (checked above against its size).
            let field = unsafe {
                std::slice::from_raw_parts(
                    std::ptr::from_ref(row).cast::<u8>().add(copy.host),
                    copy.len,
                )
            };
            dst[copy.gpu..copy.gpu + copy.len].copy_from_slice(field);
        }
    }
    out
}

/// Every way to encode `rows` gives the oracle's bytes, into dirty, aligned and unaligned
/// destinations, on one and on several threads; decoding gives the rows back.
fn check_paths<T: GpuStruct + PartialEq + std::fmt::Debug>(rows: &[T]) {
    let name = std::any::type_name::<T>();
    let stride = T::FORMAT.byte_stride() as usize;
    let want = oracle(rows);
    assert!(
        encode_rows_to_vec(rows) == want,
        "{name}: encode_rows_to_vec"
    );
    let mut dst = vec![0xA5u8; want.len()];
    encode_rows(rows, &mut dst).unwrap();
    assert!(dst == want, "{name}: encode_rows");
    for threads in [1, 2, 3, 4, 7] {
        dst.fill(0x5A);
        encode_rows_on(rows, &mut dst, threads).unwrap();
        assert!(dst == want, "{name}: encode_rows_on {threads} threads");
    }
    // One byte off a 16-byte boundary: no streaming stores there.
    let mut backing = vec![0xA5u8; want.len() + 1];
    let unaligned = &mut backing[1..];
    encode_rows_on(rows, unaligned, 3).unwrap();
    assert!(*unaligned == *want, "{name}: unaligned destination");
    // `encode_row` into a dirty row (runs, gaps zeroed).
    for (row, expected) in rows.iter().zip(want.chunks_exact(stride)).take(64) {
        let mut one = vec![0xFFu8; stride];
        row.encode_row(&mut one);
        assert_eq!(one, expected, "{name}: encode_row");
    }
    assert!(decode_rows::<T>(&want).unwrap() == rows, "{name}: decode");
    for threads in [1, 2, 3, 7] {
        assert!(
            decode_rows_on::<T>(&want, threads).unwrap() == rows,
            "{name}: decode_rows_on {threads} threads"
        );
    }
}

fn f(i: usize, k: u32) -> f32 {
    (i as f32) * 0.5 + k as f32
}

/// The bench's nested row: the matrix at 16, the vec3 at 80 (a zero lane after it), the
/// material at 96; the host puts the vec3 last, so its chunk is a shifted load.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Body {
    mass: f32,
    #[gpu(wgsl = "mat4x4<f32>")]
    transform: [[f32; 4]; 4],
    position: [f32; 3],
    material: Material,
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
struct Material {
    color: [f32; 3],
    roughness: f32,
}

fn body(i: usize) -> Body {
    Body {
        mass: f(i, 1),
        transform: [
            [f(i, 2), f(i, 3), f(i, 4), f(i, 5)],
            [f(i, 6), f(i, 7), f(i, 8), f(i, 9)],
            [f(i, 10), f(i, 11), f(i, 12), f(i, 13)],
            [f(i, 14), f(i, 15), f(i, 16), f(i, 17)],
        ],
        position: [f(i, 18), f(i, 19), f(i, 20)],
        material: Material {
            color: [f(i, 21), f(i, 22), f(i, 23)],
            roughness: f(i, 24),
        },
    }
}

/// Scalars and vec2s whose host order (larger fields first) differs from their GPU order, so a
/// chunk gathers from two host places (two loads) and others reorder within one load.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Spread {
    a: f32,
    b: [f32; 2],
    c: [u32; 2],
    d: [f32; 2],
    e: u32,
    g: [f32; 2],
    h: f32,
    k: [f32; 2],
}

fn spread(i: usize) -> Spread {
    Spread {
        a: f(i, 1),
        b: [f(i, 2), f(i, 3)],
        c: [i as u32, !(i as u32)],
        d: [f(i, 4), f(i, 5)],
        e: (i as u32).rotate_left(9),
        g: [f(i, 6), f(i, 7)],
        h: f(i, 8),
        k: [f(i, 9), f(i, 10)],
    }
}

/// A `mat3x3<f32>` (columns padded to 16 on the GPU) between scalars, `#[repr(C)]`.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
struct Columns {
    id: u32,
    #[gpu(wgsl = "mat3x3<f32>")]
    basis: [[f32; 3]; 3],
    scale: [f32; 3],
    flags: [u16; 2],
}

fn columns(i: usize) -> Columns {
    Columns {
        id: i as u32,
        basis: [
            [f(i, 1), f(i, 2), f(i, 3)],
            [f(i, 4), f(i, 5), f(i, 6)],
            [f(i, 7), f(i, 8), f(i, 9)],
        ],
        scale: [f(i, 10), f(i, 11), f(i, 12)],
        flags: [i as u16, 3],
    }
}

/// A host-only padding field between GPU fields: its bytes are no field's, so no 16-byte load
/// may read them; the row takes the buffered path.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
struct HostGap {
    a: f32,
    #[gpu(padding)]
    _pad: [u32; 7],
    b: f32,
    c: [f32; 2],
}

fn host_gap(i: usize) -> HostGap {
    HostGap {
        a: f(i, 1),
        _pad: [0; 7],
        b: f(i, 2),
        c: [f(i, 3), f(i, 4)],
    }
}

/// A 20-byte packed row (not a multiple of 16): row by row.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[gpu(layout = "packed")]
struct Packed {
    position: [f32; 3],
    id: u32,
    color: gpudata::Unorm8x4,
}

fn packed(i: usize) -> Packed {
    Packed {
        position: [f(i, 1), f(i, 2), f(i, 3)],
        id: i as u32,
        color: gpudata::Unorm8x4([i as u8, 1, 2, 3]),
    }
}

/// Rows of 272 bytes (over the 256 the register and buffered paths take): row by row.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Wide {
    id: u32,
    #[gpu(wgsl = "array<mat4x4<f32>, 4>")]
    bones: [[[f32; 4]; 4]; 4],
}

fn wide(i: usize) -> Wide {
    let mut bones = [[[0.0; 4]; 4]; 4];
    for (k, value) in bones.iter_mut().flatten().flatten().enumerate() {
        *value = f(i, k as u32);
    }
    Wide {
        id: i as u32,
        bones,
    }
}

#[test]
fn every_encoder_path_writes_the_contracts_bytes() {
    assert_eq!(Body::FORMAT.byte_stride(), 112);
    assert_eq!(Spread::FORMAT.byte_stride(), 64);
    assert_eq!(Wide::FORMAT.byte_stride(), 272);
    assert_eq!(Packed::FORMAT.byte_stride(), 20);
    // Small inputs (one thread, plain stores) and inputs past the 4 MiB streaming threshold.
    for count in [0, 1, 3, 1000] {
        check_paths(&(0..count).map(body).collect::<Vec<_>>());
        check_paths(&(0..count).map(spread).collect::<Vec<_>>());
        check_paths(&(0..count).map(columns).collect::<Vec<_>>());
        check_paths(&(0..count).map(host_gap).collect::<Vec<_>>());
        check_paths(&(0..count).map(packed).collect::<Vec<_>>());
        check_paths(&(0..count).map(wide).collect::<Vec<_>>());
    }
    let large = |stride: usize| (THREADED_ENCODE_BYTES / stride) * 3 / 2;
    check_paths(&(0..large(112)).map(body).collect::<Vec<_>>());
    check_paths(&(0..large(64)).map(spread).collect::<Vec<_>>());
    check_paths(&(0..large(80)).map(columns).collect::<Vec<_>>());
    check_paths(&(0..large(16)).map(host_gap).collect::<Vec<_>>());
    check_paths(&(0..large(20)).map(packed).collect::<Vec<_>>());
    check_paths(&(0..large(272)).map(wide).collect::<Vec<_>>());
}

/// The nested row at the offsets WGSL's memory model gives (written out by hand): `mass` at 0,
/// the matrix's columns at 16, 32, 48, 64, `position` at 80, the material's `color` at 96 and
/// `roughness` at 108; bytes 4..16 and 92..96 zero.
#[test]
fn nested_rows_encode_at_wgsl_offsets() {
    let rows: Vec<Body> = (0..(THREADED_ENCODE_BYTES / 112) + 5).map(body).collect();
    let bytes = encode_rows_to_vec(&rows);
    let word = |row: &[u8], at: usize| f32::from_le_bytes(row[at..at + 4].try_into().unwrap());
    for (i, row) in bytes.chunks_exact(112).enumerate() {
        let b = body(i);
        assert_eq!(word(row, 0), b.mass);
        assert!(row[4..16].iter().all(|&x| x == 0), "row {i}: bytes 4..16");
        for c in 0..4 {
            for r in 0..4 {
                assert_eq!(word(row, 16 + 16 * c + 4 * r), b.transform[c][r]);
            }
        }
        for k in 0..3 {
            assert_eq!(word(row, 80 + 4 * k), b.position[k]);
            assert_eq!(word(row, 96 + 4 * k), b.material.color[k]);
        }
        assert!(row[92..96].iter().all(|&x| x == 0), "row {i}: bytes 92..96");
        assert_eq!(word(row, 108), b.material.roughness);
    }
}

/// `Body`'s GPU row size.
const BODY_STRIDE: usize = 112;

/// Rows of `Body` and the row counts where the threaded split changes: around the 4 MiB
/// threshold, and one row fewer / more than whole parts of at least 2 MiB.
fn split_boundary_rows() -> (Vec<Body>, [usize; 8]) {
    let min_rows = (2usize << 20).div_ceil(BODY_STRIDE);
    let threshold = THREADED_ENCODE_BYTES / BODY_STRIDE;
    let all: Vec<Body> = (0..4 * min_rows + 2).map(body).collect();
    let counts = [
        threshold - 1,
        threshold,
        threshold + 1,
        2 * min_rows - 1,
        2 * min_rows,
        2 * min_rows + 1,
        3 * min_rows + 1,
        4 * min_rows + 1,
    ];
    (all, counts)
}

/// The threaded encode at the row counts where its split changes (the 4 MiB threshold, parts of
/// at least 2 MiB, one more or one fewer row than whole parts) gives the one-thread bytes.
#[test]
fn threaded_encodes_equal_one_thread_at_split_boundaries() {
    let (all, counts) = split_boundary_rows();
    let stride = BODY_STRIDE;
    for count in counts {
        let rows = &all[..count];
        let mut one = vec![0u8; count * stride];
        encode_rows_on(rows, &mut one, 1).unwrap();
        assert!(one == oracle(rows), "{count} rows on one thread");
        for threads in [2, 3, 4, 8] {
            let mut many = vec![0xEEu8; count * stride];
            encode_rows_on(rows, &mut many, threads).unwrap();
            assert!(many == one, "{count} rows on {threads} threads");
        }
        assert!(
            encode_rows_to_vec(rows) == one,
            "{count} rows, encode_rows_to_vec"
        );
    }
}

/// The threaded decode at the same row counts gives the one-thread rows, which are the rows
/// encoded; re-encoding them gives the same bytes.
#[test]
fn threaded_decodes_equal_one_thread_at_split_boundaries() {
    let (all, counts) = split_boundary_rows();
    let stride = BODY_STRIDE;
    let bytes = oracle(&all);
    for count in counts {
        let src = &bytes[..count * stride];
        let one = decode_rows_on::<Body>(src, 1).unwrap();
        assert!(one == all[..count], "{count} rows on one thread");
        for threads in [2, 3, 4, 8] {
            let many = decode_rows_on::<Body>(src, threads).unwrap();
            assert!(many == one, "{count} rows on {threads} threads");
            assert!(
                encode_rows_to_vec(&many) == src,
                "{count} rows on {threads} threads, re-encoded"
            );
        }
        assert!(
            decode_rows::<Body>(src).unwrap() == one,
            "{count} rows, decode_rows"
        );
    }
}
