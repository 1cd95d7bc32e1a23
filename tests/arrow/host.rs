//! Host side of the Arrow adapter: formats (luma.gl §9.1, §9.4, vectors 146–158), zero-copy
//! column sources, and round trips bytes → Arrow for every supported type, with slices at
//! non-zero offsets, empty arrays and nulls per the null policy.

use std::sync::Arc;

use arrow_array::builder::{FixedSizeListBuilder, PrimitiveBuilder};
use arrow_array::types::{Float32Type, Int16Type, Int32Type, UInt8Type};
use arrow_array::{
    Array, ArrayRef, BinaryArray, DictionaryArray, FixedSizeBinaryArray, FixedSizeListArray,
    Float32Array, Float64Array, Int32Array, LargeStringArray, ListArray, StringArray, make_array,
};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer};
use arrow_schema::{ArrowError, DataType, Field};
use gpudata::arrow::{
    ArrowColumnSource, ArrowInteropError, ColumnOptions, FormatChoice, NullPolicy, check_format,
    default_format, interleaved_field, interleaved_layout, vertex_format_for_shader,
};
use gpudata::{GpuDataStructFormat, GpuVectorFormat, ShaderType, StructLayout, VertexFormat};
use proptest::prelude::*;

fn fsl(child: DataType, size: i32) -> DataType {
    DataType::FixedSizeList(Arc::new(Field::new_list_field(child, false)), size)
}

fn list(child: DataType) -> DataType {
    DataType::List(Arc::new(Field::new_list_field(child, false)))
}

fn format(s: &str) -> GpuVectorFormat {
    s.parse().unwrap()
}

fn shader(s: &str) -> ShaderType {
    s.parse().unwrap()
}

/// Uploads nothing: takes the source's bytes as "read back" and rebuilds the array.
fn round_trip(
    field: &Field,
    array: &dyn Array,
    options: &ColumnOptions,
) -> Result<ArrayRef, ArrowInteropError> {
    let source = ArrowColumnSource::new(field, array, options)?;
    let readback = source.readback();
    assert_eq!(
        Some(source.bytes().len() as u64),
        readback.value_byte_length(),
        "column {} uploads exactly the bytes readback expects",
        field.name()
    );
    readback.to_array(source.bytes().to_vec())
}

fn assert_round_trip(array: &dyn Array, options: &ColumnOptions) {
    let field = Field::new("c", array.data_type().clone(), true);
    let back = round_trip(&field, array, options).unwrap();
    assert_eq!(back.data_type(), array.data_type());
    assert_eq!(back.as_ref(), array, "round trip of {}", array.data_type());
}

// ---------------------------------------------------------------- §11.9 vectors

#[test]
fn vector_146_float32() {
    let array = Float32Array::from(vec![1.0, 2.0, 3.0]);
    let source =
        ArrowColumnSource::from_array("x", &array, &ColumnOptions::with_format(format("float32")))
            .unwrap();
    assert_eq!((source.length(), source.byte_stride()), (3, 4));
    assert_eq!(
        source.bytes(),
        bytemuck::cast_slice::<f32, u8>(&[1.0, 2.0, 3.0])
    );
    assert_round_trip(&array, &ColumnOptions::default());
}

#[test]
fn vector_147_fixed_size_list_float32x2() {
    let array = FixedSizeListArray::from_iter_primitive::<Float32Type, _, _>(
        [
            Some(vec![Some(0.0), Some(1.0)]),
            Some(vec![Some(2.0), Some(3.0)]),
        ],
        2,
    );
    let source = ArrowColumnSource::from_array("p", &array, &ColumnOptions::default()).unwrap();
    assert_eq!(source.vector_format(), Some(format("float32x2")));
    assert_eq!(source.length(), 2);
    assert_eq!(
        source.bytes(),
        bytemuck::cast_slice::<f32, u8>(&[0.0, 1.0, 2.0, 3.0])
    );
    assert_round_trip(&array, &ColumnOptions::default());
}

#[test]
fn vector_148_utf8() {
    let array = StringArray::from(vec!["a", "luma"]);
    let source = ArrowColumnSource::from_array("s", &array, &ColumnOptions::default()).unwrap();
    assert_eq!(source.vector_format(), Some(format("value-list<uint8>")));
    assert_eq!((source.length(), source.value_length()), (2, 5));
    assert_eq!(
        source.readback().value_offsets().unwrap().to_u64(),
        [0, 1, 5]
    );
    assert_eq!(source.bytes(), b"aluma");
    assert_round_trip(&array, &ColumnOptions::default());
}

#[test]
fn vector_149_dictionary_slice_uploads_its_keys() {
    let keys = Int32Array::from(vec![0, 1, 2, 1]);
    let values: ArrayRef = Arc::new(StringArray::from(vec!["a", "b", "c"]));
    let dictionary = DictionaryArray::<Int32Type>::try_new(keys, values).unwrap();
    let sliced = dictionary.slice(1, 2);
    let source =
        ArrowColumnSource::from_array("d", &sliced, &ColumnOptions::with_format(format("sint32")))
            .unwrap();
    assert_eq!(source.length(), 2);
    assert_eq!(source.bytes(), bytemuck::cast_slice::<i32, u8>(&[1, 2]));
    assert_round_trip(&sliced, &ColumnOptions::default());
}

fn vec2_lists() -> ListArray {
    // offsets [0, 2, 3], values [0,0, 1,1, 2,2] as FixedSizeList<Float32, 2>
    let child = FixedSizeListArray::from_iter_primitive::<Float32Type, _, _>(
        [0.0_f32, 1.0, 2.0].map(|v| Some(vec![Some(v), Some(v)])),
        2,
    );
    ListArray::new(
        Arc::new(Field::new_list_field(child.data_type().clone(), false)),
        OffsetBuffer::new(vec![0, 2, 3].into()),
        Arc::new(child),
        None,
    )
}

#[test]
fn vector_150_list_of_vec2() {
    let array = vec2_lists();
    let source = ArrowColumnSource::from_array(
        "paths",
        &array,
        &ColumnOptions::with_format(format("vertex-list<float32x2>")),
    )
    .unwrap();
    assert_eq!(
        (source.length(), source.value_length(), source.byte_stride()),
        (2, 3, 8)
    );
    assert_eq!(
        source.readback().value_offsets().unwrap().to_u64(),
        [0, 2, 3]
    );
    assert_eq!(
        source.bytes(),
        bytemuck::cast_slice::<f32, u8>(&[0.0, 0.0, 1.0, 1.0, 2.0, 2.0])
    );
    assert_round_trip(&array, &ColumnOptions::default());
}

#[test]
fn vector_151_list_of_int16() {
    let array = ListArray::from_iter_primitive::<Int16Type, _, _>([
        Some(vec![Some(10), Some(20), Some(30)]),
        Some(vec![Some(40), Some(50)]),
    ]);
    let source = ArrowColumnSource::from_array("l", &array, &ColumnOptions::default()).unwrap();
    assert_eq!(source.vector_format(), Some(format("vertex-list<sint16>")));
    assert_eq!(
        (source.length(), source.value_length(), source.byte_stride()),
        (2, 5, 2)
    );
    assert_eq!(source.bytes().len(), 10);
    assert_round_trip(&array, &ColumnOptions::default());
}

#[test]
fn vector_152_list_of_fixed_size_lists_every_width() {
    for d in 1..=4_i32 {
        let child = FixedSizeListArray::from_iter_primitive::<Float32Type, _, _>(
            (0..3).map(|i| {
                Some(
                    (0..d)
                        .map(|k| Some((i * 10 + k) as f32))
                        .collect::<Vec<_>>(),
                )
            }),
            d,
        );
        let array = ListArray::new(
            Arc::new(Field::new_list_field(child.data_type().clone(), false)),
            OffsetBuffer::new(vec![0, 2, 3].into()),
            Arc::new(child),
            None,
        );
        let source = ArrowColumnSource::from_array("l", &array, &ColumnOptions::default()).unwrap();
        let expected = if d == 1 {
            "vertex-list<float32>".to_owned()
        } else {
            format!("vertex-list<float32x{d}>")
        };
        assert_eq!(source.vector_format(), Some(format(&expected)));
        assert_eq!(
            (source.value_length(), source.byte_stride()),
            (3, 4 * d as u64)
        );
        assert_round_trip(&array, &ColumnOptions::default());
    }
}

#[test]
fn vector_154_sliced_list_rebases_offsets() {
    let array = vec2_lists().slice(1, 1);
    let source = ArrowColumnSource::from_array("l", &array, &ColumnOptions::default()).unwrap();
    assert_eq!(source.readback().value_offsets().unwrap().to_u64(), [0, 1]);
    assert_eq!(source.bytes(), bytemuck::cast_slice::<f32, u8>(&[2.0, 2.0]));
    assert_round_trip(&array, &ColumnOptions::default());
}

#[test]
fn vector_155_nullable_list_is_refused_naming_the_column() {
    let array = ListArray::from_iter_primitive::<Int16Type, _, _>([Some(vec![Some(1)]), None]);
    let error =
        ArrowColumnSource::from_array("paths", &array, &ColumnOptions::default()).unwrap_err();
    assert!(
        matches!(error, ArrowInteropError::Nulls { ref column, null_count: 1, .. } if column == "paths")
    );
    assert!(
        error.to_string().contains("do not support nullable data"),
        "{error}"
    );
    let nested = ListArray::from_iter_primitive::<Int16Type, _, _>([Some(vec![Some(1), None])]);
    let error =
        ArrowColumnSource::from_array("paths", &nested, &ColumnOptions::default()).unwrap_err();
    assert!(
        error.to_string().contains("nullable nested list data"),
        "{error}"
    );
}

#[test]
fn vector_156_default_formats() {
    assert_eq!(
        default_format("c", &fsl(DataType::UInt8, 4)).unwrap(),
        format("uint8x4")
    );
    assert_eq!(
        default_format("c", &fsl(DataType::UInt8, 3)).unwrap(),
        format("uint8x3-webgl")
    );
    let e = default_format("c", &fsl(DataType::Float16, 3)).unwrap_err();
    assert!(
        e.to_string()
            .contains("cannot synthesize a float16x3 gpu vector format"),
        "{e}"
    );
    let e = default_format("c", &DataType::Float64).unwrap_err();
    assert!(
        e.to_string()
            .contains("unsupported gpu vector logical type Float64"),
        "{e}"
    );
    let e = default_format("c", &fsl(DataType::Float32, 5)).unwrap_err();
    assert!(
        matches!(e, ArrowInteropError::ComponentCount { components: 5, .. }),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("cannot synthesize a gpu vector format"),
        "{e}"
    );
    let dictionary = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    assert_eq!(default_format("c", &dictionary).unwrap(), format("sint32"));
    assert_eq!(
        default_format("c", &list(DataType::Int16)).unwrap(),
        format("vertex-list<sint16>")
    );
}

#[test]
fn vector_157_shader_driven_formats() {
    let cases = [
        (
            gpudata::format::DataType::Float16,
            1,
            "f32",
            false,
            "float16",
        ),
        (
            gpudata::format::DataType::Sint16,
            4,
            "vec4<f32>",
            false,
            "snorm16x4",
        ),
        (
            gpudata::format::DataType::Uint16,
            4,
            "vec4<f32>",
            false,
            "unorm16x4",
        ),
        (
            gpudata::format::DataType::Sint8,
            4,
            "vec4<f32>",
            false,
            "snorm8x4",
        ),
        (
            gpudata::format::DataType::Uint8,
            4,
            "vec4<f32>",
            false,
            "unorm8x4",
        ),
        (
            gpudata::format::DataType::Uint8,
            4,
            "vec4<f16>",
            false,
            "unorm8x4",
        ),
        (
            gpudata::format::DataType::Sint16,
            2,
            "vec2<f16>",
            false,
            "snorm16x2",
        ),
        (
            gpudata::format::DataType::Sint8,
            3,
            "vec3<i32>",
            true,
            "sint8x3-webgl",
        ),
    ];
    for (data_type, n, s, webgl, expected) in cases {
        let got = vertex_format_for_shader("c", data_type, n, shader(s), webgl).unwrap();
        assert_eq!(got.as_str(), expected, "{data_type} x{n} as {s}");
    }
}

#[test]
fn vector_158_shader_driven_errors() {
    let cases = [
        (
            gpudata::format::DataType::Uint32,
            4,
            "vec4<f32>",
            "no normalized 32-bit integer vertex format",
        ),
        (
            gpudata::format::DataType::Float32,
            2,
            "vec2<i32>",
            "cannot be used",
        ),
        (
            gpudata::format::DataType::Uint16,
            2,
            "vec2<i32>",
            "signedness does not match",
        ),
        (
            gpudata::format::DataType::Sint16,
            2,
            "vec2<u32>",
            "signedness does not match",
        ),
        (
            gpudata::format::DataType::Float16,
            3,
            "vec3<f32>",
            "portable webgpu layouts",
        ),
        (
            gpudata::format::DataType::Uint8,
            3,
            "vec3<u32>",
            "portable webgpu layouts",
        ),
        (
            gpudata::format::DataType::Uint8,
            3,
            "vec3<f32>",
            "portable webgpu layouts",
        ),
        (
            gpudata::format::DataType::Float32,
            4,
            "vec4<f16>",
            "cannot be used",
        ),
        (
            gpudata::format::DataType::Uint8,
            4,
            "vec3<u32>",
            "expects 3",
        ),
    ];
    for (data_type, n, s, theme) in cases {
        let e = vertex_format_for_shader("colors", data_type, n, shader(s), false).unwrap_err();
        assert!(
            e.to_string().contains(theme),
            "{data_type} x{n} as {s}: {e}"
        );
        assert!(e.to_string().contains("colors"), "{e}");
    }
}

// ---------------------------------------------------------------- explicit formats

#[test]
fn explicit_formats_must_store_the_same_bytes() {
    let colors = fsl(DataType::UInt8, 4);
    for ok in ["uint8x4", "unorm8x4", "unorm8x4-bgra"] {
        check_format("colors", &colors, format(ok)).unwrap();
    }
    let e = check_format("colors", &colors, format("float32")).unwrap_err();
    assert!(
        e.to_string().contains("uint8x4, unorm8x4, unorm8x4-bgra"),
        "{e}"
    );
    check_format("packed", &DataType::UInt32, format("unorm10-10-10-2")).unwrap();
    check_format("x", &DataType::Float64, format("uint32x2")).unwrap();
    check_format("x", &DataType::Int64, format("sint32x2")).unwrap();
    check_format("x", &fsl(DataType::Float64, 2), format("uint32x4")).unwrap();
    assert!(check_format("x", &DataType::Float64, format("float32x2")).is_err());
    assert!(
        check_format("x", &DataType::Int32, format("uint32")).is_err(),
        "signedness is kept"
    );
    assert!(
        check_format("l", &list(DataType::UInt8), format("uint8")).is_err(),
        "lists need vertex-list"
    );
    check_format(
        "l",
        &list(fsl(DataType::UInt8, 4)),
        format("vertex-list<unorm8x4>"),
    )
    .unwrap();
    check_format("s", &DataType::Utf8, format("value-list<uint8>")).unwrap();
    assert!(check_format("s", &DataType::Utf8, format("uint8")).is_err());
}

#[test]
fn explicit_unorm8x4_uploads_the_same_bytes() {
    let mut builder = FixedSizeListBuilder::new(PrimitiveBuilder::<UInt8Type>::new(), 4);
    for row in [[255_u8, 0, 0, 255], [0, 128, 255, 64]] {
        builder.values().append_slice(&row);
        builder.append(true);
    }
    let colors = builder.finish();
    let source = ArrowColumnSource::from_array(
        "colors",
        &colors,
        &ColumnOptions::with_format(format("unorm8x4")),
    )
    .unwrap();
    assert_eq!(source.vector_format(), Some(format("unorm8x4")));
    assert_eq!(source.bytes(), &[255, 0, 0, 255, 0, 128, 255, 64]);
    assert_round_trip(&colors, &ColumnOptions::with_format(format("unorm8x4")));
}

#[test]
fn shader_choice_applies_to_list_elements() {
    let child = FixedSizeListArray::try_new(
        Arc::new(Field::new_list_field(DataType::UInt8, false)),
        4,
        Arc::new(arrow_array::UInt8Array::from(vec![1, 2, 3, 4])),
        None,
    )
    .unwrap();
    let lists = ListArray::new(
        Arc::new(Field::new_list_field(child.data_type().clone(), false)),
        OffsetBuffer::from_lengths([1]),
        Arc::new(child),
        None,
    );
    let options = ColumnOptions {
        format: FormatChoice::Shader(shader("vec4<f32>")),
        ..ColumnOptions::default()
    };
    let source = ArrowColumnSource::from_array("c", &lists, &options).unwrap();
    assert_eq!(
        source.vector_format(),
        Some(format("vertex-list<unorm8x4>"))
    );
}

// ---------------------------------------------------------------- zero copy and errors

#[test]
fn sources_borrow_the_arrow_buffer() {
    let array = Float32Array::from((0..100).map(|v| v as f32).collect::<Vec<_>>());
    let sliced = array.slice(10, 50);
    let source = ArrowColumnSource::from_array("x", &sliced, &ColumnOptions::default()).unwrap();
    let base = array.values().inner().as_ptr();
    assert_eq!(
        source.bytes().as_ptr(),
        base.wrapping_add(40),
        "no copy: the slice of the values buffer"
    );
    assert_eq!(source.bytes().len(), 200);
}

#[test]
fn unsupported_types_are_named() {
    let cases: Vec<(DataType, &str)> = vec![
        (DataType::Boolean, "does not support arrow type Boolean"),
        (
            list(list(DataType::Int32)),
            "does not support arrow type List",
        ),
        (DataType::Utf8View, "does not support arrow type Utf8View"),
        (DataType::Int64, "unsupported gpu vector logical type Int64"),
        (
            DataType::FixedSizeBinary(8),
            "does not support arrow type FixedSizeBinary(8)",
        ),
    ];
    for (data_type, theme) in cases {
        let e = default_format("weights", &data_type).unwrap_err();
        assert!(e.to_string().contains(theme), "{data_type}: {e}");
        assert!(e.to_string().contains("`weights`"), "{e}");
    }
}

#[test]
fn reject_policy_and_nested_nulls() {
    let array = Float32Array::from(vec![Some(1.0), None]);
    let reject = ColumnOptions {
        null_policy: NullPolicy::Reject,
        ..ColumnOptions::default()
    };
    let e = ArrowColumnSource::from_array("w", &array, &reject).unwrap_err();
    assert!(
        matches!(e, ArrowInteropError::Nulls { null_count: 1, .. }),
        "{e}"
    );
    assert_round_trip(&array, &ColumnOptions::default());
    let with_child_null = FixedSizeListArray::from_iter_primitive::<Float32Type, _, _>(
        [Some(vec![Some(1.0), None])],
        2,
    );
    let e = ArrowColumnSource::from_array("p", &with_child_null, &ColumnOptions::default())
        .unwrap_err();
    assert!(e.to_string().contains("no per-component validity"), "{e}");
}

#[test]
fn fixed_size_list_null_rows_may_have_null_child_slots() {
    // arrow-rs's builders, like pyarrow, mark the child slots under a null row null too: such
    // columns upload, and the null row comes back null.
    let array = FixedSizeListArray::from_iter_primitive::<Float32Type, _, _>(
        [
            Some(vec![Some(1.0), Some(2.0)]),
            None,
            Some(vec![Some(5.0), Some(6.0)]),
        ],
        2,
    );
    assert_eq!(
        array.values().null_count(),
        2,
        "the builder nulls the null row's slots"
    );
    assert_round_trip(&array, &ColumnOptions::default());
    assert_round_trip(&array.slice(1, 2), &ColumnOptions::default());
    // A null inside a valid row has no GPU meaning: refused, counting only that slot.
    let mixed = FixedSizeListArray::from_iter_primitive::<Float32Type, _, _>(
        [None, Some(vec![Some(1.0), None])],
        2,
    );
    let e = ArrowColumnSource::from_array("p", &mixed, &ColumnOptions::default()).unwrap_err();
    assert!(
        matches!(
            e,
            ArrowInteropError::Nulls {
                null_count: 1,
                what: "nested value",
                ..
            }
        ),
        "{e}"
    );
    // The valid rows of a slice are what counts: the bad row sliced away uploads.
    let tail = FixedSizeListArray::from_iter_primitive::<Float32Type, _, _>(
        [
            Some(vec![Some(1.0), None]),
            Some(vec![Some(3.0), Some(4.0)]),
        ],
        2,
    );
    assert_round_trip(&tail.slice(1, 1), &ColumnOptions::default());
}

#[test]
fn list_slices_ignore_nulls_outside_the_slice() {
    let array = ListArray::from_iter_primitive::<Int32Type, _, _>([
        Some(vec![Some(1), None]),
        Some(vec![Some(3), Some(4), Some(5)]),
    ]);
    let e = ArrowColumnSource::from_array("l", &array, &ColumnOptions::default()).unwrap_err();
    assert!(
        matches!(e, ArrowInteropError::Nulls { null_count: 1, .. }),
        "{e}"
    );
    assert_round_trip(&array.slice(1, 1), &ColumnOptions::default());
}

#[test]
fn readback_checks_its_byte_count() {
    let array = Float32Array::from(vec![1.0, 2.0]);
    let source = ArrowColumnSource::from_array("x", &array, &ColumnOptions::default()).unwrap();
    let e = source.readback().to_array(vec![0_u8; 4]).unwrap_err();
    assert!(
        matches!(
            e,
            ArrowInteropError::ReadbackLength {
                expected: 8,
                found: 4,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn fround_readback_joins_high_and_low_parts() {
    let values = [
        std::f64::consts::PI,
        -std::f64::consts::E,
        0.1,
        16_777_217.0,
    ];
    let array = Float64Array::from(values.to_vec());
    let options = ColumnOptions {
        format: FormatChoice::Fround,
        ..ColumnOptions::default()
    };
    let source = ArrowColumnSource::from_array("x", &array, &options).unwrap();
    assert!(source.needs_fround());
    assert_eq!(source.vector_format(), Some(format("uint32x2")));
    // The CPU reference of fround: hi = f32(x), lo = f32(x - hi).
    let mut rows = Vec::new();
    for x in values {
        let hi = x as f32;
        rows.extend([hi, (x - f64::from(hi)) as f32]);
    }
    let readback = source.into_readback().after_fround();
    let back = readback
        .to_array(bytemuck::cast_slice::<f32, u8>(&rows).to_vec())
        .unwrap();
    let back = back.as_any().downcast_ref::<Float64Array>().unwrap();
    for (got, want) in back.values().iter().zip(values) {
        assert!((got - want).abs() <= want.abs() * 1e-14, "{got} vs {want}");
    }
}

#[test]
fn interleaved_rows_round_trip_with_their_layout() {
    let rows = GpuDataStructFormat::parse(
        StructLayout::Packed,
        [("position", "float32x3"), ("color", "unorm8x4")],
    )
    .unwrap();
    let layout = rows.buffer_layout("instances", None);
    let field = interleaved_field("instances", &layout, true).unwrap();
    assert_eq!(interleaved_layout(&field).unwrap(), Some(layout.clone()));
    let bytes: Vec<u8> = (0..48).collect();
    let array = FixedSizeBinaryArray::try_new(
        16,
        Buffer::from_vec(bytes),
        Some(NullBuffer::from(vec![true, false, true])),
    )
    .unwrap();
    let sliced = array.slice(1, 2);
    let source = ArrowColumnSource::new(&field, &sliced, &ColumnOptions::default()).unwrap();
    assert_eq!(source.bytes(), &(16..48).collect::<Vec<u8>>()[..]);
    let back = source.readback().to_array(source.bytes().to_vec()).unwrap();
    assert_eq!(back.as_ref(), &sliced as &dyn Array);
    // Without the metadata the column cannot be carried.
    let plain = Field::new("instances", DataType::FixedSizeBinary(16), true);
    let e = ArrowColumnSource::new(&plain, &sliced, &ColumnOptions::default()).unwrap_err();
    assert!(
        matches!(e, ArrowInteropError::InterleavedMetadata { .. }),
        "{e}"
    );
    // A layout that does not fit the rows is refused.
    let mut bad = layout;
    bad.byte_stride = Some(12);
    assert!(interleaved_field("instances", &bad, false).is_err());
}

// ---------------------------------------------------------------- proptest round trips

/// A primitive array of `data_type` over random bytes, with random validity.
fn primitive(
    data_type: &DataType,
    width: usize,
    bytes: &[u8],
    validity: &[bool],
) -> Result<ArrayRef, ArrowError> {
    let len = bytes.len() / width;
    let nulls =
        (validity.len() >= len && len > 0).then(|| NullBuffer::from(validity[..len].to_vec()));
    let data = arrow_data::ArrayData::builder(data_type.clone())
        .len(len)
        .add_buffer(Buffer::from(&bytes[..len * width]))
        .nulls(nulls)
        .build()?;
    Ok(make_array(data))
}

fn slice_of(array: &dyn Array, a: usize, b: usize) -> ArrayRef {
    let len = array.len();
    let offset = if len == 0 { 0 } else { a % (len + 1) };
    let take = if len - offset == 0 {
        0
    } else {
        b % (len - offset + 1)
    };
    array.slice(offset, take)
}

const SCALARS: [(DataType, usize, Option<&str>); 11] = [
    (DataType::Int8, 1, None),
    (DataType::Int16, 2, None),
    (DataType::Int32, 4, None),
    (DataType::UInt8, 1, None),
    (DataType::UInt16, 2, None),
    (DataType::UInt32, 4, None),
    (DataType::Float16, 2, None),
    (DataType::Float32, 4, None),
    (DataType::Int64, 8, Some("sint32x2")),
    (DataType::UInt64, 8, Some("uint32x2")),
    (DataType::Float64, 8, Some("uint32x2")),
];

fn options_for(explicit: Option<&str>) -> ColumnOptions {
    explicit.map_or_else(ColumnOptions::default, |f| {
        ColumnOptions::with_format(format(f))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn primitives_round_trip(
        bytes in prop::collection::vec(any::<u8>(), 0..160),
        validity in prop::collection::vec(any::<bool>(), 0..160),
        a in any::<usize>(), b in any::<usize>(),
    ) {
        for (data_type, width, explicit) in &SCALARS {
            let array = primitive(data_type, *width, &bytes, &validity).unwrap();
            let sliced = slice_of(array.as_ref(), a, b);
            let field = Field::new("c", data_type.clone(), true);
            let back = round_trip(&field, sliced.as_ref(), &options_for(*explicit)).unwrap();
            prop_assert_eq!(back.as_ref(), sliced.as_ref());
        }
    }

    #[test]
    fn fixed_size_lists_round_trip(
        bytes in prop::collection::vec(any::<u8>(), 0..256),
        validity in prop::collection::vec(any::<bool>(), 0..64),
        a in any::<usize>(), b in any::<usize>(),
    ) {
        for (data_type, width, explicit) in &SCALARS {
            for size in 1..=4_usize {
                let rows = bytes.len() / (width * size);
                let child = primitive(data_type, *width, &bytes[..rows * width * size], &[]).unwrap();
                let nulls = (validity.len() >= rows && rows > 0).then(|| NullBuffer::from(validity[..rows].to_vec()));
                let array = FixedSizeListArray::try_new(
                    Arc::new(Field::new_list_field(data_type.clone(), false)), size as i32, child, nulls,
                ).unwrap();
                let sliced = slice_of(&array, a, b);
                let field = Field::new("c", sliced.data_type().clone(), true);
                let options = match (explicit, size) {
                    (Some(_), 1) => ColumnOptions::with_format(format("uint32x2")).with_signed(data_type),
                    (Some(_), 2) => ColumnOptions::with_format(format("uint32x4")).with_signed(data_type),
                    (Some(_), _) => continue,
                    (None, _) => ColumnOptions::default(),
                };
                match round_trip(&field, sliced.as_ref(), &options) {
                    Ok(back) => prop_assert_eq!(back.as_ref(), sliced.as_ref()),
                    Err(e) => {
                        // Only three float16 components have no format.
                        prop_assert!(matches!(e, ArrowInteropError::Float16x3 { .. }), "{}", e);
                        prop_assert_eq!((data_type, size), (&DataType::Float16, 3));
                    }
                }
            }
        }
    }

    #[test]
    fn lists_round_trip(
        rows in prop::collection::vec(prop::collection::vec(any::<i16>(), 0..6), 0..12),
        a in any::<usize>(), b in any::<usize>(),
    ) {
        let ints = ListArray::from_iter_primitive::<Int16Type, _, _>(rows.iter().map(|r| Some(r.iter().copied().map(Some).collect::<Vec<_>>())));
        let sliced = slice_of(&ints, a, b);
        let back = round_trip(&Field::new("c", sliced.data_type().clone(), false), sliced.as_ref(), &ColumnOptions::default()).unwrap();
        prop_assert_eq!(back.as_ref(), sliced.as_ref());

        // List<FixedSizeList<Float32, 3>> and LargeList of the same, sliced.
        let flat: Vec<f32> = rows.iter().flatten().flat_map(|v| [f32::from(*v), 0.5, -1.0]).collect();
        let child = FixedSizeListArray::try_new(
            Arc::new(Field::new_list_field(DataType::Float32, false)), 3, Arc::new(Float32Array::from(flat)), None,
        ).unwrap();
        let offsets = OffsetBuffer::<i32>::from_lengths(rows.iter().map(Vec::len));
        let vec3 = ListArray::new(Arc::new(Field::new_list_field(child.data_type().clone(), false)), offsets, Arc::new(child.clone()), None);
        let sliced = slice_of(&vec3, a, b);
        let back = round_trip(&Field::new("c", sliced.data_type().clone(), false), sliced.as_ref(), &ColumnOptions::default()).unwrap();
        prop_assert_eq!(back.as_ref(), sliced.as_ref());

        let large_offsets = OffsetBuffer::<i64>::from_lengths(rows.iter().map(Vec::len));
        let large = arrow_array::LargeListArray::new(Arc::new(Field::new_list_field(child.data_type().clone(), false)), large_offsets, Arc::new(child), None);
        let sliced = slice_of(&large, a, b);
        let back = round_trip(&Field::new("c", sliced.data_type().clone(), false), sliced.as_ref(), &ColumnOptions::default()).unwrap();
        prop_assert_eq!(back.as_ref(), sliced.as_ref());
    }

    #[test]
    fn strings_and_binaries_round_trip(
        values in prop::collection::vec(prop::option::of(".{0,8}"), 0..16),
        a in any::<usize>(), b in any::<usize>(),
    ) {
        let utf8 = StringArray::from(values.clone());
        let large = LargeStringArray::from(values.clone());
        let binary = BinaryArray::from(values.iter().map(|v| v.as_deref().map(str::as_bytes)).collect::<Vec<_>>());
        for array in [&utf8 as &dyn Array, &large, &binary] {
            let sliced = slice_of(array, a, b);
            let back = round_trip(&Field::new("c", sliced.data_type().clone(), true), sliced.as_ref(), &ColumnOptions::default()).unwrap();
            prop_assert_eq!(back.as_ref(), sliced.as_ref());
        }
    }

    #[test]
    fn dictionaries_round_trip(
        keys in prop::collection::vec(prop::option::of(0_u8..4), 0..24),
        a in any::<usize>(), b in any::<usize>(),
    ) {
        let values: ArrayRef = Arc::new(StringArray::from(vec!["north", "east", "south", "west"]));
        let narrow = DictionaryArray::<UInt8Type>::try_new(keys.iter().copied().collect(), values.clone()).unwrap();
        let wide = DictionaryArray::<Int32Type>::try_new(keys.iter().map(|k| k.map(i32::from)).collect(), values).unwrap();
        for array in [&narrow as &dyn Array, &wide] {
            let sliced = slice_of(array, a, b);
            let back = round_trip(&Field::new("c", sliced.data_type().clone(), true), sliced.as_ref(), &ColumnOptions::default()).unwrap();
            prop_assert_eq!(back.as_ref(), sliced.as_ref());
        }
    }
}

/// Float64/Int64/UInt64 fixed-size lists travel as words of the element's signedness.
trait WithSigned {
    fn with_signed(self, data_type: &DataType) -> ColumnOptions;
}

impl WithSigned for ColumnOptions {
    fn with_signed(self, data_type: &DataType) -> ColumnOptions {
        match (data_type, self.format) {
            (DataType::Int64, FormatChoice::Format(f)) => {
                let signed = match f.element_format() {
                    VertexFormat::Uint32x2 => "sint32x2",
                    _ => "sint32x4",
                };
                ColumnOptions::with_format(format(signed))
            }
            _ => self,
        }
    }
}
