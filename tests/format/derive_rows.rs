//! Rows to GPU bytes and back through `#[derive(GpuStruct)]`: encode then decode returns the
//! rows for every format under both layouts; the per-field encoder zeroes padding; and the
//! zero-copy path gives the same bytes as the encoder.

use crate::fixtures::*;
use gpudata::record::{RowBytesError, decode_rows, encode_rows, encode_rows_to_vec, rows_as_bytes};
use gpudata::{GpuStruct, Snorm16x2, Unorm8x4, Unorm16x2};
use half::f16;

/// A small deterministic byte generator (xorshift64).
struct Bytes(u64);

impl Bytes {
    fn fill(&mut self, out: &mut [u8]) {
        for b in out {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            *b = (self.0 >> 24) as u8;
        }
    }
}

/// Which bytes of one stride some field's payload covers.
fn payload_mask<T: GpuStruct>() -> Vec<bool> {
    let stride = T::FORMAT.byte_stride() as usize;
    let mut mask = vec![false; stride];
    for field in T::FORMAT.fields() {
        for b in &mut mask[field.byte_offset() as usize..field.byte_end() as usize] {
            *b = true;
        }
    }
    mask
}

/// Random GPU rows with zero padding, decoded to host rows and encoded back: the bytes survive
/// both directions, through the per-row and the slice functions, bit for bit (NaN payloads
/// included), and the padding bytes stay zero.
fn round_trip<T: GpuStruct>(seed: u64) {
    let stride = T::FORMAT.byte_stride() as usize;
    let mask = payload_mask::<T>();
    let rows = 64;
    let mut gpu = vec![0u8; stride * rows];
    Bytes(seed).fill(&mut gpu);
    for (i, b) in gpu.iter_mut().enumerate() {
        if !mask[i % stride] {
            *b = 0;
        }
    }
    let host: Vec<T> = decode_rows(&gpu).expect("whole rows");
    assert_eq!(host.len(), rows);
    let per_row: Vec<T> = gpu.chunks_exact(stride).map(T::decode_row).collect();

    let encoded = encode_rows_to_vec(&host);
    assert_eq!(
        encoded,
        gpu,
        "{}: decode then encode",
        std::any::type_name::<T>()
    );
    assert_eq!(encode_rows_to_vec(&per_row), gpu);

    let mut dst = vec![0xAAu8; stride * rows];
    encode_rows(&host, &mut dst).unwrap();
    assert_eq!(dst, gpu);

    // Every row encoded alone into a dirty buffer: padding comes out zero.
    for (row, expected) in host.iter().zip(gpu.chunks_exact(stride)) {
        let mut one = vec![0xFFu8; stride];
        row.encode_row(&mut one);
        assert_eq!(one, expected);
    }
}

#[test]
fn decode_then_encode_keeps_every_byte_for_every_format() {
    round_trip::<Bytes8Packed>(1);
    round_trip::<Bytes8Storage>(2);
    round_trip::<Bytes16Packed>(3);
    round_trip::<Bytes16Storage>(4);
    round_trip::<Bytes32Packed>(5);
    round_trip::<Bytes32Storage>(6);
    round_trip::<OverridesPacked>(7);
    round_trip::<OverridesStorage>(8);
    round_trip::<WebglOnly>(9);
    round_trip::<ZeroCopyPacked>(10);
    round_trip::<ZeroCopyStorage>(11);
}

fn packed_rows() -> Vec<OverridesPacked> {
    (0..10u8)
        .map(|i| OverridesPacked {
            color: [i, 2 * i, 3 * i, 255],
            x: f32::from(i) * 0.5,
            normal: [-i16::from(i), 7],
            packed: u32::from(i) * 0x0101_0101,
            bgra: [9, 8, 7, i],
            y: i.wrapping_mul(31),
            half_pair: [f16::from_f32(f32::from(i)).to_bits(), 0x3c00],
            z: [1.0, -2.0, f32::from(i)],
        })
        .collect()
}

#[test]
fn encode_then_decode_returns_the_rows() {
    let rows = packed_rows();
    let bytes = encode_rows_to_vec(&rows);
    assert_eq!(bytes.len(), rows.len() * 40);
    // Field bytes land at their offsets: `y` at 20, `z` at 28.
    assert_eq!(bytes[40 + 20], 31);
    assert_eq!(&bytes[40 + 28..40 + 32], &1.0f32.to_le_bytes());
    assert_eq!(decode_rows::<OverridesPacked>(&bytes).unwrap(), rows);

    let storage: Vec<OverridesStorage> = rows
        .iter()
        .map(|r| OverridesStorage {
            color: r.color,
            x: r.x,
            normal: r.normal,
            packed: r.packed,
            bgra: r.bgra,
            y: r.y,
            half_pair: r.half_pair,
            z: r.z,
        })
        .collect();
    let bytes = encode_rows_to_vec(&storage);
    assert_eq!(bytes.len(), storage.len() * 48);
    // wgsl-storage: `y` in its own word at 20, bytes 21..24 zero; `z` at 32; 44..48 zero.
    assert_eq!(&bytes[48 + 21..48 + 24], &[0, 0, 0]);
    assert_eq!(&bytes[48 + 44..48 + 48], &[0, 0, 0, 0]);
    assert_eq!(decode_rows::<OverridesStorage>(&bytes).unwrap(), storage);
}

fn zero_copy_rows() -> (Vec<ZeroCopyPacked>, Vec<ZeroCopyStorage>) {
    let packed = (0..100u32)
        .map(|i| ZeroCopyPacked {
            position: [i as f32, 1.0, -1.0],
            color: Unorm8x4::from_f32([1.0, 0.5, 0.0, 1.0]),
            normal: Snorm16x2::from_f32([-1.0, 0.25]),
            uv: Unorm16x2([i as u16, 65535]),
            id: i,
            size: [f16::from_f32(0.5), f16::from_f32(i as f32)],
            tag: [i as u8, 1],
            pair: [-1, i as i8],
        })
        .collect();
    let storage = (0..100u32)
        .map(|i| ZeroCopyStorage {
            position: [1.0, 2.0, i as f32],
            intensity: 0.25,
            color: Unorm8x4([1, 2, 3, i as u8]),
            _pad: [0; 12],
            direction: [0.0, 1.0, 0.0, i as f32],
        })
        .collect();
    (packed, storage)
}

#[test]
fn zero_copy_and_encoder_paths_give_identical_bytes() {
    let (packed, storage) = zero_copy_rows();
    const { assert!(ZeroCopyPacked::HOST_LAYOUT_MATCHES && ZeroCopyStorage::HOST_LAYOUT_MATCHES) };

    let memcpy = rows_as_bytes(&packed).expect("zero-copy");
    let encoder: Vec<u8> = packed
        .iter()
        .flat_map(|row| {
            let mut out = vec![0u8; 36];
            row.encode_row(&mut out);
            out
        })
        .collect();
    assert_eq!(memcpy, encoder.as_slice());
    assert_eq!(encode_rows_to_vec(&packed), encoder);
    assert_eq!(decode_rows::<ZeroCopyPacked>(memcpy).unwrap(), packed);

    let memcpy = rows_as_bytes(&storage).expect("zero-copy");
    let encoder: Vec<u8> = storage
        .iter()
        .flat_map(|row| {
            let mut out = vec![0u8; 48];
            row.encode_row(&mut out);
            out
        })
        .collect();
    assert_eq!(memcpy, encoder.as_slice());
    assert_eq!(decode_rows::<ZeroCopyStorage>(&encoder).unwrap(), storage);
}

#[test]
fn host_layout_matches_exactly_when_the_bytes_are_gpu_rows() {
    // `#[repr(C)]` and 4-byte fields packed back to back: the host layout is the packed layout.
    const { assert!(Bytes32Packed::HOST_LAYOUT_MATCHES) };
    // u8 then [u8; 2]: host offset 1, packed offset 2.
    const { assert!(!Bytes8Packed::HOST_LAYOUT_MATCHES) };
    // [u16; 2] after u16: host offset 2, packed offset 4.
    const { assert!(!Bytes16Packed::HOST_LAYOUT_MATCHES) };
    // wgsl-storage aligns vec2/vec3/vec4 carriers beyond their host alignment.
    const { assert!(!Bytes32Storage::HOST_LAYOUT_MATCHES) };
    const { assert!(!OverridesStorage::HOST_LAYOUT_MATCHES) };
    // Not `#[repr(C)]`: never zero-copy, whatever rustc's layout happens to be.
    const { assert!(!WebglOnly::HOST_LAYOUT_MATCHES) };
    assert!(rows_as_bytes::<WebglOnly>(&[]).is_none());

    let rows: Vec<Bytes32Packed> = (0..4u32)
        .map(|i| Bytes32Packed {
            a: i,
            b: [i; 2],
            c: [i; 3],
            d: [i; 4],
            e: -(i as i32),
            f: [1; 2],
            g: [2; 3],
            h: [3; 4],
            i: 0.5,
            j: [1.5; 2],
            k: [2.5; 3],
            l: [3.5; 4],
        })
        .collect();
    let memcpy = rows_as_bytes(&rows).unwrap().to_vec();
    let mut encoder = vec![0u8; memcpy.len()];
    for (row, out) in rows.iter().zip(encoder.chunks_exact_mut(120)) {
        row.encode_row(out);
    }
    assert_eq!(memcpy, encoder);
}

#[test]
fn slice_functions_check_lengths() {
    let rows = packed_rows();
    let mut short = vec![0u8; 39];
    assert_eq!(
        encode_rows(&rows[..1], &mut short),
        Err(RowBytesError::DestinationLength {
            rows: 1,
            byte_stride: 40,
            expected: 40,
            found: 39
        })
    );
    assert_eq!(
        decode_rows::<OverridesPacked>(&[0; 41]).unwrap_err(),
        RowBytesError::SourceLength {
            byte_stride: 40,
            found: 41
        }
    );
    assert_eq!(
        RowBytesError::SourceLength {
            byte_stride: 40,
            found: 41
        }
        .to_string(),
        "source holds 41 bytes, which is not a multiple of the byte stride 40"
    );
    assert!(decode_rows::<OverridesPacked>(&[]).unwrap().is_empty());
}

#[test]
fn decode_row_accepts_a_row_without_trailing_padding() {
    // A last row may stop at row_byte_length (wgsl-storage: 44 of 48 bytes).
    let row = OverridesStorage::decode_row(&[7u8; 44]);
    assert_eq!(row.z, [f32::from_le_bytes([7; 4]); 3]);
    assert_eq!(row.y, 7);
}

#[test]
#[should_panic(expected = "encode_row needs exactly 40 bytes (one gpu row), got 41")]
fn encode_row_refuses_a_wrong_length() {
    packed_rows()[0].encode_row(&mut [0u8; 41]);
}

#[test]
#[should_panic(expected = "decode_row needs at least 44 bytes (one gpu row), got 43")]
fn decode_row_refuses_a_short_row() {
    let _ = OverridesStorage::decode_row(&[0u8; 43]);
}

#[test]
fn large_encodes_give_the_same_bytes_as_row_by_row() {
    // Past 4 MiB with a stride that is a multiple of 16, x86_64 streams rows to the destination;
    // every path must write the same bytes.
    let rows: Vec<OverridesStorage> = (0..100_000u32)
        .map(|i| OverridesStorage {
            color: i.to_le_bytes(),
            x: i as f32,
            normal: [i as i16, (i as i16).wrapping_neg()],
            packed: i.rotate_left(7),
            bgra: [1, 2, 3, i as u8],
            y: (i % 251) as u8,
            half_pair: [i as u16, 7],
            z: [0.5, i as f32, -1.0],
        })
        .collect();
    let stride = 48;
    let mut row_by_row = vec![0u8; rows.len() * stride];
    for (row, out) in rows.iter().zip(row_by_row.chunks_exact_mut(stride)) {
        row.encode_row(out);
    }
    assert!(encode_rows_to_vec(&rows) == row_by_row);
    let mut aligned = vec![0xAAu8; rows.len() * stride];
    encode_rows(&rows, &mut aligned).unwrap();
    assert!(aligned == row_by_row);
    // A destination that is not 16-byte aligned takes the plain path.
    let mut backing = vec![0xAAu8; rows.len() * stride + 1];
    let unaligned = &mut backing[1..];
    encode_rows(&rows, unaligned).unwrap();
    assert!(*unaligned == *row_by_row);
    assert_eq!(decode_rows::<OverridesStorage>(&aligned).unwrap(), rows);
}
