//! The error catalogue (`docs/ERRORS.md`), host-side part: every variant of [`FormatError`],
//! [`LayoutError`], [`WgslError`], [`LayoutRuleError`] and [`RowBytesError`] triggered through
//! the public API, pinned by variant and by its whole rendered message.

use gpudata::error::WgslError;
use gpudata::format::DataType;
use gpudata::layout::{
    BufferAttribute, GpuDataStructField, LayoutCursor, LayoutRuleError, RowShape, layout_formats,
};
use gpudata::record::{RowBytesError, decode_rows, encode_rows};
use gpudata::{
    BufferLayout, FormatError, GpuDataStructFormat, GpuStruct, GpuVectorFormat, LayoutError,
    ShaderType, StepMode, StructLayout, VertexFormat,
};

// ---------------------------------------------------------------------------------------------
// FormatError

#[test]
fn format_unknown_vertex_format() {
    let error = "float32x5".parse::<VertexFormat>().unwrap_err();
    assert_eq!(
        error,
        FormatError::UnknownVertexFormat {
            format: "float32x5".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "unsupported vertex format `float32x5`: expected a WebGPU vertex format such as `float32x3`, `unorm8x4` or `uint16x3-webgl`"
    );
}

#[test]
fn format_unknown_vector_format() {
    let error = "vertex-list<float64>"
        .parse::<GpuVectorFormat>()
        .unwrap_err();
    assert_eq!(
        error,
        FormatError::UnknownVectorFormat {
            format: "vertex-list<float64>".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "unsupported gpu vector format `vertex-list<float64>`: expected a vertex format, `vertex-list<F>` or `value-list<F>`"
    );
}

#[test]
fn format_unknown_shader_type() {
    let error = "vec5<f32>".parse::<ShaderType>().unwrap_err();
    assert_eq!(
        error,
        FormatError::UnknownShaderType {
            shader_type: "vec5<f32>".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "unsupported attribute shader type `vec5<f32>`: expected `f32`, `f16`, `i32`, `u32`, `vecN<T>` or an alias such as `vec3f`"
    );
}

#[test]
fn format_webgl_only() {
    let error = VertexFormat::Uint8x3Webgl.try_to_wgpu().unwrap_err();
    assert_eq!(
        error,
        FormatError::WebglOnly {
            format: VertexFormat::Uint8x3Webgl
        }
    );
    assert_eq!(
        error.to_string(),
        "vertex format `uint8x3-webgl` is WebGL-only: wgpu cannot fetch it; use a 4-component format"
    );
}

#[test]
fn format_no_such_format() {
    let error = VertexFormat::from_parts(DataType::Uint8, 3, false).unwrap_err();
    assert_eq!(
        error,
        FormatError::NoSuchFormat {
            data_type: DataType::Uint8,
            components: 3
        }
    );
    assert_eq!(
        error.to_string(),
        "no vertex format has 3 components of uint8"
    );
}

// ---------------------------------------------------------------------------------------------
// LayoutError

#[test]
fn layout_unknown_layout() {
    let error = "std430".parse::<StructLayout>().unwrap_err();
    assert_eq!(
        error,
        LayoutError::UnknownLayout {
            layout: "std430".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "unknown struct layout `std430`: expected `wgsl-storage`, `wgsl-uniform` or `packed`"
    );
}

#[test]
fn layout_unknown_step_mode() {
    let error = "per-frame".parse::<StepMode>().unwrap_err();
    assert_eq!(
        error,
        LayoutError::UnknownStepMode {
            step_mode: "per-frame".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "unknown step mode `per-frame`: expected `vertex` or `instance`"
    );
}

#[test]
fn layout_unknown_format() {
    let error = GpuDataStructFormat::parse(
        StructLayout::Packed,
        [("tag", "uint8"), ("position", "float32x5")],
    )
    .unwrap_err();
    assert_eq!(
        error,
        LayoutError::UnknownFormat {
            field: "position".into(),
            format: "float32x5".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "field `position` has unsupported vertex format `float32x5`"
    );
}

#[test]
fn layout_no_fields() {
    let error = GpuDataStructFormat::new(
        StructLayout::WgslStorage,
        Vec::<(&'static str, VertexFormat)>::new(),
    )
    .unwrap_err();
    assert_eq!(error, LayoutError::NoFields);
    assert_eq!(
        error.to_string(),
        "a gpu struct format must declare at least one field"
    );
}

#[test]
fn layout_invalid_field_name() {
    use gpudata::layout::{BufferAttribute, BufferLayout, FieldNameProblem};
    let error =
        GpuDataStructFormat::parse(StructLayout::Packed, [("a", "float32"), ("b c", "uint32")])
            .unwrap_err();
    assert_eq!(
        error,
        LayoutError::InvalidFieldName {
            field: "b c".into(),
            problem: FieldNameProblem::Character { found: ' ', at: 1 },
        }
    );
    assert_eq!(
        error.to_string(),
        "field name \"b c\" is not a field path: expected identifiers joined by `.`, each with optional `[N]` indices (`position`, `lights[1].color`), found ' ' at byte 1"
    );
    // Every way to a struct format applies the one rule.
    let empty = GpuDataStructFormat::new(StructLayout::WgslStorage, [("", VertexFormat::Float32)]);
    assert_eq!(
        empty.unwrap_err(),
        LayoutError::InvalidFieldName {
            field: String::new(),
            problem: FieldNameProblem::Empty,
        }
    );
    let trailing = GpuDataStructFormat::parse(StructLayout::Packed, [("a.", "float32")]);
    assert_eq!(
        trailing.unwrap_err(),
        LayoutError::InvalidFieldName {
            field: "a.".into(),
            problem: FieldNameProblem::Segment { at: 2 },
        }
    );
    // Vertex layouts name attributes by what they come from (Arrow column names are free):
    // only struct rows need field paths.
    let mut layout = BufferLayout::single("p", VertexFormat::Float32, 4);
    layout.attributes = vec![BufferAttribute {
        attribute: "dep delay".into(),
        format: VertexFormat::Float32,
        byte_offset: 0,
    }];
    let wgpu_layout = layout.to_wgpu(0).unwrap();
    assert_eq!(wgpu_layout.as_wgpu().attributes.len(), 1);
    // luma.gl's flattened paths are names.
    let paths = [("lights[1].color", "float32x4"), ("bones[2]", "float32")];
    let format = GpuDataStructFormat::parse(StructLayout::Packed, paths).unwrap();
    let names: Vec<&str> = format.fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, ["lights[1].color", "bones[2]"]);
}

#[test]
fn layout_duplicate_field() {
    let error = GpuDataStructFormat::parse(
        StructLayout::Packed,
        [("a", "float32"), ("b", "uint32"), ("a", "uint8x4")],
    )
    .unwrap_err();
    assert_eq!(
        error,
        LayoutError::DuplicateField {
            field: "a".into(),
            first: 0,
            second: 2
        }
    );
    assert_eq!(
        error.to_string(),
        "duplicate field `a`: fields 0 and 2 share the name"
    );
}

#[test]
fn layout_duplicate_field_check_scales_linearly() {
    // The duplicate-name check once compared every pair: 40,000 fields took 11 s. Time two
    // sizes ten times apart (the fastest of three runs each) and compare loosely: a linear check
    // takes about 10 times as long, a quadratic one about 100 times. The 400k run's names leave
    // the caches, so on a loaded machine an n log n check has measured up to 44 times: the bound
    // sits between that and quadratic.
    fn declare(n: usize) -> std::time::Duration {
        let fields: Vec<(String, VertexFormat)> = (0..n)
            .map(|i| (format!("f{i}"), VertexFormat::Float32))
            .chain([("f1".to_owned(), VertexFormat::Float32)])
            .collect();
        (0..3)
            .map(|_| {
                let fields = fields.clone();
                let start = std::time::Instant::now();
                // 400k fields: past the default bound of 65,536 (`DeclarationLimits`), raised.
                let limits = gpudata::layout::DeclarationLimits {
                    max_fields: usize::MAX,
                    ..Default::default()
                };
                let error = GpuDataStructFormat::with_limits(StructLayout::Packed, fields, &limits)
                    .unwrap_err();
                let elapsed = start.elapsed();
                assert_eq!(
                    error,
                    LayoutError::DuplicateField {
                        field: "f1".into(),
                        first: 1,
                        second: n
                    }
                );
                elapsed
            })
            .min()
            .unwrap()
    }
    let small = declare(40_000);
    let large = declare(400_000);
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-9);
    assert!(
        ratio < 70.0,
        "400k fields took {large:?}, 40k took {small:?}: ratio {ratio:.1}, expected about 10"
    );
}

#[test]
fn layout_webgl_only_in_packed() {
    let error = GpuDataStructFormat::parse(
        StructLayout::Packed,
        [("id", "uint32"), ("rgb", "uint8x3-webgl")],
    )
    .unwrap_err();
    assert_eq!(
        error,
        LayoutError::WebglOnlyInPacked {
            field: "rgb".into(),
            format: VertexFormat::Uint8x3Webgl
        }
    );
    assert_eq!(
        error.to_string(),
        "packed struct field `rgb` uses WebGL-only format `uint8x3-webgl`: the packed layout follows WebGPU vertex rules; use a 4-component format or the wgsl-storage layout"
    );
}

fn interleaved(
    name: &str,
    byte_stride: Option<u64>,
    attributes: &[(&str, &str, u64)],
) -> BufferLayout {
    BufferLayout {
        name: name.into(),
        format: None,
        byte_stride,
        step_mode: None,
        attributes: attributes
            .iter()
            .map(|(attribute, format, byte_offset)| BufferAttribute {
                attribute: (*attribute).into(),
                format: format.parse().unwrap(),
                byte_offset: *byte_offset,
            })
            .collect(),
    }
}

#[test]
fn layout_no_attributes() {
    let error = interleaved("instances", Some(16), &[])
        .to_wgpu(0)
        .unwrap_err();
    assert_eq!(
        error,
        LayoutError::NoAttributes {
            layout: "instances".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "buffer layout `instances` has no attributes and no format"
    );
}

#[test]
fn layout_no_byte_stride() {
    let error = interleaved("instances", None, &[("position", "float32x3", 0)])
        .to_wgpu(0)
        .unwrap_err();
    assert_eq!(
        error,
        LayoutError::NoByteStride {
            layout: "instances".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "buffer layout `instances` requires a byte stride for interleaved attributes"
    );
}

#[test]
fn layout_misaligned_stride() {
    let error = BufferLayout::single("tags", VertexFormat::Uint8x2, 2)
        .to_wgpu(0)
        .unwrap_err();
    assert_eq!(
        error,
        LayoutError::MisalignedStride {
            layout: "tags".into(),
            byte_stride: 2
        }
    );
    assert_eq!(
        error.to_string(),
        "buffer layout `tags` has byte stride 2: wgpu vertex strides must be a multiple of 4"
    );
}

#[test]
fn layout_misaligned_attribute() {
    let error = interleaved("rows", Some(8), &[("value", "float32", 2)])
        .to_wgpu(0)
        .unwrap_err();
    assert_eq!(
        error,
        LayoutError::MisalignedAttribute {
            attribute: "value".into(),
            byte_offset: 2,
            alignment: 4
        }
    );
    assert_eq!(
        error.to_string(),
        "attribute `value` at byte offset 2: vertex attributes must be aligned to 4 bytes"
    );
}

#[test]
fn layout_attribute_outside_stride() {
    let error = interleaved("rows", Some(16), &[("position", "float32x3", 8)])
        .to_wgpu(0)
        .unwrap_err();
    assert_eq!(
        error,
        LayoutError::AttributeOutsideStride {
            attribute: "position".into(),
            byte_offset: 8,
            byte_length: 12,
            byte_stride: 16
        }
    );
    assert_eq!(
        error.to_string(),
        "attribute `position` spans bytes 8..8+12, past the byte stride 16"
    );
}

#[test]
fn layout_attribute_beyond_stride_limit() {
    // Stride 0: every vertex reads row 0, and WebGPU bounds such reads by its default
    // maxVertexBufferArrayStride (2048). 2048 bytes exactly is still fine.
    let fits = interleaved("rows", Some(0), &[("v", "float32", 2044)]).to_wgpu(0);
    assert!(fits.is_ok(), "{fits:?}");
    let error = interleaved("rows", Some(0), &[("v", "float32", 1 << 40)])
        .to_wgpu(0)
        .unwrap_err();
    assert_eq!(
        error,
        LayoutError::AttributeBeyondStrideLimit {
            attribute: "v".into(),
            byte_offset: 1 << 40,
            byte_length: 4,
            max_stride: 2048
        }
    );
    assert_eq!(
        error.to_string(),
        "attribute `v` ends at byte 1099511627780 (offset 1099511627776 plus 4 bytes), past 2048 bytes, the most a layout with byte stride 0 may read"
    );
}

#[test]
fn layout_duplicate_attribute() {
    let error = interleaved(
        "rows",
        Some(16),
        &[
            ("a", "float32", 0),
            ("b", "float32", 4),
            ("a", "float32", 8),
        ],
    )
    .to_wgpu(0)
    .unwrap_err();
    assert_eq!(
        error,
        LayoutError::DuplicateAttribute {
            layout: "rows".into(),
            attribute: "a".into(),
            first: 0,
            second: 2
        }
    );
    assert_eq!(
        error.to_string(),
        "buffer layout `rows` names attribute `a` twice (attributes 0 and 2): attribute names must be unique"
    );
}

#[test]
fn layout_webgl_only_vertex_attribute() {
    let error = interleaved("rows", Some(8), &[("rgb", "unorm8x3-webgl", 0)])
        .to_wgpu(0)
        .unwrap_err();
    assert_eq!(
        error,
        LayoutError::WebglOnlyVertexAttribute {
            attribute: "rgb".into(),
            format: VertexFormat::Unorm8x3Webgl
        }
    );
    assert_eq!(
        error.to_string(),
        "attribute `rgb` uses WebGL-only format `unorm8x3-webgl`, which wgpu cannot fetch as a vertex attribute"
    );
}

#[test]
fn layout_location_overflow() {
    let layout = interleaved("rows", Some(8), &[("a", "float32", 0), ("b", "float32", 4)]);
    let error = layout.to_wgpu(u32::MAX).unwrap_err();
    assert_eq!(
        error,
        LayoutError::LocationOverflow {
            base_location: u32::MAX
        }
    );
    assert_eq!(
        error.to_string(),
        "shader locations starting at 4294967295 overflow u32"
    );
}

#[test]
fn layout_inconsistent() {
    // Reached only through deserialization: serde_json reports the catalogue's message.
    let error = serde_json::from_str::<GpuDataStructFormat>(
        r#"{"layout": "packed", "fields": {"tag": {"format": "uint8"}}, "byteStride": 1}"#,
    )
    .unwrap_err();
    let expected = LayoutError::Inconsistent {
        what: "byteStride".into(),
        expected: 4,
        found: 1,
    };
    assert_eq!(
        expected.to_string(),
        "serialized struct format states byteStride 1, but its fields give 4"
    );
    assert_eq!(error.to_string(), expected.to_string());

    let error = serde_json::from_str::<GpuDataStructFormat>(
        r#"{"layout": "packed", "fields": {"tag": {"format": "uint8", "byteOffset": 0},
            "value": {"format": "float32", "byteOffset": 1}}}"#,
    )
    .unwrap_err();
    assert!(
        error.to_string().starts_with(
            "serialized struct format states byteOffset of field `value` 1, but its fields give 4"
        ),
        "{error}"
    );
}

// LayoutError::Overflow cannot be reached: offsets grow by at most 16 bytes a field, so a
// `u64` overflow needs about 2^60 fields. Its guard is pinned by the unit test
// `gpudata/src/layout/rules.rs::offsets_that_overflow_are_errors_not_wraps`.

// ---------------------------------------------------------------------------------------------
// WgslError

#[test]
fn wgsl_invalid_name() {
    // A field path (the format's name rule) that WGSL cannot use: a keyword.
    let format =
        GpuDataStructFormat::parse(StructLayout::WgslStorage, [("loop", "float32x3")]).unwrap();
    let error = format.wgsl_struct("Row").unwrap_err();
    assert_eq!(
        error,
        WgslError::InvalidName {
            name: "loop".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "`loop` is not a valid WGSL identifier: expected ASCII letters, digits and `_`, not starting with a digit or `__`, and not a WGSL keyword"
    );
}

#[test]
fn wgsl_misaligned() {
    let format =
        GpuDataStructFormat::parse(StructLayout::Packed, [("a", "float32"), ("b", "float32x3")])
            .unwrap();
    let error = format.wgsl_struct("Row").unwrap_err();
    assert_eq!(
        error,
        WgslError::Misaligned {
            field: "b".into(),
            byte_offset: 4,
            carrier: "vec3<f32>".into(),
            alignment: 16
        }
    );
    assert_eq!(
        error.to_string(),
        "field `b` at byte offset 4 cannot be a WGSL storage member: its carrier `vec3<f32>` needs 16-byte alignment"
    );
}

#[test]
fn wgsl_unreachable() {
    // The layout engine never places a field inside the previous member's carrier, so this is
    // reachable only with a format assembled from explicit offsets (the constructor the derive's
    // expansion uses): `b` at byte 8 lies inside `a`'s 12-byte `vec3<f32>` carrier.
    static INSIDE: [GpuDataStructField; 2] = [
        GpuDataStructField::from_static("a", VertexFormat::Float32x3, 0),
        GpuDataStructField::from_static("b", VertexFormat::Float32, 8),
    ];
    let format = GpuDataStructFormat::from_static(
        StructLayout::WgslStorage,
        &INSIDE,
        RowShape {
            components: 4,
            row_byte_length: 12,
            byte_stride: 16,
            alignment: 16,
        },
    );
    let error = format.wgsl_struct("Row").unwrap_err();
    assert_eq!(
        error,
        WgslError::Unreachable {
            field: "b".into(),
            byte_offset: 8,
            wgsl_offset: 12
        }
    );
    assert_eq!(
        error.to_string(),
        "field `b` at byte offset 8 cannot be a WGSL storage member: WGSL places it at byte 12 or later, after the previous member's carrier"
    );
}

#[test]
fn wgsl_stride() {
    let format =
        GpuDataStructFormat::parse(StructLayout::Packed, [("a", "float32x2"), ("b", "uint8")])
            .unwrap();
    let error = format.wgsl_struct("Row").unwrap_err();
    assert_eq!(
        error,
        WgslError::Stride {
            byte_stride: 12,
            alignment: 8,
            minimum: 16
        }
    );
    assert_eq!(
        error.to_string(),
        "byte stride 12 cannot be a WGSL struct size: expected a multiple of the struct alignment 8 of at least 16"
    );
}

// ---------------------------------------------------------------------------------------------
// LayoutRuleError (the `const fn` engine; no `Display`, its text is `message()`)

#[test]
fn rule_no_fields() {
    let error = LayoutCursor::new(StructLayout::Packed)
        .finish()
        .unwrap_err();
    assert_eq!(error, LayoutRuleError::NoFields);
    assert_eq!(
        layout_formats::<0>(StructLayout::WgslStorage, &[]).unwrap_err(),
        LayoutRuleError::NoFields
    );
    assert_eq!(
        error.message(),
        "a gpu struct format must declare at least one field"
    );
}

#[test]
fn rule_webgl_only_in_packed() {
    let error = layout_formats(
        StructLayout::Packed,
        &[VertexFormat::Float32, VertexFormat::Snorm16x3Webgl],
    )
    .unwrap_err();
    assert_eq!(
        error,
        LayoutRuleError::WebglOnlyInPacked {
            index: 1,
            format: VertexFormat::Snorm16x3Webgl
        }
    );
    assert_eq!(
        error.message(),
        "the packed layout follows WebGPU vertex rules and cannot hold a WebGL-only `-webgl` format; use a 4-component format or the wgsl-storage layout"
    );
}

#[test]
fn rule_duplicate_name() {
    // No public function returns this variant: `GpuDataStructFormat::new` turns it into
    // `LayoutError::DuplicateField` (named), and the derive reports duplicates itself. Its
    // message is pinned here, and the named form in `layout_duplicate_field`.
    let error = LayoutRuleError::DuplicateName {
        first: 0,
        second: 2,
    };
    assert_eq!(error.message(), "two fields of a gpu struct share a name");
    // The engine's duplicate search is crate-private now; its (0, 2) answer reaches users as
    // `DuplicateField`'s positions.
    assert!(matches!(
        GpuDataStructFormat::new(
            StructLayout::Packed,
            [
                ("a", VertexFormat::Float32),
                ("b", VertexFormat::Float32),
                ("a", VertexFormat::Float32)
            ],
        ),
        Err(LayoutError::DuplicateField {
            first: 0,
            second: 2,
            ..
        })
    ));
}

// LayoutRuleError::Overflow is a guard, as LayoutError::Overflow above (same unit test).

// ---------------------------------------------------------------------------------------------
// RowBytesError

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
struct Vertex {
    position: [f32; 3],
    tag: u32,
}

#[test]
fn rows_destination_length() {
    let rows = [Vertex {
        position: [1.0, 2.0, 3.0],
        tag: 7,
    }; 2];
    let mut dst = vec![0u8; 31];
    let error = encode_rows(&rows, &mut dst).unwrap_err();
    assert_eq!(
        error,
        RowBytesError::DestinationLength {
            rows: 2,
            byte_stride: 16,
            expected: 32,
            found: 31
        }
    );
    assert_eq!(
        error.to_string(),
        "destination holds 31 bytes, but encoding 2 rows of byte stride 16 needs 32"
    );
}

#[test]
fn rows_source_length() {
    let error = decode_rows::<Vertex>(&[0u8; 20]).unwrap_err();
    assert_eq!(
        error,
        RowBytesError::SourceLength {
            byte_stride: 16,
            found: 20
        }
    );
    assert_eq!(
        error.to_string(),
        "source holds 20 bytes, which is not a multiple of the byte stride 16"
    );
}

/// A count of 1 reads in the singular: `1 byte`, `1 row`.
#[test]
fn rows_lengths_of_one_are_singular() {
    let rows = [Vertex {
        position: [1.0, 2.0, 3.0],
        tag: 7,
    }];
    let error = encode_rows(&rows, &mut [0u8; 1]).unwrap_err();
    assert_eq!(
        error,
        RowBytesError::DestinationLength {
            rows: 1,
            byte_stride: 16,
            expected: 16,
            found: 1
        }
    );
    assert_eq!(
        error.to_string(),
        "destination holds 1 byte, but encoding 1 row of byte stride 16 needs 16"
    );

    let error = decode_rows::<Vertex>(&[0u8; 1]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "source holds 1 byte, which is not a multiple of the byte stride 16"
    );
}
