//! luma.gl's vertex format, shader type and GPUVectorFormat test vectors (spec §1–2, §11.1–11.2).

use gpudata::format::{DataType, PrimitiveType};
use gpudata::{FormatError, GpuVectorFormat, ShaderType, VertexFormat};

fn vf(s: &str) -> VertexFormat {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// (type, components, byteLength, integer, signed, normalized) as luma.gl's decoder reports.
fn info(f: VertexFormat) -> (DataType, u32, u64, bool, bool, bool) {
    (
        f.data_type(),
        f.components(),
        f.byte_length(),
        f.is_integer(),
        f.is_signed(),
        f.is_normalized(),
    )
}

#[test]
fn decoder_vectors_1_to_8() {
    use DataType::*;
    assert_eq!(info(vf("float32")), (Float32, 1, 4, false, false, false));
    assert_eq!(info(vf("sint32")), (Sint32, 1, 4, true, true, false));
    assert_eq!(info(vf("unorm8x2")), (Unorm8, 2, 2, false, false, true));
    assert_eq!(info(vf("snorm16x2")), (Snorm16, 2, 4, false, true, true));
    assert_eq!(info(vf("float16x2")), (Float16, 2, 4, false, false, false));
    assert_eq!(
        info(vf("unorm10-10-10-2")),
        (Unorm8, 4, 4, false, false, true)
    );
    assert_eq!(info(vf("uint8x3-webgl")), (Uint8, 3, 3, true, false, false));
    assert!(vf("uint8x3-webgl").is_webgl_only());
    assert_eq!(info(vf("unorm8x4-bgra")), info(vf("unorm8x4")));
    assert!(!vf("unorm8x4").is_webgl_only());
}

#[test]
fn unsupported_strings_9_10_name_the_string() {
    for s in [
        "float16x3",
        "float32x5",
        "float32x3-webgl",
        "uint8x3",
        "unorm16x3",
        "uint16x3",
        "foo",
        "",
        "float32x1",
        "Float32",
    ] {
        let err = s.parse::<VertexFormat>().unwrap_err();
        assert_eq!(
            err,
            FormatError::UnknownVertexFormat {
                format: s.to_owned()
            }
        );
        assert!(
            err.to_string()
                .starts_with(&format!("unsupported vertex format `{s}`"))
        );
    }
}

#[test]
fn all_49_formats_round_trip_and_match_the_table() {
    assert_eq!(VertexFormat::ALL.len(), 49);
    let mut names = std::collections::HashSet::new();
    for f in VertexFormat::ALL {
        assert_eq!(vf(f.as_str()), f);
        assert_eq!(f.to_string(), f.as_str());
        assert!(names.insert(f.as_str()));
        assert_eq!(f.as_str().ends_with("-webgl"), f.is_webgl_only());
        assert_eq!(f.to_wgpu().is_none(), f.is_webgl_only(), "{f}");
        if let Some(w) = f.to_wgpu() {
            // wgpu agrees on the byte size of every format it knows.
            assert_eq!(w.size(), f.byte_length(), "{f}");
            assert_eq!(VertexFormat::from_wgpu(w), Some(f));
        } else {
            assert_eq!(f.try_to_wgpu(), Err(FormatError::WebglOnly { format: f }));
        }
        // The GPUVector primitive type rule: any normalized format reads as f32.
        let expected = if f.is_normalized() {
            PrimitiveType::F32
        } else {
            match f.data_type() {
                DataType::Float16 => PrimitiveType::F16,
                DataType::Float32 => PrimitiveType::F32,
                DataType::Uint8 | DataType::Uint16 | DataType::Uint32 => PrimitiveType::U32,
                _ => PrimitiveType::I32,
            }
        };
        assert_eq!(f.primitive_type(), expected, "{f}");
    }
    // The table's webgl-only and 32-bit counts.
    assert_eq!(
        VertexFormat::ALL
            .iter()
            .filter(|f| f.is_webgl_only())
            .count(),
        8
    );
    assert_eq!(
        VertexFormat::ALL
            .iter()
            .filter(|f| f.to_wgpu().is_some())
            .count(),
        41
    );
}

#[test]
fn signed_data_types_follow_the_table() {
    assert_eq!(vf("unorm8x4").signed_data_type(), DataType::Uint8);
    assert_eq!(vf("snorm16").signed_data_type(), DataType::Sint16);
    assert_eq!(vf("unorm10-10-10-2").signed_data_type(), DataType::Uint32);
    assert_eq!(vf("float16x4").signed_data_type(), DataType::Float16);
}

#[test]
fn make_vertex_format_vectors_11_to_14() {
    use DataType::*;
    let make = VertexFormat::from_parts;
    assert_eq!(make(Uint8, 4, false), Ok(vf("uint8x4")));
    assert_eq!(make(Uint32, 3, false), Ok(vf("uint32x3")));
    assert_eq!(make(Sint32, 1, false), Ok(vf("sint32")));
    assert_eq!(make(Uint16, 3, false), Ok(vf("uint16x3-webgl")));
    assert_eq!(make(Uint16, 3, true), Ok(vf("unorm16x3-webgl")));
    assert_eq!(make(Uint8, 3, true), Ok(vf("unorm8x3-webgl")));
    assert_eq!(make(Sint8, 2, true), Ok(vf("snorm8x2")));
    assert_eq!(make(Float32, 4, true), Ok(vf("float32x4")));
    for (t, n) in [
        (Uint8, 3),
        (Sint8, 3),
        (Float16, 3),
        (Float32, 5),
        (Sint32, 0),
    ] {
        let err = make(t, n, false).unwrap_err();
        assert_eq!(
            err,
            FormatError::NoSuchFormat {
                data_type: t,
                components: n
            }
        );
        assert_eq!(
            err.to_string(),
            format!("no vertex format has {n} components of {t}")
        );
    }
}

#[test]
fn compatible_vertex_format_vector_15() {
    let st = |s: &str| s.parse::<ShaderType>().unwrap();
    assert_eq!(
        VertexFormat::compatible_with_shader_type(st("vec3<f16>")),
        vf("float16x4")
    );
    assert_eq!(
        VertexFormat::compatible_with_shader_type(st("f16")),
        vf("float16x2")
    );
    assert_eq!(
        VertexFormat::compatible_with_shader_type(st("vec3i")),
        vf("sint32x3")
    );
    assert_eq!(
        VertexFormat::compatible_with_shader_type(st("vec4<u32>")),
        vf("uint32x4")
    );
}

#[test]
fn shader_types_parse_long_forms_and_aliases() {
    for (text, canonical, components, bytes) in [
        ("f32", "f32", 1, 4),
        ("f16", "f16", 1, 2),
        ("vec2<i32>", "vec2<i32>", 2, 8),
        ("vec3f", "vec3<f32>", 3, 12),
        ("vec4h", "vec4<f16>", 4, 8),
        ("vec2u", "vec2<u32>", 2, 8),
        ("vec4i", "vec4<i32>", 4, 16),
    ] {
        let t: ShaderType = text.parse().unwrap();
        assert_eq!(t.to_string(), canonical);
        assert_eq!(t.components(), components);
        assert_eq!(t.byte_length(), bytes);
    }
    let t: ShaderType = "vec2<u32>".parse().unwrap();
    assert!(t.is_integer() && !t.is_signed());
    let t: ShaderType = "f32".parse().unwrap();
    assert!(!t.is_integer() && t.is_signed());
    for bad in [
        "vec5<f32>",
        "vec3<f64>",
        "vec3",
        "vec3ff",
        "mat2x2<f32>",
        "vec1f",
        "",
    ] {
        let err = bad.parse::<ShaderType>().unwrap_err();
        assert_eq!(
            err,
            FormatError::UnknownShaderType {
                shader_type: bad.to_owned()
            }
        );
        assert!(err.to_string().contains(&format!("`{bad}`")));
    }
}

#[test]
fn gpu_vector_format_vectors_16_to_19_22() {
    let f: GpuVectorFormat = "float32x3".parse().unwrap();
    let i = f.info();
    assert_eq!(i.element_format, vf("float32x3"));
    assert!(!i.vertex_list && !i.value_list);
    assert_eq!(i.byte_length, 12);

    let f: GpuVectorFormat = "vertex-list<unorm8x4>".parse().unwrap();
    let i = f.info();
    assert_eq!(i.element_format, vf("unorm8x4"));
    assert!(i.vertex_list && !i.value_list);
    assert_eq!(i.primitive_type, PrimitiveType::F32);
    assert_eq!(f.to_string(), "vertex-list<unorm8x4>");

    let f: GpuVectorFormat = "value-list<uint8>".parse().unwrap();
    assert!(f.is_value_list() && !f.is_vertex_list());
    assert_eq!(f.element_format(), vf("uint8"));

    for bad in [
        "list<unorm8x4>",
        "vertex-list<>",
        "vertex-list<vertex-list<uint8>>",
        "value-list<foo>",
        "vertex-list<float32",
    ] {
        assert_eq!(
            bad.parse::<GpuVectorFormat>(),
            Err(FormatError::UnknownVectorFormat {
                format: bad.to_owned()
            })
        );
    }

    let i = GpuVectorFormat::from(vf("unorm10-10-10-2")).info();
    assert_eq!(i.data_type, DataType::Unorm8);
    assert_eq!(i.signed_data_type, DataType::Uint32);
    assert_eq!(i.primitive_type, PrimitiveType::F32);
    assert_eq!((i.components, i.byte_length), (4, 4));
    assert!(GpuVectorFormat::from(vf("uint8x3-webgl")).info().webgl_only);
}

#[test]
fn shader_compatibility_vectors_20_21() {
    let ok = |f: &str, t: &str| {
        f.parse::<GpuVectorFormat>()
            .unwrap()
            .is_compatible_with(t.parse().unwrap())
    };
    assert!(ok("unorm8x4", "vec4<f32>"));
    assert!(ok("float32x3", "vec3<f32>"));
    assert!(!ok("uint32x2", "vec2<i32>"));
    assert!(!ok("float32x3", "vec4<f32>"));
    assert!(ok("float16x4", "vec4<f32>"));
    assert!(!ok("unorm8x4", "vec4<f16>"));
    assert!(ok("vertex-list<float32x2>", "vec2<f32>"));
    assert!(ok("float16x2", "vec2h"));
    assert!(ok("sint16x4", "vec4i"));
    assert!(!ok("sint16x4", "vec4u"));
}

#[test]
fn wgsl_carriers_follow_spec_3_3() {
    let carrier = |s: &str| vf(s).wgsl_carrier().to_string();
    assert_eq!(carrier("float32"), "f32");
    assert_eq!(carrier("sint32x3"), "vec3<i32>");
    assert_eq!(carrier("uint32x4"), "vec4<u32>");
    for s in [
        "uint8",
        "unorm8x4",
        "float16x2",
        "uint8x3-webgl",
        "unorm10-10-10-2",
    ] {
        assert_eq!(carrier(s), "u32", "{s}");
    }
    for s in ["float16x4", "unorm16x4", "uint16x3-webgl"] {
        assert_eq!(carrier(s), "vec2<u32>", "{s}");
    }
}

#[test]
fn from_name_works_in_const_items() {
    const F: Option<VertexFormat> = VertexFormat::from_name("unorm8x4-bgra");
    const NONE: Option<VertexFormat> = VertexFormat::from_name("unorm8x3");
    assert_eq!(F, Some(VertexFormat::Unorm8x4Bgra));
    assert_eq!(NONE, None);
}
