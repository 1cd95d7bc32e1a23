//! `GpuTable::filter` on tables of every layout (packed columns, interleaved struct rows, a
//! segmented table's one buffer, several batches) with masks that keep all, none, every other,
//! 1% and 99% of the rows: the result equals filtering every column on the host, rows in order,
//! and keeps the schema, buffer layouts and constants.

use crate::fixtures::{column, gpu};
use crate::support::Rng;
use gpudata::GpuConstant;
use gpudata::ops::GpuMask;
use gpudata::table::{
    GpuColumn, GpuTable, GpuVector, RecordBatchOptions, SegmentOptions, TableError,
};
use gpudata::{Gpu, GpuData, GpuStruct, Unorm8x4, VertexFormat};

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "wgsl-storage")]
pub(crate) struct Point {
    position: [f32; 3],
    color: Unorm8x4,
}

pub(crate) fn points(rng: &mut Rng, rows: usize) -> Vec<Point> {
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
                let bytes = data.read_packed_rows(gpu, 0, data.length()).unwrap();
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

/// A table of `batches` (rows, index count): a `float32` column counting up from each batch's
/// first table row, and `indices` of `format` (`uint16` or `uint32`) at random rows of the
/// batch, one in fifty past its rows.
pub(crate) fn indexed_table(
    gpu: &Gpu,
    rng: &mut Rng,
    batches: &[(usize, usize)],
    format: VertexFormat,
) -> (GpuTable, Vec<Vec<u32>>) {
    let mut values = Vec::new();
    let mut index_data = Vec::new();
    let mut all = Vec::new();
    let mut first = 0;
    for &(rows, count) in batches {
        let v: Vec<f32> = (0..rows).map(|i| (first + i) as f32).collect();
        first += rows;
        values.push(column(gpu, VertexFormat::Float32, &v));
        let indices: Vec<u32> = (0..count)
            .map(|_| {
                if rng.below(50) == 0 {
                    (rows as u64 + rng.below(3)) as u32
                } else {
                    rng.below(rows.max(1) as u64) as u32
                }
            })
            .collect();
        let bytes: Vec<u8> = match format {
            VertexFormat::Uint16 => indices
                .iter()
                .flat_map(|&i| (i as u16).to_le_bytes())
                .collect(),
            _ => indices.iter().flat_map(|&i| i.to_le_bytes()).collect(),
        };
        let descriptor = gpudata::GpuDataDescriptor {
            format: Some(gpudata::GpuVectorFormat::VertexList(format).into()),
            length: rows as u64,
            value_length: Some(count as u64),
            ..Default::default()
        };
        index_data.push(crate::fixtures::bytes(gpu, &bytes, descriptor));
        all.push(indices);
    }
    let table = GpuTable::from_vectors(
        [
            GpuVector::from_data("value", values).unwrap(),
            GpuVector::from_data("indices", index_data).unwrap(),
        ],
        RecordBatchOptions::default(),
    )
    .unwrap();
    (table, all)
}

/// The host's filter of one batch's indices: the primitives of `k` indices whose every index
/// is a kept row, each renumbered to its row's place among the kept rows.
fn host_indices(indices: &[u32], keep: &[bool], k: usize) -> Vec<u32> {
    let mut rank = Vec::with_capacity(keep.len());
    let mut kept = 0u32;
    for &on in keep {
        rank.push(kept);
        kept += u32::from(on);
    }
    indices
        .chunks_exact(k)
        .filter(|p| p.iter().all(|&i| keep.get(i as usize) == Some(&true)))
        .flat_map(|p| p.iter().map(|&i| rank[i as usize]))
        .collect()
}

/// Filters `table` (from [`indexed_table`]) by every mask and compares values and indices with
/// the host's filter.
fn check_indexed(
    gpu: &Gpu,
    rng: &mut Rng,
    table: &GpuTable,
    indices: &[Vec<u32>],
    format: VertexFormat,
    topology: wgpu::PrimitiveTopology,
    k: usize,
) {
    let n = table.num_rows() as usize;
    for (name, keep) in masks(rng, n) {
        let what = format!("{name} mask, {format}, {topology:?}");
        let mask = GpuMask::from_bools(gpu, &keep).unwrap();
        let filtered = table.filter_primitives(gpu, &mask, topology).unwrap();
        assert_eq!(
            filtered.num_rows(),
            keep.iter().filter(|&&k| k).count() as u64,
            "{what}"
        );
        let mut first = 0;
        for ((batch, source), want_indices) in
            filtered.batches().iter().zip(table.batches()).zip(indices)
        {
            let rows = source.num_rows() as usize;
            let part = &keep[first..first + rows];
            let values = batch.column("value").unwrap();
            let got: Vec<f32> = if values.length() == 0 {
                Vec::new()
            } else {
                bytemuck::pod_collect_to_vec(&values.read_bytes(gpu).unwrap())
            };
            let want: Vec<f32> = (0..rows)
                .filter(|&i| part[i])
                .map(|i| (first + i) as f32)
                .collect();
            assert_eq!(got, want, "{what}: values");
            let data = batch.indices().unwrap();
            let want = host_indices(want_indices, part, k);
            assert_eq!(data.length(), batch.num_rows(), "{what}");
            assert_eq!(data.value_length(), want.len() as u64, "{what}");
            assert_eq!(data.format(), source.indices().unwrap().format(), "{what}");
            assert!(data.buffer().usage().contains(wgpu::BufferUsages::INDEX));
            let unit = format.byte_length() as usize;
            let bytes = if want.is_empty() {
                Vec::new()
            } else {
                data.read_bytes(gpu).unwrap()
            };
            let got: Vec<u32> = bytes
                .chunks_exact(unit)
                .map(|c| match unit {
                    2 => u32::from(u16::from_le_bytes([c[0], c[1]])),
                    _ => u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                })
                .collect();
            assert_eq!(got, want, "{what}: indices");
            first += rows;
        }
    }
}

#[test]
fn filtering_indexed_tables_keeps_whole_primitives_renumbered() {
    let gpu = gpu();
    let mut rng = Rng::new(44);
    let topologies = [
        (wgpu::PrimitiveTopology::PointList, 1),
        (wgpu::PrimitiveTopology::LineList, 2),
        (wgpu::PrimitiveTopology::TriangleList, 3),
    ];
    for format in [VertexFormat::Uint16, VertexFormat::Uint32] {
        for (topology, k) in topologies {
            // Batches that start inside mask words, index counts that leave an incomplete
            // primitive, an empty batch and a batch without indices.
            let (table, indices) = indexed_table(
                &gpu,
                &mut rng,
                &[(37, 100), (1000, 3001), (0, 0), (300, 0), (9000, 20_000)],
                format,
            );
            check_indexed(&gpu, &mut rng, &table, &indices, format, topology, k);
        }
    }
}

#[test]
fn filtering_indices_splits_them_over_bindings() {
    // 400,000 uint32 triangle indices (1.6 MB) on a device of 1 MiB bindings: the primitive
    // kernel runs in several dispatches.
    let gpu = crate::support::limited_gpu("filter", |l| {
        l.max_storage_buffer_binding_size = 1 << 20;
    });
    let mut rng = Rng::new(45);
    let (table, indices) =
        indexed_table(&gpu, &mut rng, &[(50_000, 400_000)], VertexFormat::Uint32);
    let n = table.num_rows() as usize;
    let keep: Vec<bool> = (0..n).map(|_| rng.below(10) != 0).collect();
    let mask = GpuMask::from_bools(&gpu, &keep).unwrap();
    let filtered = table
        .filter_primitives(&gpu, &mask, wgpu::PrimitiveTopology::TriangleList)
        .unwrap();
    let data = filtered.batches()[0].indices().unwrap();
    let want = host_indices(&indices[0], &keep, 3);
    let bytes = data.read_bytes(&gpu).unwrap();
    let got: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
    assert_eq!(got, want);
}

#[test]
fn filtering_refuses_strips_and_list_columns() {
    let gpu = gpu();
    let mut rng = Rng::new(46);
    let (table, _) = indexed_table(&gpu, &mut rng, &[(10, 12)], VertexFormat::Uint32);
    let mask = GpuMask::from_bools(&gpu, &[true; 10]).unwrap();
    assert_eq!(
        table.filter(&gpu, &mask).unwrap_err(),
        TableError::FilterIndexed
    );
    for topology in [
        wgpu::PrimitiveTopology::LineStrip,
        wgpu::PrimitiveTopology::TriangleStrip,
    ] {
        let error = table.filter_primitives(&gpu, &mask, topology).unwrap_err();
        assert_eq!(error, TableError::FilterStrip { topology });
    }
    assert!(
        TableError::FilterStrip {
            topology: wgpu::PrimitiveTopology::TriangleStrip
        }
        .to_string()
        .contains("`triangle-strip`")
    );
    // A list column's rows have no fixed place to compact.
    let names = gpudata::GpuDataDescriptor {
        format: Some(gpudata::GpuVectorFormat::ValueList(VertexFormat::Uint8).into()),
        length: 4,
        value_length: Some(10),
        ..Default::default()
    };
    // (Storage data without a vertex layout, as Arrow uploads make string columns.)
    let batch = gpudata::table::GpuRecordBatch::with_options(
        [
            ("offset", column(&gpu, VertexFormat::Float32, &[0f32; 4])),
            ("names", crate::fixtures::bytes(&gpu, &[7u8; 12], names)),
        ],
        RecordBatchOptions {
            buffer_layouts: Some(Vec::new()),
            ..RecordBatchOptions::default()
        },
    )
    .unwrap();
    let listed = GpuTable::from_batches(vec![batch], Vec::<(String, GpuConstant)>::new()).unwrap();
    let mask = GpuMask::from_bools(&gpu, &[true; 4]).unwrap();
    assert_eq!(
        listed.filter(&gpu, &mask).unwrap_err(),
        TableError::FilterList {
            column: "names".to_owned(),
            format: "value-list<uint8>".to_owned()
        }
    );
}

/// Readback metadata of a column's own kind that describes its rows: which are null.
#[derive(Debug, PartialEq)]
struct Nulls(Vec<bool>);

impl gpudata::data::RowMetadata for Nulls {
    fn null_count(&self) -> u64 {
        self.0.iter().filter(|n| **n).count() as u64
    }

    fn keep_rows(
        &self,
        kept: u64,
        keep: Option<&[bool]>,
    ) -> Option<gpudata::data::ReadbackMetadata> {
        let keep = keep?;
        let rows: Vec<bool> = (self.0.iter().zip(keep))
            .filter(|(_, k)| **k)
            .map(|(n, _)| *n)
            .collect();
        assert_eq!(rows.len() as u64, kept);
        Some(gpudata::data::ReadbackMetadata::with_rows(Nulls(rows)))
    }
}

#[test]
fn filtering_carries_metadata_that_describes_its_rows_and_drops_other_metadata() {
    use gpudata::data::ReadbackMetadata;
    let gpu = gpu();
    let mut a = column(&gpu, VertexFormat::Float32, &[1.0f32, 2.0, 3.0, 4.0, 5.0]);
    a.set_readback_metadata(Some(ReadbackMetadata::with_rows(Nulls(vec![
        true, false, true, false, true,
    ]))));
    let mut b = column(&gpu, VertexFormat::Uint32, &[1u32, 2, 3, 4, 5]);
    b.set_readback_metadata(Some(ReadbackMetadata::new("plain".to_owned())));
    let batch = gpudata::table::GpuRecordBatch::new([("a", a), ("b", b)]).unwrap();
    let table = GpuTable::from_batches(vec![batch], Vec::<(String, GpuConstant)>::new()).unwrap();
    let mask = GpuMask::from_bools(&gpu, &[true, true, false, true, true]).unwrap();
    let filtered = table.filter(&gpu, &mask).unwrap();
    let batch = &filtered.batches()[0];
    let a = batch.column("a").unwrap();
    assert_eq!(
        a.readback_metadata_as::<Nulls>(),
        Some(&Nulls(vec![true, false, false, true]))
    );
    assert!(batch.column("b").unwrap().readback_metadata().is_none());
    assert_eq!((batch.null_count(), filtered.null_count()), (2, 2));
}
