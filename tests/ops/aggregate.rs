//! `reduce` and `histogram` on the GPU against the CPU reference: random sizes across
//! workgroup, tile and chunk boundaries, masks in one and several pieces, strided columns,
//! empty and all-NaN columns, NaN, ±0 and ±inf; the float sum within its stated bound of an
//! `f64` sum; chunked columns through `ops::piecewise`.

use crate::fixtures::*;
use crate::support::USAGE;
use gpudata::data::GpuDataDescriptor;
use gpudata::format::GpuVectorFormat;
use gpudata::ops::cpu::{self, HostInput};
use gpudata::ops::{
    self, GpuMask, Histogram, OpsConfig, Reduction, ShaderScalar, Total, piecewise,
};
use gpudata::table::{ChunkOptions, GpuVector};
use gpudata::{Gpu, VertexFormat};

/// Random rows of one-lane `format`: floats in `[-range, range)` (a special value — NaN, ±0,
/// and with `inf` ±inf — in about one row of `special`, never when `special` is 0), integers of
/// any bits.
pub fn lane_values(
    rng: &mut Rng,
    format: VertexFormat,
    n: usize,
    range: f32,
    special: u64,
    inf: bool,
) -> Vec<u8> {
    let kinds = if inf { 6 } else { 4 };
    let size = format.byte_length() as usize;
    let mut out = Vec::with_capacity(n * size);
    for _ in 0..n {
        let pick = special > 0 && rng.below(special) == 0;
        let bits: u32 = match format {
            VertexFormat::Float32 if pick => [
                0x7fc0_0000,
                0xffc0_0001,
                0,
                0x8000_0000,
                0x7f80_0000,
                0xff80_0000,
            ][rng.below(kinds) as usize],
            VertexFormat::Float32 => rng.f32_in(range).to_bits(),
            VertexFormat::Float16 if pick => {
                [0x7e00, 0xfe01, 0, 0x8000, 0x7c00, 0xfc00][rng.below(kinds) as usize]
            }
            // Finite halves: any sign and mantissa, exponents below the largest.
            VertexFormat::Float16 => rng.next_u32() & 0xbbff,
            _ => rng.next_u32(),
        };
        out.extend_from_slice(&bits.to_le_bytes()[..size]);
    }
    out
}

/// A random mask of `n` rows keeping about `keep` in 8.
pub fn random_mask(rng: &mut Rng, n: usize, keep: u64) -> Vec<bool> {
    (0..n).map(|_| rng.below(8) < keep).collect()
}

/// The mask `keep` on the GPU: one piece, or (`split`) two pieces cut at a third.
pub fn gpu_mask(gpu: &Gpu, keep: &[bool], split: bool) -> GpuMask {
    if split && keep.len() > 2 {
        let cut = keep.len() / 3;
        GpuMask::from_masks(vec![
            GpuMask::from_bools(gpu, &keep[..cut]).unwrap(),
            GpuMask::from_bools(gpu, &keep[cut..]).unwrap(),
        ])
    } else {
        GpuMask::from_bools(gpu, keep).unwrap()
    }
}

/// A column of `format` over `bytes`, chunked every `rows` rows.
pub fn chunked(gpu: &Gpu, bytes: &[u8], format: VertexFormat, n: u64, rows: u64) -> GpuVector {
    let descriptor = GpuDataDescriptor::new(GpuVectorFormat::Fixed(format), n);
    let options = ChunkOptions {
        rows_per_chunk: Some(rows),
        ..ChunkOptions::default()
    };
    GpuVector::upload_with(gpu, "column", bytes, descriptor, USAGE, options).unwrap()
}

/// The `f64` sum and absolute sum of the valid (kept, not NaN) `f32` values of `input`.
fn exact_sums(values: &[f32], mask: Option<&[bool]>) -> (f64, f64) {
    values
        .iter()
        .enumerate()
        .filter(|&(i, v)| mask.is_none_or(|m| m[i]) && !v.is_nan())
        .fold((0.0, 0.0), |(s, a), (_, &v)| {
            (s + f64::from(v), a + f64::from(v).abs())
        })
}

/// Asserts a GPU reduction against the CPU reference: counts, extremes and integer sums equal,
/// a float sum within `(⌈log₂ n⌉ + 4) · 2⁻²⁴ · Σ|x|` of the `f64` sum. Returns the error in
/// units of `2⁻²⁴ · Σ|x|`.
pub fn assert_reduction(
    got: &Reduction,
    want: &Reduction,
    floats: Option<(&[f32], Option<&[bool]>)>,
    what: &str,
) -> f64 {
    assert_eq!(got.count, want.count, "{what}: count");
    assert_eq!(got.valid_count, want.valid_count, "{what}: valid count");
    let bits = |s: Option<ShaderScalar>| s.map(ShaderScalar::to_bits);
    assert_eq!(
        bits(got.min),
        bits(want.min),
        "{what}: min {:?} {:?}",
        got.min,
        want.min
    );
    assert_eq!(
        bits(got.max),
        bits(want.max),
        "{what}: max {:?} {:?}",
        got.max,
        want.max
    );
    match (got.sum, want.sum, floats) {
        (Total::Float(g), Total::Float(w), Some((values, mask))) => {
            let (exact, abs) = exact_sums(values, mask);
            if w.is_nan() {
                assert!(g.is_nan(), "{what}: sum {g}, expected NaN");
                return 0.0;
            }
            if !exact.is_finite() || !abs.is_finite() || w.is_infinite() {
                assert_eq!(g.to_bits(), w.to_bits(), "{what}: special sum {g} {w}");
                return 0.0;
            }
            let n = got.valid_count.max(2) as f64;
            let unit = abs * f64::from(f32::EPSILON) / 2.0;
            let err = (f64::from(g) - exact).abs();
            let bound = (n.log2().ceil() + 4.0) * unit;
            assert!(
                err <= bound,
                "{what}: sum {g} vs {exact}: error {err} over the bound {bound}"
            );
            if unit > 0.0 { err / unit } else { 0.0 }
        }
        (g, w, _) => {
            assert_eq!(format!("{g:?}"), format!("{w:?}"), "{what}: sum");
            0.0
        }
    }
}

fn decode_f32(bytes: &[u8], format: VertexFormat) -> Vec<f32> {
    match format {
        VertexFormat::Float32 => f32s(bytes),
        VertexFormat::Float16 => bytes
            .chunks_exact(2)
            .map(|c| gpudata::format::codec::f16_to_f32(u16::from_le_bytes([c[0], c[1]])))
            .collect(),
        _ => Vec::new(),
    }
}

#[test]
fn reduce_equals_the_cpu_reference_within_the_sum_bound() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(28);
    let mut worst = 0.0f64;
    let cases: [(VertexFormat, usize, u64); 10] = [
        (VertexFormat::Float32, 1, 0),
        (VertexFormat::Float32, 255, 16),
        (VertexFormat::Float32, 8193, 0),
        (VertexFormat::Float32, 70_001, 64),
        (VertexFormat::Float16, 2049, 16),
        (VertexFormat::Uint8, 4099, 0),
        (VertexFormat::Sint16, 777, 0),
        (VertexFormat::Uint32, 9000, 0),
        (VertexFormat::Sint32, 9000, 0),
        (VertexFormat::Float32, 0, 0),
    ];
    for (i, &(format, n, special)) in cases.iter().enumerate() {
        let bytes = lane_values(&mut rng, format, n, 1000.0, special, true);
        let floats = decode_f32(&bytes, format);
        let buffer = upload(&gpu, &bytes);
        let keep = random_mask(&mut rng, n, 5);
        for masked in [false, true] {
            let mask = masked.then(|| gpu_mask(&gpu, &keep, i % 2 == 0));
            let got = ops::reduce(&gpu, view(&buffer, format, n as u64), mask.as_ref()).unwrap();
            let host = masked.then_some(&keep[..]);
            let want = cpu::reduce(HostInput::new(&bytes, format, n as u64), host).unwrap();
            let what = format!("{format} n={n} masked={masked}");
            let f = (!floats.is_empty()).then_some((&floats[..], host));
            worst = worst.max(assert_reduction(&got, &want, f, &what));
        }
    }
    // Two combine levels (tiles of 2048 rows, 1024 records a level) and a strided column.
    let n = 2_200_000usize;
    let values: Vec<f32> = (0..n).map(|_| rng.f32_in(1.0) + 0.5).collect();
    let bytes = f32_bytes(&values);
    let buffer = upload(&gpu, &bytes);
    let config = OpsConfig {
        rows_per_thread: Some(8),
        ..OpsConfig::default()
    };
    let plan = ops::plan_reduce(
        &gpu,
        view(&buffer, VertexFormat::Float32, n as u64),
        None,
        &config,
    )
    .unwrap();
    assert_eq!(plan.dispatches(), 3, "tile pass and two combine levels");
    let got = plan.run(&gpu).unwrap().read(&gpu).unwrap();
    let want = cpu::reduce(
        HostInput::new(&bytes, VertexFormat::Float32, n as u64),
        None,
    )
    .unwrap();
    worst = worst.max(assert_reduction(
        &got,
        &want,
        Some((&values, None)),
        "2.2M rows",
    ));
    let strided = view_at(&buffer, VertexFormat::Float32, 1000, 8, Some(12));
    let got = ops::reduce(&gpu, strided, None).unwrap();
    let host = HostInput::new(&bytes, VertexFormat::Float32, 1000)
        .with_byte_offset(8)
        .with_byte_stride(12);
    let picked: Vec<f32> = (0..1000).map(|i| values[2 + 3 * i]).collect();
    assert_reduction(
        &got,
        &cpu::reduce(host, None).unwrap(),
        Some((&picked, None)),
        "strided",
    );
    // The measured error, in units of 2⁻²⁴ · Σ|x| (the bound is ⌈log₂ n⌉ + 4 of them).
    println!("reduce: largest float sum error {worst:.3} × 2⁻²⁴ · Σ|x|");
}

#[test]
fn reduce_defines_empty_nan_zero_and_infinite_columns() {
    let gpu = fresh_gpu();
    let run = |values: &[f32], keep: Option<&[bool]>| -> Reduction {
        let bytes = f32_bytes(values);
        let buffer = upload(&gpu, &bytes);
        let mask = keep.map(|k| GpuMask::from_bools(&gpu, k).unwrap());
        let column = view(&buffer, VertexFormat::Float32, values.len() as u64);
        let got = ops::reduce(&gpu, column, mask.as_ref()).unwrap();
        let want = cpu::reduce(
            HostInput::new(&bytes, VertexFormat::Float32, values.len() as u64),
            keep,
        )
        .unwrap();
        assert_reduction(&got, &want, Some((values, keep)), &format!("{values:?}"));
        got
    };
    let sum_bits = |r: &Reduction| match r.sum {
        Total::Float(v) => v.to_bits(),
        other => panic!("{other:?}"),
    };
    let empty = run(&[], None);
    assert_eq!(
        (empty.count, empty.valid_count, empty.min, empty.mean()),
        (0, 0, None, None)
    );
    assert_eq!(sum_bits(&empty), 0x8000_0000, "the empty sum is -0");
    let nan = run(&[f32::NAN, -f32::NAN], None);
    assert_eq!((nan.count, nan.valid_count, nan.max), (2, 0, None));
    let negative_zeros = run(&[-0.0, -0.0], None);
    assert_eq!(sum_bits(&negative_zeros), 0x8000_0000);
    let zeros = run(&[0.0, -0.0, f32::NAN], None);
    assert_eq!(zeros.min.map(ShaderScalar::to_bits), Some(0x8000_0000));
    assert_eq!(zeros.max.map(ShaderScalar::to_bits), Some(0));
    assert_eq!(sum_bits(&zeros), 0);
    let inf = run(&[f32::INFINITY, 1.0, 2.0], None);
    assert_eq!(inf.sum, Total::Float(f32::INFINITY));
    assert!(
        matches!(run(&[f32::INFINITY, f32::NEG_INFINITY], None).sum, Total::Float(v) if v.is_nan())
    );
    let none = run(&[1.0, 2.0], Some(&[false, false]));
    assert_eq!((none.count, none.valid_count, none.min), (0, 0, None));
    let ints = u32_bytes(&[u32::MAX, u32::MAX, 3]);
    let buffer = upload(&gpu, &ints);
    let got = ops::reduce(&gpu, view(&buffer, VertexFormat::Uint32, 3), None).unwrap();
    assert_eq!(
        got.sum,
        Total::Unsigned(2 * u64::from(u32::MAX) + 3),
        "widened, not wrapped"
    );
    let signed = u32_bytes(&[i32::MIN as u32, i32::MIN as u32, 5]);
    let buffer = upload(&gpu, &signed);
    let got = ops::reduce(&gpu, view(&buffer, VertexFormat::Sint32, 3), None).unwrap();
    assert_eq!(got.sum, Total::Signed(2 * i64::from(i32::MIN) + 5));
    assert_eq!(got.min, Some(ShaderScalar::I32(i32::MIN)));
    assert_eq!(got.mean(), Some((2.0 * f64::from(i32::MIN) + 5.0) / 3.0));
}

#[test]
fn reduce_of_chunked_columns_equals_one_buffer() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(29);
    let n = 20_000usize;
    let bytes = lane_values(&mut rng, VertexFormat::Float32, n, 100.0, 32, true);
    let values = f32s(&bytes);
    let keep = random_mask(&mut rng, n, 6);
    let column = chunked(&gpu, &bytes, VertexFormat::Float32, n as u64, 3000);
    assert!(column.chunks().len() > 1);
    for split in [false, true] {
        let mask = gpu_mask(&gpu, &keep, split);
        let got = piecewise::reduce(&gpu, &column, Some(&mask)).unwrap();
        let want = cpu::reduce(
            HostInput::new(&bytes, VertexFormat::Float32, n as u64),
            Some(&keep),
        )
        .unwrap();
        assert_reduction(&got, &want, Some((&values, Some(&keep))), "chunked");
    }
    let ints = lane_values(&mut rng, VertexFormat::Sint16, n, 0.0, 0, false);
    let column = chunked(&gpu, &ints, VertexFormat::Sint16, n as u64, 4097);
    let got = piecewise::reduce(&gpu, &column, None).unwrap();
    let want = cpu::reduce(HostInput::new(&ints, VertexFormat::Sint16, n as u64), None).unwrap();
    assert_eq!(got, want);
}

/// Asserts two histograms equal, weights by their bits.
pub fn assert_histogram(got: &Histogram, want: &Histogram, what: &str) {
    assert_eq!(got.counts, want.counts, "{what}: counts");
    assert_eq!(
        (got.below, got.above, got.nan),
        (want.below, want.above, want.nan),
        "{what}: outside"
    );
    assert_eq!(got.range, want.range, "{what}: range");
    let bits = |w: &Option<Vec<f32>>| {
        w.as_ref()
            .map(|w| w.iter().map(|v| v.to_bits()).collect::<Vec<_>>())
    };
    assert_eq!(bits(&got.weights), bits(&want.weights), "{what}: weights");
}

#[test]
fn histogram_equals_the_cpu_reference() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(30);
    type Case = (VertexFormat, usize, u32, Option<(f32, f32)>);
    let cases: [Case; 6] = [
        (VertexFormat::Float32, 10_000, 256, Some((-500.0, 500.0))),
        (VertexFormat::Float32, 3001, 7, None),
        (VertexFormat::Float32, 1000, 5000, Some((-1000.0, 1000.0))),
        (VertexFormat::Float16, 999, 64, None),
        (VertexFormat::Uint8, 4097, 10, None),
        (VertexFormat::Float32, 0, 16, None),
    ];
    for &(format, n, bins, range) in &cases {
        let bytes = lane_values(&mut rng, format, n, 1000.0, 16, range.is_some());
        let buffer = upload(&gpu, &bytes);
        let weights = lane_values(&mut rng, VertexFormat::Float32, n, 10.0, 32, true);
        let wbuffer = upload(&gpu, &weights);
        let keep = random_mask(&mut rng, n, 6);
        for (weighted, masked) in [(false, false), (true, true), (false, true)] {
            let mask = masked.then(|| gpu_mask(&gpu, &keep, true));
            let w = weighted.then(|| view(&wbuffer, VertexFormat::Float32, n as u64));
            let got = ops::histogram(
                &gpu,
                view(&buffer, format, n as u64),
                w,
                mask.as_ref(),
                bins,
                range,
            )
            .unwrap()
            .read(&gpu)
            .unwrap();
            let host_w =
                weighted.then(|| HostInput::new(&weights, VertexFormat::Float32, n as u64));
            let want = cpu::histogram(
                HostInput::new(&bytes, format, n as u64),
                host_w,
                masked.then_some(&keep[..]),
                bins,
                range,
            )
            .unwrap();
            assert_histogram(
                &got,
                &want,
                &format!("{format} n={n} bins={bins} weighted={weighted} masked={masked}"),
            );
        }
    }
    // Every bin edge: the values 0..=100 in 10 bins over [0, 100], 100 in the last bin.
    let values: Vec<f32> = (0..=100).map(|v| v as f32).collect();
    let buffer = upload(&gpu, &f32_bytes(&values));
    let got = ops::histogram(
        &gpu,
        view(&buffer, VertexFormat::Float32, 101),
        None,
        None,
        10,
        None,
    )
    .unwrap()
    .read(&gpu)
    .unwrap();
    assert_eq!(got.counts, [10, 10, 10, 10, 10, 10, 10, 10, 10, 11]);
    assert_eq!(got.range, (0.0, 100.0));
    // Chunked values and weights, chunked differently, with a mask in two pieces.
    let n = 9000usize;
    let bytes = lane_values(&mut rng, VertexFormat::Float32, n, 50.0, 16, false);
    let weights = lane_values(&mut rng, VertexFormat::Sint32, n, 0.0, 0, false);
    let keep = random_mask(&mut rng, n, 4);
    let values = chunked(&gpu, &bytes, VertexFormat::Float32, n as u64, 2500);
    let wcol = chunked(&gpu, &weights, VertexFormat::Sint32, n as u64, 4000);
    let mask = gpu_mask(&gpu, &keep, true);
    let got = piecewise::histogram(&gpu, &values, Some(&wcol), Some(&mask), 33, None)
        .unwrap()
        .read(&gpu)
        .unwrap();
    let want = cpu::histogram(
        HostInput::new(&bytes, VertexFormat::Float32, n as u64),
        Some(HostInput::new(&weights, VertexFormat::Sint32, n as u64)),
        Some(&keep),
        33,
        None,
    )
    .unwrap();
    assert_histogram(&got, &want, "chunked");
}

/// Packed 32-bit columns are read as `vec4`s in whole tiles (`reduce`, and the counts of
/// `histogram` and `group_by`): every rows-per-invocation setting, NaN and ±inf among whole
/// tiles (the reduction's checked fallback), a partial last tile, and a 16-byte aligned start
/// against a word-aligned one (read a word at a time) give the CPU reference's results.
#[test]
fn packed_columns_read_as_vectors_equal_the_cpu_reference() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(2807);
    let n = 40_003usize;
    for format in [
        VertexFormat::Float32,
        VertexFormat::Uint32,
        VertexFormat::Sint32,
    ] {
        // Four rows ahead of the column: it starts at byte 16 (vectors) or 4 (words).
        let bytes = lane_values(&mut rng, format, n + 4, 1000.0, 500, true);
        let floats = decode_f32(&bytes, format);
        let buffer = upload(&gpu, &bytes);
        for (offset, per) in [
            (16u64, 8u32),
            (16, 16),
            (16, 32),
            (16, 64),
            (16, 128),
            (4, 32),
        ] {
            let config = OpsConfig {
                rows_per_thread: Some(per),
                ..OpsConfig::default()
            };
            let rows = n as u64;
            let column = view_at(&buffer, format, rows, offset, None);
            let host = HostInput::new(&bytes, format, rows).with_byte_offset(offset);
            let what = format!("{format} at {offset}, {per} rows per invocation");
            let got = ops::plan_reduce(&gpu, column, None, &config)
                .unwrap()
                .run(&gpu)
                .unwrap()
                .read(&gpu)
                .unwrap();
            let first = (offset / 4) as usize;
            let f = (!floats.is_empty()).then(|| (&floats[first..first + n], None));
            assert_reduction(&got, &cpu::reduce(host, None).unwrap(), f, &what);
            if format == VertexFormat::Float32 {
                let column = view_at(&buffer, format, rows, offset, None);
                let got = ops::plan_histogram(
                    &gpu,
                    column,
                    None,
                    None,
                    256,
                    Some((-500.0, 500.0)),
                    &config,
                )
                .unwrap()
                .run(&gpu)
                .unwrap()
                .read(&gpu)
                .unwrap();
                let want = cpu::histogram(host, None, None, 256, Some((-500.0, 500.0))).unwrap();
                assert_histogram(&got, &want, &what);
            }
        }
    }
}
