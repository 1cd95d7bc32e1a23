//! Operations whose result depends on rows of several chunks (issue 17: "operations … take
//! chunked columns"): `extent`, `prefix_sum` and `gather` over `GpuVector`s on devices whose
//! buffers hold at most 1 KiB (and 8 KiB buffers with 2 KiB storage bindings, so chunks are
//! bound in parts and the scan recurses), each compared byte for byte with a host oracle
//! written here and with the one-buffer operation over the same rows in one `GpuData`.

use std::sync::OnceLock;

use crate::fixtures::{USAGE, gpu as full_gpu, limited_gpu};
use crate::support::{self, Rng, small_gpu};
use gpudata::ops::{self, OpError};
use gpudata::table::{ChunkMapError, ChunkOptions, GpuVector, TableError};
use gpudata::{Gpu, GpuData, GpuDataDescriptor, GpuStruct, GpuVectorFormat, VertexFormat};

/// The most bytes one buffer holds on [`small_gpu`].
const MAX_BUFFER: u64 = support::SMALL_BUFFER;

/// A device of 8 KiB buffers whose storage bindings hold at most 2 KiB: a chunk is bound in
/// several parts.
fn parts_gpu() -> Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        limited_gpu("chunked reductions in parts", |limits| {
            limits.max_buffer_size = 8192;
            limits.max_storage_buffer_binding_size = 2048;
        })
    })
    .clone()
}

fn per_chunk(rows: Option<u64>) -> ChunkOptions {
    ChunkOptions {
        rows_per_chunk: rows,
        ..ChunkOptions::default()
    }
}

/// `bytes` (packed rows of `format`) as a vector on `gpu`, cut by `options`.
fn chunked(
    gpu: &Gpu,
    name: &str,
    bytes: &[u8],
    format: VertexFormat,
    options: ChunkOptions,
) -> GpuVector {
    let rows = bytes.len() as u64 / format.byte_length();
    GpuVector::upload_with(
        gpu,
        name,
        bytes,
        GpuDataDescriptor::new(format, rows),
        USAGE,
        options,
    )
    .unwrap()
}

/// `bytes` as one buffer on the full-size device.
fn one_buffer(bytes: &[u8], format: VertexFormat) -> GpuData {
    let rows = bytes.len() as u64 / format.byte_length();
    GpuData::from_bytes(
        &full_gpu(),
        bytes,
        GpuDataDescriptor::new(GpuVectorFormat::Fixed(format), rows),
        USAGE,
    )
    .unwrap()
}

/// The chunked result (its format and bytes) equals `oracle`, the one-buffer op's output on the
/// full-size device.
fn assert_like_one_buffer(
    format: Option<&gpudata::data::GpuDataFormat>,
    bytes: &[u8],
    oracle: &GpuData,
    what: &str,
) {
    assert_eq!(format, oracle.format(), "{what}");
    assert_eq!(
        bytes,
        oracle.read_bytes(&full_gpu()).unwrap(),
        "{what}: one buffer"
    );
}

/// Every chunk of `vector` within `limit` bytes; how many chunks there are.
fn check_buffers(vector: &GpuVector, limit: u64) -> usize {
    for chunk in vector.chunks() {
        assert!(chunk.buffer().size() <= limit, "{}", chunk.buffer().size());
    }
    vector.chunks().len()
}

// ---------------------------------------------------------------------------------------------
// Host oracles.

/// Lane `lane` of row `row` as its stored little-endian integer.
fn lane_bits(bytes: &[u8], format: VertexFormat, row: usize, lane: usize) -> u64 {
    let size = (format.byte_length() / u64::from(format.components())) as usize;
    let at = row * format.byte_length() as usize + lane * size;
    bytes[at..at + size]
        .iter()
        .rev()
        .fold(0u64, |acc, b| (acc << 8) | u64::from(*b))
}

/// A lane value, comparable: floats by value (`-0 < +0`, by `total_cmp`), integers signed or
/// not (normalized ones by their stored integers); `None` for NaN.
fn comparable(format: VertexFormat, bits: u64) -> Option<Comparable> {
    use gpudata::format::DataType as D;
    let size = format.byte_length() / u64::from(format.components()) * 8;
    match format.data_type() {
        D::Float32 => {
            let v = f32::from_bits(bits as u32);
            (!v.is_nan()).then_some(Comparable::Float(v))
        }
        D::Float16 => {
            let v = half::f16::from_bits(bits as u16).to_f32();
            (!v.is_nan()).then_some(Comparable::Float(v))
        }
        D::Sint8 | D::Sint16 | D::Sint32 | D::Snorm8 | D::Snorm16 => {
            let shift = 64 - size;
            Some(Comparable::Int(((bits << shift) as i64) >> shift))
        }
        _ => Some(Comparable::Int(bits as i64)),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Comparable {
    Float(f32),
    Int(i64),
}

impl Comparable {
    fn cmp(&self, other: &Comparable) -> std::cmp::Ordering {
        match (self, other) {
            (Comparable::Float(a), Comparable::Float(b)) => a.total_cmp(b),
            (Comparable::Int(a), Comparable::Int(b)) => a.cmp(b),
            _ => unreachable!(),
        }
    }
}

/// luma.gl's extent of packed rows: per lane `[min, max]` of the stored values, a NaN in the
/// first row that lane's result, NaNs elsewhere skipped.
fn host_extent(bytes: &[u8], format: VertexFormat) -> Vec<u8> {
    let rows = bytes.len() / format.byte_length() as usize;
    let lanes = format.components() as usize;
    let size = format.byte_length() as usize / lanes;
    let mut out = Vec::new();
    for lane in 0..lanes {
        let first = lane_bits(bytes, format, 0, lane);
        let (lo, hi) = if comparable(format, first).is_none() {
            (first, first)
        } else {
            let values: Vec<(u64, Comparable)> = (0..rows)
                .filter_map(|r| {
                    let bits = lane_bits(bytes, format, r, lane);
                    comparable(format, bits).map(|c| (bits, c))
                })
                .collect();
            let lo = values.iter().min_by(|a, b| a.1.cmp(&b.1)).unwrap().0;
            let hi = values.iter().max_by(|a, b| a.1.cmp(&b.1)).unwrap().0;
            (lo, hi)
        };
        out.extend_from_slice(&lo.to_le_bytes()[..size]);
        out.extend_from_slice(&hi.to_le_bytes()[..size]);
    }
    out
}

/// The exclusive prefix sum of one-lane integers (sign-extended), wrapping at 32 bits, with
/// the total last.
fn host_prefix_sum(bytes: &[u8], format: VertexFormat) -> Vec<u8> {
    let signed = format.is_signed();
    let size = format.byte_length() as usize;
    let mut sum = 0u32;
    let mut out = vec![0u32];
    for value in bytes.chunks_exact(size) {
        let raw = value
            .iter()
            .rev()
            .fold(0u32, |acc, b| (acc << 8) | u32::from(*b));
        let widened = if signed {
            let shift = 32 - 8 * size as u32;
            (((raw << shift) as i32) >> shift) as u32
        } else {
            raw
        };
        sum = sum.wrapping_add(widened);
        out.push(sum);
    }
    bytemuck::cast_slice(&out).to_vec()
}

/// The source row an index of `ids_format` (raw bits `bits`) picks among `rows`, if any.
fn host_index(ids_format: VertexFormat, bits: u32, rows: usize) -> Option<usize> {
    let index = match ids_format {
        VertexFormat::Float32 => {
            let f = f32::from_bits(bits);
            (f >= 0.0 && f.fract() == 0.0 && f < rows as f32).then_some(f as usize)?
        }
        VertexFormat::Sint32 => usize::try_from(bits as i32).ok()?,
        _ => bits as usize,
    };
    (index < rows).then_some(index)
}

/// The rows of `source` (packed rows of `row` bytes) at `ids`, zero rows for invalid indices.
fn host_gather(source: &[u8], row: usize, ids_format: VertexFormat, ids: &[u32]) -> Vec<u8> {
    let rows = source.len() / row;
    let mut out = Vec::new();
    for &id in ids {
        match host_index(ids_format, id, rows) {
            Some(i) => out.extend_from_slice(&source[i * row..(i + 1) * row]),
            None => out.extend(std::iter::repeat_n(0u8, row)),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// extent

/// A float32 that is special (NaN with a random payload and sign, ±0, ±inf) one time in four.
fn f32_value(rng: &mut Rng) -> f32 {
    match rng.below(12) {
        0 => f32::from_bits(0x7f80_0001 | (rng.next_u32() & 0x807f_ffff)),
        1 => -0.0,
        2 => 0.0,
        3 => [f32::INFINITY, f32::NEG_INFINITY][rng.below(2) as usize],
        _ => rng.f32_in(1000.0),
    }
}

/// `vector`'s extent on the small device against the host and the one-buffer operation.
fn check_extent(vector: &GpuVector, bytes: &[u8], format: VertexFormat, what: &str) {
    let gpu = small_gpu();
    let got = vector.extent(&gpu).unwrap();
    let got_bytes = got.read_bytes(&gpu).unwrap();
    let expected = host_extent(bytes, format);
    assert_eq!(got_bytes, expected, "{what}: host");
    let full = full_gpu();
    let single = one_buffer(bytes, format);
    let oracle = ops::extent(&full, single.as_view().unwrap()).unwrap();
    assert_eq!(got.length(), oracle.length(), "{what}");
    assert_like_one_buffer(got.format(), &got_bytes, &oracle, what);
}

#[test]
fn extent_of_chunked_columns_equals_one_buffer_and_the_host() {
    let gpu = small_gpu();
    let mut rng = Rng::new(1717);
    for format in [
        VertexFormat::Float32,
        VertexFormat::Float32x2,
        VertexFormat::Float16x2,
        VertexFormat::Unorm8x4,
        VertexFormat::Sint16,
        VertexFormat::Sint32,
        VertexFormat::Uint8x2,
    ] {
        let row = format.byte_length();
        let fit = MAX_BUFFER / row;
        // One chunk, a last chunk of one row, many chunks of a count that is no multiple of
        // anything the kernel works in, and chunks of one row.
        for (rows, options) in [
            (50, per_chunk(None)),
            (fit + 1, per_chunk(None)),
            (700, per_chunk(None)),
            (700, per_chunk(Some(90))),
            (40, per_chunk(Some(1))),
        ] {
            let bytes: Vec<u8> = match format {
                VertexFormat::Float32 | VertexFormat::Float32x2 => (0..rows
                    * u64::from(format.components()))
                    .flat_map(|_| f32_value(&mut rng).to_le_bytes())
                    .collect(),
                // float16 and integers: any bits (float16 NaNs, infinities, ±0 and subnormals
                // among them).
                _ => rng.bytes((rows * row) as usize),
            };
            let vector = chunked(&gpu, "x", &bytes, format, options);
            assert!(check_buffers(&vector, MAX_BUFFER) >= 1);
            check_extent(
                &vector,
                &bytes,
                format,
                &format!("{rows} {format} ({options:?})"),
            );
        }
    }
}

#[test]
fn extent_keeps_the_nan_rule_of_the_whole_column_not_of_each_chunk() {
    let gpu = small_gpu();
    let nan = |payload: u32| f32::from_bits(0x7fc0_0000 | payload);
    // 700 float32x2 rows in chunks of 90: every chunk's first row is NaN in lane 0 (and in
    // lane 1 from chunk 3 on), but the column's first row is not, so all those NaNs are
    // skipped; lane 1 holds -0 and +0 only, besides NaNs.
    let mut rng = Rng::new(3);
    let mut rows: Vec<[f32; 2]> = (0..700)
        .map(|_| [rng.f32_in(50.0), if rng.below(2) == 0 { -0.0 } else { 0.0 }])
        .collect();
    rows[0] = [1.5, 0.0];
    for start in (90..700).step_by(90) {
        rows[start][0] = nan(start as u32);
        if start >= 270 {
            rows[start][1] = -nan(start as u32 + 1);
        }
    }
    rows[699][0] = nan(7);
    let bytes: Vec<u8> = bytemuck::cast_slice(&rows).to_vec();
    let vector = chunked(
        &gpu,
        "xy",
        &bytes,
        VertexFormat::Float32x2,
        per_chunk(Some(90)),
    );
    assert_eq!(vector.chunks().len(), 8);
    check_extent(
        &vector,
        &bytes,
        VertexFormat::Float32x2,
        "NaN at chunk starts",
    );
    let extent: Vec<u32> =
        bytemuck::cast_slice(&vector.extent(&gpu).unwrap().read_bytes(&gpu).unwrap()).to_vec();
    let lane0_min = rows
        .iter()
        .map(|r| r[0])
        .filter(|v| !v.is_nan())
        .fold(f32::INFINITY, f32::min);
    assert_eq!(extent[0], lane0_min.to_bits());
    assert_eq!(extent[2], (-0.0f32).to_bits(), "-0 is the minimum");
    assert_eq!(extent[3], 0.0f32.to_bits(), "+0 is the maximum");

    // A NaN in the column's first row is that lane's minimum and maximum, its bits kept;
    // lane 1 is not NaN there and reduces over the rest.
    rows[0] = [nan(0x1234), 2.0];
    let bytes: Vec<u8> = bytemuck::cast_slice(&rows).to_vec();
    let vector = chunked(
        &gpu,
        "xy",
        &bytes,
        VertexFormat::Float32x2,
        per_chunk(Some(90)),
    );
    check_extent(
        &vector,
        &bytes,
        VertexFormat::Float32x2,
        "NaN in the first row",
    );
    let extent: Vec<u32> =
        bytemuck::cast_slice(&vector.extent(&gpu).unwrap().read_bytes(&gpu).unwrap()).to_vec();
    assert_eq!(&extent[..2], &[0x7fc0_1234, 0x7fc0_1234]);
    assert_eq!(extent[3], 2.0f32.to_bits());

    // A vector whose first chunk is empty: the first row is the next chunk's.
    let empty = GpuData::from_bytes(
        &gpu,
        &[],
        GpuDataDescriptor::new(VertexFormat::Float32x2, 0),
        USAGE,
    )
    .unwrap();
    let rest = chunked(
        &gpu,
        "xy",
        &bytes,
        VertexFormat::Float32x2,
        per_chunk(Some(90)),
    );
    let mut chunks = vec![empty];
    chunks.extend(rest.into_chunks());
    let vector = GpuVector::from_data("xy", chunks).unwrap();
    check_extent(
        &vector,
        &bytes,
        VertexFormat::Float32x2,
        "an empty first chunk",
    );
}

// ---------------------------------------------------------------------------------------------
// prefix_sum

/// `vector`'s prefix sum on `gpu` against the host and the one-buffer operation; the output's
/// chunks.
fn check_prefix_sum(
    gpu: &Gpu,
    vector: &GpuVector,
    bytes: &[u8],
    format: VertexFormat,
    limit: u64,
    what: &str,
) -> usize {
    let got = vector.prefix_sum(gpu).unwrap();
    let rows = bytes.len() as u64 / format.byte_length();
    assert_eq!(got.name(), "prefix_sum");
    assert_eq!(got.length(), rows + 1, "{what}");
    let out_format = if format.is_signed() {
        VertexFormat::Sint32
    } else {
        VertexFormat::Uint32
    };
    assert_eq!(got.element_format(), Some(out_format), "{what}");
    let chunks = check_buffers(&got, limit);
    let got_bytes = got.read_bytes(gpu).unwrap();
    assert_eq!(got_bytes, host_prefix_sum(bytes, format), "{what}: host");
    let full = full_gpu();
    let single = one_buffer(bytes, format);
    let oracle = ops::prefix_sum(&full, single.as_view().unwrap()).unwrap();
    assert_like_one_buffer(got.format(), &got_bytes, &oracle, what);
    chunks
}

#[test]
fn prefix_sums_of_chunked_columns_carry_across_chunks_on_the_gpu() {
    let gpu = small_gpu();
    let mut rng = Rng::new(77);
    // Output chunks hold at most 255 values (1 KiB with the running total after them).
    for format in [
        VertexFormat::Uint8,
        VertexFormat::Uint16,
        VertexFormat::Uint32,
        VertexFormat::Sint8,
        VertexFormat::Sint32,
    ] {
        for (rows, options) in [
            (0, per_chunk(None)),
            (1, per_chunk(None)),
            (200, per_chunk(None)),
            (255, per_chunk(None)),
            (256, per_chunk(None)),
            (257, per_chunk(Some(256))),
            (700, per_chunk(None)),
            (700, per_chunk(Some(90))),
            (3000, per_chunk(Some(1000))),
            (30, per_chunk(Some(1))),
        ] {
            if rows > 1000 && format.byte_length() == 4 {
                continue;
            }
            // 32-bit values of any size wrap the sums many times; small ones count up.
            let bytes = rng.bytes((rows * format.byte_length()) as usize);
            let vector = chunked(&gpu, "n", &bytes, format, options);
            let what = format!("{rows} {format} ({options:?})");
            let chunks = check_prefix_sum(&gpu, &vector, &bytes, format, MAX_BUFFER, &what);
            let expected_chunks = vector
                .chunks()
                .iter()
                .map(|c| c.length().div_ceil(255) as usize)
                .sum::<usize>()
                .max(1);
            assert_eq!(chunks, expected_chunks, "{what}");
        }
    }
    // Carries close to 2^32: each chunk's total is near u32::MAX, so every later chunk's
    // offset wraps (an f32 carry would round them).
    let values: Vec<u32> = (0..600u32).map(|i| u32::MAX - 3 * i).collect();
    let bytes: Vec<u8> = bytemuck::cast_slice(&values).to_vec();
    let vector = chunked(&gpu, "n", &bytes, VertexFormat::Uint32, per_chunk(Some(7)));
    assert!(vector.chunks().len() > 80);
    check_prefix_sum(
        &gpu,
        &vector,
        &bytes,
        VertexFormat::Uint32,
        MAX_BUFFER,
        "near u32::MAX",
    );
}

#[test]
fn prefix_sums_over_many_chunks_scan_their_block_sums_recursively() {
    // 70,000 uint8 rows in chunks of 5,000: 280 blocks of 256 rows over all the chunks (more
    // than one block of the scan of sums holds), each chunk bound in runs (2 KiB bindings).
    let gpu = parts_gpu();
    let mut rng = Rng::new(9);
    let bytes = rng.bytes(70_000);
    let vector = chunked(
        &gpu,
        "n",
        &bytes,
        VertexFormat::Uint8,
        per_chunk(Some(5000)),
    );
    assert_eq!(vector.chunks().len(), 14);
    let chunks = check_prefix_sum(
        &gpu,
        &vector,
        &bytes,
        VertexFormat::Uint8,
        8192,
        "70,000 uint8",
    );
    // 2,047 values an output chunk (8 KiB), three per input chunk.
    assert_eq!(chunks, 42);
}

// ---------------------------------------------------------------------------------------------
// gather

/// Indices of `ids_format` for a source of `rows` rows in chunks of `per` rows: random ones
/// (some out of range or negative), every chunk's first and last row, the last row, the
/// length and past it, and for floats fractions and NaN.
fn index_bits(
    rng: &mut Rng,
    ids_format: VertexFormat,
    rows: u64,
    per: u64,
    count: usize,
) -> Vec<u32> {
    let mut ids: Vec<i64> = (0..count)
        .map(|_| rng.below(rows + 20) as i64 - 5)
        .collect();
    for start in (0..rows).step_by(per as usize) {
        ids.push(start as i64);
        ids.push((start + per).min(rows) as i64 - 1);
    }
    ids.extend([
        rows as i64 - 1,
        rows as i64,
        rows as i64 + 1,
        0,
        -1,
        i64::from(u32::MAX),
    ]);
    let mut bits: Vec<u32> = ids
        .iter()
        .map(|&i| match ids_format {
            VertexFormat::Float32 => (i as f32).to_bits(),
            VertexFormat::Sint32 => (i as i32) as u32,
            _ => i as u32,
        })
        .collect();
    if ids_format == VertexFormat::Float32 {
        bits.extend([
            2.5f32.to_bits(),
            f32::NAN.to_bits(),
            (-0.0f32).to_bits(),
            f32::INFINITY.to_bits(),
        ]);
    }
    // Shuffled, so that one run of indices reaches into every chunk.
    for i in (1..bits.len()).rev() {
        bits.swap(i, rng.below(i as u64 + 1) as usize);
    }
    bits
}

/// `source`'s rows (uploaded from `source_bytes`) at `ids` (from `ids_bits`) on `gpu` against
/// the host and the one-buffer operation; the output, whose chunks are within `limit` bytes.
fn check_gather(
    gpu: &Gpu,
    (source, source_bytes): (&GpuVector, &[u8]),
    (ids, ids_bits): (&GpuVector, &[u32]),
    limit: u64,
    what: &str,
) -> GpuVector {
    let format = source.element_format().unwrap();
    let ids_format = ids.element_format().unwrap();
    let got = source.gather(gpu, ids).unwrap();
    assert_eq!(got.name(), source.name());
    assert_eq!(got.element_format(), Some(format), "{what}");
    assert_eq!(got.length(), ids_bits.len() as u64, "{what}");
    check_buffers(&got, limit);
    let got_bytes = got.read_bytes(gpu).unwrap();
    let row = format.byte_length() as usize;
    let expected = host_gather(source_bytes, row, ids_format, ids_bits);
    assert_eq!(got_bytes, expected, "{what}: host");
    let full = full_gpu();
    let single = one_buffer(source_bytes, format);
    let id_bytes: Vec<u8> = bytemuck::cast_slice(ids_bits).to_vec();
    let single_ids = one_buffer(&id_bytes, ids_format);
    let oracle = ops::gather(
        &full,
        single_ids.as_view().unwrap(),
        single.as_view().unwrap(),
    )
    .unwrap();
    assert_like_one_buffer(got.format(), &got_bytes, &oracle, what);
    got
}

#[test]
fn gather_from_chunked_columns_equals_one_buffer_and_the_host() {
    let gpu = small_gpu();
    let mut rng = Rng::new(4242);
    let formats = [
        VertexFormat::Float32,
        VertexFormat::Float32x3,
        VertexFormat::Unorm8x4,
        VertexFormat::Uint8,
        VertexFormat::Float16,
        VertexFormat::Sint16x2,
    ];
    for (k, format) in formats.into_iter().enumerate() {
        let row = format.byte_length();
        let fit = MAX_BUFFER / row;
        for (rows, per) in [
            (50, fit),
            (fit + 1, fit),
            (700, fit.min(700)),
            (700, fit.min(90)),
        ] {
            // Any bits: NaN payloads and float16 specials are copied, not decoded.
            let bytes = rng.bytes((rows * row) as usize);
            let source = chunked(&gpu, "src", &bytes, format, per_chunk(Some(per)));
            assert_eq!(source.chunks().len() as u64, rows.div_ceil(per));
            let ids_format = [
                VertexFormat::Sint32,
                VertexFormat::Uint32,
                VertexFormat::Float32,
            ][k % 3];
            let bits = index_bits(&mut rng, ids_format, rows, per, 400);
            let id_bytes: Vec<u8> = bytemuck::cast_slice(&bits).to_vec();
            // Indices in one chunk and in chunks of 77.
            for id_options in [per_chunk(None), per_chunk(Some(77))] {
                let ids = chunked(&gpu, "ids", &id_bytes, ids_format, id_options);
                let what = format!(
                    "{rows} {format} in chunks of {per}, {ids_format} ids ({id_options:?})"
                );
                let got = check_gather(&gpu, (&source, &bytes), (&ids, &bits), MAX_BUFFER, &what);
                // Output chunks follow the indices' (cut at what one buffer holds).
                let expected_chunks: u64 =
                    ids.chunks().iter().map(|c| c.length().div_ceil(fit)).sum();
                assert_eq!(got.chunks().len() as u64, expected_chunks, "{what}");
            }
        }
    }
}

#[test]
fn gather_binds_each_chunk_in_parts() {
    // 8 KiB chunks of 2,048 float32 rows, each bound as five parts of 2 KiB bindings.
    let gpu = parts_gpu();
    let mut rng = Rng::new(12);
    let rows = 6000u64;
    let bytes = rng.bytes(rows as usize * 4);
    let source = chunked(&gpu, "src", &bytes, VertexFormat::Float32, per_chunk(None));
    assert_eq!(source.chunks().len(), 3);
    let bits = index_bits(&mut rng, VertexFormat::Uint32, rows, 2048, 3000);
    let id_bytes: Vec<u8> = bytemuck::cast_slice(&bits).to_vec();
    let ids = chunked(
        &gpu,
        "ids",
        &id_bytes,
        VertexFormat::Uint32,
        per_chunk(Some(1500)),
    );
    check_gather(&gpu, (&source, &bytes), (&ids, &bits), 8192, "parts");
}

// ---------------------------------------------------------------------------------------------
// Edges and refusals

#[test]
fn chunked_reductions_of_no_rows_and_their_refusals() {
    let gpu = small_gpu();
    let empty =
        GpuVector::upload_values::<u32>(&gpu, "e", &[], USAGE, ChunkOptions::default()).unwrap();
    // No rows: no extent, a prefix sum of one 0, a gather of nothing.
    let err = empty.extent(&gpu).unwrap_err();
    assert!(
        matches!(&err, ChunkMapError::Piece { vector, rows: 0, source: OpError::Empty { op: "extent" }, .. } if vector == "e"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "gpu vector `e`: the operation failed on 0 rows from row 0: extent: expected at least one row, found none"
    );
    let sums = empty.prefix_sum(&gpu).unwrap();
    assert_eq!(sums.chunks().len(), 1);
    assert_eq!(sums.read_bytes(&gpu).unwrap(), [0; 4]);
    let values =
        GpuVector::upload_values(&gpu, "v", &[1.0f32, 2.0, 3.0], USAGE, per_chunk(Some(2)))
            .unwrap();
    let none = values.gather(&gpu, &empty).unwrap();
    assert_eq!(none.length(), 0);
    assert_eq!(none.chunks().len(), 1);
    // Indices into a source of no rows: zero rows.
    let ids =
        GpuVector::upload_values(&gpu, "ids", &[0u32, 1], USAGE, ChunkOptions::default()).unwrap();
    let no_source =
        GpuVector::upload_values::<f32>(&gpu, "s", &[], USAGE, ChunkOptions::default()).unwrap();
    let zeros = no_source.gather(&gpu, &ids).unwrap();
    assert_eq!(zeros.read_bytes(&gpu).unwrap(), [0; 8]);

    // Floats have no prefix sum; normalized indices are refused, as for one buffer.
    let err = values.prefix_sum(&gpu).unwrap_err();
    assert!(
        matches!(
            &err,
            ChunkMapError::Piece {
                rows: 3,
                source: OpError::UnsupportedFormat {
                    op: "prefix_sum",
                    format: VertexFormat::Float32,
                    ..
                },
                ..
            }
        ),
        "{err:?}"
    );
    let unorm = chunked(&gpu, "u", &[1, 2], VertexFormat::Unorm8, per_chunk(None));
    let err = values.gather(&gpu, &unorm).unwrap_err();
    assert!(
        matches!(
            &err,
            ChunkMapError::Piece {
                source: OpError::UnsupportedFormat {
                    op: "gather",
                    format: VertexFormat::Unorm8,
                    ..
                },
                ..
            }
        ),
        "{err:?}"
    );

    // List columns: refused as map_chunks refuses them.
    let list = GpuDataDescriptor {
        format: Some(GpuVectorFormat::VertexList(VertexFormat::Float32).into()),
        length: 2,
        value_length: Some(4),
        ..GpuDataDescriptor::new(VertexFormat::Float32, 2)
    };
    let data = GpuData::from_bytes(&gpu, &[0; 16], list, USAGE).unwrap();
    let lists = GpuVector::from_data("l", vec![data]).unwrap();
    let is_list = |err: ChunkMapError<OpError>| matches!(&err, ChunkMapError::Table(TableError::ChunkedList { vector, .. }) if vector == "l");
    assert!(is_list(lists.extent(&gpu).unwrap_err()));
    assert!(is_list(lists.prefix_sum(&gpu).unwrap_err()));
    assert!(is_list(lists.gather(&gpu, &ids).unwrap_err()));
    assert!(is_list(values.gather(&gpu, &lists).unwrap_err()));

    // Struct rows are not one column.
    #[derive(Clone, Copy, GpuStruct)]
    #[repr(C)]
    struct Pair {
        a: f32,
        b: u32,
    }
    let pairs: Vec<Pair> = (0..300).map(|i| Pair { a: i as f32, b: 0 }).collect();
    let rows = GpuVector::from_rows(&gpu, "pairs", &pairs, None).unwrap();
    assert!(rows.chunks().len() > 1);
    for err in [
        rows.extent(&gpu).unwrap_err(),
        rows.prefix_sum(&gpu).map(|_| ()).unwrap_err(),
    ] {
        assert!(
            matches!(&err, ChunkMapError::Piece { vector, first_row: 0, rows: 300, source: OpError::WrongData { .. } } if vector == "pairs"),
            "{err:?}"
        );
    }
    let err = rows.gather(&gpu, &ids).unwrap_err();
    assert!(
        matches!(
            &err,
            ChunkMapError::Piece {
                source: OpError::WrongData { op: "gather", .. },
                ..
            }
        ),
        "{err:?}"
    );
}
