//! `GpuTable::sort_by` against a stable sort on the host: keys with ties across batches (so
//! later keys decide and stability shows), both orders, every kind of column moved with its
//! rows (packed formats, sub-word formats, struct rows, a constant), batches of every size
//! (empty among them) keeping their row counts; and the refusals.

use crate::filter::{Point, indexed_table, points};
use crate::fixtures::{column, gpu, limited_gpu};
use crate::support::Rng;
use gpudata::GpuConstant;
use gpudata::table::{
    GpuColumn, GpuTable, GpuVector, RecordBatchOptions, TableError, TableSortKey,
};
use gpudata::{Gpu, GpuData, GpuStruct, VertexFormat};

/// Each column's rows over all batches, packed, by name.
type HostRows = Vec<(&'static str, Vec<Vec<u8>>)>;

/// `id` (uint32, 7 values), `score` (float32, 5 values with -0, +0 and NaN), `kind` (uint8),
/// `point` (16-byte struct rows) and a constant `tint`, in batches of `sizes` rows; and each
/// column's rows over all batches, packed, on the host.
fn table(gpu: &Gpu, rng: &mut Rng, sizes: &[usize]) -> (GpuTable, HostRows) {
    let scores = [1.5f32, -0.0, 0.0, f32::NAN, -2.0];
    let mut host: HostRows = ["id", "score", "kind", "point"]
        .iter()
        .map(|n| (*n, Vec::new()))
        .collect();
    let (mut ids, mut score_data, mut kinds, mut rows) = (vec![], vec![], vec![], vec![]);
    for &n in sizes {
        let id: Vec<u32> = (0..n).map(|_| rng.below(7) as u32).collect();
        let score: Vec<f32> = (0..n).map(|_| scores[rng.below(5) as usize]).collect();
        let kind = rng.bytes(n);
        let point = points(rng, n);
        host[0]
            .1
            .extend(id.iter().map(|v| v.to_le_bytes().to_vec()));
        host[1]
            .1
            .extend(score.iter().map(|v| v.to_le_bytes().to_vec()));
        host[2].1.extend(kind.iter().map(|v| vec![*v]));
        host[3].1.extend(point.iter().map(|p| {
            let mut row = vec![0u8; Point::FORMAT.byte_stride() as usize];
            p.encode_row(&mut row);
            row
        }));
        ids.push(column(gpu, VertexFormat::Uint32, &id));
        score_data.push(column(gpu, VertexFormat::Float32, &score));
        kinds.push(column(gpu, VertexFormat::Uint8, &kind));
        rows.push(
            GpuVector::from_rows(gpu, "point", &point, None)
                .unwrap()
                .into_chunks()
                .remove(0),
        );
    }
    let vector =
        |name: &str, data: Vec<GpuData>| GpuColumn::from(GpuVector::from_data(name, data).unwrap());
    let table = GpuTable::from_columns(
        [
            ("id", vector("id", ids)),
            ("score", vector("score", score_data)),
            ("kind", vector("kind", kinds)),
            ("point", vector("point", rows)),
            (
                "tint",
                GpuConstant::new(VertexFormat::Unorm8x4, &[1u8, 2, 3, 4])
                    .unwrap()
                    .into(),
            ),
        ],
        RecordBatchOptions::default(),
    )
    .unwrap();
    (table, host)
}

/// The rows of column `name` over all batches, packed.
fn rows_of(gpu: &Gpu, table: &GpuTable, name: &str) -> Vec<Vec<u8>> {
    let mut rows = Vec::new();
    for batch in table.batches() {
        let data = batch.column(name).unwrap();
        let len = data.row_byte_length() as usize;
        let bytes = data.read_packed_rows(gpu, 0, data.length()).unwrap();
        rows.extend(bytes.chunks(len.max(1)).map(<[u8]>::to_vec));
    }
    rows
}

/// The word `bits` sorts as in `ops::sort`'s order of float32 keys.
fn float_order(bits: u32) -> u32 {
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

#[test]
fn sorting_a_table_equals_a_stable_sort_on_the_host() {
    sorts_like_the_host(&gpu(), 48, [5, 0, 300, 1000, 1]);
}

/// The same on a device whose storage bindings hold 48 KiB (offsets aligned to 256 bytes):
/// 23,006 rows, every key and column past one binding, sorted and gathered in parts.
#[test]
fn sorting_a_table_past_one_binding() {
    let small = limited_gpu("table sort in parts", |limits| {
        limits.max_storage_buffer_binding_size = 48 << 10;
        limits.min_storage_buffer_offset_alignment =
            limits.min_storage_buffer_offset_alignment.max(256);
    });
    sorts_like_the_host(&small, 50, [5, 0, 9000, 14_000, 1]);
}

/// `table` of batches of `sizes` rows sorted by `id` then `score` (both orders), and by `kind`
/// descending then `id`, equals a stable sort on the host.
fn sorts_like_the_host<const B: usize>(gpu: &Gpu, seed: u64, sizes: [usize; B]) {
    let gpu = gpu.clone();
    let mut rng = Rng::new(seed);
    let (table, host) = table(&gpu, &mut rng, &sizes);
    let word = |row: &[u8]| u32::from_le_bytes([row[0], row[1], row[2], row[3]]);
    for descending in [false, true] {
        let score_key = if descending {
            TableSortKey::descending("score")
        } else {
            TableSortKey::ascending("score")
        };
        let sorted = table
            .sort_by(&gpu, &[TableSortKey::ascending("id"), score_key])
            .unwrap();
        let batch_rows: Vec<u64> = sorted.batches().iter().map(|b| b.num_rows()).collect();
        assert_eq!(batch_rows, sizes.map(|n| n as u64));
        let mut order: Vec<usize> = (0..host[0].1.len()).collect();
        order.sort_by_key(|&r| {
            let score = float_order(word(&host[1].1[r]));
            (word(&host[0].1[r]), if descending { !score } else { score })
        });
        for (name, rows) in &host {
            let expected: Vec<Vec<u8>> = order.iter().map(|&r| rows[r].clone()).collect();
            assert_eq!(
                rows_of(&gpu, &sorted, name),
                expected,
                "{name}, descending {descending}"
            );
        }
        assert!(sorted.constant("tint").is_some());
        assert_eq!(sorted.num_rows(), table.num_rows());
        // A `uint8` key, descending, ties by `id`: widened to `uint32` on the GPU.
        let by_kind = table
            .sort_by(
                &gpu,
                &[
                    TableSortKey::descending("kind"),
                    TableSortKey::ascending("id"),
                ],
            )
            .unwrap();
        let mut order: Vec<usize> = (0..host[0].1.len()).collect();
        order.sort_by_key(|&r| (std::cmp::Reverse(host[2].1[r][0]), word(&host[0].1[r])));
        let expected: Vec<Vec<u8>> = order.iter().map(|&r| host[3].1[r].clone()).collect();
        assert_eq!(rows_of(&gpu, &by_kind, "point"), expected);
    }
}

#[test]
fn sorting_refuses_what_it_cannot_move() {
    let gpu = gpu();
    let mut rng = Rng::new(49);
    let (table, _) = table(&gpu, &mut rng, &[4, 6]);
    // Struct rows (moved as `uint32x4` words) are no one-lane key.
    let error = table
        .sort_by(&gpu, &[TableSortKey::ascending("point")])
        .unwrap_err();
    assert!(
        matches!(
            &error,
            TableError::Sort {
                source: gpudata::OpError::UnsupportedFormat {
                    format: VertexFormat::Uint32x4,
                    ..
                }
            }
        ),
        "{error:?}"
    );
    assert!(error.to_string().starts_with("sort_by: "), "{error}");
    assert_eq!(
        table
            .sort_by(&gpu, &[TableSortKey::ascending("nothing")])
            .unwrap_err(),
        TableError::UnknownColumn {
            column: "nothing".to_owned()
        }
    );
    assert!(matches!(
        table.sort_by(&gpu, &[]).unwrap_err(),
        TableError::Sort {
            source: gpudata::OpError::NoInputs { .. }
        }
    ));
    let (indexed, _) = indexed_table(&gpu, &mut rng, &[(10, 12)], VertexFormat::Uint32);
    assert_eq!(
        indexed
            .sort_by(&gpu, &[TableSortKey::ascending("value")])
            .unwrap_err(),
        TableError::SortIndexed
    );
    // List rows have no fixed place to move.
    let names = gpudata::GpuDataDescriptor {
        format: Some(gpudata::GpuVectorFormat::ValueList(VertexFormat::Uint8).into()),
        length: 4,
        value_length: Some(10),
        ..Default::default()
    };
    let batch = gpudata::table::GpuRecordBatch::with_options(
        [
            ("id", column(&gpu, VertexFormat::Uint32, &[3u32, 1, 2, 0])),
            ("names", crate::fixtures::bytes(&gpu, &[7u8; 12], names)),
        ],
        RecordBatchOptions {
            buffer_layouts: Some(Vec::new()),
            ..RecordBatchOptions::default()
        },
    )
    .unwrap();
    let listed = GpuTable::from_batches(vec![batch], Vec::<(String, GpuConstant)>::new()).unwrap();
    let error = listed
        .sort_by(&gpu, &[TableSortKey::ascending("id")])
        .unwrap_err();
    assert_eq!(
        error,
        TableError::SortColumn {
            column: "names".to_owned(),
            format: "value-list<uint8>".to_owned()
        }
    );
    assert!(
        error
            .to_string()
            .contains("`names` has value-list<uint8> rows"),
        "{error}"
    );
}
