//! Columns larger than one buffer (issue 17): on a device whose `max_buffer_size` is 1 KiB, a
//! column uploads in chunks of whole rows (each buffer within the limit where one buffer is
//! refused with `BufferTooLarge`), reads back byte for byte, binds chunk by chunk in a compute
//! pass, goes through the operations piece by piece (inputs chunked differently), and builds a
//! table whose batches are the chunks, which filters like the host.

use crate::fixtures::{USAGE, compute_capture};
use crate::support::{self, Rng, small_gpu};
use gpudata::ops::GpuMask;
use gpudata::table::{ChunkOptions, GpuColumn, GpuTable, GpuVector, RecordBatchOptions};
use gpudata::{
    DataError, GpuData, GpuDataDescriptor, GpuError, GpuStruct, GpuVectorFormat, Unorm8x4,
    VertexFormat,
};

/// The most bytes one buffer may hold on [`small_gpu`].
const MAX_BUFFER: u64 = support::SMALL_BUFFER;

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "wgsl-storage")]
struct Point {
    position: [f32; 3],
    color: Unorm8x4,
}

/// Checks that `vector`'s chunks hold whole rows, at most `rows_per_chunk` each, each buffer
/// within the device's limit, and that the spans count the rows in order.
fn check_chunks(vector: &GpuVector, rows: u64, rows_per_chunk: u64) {
    let spans = vector.chunk_spans();
    let expected_chunks = rows.div_ceil(rows_per_chunk).max(1);
    assert_eq!(spans.len() as u64, expected_chunks, "{rows} rows");
    let mut first = 0;
    for (i, span) in spans.iter().enumerate() {
        assert_eq!(span.index, i);
        assert_eq!(span.first_row, first);
        assert_eq!(span.first_value, first);
        let want = (rows - first).min(rows_per_chunk);
        assert_eq!(span.rows, want, "chunk {i} of {rows} rows");
        assert!(span.data.buffer().size() <= MAX_BUFFER);
        first += span.rows;
    }
    assert_eq!(first, rows);
    assert_eq!(vector.length(), rows);
}

#[test]
fn a_column_larger_than_one_buffer_uploads_in_chunks_and_reads_back_byte_for_byte() {
    let gpu = small_gpu();
    let mut rng = Rng::new(170);
    // float32x3 packed: 85 rows (1020 bytes) per chunk.
    let per_chunk = MAX_BUFFER / 12;
    for rows in [
        0,
        1,
        3,
        per_chunk - 1,
        per_chunk,
        per_chunk + 1,
        2 * per_chunk + 1,
        700,
    ] {
        let bytes = rng.bytes(rows as usize * 12);
        let descriptor = GpuDataDescriptor::new(VertexFormat::Float32x3, rows);
        let vector = GpuVector::upload(&gpu, "xyz", &bytes, descriptor.clone(), USAGE).unwrap();
        check_chunks(&vector, rows, per_chunk);
        assert_eq!(vector.read_bytes(&gpu).unwrap(), bytes, "{rows} rows");
        let mut out = vec![0xAA; bytes.len()];
        vector.read_bytes_into(&gpu, &mut out).unwrap();
        assert_eq!(out, bytes);
        if bytes.len() as u64 > MAX_BUFFER {
            // The one-buffer upload is what a chunked column is for.
            assert!(matches!(
                GpuData::from_bytes(&gpu, &bytes, descriptor, USAGE),
                Err(DataError::Gpu(GpuError::BufferTooLarge { .. }))
            ));
        }
    }
}

#[test]
fn strided_rows_keep_their_padding_and_a_short_last_row() {
    let gpu = small_gpu();
    let mut rng = Rng::new(171);
    // 12-byte rows 16 bytes apart, the last row without its padding: 64 rows per chunk.
    for rows in [1u64, 63, 64, 65, 129, 200] {
        let len = (rows - 1) * 16 + 12;
        let bytes = rng.bytes(len as usize);
        let descriptor = GpuDataDescriptor::new(VertexFormat::Float32x3, rows)
            .with_byte_stride(16)
            .with_row_byte_length(12);
        let vector = GpuVector::upload(&gpu, "padded", &bytes, descriptor, USAGE).unwrap();
        check_chunks(&vector, rows, 64);
        assert_eq!(vector.byte_stride(), 16);
        assert_eq!(vector.read_bytes(&gpu).unwrap(), bytes, "{rows} rows");
    }
}

#[test]
fn chunk_options_bound_the_rows_and_bytes_of_each_chunk() {
    let gpu = small_gpu();
    let values: Vec<u32> = (0..1000).collect();
    let bytes_limited = ChunkOptions {
        max_chunk_bytes: Some(402),
        rows_per_chunk: None,
    };
    let vector = GpuVector::upload_values(&gpu, "n", &values, USAGE, bytes_limited).unwrap();
    // 402 bytes round down to 400: 100 rows.
    check_chunks(&vector, 1000, 100);
    let rows_limited = ChunkOptions {
        max_chunk_bytes: Some(1 << 20),
        rows_per_chunk: Some(7),
    };
    let vector = GpuVector::upload_values(&gpu, "n", &values, USAGE, rows_limited).unwrap();
    // The device's limit still applies above the option's bytes; 7 rows are the tighter bound.
    check_chunks(&vector, 1000, 7);
    assert_eq!(
        vector.read_bytes(&gpu).unwrap(),
        bytemuck::cast_slice::<u32, u8>(&values)
    );
    assert_eq!(rows_limited.rows_per_chunk_for(&gpu, "n", 4).unwrap(), 7);
    assert_eq!(
        ChunkOptions::default()
            .rows_per_chunk_for(&gpu, "n", 12)
            .unwrap(),
        85
    );
}

#[test]
fn struct_rows_of_any_count_upload_in_chunks_from_several_threads() {
    let gpu = small_gpu();
    std::thread::scope(|scope| {
        for t in 0..4u64 {
            let gpu = gpu.clone();
            scope.spawn(move || {
                let mut rng = Rng::new(172 + t);
                for rows in [0usize, 1, 63, 64, 65, 300] {
                    let points: Vec<Point> = (0..rows)
                        .map(|_| Point {
                            position: [rng.f32_in(9.0), rng.f32_in(9.0), rng.f32_in(9.0)],
                            color: Unorm8x4(rng.array()),
                        })
                        .collect();
                    let vector = GpuVector::from_rows(&gpu, "points", &points, None).unwrap();
                    // 16-byte rows: 64 per 1 KiB chunk.
                    check_chunks(&vector, rows as u64, 64);
                    let layout = vector.buffer_layout().unwrap();
                    assert_eq!(layout.byte_stride, Some(16));
                    let mut host = Vec::new();
                    for p in &points {
                        host.extend_from_slice(bytemuck::cast_slice::<f32, u8>(&p.position));
                        host.extend_from_slice(&p.color.0);
                    }
                    assert_eq!(vector.read_bytes(&gpu).unwrap(), host, "{rows} rows");
                }
            });
        }
    });
}

#[test]
fn chunks_bind_one_by_one_with_their_first_row() {
    let gpu = small_gpu();
    let values: Vec<u32> = (0..600).map(|i| i * 7 + 1).collect();
    let vector =
        GpuVector::upload_values(&gpu, "n", &values, USAGE, ChunkOptions::default()).unwrap();
    assert_eq!(vector.chunks().len(), 3);
    let mut got = Vec::new();
    for span in vector.chunk_spans() {
        // Each chunk is its own storage binding; the row index adds the chunk's first row.
        let wgsl = format!(
            "const FIRST: u32 = {first}u;
             @group(0) @binding(0) var<storage, read> values: array<u32>;
             @group(0) @binding(1) var<storage, read_write> out: array<u32>;
             @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
                 if (id.x < {rows}u) {{ out[id.x] = values[id.x] * 3u + FIRST + id.x; }}
             }}",
            first = span.first_row,
            rows = span.rows,
        );
        let layout = vec![wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }];
        let entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(span.data.storage_binding(&gpu).unwrap()),
        }];
        let out = compute_capture(&gpu, &wgsl, layout, entries, 1, span.rows, span.rows as u32);
        got.extend(out);
    }
    let want: Vec<u32> = values
        .iter()
        .enumerate()
        .map(|(i, v)| v * 3 + i as u32)
        .collect();
    assert_eq!(got, want);
}

#[test]
fn operations_run_piece_by_piece_over_differently_chunked_inputs() {
    let gpu = small_gpu();
    let mut rng = Rng::new(173);
    let n = 500;
    let a: Vec<f32> = (0..n).map(|_| rng.f32_in(100.0)).collect();
    let b: Vec<f32> = (0..n).map(|_| rng.f32_in(100.0)).collect();
    // a: 256 rows per chunk; b: 90 rows per chunk.
    let a_vec = GpuVector::upload_values(&gpu, "a", &a, USAGE, ChunkOptions::default()).unwrap();
    let b_options = ChunkOptions {
        rows_per_chunk: Some(90),
        ..ChunkOptions::default()
    };
    let b_vec = GpuVector::upload_values(&gpu, "b", &b, USAGE, b_options).unwrap();
    let mut pieces = Vec::new();
    let sum = GpuVector::map_chunks(&[&a_vec, &b_vec], "sum", |p| {
        pieces.push((p[0].first, p[1].first, p[0].rows));
        assert_eq!(p[0].rows, p[1].rows);
        gpudata::ops::add(&gpu, p[0].view().unwrap(), p[1].view().unwrap())
    })
    .unwrap();
    // Pieces end at 90, 180, 256, 270, 360, 450, 500: each a range inside one chunk of each.
    assert_eq!(
        pieces,
        [
            (0, 0, 90),
            (90, 0, 90),
            (180, 0, 76),
            (0, 76, 14),
            (14, 0, 90),
            (104, 0, 90),
            (194, 0, 50)
        ]
    );
    assert_eq!(sum.length(), n as u64);
    assert_eq!(sum.format(), a_vec.format());
    let got: Vec<f32> = bytemuck::pod_collect_to_vec(&sum.read_bytes(&gpu).unwrap());
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(got, want);

    // A field of struct rows, piece by piece: the points' x plus a.
    let points: Vec<Point> = (0..n)
        .map(|i| Point {
            position: [i as f32, 0.5, 0.25],
            color: Unorm8x4([1, 2, 3, 4]),
        })
        .collect();
    let rows = GpuVector::from_rows(&gpu, "points", &points, None).unwrap();
    let shifted = GpuVector::map_chunks(&[&rows, &a_vec], "shifted", |p| {
        let position = p[0].child("position").unwrap();
        gpudata::ops::add(&gpu, position, p[1].view().unwrap())
    })
    .unwrap();
    let got: Vec<f32> = bytemuck::pod_collect_to_vec(&shifted.read_bytes(&gpu).unwrap());
    let want: Vec<f32> = (0..n)
        .flat_map(|i| [i as f32 + a[i], 0.5 + a[i], 0.25 + a[i]])
        .collect();
    assert_eq!(got, want);

    // An empty column gives one empty piece.
    let empty =
        GpuVector::upload_values::<f32>(&gpu, "e", &[], USAGE, ChunkOptions::default()).unwrap();
    let mut calls = 0;
    let out = GpuVector::map_chunks(&[&empty], "copy", |p| {
        calls += 1;
        assert_eq!(p[0].rows, 0);
        GpuData::from_slice::<f32>(&gpu, VertexFormat::Float32, &[], USAGE)
    })
    .unwrap();
    assert_eq!((calls, out.length(), out.chunks().len()), (1, 0, 1));
}

#[test]
fn chunked_columns_with_shared_boundaries_make_a_table_that_filters_like_the_host() {
    let gpu = small_gpu();
    let mut rng = Rng::new(174);
    let n = 400usize;
    let xy: Vec<[f32; 2]> = (0..n).map(|_| [rng.f32_in(5.0), rng.f32_in(5.0)]).collect();
    let kind: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
    // The tighter of the two columns' limits (8-byte rows: 128 per chunk) for both.
    let options = ChunkOptions::default();
    let shared = ChunkOptions {
        rows_per_chunk: Some(
            options
                .rows_per_chunk_for(&gpu, "xy", 8)
                .unwrap()
                .min(options.rows_per_chunk_for(&gpu, "kind", 4).unwrap()),
        ),
        ..options
    };
    let xy_vec = GpuVector::upload_values(&gpu, "xy", &xy, USAGE, shared).unwrap();
    let kind_vec = GpuVector::upload_values(&gpu, "kind", &kind, USAGE, shared).unwrap();
    let table = GpuTable::from_columns(
        [
            ("xy", GpuColumn::from(xy_vec)),
            ("kind", GpuColumn::from(kind_vec)),
        ],
        RecordBatchOptions::default(),
    )
    .unwrap();
    assert_eq!(table.num_rows(), n as u64);
    assert_eq!(table.batches().len(), 4);
    let keep: Vec<bool> = (0..n).map(|_| rng.below(3) == 0).collect();
    let mask = GpuMask::from_bools(&gpu, &keep).unwrap();
    let filtered = table.filter(&gpu, &mask).unwrap();
    let kept = |v: &[u8], width: usize| -> Vec<u8> {
        v.chunks(width)
            .zip(&keep)
            .filter(|(_, k)| **k)
            .flat_map(|(r, _)| r.to_vec())
            .collect()
    };
    let xy_got = filtered.vector("xy").unwrap().read_bytes(&gpu).unwrap();
    assert_eq!(xy_got, kept(bytemuck::cast_slice(&xy), 8));
    let kind_got = filtered.vector("kind").unwrap().read_bytes(&gpu).unwrap();
    assert_eq!(kind_got, kept(bytemuck::cast_slice(&kind), 4));
    // The table's vectors are the chunked columns again.
    let whole = table.vector("kind").unwrap();
    assert_eq!(whole.chunks().len(), 4);
    assert_eq!(
        whole.read_bytes(&gpu).unwrap(),
        bytemuck::cast_slice::<u32, u8>(&kind)
    );
}

#[test]
fn chunked_uploads_and_operations_refuse_what_chunks_cannot_hold() {
    use gpudata::table::{ChunkMapError, TableError};
    let gpu = small_gpu();
    let list = GpuDataDescriptor {
        format: Some(GpuVectorFormat::VertexList(VertexFormat::Float32).into()),
        length: 2,
        value_length: Some(4),
        ..GpuDataDescriptor::new(VertexFormat::Float32, 2)
    };
    let error = GpuVector::upload(&gpu, "l", &[0; 16], list, USAGE).unwrap_err();
    assert_eq!(
        error,
        TableError::ChunkedList {
            vector: "l".into(),
            format: "vertex-list<float32>".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu vector `l`: chunks need one value per row, found format vertex-list<float32> (list rows cannot be cut into chunks)"
    );

    let offset = GpuDataDescriptor::new(VertexFormat::Float32, 2).with_byte_offset(4);
    let error = GpuVector::upload(&gpu, "o", &[0; 12], offset, USAGE).unwrap_err();
    assert_eq!(
        error.to_string(),
        "gpu vector `o`: a chunked upload needs rows from byte 0, found byte offset 4"
    );

    let zero = ChunkOptions {
        rows_per_chunk: Some(0),
        ..ChunkOptions::default()
    };
    let error = GpuVector::upload_values(&gpu, "z", &[1.0f32], USAGE, zero).unwrap_err();
    assert_eq!(error, TableError::ChunkRows { vector: "z".into() });
    assert_eq!(
        error.to_string(),
        "gpu vector `z`: rows per chunk must be at least 1, found 0"
    );

    let wide = GpuDataDescriptor::new(VertexFormat::Float32, 1).with_byte_stride(2048);
    let error = GpuVector::upload(&gpu, "w", &[0; 4], wide, USAGE).unwrap_err();
    assert_eq!(
        error.to_string(),
        "gpu vector `w`: a row of byte stride 2048 does not fit a chunk of at most 1024 bytes"
    );

    let three =
        GpuVector::upload_values(&gpu, "three", &[1.0f32; 3], USAGE, ChunkOptions::default())
            .unwrap();
    let two = GpuVector::upload_values(&gpu, "two", &[1.0f32; 2], USAGE, ChunkOptions::default())
        .unwrap();
    let error = GpuVector::map_chunks(&[&three, &two], "sum", |p| {
        gpudata::ops::add(&gpu, p[0].view().unwrap(), p[1].view().unwrap())
    })
    .unwrap_err();
    assert!(matches!(
        &error,
        ChunkMapError::Table(TableError::MapLength {
            expected: 3,
            found: 2,
            chunks: 1,
            ..
        })
    ));
    assert_eq!(
        error.to_string(),
        "map_chunks: gpu vector `two` has 2 rows in 1 chunk, expected 3 rows in at least one chunk"
    );

    // The operation's error names the piece it failed on.
    let small = ChunkOptions {
        rows_per_chunk: Some(2),
        ..ChunkOptions::default()
    };
    let split = GpuVector::upload_values(&gpu, "split", &[1.0f32; 3], USAGE, small).unwrap();
    let mut calls = 0;
    let error = GpuVector::map_chunks(&[&split], "bad", |_| {
        calls += 1;
        if calls == 2 {
            return Err(GpuError::ReadbackLength {
                expected: 1,
                found: 2,
            });
        }
        Ok(GpuData::from_slice::<f32>(&gpu, VertexFormat::Float32, &[0.0; 2], USAGE).unwrap())
    })
    .unwrap_err();
    assert!(matches!(
        error,
        ChunkMapError::Piece {
            first_row: 2,
            rows: 1,
            ..
        }
    ));
    assert_eq!(
        error.to_string(),
        "gpu vector `bad`: the operation failed on 1 row from row 2: cannot read back into a slice of 2 bytes: the data holds 1 byte"
    );

    let mut short = vec![0; 8];
    let error = three.read_bytes_into(&gpu, &mut short).unwrap_err();
    assert_eq!(
        error,
        TableError::Gpu(GpuError::ReadbackLength {
            expected: 12,
            found: 8
        })
    );
}

#[test]
fn element_wise_operations_take_chunked_columns_as_one_buffer_data() {
    use gpudata::GpuConstant;
    use gpudata::ops::{ArithmeticOp, Literal, MathOp};
    use gpudata::table::{ChunkMapError, ChunkOperand};
    let gpu = small_gpu();
    let full = support::gpu();
    let mut rng = Rng::new(174);
    let n: usize = 600;
    let a: Vec<f32> = (0..n).map(|_| rng.f32_in(100.0)).collect();
    let b: Vec<f32> = (0..n).map(|_| rng.f32_in(100.0) + 101.0).collect();
    let ints: Vec<i32> = (0..n).map(|i| i as i32 * 7 - 2000).collect();
    // a: 256 rows per chunk; b: 90; the integers 256.
    let a_vec = GpuVector::upload_values(&gpu, "a", &a, USAGE, ChunkOptions::default()).unwrap();
    let b_options = ChunkOptions {
        rows_per_chunk: Some(90),
        ..ChunkOptions::default()
    };
    let b_vec = GpuVector::upload_values(&gpu, "b", &b, USAGE, b_options).unwrap();
    let i_vec = GpuVector::upload_values(&gpu, "i", &ints, USAGE, ChunkOptions::default()).unwrap();
    // The oracle: the same operation on one buffer of the same values on a full-size device.
    let one = |values: &[f32]| {
        GpuData::from_slice::<f32>(&full, VertexFormat::Float32, values, USAGE).unwrap()
    };
    let (a_one, b_one) = (one(&a), one(&b));
    for op in [
        ArithmeticOp::Add,
        ArithmeticOp::Subtract,
        ArithmeticOp::Multiply,
        ArithmeticOp::Divide,
    ] {
        let chunked =
            GpuVector::arithmetic(&gpu, op, &[(&a_vec).into(), (&b_vec).into(), 0.5.into()])
                .unwrap();
        assert!(chunked.chunks().len() > 1);
        assert_eq!(chunked.name(), op.as_str());
        let oracle = gpudata::ops::arithmetic(
            &full,
            op,
            &[
                a_one.as_view().unwrap().into(),
                b_one.as_view().unwrap().into(),
                0.5.into(),
            ],
        )
        .unwrap();
        assert_eq!(
            chunked.read_bytes(&gpu).unwrap(),
            oracle.read_bytes(&full).unwrap(),
            "{op}"
        );
    }
    // A literal keeps the integers' type, as on one buffer.
    let shifted = GpuVector::arithmetic(
        &gpu,
        ArithmeticOp::Add,
        &[(&i_vec).into(), ChunkOperand::Literal(Literal::scalar(3.0))],
    )
    .unwrap();
    assert_eq!(shifted.format(), i_vec.format());
    let got: Vec<i32> = bytemuck::pod_collect_to_vec(&shifted.read_bytes(&gpu).unwrap());
    assert_eq!(got, ints.iter().map(|v| v + 3).collect::<Vec<_>>());
    for op in [
        MathOp::Sqrt,
        MathOp::Abs,
        MathOp::Sin,
        MathOp::Exp,
        MathOp::Log,
    ] {
        let chunked = GpuVector::math(&gpu, op, &[(&b_vec).into()]).unwrap();
        let oracle = gpudata::ops::math(&full, op, &[b_one.as_view().unwrap().into()]).unwrap();
        assert_eq!(
            chunked.read_bytes(&gpu).unwrap(),
            oracle.read_bytes(&full).unwrap(),
            "{op}"
        );
    }
    let powered = GpuVector::math(
        &gpu,
        MathOp::Pow,
        &[
            (&a_vec).into(),
            ChunkOperand::Constant(GpuConstant::from_value(2.0f32)),
        ],
    )
    .unwrap();
    let oracle = gpudata::ops::pow(
        &full,
        a_one.as_view().unwrap(),
        GpuConstant::from_value(2.0f32),
    )
    .unwrap();
    assert_eq!(
        powered.read_bytes(&gpu).unwrap(),
        oracle.read_bytes(&full).unwrap()
    );
    // Refusals: no column at all; columns of other lengths.
    let none = GpuVector::arithmetic(&gpu, ArithmeticOp::Add, &[1.0.into(), 2.0.into()]);
    assert!(
        matches!(
            none,
            Err(ChunkMapError::Piece {
                source: gpudata::ops::OpError::NoGpuInput { op: "add" },
                ..
            })
        ),
        "{none:?}"
    );
    let short =
        GpuVector::upload_values(&gpu, "s", &a[..10], USAGE, ChunkOptions::default()).unwrap();
    let mismatch =
        GpuVector::arithmetic(&gpu, ArithmeticOp::Add, &[(&a_vec).into(), (&short).into()]);
    assert!(
        matches!(mismatch, Err(ChunkMapError::Table(_))),
        "{mismatch:?}"
    );
}

#[test]
fn one_operand_list_runs_on_chunked_columns_and_on_the_cpu_reference() {
    use gpudata::ops::cpu::{self, HostInput, HostOperand};
    use gpudata::ops::{
        ArithmeticOp, Comparand, GpuMask, Literal, OperandOf, PredicateOf, piecewise,
    };
    let gpu = small_gpu();
    let mut rng = Rng::new(175);
    let n = 700usize;
    let ints: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32 >> 8).collect();
    let small: Vec<u8> = (0..n).map(|_| rng.below(256) as u8).collect();
    let keep: Vec<bool> = (0..n).map(|_| rng.below(2) == 0).collect();
    let rows = |rows| ChunkOptions {
        rows_per_chunk: Some(rows),
        ..ChunkOptions::default()
    };
    let vectors = [
        GpuVector::upload_values(&gpu, "i", &ints, USAGE, rows(256)).unwrap(),
        GpuVector::upload_values(&gpu, "u", &small, USAGE, rows(100)).unwrap(),
    ];
    let hosts = [
        HostInput::new(bytemuck::cast_slice(&ints), VertexFormat::Sint32, n as u64),
        HostInput::new(&small, VertexFormat::Uint8, n as u64),
    ];
    // One operand list over column indices, mapped to chunked vectors and to host columns.
    let list: [OperandOf<usize>; 3] = [
        OperandOf::Data(0),
        OperandOf::Data(1),
        Literal::scalar(3.0).into(),
    ];
    for op in [
        ArithmeticOp::Add,
        ArithmeticOp::Subtract,
        ArithmeticOp::Multiply,
        ArithmeticOp::Divide,
    ] {
        let chunked: Vec<_> = list.iter().map(|o| o.map_data(|&i| &vectors[i])).collect();
        let host: Vec<HostOperand<'_>> = list.iter().map(|o| o.map_data(|&i| hosts[i])).collect();
        let got = piecewise::arithmetic(&gpu, op, &chunked).unwrap();
        let expected = cpu::arithmetic(op, &host).unwrap();
        assert!(got.chunks().len() > 1);
        assert_eq!(got.element_format(), Some(expected.format()));
        assert_eq!(got.read_bytes(&gpu).unwrap(), expected.bytes(), "{op}");
    }
    // One predicate over column indices and a mask, mapped the same way.
    let predicate = PredicateOf::<usize, ()>::greater(0, Comparand::Column(1))
        .or(PredicateOf::less(1, 20u32))
        .and(PredicateOf::Mask(()));
    let gpu_mask = GpuMask::from_bools(&gpu, &keep).unwrap();
    let got = piecewise::mask(&gpu, &predicate.map(|&i| &vectors[i], |_| &gpu_mask)).unwrap();
    let expected = cpu::mask(&predicate.map(|&i| hosts[i], |_| &keep[..])).unwrap();
    assert_eq!(got.len(), n as u64);
    assert_eq!(got.read(&gpu).unwrap(), expected);
}
