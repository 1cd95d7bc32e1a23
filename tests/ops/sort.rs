//! Sorting on the GPU against the CPU reference: sizes across workgroup, tile and pass
//! boundaries, the float order (NaN, ±0, ±inf), ties (stability through the values that travel
//! with the keys), descending order, top-k, segmented sorts, strided inputs, both rankings
//! (subgroup ballots and workgroup splits) and several tiles per workgroup, and the errors.

use crate::fixtures::*;
use crate::select::special_rows;
use gpudata::ops::cpu::{self, HostInput, HostSegments};
use gpudata::ops::{self, OpError, OpsConfig, Segments, SortOptions};
use gpudata::{Gpu, GpuData, VertexFormat};

const KEYS: [VertexFormat; 3] = [
    VertexFormat::Uint32,
    VertexFormat::Sint32,
    VertexFormat::Float32,
];

fn read(gpu: &Gpu, data: &GpuData) -> Vec<u8> {
    data.read_bytes(gpu).unwrap()
}

fn both_orders() -> [SortOptions; 2] {
    [SortOptions::ascending(), SortOptions::descending()]
}

/// Keys of `format` with a special value in about one row of four; with `ties`, drawn from 16
/// values so that most keys repeat.
pub fn keys(rng: &mut Rng, format: VertexFormat, n: u64, ties: bool) -> Vec<u8> {
    if ties {
        let pool = special_rows(rng, format, 16, 0, 4);
        (0..n)
            .flat_map(|_| {
                let at = rng.below(16) as usize * 4;
                pool[at..at + 4].to_vec()
            })
            .collect()
    } else {
        special_rows(rng, format, n, 0, 4)[..n as usize * 4].to_vec()
    }
}

/// Sorts `n` random keys of `format` with row ids as values (`sort_pairs`) and alone, in both
/// orders, with `config`, and compares with the CPU reference.
pub fn check_sort(gpu: &Gpu, config: &OpsConfig, rng: &mut Rng, format: VertexFormat, n: u64) {
    let ties = rng.below(2) == 0;
    let bytes = keys(rng, format, n, ties);
    let ids: Vec<u8> = (0..n as u32).flat_map(u32::to_le_bytes).collect();
    let buffer = upload(gpu, &bytes);
    let id_buffer = upload(gpu, &ids);
    let host = HostInput::new(&bytes, format, n);
    for options in both_orders() {
        let what = format!("{n} {format} keys, {:?}, {config:?}", options.order);
        let expected = cpu::sort_pairs(
            host,
            HostInput::new(&ids, VertexFormat::Uint32, n),
            &options,
        )
        .unwrap();
        let plan = ops::plan_sort_pairs(
            gpu,
            view(&buffer, format, n),
            view(&id_buffer, VertexFormat::Uint32, n),
            &options,
            config,
        )
        .unwrap();
        let sorted = plan.run(gpu).unwrap();
        assert_eq!(format_of(&sorted.keys), format);
        assert_eq!(
            read(gpu, &sorted.keys),
            expected.keys.bytes(),
            "keys of {what}"
        );
        assert_eq!(
            read(gpu, &sorted.values),
            expected.values.bytes(),
            "values of {what}"
        );
        let alone = ops::plan_sort(gpu, view(&buffer, format, n), &options, config)
            .unwrap()
            .run(gpu)
            .unwrap();
        assert_eq!(read(gpu, &alone), expected.keys.bytes(), "sort of {what}");
    }
}

#[test]
fn sorts_equal_the_cpu_reference_across_sizes() {
    let gpu = fresh_gpu();
    let config = OpsConfig::default();
    let mut rng = Rng::new(28);
    for format in KEYS {
        for n in [0, 1, 255, 256, 257, 4097] {
            check_sort(&gpu, &config, &mut rng, format, n);
        }
    }
    check_sort(&gpu, &config, &mut rng, VertexFormat::Float32, 100_000);
}

#[test]
fn both_rankings_and_many_tiles_per_workgroup() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(29);
    // Subgroups off (the workgroup's one-bit splits), and an odd number of rows per
    // invocation with them.
    for (subgroups, per) in [(false, None), (true, Some(5))] {
        let config = OpsConfig {
            subgroups,
            rows_per_thread: per,
            ..OpsConfig::default()
        };
        check_sort(&gpu, &config, &mut rng, VertexFormat::Sint32, 9000);
    }
    // Several tiles per workgroup: the running digit offsets of a block.
    let n = 20_000;
    let bytes = keys(&mut rng, VertexFormat::Uint32, n, false);
    let buffer = upload(&gpu, &bytes);
    let expected = cpu::argsort(
        HostInput::new(&bytes, VertexFormat::Uint32, n),
        &SortOptions::ascending(),
    )
    .unwrap();
    for tiles in [3, 100] {
        for subgroups in [true, false] {
            let config = OpsConfig {
                subgroups,
                rows_per_thread: Some(4),
                ..OpsConfig::default()
            };
            let options = SortOptions::ascending().with_tiles_per_workgroup(tiles);
            let ids = ops::plan_argsort(
                &gpu,
                view(&buffer, VertexFormat::Uint32, n),
                &options,
                &config,
            )
            .unwrap()
            .run(&gpu)
            .unwrap();
            assert_eq!(
                read(&gpu, &ids),
                expected.bytes(),
                "{tiles} tiles per workgroup"
            );
        }
    }
    // A device without subgroups.
    let plain = crate::support::limited_gpu("no subgroups", |_| {});
    check_sort(
        &plain,
        &OpsConfig::default(),
        &mut rng,
        VertexFormat::Float32,
        5000,
    );
}

#[test]
fn the_float_order_is_total() {
    let gpu = fresh_gpu();
    // Ascending: -NaN (by payload, descending magnitude), -inf, …, -0, +0, …, +inf, +NaN.
    let ordered: [u32; 14] = [
        0xffff_ffff, // -NaN, largest payload
        0xffc0_0000, // -NaN
        0xff80_0000, // -inf
        0xc000_0000, // -2
        0x8000_0001, // -smallest subnormal
        0x8000_0000, // -0
        0x0000_0000, // +0
        0x0000_0001, // smallest subnormal
        0x3f80_0000, // 1
        0x7f7f_ffff, // largest finite
        0x7f80_0000, // +inf
        0x7f80_0001, // signalling NaN
        0x7fc0_0000, // quiet NaN
        0x7fff_ffff, // NaN, largest payload
    ];
    let mut rng = Rng::new(30);
    let mut shuffled = ordered.to_vec();
    for i in (1..shuffled.len()).rev() {
        shuffled.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let buffer = upload(&gpu, &u32_bytes(&shuffled));
    let keys = view(&buffer, VertexFormat::Float32, shuffled.len() as u64);
    let up = ops::sort(&gpu, keys, &SortOptions::ascending()).unwrap();
    assert_eq!(u32s(&read(&gpu, &up)), ordered);
    let down = ops::sort(&gpu, keys, &SortOptions::descending()).unwrap();
    let mut reversed = ordered;
    reversed.reverse();
    assert_eq!(u32s(&read(&gpu, &down)), reversed);
    // Signed and unsigned extremes.
    let ints = [i32::MAX, -1, 0, i32::MIN, 1];
    let bytes: Vec<u8> = ints.iter().flat_map(|v| v.to_le_bytes()).collect();
    let buffer = upload(&gpu, &bytes);
    let sorted = ops::sort(
        &gpu,
        view(&buffer, VertexFormat::Sint32, 5),
        &SortOptions::ascending(),
    )
    .unwrap();
    let got: Vec<i32> = u32s(&read(&gpu, &sorted))
        .iter()
        .map(|&v| v as i32)
        .collect();
    assert_eq!(got, [i32::MIN, -1, 0, 1, i32::MAX]);
    let sorted = ops::sort(
        &gpu,
        view(&buffer, VertexFormat::Uint32, 5),
        &SortOptions::ascending(),
    )
    .unwrap();
    assert_eq!(
        u32s(&read(&gpu, &sorted)),
        [0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff]
    );
}

#[test]
fn equal_keys_keep_their_rows_order() {
    let gpu = fresh_gpu();
    let n = 5000u32;
    let buffer = upload(&gpu, &f32_bytes(&vec![2.5; n as usize]));
    let identity: Vec<u32> = (0..n).collect();
    for options in both_orders() {
        let ids = ops::argsort(
            &gpu,
            view(&buffer, VertexFormat::Float32, u64::from(n)),
            &options,
        )
        .unwrap();
        assert_eq!(format_of(&ids), VertexFormat::Uint32);
        assert_eq!(u32s(&read(&gpu, &ids)), identity, "{:?}", options.order);
    }
    // Two values, alternating: each run in its rows' order.
    let keys: Vec<u32> = (0..n).map(|i| i % 2).collect();
    let buffer = upload(&gpu, &u32_bytes(&keys));
    let ids = ops::argsort(
        &gpu,
        view(&buffer, VertexFormat::Uint32, u64::from(n)),
        &SortOptions::descending(),
    )
    .unwrap();
    let expected: Vec<u32> = (0..n)
        .filter(|i| i % 2 == 1)
        .chain((0..n).filter(|i| i % 2 == 0))
        .collect();
    assert_eq!(u32s(&read(&gpu, &ids)), expected);
}

#[test]
fn strided_keys_and_unaligned_values() {
    check_strided(&fresh_gpu(), 31, 3000);
}

/// `n` `float32` keys at byte 4 of 12-byte rows carrying `uint16x2` values at byte 2 of 8-byte
/// rows, sorted in both orders, equal the CPU reference.
pub fn check_strided(gpu: &Gpu, seed: u64, n: u64) {
    let gpu = gpu.clone();
    let mut rng = Rng::new(seed);
    // Keys: `float32` at byte 4 of 12-byte rows; values: `uint16x2` at byte 2 of 8-byte rows.
    let key_bytes = special_rows(&mut rng, VertexFormat::Float32, n, 4, 12);
    let value_bytes = rng.bytes((n * 8 + 4) as usize);
    let keys = upload(&gpu, &key_bytes);
    let values = upload(&gpu, &value_bytes);
    let host_keys = HostInput::new(&key_bytes, VertexFormat::Float32, n)
        .with_byte_offset(4)
        .with_byte_stride(12);
    let host_values = HostInput::new(&value_bytes, VertexFormat::Uint16x2, n)
        .with_byte_offset(2)
        .with_byte_stride(8);
    for options in both_orders() {
        let expected = cpu::sort_pairs(host_keys, host_values, &options).unwrap();
        let sorted = ops::sort_pairs(
            &gpu,
            view_at(&keys, VertexFormat::Float32, n, 4, Some(12)),
            view_at(&values, VertexFormat::Uint16x2, n, 2, Some(8)),
            &options,
        )
        .unwrap();
        assert_eq!(format_of(&sorted.values), VertexFormat::Uint16x2);
        assert_eq!(read(&gpu, &sorted.keys), expected.keys.bytes());
        assert_eq!(read(&gpu, &sorted.values), expected.values.bytes());
    }
}

#[test]
fn top_k_equals_the_cpu_reference() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(32);
    for (format, n) in [
        (VertexFormat::Float32, 4097u64),
        (VertexFormat::Sint32, 300),
    ] {
        let bytes = keys(&mut rng, format, n, true);
        let buffer = upload(&gpu, &bytes);
        for options in both_orders() {
            for k in [0, 1, 10, 256, n] {
                let expected = cpu::top_k(HostInput::new(&bytes, format, n), k, &options).unwrap();
                let got = ops::top_k(&gpu, view(&buffer, format, n), k, &options).unwrap();
                assert_eq!(got.keys.length(), k);
                assert_eq!(format_of(&got.values), VertexFormat::Uint32);
                assert_eq!(
                    read(&gpu, &got.keys),
                    expected.keys.bytes(),
                    "top {k} of {n}"
                );
                assert_eq!(
                    read(&gpu, &got.values),
                    expected.values.bytes(),
                    "ids of top {k}"
                );
            }
        }
    }
}

#[test]
fn segmented_sorts_equal_the_cpu_reference() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(33);
    for (n, segments) in [(0u64, 1u64), (1, 1), (700, 5), (5000, 300), (20_000, 1)] {
        let bytes = keys(&mut rng, VertexFormat::Float32, n, true);
        let values: Vec<u8> = (0..n as u32).flat_map(u32::to_le_bytes).collect();
        // Random offsets (empty segments among them) from 0 to n.
        let mut offsets: Vec<u32> = (1..segments).map(|_| rng.below(n + 1) as u32).collect();
        offsets.push(0);
        offsets.push(n as u32);
        offsets.sort_unstable();
        let ids: Vec<u32> = (0..n)
            .map(|r| offsets.partition_point(|&o| o <= r as u32) as u32 - 1)
            .collect();
        let key_buffer = upload(&gpu, &bytes);
        let value_buffer = upload(&gpu, &values);
        let offset_bytes = u32_bytes(&offsets);
        let offset_buffer = upload(&gpu, &offset_bytes);
        let id_bytes = u32_bytes(&ids);
        let id_buffer = upload(&gpu, &id_bytes);
        let keys_in = view(&key_buffer, VertexFormat::Float32, n);
        let values_in = view(&value_buffer, VertexFormat::Uint32, n);
        let s = offsets.len() as u64;
        for options in both_orders() {
            let (want_keys, want_values) = cpu::segmented_sort(
                HostInput::new(&bytes, VertexFormat::Float32, n),
                Some(HostInput::new(&values, VertexFormat::Uint32, n)),
                HostSegments::Offsets(HostInput::new(&offset_bytes, VertexFormat::Uint32, s)),
                &options,
            )
            .unwrap();
            let by_ids = cpu::segmented_sort(
                HostInput::new(&bytes, VertexFormat::Float32, n),
                None,
                HostSegments::Ids(HostInput::new(&id_bytes, VertexFormat::Uint32, n)),
                &options,
            )
            .unwrap();
            assert_eq!(by_ids.0, want_keys);
            let what = format!("{n} keys in {segments} segments, {:?}", options.order);
            let got = ops::segmented_sort_pairs(
                &gpu,
                keys_in,
                values_in,
                Segments::Offsets(view(&offset_buffer, VertexFormat::Uint32, s)),
                &options,
            )
            .unwrap();
            assert_eq!(read(&gpu, &got.keys), want_keys.bytes(), "keys of {what}");
            let want_values = want_values.unwrap();
            assert_eq!(
                read(&gpu, &got.values),
                want_values.bytes(),
                "values of {what}"
            );
            let got = ops::segmented_sort(
                &gpu,
                keys_in,
                Segments::Ids(view(&id_buffer, VertexFormat::Uint32, n)),
                &options,
            )
            .unwrap();
            assert_eq!(read(&gpu, &got), want_keys.bytes(), "by ids: {what}");
        }
    }
}

#[test]
fn sort_errors() {
    let gpu = fresh_gpu();
    let buffer = upload(&gpu, &[0; 64]);
    let asc = SortOptions::ascending();
    let err = ops::sort(&gpu, view(&buffer, VertexFormat::Float32x2, 4), &asc).unwrap_err();
    assert_eq!(
        err.to_string(),
        "sort: input 0 has format `float32x2`, expected a one-lane 32-bit key format (uint32, sint32 or float32)"
    );
    let keys = view(&buffer, VertexFormat::Uint32, 4);
    let err =
        ops::sort_pairs(&gpu, keys, view(&buffer, VertexFormat::Uint32, 3), &asc).unwrap_err();
    assert_eq!(
        err.to_string(),
        "sort_pairs: input 1 has 3 rows, expected 4 like input 0"
    );
    let err =
        ops::sort_pairs(&gpu, keys, view(&buffer, VertexFormat::Float32x2, 4), &asc).unwrap_err();
    assert_eq!(
        err.to_string(),
        "sort_pairs: input 1 has format `float32x2`, expected a format of 4 bytes per row"
    );
    let err = ops::top_k(&gpu, keys, 5, &asc).unwrap_err();
    assert_eq!(
        err,
        OpError::TopKTooLarge {
            op: "top_k",
            k: 5,
            rows: 4
        }
    );
    assert_eq!(
        err.to_string(),
        "top_k: expected k at most the row count 4, found 5"
    );
    assert_eq!(
        cpu::top_k(HostInput::new(&[0; 16], VertexFormat::Uint32, 4), 5, &asc).unwrap_err(),
        err
    );
    let offsets = upload(&gpu, &u32_bytes(&[0, 2, 3]));
    let err = ops::segmented_sort(
        &gpu,
        keys,
        Segments::Offsets(view(&offsets, VertexFormat::Uint32, 3)),
        &asc,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "segmented_sort: input 1 has 3 rows, expected 4 like input 0"
    );
    let offsets = upload(&gpu, &u32_bytes(&[0, 3, 2, 4]));
    let err = ops::segmented_sort(
        &gpu,
        keys,
        Segments::Offsets(view(&offsets, VertexFormat::Uint32, 4)),
        &asc,
    )
    .unwrap_err();
    assert!(
        matches!(err, OpError::DecreasingSegment { row: 2, .. }),
        "{err}"
    );
    let err = ops::segmented_sort(
        &gpu,
        keys,
        Segments::Ids(view(&buffer, VertexFormat::Sint32, 4)),
        &asc,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "segmented_sort: input 1 has format `sint32`, expected uint32 segment ids"
    );

    // Keys past one storage binding were refused here (`TooLarge`) until the sort bound its
    // columns in parts: the same keys now sort (`sort_parts` compares such sorts with the CPU
    // reference; the refusal left is `TooManyBindings`, tested there).
    let small = crate::select::small();
    let n = 300_000u64;
    let big = upload(&small, &vec![0u8; n as usize * 4]);
    let sorted = ops::sort(&small, view(&big, VertexFormat::Uint32, n), &asc).unwrap();
    assert_eq!(read(&small, &sorted), vec![0u8; n as usize * 4]);
}
