//! Rows sorted by several keys on the GPU (`ops::argsort_by`) against the CPU reference: keys of
//! the sort's formats and narrower ones (8/16-bit, normalized, float16) drawn from few values (so that earlier keys tie and later ones decide),
//! NaN and ±0, both orders, validity masks with nulls first and last, keys held in several
//! pieces; chunked columns sorted whole (`ops::piecewise::sort`); and the errors.

use crate::fixtures::*;
use crate::select::special_rows;
use crate::support::gpu;
use gpudata::ops::cpu::{self, HostInput, HostSortKey};
use gpudata::ops::{self, GpuMask, NullOrder, OpError, SortKey, SortOptions, SortOrder};
use gpudata::table::ChunkOptions;
use gpudata::{GpuVector, VertexFormat};

/// Key formats: the sort's own three, and narrower ones read as their 32-bit values.
const KEYS: [VertexFormat; 8] = [
    VertexFormat::Uint32,
    VertexFormat::Sint32,
    VertexFormat::Float32,
    VertexFormat::Uint8,
    VertexFormat::Sint16,
    VertexFormat::Unorm8,
    VertexFormat::Snorm16,
    VertexFormat::Float16,
];

/// One random key: its rows (from 5 values, specials among them), order, validity, nulls.
struct Key {
    format: VertexFormat,
    bytes: Vec<u8>,
    order: SortOrder,
    validity: Option<Vec<bool>>,
    nulls: NullOrder,
}

fn random_key(rng: &mut Rng, n: u64) -> Key {
    let format = KEYS[rng.below(KEYS.len() as u64) as usize];
    let size = format.byte_length();
    let pool = special_rows(rng, format, 5, 0, size);
    let size = size as usize;
    let bytes = (0..n)
        .flat_map(|_| {
            let at = rng.below(5) as usize * size;
            pool[at..at + size].to_vec()
        })
        .collect();
    let order = if rng.below(2) == 0 {
        SortOrder::Ascending
    } else {
        SortOrder::Descending
    };
    let validity = (rng.below(2) == 0).then(|| (0..n).map(|_| rng.below(4) != 0).collect());
    let nulls = if rng.below(2) == 0 {
        NullOrder::Last
    } else {
        NullOrder::First
    };
    Key {
        format,
        bytes,
        order,
        validity,
        nulls,
    }
}

/// Cut points of `n` rows into 1 to 3 pieces (some possibly empty).
fn cuts(rng: &mut Rng, n: u64) -> Vec<(u64, u64)> {
    let mut points: Vec<u64> = (0..rng.below(3)).map(|_| rng.below(n + 1)).collect();
    points.sort_unstable();
    let mut pieces = Vec::new();
    let mut start = 0;
    for p in points.into_iter().chain([n]) {
        pieces.push((start, p - start));
        start = p;
    }
    pieces
}

#[test]
fn argsort_by_equals_the_cpu_reference() {
    let gpu = gpu();
    let mut rng = Rng::new(41);
    for n in [0u64, 1, 2, 33, 256, 257, 1000, 3073, 7000] {
        for _ in 0..3 {
            let keys: Vec<Key> = (0..1 + rng.below(3))
                .map(|_| random_key(&mut rng, n))
                .collect();
            // Each key uploaded in its own pieces (separate buffers).
            let buffers: Vec<Vec<(wgpu::Buffer, u64)>> = keys
                .iter()
                .map(|k| {
                    cuts(&mut rng, n)
                        .into_iter()
                        .map(|(start, rows)| {
                            let size = k.format.byte_length() as usize;
                            let b = &k.bytes[start as usize * size..(start + rows) as usize * size];
                            (upload(&gpu, b), rows)
                        })
                        .collect()
                })
                .collect();
            let masks: Vec<Option<GpuMask>> = keys
                .iter()
                .map(|k| {
                    k.validity
                        .as_ref()
                        .map(|v| GpuMask::from_bools(&gpu, v).unwrap())
                })
                .collect();
            let gpu_keys: Vec<SortKey<'_>> = keys
                .iter()
                .zip(&buffers)
                .zip(&masks)
                .map(|((k, pieces), mask)| {
                    let views = pieces
                        .iter()
                        .map(|(b, rows)| view(b, k.format, *rows))
                        .collect();
                    let key = SortKey::from_pieces(views)
                        .with_order(k.order)
                        .with_nulls(k.nulls);
                    match mask {
                        Some(mask) => key.with_validity(mask),
                        None => key,
                    }
                })
                .collect();
            let host_keys: Vec<HostSortKey<'_>> = keys
                .iter()
                .map(|k| HostSortKey {
                    column: HostInput::new(&k.bytes, k.format, n),
                    order: k.order,
                    validity: k.validity.as_deref(),
                    nulls: k.nulls,
                })
                .collect();
            let expected = cpu::argsort_by(&host_keys).unwrap();
            let order = ops::argsort_by(&gpu, &gpu_keys).unwrap();
            let what: Vec<String> = keys
                .iter()
                .map(|k| {
                    format!(
                        "{} {:?} nulls {:?} {}",
                        k.format,
                        k.order,
                        k.nulls,
                        k.validity.is_some()
                    )
                })
                .collect();
            assert_eq!(format_of(&order), VertexFormat::Uint32);
            assert_eq!(
                order.read_bytes(&gpu).unwrap(),
                expected.bytes(),
                "{n} rows by {what:?}"
            );
        }
    }
}

/// The reference itself on a hand-made case: by `a` ascending with nulls first, then `b`
/// descending.
#[test]
fn the_reference_orders_by_the_first_key_then_the_next() {
    let a = u32_bytes(&[2, 1, 2, 1, 9, 1]);
    let b = f32_bytes(&[0.5, 4.0, 1.5, 3.0, 7.0, 3.0]);
    let valid = [true, true, true, true, false, true];
    let keys = [
        HostSortKey {
            column: HostInput::new(&a, VertexFormat::Uint32, 6),
            order: SortOrder::Ascending,
            validity: Some(&valid),
            nulls: NullOrder::First,
        },
        HostSortKey {
            column: HostInput::new(&b, VertexFormat::Float32, 6),
            order: SortOrder::Descending,
            validity: None,
            nulls: NullOrder::Last,
        },
    ];
    let order = cpu::argsort_by(&keys).unwrap();
    assert_eq!(u32s(order.bytes()), [4, 1, 3, 5, 2, 0]);
}

#[test]
fn chunked_columns_sort_whole() {
    let gpu = gpu();
    let mut rng = Rng::new(43);
    let usage = gpudata::data::DEFAULT_USAGE;
    for n in [1u64, 5, 700] {
        let values: Vec<f32> = (0..n).map(|_| (rng.below(50) as f32) - 25.0).collect();
        let three = ChunkOptions {
            rows_per_chunk: Some(3),
            ..ChunkOptions::default()
        };
        let column = GpuVector::upload_values(&gpu, "x", &values, usage, three).unwrap();
        let bytes = f32_bytes(&values);
        for options in [SortOptions::ascending(), SortOptions::descending()] {
            let host = HostInput::new(&bytes, VertexFormat::Float32, n);
            let sorted = ops::piecewise::sort(&gpu, &column, &options).unwrap();
            assert_eq!(sorted.name(), "x");
            assert_eq!(
                sorted.read_bytes(&gpu).unwrap(),
                cpu::sort(host, &options).unwrap().bytes(),
                "{n} rows {:?}",
                options.order
            );
            let order = ops::piecewise::argsort(&gpu, &column, &options).unwrap();
            assert_eq!(
                order.read_bytes(&gpu).unwrap(),
                cpu::argsort(host, &options).unwrap().bytes()
            );
        }
    }
}

/// `sort_pairs`, `top_k` and `segmented_sort` of chunked columns (chunked differently) equal the
/// CPU reference of the same rows in one buffer.
#[test]
fn chunked_pairs_top_k_and_segments_equal_the_reference() {
    let gpu = gpu();
    let mut rng = Rng::new(44);
    let usage = gpudata::data::DEFAULT_USAGE;
    let chunks = |n| ChunkOptions {
        rows_per_chunk: Some(n),
        ..ChunkOptions::default()
    };
    for n in [1u64, 9, 600] {
        let keys: Vec<i32> = (0..n).map(|_| rng.below(40) as i32 - 20).collect();
        let values: Vec<u32> = (0..n as u32).map(|i| i * 7 + 1).collect();
        let segments: Vec<u32> = {
            let mut ids: Vec<u32> = (0..n).map(|_| rng.below(5) as u32).collect();
            ids.sort_unstable();
            ids
        };
        let key_column = GpuVector::upload_values(&gpu, "k", &keys, usage, chunks(4)).unwrap();
        let value_column = GpuVector::upload_values(&gpu, "v", &values, usage, chunks(7)).unwrap();
        let id_column = GpuVector::upload_values(&gpu, "s", &segments, usage, chunks(5)).unwrap();
        let key_bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
        let value_bytes = u32_bytes(&values);
        let id_bytes = u32_bytes(&segments);
        let host_keys = HostInput::new(&key_bytes, VertexFormat::Sint32, n);
        for options in [SortOptions::ascending(), SortOptions::descending()] {
            let what = format!("{n} rows {:?}", options.order);
            let (sorted_keys, sorted_values) =
                ops::piecewise::sort_pairs(&gpu, &key_column, &value_column, &options).unwrap();
            let expected = cpu::sort_pairs(
                host_keys,
                HostInput::new(&value_bytes, VertexFormat::Uint32, n),
                &options,
            )
            .unwrap();
            assert_eq!(
                sorted_keys.read_bytes(&gpu).unwrap(),
                expected.keys.bytes(),
                "{what}"
            );
            assert_eq!(
                sorted_values.read_bytes(&gpu).unwrap(),
                expected.values.bytes(),
                "{what}"
            );
            let k = n / 2 + 1;
            let (top, ids) = ops::piecewise::top_k(&gpu, &key_column, k, &options).unwrap();
            let expected = cpu::top_k(host_keys, k, &options).unwrap();
            assert_eq!(
                top.read_bytes(&gpu).unwrap(),
                expected.keys.bytes(),
                "{what}"
            );
            assert_eq!(
                ids.read_bytes(&gpu).unwrap(),
                expected.values.bytes(),
                "{what}"
            );
            let segmented =
                ops::piecewise::segmented_sort(&gpu, &key_column, &id_column, &options).unwrap();
            let (expected, _) = cpu::segmented_sort(
                host_keys,
                None,
                cpu::HostSegments::Ids(HostInput::new(&id_bytes, VertexFormat::Uint32, n)),
                &options,
            )
            .unwrap();
            assert_eq!(
                segmented.read_bytes(&gpu).unwrap(),
                expected.bytes(),
                "{what}"
            );
        }
        let too_many = ops::piecewise::top_k(&gpu, &key_column, n + 1, &SortOptions::ascending());
        assert!(too_many.is_err());
    }
}

#[test]
fn argsort_by_errors_name_the_key() {
    let gpu = gpu();
    let u32s_buffer = upload(&gpu, &u32_bytes(&[1, 2, 3, 4]));
    let a = view(&u32s_buffer, VertexFormat::Uint32, 4);
    let short = view(&u32s_buffer, VertexFormat::Uint32, 3);
    let pairs = view(&u32s_buffer, VertexFormat::Uint16x2, 4);
    assert!(matches!(
        ops::argsort_by(&gpu, &[]),
        Err(OpError::NoInputs { op: "argsort_by" })
    ));
    assert!(matches!(
        ops::argsort_by(&gpu, &[SortKey::new(a), SortKey::new(pairs)]),
        Err(OpError::UnsupportedFormat {
            input: 1,
            format: VertexFormat::Uint16x2,
            ..
        })
    ));
    assert!(matches!(
        ops::argsort_by(&gpu, &[SortKey::new(a), SortKey::new(short)]),
        Err(OpError::LengthMismatch {
            input: 1,
            expected: 4,
            found: 3,
            ..
        })
    ));
    let mask = GpuMask::from_bools(&gpu, &[true; 5]).unwrap();
    assert!(matches!(
        ops::argsort_by(&gpu, &[SortKey::new(a).with_validity(&mask)]),
        Err(OpError::LengthMismatch {
            input: 1,
            expected: 4,
            found: 5,
            ..
        })
    ));
}
