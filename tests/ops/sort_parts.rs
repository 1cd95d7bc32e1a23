//! Sorts of more words than one storage binding holds: on a device whose storage bindings hold
//! 48 KiB (offsets aligned to 256 bytes), 30,000 keys are bound in three parts (and the sort's
//! own words too), so keys, values and outputs cross part boundaries. Every result must equal
//! the CPU reference: `sort`, `argsort`, `sort_pairs` (strided keys, unaligned values), `top_k`,
//! segmented sorts, `argsort_by` over several keys and pieces, and the chunked forms; a kernel
//! that would need more bindings than the device allows is refused, naming the limit.

use std::sync::OnceLock;

use crate::fixtures::*;
use crate::sort::{check_sort, check_strided, keys};
use gpudata::ops::cpu::{self, HostInput, HostSegments, HostSortKey};
use gpudata::ops::{
    self, GpuMask, NullOrder, OpError, OpsConfig, Segments, SortKey, SortOptions, SortOrder,
};
use gpudata::table::ChunkOptions;
use gpudata::{Gpu, GpuData, GpuVector, VertexFormat};

/// The binding limit of the tiny device.
const BINDING: u64 = 48 << 10;

/// Rows of every test: about three parts of 4-byte words.
const N: u64 = 30_000;

/// A device binding at most [`BINDING`] bytes of storage, at 256-byte offsets.
fn tiny() -> Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        ops_with_limits(|l| {
            l.max_storage_buffer_binding_size = BINDING;
            l.min_storage_buffer_offset_alignment = l.min_storage_buffer_offset_alignment.max(256);
        })
    })
    .clone()
}

fn read(gpu: &Gpu, data: &GpuData) -> Vec<u8> {
    data.read_bytes(gpu).unwrap()
}

fn both_orders() -> [SortOptions; 2] {
    [SortOptions::ascending(), SortOptions::descending()]
}

#[test]
fn sorts_past_one_binding_equal_the_cpu_reference() {
    let gpu = tiny();
    let mut rng = Rng::new(2801);
    for format in [
        VertexFormat::Uint32,
        VertexFormat::Sint32,
        VertexFormat::Float32,
    ] {
        // `sort_pairs` carrying row ids, and `sort`, in both orders.
        check_sort(&gpu, &OpsConfig::default(), &mut rng, format, N);
        let bytes = keys(&mut rng, format, N, true);
        let key_buffer = upload(&gpu, &bytes);
        for options in both_orders() {
            let order = ops::argsort(&gpu, view(&key_buffer, format, N), &options).unwrap();
            assert_eq!(
                read(&gpu, &order),
                cpu::argsort(HostInput::new(&bytes, format, N), &options)
                    .unwrap()
                    .bytes(),
                "{format} {:?}",
                options.order
            );
        }
    }
}

#[test]
fn strided_keys_and_unaligned_values_in_parts() {
    check_strided(&tiny(), 2802, N);
}

#[test]
fn top_k_and_segmented_sorts_in_parts() {
    let gpu = tiny();
    let mut rng = Rng::new(2803);
    let format = VertexFormat::Float32;
    let bytes = keys(&mut rng, format, N, true);
    let buffer = upload(&gpu, &bytes);
    let host = HostInput::new(&bytes, format, N);
    // Segments of random sizes; their ids in order.
    let mut offsets: Vec<u32> = (0..40).map(|_| rng.below(N + 1) as u32).collect();
    offsets.extend([0, N as u32]);
    offsets.sort_unstable();
    let ids: Vec<u32> = (0..N as u32)
        .map(|r| offsets.partition_point(|&o| o <= r) as u32 - 1)
        .collect();
    let offset_bytes = u32_bytes(&offsets);
    let id_bytes = u32_bytes(&ids);
    let offset_buffer = upload(&gpu, &offset_bytes);
    let id_buffer = upload(&gpu, &id_bytes);
    let s = offsets.len() as u64;
    for options in both_orders() {
        // One part, the first boundary crossed, all rows.
        for k in [1, 15_000, N] {
            let expected = cpu::top_k(host, k, &options).unwrap();
            let got = ops::top_k(&gpu, view(&buffer, format, N), k, &options).unwrap();
            assert_eq!(read(&gpu, &got.keys), expected.keys.bytes(), "top {k}");
            assert_eq!(read(&gpu, &got.values), expected.values.bytes(), "top {k}");
        }
        let (want, _) = cpu::segmented_sort(
            host,
            None,
            HostSegments::Offsets(HostInput::new(&offset_bytes, VertexFormat::Uint32, s)),
            &options,
        )
        .unwrap();
        let got = ops::segmented_sort(
            &gpu,
            view(&buffer, format, N),
            Segments::Offsets(view(&offset_buffer, VertexFormat::Uint32, s)),
            &options,
        )
        .unwrap();
        assert_eq!(read(&gpu, &got), want.bytes(), "by offsets");
        let got = ops::segmented_sort_pairs(
            &gpu,
            view(&buffer, format, N),
            view(&id_buffer, VertexFormat::Uint32, N),
            Segments::Ids(view(&id_buffer, VertexFormat::Uint32, N)),
            &options,
        )
        .unwrap();
        assert_eq!(read(&gpu, &got.keys), want.bytes(), "by ids");
        assert_eq!(read(&gpu, &got.values), id_bytes, "ids carried");
    }
}

#[test]
fn argsort_by_and_chunked_sorts_in_parts() {
    let gpu = tiny();
    let mut rng = Rng::new(2804);
    // By `a` (uint32 from 7 values, nulls first, in two pieces) then `b` (float32) descending.
    let a: Vec<u32> = (0..N).map(|_| rng.below(7) as u32).collect();
    let a_bytes = u32_bytes(&a);
    let b_bytes = keys(&mut rng, VertexFormat::Float32, N, true);
    let valid: Vec<bool> = (0..N).map(|_| rng.below(5) != 0).collect();
    let cut = 14_321usize;
    let a_low = upload(&gpu, &a_bytes[..cut * 4]);
    let a_high = upload(&gpu, &a_bytes[cut * 4..]);
    let b = upload(&gpu, &b_bytes);
    let mask = GpuMask::from_bools(&gpu, &valid).unwrap();
    let keys = [
        SortKey::from_pieces(vec![
            view(&a_low, VertexFormat::Uint32, cut as u64),
            view(&a_high, VertexFormat::Uint32, N - cut as u64),
        ])
        .with_validity(&mask)
        .with_nulls(NullOrder::First),
        SortKey::new(view(&b, VertexFormat::Float32, N)).descending(),
    ];
    let host = [
        HostSortKey {
            column: HostInput::new(&a_bytes, VertexFormat::Uint32, N),
            order: SortOrder::Ascending,
            validity: Some(&valid),
            nulls: NullOrder::First,
        },
        HostSortKey {
            column: HostInput::new(&b_bytes, VertexFormat::Float32, N),
            order: SortOrder::Descending,
            validity: None,
            nulls: NullOrder::Last,
        },
    ];
    let order = ops::argsort_by(&gpu, &keys).unwrap();
    assert_eq!(read(&gpu, &order), cpu::argsort_by(&host).unwrap().bytes());

    // A chunked column of 30,000 rows (chunks of 9,000) sorted whole.
    let values: Vec<f32> = (0..N).map(|_| rng.below(300) as f32 - 150.0).collect();
    let chunks = ChunkOptions {
        rows_per_chunk: Some(9000),
        ..ChunkOptions::default()
    };
    let column =
        GpuVector::upload_values(&gpu, "x", &values, gpudata::data::DEFAULT_USAGE, chunks).unwrap();
    let bytes = f32_bytes(&values);
    let host = HostInput::new(&bytes, VertexFormat::Float32, N);
    for options in both_orders() {
        let sorted = ops::piecewise::sort(&gpu, &column, &options).unwrap();
        assert_eq!(
            sorted.read_bytes(&gpu).unwrap(),
            cpu::sort(host, &options).unwrap().bytes()
        );
    }
}

/// Keys past one binding are bound in parts; a kernel whose parts need more storage bindings
/// than the device allows per shader stage is refused with the limit it exceeds.
#[test]
fn too_many_parts_are_refused_naming_the_limit() {
    let gpu = ops_with_limits(|l| {
        l.max_storage_buffer_binding_size = 4096;
        l.min_storage_buffer_offset_alignment = l.min_storage_buffer_offset_alignment.max(256);
        l.max_storage_buffers_per_shader_stage = 8;
    });
    let n = 10_000u64;
    let keys = upload(&gpu, &vec![0u8; n as usize * 4]);
    let err = ops::sort(
        &gpu,
        view(&keys, VertexFormat::Uint32, n),
        &SortOptions::ascending(),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            OpError::TooManyBindings {
                op: "sort",
                what: "storage buffers per shader stage",
                limit: 8,
                ..
            }
        ),
        "{err}"
    );
}
