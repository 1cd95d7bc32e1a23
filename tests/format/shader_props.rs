//! Property tests of the run-time shader check (`gpudata::check`): random struct formats (every
//! vertex format, both layouts) against WGSL written here from them, and random vertex buffers
//! against a vertex entry point written from them. Unchanged pairs pass; one random perturbation
//! (a member's type, two members' order, a missing or extra member, an `@align`, a location, a
//! numeric kind or component count) is detected and named. naga lays the WGSL out, so the
//! oracle for every offset and size is naga's layouter, not gpudata's engine.

use gpudata::check::{MismatchError, Shader, ShaderCheckError, VertexBufferInput};
use gpudata::format::PrimitiveType;
use gpudata::{BufferLayout, GpuDataStructFormat, ShaderType, StructLayout, VertexFormat};
use proptest::prelude::*;

/// A member as the test writes it: name, WGSL type, optional `@align`.
#[derive(Clone, Debug)]
struct Member {
    name: String,
    ty: String,
    align: Option<u64>,
}

fn wgsl_struct(members: &[Member]) -> String {
    let mut out = String::from("struct Row {\n");
    for m in members {
        let align = m
            .align
            .map_or_else(String::new, |a| format!("@align({a}) "));
        out.push_str(&format!("    {align}{}: {},\n", m.name, m.ty));
    }
    out.push_str("}\n");
    out
}

/// The WGSL type that stores `format`, spelled by the test (not by gpudata): 32-bit formats as
/// themselves, other formats as the `u32` words that hold their bytes.
fn storage_type(format: VertexFormat) -> String {
    let words = format.byte_length().div_ceil(4);
    let native = matches!(
        format.primitive_type(),
        PrimitiveType::F32 | PrimitiveType::I32 | PrimitiveType::U32
    ) && !format.is_normalized()
        && format.byte_length() == 4 * u64::from(format.components());
    if native {
        let scalar = format.primitive_type().as_str();
        match format.components() {
            1 => scalar.to_owned(),
            n => format!("vec{n}<{scalar}>"),
        }
    } else if words == 1 {
        "u32".to_owned()
    } else {
        format!("vec{words}<u32>")
    }
}

fn wgpu_formats() -> Vec<VertexFormat> {
    VertexFormat::ALL
        .into_iter()
        .filter(|f| !f.is_webgl_only())
        .collect()
}

/// A random field list: 1 to 8 fields `f0..`, every format (WebGL-only ones in wgsl-storage
/// only, as packed refuses them).
fn fields(layout: StructLayout) -> impl Strategy<Value = Vec<VertexFormat>> {
    let pool: Vec<VertexFormat> = match layout {
        StructLayout::Packed => wgpu_formats(),
        StructLayout::WgslStorage | StructLayout::WgslUniform => VertexFormat::ALL.to_vec(),
    };
    prop::collection::vec(prop::sample::select(pool), 1..8)
}

fn format_of(layout: StructLayout, formats: &[VertexFormat]) -> GpuDataStructFormat {
    GpuDataStructFormat::new(
        layout,
        formats
            .iter()
            .enumerate()
            .map(|(i, f)| (format!("f{i}"), *f)),
    )
    .expect("a valid field list")
}

fn mismatches(result: Result<(), ShaderCheckError>) -> Vec<gpudata::check::ShaderMismatch> {
    match result {
        Ok(()) => Vec::new(),
        Err(ShaderCheckError::Mismatches { mismatches, .. }) => mismatches,
        Err(other) => panic!("the check did not run: {other}"),
    }
}

/// One perturbation of a struct's WGSL and what the check must name.
#[derive(Clone, Debug)]
enum StructChange {
    /// Member `i` gets another WGSL type of the same size class.
    Type(usize),
    /// Members `i` and `j` trade places.
    Swap(usize, usize),
    /// Member `i` is removed.
    Remove(usize),
    /// A member `extra` is inserted before member `i`.
    Extra(usize),
    /// Member `i` gets `@align(A)` with `A` above the row's stride.
    Align(usize),
}

fn struct_change(n: usize) -> impl Strategy<Value = StructChange> {
    prop_oneof![
        (0..n).prop_map(StructChange::Type),
        (0..n, 1..n.max(2)).prop_map(move |(i, d)| if n > 1 {
            StructChange::Swap(i, (i + d) % n)
        } else {
            StructChange::Type(i)
        }),
        (0..n).prop_map(StructChange::Remove),
        (0..=n).prop_map(StructChange::Extra),
        (0..n).prop_map(StructChange::Align),
    ]
}

/// Another WGSL type for a member of type `ty`: the same components of another scalar.
fn other_type(ty: &str) -> String {
    if ty.contains("u32") {
        ty.replace("u32", "f32")
    } else if ty.contains("f32") {
        ty.replace("f32", "i32")
    } else {
        ty.replace("i32", "u32")
    }
}

/// Applies `change`; returns the members and the paths of which at least one must be named.
fn perturb(members: &[Member], stride: u64, change: &StructChange) -> (Vec<Member>, Vec<String>) {
    let mut out = members.to_vec();
    let named = match *change {
        StructChange::Type(i) => {
            out[i].ty = other_type(&out[i].ty);
            vec![out[i].name.clone()]
        }
        StructChange::Swap(i, j) => {
            out.swap(i, j);
            vec![members[i].name.clone(), members[j].name.clone()]
        }
        StructChange::Remove(i) => vec![out.remove(i).name],
        StructChange::Extra(i) => {
            out.insert(
                i,
                Member {
                    name: "extra".to_owned(),
                    ty: "u32".to_owned(),
                    align: None,
                },
            );
            vec!["extra".to_owned()]
        }
        StructChange::Align(i) => {
            let align = (stride + 1).next_power_of_two().max(32);
            out[i].align = Some(align);
            // A member after the first moves; the first member's @align raises the struct's
            // alignment, so the size (the stride) changes.
            vec![out[i].name.clone(), "Row".to_owned()]
        }
    };
    (out, named)
}

/// The wgsl-storage layout's members: the carrier types at their natural offsets.
fn storage_members(formats: &[VertexFormat]) -> Vec<Member> {
    formats
        .iter()
        .enumerate()
        .map(|(i, f)| Member {
            name: format!("f{i}"),
            ty: storage_type(*f),
            align: None,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// WGSL written from a wgsl-storage format agrees with it; after one perturbation the check
    /// names the perturbed member.
    #[test]
    fn storage_structs_agree_and_every_perturbation_is_named(
        (formats, change) in fields(StructLayout::WgslStorage)
            .prop_flat_map(|f| { let n = f.len(); (Just(f), struct_change(n)) })
    ) {
        let host = format_of(StructLayout::WgslStorage, &formats);
        let members = storage_members(&formats);
        let shader = Shader::parse(&wgsl_struct(&members)).expect("valid wgsl");
        prop_assert_eq!(shader.check_struct_format(&host, "Row"), Ok(()));

        let (changed, named) = perturb(&members, host.byte_stride(), &change);
        let shader = Shader::parse(&wgsl_struct(&changed)).expect("valid wgsl");
        let found = mismatches(shader.check_struct_format(&host, "Row"));
        prop_assert!(!found.is_empty(), "{change:?} went unnoticed");
        prop_assert!(
            found.iter().any(|m| named.contains(&m.path)),
            "{change:?}: none of {named:?} named in {found:?}"
        );
        for m in &found {
            prop_assert!(m.location.is_some(), "{m} has no wgsl position");
        }
        let kind_named = found.iter().any(|m| {
            matches!(
                (&change, &m.error),
            (StructChange::Type(_), MismatchError::Type { .. })
            | (StructChange::Swap(..), MismatchError::Offset { .. } | MismatchError::Type { .. })
            | (StructChange::Remove(_), MismatchError::MissingInShader { .. })
            | (StructChange::Extra(_), MismatchError::MissingOnHost { .. })
            | (StructChange::Align(_), MismatchError::Offset { .. } | MismatchError::Stride { .. })
            )
        });
        prop_assert!(kind_named, "{change:?}: wrong kinds in {found:?}");
    }

    /// A packed format agrees with WGSL exactly when WGSL's rules give its offsets and stride:
    /// the check's verdict equals comparing naga's layout with the format's, field by field.
    #[test]
    fn packed_structs_are_judged_by_naga_offsets(formats in fields(StructLayout::Packed)) {
        let host = format_of(StructLayout::Packed, &formats);
        let members = storage_members(&formats);
        let shader = Shader::parse(&wgsl_struct(&members)).expect("valid wgsl");
        let storage = format_of(StructLayout::WgslStorage, &formats);
        let mut expected: Vec<String> = host
            .fields()
            .iter()
            .zip(storage.fields())
            .filter(|(p, s)| p.byte_offset() != s.byte_offset())
            .map(|(p, _)| p.name().to_owned())
            .collect();
        if host.byte_stride() != storage.byte_stride() {
            expected.push("Row".to_owned());
        }
        let found: Vec<String> = mismatches(shader.check_struct_format(&host, "Row"))
            .into_iter()
            .map(|m| m.path)
            .collect();
        prop_assert_eq!(found, expected);
    }
}

/// One perturbation of a vertex entry point's inputs.
#[derive(Clone, Debug)]
enum InputChange {
    /// Input `i` moves to a location nothing feeds.
    Location(usize),
    /// Input `i` reads another numeric kind.
    Kind(usize),
    /// Input `i` reads one component more or fewer (WebGPU accepts it: only scalar kinds are
    /// compared).
    Components(usize),
}

fn input_change(n: usize) -> impl Strategy<Value = InputChange> {
    prop_oneof![
        (0..n).prop_map(InputChange::Location),
        (0..n).prop_map(InputChange::Kind),
        (0..n).prop_map(InputChange::Components),
    ]
}

fn entry_point(inputs: &[(u32, ShaderType)]) -> String {
    let params: Vec<String> = inputs
        .iter()
        .enumerate()
        .map(|(i, (location, ty))| format!("@location({location}) a{i}: {ty}"))
        .collect();
    format!(
        "@vertex fn vs({}) -> @builtin(position) vec4<f32> {{ return vec4<f32>(0.0); }}",
        params.join(", ")
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random vertex buffers (one interleaved at locations from 0, one single-attribute per
    /// instance after it) feed an entry point whose inputs are the types the formats deliver;
    /// a moved or re-kinded input is named by location and kind, one reading another component
    /// count is accepted, as wgpu accepts it.
    #[test]
    fn vertex_inputs_agree_and_every_perturbation_is_named(
        (formats, change) in prop::collection::vec(prop::sample::select(wgpu_formats()), 2..7)
            .prop_flat_map(|f| { let n = f.len(); (Just(f), input_change(n)) })
    ) {
        let (interleaved, single) = formats.split_at(formats.len() - 1);
        let host = format_of(StructLayout::Packed, interleaved);
        let buffers = [
            VertexBufferInput::from_layout(&host.buffer_layout("rows", None), 0),
            VertexBufferInput::from_layout(
                &BufferLayout::single("extra", single[0], single[0].byte_length().next_multiple_of(4)),
                interleaved.len() as u32,
            ),
        ];
        let inputs: Vec<(u32, ShaderType)> = formats
            .iter()
            .zip(0..)
            .map(|(f, location)| (location, f.vertex_input_type()))
            .collect();
        let shader = Shader::parse(&entry_point(&inputs)).expect("valid wgsl");
        prop_assert_eq!(shader.check_vertex_inputs("vs", &buffers), Ok(()));

        let mut changed = inputs.clone();
        let i = match change { InputChange::Location(i) | InputChange::Kind(i) | InputChange::Components(i) => i };
        let (location, ty) = inputs[i];
        changed[i] = match change {
            InputChange::Location(_) => (location + 100, ty),
            InputChange::Kind(_) => {
                let other = match ty.primitive() {
                    PrimitiveType::F32 | PrimitiveType::F16 => PrimitiveType::I32,
                    PrimitiveType::I32 => PrimitiveType::U32,
                    PrimitiveType::U32 => PrimitiveType::F32,
                };
                (location, ShaderType::new(other, ty.components()))
            }
            InputChange::Components(_) => {
                let n = if ty.components() == 4 { 3 } else { ty.components() + 1 };
                (location, ShaderType::new(ty.primitive(), n))
            }
        };
        let shader = Shader::parse(&entry_point(&changed)).expect("valid wgsl");
        if matches!(change, InputChange::Components(_)) {
            prop_assert_eq!(shader.check_vertex_inputs("vs", &buffers), Ok(()));
            return Ok(());
        }
        let found = mismatches(shader.check_vertex_inputs("vs", &buffers));
        let named = found.iter().any(|m| match (&change, &m.error) {
            (InputChange::Location(_), MismatchError::UnfedInput { location: l, .. }) => *l == location + 100,
            (InputChange::Kind(_), MismatchError::InputKind { location: l, .. }) => *l == location,
            _ => false,
        });
        prop_assert!(named, "{change:?}: not named in {found:?}");
        for m in &found {
            prop_assert!(m.to_string().contains(&format!("location {}", if matches!(m.error, MismatchError::UnfedInput { .. }) { location + 100 } else { location })), "{m}");
        }
    }
}

/// WGSL types for the type-tree check: leaves of every shape (no `f16`, which needs
/// `enable f16;`), fixed arrays of them, and arrays of arrays.
pub(crate) fn decl_type() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(vec![
        "f32",
        "i32",
        "u32",
        "vec2<f32>",
        "vec3<f32>",
        "vec4<u32>",
        "vec3<i32>",
        "mat2x2<f32>",
        "mat3x3<f32>",
        "mat4x4<f32>",
        "mat2x3<f32>",
        "mat4x2<f32>",
        "atomic<u32>",
    ])
    .prop_map(str::to_owned);
    leaf.prop_recursive(2, 8, 1, |inner| {
        (inner, 1u32..5).prop_map(|(t, n)| format!("array<{t}, {n}>"))
    })
}

/// One perturbation of a type tree's WGSL.
#[derive(Clone, Debug)]
enum DeclChange {
    /// Member `i` becomes `u32` (or `f32` when it is `u32`).
    Type(usize),
    /// Member `i` is removed.
    Remove(usize),
    /// Member `i` gets an `@align` above the struct's size.
    Align(usize),
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Random type trees (matrices, atomics, nested arrays) declared on the host from text and
    /// in WGSL from the same text agree; one perturbation of the WGSL is named by member.
    #[test]
    fn type_trees_agree_and_every_perturbation_is_named(
        (types, change) in prop::collection::vec(decl_type(), 1..6).prop_flat_map(|t| {
            let n = t.len();
            (Just(t), prop_oneof![
                (0..n).prop_map(DeclChange::Type),
                (0..n).prop_map(DeclChange::Remove),
                (0..n).prop_map(DeclChange::Align),
            ])
        })
    ) {
        use gpudata::layout::{AddressSpace, StructDecl};
        let members: Vec<String> = types.iter().enumerate().map(|(i, t)| format!("m{i}: {t}")).collect();
        let host = StructDecl::parse("Tree", &members.join(", ")).expect("a valid declaration");
        let wgsl = |members: &[String]| format!("struct Tree {{ {} }}", members.join(", "));
        let shader = Shader::parse(&wgsl(&members)).expect("valid wgsl");
        prop_assert_eq!(shader.check_struct_decl(&host, AddressSpace::Storage, "Tree"), Ok(()));

        let mut changed = members.clone();
        let i = match change { DeclChange::Type(i) | DeclChange::Remove(i) | DeclChange::Align(i) => i };
        let name = format!("m{i}");
        match change {
            DeclChange::Type(_) => {
                let other = if types[i] == "u32" { "f32" } else { "u32" };
                changed[i] = format!("{name}: {other}");
            }
            DeclChange::Remove(_) => { changed.remove(i); }
            DeclChange::Align(_) => {
                // Above the struct's size, so the member (or, for the first, the size) moves.
                let size = host.placements(AddressSpace::Storage).unwrap().1.size;
                let align = (size + 1).next_power_of_two().max(32);
                changed[i] = format!("@align({align}) {}", changed[i]);
            }
        }
        let shader = Shader::parse(&wgsl(&changed)).expect("valid wgsl");
        let found = mismatches(shader.check_struct_decl(&host, AddressSpace::Storage, "Tree"));
        let named = found.iter().any(|m| match (&change, &m.error) {
            (DeclChange::Type(_), MismatchError::DeclType { .. }) => m.path == name,
            (DeclChange::Remove(_), MismatchError::MissingInShader { .. }) => m.path == name,
            // A first member's @align moves nothing but the struct's size.
            (DeclChange::Align(_), MismatchError::Offset { .. }) => m.path == name,
            (DeclChange::Align(_), MismatchError::Stride { .. }) => m.path == "Tree",
            _ => false,
        });
        prop_assert!(named, "{change:?}: not named in {found:?}");
    }
}
