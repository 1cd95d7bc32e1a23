//! Filtering and lane operations on columns larger than one buffer (issue 17: "operations …
//! take chunked columns"): on a device whose buffers hold at most 1 KiB, predicates over
//! differently chunked vectors (and chunked masks) evaluate into a `GpuMask` in pieces equal to the
//! host's rows, the rows it keeps of chunked columns equal the host's compaction byte for byte,
//! and lane operations over chunked inputs equal the same operation on one buffer.

use crate::fixtures::USAGE;
use crate::support::{Rng, small_gpu};
use gpudata::ops::{GpuMask, LaneOp, OpError, PredicateOf};
use gpudata::table::{ChunkMapError, ChunkOptions, ChunkedPredicate, GpuVector, TableError};
use gpudata::{Gpu, GpuData, GpuStruct, VertexFormat};

fn rows_per_chunk(rows: u64) -> ChunkOptions {
    ChunkOptions {
        rows_per_chunk: Some(rows),
        ..ChunkOptions::default()
    }
}

/// A float in `[0, 1)`.
fn unit(rng: &mut Rng) -> f32 {
    (rng.f32_in(1.0) + 1.0) / 2.0
}

/// `values` kept where `keep` is true, as bytes.
fn host_compact<T: bytemuck::Pod>(values: &[T], keep: &[bool]) -> Vec<u8> {
    let kept: Vec<T> = values
        .iter()
        .zip(keep)
        .filter(|(_, k)| **k)
        .map(|(v, _)| *v)
        .collect();
    bytemuck::cast_slice(&kept).to_vec()
}

struct Columns {
    x: Vec<f32>,
    y: Vec<u32>,
    z: Vec<[f32; 2]>,
    x_vec: GpuVector,
    y_vec: GpuVector,
    z_vec: GpuVector,
}

/// Three columns of `n` rows chunked at 256 (as many as fit), 90 and 100 rows.
fn columns(gpu: &Gpu, n: usize, seed: u64) -> Columns {
    let mut rng = Rng::new(seed);
    let x: Vec<f32> = (0..n).map(|_| unit(&mut rng)).collect();
    let y: Vec<u32> = (0..n).map(|_| rng.below(1000) as u32).collect();
    let z: Vec<[f32; 2]> = (0..n).map(|_| [unit(&mut rng), unit(&mut rng)]).collect();
    let x_vec = GpuVector::upload_values(gpu, "x", &x, USAGE, ChunkOptions::default()).unwrap();
    let y_vec = GpuVector::upload_values(gpu, "y", &y, USAGE, rows_per_chunk(90)).unwrap();
    let z_vec = GpuVector::upload_values(gpu, "z", &z, USAGE, rows_per_chunk(100)).unwrap();
    Columns {
        x,
        y,
        z,
        x_vec,
        y_vec,
        z_vec,
    }
}

#[test]
fn predicates_over_chunked_columns_mask_and_filter_like_the_host() {
    let gpu = small_gpu();
    let c = columns(&gpu, 700, 1717);
    assert!(c.x_vec.chunks().len() > 1 && c.y_vec.chunks().len() > 5);
    // (x > 0.25 && y < 500) || !(z between 0.1 and 0.9, every lane)
    let predicate: ChunkedPredicate<'_> = PredicateOf::greater(&c.x_vec, 0.25f32)
        .and(PredicateOf::less(&c.y_vec, 500u32))
        .or(PredicateOf::between(&c.z_vec, 0.1f32, 0.9f32).not());
    let expected: Vec<bool> = (0..700)
        .map(|i| {
            (c.x[i] > 0.25 && c.y[i] < 500) || !c.z[i].iter().all(|&l| (0.1..=0.9).contains(&l))
        })
        .collect();
    let mask = GpuVector::mask(&gpu, &predicate).unwrap();
    assert_eq!(mask.len(), 700);
    assert!(mask.pieces().len() > 7, "pieces cut at every chunk end");
    assert_eq!(mask.read(&gpu).unwrap(), expected);
    let kept = expected.iter().filter(|k| **k).count() as u64;
    assert!(kept > 100 && kept < 600, "a selective predicate: {kept}");
    assert_eq!(mask.count(&gpu).unwrap(), kept);

    let filtered = GpuVector::filter(&gpu, &mask, &[&c.x_vec, &c.y_vec, &c.z_vec]).unwrap();
    assert_eq!(filtered.len(), 3);
    for (vector, name) in filtered.iter().zip(["x", "y", "z"]) {
        assert_eq!(vector.name(), name);
        assert_eq!(vector.length(), kept);
        for chunk in vector.chunks() {
            assert!(chunk.buffer().size() <= 1024);
        }
    }
    assert_eq!(filtered[0].format(), c.x_vec.format());
    assert_eq!(filtered[2].format(), c.z_vec.format());
    assert_eq!(
        filtered[0].read_bytes(&gpu).unwrap(),
        host_compact(&c.x, &expected)
    );
    assert_eq!(
        filtered[1].read_bytes(&gpu).unwrap(),
        host_compact(&c.y, &expected)
    );
    assert_eq!(
        filtered[2].read_bytes(&gpu).unwrap(),
        host_compact(&c.z, &expected)
    );
}

#[test]
fn chunked_masks_join_predicates_and_filters_at_their_own_boundaries() {
    let gpu = small_gpu();
    let c = columns(&gpu, 700, 99);
    // A mask of three pieces (300, 0 and 400 rows) whose boundaries are not the columns'.
    let mut rng = Rng::new(5);
    let picked: Vec<bool> = (0..700).map(|_| rng.below(3) == 0).collect();
    let pieces = vec![
        GpuMask::from_bools(&gpu, &picked[..300]).unwrap(),
        GpuMask::from_bools(&gpu, &[]).unwrap(),
        GpuMask::from_bools(&gpu, &picked[300..]).unwrap(),
    ];
    let picked_mask = GpuMask::from_masks(pieces);
    assert_eq!(picked_mask.len(), 700);
    assert_eq!(picked_mask.read(&gpu).unwrap(), picked);
    let both = GpuVector::mask(
        &gpu,
        &PredicateOf::Mask(&picked_mask).and(PredicateOf::greater(&c.x_vec, 0.5f32)),
    )
    .unwrap();
    let expected: Vec<bool> = (0..700).map(|i| picked[i] && c.x[i] > 0.5).collect();
    assert_eq!(both.read(&gpu).unwrap(), expected);
    // Masks alone: the rows the picked mask drops.
    let dropped = GpuVector::mask(&gpu, &PredicateOf::Mask(&picked_mask).not()).unwrap();
    let not_picked: Vec<bool> = picked.iter().map(|p| !p).collect();
    assert_eq!(dropped.read(&gpu).unwrap(), not_picked);
    // Filtering by the three-piece mask itself.
    let kept = GpuVector::filter(&gpu, &picked_mask, &[&c.y_vec]).unwrap();
    assert_eq!(
        kept[0].read_bytes(&gpu).unwrap(),
        host_compact(&c.y, &picked)
    );
    // A mask that keeps nothing gives one empty chunk per column.
    let none = GpuVector::mask(&gpu, &PredicateOf::greater(&c.x_vec, 2.0f32)).unwrap();
    assert_eq!(none.count(&gpu).unwrap(), 0);
    let empty = GpuVector::filter(&gpu, &none, &[&c.x_vec, &c.z_vec]).unwrap();
    for vector in &empty {
        assert_eq!(vector.length(), 0);
        assert_eq!(vector.chunks().len(), 1);
        assert!(vector.read_bytes(&gpu).unwrap().is_empty());
    }
    assert_eq!(empty[1].format(), c.z_vec.format());
}

#[test]
fn a_mask_in_pieces_reads_counts_and_slices_across_them() {
    let gpu = small_gpu();
    let c = columns(&gpu, 700, 7);
    let rows: Vec<bool> = (0..90).map(|i| i % 3 == 0 || i % 7 == 0).collect();
    let mask = GpuMask::from_masks(vec![
        GpuMask::from_bools(&gpu, &rows[..40]).unwrap(),
        GpuMask::from_bools(&gpu, &rows[40..]).unwrap(),
    ]);
    assert_eq!((mask.len(), mask.pieces().len()), (90, 2));
    assert_eq!(mask.read(&gpu).unwrap(), rows);
    let kept = rows.iter().filter(|&&r| r).count() as u64;
    assert_eq!(mask.count(&gpu).unwrap(), kept);
    let across = mask.slice(&gpu, 30, 20).unwrap();
    assert_eq!(across.pieces().len(), 2);
    assert_eq!(across.read(&gpu).unwrap(), rows[30..50]);
    let within = mask.slice(&gpu, 45, 10).unwrap();
    assert_eq!(within.pieces().len(), 1);
    assert_eq!(within.read(&gpu).unwrap(), rows[45..55]);
    // One-buffer operations read the mask as one buffer: its own pieces are refused.
    let y = c.y_vec.chunks()[0].as_view().unwrap();
    assert_eq!(y.length(), 90);
    assert!(matches!(
        gpudata::ops::compact(&gpu, &mask, &[y]),
        Err(OpError::WrongData { op: "compact", .. })
    ));
    let one = GpuMask::from_bools(&gpu, &rows).unwrap();
    let compacted = gpudata::ops::compact(&gpu, &one, &[y]).unwrap();
    assert_eq!(compacted.kept, kept);
    // The chunked filter takes it at its own boundaries.
    let y90 = GpuVector::from_data("y", vec![c.y_vec.chunks()[0].share()]).unwrap();
    let filtered = GpuVector::filter(&gpu, &mask, &[&y90]).unwrap();
    assert_eq!(
        filtered[0].read_bytes(&gpu).unwrap(),
        host_compact(&c.y[..90], &rows)
    );
}

#[test]
fn chunked_filters_of_no_rows_and_their_refusals() {
    let gpu = small_gpu();
    let empty =
        GpuVector::upload_values::<f32>(&gpu, "e", &[], USAGE, ChunkOptions::default()).unwrap();
    let mask = GpuVector::mask(&gpu, &PredicateOf::less(&empty, 1.0f32)).unwrap();
    assert!(mask.is_empty());
    assert!(mask.read(&gpu).unwrap().is_empty());
    let kept = GpuVector::filter(&gpu, &mask, &[&empty]).unwrap();
    assert_eq!(kept[0].length(), 0);

    let c = columns(&gpu, 300, 3);
    let short =
        GpuVector::upload_values(&gpu, "short", &c.x[..200], USAGE, ChunkOptions::default())
            .unwrap();
    // Vectors of other lengths.
    let err = GpuVector::mask(
        &gpu,
        &PredicateOf::less(&c.x_vec, 1.0f32).and(PredicateOf::less(&short, 1.0f32)),
    )
    .unwrap_err();
    assert!(
        matches!(&err, ChunkMapError::Table(TableError::MapLength { vector, expected: 300, found: 200, .. }) if vector == "short"),
        "{err:?}"
    );
    // A mask of another length, in a predicate and in a filter.
    let short_mask = GpuVector::mask(&gpu, &PredicateOf::less(&short, 1.0f32)).unwrap();
    let err = GpuVector::mask(
        &gpu,
        &PredicateOf::less(&c.x_vec, 1.0f32).and(PredicateOf::Mask(&short_mask)),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            ChunkMapError::Table(TableError::ChunkedMaskLength {
                expected: 300,
                found: 200
            })
        ),
        "{err:?}"
    );
    let err = GpuVector::filter(&gpu, &short_mask, &[&c.x_vec]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "filter: the chunked mask has 200 rows, expected the vectors' 300"
    );
    // No column and no mask.
    let err = GpuVector::mask(&gpu, &ChunkedPredicate::And(Vec::new())).unwrap_err();
    assert!(
        matches!(
            err,
            ChunkMapError::Piece {
                source: OpError::NoInputs { op: "mask" },
                ..
            }
        ),
        "{err:?}"
    );
    // Chunks of struct rows are not one column: refused as the operations refuse them.
    #[derive(Clone, Copy, GpuStruct)]
    #[repr(C)]
    struct Pair {
        a: f32,
        b: u32,
    }
    let pairs: Vec<Pair> = (0..300).map(|i| Pair { a: i as f32, b: 0 }).collect();
    let rows = GpuVector::from_rows(&gpu, "pairs", &pairs, None).unwrap();
    let err = GpuVector::mask(&gpu, &PredicateOf::less(&rows, 1.0f32)).unwrap_err();
    assert!(
        matches!(
            &err,
            ChunkMapError::Piece {
                source: OpError::WrongData { op: "mask", .. },
                ..
            }
        ),
        "{err:?}"
    );
    let all = GpuVector::mask(&gpu, &PredicateOf::less(&c.x_vec, 2.0f32)).unwrap();
    let err = GpuVector::filter(&gpu, &all, &[&rows]).unwrap_err();
    assert!(
        matches!(
            &err,
            ChunkMapError::Piece {
                source: OpError::WrongData { op: "compact", .. },
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn lane_operations_take_chunked_columns_as_one_buffer_data() {
    let gpu = small_gpu();
    let full = crate::support::gpu();
    let c = columns(&gpu, 700, 41);
    let mut rng = Rng::new(8);
    let w: Vec<[f32; 2]> = (0..700).map(|_| [unit(&mut rng), unit(&mut rng)]).collect();
    let w_vec = GpuVector::upload_values(&gpu, "w", &w, USAGE, rows_per_chunk(77)).unwrap();
    let one = |bytes: &[u8], format| {
        let rows = bytes.len() as u64 / VertexFormat::byte_length(format);
        GpuData::from_bytes(
            &full,
            bytes,
            gpudata::GpuDataDescriptor::new(gpudata::GpuVectorFormat::Fixed(format), rows),
            USAGE,
        )
        .unwrap()
    };
    let z_one = one(bytemuck::cast_slice(&c.z), VertexFormat::Float32x2);
    let w_one = one(bytemuck::cast_slice(&w), VertexFormat::Float32x2);
    let x_one = one(bytemuck::cast_slice(&c.x), VertexFormat::Float32);
    let cases: Vec<(LaneOp, Vec<&GpuVector>, Vec<&GpuData>)> = vec![
        (LaneOp::Dot, vec![&c.z_vec, &w_vec], vec![&z_one, &w_one]),
        (LaneOp::Length, vec![&w_vec], vec![&w_one]),
        (
            LaneOp::EqualAll,
            vec![&c.z_vec, &c.z_vec],
            vec![&z_one, &z_one],
        ),
        (LaneOp::Swizzle(vec![1, 0, 1]), vec![&c.z_vec], vec![&z_one]),
        (
            LaneOp::Select,
            vec![&c.x_vec, &c.z_vec, &w_vec],
            vec![&x_one, &z_one, &w_one],
        ),
        (
            LaneOp::InterleaveLanes,
            vec![&c.x_vec, &w_vec],
            vec![&x_one, &w_one],
        ),
    ];
    for (op, chunked, single) in cases {
        let operands: Vec<_> = chunked.iter().map(|v| (*v).into()).collect();
        let got = GpuVector::lanes(&gpu, &op, &operands).unwrap();
        assert!(got.chunks().len() > 1, "{op:?}");
        // Outputs wider than their inputs (two lanes swizzled into three, three lanes
        // interleaved from one and two) still fit the device's buffers: pieces were halved.
        for chunk in got.chunks() {
            assert!(
                chunk.buffer().size() <= 1024,
                "{op:?}: {}",
                chunk.buffer().size()
            );
        }
        assert_eq!(got.name(), op.luma_name());
        let views: Vec<_> = single.iter().map(|d| d.as_view().unwrap().into()).collect();
        let oracle = gpudata::ops::lanes(&full, &op, &views).unwrap();
        assert_eq!(got.format(), oracle.format(), "{op:?}");
        assert_eq!(
            got.read_bytes(&gpu).unwrap(),
            oracle.read_bytes(&full).unwrap(),
            "{op:?}"
        );
    }
}
