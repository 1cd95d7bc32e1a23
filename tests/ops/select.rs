//! `extent`, `gather`, `sequence` and `segmented_map` on the GPU against the CPU reference, on
//! random data with NaN, ±0, ±inf, subnormals and integer extremes, and on a device whose
//! storage bindings hold 1 MiB (inputs split over several dispatches).

use crate::fixtures::*;
use gpudata::ops::{
    self, OpError,
    cpu::{self, HostInput},
};
use gpudata::{Gpu, GpuData, VertexFormat};

/// A device binding at most 1 MiB of storage, at 256-byte offsets.
pub fn small() -> Gpu {
    ops_with_limits(|l| {
        l.max_storage_buffer_binding_size = 1 << 20;
        l.min_storage_buffer_offset_alignment = l.min_storage_buffer_offset_alignment.max(256);
    })
}

/// Random bytes of one value of `format`, a special value in about one lane of four: NaN
/// (quiet and signalling, either sign), ±0, ±inf, subnormals, the largest finite values, the
/// integer extremes.
pub fn special_value(rng: &mut Rng, format: VertexFormat) -> Vec<u8> {
    use gpudata::format::DataType;
    let mut out = Vec::new();
    let size = (format.byte_length() / u64::from(format.components())) as usize;
    for _ in 0..format.components() {
        let special = rng.below(4) == 0;
        let bits: u32 = match (format.data_type(), special) {
            (DataType::Float32, true) => {
                const F32: [u32; 10] = [
                    0x7fc0_0000,
                    0xffc0_0001,
                    0x7f80_0001,
                    0x0000_0000,
                    0x8000_0000,
                    0x7f80_0000,
                    0xff80_0000,
                    0x0000_0001,
                    0x807f_ffff,
                    0x7f7f_ffff,
                ];
                F32[rng.below(10) as usize]
            }
            (DataType::Float16, true) => {
                const F16: [u32; 9] =
                    [0x7e00, 0xfe01, 0x7c01, 0, 0x8000, 0x7c00, 0xfc00, 1, 0x83ff];
                F16[rng.below(9) as usize]
            }
            (_, true) => {
                let top = 1u64 << (size * 8 - 1);
                [0, top - 1, top, (top << 1) - 1][rng.below(4) as usize] as u32
            }
            (DataType::Float32, false) => rng.f32_in(1000.0).to_bits(),
            _ => rng.next_u32(),
        };
        out.extend_from_slice(&bits.to_le_bytes()[..size]);
    }
    out
}

/// `length` values of `format` from `offset`, every `stride` bytes, filler between.
pub fn special_rows(
    rng: &mut Rng,
    format: VertexFormat,
    length: u64,
    offset: u64,
    stride: u64,
) -> Vec<u8> {
    let mut bytes = rng.bytes((offset + length * stride) as usize + 3);
    for row in 0..length {
        let at = (offset + row * stride) as usize;
        let v = special_value(rng, format);
        bytes[at..at + v.len()].copy_from_slice(&v);
    }
    bytes
}

fn read(gpu: &Gpu, data: &GpuData) -> Vec<u8> {
    data.read_bytes(gpu).unwrap()
}

fn check_extent(gpu: &Gpu, rng: &mut Rng, format: VertexFormat, length: u64) {
    let align = format.byte_length() / u64::from(format.components());
    let offset = align * rng.below(4);
    let stride = format.byte_length().next_multiple_of(align) + align * rng.below(3);
    let mut bytes = special_rows(rng, format, length, offset, stride);
    if rng.below(3) == 0
        && matches!(
            format.data_type(),
            gpudata::format::DataType::Float32 | gpudata::format::DataType::Float16
        )
    {
        // A NaN in the first row: luma.gl's rule keeps it.
        let nan = if align == 4 { 0x7fc0_0000u32 } else { 0x7e00 };
        bytes[offset as usize..(offset + align) as usize]
            .copy_from_slice(&nan.to_le_bytes()[..align as usize]);
    }
    let buffer = upload(gpu, &bytes);
    let input = HostInput::new(&bytes, format, length)
        .with_byte_offset(offset)
        .with_byte_stride(stride);
    let expected = cpu::extent(input).unwrap();
    let out = ops::extent(gpu, view_at(&buffer, format, length, offset, Some(stride))).unwrap();
    assert_eq!(format_of(&out), expected.format());
    assert_eq!(out.length(), u64::from(format.components()));
    assert_eq!(
        read(gpu, &out),
        expected.bytes(),
        "extent of {length} {format} (offset {offset}, stride {stride})"
    );
}

#[test]
fn extent_equals_the_cpu_reference_for_every_format() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(16);
    for &format in VertexFormat::ALL.iter().filter(|f| !f.is_packed_bits()) {
        for length in [1, 2, 37, 9000] {
            check_extent(&gpu, &mut rng, format, length);
        }
    }
}

#[test]
fn extent_splits_large_inputs() {
    let gpu = small();
    let mut rng = Rng::new(17);
    for format in [
        VertexFormat::Float32,
        VertexFormat::Sint16x2,
        VertexFormat::Float16x4,
    ] {
        check_extent(&gpu, &mut rng, format, 700_000);
    }
}

#[test]
fn extent_rules() {
    let gpu = fresh_gpu();
    // -0 below +0 whatever their order; NaNs after the first row skipped.
    for values in [[0.0f32, -0.0, f32::NAN, 3.0], [-0.0, 0.0, 3.0, f32::NAN]] {
        let buffer = upload(&gpu, &f32_bytes(&values));
        let out = ops::extent(&gpu, view(&buffer, VertexFormat::Float32, 4)).unwrap();
        let got = f32s(&read(&gpu, &out));
        assert_eq!(got[0].to_bits(), (-0.0f32).to_bits());
        assert_eq!(got[1], 3.0);
    }
    let buffer = upload(&gpu, &f32_bytes(&[f32::NAN, 1.0]));
    let out = ops::extent(&gpu, view(&buffer, VertexFormat::Float32, 2)).unwrap();
    assert!(f32s(&read(&gpu, &out)).iter().all(|v| v.is_nan()));
    assert_eq!(
        ops::extent(&gpu, view(&buffer, VertexFormat::Float32, 0)).unwrap_err(),
        OpError::Empty { op: "extent" }
    );
    assert!(matches!(
        ops::extent(&gpu, view(&buffer, VertexFormat::Unorm10_10_10_2, 1)),
        Err(OpError::UnsupportedFormat { .. })
    ));
}

/// Random index bytes of `format`: valid, past the end, negative, fractional, NaN, `-0`.
fn random_ids(rng: &mut Rng, format: VertexFormat, n: u64, source_len: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..n {
        let k = rng.below(source_len + source_len / 8 + 2);
        let pick = rng.below(8);
        match format {
            VertexFormat::Float32 => {
                let v = match pick {
                    0 => f32::NAN,
                    1 => -0.0,
                    2 => k as f32 + 0.5,
                    3 => -(k as f32) - 1.0,
                    4 => f32::INFINITY,
                    _ => k as f32,
                };
                out.extend_from_slice(&v.to_le_bytes());
            }
            VertexFormat::Float16 => {
                let v: u16 = match pick {
                    0 => 0x7e00,
                    1 => 0x8000,
                    2 => 0x3c00 | 0x200, // 1.5
                    3 => 0xbc00,         // -1
                    _ => half::f16::from_f32(k.min(2048) as f32).to_bits(),
                };
                out.extend_from_slice(&v.to_le_bytes());
            }
            f => {
                let size = f.byte_length() as usize;
                let v = if pick == 0 { rng.next_u32() } else { k as u32 };
                out.extend_from_slice(&v.to_le_bytes()[..size]);
            }
        }
    }
    out
}

pub(crate) fn check_gather(
    gpu: &Gpu,
    rng: &mut Rng,
    ids_format: VertexFormat,
    format: VertexFormat,
    n: u64,
    source_len: u64,
) {
    let align = if format.is_packed_bits() {
        4
    } else {
        format.byte_length() / u64::from(format.components())
    };
    let offset = align * rng.below(3);
    let stride = format.byte_length().next_multiple_of(4) + 4 * rng.below(2);
    let source = special_rows(rng, format, source_len, offset, stride);
    gather_against_the_reference(
        gpu,
        rng,
        ids_format,
        n,
        &source,
        format,
        source_len,
        (offset, stride),
    );
}

/// Gathers `n` rows at random indices of `ids_format` from `source_len` rows of `format` in
/// `source` (at `offset`, `stride` apart), against the CPU reference; returns the dispatches
/// the gather took.
#[allow(clippy::too_many_arguments)]
fn gather_against_the_reference(
    gpu: &Gpu,
    rng: &mut Rng,
    ids_format: VertexFormat,
    n: u64,
    source: &[u8],
    format: VertexFormat,
    source_len: u64,
    (offset, stride): (u64, u64),
) -> usize {
    let ids = random_ids(rng, ids_format, n, source_len);
    let (sb, ib) = (upload(gpu, source), upload(gpu, &ids));
    let expected = cpu::gather(
        HostInput::new(&ids, ids_format, n),
        HostInput::new(source, format, source_len)
            .with_byte_offset(offset)
            .with_byte_stride(stride),
    )
    .unwrap();
    let plan = ops::plan_gather(
        gpu,
        view(&ib, ids_format, n),
        view_at(&sb, format, source_len, offset, Some(stride)),
        &ops::OpsConfig::default(),
    )
    .unwrap();
    let dispatches = plan.dispatches();
    let out = plan.run(gpu).unwrap();
    assert_eq!(format_of(&out), format);
    assert_eq!(
        read(gpu, &out),
        expected.bytes(),
        "gather {n} {ids_format} ids from {source_len} {format} at offset {offset}, stride {stride}"
    );
    dispatches
}

#[test]
fn gather_equals_the_cpu_reference() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(18);
    let ids = [
        VertexFormat::Uint32,
        VertexFormat::Sint32,
        VertexFormat::Uint16,
        VertexFormat::Sint8,
        VertexFormat::Float32,
        VertexFormat::Float16,
    ];
    let sources = [
        VertexFormat::Float32,
        VertexFormat::Float32x3,
        VertexFormat::Float32x4,
        VertexFormat::Uint8,
        VertexFormat::Unorm8x2,
        VertexFormat::Sint16x4,
        VertexFormat::Float16x2,
        VertexFormat::Uint8x4,
    ];
    for ids_format in ids {
        for format in sources {
            check_gather(&gpu, &mut rng, ids_format, format, 1000, 300);
        }
    }
    check_gather(
        &gpu,
        &mut rng,
        VertexFormat::Uint32,
        VertexFormat::Float32,
        0,
        10,
    );
    assert!(matches!(
        ops::gather(
            &gpu,
            view(&upload(&gpu, &[0; 4]), VertexFormat::Unorm8, 1),
            view(&upload(&gpu, &[0; 4]), VertexFormat::Float32, 1)
        ),
        Err(OpError::UnsupportedFormat { .. })
    ));
}

#[test]
fn gather_splits_sources_larger_than_a_binding() {
    // 1 MiB bindings: 200,000 float32x4 rows (3.2 MB) and 600,000 strided uint8x2 rows are
    // bound in parts, one dispatch per part.
    let gpu = small();
    let mut rng = Rng::new(20);
    check_gather(
        &gpu,
        &mut rng,
        VertexFormat::Uint32,
        VertexFormat::Float32x4,
        20_000,
        200_000,
    );
    check_gather(
        &gpu,
        &mut rng,
        VertexFormat::Float32,
        VertexFormat::Uint8x2,
        20_000,
        600_000,
    );
    let ids = upload(&gpu, &[0u8; 16]);
    let source = upload(&gpu, &vec![0u8; 200_000 * 16]);
    let plan = ops::plan_gather(
        &gpu,
        view(&ids, VertexFormat::Uint32, 4),
        view(&source, VertexFormat::Float32x4, 200_000),
        &ops::OpsConfig::default(),
    )
    .unwrap();
    assert!(plan.dispatches() >= 4, "{} dispatches", plan.dispatches());
}

#[test]
fn gather_splits_large_index_columns() {
    let gpu = small();
    let mut rng = Rng::new(19);
    check_gather(
        &gpu,
        &mut rng,
        VertexFormat::Uint32,
        VertexFormat::Float32x4,
        400_000,
        5000,
    );
    check_gather(
        &gpu,
        &mut rng,
        VertexFormat::Sint16,
        VertexFormat::Uint8x2,
        400_000,
        5000,
    );
}

#[test]
fn sequence_equals_the_cpu_reference() {
    let gpu = fresh_gpu();
    let split = small();
    for (gpu, count, start, step) in [
        (&gpu, 0, 0, 1),
        (&gpu, 1, 5, 1),
        (&gpu, 1000, -7, 3),
        (&gpu, 5000, i32::MAX - 10, 1),
        (&split, 600_000, i32::MIN, -40_000),
    ] {
        let expected = cpu::sequence(count, start, step).unwrap();
        let out = ops::sequence(gpu, count, start, step).unwrap();
        assert_eq!(format_of(&out), VertexFormat::Sint32);
        assert_eq!(
            read(gpu, &out),
            expected.bytes(),
            "sequence({count}, {start}, {step})"
        );
    }
    assert_eq!(
        ops::sequence(&gpu, 3, 0, 0).unwrap_err(),
        OpError::ZeroStep { op: "sequence" }
    );
}

fn check_segments(gpu: &Gpu, format: VertexFormat, starts: &[u32], vertex_count: u64) {
    let size = format.byte_length() as usize;
    let bytes: Vec<u8> = starts
        .iter()
        .flat_map(|s| s.to_le_bytes()[..size].to_vec())
        .collect();
    let buffer = upload(gpu, &bytes);
    let n = starts.len() as u64;
    let expected = cpu::segmented_map(HostInput::new(&bytes, format, n), vertex_count).unwrap();
    let out = ops::segmented_map(gpu, view(&buffer, format, n), vertex_count).unwrap();
    assert_eq!(format_of(&out), VertexFormat::Uint32x2);
    assert_eq!(
        read(gpu, &out),
        expected.bytes(),
        "segmented_map({starts:?}, {vertex_count})"
    );
}

#[test]
fn segmented_map_equals_the_cpu_reference() {
    let gpu = fresh_gpu();
    // Empty segments (repeated starts) at the start, middle and end.
    check_segments(&gpu, VertexFormat::Uint32, &[0, 0, 3, 3, 3, 10, 12], 12);
    check_segments(&gpu, VertexFormat::Uint16, &[0], 5);
    check_segments(&gpu, VertexFormat::Sint8, &[0, 1, 1, 2], 3);
    check_segments(&gpu, VertexFormat::Uint32, &[0, 0], 0);
    let mut rng = Rng::new(20);
    let mut starts = vec![0u32];
    while starts.len() < 3000 {
        let last = *starts.last().unwrap();
        starts.push(last + rng.below(400) as u32 * u32::from(rng.below(4) != 0));
    }
    let end = u64::from(*starts.last().unwrap()) + 17;
    check_segments(&gpu, VertexFormat::Uint32, &starts, end);
    check_segments(&small(), VertexFormat::Uint32, &starts, end);
}

#[test]
fn segmented_map_checks_its_starts_as_luma_does() {
    let gpu = fresh_gpu();
    let run = |starts: &[u32], n: u64| {
        let bytes = u32_bytes(starts);
        let buffer = upload(&gpu, &bytes);
        ops::segmented_map(
            &gpu,
            view(&buffer, VertexFormat::Uint32, starts.len() as u64),
            n,
        )
        .unwrap_err()
    };
    let op = "segmented_map";
    assert_eq!(run(&[1, 2], 4), OpError::FirstSegment { op, value: 1 });
    assert_eq!(
        run(&[0, 5, 4], 9),
        OpError::DecreasingSegment {
            op,
            row: 2,
            value: 4,
            previous: 5
        }
    );
    assert_eq!(
        run(&[0, 5], 4),
        OpError::SegmentPastEnd {
            op,
            start: 5,
            vertex_count: 4
        }
    );
    assert_eq!(run(&[], 4), OpError::Empty { op });
    let buffer = upload(&gpu, &f32_bytes(&[0.0]));
    assert!(matches!(
        ops::segmented_map(&gpu, view(&buffer, VertexFormat::Float32, 1), 1),
        Err(OpError::UnsupportedFormat { .. })
    ));
}

/// Gathers `n` rows of `format` (at a random offset of its unit, `slack` units apart beyond
/// the row, or a random 0 to 3) from `source_len` rows at random indices of `ids_format`,
/// against the CPU reference; returns the dispatches it took.
fn check_sub_word_gather(
    gpu: &Gpu,
    rng: &mut Rng,
    ids_format: VertexFormat,
    format: VertexFormat,
    n: u64,
    source_len: u64,
    slack: Option<u64>,
) -> usize {
    let unit = format.byte_length() / u64::from(format.components());
    let offset = unit * rng.below(4);
    let stride = format.byte_length() + unit * slack.unwrap_or_else(|| rng.below(4));
    let source = rng.bytes((offset + source_len * stride + 4) as usize);
    gather_against_the_reference(
        gpu,
        rng,
        ids_format,
        n,
        &source,
        format,
        source_len,
        (offset, stride),
    )
}

#[test]
fn sub_word_gather_equals_the_cpu_reference_at_every_size() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(21);
    let ids = [
        VertexFormat::Uint32,
        VertexFormat::Uint16,
        VertexFormat::Sint8,
        VertexFormat::Float32,
    ];
    let mut sizes = vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 255, 256, 257, 1023, 1025];
    sizes.extend((0..4).map(|_| 1 + rng.below(5000)));
    for (i, &n) in sizes.iter().enumerate() {
        for (j, &format) in crate::filter::SUB_WORD.iter().enumerate() {
            let ids_format = ids[(i + j) % ids.len()];
            let source_len = 1 + rng.below(2 * n + 10);
            check_sub_word_gather(&gpu, &mut rng, ids_format, format, n, source_len, None);
        }
    }
}

#[test]
fn sub_word_gather_splits_sources_and_indices() {
    // 1 MiB bindings: a source of 200,000 rows 6 or 7 bytes apart is bound in two parts (each
    // part's dispatch merges its rows into words the other wrote), 300,000 uint32 indices in
    // two runs.
    let gpu = small();
    let mut rng = Rng::new(22);
    for format in [
        VertexFormat::Uint8,
        VertexFormat::Float16,
        VertexFormat::Unorm8x2,
    ] {
        let unit = format.byte_length() / u64::from(format.components());
        let n = 300_000 + rng.below(100);
        let source_len = 200_000;
        let slack = Some((7 - format.byte_length()) / unit);
        let dispatches = check_sub_word_gather(
            &gpu,
            &mut rng,
            VertexFormat::Uint32,
            format,
            n,
            source_len,
            slack,
        );
        assert_eq!(
            dispatches, 4,
            "{format}: two parts of the source, two runs of indices"
        );
    }
}

#[test]
fn sub_word_gather_of_packed_rows_by_packed_indices() {
    // Packed one- and two-byte rows by packed 4-byte indices in buffers sized in 16 bytes (the
    // kernel that loads four indices at once), at every length near a vector of indices, with
    // one to four vectors per invocation; then 1 MiB bindings: the source in two parts, the
    // indices in two runs.
    let mut rng = Rng::new(23);
    let gpu = fresh_gpu();
    let ids_formats = [
        VertexFormat::Uint32,
        VertexFormat::Sint32,
        VertexFormat::Float32,
    ];
    let formats = [
        VertexFormat::Uint8,
        VertexFormat::Uint16,
        VertexFormat::Unorm8x2,
        VertexFormat::Sint8,
    ];
    for vectors in [None, Some(1), Some(3), Some(4)] {
        let config = ops::OpsConfig {
            rows_per_thread: vectors,
            ..ops::OpsConfig::default()
        };
        for (i, n) in [1u64, 3, 4, 5, 15, 16, 17, 255, 256, 1023, 1025, 4097]
            .into_iter()
            .enumerate()
        {
            let format = formats[i % formats.len()];
            let ids_format = ids_formats[i % ids_formats.len()];
            let source_len = 1 + rng.below(3 * n + 10);
            let size = format.byte_length();
            let source = rng.bytes((source_len * size).next_multiple_of(16) as usize);
            let mut ids = random_ids(&mut rng, ids_format, n, source_len);
            ids.resize((n as usize * 4).next_multiple_of(16), 0);
            let (sb, ib) = (upload(&gpu, &source), upload(&gpu, &ids));
            let expected = cpu::gather(
                HostInput::new(&ids, ids_format, n),
                HostInput::new(&source, format, source_len),
            )
            .unwrap();
            let out = ops::plan_gather(
                &gpu,
                view(&ib, ids_format, n),
                view(&sb, format, source_len),
                &config,
            )
            .unwrap()
            .run(&gpu)
            .unwrap();
            assert_eq!(
                read(&gpu, &out),
                expected.bytes(),
                "gather {n} {ids_format} ids from {source_len} {format}, {vectors:?} vectors"
            );
        }
    }
    let gpu = small();
    for format in [VertexFormat::Uint8, VertexFormat::Uint16] {
        let n = 300_000 + 4 * rng.below(100);
        let source_len = (3 << 19) / format.byte_length();
        let source = rng.bytes((source_len * format.byte_length()) as usize);
        let ids = random_ids(&mut rng, VertexFormat::Uint32, n, source_len);
        let (sb, ib) = (upload(&gpu, &source), upload(&gpu, &ids));
        let expected = cpu::gather(
            HostInput::new(&ids, VertexFormat::Uint32, n),
            HostInput::new(&source, format, source_len),
        )
        .unwrap();
        let plan = ops::plan_gather(
            &gpu,
            view(&ib, VertexFormat::Uint32, n),
            view(&sb, format, source_len),
            &ops::OpsConfig::default(),
        )
        .unwrap();
        assert_eq!(plan.dispatches(), 4, "{format}: two parts, two runs");
        let out = plan.run(&gpu).unwrap();
        assert_eq!(
            read(&gpu, &out),
            expected.bytes(),
            "split gather of {format}"
        );
    }
}
