//! The error catalogue (`docs/ERRORS.md`): every [`ArrowInteropError`] variant triggered through
//! the public API (feature `arrow`; GPU ones on lavapipe), pinned by variant and by its whole
//! rendered message.
#![cfg(feature = "arrow")]

use std::sync::Arc;

use arrow_array::{
    Array, FixedSizeListArray, Float32Array, Float64Array, RecordBatch, StringArray, UInt8Array,
};
use arrow_buffer::Buffer;
use arrow_schema::{DataType as ArrowType, Field, Schema};
use gpudata::arrow::{
    ArrowColumnSource, ArrowInteropError, BatchOptions, BatchSource, ColumnOptions, FormatChoice,
    NullPolicy, array_from_gpu, array_to_gpu, check_format, check_schemas, compact_rows,
    default_format, record_batch_to_segmented, upload_source, vertex_format_for_shader,
};
use gpudata::data::DEFAULT_USAGE;
use gpudata::format::DataType;
use gpudata::{DataError, GpuData, GpuError, GpuVectorFormat, OpError, ShaderType, VertexFormat};

use crate::support::{gpu, limited_gpu};

fn fsl(child: ArrowType, size: i32) -> ArrowType {
    ArrowType::FixedSizeList(Arc::new(Field::new_list_field(child, false)), size)
}

fn shader(s: &str) -> ShaderType {
    s.parse().unwrap()
}

// ---------------------------------------------------------------------------------------------
// Formats

#[test]
fn unsupported_logical_type() {
    let error = default_format("x", &ArrowType::Float64).unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::UnsupportedLogicalType {
            column: "x".into(),
            data_type: ArrowType::Float64
        }
    );
    assert_eq!(
        error.to_string(),
        "column `x`: unsupported gpu vector logical type Float64: expected Int8/16/32, UInt8/16/32, Float16 or Float32 values (Float64 needs an explicit `uint32x2` format or fround; 64-bit integers need `uint32x2`/`sint32x2`)"
    );
}

#[test]
fn unsupported_type() {
    let error = default_format("flags", &ArrowType::Boolean).unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::UnsupportedType {
            column: "flags".into(),
            data_type: ArrowType::Boolean
        }
    );
    assert_eq!(
        error.to_string(),
        "column `flags`: gpu vector does not support arrow type Boolean: expected a primitive, FixedSizeList<primitive, 1..=4>, List of those, Utf8, Binary, Dictionary<_, integer> or FixedSizeBinary with buffer-layout metadata"
    );
}

#[test]
fn component_count() {
    let five = fsl(ArrowType::Float32, 5);
    let error = default_format("v", &five).unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::ComponentCount {
            column: "v".into(),
            data_type: five.clone(),
            components: 5
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "column `v`: cannot synthesize a gpu vector format for arrow type {five}: expected 1 to 4 components, found 5"
        )
    );
}

#[test]
fn float16x3() {
    let three = fsl(ArrowType::Float16, 3);
    let error = default_format("h", &three).unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::Float16x3 {
            column: "h".into(),
            data_type: three.clone()
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "column `h`: cannot synthesize a float16x3 gpu vector format for {three}: expected 1, 2 or 4 float16 components"
        )
    );
}

#[test]
fn format_mismatch() {
    let format: GpuVectorFormat = "float32".parse().unwrap();
    let error = check_format("ids", &ArrowType::UInt32, format).unwrap_err();
    let ArrowInteropError::FormatMismatch { expected, .. } = &error else {
        panic!("expected FormatMismatch, found {error:?}");
    };
    assert_eq!(
        error,
        ArrowInteropError::FormatMismatch {
            column: "ids".into(),
            data_type: ArrowType::UInt32,
            format,
            expected: expected.clone()
        }
    );
    assert!(expected.contains("uint32"), "{expected}");
    assert_eq!(
        error.to_string(),
        format!("column `ids`: format float32 cannot carry arrow type UInt32: expected {expected}")
    );
}

#[test]
fn shader_components() {
    let error = vertex_format_for_shader("colors", DataType::Uint8, 4, shader("vec3<f32>"), false)
        .unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::ShaderComponents {
            column: "colors".into(),
            components: 4,
            shader_type: shader("vec3<f32>"),
            expected: 3
        }
    );
    assert_eq!(
        error.to_string(),
        "column `colors` has 4 components but shader attribute vec3<f32> expects 3"
    );
}

/// A count of 1 reads in the singular: `1 component`.
#[test]
fn shader_components_of_one_are_singular() {
    let error =
        vertex_format_for_shader("heights", DataType::Float32, 1, shader("vec3<f32>"), false)
            .unwrap_err();
    assert_eq!(
        error.to_string(),
        "column `heights` has 1 component but shader attribute vec3<f32> expects 3"
    );
}

#[test]
fn no_normalized32() {
    let error =
        vertex_format_for_shader("ids", DataType::Uint32, 1, shader("f32"), false).unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::NoNormalized32 {
            column: "ids".into(),
            data_type: DataType::Uint32,
            shader_type: shader("f32")
        }
    );
    assert_eq!(
        error.to_string(),
        "column `ids`: arrow uint32 cannot be used with f32: webgpu has no normalized 32-bit integer vertex format"
    );
}

#[test]
fn shader_type_mismatch() {
    let error = vertex_format_for_shader("heights", DataType::Float32, 1, shader("u32"), false)
        .unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::ShaderTypeMismatch {
            column: "heights".into(),
            data_type: DataType::Float32,
            shader_type: shader("u32")
        }
    );
    assert_eq!(
        error.to_string(),
        "column `heights`: arrow float32 columns cannot be used with u32"
    );
}

#[test]
fn signedness() {
    let error =
        vertex_format_for_shader("ids", DataType::Sint32, 1, shader("u32"), false).unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::Signedness {
            column: "ids".into(),
            data_type: DataType::Sint32,
            shader_type: shader("u32"),
            expected: "unsigned"
        }
    );
    assert_eq!(
        error.to_string(),
        "column `ids`: arrow sint32 signedness does not match u32: expected unsigned integers"
    );
}

#[test]
fn not_portable() {
    let error = vertex_format_for_shader("rgb", DataType::Uint8, 3, shader("vec3<f32>"), false)
        .unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::NotPortable {
            column: "rgb".into(),
            data_type: DataType::Uint8,
            shader_type: shader("vec3<f32>")
        }
    );
    assert_eq!(
        error.to_string(),
        "column `rgb`: arrow uint8x3 cannot be used with vec3<f32> in portable webgpu layouts: expected 1, 2 or 4 components (or allow webgl-only formats)"
    );
}

// ---------------------------------------------------------------------------------------------
// Columns and batches

#[test]
fn nulls() {
    let values = Float32Array::from(vec![Some(1.0), None, Some(3.0)]);
    let field = Field::new("heights", ArrowType::Float32, true);
    let options = ColumnOptions {
        null_policy: NullPolicy::Reject,
        ..ColumnOptions::default()
    };
    let error = ArrowColumnSource::new(&field, &values, &options).unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::Nulls {
            column: "heights".into(),
            data_type: ArrowType::Float32,
            null_count: 1,
            what: "row",
            reason: "the null policy rejects nulls"
        }
    );
    assert_eq!(
        error.to_string(),
        "column `heights` (Float32) has 1 null row: the null policy rejects nulls"
    );
    // More than one null: the noun is plural.
    let values = Float32Array::from(vec![None, Some(2.0), None]);
    let error = ArrowColumnSource::new(&field, &values, &options).unwrap_err();
    assert_eq!(
        error.to_string(),
        "column `heights` (Float32) has 2 null rows: the null policy rejects nulls"
    );
    // Nulls inside a fixed-size list row, which no policy keeps.
    let child = Float32Array::from(vec![Some(1.0), None, None, Some(4.0)]);
    let points = FixedSizeListArray::new(
        Arc::new(Field::new_list_field(ArrowType::Float32, true)),
        2,
        Arc::new(child),
        None,
    );
    let field = Field::new("points", points.data_type().clone(), false);
    let error = ArrowColumnSource::new(&field, &points, &ColumnOptions::default()).unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::Nulls {
            column: "points".into(),
            data_type: points.data_type().clone(),
            null_count: 2,
            what: "nested value",
            reason: "a fixed-width gpu row has no per-component validity"
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "column `points` ({}) has 2 null nested values: a fixed-width gpu row has no per-component validity",
            points.data_type()
        )
    );
}

#[test]
fn compact_rows_of_no_bytes_is_empty_whatever_the_count() {
    // Zero-byte rows at stride 0: once a loop of u64::MAX empty copies.
    assert_eq!(compact_rows("c", &[], u64::MAX, 0, 0), Ok(Vec::new()));
    assert_eq!(compact_rows("c", &[1, 2, 3, 4], 2, 2, 1), Ok(vec![1, 3]));
}

#[test]
fn overflow() {
    let error = compact_rows("rows", &[], u64::MAX, u64::MAX, 4).unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::Overflow {
            column: "rows".into(),
            what: "the strided byte range"
        }
    );
    assert_eq!(
        error.to_string(),
        "column `rows`: the strided byte range overflows"
    );
}

#[test]
fn out_of_bounds_message() {
    // Every Arrow array built through arrow-rs's safe constructors holds the bytes its length
    // and offsets claim; only arrays assembled without validation (`unsafe`
    // `ArrayData::build_unchecked`, foreign memory) can point past their buffers, and the guard
    // refuses them before reading. The message is pinned from the variant.
    let error = ArrowInteropError::OutOfBounds {
        column: "rows".into(),
        what: "values end at byte",
        found: 32,
        available: 8,
    };
    assert_eq!(
        error.to_string(),
        "column `rows`: values end at byte 32 is outside the 8 values the arrow buffers hold"
    );
}

#[test]
fn negative_offset() {
    // Offsets that start below zero cannot come from arrow-rs's safe constructors or its IPC
    // reader (both validate); an array assembled without validation is refused by name.
    let offsets = Buffer::from_vec(vec![-4_i32, 0, 2]);
    let values = Buffer::from_vec(vec![0_u8; 8]);
    // SAFETY: the array is invalid on purpose (a negative first offset); gpudata reads only
    // the offsets before refusing it, and every offset indexes into `values`' 8 bytes or is
    // negative.
    let data = unsafe {
        arrow_data::ArrayData::builder(ArrowType::Binary)
            .len(2)
            .add_buffer(offsets)
            .add_buffer(values)
            .build_unchecked()
    };
    let array = arrow_array::BinaryArray::from(data);
    let error =
        ArrowColumnSource::from_array("names", &array, &ColumnOptions::default()).unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::NegativeOffset {
            column: "names".into(),
            offset: -4
        }
    );
    assert_eq!(
        error.to_string(),
        "column `names`: arrow offsets start at -4: expected a first offset of 0 or more"
    );
}

#[test]
fn interleaved_metadata() {
    let array =
        arrow_array::FixedSizeBinaryArray::try_new(8, Buffer::from_vec(vec![0u8; 16]), None)
            .unwrap();
    let plain = Field::new("instances", ArrowType::FixedSizeBinary(8), false);
    let error = ArrowColumnSource::new(&plain, &array, &ColumnOptions::default()).unwrap_err();
    let reason = "FixedSizeBinary columns need the `gpudata.interleaved_rows` extension type with a buffer layout";
    assert_eq!(
        error,
        ArrowInteropError::InterleavedMetadata {
            column: "instances".into(),
            reason: reason.into()
        }
    );
    assert_eq!(
        error.to_string(),
        format!("column `instances`: interleaved rows metadata is invalid: {reason}")
    );
}

fn readback_of(field: &Field, array: &dyn Array) -> gpudata::arrow::ArrowReadback {
    ArrowColumnSource::new(field, array, &ColumnOptions::default())
        .unwrap()
        .into_readback()
}

#[test]
fn readback_length() {
    let field = Field::new("heights", ArrowType::Float32, false);
    let readback = readback_of(&field, &Float32Array::from(vec![1.0, 2.0, 3.0]));
    let error = readback.to_array(vec![0u8; 8]).unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::ReadbackLength {
            column: "heights".into(),
            data_type: ArrowType::Float32,
            expected: 12,
            found: 8
        }
    );
    assert_eq!(
        error.to_string(),
        "column `heights`: readback of Float32 needs 12 bytes, found 8"
    );
}

#[test]
fn device_limit() {
    let small = limited_gpu("errors_arrow", |l| l.max_buffer_size = 1024);
    let big = Float32Array::from(vec![0.0; 300]);
    let field = Field::new("heights", ArrowType::Float32, false);
    let error = array_to_gpu(&small, &field, &big, &ColumnOptions::default()).unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::DeviceLimit {
            column: "heights".into(),
            bytes: 1200,
            limit: "max_buffer_size",
            max: 1024
        }
    );
    assert_eq!(
        error.to_string(),
        "column `heights` needs 1200 bytes, beyond the device's max_buffer_size of 1024 bytes"
    );
}

fn batch_of(name: &str, array: Arc<dyn Array>) -> RecordBatch {
    let schema = Schema::new(vec![Field::new(name, array.data_type().clone(), false)]);
    RecordBatch::try_new(Arc::new(schema), vec![array]).unwrap()
}

#[test]
fn schema_mismatch() {
    let a = batch_of("h", Arc::new(Float32Array::from(vec![1.0])));
    let b = batch_of("h", Arc::new(UInt8Array::from(vec![1])));
    let error = check_schemas(&[a, b]).unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::SchemaMismatch {
            batch: 1,
            expected: "h: Float32".into(),
            found: "h: UInt8".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "record batch 1 schema does not match batch 0: expected fields [h: Float32], found [h: UInt8]"
    );
}

#[test]
fn missing_column() {
    let batch = batch_of("h", Arc::new(Float32Array::from(vec![1.0])));
    let options = BatchOptions::new().column("weights", ColumnOptions::default());
    let error = BatchSource::new(&batch, &options).unwrap_err();
    assert_eq!(
        error,
        ArrowInteropError::MissingColumn {
            column: "weights".into(),
            found: "h".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "no column `weights` in the record batch: found [h]"
    );
}

#[test]
fn arrow() {
    // Bytes read back that are not UTF-8: Arrow refuses to rebuild the string array.
    let field = Field::new("names", ArrowType::Utf8, false);
    let readback = readback_of(&field, &StringArray::from(vec!["ab"]));
    let error = readback.to_array(vec![0xffu8, 0xfe]).unwrap_err();
    let ArrowInteropError::Arrow { message, .. } = &error else {
        panic!("expected Arrow, found {error:?}");
    };
    assert!(message.contains("UTF8"), "{message}");
    assert_eq!(
        error,
        ArrowInteropError::Arrow {
            column: "names".into(),
            data_type: ArrowType::Utf8,
            message: message.clone()
        }
    );
    assert_eq!(
        error.to_string(),
        format!("column `names`: arrow rejected the rebuilt Utf8 array: {message}")
    );
}

#[test]
fn data() {
    // The adapter builds each column's descriptor from the column, so the data layer never
    // refuses one through the public API; pinned from the variant.
    let inner = DataError::OutOfBuffer {
        what: "gpu data",
        byte_offset: 0,
        byte_end: 12,
        buffer_size: 8,
    };
    let error = ArrowInteropError::Data {
        column: "heights".into(),
        source: inner.clone(),
    };
    assert_eq!(error.to_string(), format!("column `heights`: {inner}"));
}

#[test]
fn gpu_readback() {
    // Uploaded without COPY_SRC: the readback cannot copy the values out.
    let gpu = gpu();
    let field = Field::new("heights", ArrowType::Float32, false);
    let values = Float32Array::from(vec![1.0, 2.0]);
    let source = ArrowColumnSource::new(&field, &values, &ColumnOptions::default()).unwrap();
    let data = upload_source(&gpu, &source, wgpu::BufferUsages::VERTEX).unwrap();
    let error = array_from_gpu(&gpu, &data).unwrap_err();
    let inner = GpuError::MissingUsage {
        operation: "read back gpu data",
        required: wgpu::BufferUsages::COPY_SRC,
        found: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
    };
    assert_eq!(
        error,
        ArrowInteropError::Gpu {
            column: "heights".into(),
            source: inner.clone()
        }
    );
    assert_eq!(error.to_string(), format!("column `heights`: {inner}"));
}

#[test]
fn op() {
    // fround on a device that binds at most 8 bytes of storage: long columns are split into
    // runs of rows, but one invocation writes two float32x2 rows (16 bytes) at once.
    let small = limited_gpu("errors_arrow", |l| l.max_storage_buffer_binding_size = 8);
    let field = Field::new("xs", ArrowType::Float64, false);
    let values = Float64Array::from(vec![0.5; 1024]);
    let options = ColumnOptions {
        format: FormatChoice::Fround,
        ..ColumnOptions::default()
    };
    let error = array_to_gpu(&small, &field, &values, &options).unwrap_err();
    let ArrowInteropError::Op { column, source } = &error else {
        panic!("expected Op, found {error:?}");
    };
    assert_eq!(column, "xs");
    assert!(
        matches!(
            source,
            OpError::TooLarge {
                op: "fround",
                limit: 8,
                ..
            }
        ),
        "{source:?}"
    );
    assert_eq!(error.to_string(), format!("column `xs`: {source}"));
}

#[test]
fn op_in_segmented() {
    // The same refusal when the fround column is a segment of a segmented table.
    let small = limited_gpu("errors_arrow", |l| l.max_storage_buffer_binding_size = 8);
    let batch =
        RecordBatch::try_from_iter([("xs", Arc::new(Float64Array::from(vec![0.5; 1024])) as _)])
            .unwrap();
    let options = BatchOptions::new().column(
        "xs",
        ColumnOptions {
            format: FormatChoice::Fround,
            ..ColumnOptions::default()
        },
    );
    let error = record_batch_to_segmented(&small, &batch, &options).unwrap_err();
    let ArrowInteropError::Op { column, source } = &error else {
        panic!("expected Op, found {error:?}");
    };
    assert_eq!(column, "xs");
    assert!(
        matches!(
            source,
            OpError::TooLarge {
                op: "fround",
                limit: 8,
                ..
            }
        ),
        "{source:?}"
    );
    assert_eq!(error.to_string(), format!("column `xs`: {source}"));
}

#[test]
fn missing_metadata() {
    let gpu = gpu();
    let data = GpuData::from_slice(&gpu, VertexFormat::Float32, &[1.0f32], DEFAULT_USAGE).unwrap();
    let error = array_from_gpu(&gpu, &data).unwrap_err();
    assert_eq!(error, ArrowInteropError::MissingMetadata);
    assert_eq!(
        error.to_string(),
        "arrow readback requires the adapter's readback metadata: expected gpu data uploaded from arrow, found data without it"
    );
}

#[test]
fn table() {
    // A column named `indices` gets a vertex layout from the adapter, which a GPU record batch
    // refuses for its reserved index column.
    let gpu = gpu();
    let batch = batch_of("indices", Arc::new(Float32Array::from(vec![1.0, 2.0])));
    let error =
        gpudata::arrow::record_batch_to_gpu(&gpu, &batch, &BatchOptions::new()).unwrap_err();
    let inner = gpudata::TableError::BatchLayoutReservedIndices;
    assert_eq!(
        error,
        ArrowInteropError::Table {
            source: inner.clone()
        }
    );
    assert_eq!(error.to_string(), inner.to_string());
}

#[test]
fn op_wrong_data_for_nulls() {
    // `OpError::WrongData` (an `OpError`, not an `ArrowInteropError`) from the ops' Arrow entry:
    // null slots of a Float64Array hold no defined value to split.
    let gpu = gpu();
    let values = Float64Array::from(vec![Some(1.5), None]);
    let error = gpudata::ops::fround_arrow(&gpu, &values).unwrap_err();
    assert_eq!(
        error,
        OpError::WrongData {
            op: "fround",
            expected: "an Arrow Float64 array without nulls",
            found: "1 null value".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "fround: expected an Arrow Float64 array without nulls, found 1 null value"
    );
    assert_eq!(gpudata::ops::cpu::fround_arrow(&values).unwrap_err(), error);
    let values = Float64Array::from(vec![None, Some(1.5), None]);
    assert_eq!(
        gpudata::ops::fround_arrow(&gpu, &values)
            .unwrap_err()
            .to_string(),
        "fround: expected an Arrow Float64 array without nulls, found 2 null values"
    );
}

#[test]
fn not_segmentable() {
    // Interleaved rows have no single vector format: not a segment of a shared buffer.
    let gpu = gpu();
    let rows = gpudata::GpuDataStructFormat::parse(
        gpudata::StructLayout::Packed,
        [("a", "float32"), ("b", "unorm8x4")],
    )
    .unwrap();
    let layout = rows.buffer_layout("instances", None);
    let field = gpudata::arrow::interleaved_field("instances", &layout, false).unwrap();
    let data_type = field.data_type().clone();
    let instances =
        arrow_array::FixedSizeBinaryArray::try_new(8, Buffer::from_vec(vec![7u8; 16]), None)
            .unwrap();
    let batch = RecordBatch::try_new(
        Arc::new(Schema::new(vec![field])),
        vec![Arc::new(instances)],
    )
    .unwrap();
    let error = record_batch_to_segmented(&gpu, &batch, &BatchOptions::new()).unwrap_err();
    let reason =
        "interleaved rows have no single vector format; upload the column with record_batch_to_gpu";
    assert_eq!(
        error,
        ArrowInteropError::NotSegmentable {
            column: "instances".into(),
            data_type: data_type.clone(),
            reason,
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "column `instances` ({data_type}) cannot be a segment of a segmented table: {reason}"
        )
    );
}
