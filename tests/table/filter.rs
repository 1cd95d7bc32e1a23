//! `GpuTable::filter` on tables of every layout (packed columns, interleaved struct rows, a
//! segmented table's one buffer, several batches) with masks that keep all, none, every other,
//! 1% and 99% of the rows: the result equals filtering every column on the host, rows in order,
//! and keeps the schema, buffer layouts and constants.

use crate::fixtures::{column, gpu};
use crate::support::Rng;
use gpudata::ops::GpuMask;
use gpudata::table::{
    GpuColumn, GpuConstant, GpuTable, GpuVector, RecordBatchOptions, SegmentOptions, TableError,
};
use gpudata::{Gpu, GpuData, GpuStruct, Unorm8x4, VertexFormat};

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "wgsl-storage")]
struct Point {
    position: [f32; 3],
    color: Unorm8x4,
}

fn points(rng: &mut Rng, rows: usize) -> Vec<Point> {
    (0..rows)
        .map(|_| Point {
            position: [rng.f32_in(10.0), rng.f32_in(10.0), rng.f32_in(10.0)],
            color: Unorm8x4(rng.array()),
        })
        .collect()
}

/// Packed `float32x2` and `uint8` columns, interleaved `Point` rows and a constant, in batches
/// of `chunks` rows.
fn table(gpu: &Gpu, rng: &mut Rng, chunks: &[usize]) -> GpuTable {
    let pick = |v: Vec<GpuData>| v;
    let offsets = pick(
        chunks
            .iter()
            .map(|&n| {
                let values: Vec<[f32; 2]> =
                    (0..n).map(|_| [rng.f32_in(5.0), rng.f32_in(5.0)]).collect();
                column(gpu, VertexFormat::Float32x2, &values)
            })
            .collect(),
    );
    let kinds: Vec<GpuData> = chunks
        .iter()
        .map(|&n| column(gpu, VertexFormat::Uint8, &rng.bytes(n)))
        .collect();
    let mut rows = Vec::new();
    for &n in chunks {
        rows.push(
            GpuVector::from_rows(gpu, "point", &points(rng, n), None)
                .unwrap()
                .into_chunks()
                .remove(0),
        );
    }
    GpuTable::from_columns(
        [
            (
                "offset",
                GpuColumn::from(GpuVector::from_data("offset", offsets).unwrap()),
            ),
            ("kind", GpuVector::from_data("kind", kinds).unwrap().into()),
            ("point", GpuVector::from_data("point", rows).unwrap().into()),
            (
                "tint",
                GpuConstant::new(VertexFormat::Unorm8x4, &[1u8, 2, 3, 4])
                    .unwrap()
                    .into(),
            ),
        ],
        RecordBatchOptions::default(),
    )
    .unwrap()
}

/// Every varying column's rows over all batches, each row's bytes packed.
fn rows_of(gpu: &Gpu, table: &GpuTable) -> Vec<(String, Vec<Vec<u8>>)> {
    table
        .varying_schema()
        .fields
        .iter()
        .map(|f| {
            let mut rows = Vec::new();
            for batch in table.batches() {
                let data = batch.column(&f.name).unwrap();
                let bytes = data.read_row_bytes(gpu, 0, data.length()).unwrap();
                let len = data.row_byte_length() as usize;
                rows.extend(bytes.chunks(len.max(1)).map(<[u8]>::to_vec));
                if data.length() == 0 {
                    assert!(bytes.is_empty());
                }
            }
            (f.name.clone(), rows)
        })
        .collect()
}

fn masks(rng: &mut Rng, n: usize) -> Vec<(&'static str, Vec<bool>)> {
    vec![
        ("all", vec![true; n]),
        ("none", vec![false; n]),
        ("alternating", (0..n).map(|i| i % 2 == 1).collect()),
        ("1%", (0..n).map(|_| rng.below(100) == 0).collect()),
        ("99%", (0..n).map(|_| rng.below(100) != 0).collect()),
    ]
}

fn check_filter(gpu: &Gpu, rng: &mut Rng, table: &GpuTable) {
    let before = rows_of(gpu, table);
    let n = table.num_rows() as usize;
    for (name, keep) in masks(rng, n) {
        let mask = GpuMask::from_bools(gpu, &keep).unwrap();
        let filtered = table.filter(gpu, &mask).unwrap();
        let kept = keep.iter().filter(|&&k| k).count() as u64;
        assert_eq!(filtered.num_rows(), kept, "{name}");
        assert_eq!(filtered.schema(), table.schema(), "{name}");
        assert_eq!(filtered.buffer_layouts(), table.buffer_layouts(), "{name}");
        assert_eq!(filtered.batches().len(), table.batches().len());
        let constants: Vec<_> = filtered
            .constants()
            .map(|(n, c)| (n.to_owned(), c.bytes().to_vec()))
            .collect();
        let expected: Vec<_> = table
            .constants()
            .map(|(n, c)| (n.to_owned(), c.bytes().to_vec()))
            .collect();
        assert_eq!(constants, expected);
        for ((column, rows), (_, got)) in before.iter().zip(rows_of(gpu, &filtered)) {
            let want: Vec<Vec<u8>> = rows
                .iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(r, _)| r.clone())
                .collect();
            assert_eq!(got, want, "{name} mask, column {column}");
        }
    }
}

#[test]
fn filtering_packed_and_interleaved_tables_equals_filtering_on_the_host() {
    let gpu = gpu();
    let mut rng = Rng::new(40);
    let t = table(&gpu, &mut rng, &[9000]);
    check_filter(&gpu, &mut rng, &t);
}

#[test]
fn filtering_keeps_batches_and_their_order() {
    let gpu = gpu();
    let mut rng = Rng::new(41);
    // Batches that start inside mask words (the mask is sliced per batch).
    let t = table(&gpu, &mut rng, &[37, 1000, 0, 8191, 5]);
    check_filter(&gpu, &mut rng, &t);
}

#[test]
fn filtering_a_segmented_table_equals_filtering_on_the_host() {
    let gpu = gpu();
    let mut rng = Rng::new(42);
    let source = table(&gpu, &mut rng, &[3000]);
    let segmented = source
        .to_segmented(&gpu, SegmentOptions::default())
        .unwrap();
    check_filter(&gpu, &mut rng, segmented.table());
}

#[test]
fn filtering_checks_the_mask() {
    let gpu = gpu();
    let mut rng = Rng::new(43);
    let ten = table(&gpu, &mut rng, &[10]);
    let mask = GpuMask::from_bools(&gpu, &[true; 9]).unwrap();
    assert_eq!(
        ten.filter(&gpu, &mask).unwrap_err(),
        TableError::MaskLength {
            expected: 10,
            found: 9
        }
    );
    let mask = GpuMask::from_bools(&gpu, &[true; 10]).unwrap();
    assert!(matches!(
        mask.slice(&gpu, 5, 6),
        Err(gpudata::OpError::RowsOutOfRange {
            first: 5,
            rows: 6,
            length: 10,
            ..
        })
    ));
    let sliced = mask.slice(&gpu, 3, 7).unwrap();
    assert_eq!(sliced.read(&gpu).unwrap(), [true; 7]);

    // An index column names rows that filtering moves.
    let indices = gpudata::GpuDataDescriptor {
        format: Some(gpudata::GpuVectorFormat::VertexList(VertexFormat::Uint32).into()),
        length: 4,
        value_length: Some(3),
        ..Default::default()
    };
    let indexed = GpuTable::from_vectors(
        [
            GpuVector::from_data(
                "offset",
                vec![column(&gpu, VertexFormat::Float32, &[0f32; 4])],
            )
            .unwrap(),
            GpuVector::from_data(
                "indices",
                vec![crate::fixtures::bytes(
                    &gpu,
                    bytemuck::cast_slice(&[1u32, 2, 3]),
                    indices,
                )],
            )
            .unwrap(),
        ],
        RecordBatchOptions::default(),
    )
    .unwrap();
    let mask = GpuMask::from_bools(&gpu, &[true; 4]).unwrap();
    assert_eq!(
        indexed.filter(&gpu, &mask).unwrap_err(),
        TableError::FilterIndexed
    );

    // What the compaction refuses: rows no binding of this device holds.
    let tiny = crate::support::limited_gpu("filter", |l| l.max_storage_buffer_binding_size = 128);
    let small_table = table(&tiny, &mut rng, &[10]);
    let mask = GpuMask::from_bools(&tiny, &[true; 10]).unwrap();
    assert!(matches!(
        small_table.filter(&tiny, &mask),
        Err(TableError::Filter {
            source: gpudata::OpError::TooLarge { .. }
        })
    ));
}
