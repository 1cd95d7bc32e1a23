//! `#[gpu(layout = "packed")]` over nested types: matrices lower to one vertex attribute per
//! column at consecutive locations, nested structs and fixed arrays flatten with luma.gl's names
//! (`light.color`, `bones[2]`), every leaf placed by WebGPU's vertex rules. The derived format
//! equals `StructDecl::row_format(StructLayout::Packed)` of the same declaration (one engine at
//! compile time and run time) and an independent packing written here; rows encode and decode
//! leaf by leaf; the zero-copy proof holds where the host bytes are the packed leaves.

use gpudata::layout::{StructDecl, TypeDecl};
use gpudata::record::{GpuType, decode_rows, encode_rows_to_vec};
use gpudata::{GpuDataStructFormat, GpuStruct, StructLayout, VertexFormat};
use proptest::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
struct Light {
    color: [f32; 3],
    intensity: f32,
    tag: [u16; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", step_mode = "instance", location = 3)]
struct Instance {
    #[gpu(wgsl = "mat4x4<f32>")]
    transform: [[f32; 4]; 4],
    #[gpu(wgsl = "mat3x3<f32>")]
    normal: [[f32; 3]; 3],
    light: Light,
    bones: [[f32; 2]; 3],
    lights: [Light; 2],
    id: u8,
    pair: [u8; 2],
}

/// The independent oracle: the leaves of `Instance` written out by hand, luma.gl's names, the
/// packed offsets computed with WebGPU's vertex rule (aligned to `min(4, size)`).
fn instance_leaves() -> Vec<(String, VertexFormat)> {
    let mut leaves = Vec::new();
    for c in 0..4 {
        leaves.push((format!("transform[{c}]"), VertexFormat::Float32x4));
    }
    for c in 0..3 {
        leaves.push((format!("normal[{c}]"), VertexFormat::Float32x3));
    }
    let light = |prefix: &str, leaves: &mut Vec<(String, VertexFormat)>| {
        leaves.push((format!("{prefix}.color"), VertexFormat::Float32x3));
        leaves.push((format!("{prefix}.intensity"), VertexFormat::Float32));
        leaves.push((format!("{prefix}.tag"), VertexFormat::Uint16x2));
    };
    light("light", &mut leaves);
    for b in 0..3 {
        leaves.push((format!("bones[{b}]"), VertexFormat::Float32x2));
    }
    light("lights[0]", &mut leaves);
    light("lights[1]", &mut leaves);
    leaves.push(("id".to_owned(), VertexFormat::Uint8));
    leaves.push(("pair".to_owned(), VertexFormat::Uint8x2));
    leaves
}

fn packed_offsets(formats: impl IntoIterator<Item = VertexFormat>) -> (Vec<u64>, u64) {
    let mut at = 0u64;
    let offsets = formats
        .into_iter()
        .map(|f| {
            let len = f.byte_length();
            let align = len.min(4);
            let offset = at.div_ceil(align) * align;
            at = offset + len;
            offset
        })
        .collect();
    (offsets, at.div_ceil(4) * 4)
}

fn summary(format: &GpuDataStructFormat) -> Vec<(String, VertexFormat, u64)> {
    format
        .fields()
        .iter()
        .map(|f| (f.name().to_owned(), f.format(), f.byte_offset()))
        .collect()
}

#[test]
fn matrices_lower_to_columns_and_nested_members_flatten_with_luma_names() {
    let leaves = instance_leaves();
    let (offsets, stride) = packed_offsets(leaves.iter().map(|(_, f)| *f));
    let expected: Vec<(String, VertexFormat, u64)> = leaves
        .into_iter()
        .zip(offsets)
        .map(|((n, f), o)| (n, f, o))
        .collect();
    assert_eq!(summary(Instance::FORMAT), expected);
    assert_eq!(Instance::FORMAT.layout(), StructLayout::Packed);
    assert_eq!(Instance::FORMAT.byte_stride(), stride);
    // transform 64 + normal 36 + light 20 + bones 24 + lights 40 + id 1 (+1) + pair 2.
    assert_eq!(stride, 188);
    const STRIDE: u64 = Instance::FORMAT.byte_stride();
    assert_eq!(STRIDE, 188);

    // The vertex layout: one attribute per leaf, consecutive locations from 3.
    let layout = Instance::vertex_buffer_layout();
    assert_eq!(layout.array_stride, 188);
    assert_eq!(layout.step_mode, wgpu::VertexStepMode::Instance);
    assert_eq!(layout.attributes.len(), expected.len());
    for (k, (attr, (_, format, offset))) in layout.attributes.iter().zip(&expected).enumerate() {
        assert_eq!(attr.shader_location, 3 + k as u32);
        assert_eq!(attr.offset, *offset);
        assert_eq!(Some(attr.format), format.to_wgpu());
    }
    assert_eq!(
        layout.attributes[..4]
            .iter()
            .map(|a| a.format)
            .collect::<Vec<_>>(),
        [wgpu::VertexFormat::Float32x4; 4]
    );
    // Field markers point at each top-level field's first leaf.
    // (markers exist for vertex-format fields, as on every layout).
    assert_eq!(Instance::field::<instance_fields::Id>().byte_offset(), 184);
    assert_eq!(
        Instance::field::<instance_fields::Pair>().byte_offset(),
        186
    );
    assert_eq!(Instance::FORMAT.field("light.color").unwrap().0, 7);
}

#[test]
fn the_run_time_lowering_of_the_same_declaration_is_the_derived_format() {
    // `light` and `lights` are placeholders here, replaced by the `Light` struct below.
    let light = StructDecl::parse("Light", "color: vec3<f32>, intensity: f32, tag: u32").unwrap();
    let mut decl = StructDecl::parse(
        "Instance",
        "transform: mat4x4<f32>, normal: mat3x3<f32>, light: u32, bones: array<vec2<f32>, 3>, \
         lights: u32, id: u32, pair: u32",
    )
    .unwrap();
    decl.members[2].ty = TypeDecl::Struct(light.clone());
    decl.members[4].ty = TypeDecl::Array {
        element: Box::new(TypeDecl::Struct(light)),
        count: Some(2),
    };
    let runtime = decl.row_format(StructLayout::Packed).unwrap();
    // The WGSL declaration has no 8- and 16-bit types: compare everything but those leaves'
    // formats, whose carriers are u32 there.
    let derived = summary(Instance::FORMAT);
    let lowered = summary(&runtime);
    assert_eq!(
        lowered.iter().map(|(n, ..)| n).collect::<Vec<_>>(),
        derived.iter().map(|(n, ..)| n).collect::<Vec<_>>()
    );
    for ((name, f, o), (_, g, p)) in lowered.iter().zip(&derived) {
        if g.byte_length() == 4 * g.components() as u64 {
            assert_eq!((f, o), (g, p), "{name}");
        }
    }

    // Where every leaf is 32-bit, the formats agree whole (stride included).
    let wide = StructDecl::parse(
        "Wide",
        "transform: mat4x4<f32>, normal: mat3x3<f32>, bones: array<vec2<f32>, 3>, id: u32",
    )
    .unwrap()
    .row_format(StructLayout::Packed)
    .unwrap();
    assert_eq!(wide, Wide::FORMAT.clone());
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
struct Wide {
    #[gpu(wgsl = "mat4x4<f32>")]
    transform: [[f32; 4]; 4],
    #[gpu(wgsl = "mat3x3<f32>")]
    normal: [[f32; 3]; 3],
    bones: [[f32; 2]; 3],
    id: u32,
}

#[test]
fn rows_encode_and_decode_leaf_by_leaf() {
    let light = |s: f32| Light {
        color: [s, s + 1.0, s + 2.0],
        intensity: s + 3.0,
        tag: [s as u16, s as u16 + 1],
    };
    let row = Instance {
        transform: [[1.0, 2.0, 3.0, 4.0]; 4].map(|c| c.map(|x| x * 0.5)),
        normal: [[7.0, 8.0, 9.0], [10.0, 11.0, 12.0], [13.0, 14.0, 15.0]],
        light: light(20.0),
        bones: [[30.0, 31.0], [32.0, 33.0], [34.0, 35.0]],
        lights: [light(40.0), light(50.0)],
        id: 9,
        pair: [5, 6],
    };
    let bytes = encode_rows_to_vec(&[row, row]);
    assert_eq!(bytes.len(), 2 * 188);
    let f32_at = |o: usize| f32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    assert_eq!(f32_at(64), 7.0); // normal[0].x right after the four transform columns
    assert_eq!(f32_at(64 + 12), 10.0); // normal[1]: 12 bytes on, not 16
    assert_eq!(f32_at(100), 20.0); // light.color
    assert_eq!(&bytes[116..120], &[20, 0, 21, 0]); // light.tag
    assert_eq!(f32_at(120), 30.0); // bones[0]
    assert_eq!(f32_at(144 + 20), 50.0); // lights[1].color
    assert_eq!(bytes[184], 9);
    assert_eq!(&bytes[186..188], &[5, 6]);
    assert_eq!(&bytes[188..], &bytes[..188]);
    let back: Vec<Instance> = decode_rows(&bytes).unwrap();
    assert_eq!(back, [row, row]);
}

#[cfg(feature = "glam")]
mod glam_fields {
    use super::*;

    /// An instance transform as glam types: `Mat4` and `Vec4` columns lie back to back as the
    /// packed leaves do, so the host bytes are the rows.
    #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
    #[repr(C)]
    #[gpu(layout = "packed", zero_copy, step_mode = "instance")]
    struct Transform {
        model: glam::Mat4,
        tint: glam::Vec4,
    }

    /// `Mat3` columns are packed on the host too; after it, `Vec3` leaves no padding.
    #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
    #[repr(C)]
    #[gpu(layout = "packed", zero_copy)]
    struct Frame {
        normal: glam::Mat3,
        origin: glam::Vec3,
    }

    /// `Mat3A` columns are 16 bytes apart on the host, 12 in the packed row: encoded column by
    /// column, never copied whole.
    #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
    #[repr(C)]
    #[gpu(layout = "packed")]
    struct Aligned {
        basis: glam::Mat3A,
        offset: glam::Vec3A,
        w: f32,
    }

    #[test]
    fn glam_matrices_lower_to_columns() {
        let names: Vec<&str> = Transform::FORMAT
            .fields()
            .iter()
            .map(|f| f.name())
            .collect();
        assert_eq!(
            names,
            ["model[0]", "model[1]", "model[2]", "model[3]", "tint"]
        );
        assert_eq!(Transform::FORMAT.byte_stride(), 80);
        const { assert!(Transform::HOST_LAYOUT_MATCHES && Frame::HOST_LAYOUT_MATCHES) };
        let t = Transform {
            model: glam::Mat4::from_cols_array(&core::array::from_fn(|i| i as f32)),
            tint: glam::Vec4::new(16.0, 17.0, 18.0, 19.0),
        };
        let bytes = encode_rows_to_vec(&[t]);
        let words: Vec<f32> = bytes
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(words, (0..20).map(|i| i as f32).collect::<Vec<_>>());
        let offsets: Vec<u64> = Frame::FORMAT
            .fields()
            .iter()
            .map(|f| f.byte_offset())
            .collect();
        assert_eq!(offsets, [0, 12, 24, 36]);

        const { assert!(!Aligned::HOST_LAYOUT_MATCHES) };
        let offsets: Vec<u64> = Aligned::FORMAT
            .fields()
            .iter()
            .map(|f| f.byte_offset())
            .collect();
        assert_eq!(offsets, [0, 12, 24, 36, 48]);
        assert_eq!(Aligned::FORMAT.byte_stride(), 52);
        let a = Aligned {
            basis: glam::Mat3A::from_cols_array(&core::array::from_fn(|i| i as f32)),
            offset: glam::Vec3A::new(9.0, 10.0, 11.0),
            w: 12.0,
        };
        let bytes = encode_rows_to_vec(&[a]);
        let words: Vec<f32> = bytes
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(words, (0..13).map(|i| i as f32).collect::<Vec<_>>());
        assert_eq!(decode_rows::<Aligned>(&bytes).unwrap(), [a]);
    }
}

/// A random type tree (depth <= 3) of 32-bit leaves, all nine f32 matrices, vectors, fixed
/// arrays and nested structs.
fn leaf_text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec!["f32", "u32", "i32"]).prop_map(str::to_owned),
        (2u8..=4, prop::sample::select(vec!["f32", "u32", "i32"]))
            .prop_map(|(n, s)| format!("vec{n}<{s}>")),
        (2u8..=4, 2u8..=4).prop_map(|(c, r)| format!("mat{c}x{r}<f32>")),
        (2u8..=4)
            .prop_map(|n| format!("vec{n}<f16>"))
            .prop_filter("no vec3<f16> format", |t| t != "vec3<f16>"),
    ]
}

fn type_decl(depth: u32) -> BoxedStrategy<TypeDecl> {
    let leaf = leaf_text()
        .prop_map(|t| TypeDecl::parse(&t).unwrap())
        .boxed();
    if depth == 0 {
        return leaf;
    }
    prop_oneof![
        3 => leaf,
        1 => (type_decl(depth - 1), 1u32..=3).prop_map(|(e, n)| TypeDecl::Array { element: Box::new(e), count: Some(n) }),
        1 => prop::collection::vec(type_decl(depth - 1), 1..=3).prop_map(|members| TypeDecl::Struct(struct_of(members))),
    ]
    .boxed()
}

fn struct_of(types: Vec<TypeDecl>) -> StructDecl {
    StructDecl {
        name: "S".to_owned(),
        members: types
            .into_iter()
            .enumerate()
            .map(|(i, ty)| gpudata::layout::MemberDecl {
                name: format!("m{i}"),
                ty,
                align: None,
                size: None,
            })
            .collect(),
    }
}

/// The oracle's leaves: names and formats, written from the WGSL spec's shapes.
fn oracle_leaves(path: &str, ty: &TypeDecl, out: &mut Vec<(String, VertexFormat)>) {
    match ty {
        TypeDecl::Leaf(leaf) => {
            let text = leaf.to_string();
            if let Some(rest) = text.strip_prefix("mat") {
                let columns: u32 = rest[..1].parse().unwrap();
                let rows = &rest[2..3];
                let format = VertexFormat::from_name(&format!("float32x{rows}")).unwrap();
                for c in 0..columns {
                    out.push((format!("{path}[{c}]"), format));
                }
            } else {
                let (scalar, n) = match text.strip_prefix("vec") {
                    Some(v) => (&v[2..v.len() - 1], &v[..1]),
                    None => (text.as_str(), "1"),
                };
                let base = match scalar {
                    "f32" => "float32",
                    "u32" => "uint32",
                    "i32" => "sint32",
                    "f16" => "float16",
                    other => panic!("{other}"),
                };
                let name = if n == "1" {
                    base.to_owned()
                } else {
                    format!("{base}x{n}")
                };
                out.push((path.to_owned(), VertexFormat::from_name(&name).unwrap()));
            }
        }
        TypeDecl::Array { element, count } => {
            for i in 0..count.unwrap() {
                oracle_leaves(&format!("{path}[{i}]"), element, out);
            }
        }
        TypeDecl::Struct(s) => {
            for m in &s.members {
                let at = if path.is_empty() {
                    m.name.clone()
                } else {
                    format!("{path}.{}", m.name)
                };
                oracle_leaves(&at, &m.ty, out);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random nested types: the run-time packed lowering equals the oracle's leaves placed by
    /// the vertex rule, and its wgpu vertex attributes are accepted by `BufferLayout`'s checks.
    #[test]
    fn random_types_lower_to_packed_leaves(members in prop::collection::vec(type_decl(2), 1..=4)) {
        let decl = struct_of(members);
        let format = decl.row_format(StructLayout::Packed).unwrap();
        let mut leaves = Vec::new();
        oracle_leaves("", &TypeDecl::Struct(decl.clone()), &mut leaves);
        let (offsets, stride) = packed_offsets(leaves.iter().map(|(_, f)| *f));
        let expected: Vec<(String, VertexFormat, u64)> =
            leaves.into_iter().zip(offsets).map(|((n, f), o)| (n, f, o)).collect();
        prop_assert_eq!(summary(&format), expected);
        prop_assert_eq!(format.byte_stride(), stride);
        // The storage lowering names the same leaves, at WGSL's offsets.
        let storage = decl.row_format(StructLayout::WgslStorage).unwrap();
        prop_assert_eq!(
            storage.fields().iter().map(|f| f.name()).collect::<Vec<_>>(),
            format.fields().iter().map(|f| f.name()).collect::<Vec<_>>()
        );
        let block = decl.block_layout(gpudata::layout::AddressSpace::Storage).unwrap();
        prop_assert_eq!(storage.byte_stride(), block.byte_length);
    }
}

#[test]
fn row_format_refuses_runtime_arrays_and_formatless_leaves() {
    let tail = StructDecl::parse("T", "count: u32, items: array<vec4<f32>>").unwrap();
    let err = tail.row_format(StructLayout::Packed).unwrap_err();
    assert_eq!(
        err.to_string(),
        "member `items` holds a runtime-sized array, which a row format cannot: rows have a fixed size; use a fixed-size array<E, N>"
    );
    let half = StructDecl::parse("H", "a: f32, b: mat2x3<f16>").unwrap();
    let err = half.row_format(StructLayout::WgslStorage).unwrap_err();
    assert_eq!(
        err.to_string(),
        "field `b` is `mat2x3<f16>`, which no vertex format holds (WebGPU has no float16x3, the format of a vec3<f16> and of a matCx3<f16>'s columns), so the struct has no row format; use vec4<f16> (matCx4<f16> for a matrix), array<f16, 3> or f32 components"
    );
    let _ = <Light as GpuType>::WGSL;
}
