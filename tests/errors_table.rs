//! The error catalogue (`docs/ERRORS.md`): every [`TableError`] variant triggered through the
//! public API on lavapipe, pinned by variant and by its whole rendered message.

mod common;

use gpudata::data::DEFAULT_USAGE;
use gpudata::table::{
    AppendableOptions, ColumnsOptions, DataVectorOptions, DynamicOptions, GpuColumn, GpuConstant,
    GpuDynamicVector, GpuRecordBatch, GpuSchemaField, GpuTable, GpuVector, PackOptions,
    RecordBatchOptions, RenderOptions, SegmentOptions, SegmentSpec, SegmentedLayout,
    VectorDescriptor,
};
use gpudata::{
    BufferHandle, BufferLayout, DataError, Gpu, GpuData, GpuDataDescriptor, GpuError, GpuStruct,
    GpuVectorFormat, LayoutError, StepMode, StructLayout, TableError, TypedGpuData, VertexFormat,
};

use common::gpu;

fn column<P: bytemuck::Pod>(gpu: &Gpu, format: VertexFormat, values: &[P]) -> GpuData {
    GpuData::from_slice(gpu, format, values, DEFAULT_USAGE).unwrap()
}

fn bytes(gpu: &Gpu, bytes: &[u8], descriptor: GpuDataDescriptor) -> GpuData {
    GpuData::from_bytes(gpu, bytes, descriptor, DEFAULT_USAGE).unwrap()
}

fn positions(gpu: &Gpu, rows: usize) -> GpuData {
    column(gpu, VertexFormat::Float32x2, &vec![[0.5f32, 1.5]; rows])
}

fn colors(gpu: &Gpu, rows: usize) -> GpuData {
    column(gpu, VertexFormat::Unorm8x4, &vec![[1u8, 2, 3, 4]; rows])
}

fn batch(gpu: &Gpu, rows: usize) -> GpuRecordBatch {
    GpuRecordBatch::new([
        ("positions", positions(gpu, rows)),
        ("colors", colors(gpu, rows)),
    ])
    .unwrap()
}

fn untyped(gpu: &Gpu) -> GpuData {
    bytes(
        gpu,
        &[0; 32],
        GpuDataDescriptor {
            length: 2,
            byte_stride: Some(16),
            ..Default::default()
        },
    )
}

fn list(gpu: &Gpu, format: GpuVectorFormat) -> GpuData {
    bytes(
        gpu,
        &[0; 12],
        GpuDataDescriptor {
            format: Some(format.into()),
            length: 2,
            value_length: Some(3),
            ..Default::default()
        },
    )
}

fn no_constants() -> Vec<(String, GpuConstant)> {
    Vec::new()
}

fn with_layouts(
    columns: Vec<(&str, GpuData)>,
    layouts: Vec<BufferLayout>,
) -> Result<GpuRecordBatch, TableError> {
    GpuRecordBatch::with_options(
        columns,
        RecordBatchOptions {
            buffer_layouts: Some(layouts),
            ..Default::default()
        },
    )
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
struct Point {
    position: [f32; 2],
    weight: f32,
}

// ---------------------------------------------------------------------------------------------
// Vectors

#[test]
fn vector_requires_row_byte_length() {
    let gpu = gpu();
    let buffer = BufferHandle::Owned(positions(&gpu, 4).buffer().clone());
    let error = GpuVector::from_buffer(
        "raw",
        buffer,
        VectorDescriptor {
            length: 4,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        error,
        TableError::VectorRequiresRowByteLength {
            vector: "raw".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu vector `raw` requires a format or an explicit row byte length (or byte stride)"
    );
}

#[test]
fn vector_requires_byte_layout() {
    let error = GpuVector::from_data("empty", Vec::new()).unwrap_err();
    assert_eq!(
        error,
        TableError::VectorRequiresByteLayout {
            vector: "empty".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu vector `empty` requires a format or explicit byte layout metadata: it has no chunk, format, byte stride or row byte length"
    );
}

#[test]
fn chunk_format() {
    let gpu = gpu();
    let unorm = colors(&gpu, 1);
    let uint = column(&gpu, VertexFormat::Uint8x4, &[[1u8, 2, 3, 4]]);
    let error = GpuVector::from_data("colors", vec![unorm, uint]).unwrap_err();
    assert_eq!(
        error,
        TableError::ChunkFormat {
            vector: "colors".into(),
            chunk: 1,
            expected: "unorm8x4".into(),
            found: "uint8x4".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu vector `colors` data chunks must share the declared format: expected unorm8x4, chunk 1 has uint8x4"
    );
}

#[test]
fn chunk_mismatch() {
    let gpu = gpu();
    let mut vector = GpuVector::from_data("colors", vec![colors(&gpu, 1)]).unwrap();
    let uint = column(&gpu, VertexFormat::Uint8x4, &[[1u8, 2, 3, 4]]);
    let error = vector.add_data(uint).unwrap_err();
    assert_eq!(
        error,
        TableError::ChunkMismatch {
            vector: "colors".into(),
            operation: "add_data",
            what: "formats",
            expected: "unorm8x4".into(),
            found: "uint8x4".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu vector `colors`: add_data requires matching formats: expected unorm8x4, found uint8x4"
    );
}

#[test]
fn not_appendable() {
    let gpu = gpu();
    let mut vector = GpuVector::from_data("p", vec![positions(&gpu, 1)]).unwrap();
    let error = vector.append_chunk(positions(&gpu, 1)).unwrap_err();
    assert_eq!(
        error,
        TableError::NotAppendable {
            vector: "p".into(),
            operation: "append_chunk"
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu vector `p`: append_chunk requires appendable vector storage"
    );
}

#[test]
fn list_append() {
    let gpu = gpu();
    let error = GpuDynamicVector::new(
        &gpu,
        "paths",
        GpuVectorFormat::VertexList(VertexFormat::Uint32),
        DynamicOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        error,
        TableError::ListAppend {
            vector: "paths".into(),
            format: "vertex-list<uint32>".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu vector `paths` of list format vertex-list<uint32> cannot grow from bytes or rows: append gpu data chunks that carry their value lengths"
    );
}

#[test]
fn partial_rows() {
    let gpu = gpu();
    let mut vector = GpuVector::appendable(
        "positions",
        &gpu,
        VertexFormat::Float32x2,
        AppendableOptions::default(),
    )
    .unwrap();
    let error = vector.append_bytes(&[0; 5]).unwrap_err();
    assert_eq!(
        error,
        TableError::PartialRows {
            vector: "positions".into(),
            byte_length: 5,
            byte_stride: 8,
            row_byte_length: 8
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu vector `positions`: byte length 5 is not a whole number of rows of 8-byte stride (the last row may omit padding after its 8 bytes)"
    );
}

#[test]
fn exactly_one_chunk() {
    let gpu = gpu();
    let vector =
        GpuVector::from_data("chunked", vec![positions(&gpu, 1), positions(&gpu, 1)]).unwrap();
    let error = vector.single_chunk().unwrap_err();
    assert_eq!(
        error,
        TableError::ExactlyOneChunk {
            vector: "chunked".into(),
            found: 2
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu vector `chunked` requires exactly one gpu data chunk, found 2"
    );
}

#[test]
fn vector_different_buffer() {
    let gpu = gpu();
    let mut a = GpuVector::from_data("a", vec![positions(&gpu, 2)]).unwrap();
    let mut b = GpuVector::from_data("b", vec![positions(&gpu, 2)]).unwrap();
    let error = a.transfer_ownership_to(&mut b).unwrap_err();
    assert_eq!(
        error,
        TableError::VectorDifferentBuffer {
            from_vector: "a".into(),
            to_vector: "b".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu vector ownership can only be transferred to the same buffer: the first chunks of `a` and `b` do not share one"
    );
}

#[test]
fn not_struct_data() {
    let gpu = gpu();
    let error = GpuVector::from_struct_data("rows", positions(&gpu, 2), None).unwrap_err();
    assert_eq!(
        error,
        TableError::NotStructData {
            vector: "rows".into(),
            found: "float32x2".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu vector `rows` needs struct-formatted gpu data, found float32x2"
    );
}

#[test]
fn format_mismatch() {
    let gpu = gpu();
    let mut floats =
        GpuDynamicVector::new(&gpu, "f", VertexFormat::Float32, DynamicOptions::default()).unwrap();
    let rows = [Point {
        position: [1.0, 2.0],
        weight: 3.0,
    }];
    let error = floats.append_rows(&rows).unwrap_err();
    assert_eq!(
        error,
        TableError::FormatMismatch {
            column: "f".into(),
            expected: "struct<packed>{position: float32x2, weight: float32}".into(),
            found: "float32".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "column `f` has format float32, expected struct<packed>{position: float32x2, weight: float32}"
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
    assert_eq!(
        error,
        TableError::ConstantScalarType {
            format: VertexFormat::Float32,
            expected: "f32",
            found: "u32"
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu constant format float32 requires f32 components, received u32"
    );
}

#[test]
fn constant_byte_length() {
    let error = GpuConstant::new(VertexFormat::Float32x2, &[1.0f32]).unwrap_err();
    assert_eq!(
        error,
        TableError::ConstantByteLength {
            format: VertexFormat::Float32x2,
            expected: 8,
            found: 4
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu constant format float32x2 requires exactly 8 bytes, received 4"
    );
}

/// A count of 1 reads in the singular: `1 byte`.
#[test]
fn constant_byte_length_of_one_byte_is_singular() {
    let error = GpuConstant::new(VertexFormat::Uint8, &[1u8, 2]).unwrap_err();
    assert_eq!(
        error,
        TableError::ConstantByteLength {
            format: VertexFormat::Uint8,
            expected: 1,
            found: 2
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu constant format uint8 requires exactly 1 byte, received 2"
    );
}

#[test]
fn wgsl_name() {
    let error = GpuConstant::from_value(1.0f32)
        .wgsl("2d", 0, 0)
        .unwrap_err();
    assert_eq!(
        error,
        TableError::WgslName {
            column: "2d".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "column `2d` cannot name WGSL bindings: expected an ASCII letter followed by ASCII letters, digits and `_`"
    );
}

// ---------------------------------------------------------------------------------------------
// Record batches

#[test]
fn duplicate_column() {
    let gpu = gpu();
    let error = GpuRecordBatch::new([
        ("positions", positions(&gpu, 2)),
        ("positions", positions(&gpu, 2)),
    ])
    .unwrap_err();
    assert_eq!(
        error,
        TableError::DuplicateColumn {
            column: "positions".into()
        }
    );
    assert_eq!(error.to_string(), "column `positions` appears twice");
}

#[test]
fn batch_row_count() {
    let gpu = gpu();
    let error = GpuRecordBatch::new([
        ("positions", positions(&gpu, 2)),
        ("colors", colors(&gpu, 1)),
    ])
    .unwrap_err();
    assert_eq!(
        error,
        TableError::BatchRowCount {
            column: "colors".into(),
            expected: 2,
            found: 1
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu record batch requires matching gpu data row counts: expected 2 rows, column `colors` has 1"
    );
}

#[test]
fn batch_layout_reserved_indices() {
    let gpu = gpu();
    let error = with_layouts(
        vec![("positions", positions(&gpu, 2))],
        vec![BufferLayout::single("indices", VertexFormat::Uint32, 4)],
    )
    .unwrap_err();
    assert_eq!(error, TableError::BatchLayoutReservedIndices);
    assert_eq!(
        error.to_string(),
        "gpu record batch buffer layout cannot include reserved index column `indices`"
    );
}

#[test]
fn batch_layout_missing_data() {
    let gpu = gpu();
    let error = with_layouts(
        vec![("positions", positions(&gpu, 2))],
        vec![BufferLayout::single("normals", VertexFormat::Float32x3, 12)],
    )
    .unwrap_err();
    assert_eq!(
        error,
        TableError::BatchLayoutMissingData {
            layout: "normals".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu record batch buffer layout references missing gpu data `normals`"
    );
}

#[test]
fn no_layout_format() {
    let gpu = gpu();
    let error = GpuRecordBatch::new([("raw", untyped(&gpu))]).unwrap_err();
    assert_eq!(
        error,
        TableError::NoLayoutFormat {
            owner: "gpu record batch",
            column: "raw".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu record batch cannot synthesize a buffer layout for `raw` without a format"
    );
}

#[test]
fn list_layout() {
    let gpu = gpu();
    let error = GpuRecordBatch::new([(
        "paths",
        list(&gpu, GpuVectorFormat::VertexList(VertexFormat::Uint32)),
    )])
    .unwrap_err();
    assert_eq!(
        error,
        TableError::ListLayout {
            owner: "gpu record batch",
            list: "vertex-list",
            column: "paths".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu record batch cannot synthesize a generic buffer layout for vertex-list column `paths`: give it an explicit layout"
    );
}

#[test]
fn schema_missing_data() {
    let gpu = gpu();
    let error = GpuRecordBatch::with_options(
        [("positions", positions(&gpu, 2))],
        RecordBatchOptions {
            fields: Some(vec![GpuSchemaField::new(
                "weights",
                Some(VertexFormat::Float32.into()),
            )]),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        error,
        TableError::SchemaMissingData {
            column: "weights".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu record batch schema references missing gpu data `weights`"
    );
}

#[test]
fn no_field_format() {
    let gpu = gpu();
    let error = with_layouts(vec![("raw", untyped(&gpu))], Vec::new()).unwrap_err();
    assert_eq!(
        error,
        TableError::NoFieldFormat {
            owner: "gpu record batch",
            column: "raw".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu record batch cannot synthesize a schema field for `raw` without a format or buffer layout"
    );
}

// ---------------------------------------------------------------------------------------------
// Tables

#[test]
fn no_batches() {
    let error = GpuTable::from_batches(Vec::new(), no_constants()).unwrap_err();
    assert_eq!(error, TableError::NoBatches);
    assert_eq!(
        error.to_string(),
        "gpu table batches constructor requires at least one gpu record batch"
    );
}

// The layouts as `BatchLayoutsDiffer` prints them: name, format and stride.
const POSITIONS: &str = "`positions` (float32x2, stride 8)";
const COLORS: &str = "`colors` (unorm8x4, stride 4)";

#[test]
fn batch_layouts_differ() {
    let gpu = gpu();
    let narrow = GpuRecordBatch::new([("positions", positions(&gpu, 2))]).unwrap();
    let error = GpuTable::from_batches(vec![batch(&gpu, 2), narrow], no_constants()).unwrap_err();
    assert_eq!(
        error,
        TableError::BatchLayoutsDiffer {
            operation: "from_batches",
            batch: 1,
            expected: format!("[{POSITIONS}, {COLORS}]"),
            found: format!("[{POSITIONS}]")
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "gpu table from_batches requires matching buffer layouts: batch 1 has [{POSITIONS}], expected [{POSITIONS}, {COLORS}]"
        )
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
    assert_eq!(
        error,
        TableError::BatchLayoutsDiffer {
            operation: "add_batch",
            batch: 1,
            expected: format!("[{vertex}]"),
            found: format!("[{instance}]")
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "gpu table add_batch requires matching buffer layouts: batch 1 has [{instance}], expected [{vertex}]"
        )
    );
}

#[test]
fn batch_schema_differs() {
    let gpu = gpu();
    let retyped = GpuRecordBatch::with_options(
        [
            ("positions", positions(&gpu, 2)),
            ("colors", colors(&gpu, 2)),
        ],
        RecordBatchOptions {
            fields: Some(vec![
                GpuSchemaField::new("positions", Some(VertexFormat::Float32x2.into())),
                GpuSchemaField::new("colors", Some(VertexFormat::Uint8x4.into())),
            ]),
            ..Default::default()
        },
    )
    .unwrap();
    let error = GpuTable::from_batches(vec![batch(&gpu, 2), retyped], no_constants()).unwrap_err();
    assert_eq!(
        error,
        TableError::BatchSchemaDiffers {
            operation: "from_batches",
            batch: 1,
            expected: "[positions: float32x2, colors: unorm8x4]".into(),
            found: "[positions: float32x2, colors: uint8x4]".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu table from_batches requires matching selected schema fields: batch 1 has [positions: float32x2, colors: uint8x4], expected [positions: float32x2, colors: unorm8x4]"
    );
}

#[test]
fn constant_conflicts() {
    let gpu = gpu();
    let error = GpuTable::from_batches(
        vec![batch(&gpu, 2)],
        [("positions", GpuConstant::from_value(1.0f32))],
    )
    .unwrap_err();
    assert_eq!(
        error,
        TableError::ConstantConflicts {
            column: "positions".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu table constant column `positions` conflicts with batch gpu data"
    );
}

#[test]
fn reserved_indices_constant() {
    let gpu = gpu();
    let error = GpuTable::from_batches(
        vec![batch(&gpu, 2)],
        [("indices", GpuConstant::from_value(1u32))],
    )
    .unwrap_err();
    assert_eq!(error, TableError::ReservedIndicesConstant);
    assert_eq!(
        error.to_string(),
        "gpu table reserved index column `indices` cannot be constant"
    );
}

fn vector(gpu: &Gpu, name: &str, chunks: &[usize]) -> GpuVector {
    GpuVector::from_data(
        name,
        chunks
            .iter()
            .map(|&rows| column(gpu, VertexFormat::Float32, &vec![1.0f32; rows]))
            .collect(),
    )
    .unwrap()
}

#[test]
fn column_name_mismatch() {
    let gpu = gpu();
    let error = GpuTable::from_columns(
        [("pos", GpuColumn::from(vector(&gpu, "positions", &[2])))],
        ColumnsOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        error,
        TableError::ColumnNameMismatch {
            key: "pos".into(),
            name: "positions".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu table column name `pos` does not match gpu vector name `positions`"
    );
}

#[test]
fn incompatible_chunks() {
    let gpu = gpu();
    let packed = positions(&gpu, 2);
    let strided = bytes(
        &gpu,
        &[0; 20],
        GpuDataDescriptor::new(VertexFormat::Float32x2, 2).with_byte_stride(12),
    );
    let mixed = GpuVector::from_data("positions", vec![packed, strided]).unwrap();
    let error = GpuTable::from_vectors([mixed], ColumnsOptions::default()).unwrap_err();
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
        [vector(&gpu, "a", &[2, 2]), vector(&gpu, "b", &[4])],
        ColumnsOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        error,
        TableError::ChunkCountMismatch {
            column: "b".into(),
            expected: 2,
            found: 1
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu table vectors constructor requires matching gpu data chunk counts: expected 2, `b` has 1"
    );
}

#[test]
fn source_info_needs_one_chunk() {
    let gpu = gpu();
    let error = GpuTable::from_vectors(
        [vector(&gpu, "a", &[1, 1])],
        ColumnsOptions {
            null_count: 1,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(error, TableError::SourceInfoNeedsOneChunk { chunks: 2 });
    assert_eq!(
        error.to_string(),
        "gpu table vectors constructor supports source info and null count only with one gpu data chunk, found 2"
    );
}

#[test]
fn batch_row_mismatch() {
    let gpu = gpu();
    let error = GpuTable::from_vectors(
        [vector(&gpu, "a", &[2, 2]), vector(&gpu, "b", &[2, 1])],
        ColumnsOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        error,
        TableError::BatchRowMismatch {
            batch: 1,
            column: "b".into(),
            expected: 2,
            found: 1
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu table vectors constructor requires matching row counts in batch 1: expected 2, `b` has 1"
    );
}

#[test]
fn num_rows_required() {
    let error = GpuTable::from_columns(
        [("radius", GpuColumn::from(GpuConstant::from_value(2.5f32)))],
        ColumnsOptions::default(),
    )
    .unwrap_err();
    assert_eq!(error, TableError::NumRowsRequired);
    assert_eq!(
        error.to_string(),
        "gpu table columns constructor requires num_rows for an all-constant table"
    );
}

#[test]
fn num_rows_mismatch() {
    let gpu = gpu();
    let error = GpuTable::from_vectors(
        [vector(&gpu, "a", &[2, 1])],
        ColumnsOptions {
            num_rows: Some(4),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        error,
        TableError::NumRowsMismatch {
            expected: 3,
            found: 4
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu table columns constructor num_rows must match varying columns: expected 3, found 4"
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
    assert_eq!(
        error,
        TableError::MissingBatchData {
            column: "b".into(),
            batch: 1
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu table batch 1 is missing gpu data `b`"
    );
}

#[test]
fn unknown_column() {
    let gpu = gpu();
    let mut table = GpuTable::from_batches(vec![batch(&gpu, 2)], no_constants()).unwrap();
    let error = table.select(&["colors", "nope"]).unwrap_err();
    assert_eq!(
        error,
        TableError::UnknownColumn {
            column: "nope".into()
        }
    );
    assert_eq!(error.to_string(), "gpu table column `nope` does not exist");
}

#[test]
fn detach_no_data() {
    let gpu = gpu();
    let mut table = GpuTable::from_batches(
        vec![batch(&gpu, 2)],
        [("size", GpuConstant::from_value(1.0f32))],
    )
    .unwrap();
    let error = table.detach_vector("size").unwrap_err();
    assert_eq!(
        error,
        TableError::DetachNoData {
            column: "size".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu table detach_vector: column `size` has no gpu data"
    );
}

#[test]
fn batch_range() {
    let gpu = gpu();
    let mut table =
        GpuTable::from_batches(vec![batch(&gpu, 2), batch(&gpu, 2)], no_constants()).unwrap();
    let error = table.detach_batches(1..3).unwrap_err();
    assert_eq!(
        error,
        TableError::BatchRange {
            first: 1,
            last: 3,
            batches: 2
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu table detach_batches requires a valid half-open batch range: got 1..3 of 2 batches"
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
        let list = GpuDataDescriptor {
            format: Some(GpuVectorFormat::VertexList(VertexFormat::Uint32).into()),
            length: 2,
            value_length: Some(2),
            ..Default::default()
        };
        GpuRecordBatch::new([
            ("positions", positions(gpu, 2)),
            ("indices", indices(gpu, list, DEFAULT_USAGE)),
        ])
        .unwrap()
    };
    let mut table =
        GpuTable::from_batches(vec![indexed(&gpu), indexed(&gpu)], no_constants()).unwrap();
    let error = table
        .pack_batches(&gpu, PackOptions::default())
        .unwrap_err();
    assert_eq!(error, TableError::PackIndexed);
    assert_eq!(
        error.to_string(),
        "gpu table pack_batches does not support indexed tables"
    );
}

#[test]
fn min_batch_size() {
    let gpu = gpu();
    let mut table =
        GpuTable::from_batches(vec![batch(&gpu, 2), batch(&gpu, 2)], no_constants()).unwrap();
    let error = table
        .pack_batches(
            &gpu,
            PackOptions {
                min_batch_size: Some(0),
            },
        )
        .unwrap_err();
    assert_eq!(error, TableError::MinBatchSize { found: 0 });
    assert_eq!(
        error.to_string(),
        "gpu table pack_batches min_batch_size must be a positive number, found 0"
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
    assert_eq!(error, TableError::PackEmptyBatch { batch: 0 });
    assert_eq!(
        error.to_string(),
        "gpu table cannot pack an empty gpu record batch (batch 0 has no columns)"
    );
}

#[test]
fn pack_variable_length() {
    let gpu = gpu();
    let texts = |gpu: &Gpu| {
        with_layouts(
            vec![
                ("positions", positions(gpu, 2)),
                (
                    "texts",
                    list(gpu, GpuVectorFormat::ValueList(VertexFormat::Uint32)),
                ),
            ],
            vec![BufferLayout::single(
                "positions",
                VertexFormat::Float32x2,
                8,
            )],
        )
        .unwrap()
    };
    let mut table = GpuTable::from_batches(vec![texts(&gpu), texts(&gpu)], no_constants()).unwrap();
    let error = table
        .pack_batches(&gpu, PackOptions::default())
        .unwrap_err();
    assert_eq!(
        error,
        TableError::PackVariableLength {
            column: "texts".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu table pack_batches does not support variable-length gpu data `texts`"
    );
}

// ---------------------------------------------------------------------------------------------
// Segmented layouts and conversions

#[test]
fn copy_range() {
    // A device that binds at most 4 bytes of storage. Long copies are split into runs of rows,
    // but the 8-byte `position` of one interleaved 12-byte row already needs a larger binding.
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        force_fallback_adapter: false,
        ..Default::default()
    }))
    .unwrap_or_else(|e| panic!("no adapter (install `mesa-vulkan-drivers`): {e}"));
    let mut limits = adapter.limits();
    limits.max_storage_buffer_binding_size = 4;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("errors_table copy_range"),
        required_limits: limits,
        ..Default::default()
    }))
    .unwrap_or_else(|e| panic!("the adapter refused a device: {e}"));
    let small = Gpu::from_device_queue(device, queue);
    let rows = vec![
        Point {
            position: [1.0, 2.0],
            weight: 3.0,
        };
        16
    ];
    let data = TypedGpuData::from_rows(&small, &rows, DEFAULT_USAGE).unwrap();
    let vector = GpuVector::from_struct_data("points", data.into_data(), None).unwrap();
    let table = GpuTable::from_vectors([vector], ColumnsOptions::default()).unwrap();
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
    assert_eq!(
        error,
        TableError::UnsplittableColumn {
            column: "raw".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "column `raw` has neither a format nor buffer layout attributes: its bytes cannot be split into segments or packed columns"
    );
}

#[test]
fn segment_alignment() {
    let error = SegmentedLayout::new(6, []).unwrap_err();
    assert_eq!(error, TableError::SegmentAlignment { alignment: 6 });
    assert_eq!(
        error.to_string(),
        "segment alignment 6 must be a power of two of at least 4"
    );
}

#[test]
fn segment_stride() {
    let error = SegmentedLayout::new(
        4,
        [SegmentSpec {
            byte_stride: Some(8),
            ..SegmentSpec::new("a", VertexFormat::Float32x3, 1)
        }],
    )
    .unwrap_err();
    assert_eq!(
        error,
        TableError::SegmentStride {
            column: "a".into(),
            byte_stride: 8,
            format: VertexFormat::Float32x3
        }
    );
    assert_eq!(
        error.to_string(),
        "segment `a` has byte stride 8, smaller than one float32x3 value (12 bytes)"
    );
}

#[test]
fn host_bytes() {
    let gpu = gpu();
    let error = gpudata::table::SegmentedTableBuilder::new()
        .column_spec(SegmentSpec::new("a", VertexFormat::Float32, 2), &[0u8; 7])
        .build(&gpu)
        .unwrap_err();
    assert_eq!(
        error,
        TableError::HostBytes {
            column: "a".into(),
            format: "float32".into(),
            values: 2,
            found: 7
        }
    );
    assert_eq!(
        error.to_string(),
        "column `a` of float32 needs the bytes of 2 values, found 7 bytes"
    );
}

/// A count of 1 reads in the singular: `1 value`, `1 byte`.
#[test]
fn host_bytes_of_one_value_are_singular() {
    let gpu = gpu();
    let error = gpudata::table::SegmentedTableBuilder::new()
        .column_spec(SegmentSpec::new("a", VertexFormat::Float32, 1), &[0u8; 1])
        .build(&gpu)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "column `a` of float32 needs the bytes of 1 value, found 1 byte"
    );
}

#[test]
fn interleave_list() {
    let gpu = gpu();
    let paths = GpuVector::from_data_with(
        "paths",
        vec![list(
            &gpu,
            GpuVectorFormat::VertexList(VertexFormat::Uint32),
        )],
        DataVectorOptions {
            buffer_layout: Some(BufferLayout {
                name: "paths".into(),
                format: None,
                byte_stride: Some(4),
                step_mode: None,
                attributes: Vec::new(),
            }),
            ..Default::default()
        },
    )
    .unwrap();
    let table = GpuTable::from_columns(
        [("paths", GpuColumn::from(paths))],
        ColumnsOptions::default(),
    )
    .unwrap();
    let error = table
        .to_interleaved(&gpu, "rows", StructLayout::Packed, None)
        .unwrap_err();
    assert_eq!(
        error,
        TableError::InterleaveList {
            column: "paths".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "list column `paths` cannot be interleaved into fixed rows"
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
        ColumnsOptions {
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
    assert_eq!(error, TableError::TooManyRows { rows });
    assert_eq!(
        error.to_string(),
        "cannot draw 4294967296 rows: more than one draw can count (u32)"
    );
}

#[test]
fn index_format() {
    let gpu = gpu();
    let floats = column(&gpu, VertexFormat::Float32, &[0.0f32, 1.0]);
    let batch =
        GpuRecordBatch::new([("positions", positions(&gpu, 2)), ("indices", floats)]).unwrap();
    let table = GpuTable::from_batches(vec![batch], no_constants()).unwrap();
    let error = table
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap_err();
    assert_eq!(
        error,
        TableError::IndexFormat {
            found: "float32".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "index column `indices` has format float32: expected vertex-list<uint32>, vertex-list<uint16>, uint32 or uint16"
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
    let batch =
        GpuRecordBatch::new([("positions", positions(&gpu, 2)), ("indices", strided)]).unwrap();
    let table = GpuTable::from_batches(vec![batch], no_constants()).unwrap();
    let error = table
        .render_bindings(&gpu, RenderOptions::default())
        .unwrap_err();
    assert_eq!(
        error,
        TableError::IndexLayout {
            byte_offset: 0,
            byte_stride: 8,
            index_bytes: 4
        }
    );
    assert_eq!(
        error.to_string(),
        "index column `indices` at byte offset 0 with byte stride 8: index buffers need packed 4-byte indices at an aligned offset"
    );
}

#[test]
fn storage_misaligned() {
    let gpu = gpu();
    let data = bytes(
        &gpu,
        &[0u8; 10],
        GpuDataDescriptor::new(VertexFormat::Float32, 2).with_byte_offset(2),
    );
    let table = GpuTable::from_vectors(
        [GpuVector::from_data("w", vec![data]).unwrap()],
        ColumnsOptions::default(),
    )
    .unwrap();
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
    assert_eq!(
        error.to_string(),
        "column `w` field `w` at byte offset 2 with byte stride 4: storage access needs both aligned to 4 bytes"
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
    assert_eq!(error, TableError::StorageBasesDiffer { batch: 1 });
    assert_eq!(
        error.to_string(),
        "batch 1 needs other WGSL than batch 0: its columns start elsewhere inside their storage bindings; pack or segment the table, or use each batch's own WGSL"
    );
}

// ---------------------------------------------------------------------------------------------
// Wrapped errors (transparent: the message is the inner error's)

#[test]
fn data() {
    let gpu = gpu();
    let small = BufferHandle::Owned(
        column(&gpu, VertexFormat::Float32, &[1.0f32])
            .buffer()
            .clone(),
    );
    let error = GpuVector::from_buffer(
        "p",
        small,
        VectorDescriptor::new(VertexFormat::Float32x2, 2),
    )
    .unwrap_err();
    let inner = DataError::OutOfBuffer {
        what: "gpu data",
        byte_offset: 0,
        byte_end: 16,
        buffer_size: 4,
    };
    assert_eq!(error, TableError::Data(inner.clone()));
    assert_eq!(error.to_string(), inner.to_string());
}

#[test]
fn gpu_wrapped() {
    let gpu = gpu();
    let locked = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("no copy"),
        size: 16,
        usage: wgpu::BufferUsages::VERTEX,
        mapped_at_creation: false,
    });
    let data = GpuData::new(
        BufferHandle::Owned(locked),
        GpuDataDescriptor::new(VertexFormat::Float32, 4),
    )
    .unwrap();
    let table = GpuTable::from_vectors(
        [GpuVector::from_data("v", vec![data]).unwrap()],
        ColumnsOptions::default(),
    )
    .unwrap();
    let error = table
        .to_segmented(&gpu, SegmentOptions::default())
        .unwrap_err();
    let inner = GpuError::MissingUsage {
        operation: "copy gpu data out",
        required: wgpu::BufferUsages::COPY_SRC,
        found: wgpu::BufferUsages::VERTEX,
    };
    assert_eq!(error, TableError::Gpu(inner.clone()));
    assert_eq!(error.to_string(), inner.to_string());
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
    assert_eq!(error, TableError::Layout(inner.clone()));
    assert_eq!(error.to_string(), inner.to_string());
}
