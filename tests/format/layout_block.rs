//! luma.gl's `makeShaderBlockLayout` shape: a struct's leaves with offsets and sizes, against the
//! numbers luma.gl 9.4.2 computes for the same composite types (`npm pack @luma.gl/core@9.4.2`,
//! `makeShaderBlockLayout(types, {layout})`, its words times 4), and luma.gl's composite JSON
//! read into a declaration (feature `serde`).

use gpudata::layout::{AddressSpace, StructDecl};

/// `(path, offset, size)` of every leaf, in bytes.
fn leaves(decl: &StructDecl, space: AddressSpace) -> (u64, Vec<(String, u64, u64)>) {
    let block = decl.block_layout(space).unwrap();
    (
        block.byte_length,
        block
            .fields
            .iter()
            .map(|(path, f)| (path.clone(), f.offset, f.size))
            .collect(),
    )
}

fn owned(v: &[(&str, u64, u64)]) -> Vec<(String, u64, u64)> {
    v.iter()
        .map(|(p, o, s)| ((*p).to_owned(), *o, *s))
        .collect()
}

const MIXED: &str = r#"{"a": "f32", "s": {"x": "f32"}, "b": "f32", "arr": [{"y": "f32", "z": "vec2<f32>"}, 2], "c": "vec2<i32>"}"#;

#[test]
fn block_layouts_match_luma_gl() {
    let decl = StructDecl::from_composite("Block", &mut serde_json::Deserializer::from_str(MIXED))
        .unwrap();
    // luma.gl 9.4.2, wgsl-uniform: byteLength 96.
    assert_eq!(
        leaves(&decl, AddressSpace::Uniform),
        (
            96,
            owned(&[
                ("a", 0, 4),
                ("s.x", 16, 4),
                ("b", 32, 4),
                ("arr[0].y", 48, 4),
                ("arr[0].z", 56, 8),
                ("arr[1].y", 64, 4),
                ("arr[1].z", 72, 8),
                ("c", 80, 8),
            ])
        )
    );
    // luma.gl 9.4.2, wgsl-storage: byteLength 56.
    assert_eq!(
        leaves(&decl, AddressSpace::Storage),
        (
            56,
            owned(&[
                ("a", 0, 4),
                ("s.x", 4, 4),
                ("b", 8, 4),
                ("arr[0].y", 16, 4),
                ("arr[0].z", 24, 8),
                ("arr[1].y", 32, 4),
                ("arr[1].z", 40, 8),
                ("c", 48, 8),
            ])
        )
    );

    let matrices = StructDecl::from_composite(
        "Block",
        &mut serde_json::Deserializer::from_str(
            r#"{"a": "vec3<f32>", "b": ["mat4x4<f32>", 2], "c": {"x": "f32", "y": "vec2<f32>"}, "d": "mat3x3<f32>", "e": ["vec4<f32>", 2], "f": "f32"}"#,
        ),
    )
    .unwrap();
    // luma.gl 9.4.2, both layouts: byteLength 256; d's columns 16 bytes apart.
    for space in [AddressSpace::Uniform, AddressSpace::Storage] {
        assert_eq!(
            leaves(&matrices, space),
            (
                256,
                owned(&[
                    ("a", 0, 12),
                    ("b[0]", 16, 64),
                    ("b[1]", 80, 64),
                    ("c.x", 144, 4),
                    ("c.y", 152, 8),
                    ("d", 160, 48),
                    ("e[0]", 208, 16),
                    ("e[1]", 224, 16),
                    ("f", 240, 4),
                ])
            )
        );
    }
    let block = matrices.block_layout(AddressSpace::Uniform).unwrap();
    let d = block.field("d").unwrap();
    assert_eq!(
        (d.columns, d.rows, d.column_stride, d.components),
        (3, 3, 16, 9)
    );
    // The nested object became a struct named after its path, declared before its user.
    let text = matrices.wgsl(AddressSpace::Uniform).unwrap();
    assert!(text.find("struct Block_c").unwrap() < text.find("struct Block {").unwrap());
}

#[test]
fn block_layouts_serialize_in_luma_gl_shape() {
    let decl = StructDecl::parse("Block", "m: mat2x2<f32>, v: vec3<u32>").unwrap();
    let json = serde_json::to_value(decl.block_layout(AddressSpace::Uniform).unwrap()).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "layout": "wgsl-uniform",
            "units": "bytes",
            "byteLength": 32,
            "fields": {
                "m": {"offset": 0, "size": 16, "components": 4, "columns": 2, "rows": 2,
                      "columnStride": 8, "shaderType": "mat2x2<f32>", "type": "f32"},
                "v": {"offset": 16, "size": 12, "components": 3, "columns": 1, "rows": 3,
                      "columnStride": 12, "shaderType": "vec3<u32>", "type": "u32"}
            }
        })
    );
    // Keys keep their order (luma.gl's `Object.entries` order), not sorted order.
    let text = serde_json::to_string(&decl.block_layout(AddressSpace::Storage).unwrap()).unwrap();
    assert!(text.find("\"m\"").unwrap() < text.find("\"v\"").unwrap());
    let bad = StructDecl::from_composite(
        "B",
        &mut serde_json::Deserializer::from_str(r#"{"a": "vec3<bool>"}"#),
    );
    assert!(bad.unwrap_err().to_string().contains("vec3<bool>"));
    let bad = StructDecl::from_composite("B", &mut serde_json::Deserializer::from_str(r#""f32""#));
    assert!(bad.is_err());
}
