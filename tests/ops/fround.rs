//! `fround` on the GPU: float64 to `f32` high and low parts with integer operations, bit for bit
//! equal to the CPU formula on the spec's vectors (§11.8) and on random doubles of every class.

use crate::fixtures::*;
use gpudata::ops::cpu::{self, HostInput};
use gpudata::ops::{self, OpsConfig};
use gpudata::{Gpu, OpError, VertexFormat};

fn doubles_bytes(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Doubles of every class: random bit patterns, values near f32's limits, exact ties and
/// neighbours of f32 values, subnormals of both kinds.
fn interesting(rng: &mut Rng, n: usize) -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -2.0,
        0.1,
        -1.0 / 3.0,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        f64::from(f32::MAX),
        3.402_823_5e38,
        3.402_823_466_385_288_6e38,
        3.402_823_669_209_385e38, // f32::MAX + half an ulp: ties to infinity
        3.5e38,
        -3.5e38,
        f64::from(f32::MIN_POSITIVE),
        2f64.powi(-149),
        2f64.powi(-150),
        3.0 * 2f64.powi(-151),
        2f64.powi(-126) * 1.5,
        16_777_217.0,
        16_777_218.0,
        33_554_433.0,
        9_007_199_254_740_991.0,
        1.0 + 2f64.powi(-24),
        1.0 + 3.0 * 2f64.powi(-25),
    ];
    while v.len() < n {
        let x = match rng.below(4) {
            0 => f64::from_bits(rng.next_u64()),
            // Near f32 magnitudes, including f32 subnormal and overflow ranges.
            1 => {
                let e = rng.below(320) as i32 - 160;
                (rng.f32_in(1.0) as f64 + rng.f32_in(1.0) as f64 * 1e-9) * 2f64.powi(e)
            }
            // An f32 value plus or minus a few f64 ulps (ties and near-ties).
            2 => {
                let f = f64::from(f32::from_bits(rng.next_u32() & 0x7f7f_ffff));
                let half_ulp = f64::from_bits(f.to_bits() & 0x7ff0_0000_0000_0000) * 2f64.powi(-24);
                f + half_ulp * (rng.below(5) as f64 - 2.0)
            }
            _ => f64::from(rng.f32_in(1e6)) + f64::from(rng.f32_in(1.0)) * 1e-7,
        };
        v.push(x);
    }
    v
}

fn check(
    gpu: &Gpu,
    config: &OpsConfig,
    bytes: &[u8],
    format: VertexFormat,
    length: u64,
    offset: u64,
    stride: u64,
) {
    let buffer = upload(gpu, bytes);
    let out = ops::plan_fround(
        gpu,
        config,
        view_at(&buffer, format, length, offset, Some(stride)),
    )
    .unwrap()
    .run(gpu)
    .unwrap();
    let expected = cpu::fround(
        HostInput::new(bytes, format, length)
            .with_byte_offset(offset)
            .with_byte_stride(stride),
    )
    .unwrap();
    assert_eq!(format_of(&out), expected.format());
    let found = u32s(&out.read_bytes(gpu).unwrap());
    let want = u32s(expected.bytes());
    let per_row = format.components() as usize;
    for (i, (g, c)) in found.iter().zip(&want).enumerate() {
        let row = i / per_row;
        let lane = i % per_row;
        let doubles = per_row / 2;
        let d = lane % doubles;
        let at = (offset + row as u64 * stride) as usize + d * 8;
        let x = f64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        assert_eq!(
            g,
            c,
            "row {row} lane {lane} (x = {x:e} = {:#018x}): gpu {g:#010x}, cpu {c:#010x}",
            x.to_bits()
        );
    }
    assert_eq!(found.len(), want.len());
}

#[test]
fn spec_vectors_135_to_145_bit_for_bit() {
    let gpu = fresh_gpu();
    let cases: &[(f64, u32, u32)] = &[
        (1.0, 0x3f80_0000, 0),
        (-2.0, 0xc000_0000, 0),
        (0.1, 0x3dcc_cccd, 0xb0cc_cccd),
        (-1.0 / 3.0, 0xbeaa_aaab, 0x322a_aaab),
        (core::f64::consts::PI, 0x4049_0fdb, 0xb3bb_bd2e),
        (-core::f64::consts::E, 0xc02d_f854, 0xb3b1_4577),
        (16_777_217.0, 0x4b80_0000, 0x3f80_0000),
        (16_777_218.0, 0x4b80_0001, 0),
        (33_554_433.0, 0x4c00_0000, 0x3f80_0000),
        (1.0 + 2f64.powi(-24), 0x3f80_0000, 0x3380_0000),
        (1.0 + 3.0 * 2f64.powi(-25), 0x3f80_0001, 0xb300_0000),
        (2f64.powi(-149), 0x0000_0001, 0),
        (2f64.powi(-150), 0, 0),
        (5e-324, 0, 0),
        (9_007_199_254_740_991.0, 0x5a00_0000, 0xbf80_0000),
        (3.402_823_5e38, 0x7f7f_ffff, 0x7229_b5ff),
        (3.5e38, 0x7f80_0000, 0xff80_0000),
        (-3.5e38, 0xff80_0000, 0x7f80_0000),
        (f64::NAN, 0x7fc0_0000, 0x7fc0_0000),
        (f64::INFINITY, 0x7f80_0000, 0x7fc0_0000),
        (f64::NEG_INFINITY, 0xff80_0000, 0x7fc0_0000),
        (-0.0, 0x8000_0000, 0),
    ];
    let values: Vec<f64> = cases.iter().map(|c| c.0).collect();
    let out = ops::fround_f64(&gpu, &values).unwrap();
    assert_eq!(format_of(&out), VertexFormat::Float32x2);
    let words = u32s(&out.read_bytes(&gpu).unwrap());
    for (i, (x, hi, lo)) in cases.iter().enumerate() {
        assert_eq!(
            (words[2 * i], words[2 * i + 1]),
            (*hi, *lo),
            "x = {x:e}: gpu ({:#x}, {:#x})",
            words[2 * i],
            words[2 * i + 1]
        );
    }
    assert_eq!(cpu::fround_f64(&values).bytes(), u32_bytes(&words));

    // 145: two doubles per row.
    let two = doubles_bytes(&[
        core::f64::consts::PI,
        -core::f64::consts::E,
        0.1,
        -1.0 / 3.0,
    ]);
    let buffer = upload(&gpu, &two);
    let out = ops::fround(&gpu, view(&buffer, VertexFormat::Uint32x4, 2)).unwrap();
    assert_eq!(format_of(&out), VertexFormat::Float32x4);
    assert_eq!(
        u32s(&out.read_bytes(&gpu).unwrap()),
        [
            0x4049_0fdb,
            0xc02d_f854,
            0xb3bb_bd2e,
            0xb3b1_4577,
            0x3dcc_cccd,
            0xbeaa_aaab,
            0xb0cc_cccd,
            0x322a_aaab
        ]
    );
}

#[test]
fn random_doubles_of_every_class_bit_for_bit() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(31);
    for (n, format) in [
        (20_000usize, VertexFormat::Uint32x2),
        (1, VertexFormat::Uint32x2),
        (0, VertexFormat::Uint32x2),
        (6_001, VertexFormat::Uint32x4),
    ] {
        let per_row = (format.byte_length() / 8) as usize;
        let values = interesting(&mut rng, n * per_row);
        let values = &values[..n * per_row];
        check(
            &gpu,
            &OpsConfig::default(),
            &doubles_bytes(values),
            format,
            n as u64,
            0,
            format.byte_length(),
        );
    }
}

#[test]
fn strided_and_offset_double_columns() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(32);
    // Doubles inside 24-byte rows, starting 4 bytes in (only 4-byte aligned), and a segment of a
    // shared buffer.
    let n = 777u64;
    let mut bytes = rng.bytes((4 + n * 24) as usize);
    let values = interesting(&mut rng, n as usize);
    for (i, v) in values.iter().enumerate() {
        let at = 4 + i * 24 + 8;
        bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
    }
    check(
        &gpu,
        &OpsConfig::default(),
        &bytes,
        VertexFormat::Uint32x2,
        n,
        12,
        24,
    );
    let mut segmented = rng.bytes(100);
    segmented.extend_from_slice(&doubles_bytes(&values));
    check(
        &gpu,
        &OpsConfig::default(),
        &segmented,
        VertexFormat::Uint32x2,
        n,
        100,
        8,
    );
}

#[test]
fn more_workgroups_than_one_dimension_holds() {
    // One invocation per workgroup and at most 64 per dimension: 5000 rows (2500 invocations of
    // two rows) dispatch as 64 x 40.
    let (gpu, config) = ops_with(
        |l| l.max_compute_workgroups_per_dimension = 64,
        OpsConfig {
            workgroup_size: 1,
            rows_per_thread: None,
            ..Default::default()
        },
    );
    let mut rng = Rng::new(33);
    let values = interesting(&mut rng, 5000);
    let bytes = doubles_bytes(&values);
    let buffer = upload(&gpu, &bytes);
    let plan =
        ops::plan_fround(&gpu, &config, view(&buffer, VertexFormat::Uint32x2, 5000)).unwrap();
    assert_eq!(plan.workgroups(), (64, 40));
    drop(plan);
    check(&gpu, &config, &bytes, VertexFormat::Uint32x2, 5000, 0, 8);
}

#[test]
fn formats_other_than_word_pairs_are_refused() {
    let gpu = fresh_gpu();
    let buffer = upload(&gpu, &[0; 64]);
    for format in [
        VertexFormat::Float32x2,
        VertexFormat::Uint32x3,
        VertexFormat::Uint32,
        VertexFormat::Sint32x2,
    ] {
        let err = ops::fround(&gpu, view(&buffer, format, 2)).unwrap_err();
        assert_eq!(
            err,
            OpError::UnsupportedFormat {
                op: "fround",
                input: 0,
                format,
                expected: "`uint32x2` or `uint32x4` (one or two float64 values as little-endian word pairs)"
            }
        );
        assert!(
            err.to_string()
                .starts_with(&format!("fround: input 0 has format `{format}`"))
        );
    }
}

#[test]
fn every_exponent_with_random_significands() {
    // Each double exponent from f32's subnormal range to past its overflow, 64 random
    // significands each, both signs: the integer fast path (exponents -74..127), the general
    // path and the boundary between them.
    let gpu = fresh_gpu();
    let mut rng = Rng::new(34);
    let mut values = Vec::new();
    for ex in 850u64..1200 {
        for _ in 0..64 {
            let bits = (rng.next_u64() & 0x800f_ffff_ffff_ffff) | (ex << 52);
            values.push(f64::from_bits(bits));
        }
    }
    check(
        &gpu,
        &OpsConfig::default(),
        &doubles_bytes(&values),
        VertexFormat::Uint32x2,
        values.len() as u64,
        0,
        8,
    );
}

#[cfg(feature = "arrow")]
#[test]
fn arrow_float64_columns() {
    use arrow_array::{Array as _, Float64Array};
    let gpu = fresh_gpu();
    let mut rng = Rng::new(35);
    let values = interesting(&mut rng, 1000);
    let array = Float64Array::from(values.clone());
    // A slice: the array's offset is honored.
    let sliced = array.slice(3, 900);
    let out = ops::fround_arrow(&gpu, &sliced).unwrap();
    assert_eq!(out.length(), 900);
    assert_eq!(
        out.read_bytes(&gpu).unwrap(),
        cpu::fround_f64(&values[3..903]).bytes()
    );
    assert_eq!(
        cpu::fround_arrow(&sliced).unwrap().bytes(),
        cpu::fround_f64(&values[3..903]).bytes()
    );
    let with_nulls = Float64Array::from(vec![Some(1.0), None, Some(3.0)]);
    assert_eq!(with_nulls.null_count(), 1);
    let err = ops::fround_arrow(&gpu, &with_nulls).unwrap_err();
    assert_eq!(
        err.to_string(),
        "fround: expected an Arrow Float64 array without nulls, found 1 null value"
    );
    assert!(matches!(err, OpError::WrongData { op: "fround", .. }));
}
