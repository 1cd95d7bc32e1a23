//! The segmented layout and the conversions between packed columns, interleaved rows and
//! segmented tables: segment metadata and alignment, host uploads, GPU copies byte for byte
//! (block copies and the strided byte kernel: odd strides, unaligned offsets, sources without
//! `STORAGE` usage), `pack_batches` over padded and unaligned rows, and storage bindings of
//! unaligned columns.

use crate::fixtures::{
    Small, alive, assert_error_contains, build_floats, bytes, column, compute_capture, field_bytes,
    gpu, misaligned_floats, narrow_segment_layout, paths_table, vector_table, vertex_only_data,
    with_layouts,
};
use gpudata::GpuConstant;
use gpudata::table::{
    GpuTable, PackOptions, RenderOptions, SegmentOptions, SegmentSpec, SegmentStride,
    SegmentedLayout, SegmentedTableBuilder,
};
use gpudata::{
    BufferHandle, DataError, GpuData, GpuDataDescriptor, GpuError, GpuStruct, GpuVectorFormat,
    LayoutError, StructLayout, TableError, VertexFormat,
};

fn small_rows(n: usize, seed: u8) -> Vec<Small> {
    (0..n)
        .map(|i| {
            let i8 = i as u8;
            Small {
                pair: [seed.wrapping_add(i8), 200 - i8],
                half: 1000 + i as u16 * 3,
                tag: seed ^ i8,
                value: i as f32 * 1.25 - 2.0,
            }
        })
        .collect()
}

fn pairs(n: usize, seed: u8) -> Vec<[u8; 2]> {
    (0..n)
        .map(|i| [seed.wrapping_add(i as u8 * 3), seed ^ i as u8])
        .collect()
}

#[test]
fn layout_places_segments_at_aligned_offsets() {
    let layout = SegmentedLayout::new(
        256,
        [
            SegmentSpec::new("a", VertexFormat::Unorm8x2, 3),
            SegmentSpec::new("b", VertexFormat::Float32x3, 3),
            SegmentSpec {
                byte_stride: Some(16),
                ..SegmentSpec::new("c", VertexFormat::Float32x3, 3)
            },
            SegmentSpec {
                value_length: Some(5),
                ..SegmentSpec::new("d", GpuVectorFormat::VertexList(VertexFormat::Uint16), 3)
            },
        ],
    )
    .unwrap();
    let placed: Vec<(&str, u64, u64, u64)> = layout
        .segments()
        .iter()
        .map(|s| {
            (
                s.name(),
                s.byte_offset(),
                s.byte_stride(),
                s.reserved_byte_length(),
            )
        })
        .collect();
    assert_eq!(
        placed,
        [
            ("a", 0, 2, 8),
            ("b", 256, 12, 36),
            ("c", 512, 16, 48),
            ("d", 768, 2, 12),
        ]
    );
    assert_eq!(layout.byte_length(), 780);
    assert_eq!(layout.alignment(), 256);
    let d = layout.segment("d").unwrap();
    assert_eq!(
        (d.length(), d.value_length(), d.row_byte_length()),
        (3, 5, 2)
    );
    assert!(
        layout
            .describe()
            .contains("d: vertex-list<uint16>, 3 rows (5 values), bytes 768..780, stride 2")
    );

    for bad in [0, 2, 3, 6, 100] {
        assert_eq!(
            SegmentedLayout::new(bad, []).unwrap_err(),
            TableError::SegmentAlignment { alignment: bad }
        );
    }
    let error = SegmentedLayout::new(
        4,
        [
            SegmentSpec::new("a", VertexFormat::Float32, 1),
            SegmentSpec::new("a", VertexFormat::Float32, 1),
        ],
    )
    .unwrap_err();
    assert_eq!(error, TableError::DuplicateColumn { column: "a".into() });
    let error = narrow_segment_layout().unwrap_err();
    assert_error_contains(
        &error,
        TableError::SegmentStride {
            column: "a".into(),
            byte_stride: 8,
            format: VertexFormat::Float32x3,
        },
        "smaller than one float32x3 value (12 bytes)",
    );
    let error = SegmentedLayout::new(
        4,
        [SegmentSpec {
            value_length: Some(2),
            ..SegmentSpec::new("a", VertexFormat::Float32, 1)
        }],
    )
    .unwrap_err();
    assert!(
        matches!(
            error,
            TableError::Data(DataError::ValueLengthMismatch { .. })
        ),
        "{error:?}"
    );
    let error = SegmentedLayout::new(
        4,
        [SegmentSpec::new("a", VertexFormat::Float32x4, u64::MAX)],
    )
    .unwrap_err();
    assert!(matches!(error, TableError::Overflow { .. }), "{error:?}");
}

#[test]
fn builder_uploads_columns_into_one_allocation() {
    let gpu = gpu();
    let a = pairs(3, 7);
    let b: Vec<[f32; 3]> = vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]];
    let c: Vec<u16> = vec![11, 22, 33];
    let table = SegmentedTableBuilder::new()
        .column("a", VertexFormat::Unorm8x2, bytemuck::cast_slice(&a))
        .column("b", VertexFormat::Float32x3, bytemuck::cast_slice(&b))
        .column("c", VertexFormat::Uint16, bytemuck::cast_slice(&c))
        .constant("k", GpuConstant::from_value(5u32))
        .build(&gpu)
        .unwrap();
    let alignment = SegmentedLayout::device_alignment(&gpu);
    assert_eq!(table.table().num_rows(), 3);
    assert_eq!(table.table().num_cols(), 4);
    for (name, expected) in [
        ("a", bytemuck::cast_slice::<[u8; 2], u8>(&a).to_vec()),
        ("b", bytemuck::cast_slice::<[f32; 3], u8>(&b).to_vec()),
        ("c", bytemuck::cast_slice::<u16, u8>(&c).to_vec()),
    ] {
        let segment = table.segment(name).unwrap();
        assert_eq!(segment.byte_offset() % alignment, 0);
        let binding = table.segment_binding(name).unwrap();
        assert_eq!(binding.offset, segment.byte_offset());
        assert_eq!(
            binding.size.map(u64::from),
            Some(segment.reserved_byte_length())
        );
        let data = table.segment_data(name).unwrap();
        assert_eq!(
            data.buffer(),
            table.buffer(),
            "every segment lives in one buffer"
        );
        assert!(!data.owns_buffer());
        assert_eq!(data.read_bytes(&gpu).unwrap(), expected, "segment {name}");
    }
    // Packed 2-byte rows cannot be vertex buffers; vertex strides can.
    let error = table
        .table()
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap_err();
    assert!(
        matches!(
            error,
            TableError::Layout(LayoutError::MisalignedStride { byte_stride: 2, .. })
        ),
        "{error:?}"
    );
    let vertex = SegmentedTableBuilder::new()
        .column("a", VertexFormat::Unorm8x2, bytemuck::cast_slice(&a))
        .column("c", VertexFormat::Uint16, bytemuck::cast_slice(&c))
        .stride(SegmentStride::Vertex)
        .build(&gpu)
        .unwrap();
    assert_eq!(vertex.segment("a").unwrap().byte_stride(), 4);
    let bindings = vertex
        .table()
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap();
    assert_eq!(bindings.vertex_layout().buffers().len(), 2);
    let a_data = vertex.segment_data("a").unwrap();
    let values = a_data.as_view().unwrap().read_packed_bytes(&gpu).unwrap();
    assert_eq!(values, bytemuck::cast_slice::<[u8; 2], u8>(&a));

    // Host bytes must be whole values, and columns must agree on rows.
    let error = build_floats(&gpu, 2, &[0; 7]).unwrap_err();
    assert_eq!(
        error,
        TableError::HostBytes {
            column: "a".into(),
            format: "float32".into(),
            values: 2,
            found: 7
        }
    );
    let error = SegmentedTableBuilder::new()
        .column("a", VertexFormat::Float32, &[0u8; 8])
        .column("b", VertexFormat::Float32, &[0u8; 12])
        .build(&gpu)
        .unwrap_err();
    assert!(
        matches!(error, TableError::BatchRowMismatch { .. }),
        "{error:?}"
    );
    // Constants only: the builder's row count.
    let constants = SegmentedTableBuilder::new()
        .constant("k", GpuConstant::from_value(1.0f32))
        .num_rows(9)
        .build(&gpu)
        .unwrap();
    assert_eq!(constants.table().num_rows(), 9);

    // The allocation is the table's: destroy frees it.
    let survivor = table.segment_data("b").unwrap().share();
    table.destroy();
    assert!(!alive(&gpu, &survivor));
}

/// Two batches of odd row counts: a packed `unorm8x2` column (2-byte rows, so the second
/// batch lands at an unaligned offset) and interleaved rows of a packed struct with 1- and
/// 2-byte fields.
fn odd_table(gpu: &gpudata::Gpu) -> (GpuTable, Vec<Small>, Vec<[u8; 2]>) {
    let rows = [small_rows(3, 10), small_rows(2, 50)];
    let p = [pairs(3, 1), pairs(2, 9)];
    let batches = (0..2)
        .map(|i| {
            let small =
                gpudata::TypedGpuData::from_rows(gpu, &rows[i], crate::fixtures::USAGE).unwrap();
            with_layouts(
                [
                    ("pairs", column(gpu, VertexFormat::Unorm8x2, &p[i])),
                    ("small", small.into_data()),
                ],
                vec![
                    gpudata::BufferLayout::single("pairs", VertexFormat::Unorm8x2, 2),
                    Small::FORMAT.buffer_layout("small", None),
                ],
            )
            .unwrap()
        })
        .collect();
    let table = GpuTable::from_batches(batches, [("k", GpuConstant::from_value(3.0f32))]).unwrap();
    (table, rows.concat(), p.concat())
}

#[test]
fn conversions_move_every_byte_on_the_gpu() {
    let gpu = gpu();
    let (table, rows, p) = odd_table(&gpu);
    assert_eq!(table.num_rows(), 5);

    // Segmented: interleaved rows split into one segment per field; batches concatenated.
    let segmented = table.to_segmented(&gpu, SegmentOptions::default()).unwrap();
    let names: Vec<&str> = segmented
        .layout()
        .segments()
        .iter()
        .map(|s| s.name())
        .collect();
    assert_eq!(names, ["pairs", "pair", "half", "tag", "value"]);
    assert_eq!(
        segmented
            .segment_data("pairs")
            .unwrap()
            .read_bytes(&gpu)
            .unwrap(),
        bytemuck::cast_slice::<[u8; 2], u8>(&p)
    );
    for field in ["pair", "half", "tag", "value"] {
        assert_eq!(
            segmented
                .segment_data(field)
                .unwrap()
                .read_bytes(&gpu)
                .unwrap(),
            field_bytes(&rows, field),
            "segment {field}"
        );
    }
    assert_eq!(segmented.table().constant("k"), table.constant("k"));

    // Packed: one buffer per field.
    let packed = table.to_packed(&gpu, SegmentOptions::default()).unwrap();
    assert_eq!(packed.batches().len(), 1);
    for field in ["pair", "half", "tag", "value"] {
        let data = packed.batches()[0].column(field).unwrap();
        assert!(data.owns_buffer());
        assert_eq!(
            data.read_bytes(&gpu).unwrap(),
            field_bytes(&rows, field),
            "column {field}"
        );
    }

    // Interleaved again: the segments of `Small`'s fields back into `Small` rows.
    let (mut only_small, _, _) = odd_table(&gpu);
    only_small.select(&["small", "k"]).unwrap();
    let back = only_small
        .to_segmented(&gpu, SegmentOptions::default())
        .unwrap();
    let interleaved = back
        .to_interleaved(&gpu, "small", StructLayout::Packed, None)
        .unwrap();
    assert_eq!(interleaved.constant("k"), table.constant("k"));
    let data = interleaved.batches()[0].column("small").unwrap();
    assert_eq!(data.struct_format(), Some(Small::FORMAT));
    assert_eq!(
        data.read_bytes(&gpu).unwrap(),
        gpudata::record::encode_rows_to_vec(&rows)[..data.byte_length() as usize]
    );
    let typed = gpudata::TypedGpuData::<Small>::try_from_data(data.share()).unwrap();
    assert_eq!(typed.read_rows(&gpu).unwrap(), rows);

    // wgsl-storage rows: other offsets, same values.
    let storage_rows = back
        .to_interleaved(&gpu, "small", StructLayout::WgslStorage, None)
        .unwrap();
    let data = storage_rows.batches()[0].column("small").unwrap();
    assert_eq!(
        data.get_child("value")
            .unwrap()
            .read_packed_bytes(&gpu)
            .unwrap(),
        field_bytes(&rows, "value")
    );
    assert_eq!(
        data.get_child("pair")
            .unwrap()
            .read_packed_bytes(&gpu)
            .unwrap(),
        field_bytes(&rows, "pair")
    );

    // Lists cannot become fixed rows.
    let lists = paths_table(&gpu);
    let error = lists
        .to_interleaved(&gpu, "rows", StructLayout::Packed, None)
        .unwrap_err();
    assert_eq!(
        error,
        TableError::InterleaveList {
            column: "paths".into()
        }
    );
    // ...but they segment with their element counts.
    let segmented_lists = lists.to_segmented(&gpu, SegmentOptions::default()).unwrap();
    let s = segmented_lists.segment("paths").unwrap();
    assert_eq!((s.length(), s.value_length()), (2, 3));
    let packed_lists = lists.to_packed(&gpu, SegmentOptions::default()).unwrap();
    assert_eq!(packed_lists.vector("paths").unwrap().value_length(), 3);
}

#[test]
fn pack_batches_keeps_every_byte_of_padded_and_unaligned_rows() {
    let gpu = gpu();
    let (mut table, rows, p) = odd_table(&gpu);
    let expected_small = {
        // Each batch's rows at full stride; the last row's trailing padding is not part of the
        // packed data's bytes.
        let stride = Small::FORMAT.byte_stride() as usize;
        let mut all = gpudata::record::encode_rows_to_vec(&rows);
        all.truncate((rows.len() - 1) * stride + Small::FORMAT.row_byte_length() as usize);
        all
    };
    table.pack_batches(&gpu, PackOptions::default()).unwrap();
    assert_eq!(table.batches().len(), 1);
    let batch = &table.batches()[0];
    assert_eq!(
        batch.column("pairs").unwrap().read_bytes(&gpu).unwrap(),
        bytemuck::cast_slice::<[u8; 2], u8>(&p)
    );
    assert_eq!(
        batch.column("small").unwrap().read_bytes(&gpu).unwrap(),
        expected_small
    );
    assert_eq!(
        batch.buffer_layouts()[1],
        Small::FORMAT.buffer_layout("small", None)
    );
    assert_eq!(table.constant("k").unwrap().bytes(), &3.0f32.to_le_bytes());
}

#[test]
fn copies_read_unaligned_sources_without_storage_usage() {
    let gpu = gpu();
    // uint16 values at byte offset 2 of a buffer that can only be copied from.
    let values: Vec<u16> = (0..7).map(|i| 0x1111 * (i + 1)).collect();
    let mut raw = vec![0xee, 0xee];
    raw.extend_from_slice(bytemuck::cast_slice(&values));
    raw.resize(raw.len().next_multiple_of(4), 0xee);
    let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("copy source"),
        size: raw.len() as u64,
        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    gpu.queue().write_buffer(&buffer, 0, &raw);
    let data = GpuData::new(
        BufferHandle::Owned(buffer),
        GpuDataDescriptor::new(VertexFormat::Uint16, 7).with_byte_offset(2),
    )
    .unwrap();
    let table = vector_table("v", data);
    let segmented = table.to_segmented(&gpu, SegmentOptions::default()).unwrap();
    assert_eq!(
        segmented
            .segment_data("v")
            .unwrap()
            .read_bytes(&gpu)
            .unwrap(),
        bytemuck::cast_slice::<u16, u8>(&values)
    );
    let vertex = table
        .to_packed(
            &gpu,
            SegmentOptions {
                stride: SegmentStride::Vertex,
            },
        )
        .unwrap();
    let data = vertex.batches()[0].column("v").unwrap();
    assert_eq!(data.byte_stride(), 4);
    assert_eq!(
        data.as_view().unwrap().read_packed_bytes(&gpu).unwrap(),
        bytemuck::cast_slice::<u16, u8>(&values)
    );
    // A source without COPY_SRC cannot be copied.
    let table = vector_table("v", vertex_only_data(&gpu));
    let error = table
        .to_segmented(&gpu, SegmentOptions::default())
        .unwrap_err();
    assert!(
        matches!(error, TableError::Gpu(GpuError::MissingUsage { .. })),
        "{error:?}"
    );
}

#[test]
fn storage_bindings_of_unaligned_columns_rebase_their_rows() {
    let gpu = gpu();
    let values: Vec<f32> = (0..5).map(|i| i as f32 * 2.5).collect();
    let mut raw = vec![0u8; 8];
    raw.extend_from_slice(bytemuck::cast_slice(&values));
    let data = bytes(
        &gpu,
        &raw,
        GpuDataDescriptor::new(VertexFormat::Float32, 5).with_byte_offset(8),
    );
    let table = vector_table("v", data);
    let storage = table.storage_bindings(&gpu).unwrap();
    let column = &storage.batches()[0].columns()[0];
    let alignment = SegmentedLayout::device_alignment(&gpu);
    assert_eq!(column.offset(), 8 - 8 % alignment);
    assert_eq!(column.base(), 8 % alignment);
    let wgsl = storage.wgsl(0, 0).unwrap();
    let shader = format!(
        "{wgsl}
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    if (g.x < 5u) {{
        out[g.x] = v_at(g.x);
    }}
}}
"
    );
    let batch = &storage.batches()[0];
    let words = compute_capture(
        &gpu,
        &shader,
        batch.bind_group_layout_entries(0, wgpu::ShaderStages::COMPUTE),
        batch.bind_group_entries(0),
        1,
        5,
        5,
    );
    let got: Vec<f32> = words.iter().map(|w| f32::from_bits(*w)).collect();
    assert_eq!(got, values);

    // A float32 column at byte offset 2 straddles words: storage access refuses it.
    let table = vector_table("w", misaligned_floats(&gpu));
    let error = table.storage_bindings(&gpu).unwrap_err();
    assert_eq!(
        error,
        TableError::StorageMisaligned {
            column: "w".into(),
            field: "w".into(),
            byte_offset: 2,
            byte_stride: 4,
            alignment: 4
        }
    );
}
