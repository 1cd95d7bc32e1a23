//! Property tests of the WGSL memory model over random nested types (depth ≤ 3: every scalar,
//! vector and matrix shape, atomics, fixed arrays of each, nested structs, `@align`/`@size`,
//! runtime tails): gpudata's offsets, sizes and alignments equal naga's layouter on the WGSL text
//! gpudata emits and on a declaration this test writes itself; naga validates both address
//! spaces; the `const fn` walk over `'static` types equals the run-time walk.

use gpudata::format::PrimitiveType;
use gpudata::layout::{
    AddressSpace, LeafType, MemberDecl, StructDecl, TypeDecl, WgslMember, WgslStruct, WgslType,
};
use proptest::prelude::*;

fn leaf() -> impl Strategy<Value = LeafType> {
    let scalar = prop::sample::select(
        [
            PrimitiveType::F16,
            PrimitiveType::F32,
            PrimitiveType::I32,
            PrimitiveType::U32,
        ]
        .to_vec(),
    );
    let float = prop::sample::select(vec![PrimitiveType::F32, PrimitiveType::F16]);
    prop_oneof![
        scalar.clone().prop_map(LeafType::Scalar),
        (2u8..=4, scalar).prop_map(|(components, scalar)| LeafType::Vector { components, scalar }),
        (2u8..=4, 2u8..=4, float).prop_map(|(columns, rows, scalar)| LeafType::Matrix {
            columns,
            rows,
            scalar
        }),
        prop::sample::select(vec![PrimitiveType::U32, PrimitiveType::I32])
            .prop_map(LeafType::Atomic),
    ]
}

/// A member type of depth at most 3 (arrays and structs count one level each).
fn member_type() -> impl Strategy<Value = TypeDecl> {
    leaf()
        .prop_map(TypeDecl::Leaf)
        .prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                (inner.clone(), 1u32..4).prop_map(|(e, n)| TypeDecl::Array {
                    element: Box::new(e),
                    count: Some(n)
                }),
                prop::collection::vec(inner, 1..4).prop_map(|types| TypeDecl::Struct(StructDecl {
                    name: String::new(),
                    members: types
                        .into_iter()
                        .map(|ty| MemberDecl {
                            name: String::new(),
                            ty,
                            align: None,
                            size: None
                        })
                        .collect(),
                })),
            ]
        })
}

/// Per member: `@align` raised by `2^a` (when `Some`) and `@size` grown by `4 * s`.
type Attributes = (Option<u8>, Option<u8>);

fn root() -> impl Strategy<Value = StructDecl> {
    (
        prop::collection::vec(
            (
                member_type(),
                prop::option::weighted(0.15, 0u8..3),
                prop::option::weighted(0.15, 0u8..3),
            ),
            1..5,
        ),
        prop::option::weighted(0.3, member_type()),
    )
        .prop_map(|(members, tail)| {
            let mut root = StructDecl {
                name: String::new(),
                members: members
                    .into_iter()
                    .map(|(ty, a, s)| {
                        let mut m = MemberDecl {
                            name: String::new(),
                            ty,
                            align: None,
                            size: None,
                        };
                        attributes(&mut m, (a, s));
                        m
                    })
                    .collect(),
            };
            if let Some(element) = tail {
                root.members.push(MemberDecl {
                    name: String::new(),
                    ty: TypeDecl::Array {
                        element: Box::new(element),
                        count: None,
                    },
                    align: None,
                    size: None,
                });
            }
            let mut counter = 0;
            name_structs(&mut root, &mut counter);
            root
        })
}

/// Valid `@align`/`@size` values from the storage layout of the member's type (the values are
/// then checked against naga, not against gpudata).
fn attributes(member: &mut MemberDecl, (align, size): Attributes) {
    let Ok(layout) = member.ty.layout(AddressSpace::Storage) else {
        return;
    };
    // 16 keeps the attribute valid in the uniform space too.
    member.align = align.map(|a| layout.alignment.max(16) << a);
    member.size = size.map(|s| layout.size.div_ceil(16) * 16 + 16 * u64::from(s));
}

fn name_structs(s: &mut StructDecl, counter: &mut usize) {
    s.name = format!("S{counter}");
    *counter += 1;
    for (i, m) in s.members.iter_mut().enumerate() {
        m.name = format!("m{i}");
        let mut ty = &mut m.ty;
        while let TypeDecl::Array { element, .. } = ty {
            ty = element;
        }
        if let TypeDecl::Struct(inner) = ty {
            name_structs(inner, counter);
        }
    }
}

/// The test's own WGSL spelling of a type.
fn spell(ty: &TypeDecl) -> String {
    match ty {
        TypeDecl::Leaf(LeafType::Scalar(s)) => s.as_str().to_owned(),
        TypeDecl::Leaf(LeafType::Vector { components, scalar }) => {
            format!("vec{components}<{}>", scalar.as_str())
        }
        TypeDecl::Leaf(LeafType::Matrix {
            columns,
            rows,
            scalar,
        }) => format!("mat{columns}x{rows}<{}>", scalar.as_str()),
        TypeDecl::Leaf(LeafType::Atomic(s)) => format!("atomic<{}>", s.as_str()),
        TypeDecl::Array {
            element,
            count: Some(n),
        } => format!("array<{}, {n}>", spell(element)),
        TypeDecl::Array {
            element,
            count: None,
        } => format!("array<{}>", spell(element)),
        TypeDecl::Struct(s) => s.name.clone(),
    }
}

/// The test's own declaration: every struct once, dependencies first, members with only the
/// attributes the type declares.
fn independent_declaration(s: &StructDecl, out: &mut String) {
    for m in &s.members {
        let mut ty = &m.ty;
        while let TypeDecl::Array { element, .. } = ty {
            ty = element;
        }
        if let TypeDecl::Struct(inner) = ty {
            independent_declaration(inner, out);
        }
    }
    out.push_str(&format!("struct {} {{\n", s.name));
    for m in &s.members {
        let align = m.align.map(|a| format!("@align({a}) ")).unwrap_or_default();
        let size = m.size.map(|n| format!("@size({n}) ")).unwrap_or_default();
        out.push_str(&format!("    {align}{size}{}: {},\n", m.name, spell(&m.ty)));
    }
    out.push_str("}\n");
}

fn uses_f16(ty: &TypeDecl) -> bool {
    match ty {
        TypeDecl::Leaf(leaf) => leaf.scalar() == PrimitiveType::F16,
        TypeDecl::Array { element, .. } => uses_f16(element),
        TypeDecl::Struct(s) => s.members.iter().any(|m| uses_f16(&m.ty)),
    }
}

/// A module binding `structs` (WGSL text declaring the root `S0`) in `space`.
fn module_text(structs: &str, space: AddressSpace, f16: bool) -> String {
    let enable = if f16 && !structs.contains("enable f16;") {
        "enable f16;\n"
    } else {
        ""
    };
    let var = match space {
        AddressSpace::Storage => "var<storage, read_write>",
        AddressSpace::Uniform => "var<uniform>",
    };
    format!(
        "{enable}{structs}\n@group(0) @binding(0) {var} block: S0;\n\
         @compute @workgroup_size(1) fn main() {{ _ = &block; }}\n"
    )
}

fn validate(text: &str) -> Result<naga::Module, String> {
    let module = naga::front::wgsl::parse_str(text).map_err(|e| format!("{e}\n{text}"))?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::SHADER_FLOAT16,
    )
    .validate(&module)
    .map_err(|e| format!("{e:?}\n{text}"))?;
    Ok(module)
}

/// The largest `@align(n)` stated in the declaration of struct `name` in `text`.
fn stated_align(text: &str, name: &str) -> u64 {
    let start = text.find(&format!("struct {name} {{")).unwrap();
    let body = &text[start..start + text[start..].find('}').unwrap()];
    body.split("@align(")
        .skip(1)
        .map(|rest| rest[..rest.find(')').unwrap()].parse::<u64>().unwrap())
        .max()
        .unwrap_or(1)
}

/// naga's member offsets and span of every struct, by name, and its alignment as the WGSL spec
/// defines it: naga's layouter aligns a struct by its member types only, and the spec by its
/// members, `@align` included, which `text` states.
fn naga_structs(module: &naga::Module, text: &str) -> Vec<(String, Vec<u64>, u64, u64)> {
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    module
        .types
        .iter()
        .filter_map(|(handle, ty)| {
            let naga::TypeInner::Struct { members, span } = &ty.inner else {
                return None;
            };
            let name = ty.name.clone()?;
            let align = u64::from(layouter[handle].alignment.round_up(1));
            let align = align.max(stated_align(text, &name));
            Some((
                name,
                members.iter().map(|m| u64::from(m.offset)).collect(),
                u64::from(*span),
                align,
            ))
        })
        .collect()
}

/// gpudata's member offsets, size and alignment of every struct in `s`, by name. A struct that
/// ends in a runtime array reports its size as naga does: with one tail element.
fn gpudata_structs(
    s: &StructDecl,
    space: AddressSpace,
    out: &mut Vec<(String, Vec<u64>, u64, u64)>,
) {
    for m in &s.members {
        let mut ty = &m.ty;
        while let TypeDecl::Array { element, .. } = ty {
            ty = element;
        }
        if let TypeDecl::Struct(inner) = ty {
            gpudata_structs(inner, space, out);
        }
    }
    let (placed, layout) = s.placements(space).unwrap();
    out.push((
        s.name.clone(),
        placed.iter().map(|p| p.offset).collect(),
        layout.size,
        layout.alignment,
    ));
}

fn sorted(mut v: Vec<(String, Vec<u64>, u64, u64)>) -> Vec<(String, Vec<u64>, u64, u64)> {
    v.sort();
    v.dedup();
    v
}

/// The same type as `'static` data (leaked: a test builds a few hundred small ones).
fn to_static(ty: &TypeDecl) -> WgslType {
    match ty {
        TypeDecl::Leaf(leaf) => WgslType::Leaf(*leaf),
        TypeDecl::Array { element, count } => WgslType::Array {
            element: Box::leak(Box::new(to_static(element))),
            count: *count,
        },
        TypeDecl::Struct(s) => WgslType::Struct(Box::leak(Box::new(struct_to_static(s)))),
    }
}

fn struct_to_static(s: &StructDecl) -> WgslStruct {
    let members: Vec<WgslMember> = s
        .members
        .iter()
        .map(|m| WgslMember {
            name: Box::leak(m.name.clone().into_boxed_str()),
            ty: to_static(&m.ty),
            align: m.align,
            size: m.size,
        })
        .collect();
    WgslStruct::new(Box::leak(s.name.clone().into_boxed_str()), members.leak())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn nested_types_lay_out_as_naga_does(root in root()) {
        let f16 = uses_f16(&TypeDecl::Struct(root.clone()));
        let mut independent = String::new();
        independent_declaration(&root, &mut independent);

        // Storage: gpudata's text and the independent one agree with gpudata.
        let storage = root.placements(AddressSpace::Storage);
        let storage_text = root.wgsl(AddressSpace::Storage);
        match &storage {
            Ok(_) => {
                let mut ours = Vec::new();
                gpudata_structs(&root, AddressSpace::Storage, &mut ours);
                let ours = sorted(ours);
                let text = storage_text.as_ref().unwrap();
                let emitted = validate(&module_text(text, AddressSpace::Storage, f16)).unwrap();
                prop_assert_eq!(&sorted(naga_structs(&emitted, text)), &ours);
                let plain = validate(&module_text(&independent, AddressSpace::Storage, f16)).unwrap();
                prop_assert_eq!(&sorted(naga_structs(&plain, &independent)), &ours);
            }
            Err(e) => {
                // Only a runtime-sized array nested in a struct or array can be refused.
                prop_assert!(e.to_string().contains("runtime-sized"), "{e}");
                prop_assert!(validate(&module_text(&independent, AddressSpace::Storage, f16)).is_err());
            }
        }

        // Uniform: gpudata's text validates in `var<uniform>` and naga agrees; where gpudata
        // refuses, naga refuses the plain declaration too.
        match root.placements(AddressSpace::Uniform) {
            Ok(_) => {
                let mut ours = Vec::new();
                gpudata_structs(&root, AddressSpace::Uniform, &mut ours);
                let text = root.wgsl(AddressSpace::Uniform).unwrap();
                let emitted = validate(&module_text(&text, AddressSpace::Uniform, f16)).unwrap();
                // naga reports a struct's own alignment; the uniform space requires 16 of it.
                let naga = naga_structs(&emitted, &text)
                    .into_iter()
                    .map(|(name, offsets, size, align)| (name, offsets, size, align.max(16)))
                    .collect();
                prop_assert_eq!(sorted(naga), sorted(ours));
            }
            Err(_) => {
                prop_assert!(root.wgsl(AddressSpace::Uniform).is_err());
                prop_assert!(validate(&module_text(&independent, AddressSpace::Uniform, f16)).is_err());
            }
        }

        // The `const fn` walk over the `'static` form equals the run-time walk.
        let fixed = struct_to_static(&root);
        for space in [AddressSpace::Storage, AddressSpace::Uniform] {
            let run_time = root.placements(space).map(|(placed, layout)| {
                (placed.iter().map(|p| p.offset).collect::<Vec<_>>(), layout)
            });
            let compile_time = fixed.offsets::<8>(space).map(|(offsets, layout)| {
                (offsets[..root.members.len()].to_vec(), layout)
            });
            prop_assert_eq!(run_time.is_ok(), compile_time.is_ok());
            if let (Ok(a), Ok(b)) = (run_time, compile_time) {
                prop_assert_eq!(a, b);
            }
        }
    }
}

/// luma.gl's `makeShaderBlockLayout(types, {layout: 'wgsl-uniform'})` on a camera block (values
/// from luma.gl 9.4.2's rules, in bytes: it counts 32-bit words): structs and arrays aligned to
/// 16, struct sizes rounded to 16.
#[test]
fn camera_and_lights_uniform_block() {
    let light = StructDecl::parse(
        "Light",
        "position: vec3<f32>, color: vec3<f32>, intensity: f32",
    )
    .unwrap();
    let spot = StructDecl::parse("Spot", "angle: f32, range: f32").unwrap();
    let mut camera = StructDecl::parse(
        "Camera",
        "view: mat4x4<f32>, projection: mat4x4<f32>, eye: vec3<f32>, count: u32",
    )
    .unwrap();
    for (name, s, n) in [("lights", light, 4), ("spots", spot, 2)] {
        camera.members.push(MemberDecl {
            name: name.into(),
            ty: TypeDecl::Array {
                element: Box::new(TypeDecl::Struct(s)),
                count: Some(n),
            },
            align: None,
            size: None,
        });
    }
    camera.members.push(MemberDecl {
        name: "exposure".into(),
        ty: TypeDecl::parse("f32").unwrap(),
        align: None,
        size: None,
    });
    let (placed, layout) = camera.placements(AddressSpace::Uniform).unwrap();
    let offsets: Vec<u64> = placed.iter().map(|p| p.offset).collect();
    // view 0, projection 64, eye 128, count 140, lights 144 (Light: 32 bytes), spots 272 (Spot:
    // 16 bytes in the uniform space, 8 in storage), exposure 304.
    assert_eq!(offsets, [0, 64, 128, 140, 144, 272, 304]);
    assert_eq!((layout.size, layout.alignment), (320, 16));
    let (storage, _) = camera.placements(AddressSpace::Storage).unwrap();
    assert_eq!(storage[6].offset, 288);
    let text = camera.wgsl(AddressSpace::Uniform).unwrap();
    let module = validate(&module_text(
        &text.replace("Camera", "S0"),
        AddressSpace::Uniform,
        false,
    ))
    .unwrap();
    let naga = sorted(naga_structs(&module, &text.replace("Camera", "S0")));
    assert!(
        naga.contains(&("S0".into(), offsets, 320, 16)),
        "{naga:?}\n{text}"
    );
    // Dependencies first; the spot's last member pads it to 16 bytes, and the array of spots
    // is raised to the uniform space's 16-byte alignment.
    assert!(text.find("struct Light").unwrap() < text.find("struct Camera").unwrap());
    assert!(text.contains("@size(12) range: f32"), "{text}");
    assert!(text.contains("@align(16) spots: array<Spot, 2>"), "{text}");
}

#[test]
fn uniform_refusals_name_the_member_and_the_rule() {
    let s = StructDecl::parse("S", "a: f32, b: array<f32, 4>").unwrap();
    let e = s.placements(AddressSpace::Uniform).unwrap_err();
    assert_eq!(
        e.to_string(),
        "`b`: arrays in the uniform address space need a stride that is a multiple of 16, but the element stride is 4; use 4-component vectors or a struct element padded with `@size`"
    );
    let (members, storage) = s.placements(AddressSpace::Storage).unwrap();
    let offsets: Vec<u64> = members.iter().map(|m| m.offset).collect();
    assert_eq!((offsets, storage.size), (vec![0, 4], 20));
    let tail = StructDecl::parse("S", "n: u32, items: array<vec4<f32>>").unwrap();
    assert!(tail.placements(AddressSpace::Uniform).is_err());
    let (_, layout) = tail.placements(AddressSpace::Storage).unwrap();
    let t = layout.tail.unwrap();
    assert_eq!((t.offset, t.stride, layout.size), (16, 16, 32));
    assert_eq!(layout.byte_length_with(3), Some(64));
}

fn refusal(members: &str, space: AddressSpace) -> String {
    StructDecl::parse("S", members)
        .unwrap()
        .placements(space)
        .unwrap_err()
        .to_string()
}

/// Every rule of the memory model refuses with the member's path and the rule, whole messages.
#[test]
fn type_rule_errors_name_the_member_and_the_rule() {
    let storage = AddressSpace::Storage;
    let uniform = AddressSpace::Uniform;
    let cases = [
        (
            "m: mat4x4<i32>",
            storage,
            "`m`: matrices are `matCxR<f32>` or `matCxR<f16>` with C and R in 2..=4, not mat4x4<i32>",
        ),
        (
            "a: atomic<f32>",
            storage,
            "`a`: atomics are `atomic<u32>` or `atomic<i32>`, not atomic<f32>",
        ),
        (
            "a: atomic<u32>",
            uniform,
            "`a`: atomics cannot be in the uniform address space; use a storage buffer",
        ),
        (
            "a: array<f32, 0>",
            storage,
            "`a`: a fixed-size array needs at least one element",
        ),
        (
            "a: array<array<f32>, 2>",
            storage,
            "`a`: a runtime-sized type can only be the last member of the outermost struct, not an array element or a nested struct's member",
        ),
        (
            "a: array<vec4<f32>>",
            uniform,
            "`a`: runtime-sized arrays cannot be in the uniform address space; use a fixed-size array or a storage buffer",
        ),
        (
            "@align(12) a: f32",
            storage,
            "`a`: `@align(12)` is not a power of two",
        ),
        (
            "@align(8) a: vec3<f32>",
            storage,
            "`a`: `@align(8)` is not a multiple of the member type's alignment 16; use `@align(16)` or more",
        ),
        (
            "@size(8) a: vec3<f32>",
            storage,
            "`a`: `@size(8)` is smaller than the member type's size 12",
        ),
        (
            "n: u32, @size(64) a: array<u32>",
            storage,
            "`a`: `@size` cannot apply to a runtime-sized array",
        ),
        (
            "a: array<u32>, n: u32",
            storage,
            "`n`: a runtime-sized array must be the struct's last member",
        ),
    ];
    for (members, space, message) in cases {
        assert_eq!(refusal(members, space), message, "{members}");
    }
    assert_eq!(
        StructDecl::parse("S", "")
            .unwrap()
            .placements(storage)
            .unwrap_err()
            .to_string(),
        "`(root)`: a struct needs at least one member"
    );
    // A struct ending in a runtime array cannot be a member.
    let inner = StructDecl::parse("Inner", "n: u32, items: array<u32>").unwrap();
    let outer = StructDecl {
        name: "Outer".into(),
        members: vec![MemberDecl {
            name: "inner".into(),
            ty: TypeDecl::Struct(inner),
            align: None,
            size: None,
        }],
    };
    assert_eq!(
        outer.placements(storage).unwrap_err().to_string(),
        "`inner`: a runtime-sized type can only be the last member of the outermost struct, not an array element or a nested struct's member"
    );
    // A vector the parser never produces, built as `'static` data.
    const VEC5: WgslStruct = WgslStruct::new("S", &[WgslMember::new("v", WgslType::vec(5))]);
    let e = VEC5.offsets::<1>(storage).unwrap_err();
    assert_eq!(e.0, 0);
    assert_eq!(e.1.to_string(), "vectors have 2, 3 or 4 components, not 5");
    assert_eq!(
        gpudata::layout::TypeRuleError::Overflow.to_string(),
        "offsets or sizes overflow u64"
    );
}

#[test]
fn declaration_and_wgsl_text_errors() {
    assert_eq!(
        StructDecl::parse("S", "a: vec3<bool>")
            .unwrap_err()
            .to_string(),
        "member `a` has unknown WGSL type `vec3<bool>`: expected a scalar, vecN<T>, matCxR<T>, atomic<T>, a shorthand such as vec3f, or array<E, N> / array<E> of them"
    );
    assert_eq!(
        StructDecl::parse("S", "a = f32").unwrap_err().to_string(),
        "`a = f32` is not a WGSL member declaration: expected `[@align(n)] [@size(n)] name: type`"
    );
    let twice = StructDecl::parse("S", "a: f32, a: u32").unwrap();
    assert_eq!(
        twice.wgsl(AddressSpace::Storage).unwrap_err().to_string(),
        "struct `S` declares member `a` twice"
    );
    let one = StructDecl::parse("Same", "a: f32").unwrap();
    let other = StructDecl::parse("Same", "b: u32").unwrap();
    let both = StructDecl {
        name: "Root".into(),
        members: [("x", one), ("y", other)]
            .into_iter()
            .map(|(name, s)| MemberDecl {
                name: name.into(),
                ty: TypeDecl::Struct(s),
                align: None,
                size: None,
            })
            .collect(),
    };
    assert_eq!(
        both.wgsl(AddressSpace::Storage).unwrap_err().to_string(),
        "two different structs are named `Same`: WGSL text declares each struct once, so rename one"
    );
    let strided = StructDecl::parse("S", "a: array<f32, 2>").unwrap();
    assert_eq!(
        strided.wgsl(AddressSpace::Uniform).unwrap_err().to_string(),
        "the type has no WGSL layout: `a`: arrays in the uniform address space need a stride that is a multiple of 16, but the element stride is 4; use 4-component vectors or a struct element padded with `@size`"
    );
}
