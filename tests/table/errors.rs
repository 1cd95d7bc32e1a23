//! The error catalogue (`docs/ERRORS.md`): every [`TableError`] variant triggered through the
//! public API on lavapipe, pinned by variant and by its whole rendered message.

use gpudata::GpuConstant;
use gpudata::data::{DEFAULT_USAGE, MetricsPolicy};
use gpudata::table::{
    AppendableOptions, GpuColumn, GpuRecordBatch, GpuSchemaField, GpuTable, GpuVector, PackOptions,
    RecordBatchOptions, RenderOptions, SegmentOptions, SegmentSpec, SegmentedLayout,
};
use gpudata::{
    BufferLayout, DataError, Gpu, GpuData, GpuDataDescriptor, GpuError, GpuStruct, GpuVectorFormat,
    LayoutError, StepMode, StructLayout, TableError, TypedGpuData, VertexFormat,
};

use crate::fixtures::{
    appendable_positions, assert_error, batch, batches_table, buffer_vector, build_floats, bytes,
    colors, column, float_vector, gpu, limited_gpu, list_descriptor, misaligned_floats,
    narrow_segment_layout, no_constants, paths_table, positions, strided_positions, texts_batch,
    untyped, vector_table, vertex_only_data, with_fields, with_layouts, zeroed_list,
};

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
struct Point {
    position: [f32; 2],
    weight: f32,
}

// ---------------------------------------------------------------------------------------------
// Vectors

/// Spec vector v64: a buffer vector needs a format or a row byte length.
#[test]
fn vector_requires_row_byte_length() {
    let gpu = gpu();
    let descriptor = GpuDataDescriptor {
        metrics: MetricsPolicy::Vector,
        length: 4,
        ..Default::default()
    };
    let error = buffer_vector(&gpu, "raw", 32, descriptor).unwrap_err();
    assert_error(
        &error,
        TableError::VectorRequiresRowByteLength {
            vector: "raw".into(),
        },
        "gpu vector `raw` requires a format or an explicit row byte length (or byte stride)",
    );
}

#[test]
fn vector_requires_byte_layout() {
    let error = GpuVector::from_data("empty", Vec::new()).unwrap_err();
    assert_error(
        &error,
        TableError::VectorRequiresByteLayout {
            vector: "empty".into(),
        },
        "gpu vector `empty` requires a format or explicit byte layout metadata: it has no chunk, format, byte stride or row byte length",
    );
}

#[test]
fn chunk_format() {
    let gpu = gpu();
    let unorm = colors(&gpu, 1, 0);
    let uint = column(&gpu, VertexFormat::Uint8x4, &[[1u8, 2, 3, 4]]);
    let error = GpuVector::from_data("colors", vec![unorm, uint]).unwrap_err();
    assert_error(
        &error,
        TableError::ChunkFormat {
            vector: "colors".into(),
            chunk: 1,
            expected: "unorm8x4".into(),
            found: "uint8x4".into(),
        },
        "gpu vector `colors` data chunks must share the declared format: expected unorm8x4, chunk 1 has uint8x4",
    );
}

#[test]
fn chunk_mismatch() {
    let gpu = gpu();
    let mut vector = GpuVector::from_data("colors", vec![colors(&gpu, 1, 0)]).unwrap();
    let uint = column(&gpu, VertexFormat::Uint8x4, &[[1u8, 2, 3, 4]]);
    let error = vector.add_data(uint).unwrap_err();
    assert_error(
        &error,
        TableError::ChunkMismatch {
            vector: "colors".into(),
            operation: "add_data",
            what: "formats",
            expected: "unorm8x4".into(),
            found: "uint8x4".into(),
        },
        "gpu vector `colors`: add_data requires matching formats: expected unorm8x4, found uint8x4",
    );
}

#[test]
fn not_appendable() {
    let gpu = gpu();
    let mut vector = GpuVector::from_data("p", vec![positions(&gpu, 1, 0.0)]).unwrap();
    let error = vector.append_chunk(positions(&gpu, 1, 0.0)).unwrap_err();
    assert_error(
        &error,
        TableError::NotAppendable {
            vector: "p".into(),
            operation: "append_chunk",
        },
        "gpu vector `p`: append_chunk requires appendable vector storage",
    );
}

#[test]
fn single_buffer_chunk() {
    let gpu = gpu();
    let mut vector = GpuVector::appendable(
        "positions",
        &gpu,
        VertexFormat::Float32x2,
        AppendableOptions::reallocating(),
    )
    .unwrap();
    let error = vector.append_chunk(positions(&gpu, 1, 0.0)).unwrap_err();
    assert_error(
        &error,
        TableError::SingleBufferChunk {
            vector: "positions".into(),
            operation: "append_chunk",
        },
        "gpu vector `positions` grows in one reallocated buffer: append_chunk cannot add a chunk; append bytes, values or rows instead",
    );
    let error = vector.add_data(positions(&gpu, 1, 0.0)).unwrap_err();
    assert!(
        matches!(
            error,
            TableError::SingleBufferChunk {
                operation: "add_data",
                ..
            }
        ),
        "{error:?}"
    );
}

#[test]
fn list_append() {
    let gpu = gpu();
    let error = GpuVector::appendable(
        "paths",
        &gpu,
        GpuVectorFormat::VertexList(VertexFormat::Uint32),
        AppendableOptions::reallocating(),
    )
    .unwrap_err();
    assert_error(
        &error,
        TableError::ListAppend {
            vector: "paths".into(),
            format: "vertex-list<uint32>".into(),
        },
        "gpu vector `paths` of list format vertex-list<uint32> cannot grow from bytes or rows: append gpu data chunks that carry their value lengths",
    );
}

#[test]
fn partial_rows() {
    let gpu = gpu();
    let mut vector = appendable_positions(&gpu);
    let error = vector.append_bytes(&[0; 5]).unwrap_err();
    assert_error(
        &error,
        TableError::PartialRows {
            vector: "positions".into(),
            byte_length: 5,
            byte_stride: 8,
            row_byte_length: 8,
        },
        "gpu vector `positions`: byte length 5 is not a whole number of rows of 8-byte stride (the last row may omit padding after its 8 bytes)",
    );
}

#[test]
fn exactly_one_chunk() {
    let gpu = gpu();
    let vector = GpuVector::from_data(
        "chunked",
        vec![positions(&gpu, 1, 0.0), positions(&gpu, 1, 0.0)],
    )
    .unwrap();
    let error = vector.single_chunk().unwrap_err();
    assert_error(
        &error,
        TableError::ExactlyOneChunk {
            vector: "chunked".into(),
            found: 2,
        },
        "gpu vector `chunked` requires exactly one gpu data chunk, found 2",
    );
}

#[test]
fn vector_different_buffer() {
    let gpu = gpu();
    let mut a = GpuVector::from_data("a", vec![positions(&gpu, 2, 0.0)]).unwrap();
    let mut b = GpuVector::from_data("b", vec![positions(&gpu, 2, 0.0)]).unwrap();
    let error = a.transfer_ownership_to(&mut b).unwrap_err();
    assert_error(
        &error,
        TableError::VectorDifferentBuffer {
            from_vector: "a".into(),
            to_vector: "b".into(),
        },
        "gpu vector ownership can only be transferred to the same buffer: the first chunks of `a` and `b` do not share one",
    );
}

#[test]
fn not_struct_data() {
    let gpu = gpu();
    let error = GpuVector::from_struct_data("rows", positions(&gpu, 2, 0.0), None).unwrap_err();
    assert_error(
        &error,
        TableError::NotStructData {
            vector: "rows".into(),
            found: "float32x2".into(),
        },
        "gpu vector `rows` needs struct-formatted gpu data, found float32x2",
    );
}

#[test]
fn format_mismatch() {
    let gpu = gpu();
    let mut floats = GpuVector::appendable(
        "f",
        &gpu,
        VertexFormat::Float32,
        AppendableOptions::reallocating(),
    )
    .unwrap();
    let rows = [Point {
        position: [1.0, 2.0],
        weight: 3.0,
    }];
    let error = floats.append_rows(&rows).unwrap_err();
    assert_error(
        &error,
        TableError::FormatMismatch {
            column: "f".into(),
            expected: "struct<packed>{position: float32x2, weight: float32}".into(),
            found: "float32".into(),
        },
        "column `f` has format float32, expected struct<packed>{position: float32x2, weight: float32}",
    );
}

#[test]
fn overflow() {
    let error = SegmentedLayout::new(
        4,
        [SegmentSpec::new("a", VertexFormat::Float32x4, u64::MAX)],
    )
    .unwrap_err();
    let TableError::Overflow { what } = &error else {
        panic!("expected Overflow, found {error:?}");
    };
    assert_eq!(error.to_string(), format!("{what} overflows u64"));
    assert_eq!(error.to_string(), "the segment of column `a` overflows u64");
}

// ---------------------------------------------------------------------------------------------
// Constants

#[test]
fn constant_scalar_type() {
    let error = GpuConstant::new(VertexFormat::Float32, &[1u32]).unwrap_err();
    assert_error(
        &error,
        DataError::ConstantScalarType {
            format: VertexFormat::Float32,
            expected: "f32",
            found: "u32",
        },
        "gpu constant format float32 requires f32 components, received u32",
    );
}

#[test]
fn constant_byte_length() {
    let error = GpuConstant::new(VertexFormat::Float32x2, &[1.0f32]).unwrap_err();
    assert_error(
        &error,
        DataError::ConstantByteLength {
            format: VertexFormat::Float32x2,
            expected: 8,
            found: 4,
        },
        "gpu constant format float32x2 requires exactly 8 bytes, received 4",
    );
}

/// A count of 1 reads in the singular: `1 byte`.
#[test]
fn constant_byte_length_of_one_byte_is_singular() {
    let error = GpuConstant::new(VertexFormat::Uint8, &[1u8, 2]).unwrap_err();
    assert_error(
        &error,
        DataError::ConstantByteLength {
            format: VertexFormat::Uint8,
            expected: 1,
            found: 2,
        },
        "gpu constant format uint8 requires exactly 1 byte, received 2",
    );
}

#[test]
fn wgsl_name() {
    let binding =
        gpudata::table::ConstantBinding::new(&gpu(), "2d", GpuConstant::from_value(1.0f32))
            .unwrap();
    let error = binding.wgsl(0, 0).unwrap_err();
    assert_error(
        &error,
        TableError::Wgsl(gpudata::error::WgslError::InvalidName { name: "2d".into() }),
        "`2d` is not a valid WGSL identifier: expected ASCII letters, digits and `_`, not starting with a digit or `__`, and not a WGSL keyword",
    );
}

// ---------------------------------------------------------------------------------------------
// Record batches

#[test]
fn duplicate_column() {
    let gpu = gpu();
    let error = GpuRecordBatch::new([
        ("positions", positions(&gpu, 2, 0.0)),
        ("positions", positions(&gpu, 2, 0.0)),
    ])
    .unwrap_err();
    assert_error(
        &error,
        TableError::DuplicateColumn {
            column: "positions".into(),
        },
        "column `positions` appears twice",
    );
}

#[test]
fn batch_row_count() {
    let gpu = gpu();
    let error = GpuRecordBatch::new([
        ("positions", positions(&gpu, 2, 0.0)),
        ("colors", colors(&gpu, 1, 0)),
    ])
    .unwrap_err();
    assert_error(
        &error,
        TableError::BatchRowCount {
            column: "colors".into(),
            expected: 2,
            found: 1,
        },
        "gpu record batch requires matching gpu data row counts: expected 2 rows, column `colors` has 1",
    );
}

#[test]
fn batch_layout_reserved_indices() {
    let gpu = gpu();
    let error = with_layouts(
        vec![("positions", positions(&gpu, 2, 0.0))],
        vec![BufferLayout::single("indices", VertexFormat::Uint32, 4)],
    )
    .unwrap_err();
    assert_error(
        &error,
        TableError::BatchLayoutReservedIndices,
        "gpu record batch buffer layout cannot include reserved index column `indices`",
    );
}

#[test]
fn batch_layout_missing_data() {
    let gpu = gpu();
    let error = with_layouts(
        vec![("positions", positions(&gpu, 2, 0.0))],
        vec![BufferLayout::single("normals", VertexFormat::Float32x3, 12)],
    )
    .unwrap_err();
    assert_error(
        &error,
        TableError::BatchLayoutMissingData {
            layout: "normals".into(),
        },
        "gpu record batch buffer layout references missing gpu data `normals`",
    );
}

#[test]
fn no_layout_format() {
    let gpu = gpu();
    let error = GpuRecordBatch::new([("raw", untyped(&gpu))]).unwrap_err();
    assert_error(
        &error,
        TableError::NoLayoutFormat {
            owner: "gpu record batch",
            column: "raw".into(),
        },
        "gpu record batch cannot synthesize a buffer layout for `raw` without a format",
    );
}

#[test]
fn list_layout() {
    let gpu = gpu();
    let error = GpuRecordBatch::new([(
        "paths",
        zeroed_list(
            &gpu,
            GpuVectorFormat::VertexList(VertexFormat::Uint32),
            2,
            3,
        ),
    )])
    .unwrap_err();
    assert_error(
        &error,
        TableError::ListLayout {
            owner: "gpu record batch",
            list: "vertex-list",
            column: "paths".into(),
        },
        "gpu record batch cannot synthesize a generic buffer layout for vertex-list column `paths`: give it an explicit layout",
    );
}

#[test]
fn schema_missing_data() {
    let gpu = gpu();
    let error = with_fields(
        [("positions", positions(&gpu, 2, 0.0))],
        vec![GpuSchemaField::new(
            "weights",
            Some(VertexFormat::Float32.into()),
        )],
    )
    .unwrap_err();
    assert_error(
        &error,
        TableError::SchemaMissingData {
            column: "weights".into(),
        },
        "gpu record batch schema references missing gpu data `weights`",
    );
}

#[test]
fn no_field_format() {
    let gpu = gpu();
    let error = with_layouts(vec![("raw", untyped(&gpu))], Vec::new()).unwrap_err();
    assert_error(
        &error,
        TableError::NoFieldFormat {
            owner: "gpu record batch",
            column: "raw".into(),
        },
        "gpu record batch cannot synthesize a schema field for `raw` without a format or buffer layout",
    );
}

// ---------------------------------------------------------------------------------------------
// Tables

#[test]
fn no_batches() {
    let error = GpuTable::from_batches(Vec::new(), no_constants()).unwrap_err();
    assert_error(
        &error,
        TableError::NoBatches,
        "gpu table batches constructor requires at least one gpu record batch",
    );
}

// The layouts as `BatchLayoutsDiffer` prints them: name, format and stride.
const POSITIONS: &str = "`positions` (float32x2, stride 8)";
const COLORS: &str = "`colors` (unorm8x4, stride 4)";

#[test]
fn batch_layouts_differ() {
    let gpu = gpu();
    let narrow = GpuRecordBatch::new([("positions", positions(&gpu, 2, 0.0))]).unwrap();
    let error =
        GpuTable::from_batches(vec![batch(&gpu, 2, 0.0), narrow], no_constants()).unwrap_err();
    assert_error(
        &error,
        TableError::BatchLayoutsDiffer {
            operation: "from_batches",
            batch: 1,
            expected: format!("[{POSITIONS}, {COLORS}]"),
            found: format!("[{POSITIONS}]"),
        },
        &format!(
            "gpu table from_batches requires matching buffer layouts: batch 1 has [{POSITIONS}], expected [{POSITIONS}, {COLORS}]"
        ),
    );
}

#[test]
fn batch_layouts_differ_interleaved() {
    // Interleaved layouts print their attributes, and a stated step mode: here the batch added
    // to the table differs from the first only by stepping per instance.
    let gpu = gpu();
    let rows = [Point {
        position: [1.0, 2.0],
        weight: 3.0,
    }];
    let points = || {
        TypedGpuData::from_rows(&gpu, &rows, DEFAULT_USAGE)
            .unwrap()
            .into_data()
    };
    let mut table = GpuTable::from_batches(
        vec![GpuRecordBatch::new([("points", points())]).unwrap()],
        no_constants(),
    )
    .unwrap();
    let mut layout = table.buffer_layouts()[0].clone();
    layout.step_mode = Some(StepMode::Instance);
    let instanced = with_layouts(vec![("points", points())], vec![layout]).unwrap();
    let error = table.add_batch(instanced).unwrap_err();
    let vertex = "`points` (position: float32x2 at 0, weight: float32 at 8, stride 12)";
    let instance =
        "`points` (position: float32x2 at 0, weight: float32 at 8, stride 12, step mode instance)";
    assert_error(
        &error,
        TableError::BatchLayoutsDiffer {
            operation: "add_batch",
            batch: 1,
            expected: format!("[{vertex}]"),
            found: format!("[{instance}]"),
        },
        &format!(
            "gpu table add_batch requires matching buffer layouts: batch 1 has [{instance}], expected [{vertex}]"
        ),
    );
}

#[test]
fn batch_schema_differs() {
    let gpu = gpu();
    let retyped = with_fields(
        [
            ("positions", positions(&gpu, 2, 0.0)),
            ("colors", colors(&gpu, 2, 0)),
        ],
        vec![
            GpuSchemaField::new("positions", Some(VertexFormat::Float32x2.into())),
            GpuSchemaField::new("colors", Some(VertexFormat::Uint8x4.into())),
        ],
    )
    .unwrap();
    let error =
        GpuTable::from_batches(vec![batch(&gpu, 2, 0.0), retyped], no_constants()).unwrap_err();
    assert_error(
        &error,
        TableError::BatchSchemaDiffers {
            operation: "from_batches",
            batch: 1,
            expected: "[positions: float32x2, colors: unorm8x4]".into(),
            found: "[positions: float32x2, colors: uint8x4]".into(),
        },
        "gpu table from_batches requires matching selected schema fields: batch 1 has [positions: float32x2, colors: uint8x4], expected [positions: float32x2, colors: unorm8x4]",
    );
}

#[test]
fn constant_conflicts() {
    let gpu = gpu();
    let error = GpuTable::from_batches(
        vec![batch(&gpu, 2, 0.0)],
        [("positions", GpuConstant::from_value(1.0f32))],
    )
    .unwrap_err();
    assert_error(
        &error,
        TableError::ConstantConflicts {
            column: "positions".into(),
        },
        "gpu table constant column `positions` conflicts with batch gpu data",
    );
}

#[test]
fn reserved_indices_constant() {
    let gpu = gpu();
    let error = GpuTable::from_batches(
        vec![batch(&gpu, 2, 0.0)],
        [("indices", GpuConstant::from_value(1u32))],
    )
    .unwrap_err();
    assert_error(
        &error,
        TableError::ReservedIndicesConstant,
        "gpu table reserved index column `indices` cannot be constant",
    );
}

#[test]
fn column_name_mismatch() {
    let gpu = gpu();
    let error = GpuTable::from_columns(
        [(
            "pos",
            GpuColumn::from(float_vector(&gpu, "positions", &[2])),
        )],
        RecordBatchOptions::default(),
    )
    .unwrap_err();
    assert_error(
        &error,
        TableError::ColumnNameMismatch {
            key: "pos".into(),
            name: "positions".into(),
        },
        "gpu table column name `pos` does not match gpu vector name `positions`",
    );
}

#[test]
fn incompatible_chunks() {
    let gpu = gpu();
    let packed = positions(&gpu, 2, 0.0);
    let mixed = GpuVector::from_data("positions", vec![packed, strided_positions(&gpu)]).unwrap();
    let error = GpuTable::from_vectors([mixed], RecordBatchOptions::default()).unwrap_err();
    let TableError::IncompatibleChunks {
        column,
        chunk: 1,
        expected,
        found,
    } = &error
    else {
        panic!("expected IncompatibleChunks, found {error:?}");
    };
    assert_eq!(column, "positions");
    assert_eq!(
        error.to_string(),
        format!(
            "gpu table vectors constructor requires compatible gpu data chunks for `positions`: chunk 1 has {found}, expected {expected}"
        )
    );
    assert!(found.contains("12") && !expected.contains("12"), "{error}");
}

#[test]
fn chunk_count_mismatch() {
    let gpu = gpu();
    let error = GpuTable::from_vectors(
        [
            float_vector(&gpu, "a", &[2, 2]),
            float_vector(&gpu, "b", &[4]),
        ],
        RecordBatchOptions::default(),
    )
    .unwrap_err();
    assert_error(
        &error,
        TableError::ChunkCountMismatch {
            column: "b".into(),
            expected: 2,
            found: 1,
        },
        "gpu table vectors constructor requires matching gpu data chunk counts: expected 2, `b` has 1",
    );
}

#[test]
fn source_info_needs_one_chunk() {
    let gpu = gpu();
    let error = GpuTable::from_vectors(
        [float_vector(&gpu, "a", &[1, 1])],
        RecordBatchOptions {
            null_count: 1,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_error(
        &error,
        TableError::SourceInfoNeedsOneChunk { chunks: 2 },
        "gpu table vectors constructor supports source info and null count only with one gpu data chunk, found 2",
    );
}

#[test]
fn batch_row_mismatch() {
    let gpu = gpu();
    let error = GpuTable::from_vectors(
        [
            float_vector(&gpu, "a", &[2, 2]),
            float_vector(&gpu, "b", &[2, 1]),
        ],
        RecordBatchOptions::default(),
    )
    .unwrap_err();
    assert_error(
        &error,
        TableError::BatchRowMismatch {
            batch: 1,
            column: "b".into(),
            expected: 2,
            found: 1,
        },
        "gpu table vectors constructor requires matching row counts in batch 1: expected 2, `b` has 1",
    );
}

#[test]
fn num_rows_required() {
    let error = GpuTable::from_columns(
        [("radius", GpuColumn::from(GpuConstant::from_value(2.5f32)))],
        RecordBatchOptions::default(),
    )
    .unwrap_err();
    assert_error(
        &error,
        TableError::NumRowsRequired,
        "gpu table columns constructor requires num_rows for an all-constant table",
    );
}

#[test]
fn num_rows_mismatch() {
    let gpu = gpu();
    let error = GpuTable::from_vectors(
        [float_vector(&gpu, "a", &[2, 1])],
        RecordBatchOptions {
            num_rows: Some(4),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_error(
        &error,
        TableError::NumRowsMismatch {
            expected: 3,
            found: 4,
        },
        "gpu table columns constructor num_rows must match varying columns: expected 3, found 4",
    );
}

#[test]
fn missing_batch_data() {
    // Batch 0 carries a column `b` outside its schema and layouts; batch 1 matches its schema
    // and layouts but has no `b`.
    let gpu = gpu();
    let options = || RecordBatchOptions {
        buffer_layouts: Some(vec![BufferLayout::single("a", VertexFormat::Float32, 4)]),
        fields: Some(vec![GpuSchemaField::new(
            "a",
            Some(VertexFormat::Float32.into()),
        )]),
        ..Default::default()
    };
    let floats = |gpu: &Gpu| column(gpu, VertexFormat::Float32, &[1.0f32, 2.0]);
    let first = GpuRecordBatch::with_options([("a", floats(&gpu)), ("b", floats(&gpu))], options())
        .unwrap();
    let second = GpuRecordBatch::with_options([("a", floats(&gpu))], options()).unwrap();
    let error = GpuTable::from_batches(vec![first, second], no_constants()).unwrap_err();
    assert_error(
        &error,
        TableError::MissingBatchData {
            column: "b".into(),
            batch: 1,
        },
        "gpu table batch 1 is missing gpu data `b`",
    );
}

#[test]
fn unknown_column() {
    let gpu = gpu();
    let mut table = GpuTable::from_batches(vec![batch(&gpu, 2, 0.0)], no_constants()).unwrap();
    let error = table.select(&["colors", "nope"]).unwrap_err();
    assert_error(
        &error,
        TableError::UnknownColumn {
            column: "nope".into(),
        },
        "gpu table column `nope` does not exist",
    );
}

#[test]
fn detach_no_data() {
    let gpu = gpu();
    let mut table = GpuTable::from_batches(
        vec![batch(&gpu, 2, 0.0)],
        [("size", GpuConstant::from_value(1.0f32))],
    )
    .unwrap();
    let error = table.detach_vector("size").unwrap_err();
    assert_error(
        &error,
        TableError::DetachNoData {
            column: "size".into(),
        },
        "gpu table detach_vector: column `size` has no gpu data",
    );
}

#[test]
fn batch_range() {
    let gpu = gpu();
    let mut table = batches_table(&gpu, &[0.0, 0.0]);
    let error = table.detach_batches(1..3).unwrap_err();
    assert_error(
        &error,
        TableError::BatchRange {
            first: 1,
            last: 3,
            batches: 2,
        },
        "gpu table detach_batches requires a valid half-open batch range: got 1..3 of 2 batches",
    );
}

fn indices(gpu: &Gpu, descriptor: GpuDataDescriptor, usage: wgpu::BufferUsages) -> GpuData {
    GpuData::from_bytes(
        gpu,
        bytemuck::cast_slice(&[0u32, 1, 0, 1]),
        descriptor,
        usage,
    )
    .unwrap()
}

#[test]
fn pack_indexed() {
    let gpu = gpu();
    let indexed = |gpu: &Gpu| {
        let list = list_descriptor(GpuVectorFormat::VertexList(VertexFormat::Uint32), 2, 2);
        GpuRecordBatch::new([
            ("positions", positions(gpu, 2, 0.0)),
            ("indices", indices(gpu, list, DEFAULT_USAGE)),
        ])
        .unwrap()
    };
    let mut table =
        GpuTable::from_batches(vec![indexed(&gpu), indexed(&gpu)], no_constants()).unwrap();
    let error = table
        .pack_batches(&gpu, PackOptions::default())
        .unwrap_err();
    assert_error(
        &error,
        TableError::PackIndexed,
        "gpu table pack_batches does not support indexed tables",
    );
}

#[test]
fn min_batch_size() {
    let gpu = gpu();
    let mut table = batches_table(&gpu, &[0.0, 0.0]);
    let error = table
        .pack_batches(
            &gpu,
            PackOptions {
                min_batch_size: Some(0),
            },
        )
        .unwrap_err();
    assert_error(
        &error,
        TableError::MinBatchSize { found: 0 },
        "gpu table pack_batches min_batch_size must be a positive number, found 0",
    );
}

#[test]
fn pack_empty_batch() {
    let gpu = gpu();
    let mut table = GpuTable::from_batches(
        vec![GpuRecordBatch::empty(2), GpuRecordBatch::empty(3)],
        [("size", GpuConstant::from_value(1.0f32))],
    )
    .unwrap();
    let error = table
        .pack_batches(&gpu, PackOptions::default())
        .unwrap_err();
    assert_error(
        &error,
        TableError::PackEmptyBatch { batch: 0 },
        "gpu table cannot pack an empty gpu record batch (batch 0 has no columns)",
    );
}

#[test]
fn pack_variable_length() {
    let gpu = gpu();
    let texts = |gpu: &Gpu| {
        let format = GpuVectorFormat::ValueList(VertexFormat::Uint32);
        texts_batch(gpu, zeroed_list(gpu, format, 2, 3))
    };
    let mut table = GpuTable::from_batches(vec![texts(&gpu), texts(&gpu)], no_constants()).unwrap();
    let error = table
        .pack_batches(&gpu, PackOptions::default())
        .unwrap_err();
    assert_error(
        &error,
        TableError::PackVariableLength {
            column: "texts".into(),
        },
        "gpu table pack_batches does not support variable-length gpu data `texts`",
    );
}

// ---------------------------------------------------------------------------------------------
// Segmented layouts and conversions

#[test]
fn copy_range() {
    // A device that binds at most 4 bytes of storage. Long copies are split into runs of rows,
    // but the 8-byte `position` of one interleaved 12-byte row already needs a larger binding.
    let small = limited_gpu("errors_table copy_range", |limits| {
        limits.max_storage_buffer_binding_size = 4;
    });
    let rows = vec![
        Point {
            position: [1.0, 2.0],
            weight: 3.0,
        };
        16
    ];
    let data = TypedGpuData::from_rows(&small, &rows, DEFAULT_USAGE).unwrap();
    let vector = GpuVector::from_struct_data("points", data.into_data(), None).unwrap();
    let table = GpuTable::from_vectors([vector], RecordBatchOptions::default()).unwrap();
    let error = table
        .to_segmented(&small, SegmentOptions::default())
        .unwrap_err();
    let TableError::CopyRange {
        src_offset,
        dst_offset,
        rows,
        row_bytes,
    } = error
    else {
        panic!("expected CopyRange, found {error:?}");
    };
    assert_eq!(rows, 16);
    assert_eq!(
        error.to_string(),
        format!(
            "cannot copy 16 rows of {row_bytes} bytes from byte {src_offset} to byte {dst_offset}: the ranges leave their buffers, or one row exceeds what one storage binding can address"
        )
    );
}

#[test]
fn unsplittable_column() {
    // A column without a format whose layout has no attributes: nothing says where its fields
    // are.
    let gpu = gpu();
    let raw = with_layouts(
        vec![("raw", untyped(&gpu))],
        vec![BufferLayout::single("raw", VertexFormat::Float32x4, 16)],
    )
    .unwrap();
    let table = GpuTable::from_batches(vec![raw], no_constants()).unwrap();
    let error = table
        .to_segmented(&gpu, SegmentOptions::default())
        .unwrap_err();
    assert_error(
        &error,
        TableError::UnsplittableColumn {
            column: "raw".into(),
        },
        "column `raw` has neither a format nor buffer layout attributes: its bytes cannot be split into segments or packed columns",
    );
}

#[test]
fn segment_alignment() {
    let error = SegmentedLayout::new(6, []).unwrap_err();
    assert_error(
        &error,
        TableError::SegmentAlignment { alignment: 6 },
        "segment alignment 6 must be a power of two of at least 4",
    );
}

#[test]
fn segment_stride() {
    let error = narrow_segment_layout().unwrap_err();
    assert_error(
        &error,
        TableError::SegmentStride {
            column: "a".into(),
            byte_stride: 8,
            format: VertexFormat::Float32x3,
        },
        "segment `a` has byte stride 8, smaller than one float32x3 value (12 bytes)",
    );
}

#[test]
fn host_bytes() {
    let gpu = gpu();
    let error = build_floats(&gpu, 2, &[0; 7]).unwrap_err();
    assert_error(
        &error,
        TableError::HostBytes {
            column: "a".into(),
            format: "float32".into(),
            values: 2,
            found: 7,
        },
        "column `a` of float32 needs the bytes of 2 values, found 7 bytes",
    );
}

/// A count of 1 reads in the singular: `1 value`, `1 byte`.
#[test]
fn host_bytes_of_one_value_are_singular() {
    let gpu = gpu();
    let error = build_floats(&gpu, 1, &[0; 1]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "column `a` of float32 needs the bytes of 1 value, found 1 byte"
    );
}

#[test]
fn interleave_list() {
    let gpu = gpu();
    let table = paths_table(&gpu);
    let error = table
        .to_interleaved(&gpu, "rows", StructLayout::Packed, None)
        .unwrap_err();
    assert_error(
        &error,
        TableError::InterleaveList {
            column: "paths".into(),
        },
        "list column `paths` cannot be interleaved into fixed rows",
    );
}

// ---------------------------------------------------------------------------------------------
// Render and storage bindings

#[test]
fn too_many_rows() {
    // A table of constants only can claim any row count; a draw counts rows in a u32.
    let gpu = gpu();
    let rows = 1u64 << 32;
    let table = GpuTable::from_columns(
        [("radius", GpuColumn::from(GpuConstant::from_value(2.5f32)))],
        RecordBatchOptions {
            num_rows: Some(rows),
            ..Default::default()
        },
    )
    .unwrap();
    let bindings = table
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap();
    let target = gpu.device().create_texture(&wgpu::TextureDescriptor {
        label: Some("errors_table target"),
        size: wgpu::Extent3d {
            width: 1,
            height: 1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let mut encoder = gpu
        .device()
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let error = {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("errors_table pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations::default(),
            })],
            ..Default::default()
        });
        bindings.batches()[0]
            .draw_instances(&mut pass, 0..1)
            .unwrap_err()
    };
    assert_error(
        &error,
        TableError::TooManyRows { rows },
        "cannot draw 4294967296 rows: more than one draw can count (u32)",
    );
}

#[test]
fn index_format() {
    let gpu = gpu();
    let floats = column(&gpu, VertexFormat::Float32, &[0.0f32, 1.0]);
    let batch =
        GpuRecordBatch::new([("positions", positions(&gpu, 2, 0.0)), ("indices", floats)]).unwrap();
    let table = GpuTable::from_batches(vec![batch], no_constants()).unwrap();
    let error = table
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap_err();
    assert_error(
        &error,
        TableError::IndexFormat {
            found: "float32".into(),
        },
        "index column `indices` has format float32: expected vertex-list<uint32>, vertex-list<uint16>, uint32 or uint16",
    );
}

#[test]
fn index_layout() {
    let gpu = gpu();
    let strided = indices(
        &gpu,
        GpuDataDescriptor::new(VertexFormat::Uint32, 2).with_byte_stride(8),
        DEFAULT_USAGE | wgpu::BufferUsages::INDEX,
    );
    let batch = GpuRecordBatch::new([("positions", positions(&gpu, 2, 0.0)), ("indices", strided)])
        .unwrap();
    let table = GpuTable::from_batches(vec![batch], no_constants()).unwrap();
    let error = table
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap_err();
    assert_error(
        &error,
        TableError::IndexLayout {
            byte_offset: 0,
            byte_stride: 8,
            index_bytes: 4,
        },
        "index column `indices` at byte offset 0 with byte stride 8: index buffers need packed 4-byte indices at an aligned offset",
    );
}

#[test]
fn storage_misaligned() {
    let gpu = gpu();
    let table = vector_table("w", misaligned_floats(&gpu));
    let error = table.storage_bindings(&gpu).unwrap_err();
    assert_error(
        &error,
        TableError::StorageMisaligned {
            column: "w".into(),
            field: "w".into(),
            byte_offset: 2,
            byte_stride: 4,
            alignment: 4,
        },
        "column `w` field `w` at byte offset 2 with byte stride 4: storage access needs both aligned to 4 bytes",
    );
}

#[test]
fn storage_bases_differ() {
    // Batch 0's uint16 values start at their binding; batch 1's start 2 bytes into theirs.
    let gpu = gpu();
    let at_zero = column(&gpu, VertexFormat::Uint16, &[1u16, 2]);
    let at_two = bytes(
        &gpu,
        &[0, 0, 1, 0, 2, 0, 0, 0],
        GpuDataDescriptor::new(VertexFormat::Uint16, 2).with_byte_offset(2),
    );
    let table = GpuTable::from_batches(
        vec![
            GpuRecordBatch::new([("v", at_zero)]).unwrap(),
            GpuRecordBatch::new([("v", at_two)]).unwrap(),
        ],
        no_constants(),
    )
    .unwrap();
    let storage = table.storage_bindings(&gpu).unwrap();
    let error = storage.wgsl(0, 0).unwrap_err();
    assert_error(
        &error,
        TableError::StorageBasesDiffer { batch: 1 },
        "batch 1 needs other WGSL than batch 0: its columns start elsewhere inside their storage bindings; pack or segment the table, or use each batch's own WGSL",
    );
}

// ---------------------------------------------------------------------------------------------
// Wrapped errors (transparent: the message is the inner error's)

#[test]
fn data() {
    let gpu = gpu();
    let descriptor = GpuDataDescriptor::vector(VertexFormat::Float32x2, 2);
    let error = buffer_vector(&gpu, "p", 4, descriptor).unwrap_err();
    let inner = DataError::OutOfBuffer {
        what: "gpu data",
        byte_offset: 0,
        byte_end: 16,
        buffer_size: 4,
    };
    assert_error(&error, TableError::Data(inner.clone()), &inner.to_string());
}

#[test]
fn gpu_wrapped() {
    let gpu = gpu();
    let table = vector_table("v", vertex_only_data(&gpu));
    let error = table
        .to_segmented(&gpu, SegmentOptions::default())
        .unwrap_err();
    let inner = GpuError::MissingUsage {
        operation: "copy gpu data out",
        required: wgpu::BufferUsages::COPY_SRC,
        found: wgpu::BufferUsages::VERTEX,
    };
    assert_error(&error, TableError::Gpu(inner.clone()), &inner.to_string());
}

#[test]
fn gpu_through_data() {
    // A device error met inside the data layer (DataError::Gpu) reaches the table as
    // TableError::Gpu, the same variant as a device error met by the table itself.
    let gpu = Gpu::headless().unwrap_or_else(|e| panic!("{e}"));
    gpu.device().destroy();
    gpu.wait_idle().unwrap();
    assert!(gpu.is_lost());
    let points = [Point {
        position: [1.0, 2.0],
        weight: 3.0,
    }];
    let error = GpuVector::from_rows(&gpu, "points", &points, None).unwrap_err();
    let inner = GpuError::DeviceLost {
        operation: "create a buffer",
    };
    assert_error(&error, TableError::Gpu(inner.clone()), &inner.to_string());
    assert_eq!(
        TableError::from(DataError::Gpu(inner.clone())),
        TableError::Gpu(inner)
    );
}

#[test]
fn layout() {
    let gpu = gpu();
    let pairs = with_layouts(
        vec![(
            "pairs",
            column(&gpu, VertexFormat::Unorm8x2, &[[1u8, 2], [3, 4]]),
        )],
        vec![BufferLayout::single("pairs", VertexFormat::Unorm8x2, 2)],
    )
    .unwrap();
    let table = GpuTable::from_batches(vec![pairs], no_constants()).unwrap();
    let error = table
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap_err();
    let inner = LayoutError::MisalignedStride {
        layout: "pairs".into(),
        byte_stride: 2,
    };
    assert_error(
        &error,
        TableError::Layout(inner.clone()),
        &inner.to_string(),
    );
}

#[test]
fn gpu_refused_copy_submission() {
    // A table copy whose source buffer was destroyed after the table was built: wgpu refuses
    // the block-copy kernel's bind group (the copy of an aligned block runs as a kernel, issue
    // 29), and the error scope around it returns that refusal instead of wgpu's panicking
    // handler (issue 13).
    let gpu = gpu();
    let data = column(&gpu, VertexFormat::Float32, &[1.0f32, 2.0, 3.0, 4.0]);
    let buffer = data.buffer().clone();
    let table = vector_table("v", data);
    buffer.destroy();
    let error = table
        .to_segmented(&gpu, SegmentOptions::default())
        .unwrap_err();
    assert!(
        matches!(
            error,
            TableError::Gpu(GpuError::Validation {
                operation: "bind the kernel's buffers",
                ..
            })
        ),
        "{error:?}"
    );
}
