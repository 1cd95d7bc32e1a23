//! Struct format test vectors (spec §3, §11.3), errors, const/runtime agreement, buffer layouts
//! and the luma.gl JSON shape.

use gpudata::layout::{BufferAttribute, ConstLayout, GpuDataStructField, layout_formats};
use gpudata::{
    BufferLayout, GpuDataStructFormat, LayoutError, StepMode, StructLayout, VertexFormat,
};
use serde_json::json;

fn layout(l: StructLayout, fields: &[(&str, &str)]) -> GpuDataStructFormat {
    GpuDataStructFormat::parse(l, fields.iter().copied()).unwrap()
}

fn offsets(f: &GpuDataStructFormat) -> Vec<u64> {
    f.fields().iter().map(|f| f.byte_offset()).collect()
}

/// (offsets, components, rowByteLength, byteStride)
fn summary(f: &GpuDataStructFormat) -> (Vec<u64>, u32, u64, u64) {
    (
        offsets(f),
        f.components(),
        f.row_byte_length(),
        f.byte_stride(),
    )
}

use StructLayout::{Packed, WgslStorage};

#[test]
fn packed_vectors_23_to_25_and_29_to_31() {
    let f = layout(
        Packed,
        &[
            ("tag", "uint8"),
            ("pair", "uint8x2"),
            ("color", "unorm8x4"),
            ("position", "float32x3"),
        ],
    );
    assert_eq!(summary(&f), (vec![0, 2, 4, 8], 10, 20, 20));
    assert_eq!(
        summary(&layout(Packed, &[("tag", "uint8")])),
        (vec![0], 1, 1, 4)
    );
    assert_eq!(
        summary(&layout(Packed, &[("tag", "uint8"), ("value", "float32")])),
        (vec![0, 4], 2, 8, 8)
    );
    assert_eq!(
        summary(&layout(
            Packed,
            &[("a", "float16"), ("b", "uint8"), ("c", "float32x2")]
        )),
        (vec![0, 2, 4], 4, 12, 12)
    );
    assert_eq!(
        summary(&layout(Packed, &[("a", "uint8"), ("b", "unorm10-10-10-2")])),
        (vec![0, 4], 5, 8, 8)
    );
    assert_eq!(
        summary(&layout(
            Packed,
            &[
                ("a", "uint8"),
                ("b", "uint16"),
                ("c", "uint8"),
                ("d", "float16x4")
            ]
        )),
        (vec![0, 2, 4, 8], 7, 16, 16)
    );
}

#[test]
fn wgsl_storage_vectors_28_and_32_to_36() {
    let f = layout(
        WgslStorage,
        &[
            ("tag", "uint8"),
            ("position", "float32x3"),
            ("color", "unorm8x4"),
        ],
    );
    assert_eq!(summary(&f), (vec![0, 16, 28], 8, 32, 32));
    assert_eq!(f.layout(), StructLayout::default());
    assert_eq!(
        summary(&layout(
            WgslStorage,
            &[("a", "float32x2"), ("b", "float32")]
        )),
        (vec![0, 8], 3, 12, 16)
    );
    assert_eq!(
        summary(&layout(
            WgslStorage,
            &[("a", "float32"), ("b", "float32x3")]
        )),
        (vec![0, 16], 4, 28, 32)
    );
    assert_eq!(
        summary(&layout(WgslStorage, &[("h", "float16x4")])),
        (vec![0], 4, 8, 8)
    );
    assert_eq!(
        summary(&layout(
            WgslStorage,
            &[("a", "uint16x3-webgl"), ("b", "float32")]
        )),
        (vec![0, 8], 4, 12, 16)
    );
    assert_eq!(
        summary(&layout(WgslStorage, &[("a", "uint8"), ("b", "uint8")])),
        (vec![0, 4], 2, 5, 8)
    );
}

#[test]
fn errors_name_the_field_and_format() {
    let err = GpuDataStructFormat::parse(Packed, [("legacy", "uint8x3-webgl")]).unwrap_err();
    assert_eq!(
        err,
        LayoutError::WebglOnlyInPacked {
            field: "legacy".into(),
            format: VertexFormat::Uint8x3Webgl
        }
    );
    assert!(
        err.to_string()
            .contains("WebGL-only format `uint8x3-webgl`")
    );

    let err = GpuDataStructFormat::parse(Packed, []).unwrap_err();
    assert_eq!(err, LayoutError::NoFields);
    assert_eq!(
        err.to_string(),
        "a gpu struct format must declare at least one field"
    );

    let err = GpuDataStructFormat::parse(
        WgslStorage,
        [("a", "uint8"), ("b", "uint8"), ("a", "float32")],
    )
    .unwrap_err();
    assert_eq!(
        err,
        LayoutError::DuplicateField {
            field: "a".into(),
            first: 0,
            second: 2
        }
    );
    assert_eq!(
        err.to_string(),
        "duplicate field `a`: fields 0 and 2 share the name"
    );

    let err = GpuDataStructFormat::parse(Packed, [("p", "float32x5")]).unwrap_err();
    assert_eq!(
        err,
        LayoutError::UnknownFormat {
            field: "p".into(),
            format: "float32x5".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "field `p` has unsupported vertex format `float32x5`"
    );

    assert_eq!(
        "std140".parse::<StructLayout>(),
        Err(LayoutError::UnknownLayout {
            layout: "std140".into()
        })
    );
    assert_eq!(
        "per-frame".parse::<StepMode>().unwrap_err().to_string(),
        "unknown step mode `per-frame`: expected `vertex` or `instance`"
    );
}

#[test]
fn buffer_layout_vector_27() {
    let f = layout(
        Packed,
        &[
            ("tag", "uint8"),
            ("pair", "uint8x2"),
            ("color", "unorm8x4"),
            ("position", "float32x3"),
        ],
    );
    let l = f.buffer_layout("vertices", Some(StepMode::Instance));
    let attr = |a: &str, f: VertexFormat, o| BufferAttribute {
        attribute: a.into(),
        format: f,
        byte_offset: o,
    };
    assert_eq!(
        l,
        BufferLayout {
            name: "vertices".into(),
            format: None,
            byte_stride: Some(20),
            step_mode: Some(StepMode::Instance),
            attributes: vec![
                attr("tag", VertexFormat::Uint8, 0),
                attr("pair", VertexFormat::Uint8x2, 2),
                attr("color", VertexFormat::Unorm8x4, 4),
                attr("position", VertexFormat::Float32x3, 8),
            ],
        }
    );
    assert_eq!(
        serde_json::to_value(&l).unwrap(),
        json!({"name": "vertices", "byteStride": 20, "stepMode": "instance", "attributes": [
            {"attribute": "tag", "format": "uint8", "byteOffset": 0},
            {"attribute": "pair", "format": "uint8x2", "byteOffset": 2},
            {"attribute": "color", "format": "unorm8x4", "byteOffset": 4},
            {"attribute": "position", "format": "float32x3", "byteOffset": 8}]})
    );
    let back: BufferLayout = serde_json::from_value(serde_json::to_value(&l).unwrap()).unwrap();
    assert_eq!(back, l);
    // Without a step mode the key is absent, as in luma.gl.
    let plain = serde_json::to_value(f.buffer_layout("v", None)).unwrap();
    assert!(plain.get("stepMode").is_none());

    let w = l.to_wgpu(3).unwrap();
    assert_eq!(w.array_stride, 20);
    assert_eq!(w.step_mode, wgpu::VertexStepMode::Instance);
    let locations: Vec<u32> = w.attributes.iter().map(|a| a.shader_location).collect();
    assert_eq!(locations, [3, 4, 5, 6]);
    assert_eq!(w.attributes[3].format, wgpu::VertexFormat::Float32x3);
    assert_eq!(w.attributes[3].offset, 8);
    assert_eq!(w.as_wgpu().attributes.len(), 4);
}

#[test]
fn buffer_layout_lowering_errors() {
    let single = BufferLayout::single("weights", VertexFormat::Float32, 4);
    let w = single.to_wgpu(0).unwrap();
    assert_eq!((w.array_stride, w.attributes.len()), (4, 1));

    let mut bad = BufferLayout::single("legacy", VertexFormat::Uint8x3Webgl, 4);
    assert_eq!(
        bad.to_wgpu(0),
        Err(LayoutError::WebglOnlyVertexAttribute {
            attribute: "legacy".into(),
            format: VertexFormat::Uint8x3Webgl
        })
    );
    bad.format = Some(VertexFormat::Uint8);
    bad.byte_stride = Some(6);
    assert_eq!(
        bad.to_wgpu(0).unwrap_err().to_string(),
        "buffer layout `legacy` has byte stride 6: wgpu vertex strides must be a multiple of 4"
    );
    let misaligned = BufferLayout {
        name: "rows".into(),
        format: None,
        byte_stride: Some(16),
        step_mode: None,
        attributes: vec![BufferAttribute {
            attribute: "p".into(),
            format: VertexFormat::Float32x2,
            byte_offset: 2,
        }],
    };
    assert_eq!(
        misaligned.to_wgpu(0),
        Err(LayoutError::MisalignedAttribute {
            attribute: "p".into(),
            byte_offset: 2,
            alignment: 4
        })
    );
    let outside = BufferLayout {
        attributes: vec![BufferAttribute {
            attribute: "p".into(),
            format: VertexFormat::Float32x4,
            byte_offset: 4,
        }],
        ..misaligned.clone()
    };
    assert!(matches!(
        outside.to_wgpu(0),
        Err(LayoutError::AttributeOutsideStride {
            byte_stride: 16,
            ..
        })
    ));
    let no_stride = BufferLayout {
        byte_stride: None,
        ..outside.clone()
    };
    assert_eq!(
        no_stride.to_wgpu(0),
        Err(LayoutError::NoByteStride {
            layout: "rows".into()
        })
    );
}

#[test]
fn location_overflow_is_an_error() {
    let f = layout(Packed, &[("a", "float32"), ("b", "float32")]);
    assert_eq!(
        f.buffer_layout("", Some(StepMode::Vertex))
            .to_wgpu(u32::MAX),
        Err(LayoutError::LocationOverflow {
            base_location: u32::MAX
        })
    );
}

const CONST_FORMAT: GpuDataStructFormat = {
    const FORMATS: [VertexFormat; 3] = [
        VertexFormat::Uint8,
        VertexFormat::Float32x3,
        VertexFormat::Unorm8x4,
    ];
    const L: ConstLayout<3> = match layout_formats(WgslStorage, &FORMATS) {
        Ok(l) => l,
        Err(e) => panic!("{}", e.message()),
    };
    const FIELDS: &[GpuDataStructField] = &[
        GpuDataStructField::from_static("tag", FORMATS[0], L.offsets[0]),
        GpuDataStructField::from_static("position", FORMATS[1], L.offsets[1]),
        GpuDataStructField::from_static("color", FORMATS[2], L.offsets[2]),
    ];
    GpuDataStructFormat::from_static(WgslStorage, FIELDS, L.shape)
};

#[test]
fn a_const_layout_equals_the_runtime_layout() {
    let runtime = layout(
        WgslStorage,
        &[
            ("tag", "uint8"),
            ("position", "float32x3"),
            ("color", "unorm8x4"),
        ],
    );
    assert_eq!(CONST_FORMAT, runtime);
    assert_eq!(offsets(&CONST_FORMAT), [0, 16, 28]);
}

#[test]
fn padding_lists_the_uncovered_bytes() {
    let f = layout(
        WgslStorage,
        &[
            ("tag", "uint8"),
            ("position", "float32x3"),
            ("color", "unorm8x4"),
        ],
    );
    assert_eq!(f.padding(), [(1, 15)]);
    let f = layout(Packed, &[("tag", "uint8")]);
    assert_eq!(f.padding(), [(1, 3)]);
    let f = layout(Packed, &[("p", "float32x4")]);
    assert!(f.padding().is_empty());
}

#[test]
fn struct_format_json_is_lumas_shape() {
    let f = layout(
        Packed,
        &[
            ("tag", "uint8"),
            ("pair", "uint8x2"),
            ("color", "unorm8x4"),
            ("position", "float32x3"),
        ],
    );
    let text = serde_json::to_string(&f).unwrap();
    assert_eq!(
        text,
        r#"{"type":"struct","layout":"packed","fields":{"tag":{"format":"uint8","byteOffset":0,"byteLength":1},"pair":{"format":"uint8x2","byteOffset":2,"byteLength":2},"color":{"format":"unorm8x4","byteOffset":4,"byteLength":4},"position":{"format":"float32x3","byteOffset":8,"byteLength":12}},"components":10,"byteStride":20,"rowByteLength":20}"#
    );
    let back: GpuDataStructFormat = serde_json::from_str(&text).unwrap();
    assert_eq!(back, f);

    // Declaration order survives even when it is not alphabetical.
    let f = layout(WgslStorage, &[("z", "float32"), ("a", "uint8")]);
    let back: GpuDataStructFormat =
        serde_json::from_str(&serde_json::to_string(&f).unwrap()).unwrap();
    assert_eq!(back.fields()[0].name(), "z");

    // Minimal declarations are laid out; the layout defaults to wgsl-storage.
    let minimal: GpuDataStructFormat = serde_json::from_value(
        json!({"fields": {"a": {"format": "sint32"}, "b": {"format": "float32"}}}),
    )
    .unwrap();
    assert_eq!(minimal.layout(), WgslStorage);
    assert_eq!(offsets(&minimal), [0, 4]);
}

#[test]
fn struct_format_json_refuses_inconsistent_or_invalid_input() {
    let err = serde_json::from_value::<GpuDataStructFormat>(json!({
        "type": "struct", "layout": "packed",
        "fields": {"tag": {"format": "uint8", "byteOffset": 0}, "value": {"format": "float32", "byteOffset": 1}}
    }))
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("states byteOffset of field `value` 1, but its fields give 4"),
        "{err}"
    );
    let err = serde_json::from_value::<GpuDataStructFormat>(json!({
        "layout": "packed", "fields": {"tag": {"format": "uint8"}}, "byteStride": 1
    }))
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("byteStride 1, but its fields give 4"),
        "{err}"
    );
    let err = serde_json::from_value::<GpuDataStructFormat>(json!({
        "layout": "packed", "fields": {"x": {"format": "uint8x3-webgl"}}
    }))
    .unwrap_err();
    assert!(err.to_string().contains("WebGL-only"), "{err}");
    let err = serde_json::from_value::<GpuDataStructFormat>(json!({
        "layout": "packed", "fields": {"x": {"format": "float32x5"}}
    }))
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("unsupported vertex format `float32x5`"),
        "{err}"
    );
    let err = serde_json::from_value::<GpuDataStructFormat>(json!({
        "type": "list", "fields": {"x": {"format": "float32"}}
    }))
    .unwrap_err();
    assert!(
        err.to_string().contains("expected \"type\": \"struct\""),
        "{err}"
    );
    let err = serde_json::from_value::<GpuDataStructFormat>(json!({"fields": {}})).unwrap_err();
    assert!(err.to_string().contains("at least one field"), "{err}");
}
