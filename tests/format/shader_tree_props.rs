//! Property tests of the compile-time shader check's type-tree comparison
//! (`__private::compare_tree`, the `const fn` that `#[gpu(shader = ...)]`'s assertions call):
//! random host trees (leaves of every shape, fixed arrays, arrays of arrays, a nested struct and
//! arrays of it) against WGSL written from the same declarations, read through naga into the
//! macro's `ShaderTree` form by this test. Unchanged pairs agree; one perturbation (a leaf's
//! type, two members' order, a missing or an extra member, an `@align`, an array's count), at
//! the top level or inside the nested struct, is found and named by its path. naga lays the WGSL
//! out, so the oracle for every offset, stride and size is naga's layouter.

use gpudata::__private::{
    HostShape, Msg, ShaderStruct, ShaderStructMember, ShaderTree, TreeFinding, compare_tree,
};
use gpudata::format::PrimitiveType;
use gpudata::layout::{
    AddressSpace, LeafType, StructDecl, TypeDecl, WgslMember, WgslStruct, WgslType,
};
use naga::{ArraySize, Handle, Module, ScalarKind, Type, TypeInner};
use proptest::prelude::*;

use crate::shader_props::decl_type;

fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// A host declaration as the `'static` tree the derive describes a struct with.
fn host_type(ty: &TypeDecl) -> WgslType {
    match ty {
        TypeDecl::Leaf(leaf) => WgslType::Leaf(*leaf),
        TypeDecl::Array { element, count } => WgslType::Array {
            element: leak(host_type(element)),
            count: *count,
        },
        TypeDecl::Struct(s) => WgslType::Struct(leak(host_struct(s))),
    }
}

fn host_struct(s: &StructDecl) -> WgslStruct {
    let members: Vec<WgslMember> = s
        .members
        .iter()
        .map(|m| WgslMember {
            name: leak_str(&m.name),
            ty: host_type(&m.ty),
            align: m.align,
            size: m.size,
        })
        .collect();
    WgslStruct {
        name: leak_str(&s.name),
        members: Box::leak(members.into_boxed_slice()),
    }
}

/// naga's view of a type as the macro's `ShaderTree` (positions are the member names: this test
/// checks paths, the trybuild cases check positions).
fn shader_tree(module: &Module, layouter: &naga::proc::Layouter, ty: Handle<Type>) -> ShaderTree {
    let name = leak_str(&format!("{:?}", module.types[ty].inner));
    match &module.types[ty].inner {
        TypeInner::Array { base, size, stride } => ShaderTree::Array {
            element: leak(shader_tree(module, layouter, *base)),
            count: match size {
                ArraySize::Constant(n) => Some(n.get()),
                _ => None,
            },
            stride: u64::from(*stride),
            name,
        },
        TypeInner::Struct { members, span } => {
            let members: Vec<ShaderStructMember> = members
                .iter()
                .map(|m| {
                    let member_name = leak_str(m.name.as_deref().unwrap_or(""));
                    ShaderStructMember {
                        name: member_name,
                        at: member_name,
                        tree: shader_tree(module, layouter, m.ty),
                        offset: u64::from(m.offset),
                        align: u64::from(layouter[m.ty].alignment.round_up(1)),
                    }
                })
                .collect();
            ShaderTree::Struct(leak(ShaderStruct {
                name: leak_str(module.types[ty].name.as_deref().unwrap_or("")),
                at: "struct",
                size: u64::from(*span),
                members: Box::leak(members.into_boxed_slice()),
            }))
        }
        inner => {
            let scalar = |s: naga::Scalar| match (s.kind, s.width) {
                (ScalarKind::Float, 4) => Some(PrimitiveType::F32),
                (ScalarKind::Sint, 4) => Some(PrimitiveType::I32),
                (ScalarKind::Uint, 4) => Some(PrimitiveType::U32),
                _ => None,
            };
            let leaf = match *inner {
                TypeInner::Scalar(s) => scalar(s).map(LeafType::Scalar),
                TypeInner::Atomic(s) => scalar(s).map(LeafType::Atomic),
                TypeInner::Vector { size, scalar: s } => scalar(s).map(|s| LeafType::Vector {
                    components: size as u8,
                    scalar: s,
                }),
                TypeInner::Matrix {
                    columns,
                    rows,
                    scalar: s,
                } => scalar(s).map(|s| LeafType::Matrix {
                    columns: columns as u8,
                    rows: rows as u8,
                    scalar: s,
                }),
                _ => None,
            };
            ShaderTree::Leaf { leaf, name }
        }
    }
}

/// What the compile-time comparison finds between `host` and the WGSL struct `Outer` of `wgsl`.
fn compare(host: &StructDecl, wgsl: &str) -> TreeFinding {
    let module = naga::front::wgsl::parse_str(wgsl).unwrap_or_else(|e| panic!("{e}\n{wgsl}"));
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).expect("naga lays it out");
    let (outer, _) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some("Outer"))
        .expect("Outer");
    let shader = shader_tree(&module, &layouter, outer);
    compare_tree(
        &WgslType::Struct(leak(host_struct(host))),
        &HostShape::Packed,
        &shader,
        AddressSpace::Storage,
        Msg::new().str("outer"),
        "outer",
        TreeFinding::none(),
    )
}

/// Outer members: leaf types, the nested struct, fixed arrays of it.
fn outer_type() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => decl_type(),
        1 => Just("Inner".to_owned()),
        1 => (1u32..4).prop_map(|n| format!("array<Inner, {n}>")),
    ]
}

/// One perturbation of one member of `Inner` (`inner: true`) or `Outer`.
#[derive(Clone, Debug)]
enum Change {
    /// The member becomes `u32` (`f32` when it is `u32`).
    Type(usize),
    /// The member and the next one swap places (when their types differ).
    Swap(usize),
    /// The member is removed.
    Remove(usize),
    /// A member `extra: u32` is inserted before it.
    Extra(usize),
    /// The member gets an `@align` above the struct's size.
    Align(usize),
    /// The member's outermost array count grows by one (when it is an array).
    Count(usize),
}

impl Change {
    fn index(&self) -> usize {
        match *self {
            Change::Type(i)
            | Change::Swap(i)
            | Change::Remove(i)
            | Change::Extra(i)
            | Change::Align(i)
            | Change::Count(i) => i,
        }
    }
}

fn wgsl(inner: &[String], outer: &[String]) -> String {
    format!(
        "struct Inner {{ {} }}\nstruct Outer {{ {} }}\n",
        inner.join(", "),
        outer.join(", ")
    )
}

fn members(types: &[String]) -> Vec<String> {
    types
        .iter()
        .enumerate()
        .map(|(i, t)| format!("m{i}: {t}"))
        .collect()
}

/// `members` with `change` applied (`None` when it changes nothing there), and the member name it
/// must be reported under.
fn perturbed(
    types: &[String],
    members: &[String],
    change: &Change,
    size: u64,
) -> Option<(Vec<String>, Vec<String>)> {
    let i = change.index() % types.len();
    let mut out = members.to_vec();
    let name = format!("m{i}");
    let names = match change {
        Change::Type(_) => {
            let other = if types[i] == "u32" { "f32" } else { "u32" };
            out[i] = format!("{name}: {other}");
            vec![name]
        }
        Change::Swap(_) => {
            let j = i + 1;
            if j >= types.len() || types[i] == types[j] {
                return None;
            }
            out.swap(i, j);
            vec![name, format!("m{j}")]
        }
        Change::Remove(_) => {
            out.remove(i);
            vec![name]
        }
        Change::Extra(_) => {
            out.insert(i, "extra: u32".to_owned());
            vec!["extra".to_owned()]
        }
        Change::Align(_) => {
            let align = (size + 1).next_power_of_two().max(32);
            out[i] = format!("@align({align}) {}", out[i]);
            vec![name]
        }
        Change::Count(_) => {
            let t = &types[i];
            let (head, n) = t.strip_prefix("array<")?.rsplit_once(", ")?;
            let n: u32 = n.strip_suffix('>')?.parse().ok()?;
            out[i] = format!("{name}: array<{head}, {}>", n + 1);
            vec![name]
        }
    };
    Some((out, names))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    /// Random nested type trees agree with WGSL written from the same declarations; one
    /// perturbation, at the top level or inside the nested struct, is found and named by its
    /// path (`outer.m2`, `outer.m1.m0`, `outer.m3[].m0`), or by the struct whose size it moves.
    #[test]
    fn nested_trees_agree_and_every_perturbation_is_named(
        inner_types in prop::collection::vec(decl_type(), 1..4),
        outer_types in prop::collection::vec(outer_type(), 1..5),
        in_inner in any::<bool>(),
        change in prop_oneof![
            (0usize..8).prop_map(Change::Type),
            (0usize..8).prop_map(Change::Swap),
            (0usize..8).prop_map(Change::Remove),
            (0usize..8).prop_map(Change::Extra),
            (0usize..8).prop_map(Change::Align),
            (0usize..8).prop_map(Change::Count),
        ],
    ) {
        let inner = members(&inner_types);
        let outer = members(&outer_types);
        let inner_decl = StructDecl::parse("Inner", &inner.join(", ")).expect("valid inner");
        let mut host = StructDecl::parse("Outer", &outer.join(", ").replace("Inner", "f32"))
            .expect("valid outer");
        // The nested struct where the text names it (the parser knows no user structs).
        for (member, ty) in host.members.iter_mut().zip(&outer_types) {
            if ty == "Inner" {
                member.ty = TypeDecl::Struct(inner_decl.clone());
            } else if let Some(n) = ty.strip_prefix("array<Inner, ") {
                member.ty = TypeDecl::Array {
                    element: Box::new(TypeDecl::Struct(inner_decl.clone())),
                    count: Some(n.trim_end_matches('>').parse().unwrap()),
                };
            }
        }
        let found = compare(&host, &wgsl(&inner, &outer));
        prop_assert!(!found.found, "false alarm: {} {}", found.path.as_str(), found.body.as_str());

        let uses_inner = outer_types.iter().any(|t| t.contains("Inner"));
        let (types, text, decl) = if in_inner && uses_inner {
            (&inner_types, &inner, &inner_decl)
        } else {
            (&outer_types, &outer, &host)
        };
        let size = decl.placements(AddressSpace::Storage).unwrap().1.size;
        let Some((changed, names)) = perturbed(types, text, &change, size) else {
            return Ok(());
        };
        let changed_wgsl = if in_inner && uses_inner {
            wgsl(&changed, &outer)
        } else {
            wgsl(&inner, &changed)
        };
        let found = compare(&host, &changed_wgsl);
        prop_assert!(found.found, "{change:?} not found in\n{changed_wgsl}");
        // Where the changed struct sits: `outer`, or each outer member holding `Inner`.
        let levels: Vec<String> = if in_inner && uses_inner {
            outer_types
                .iter()
                .enumerate()
                .filter(|(_, t)| t.contains("Inner"))
                .map(|(k, t)| format!("outer.m{k}{}", if t.starts_with("array") { "[]" } else { "" }))
                .collect()
        } else {
            vec!["outer".to_owned()]
        };
        let i = change.index() % types.len();
        let mut expected: Vec<String> = Vec::new();
        for level in &levels {
            expected.extend(names.iter().map(|n| format!("{level}.{n}")));
            if matches!(change, Change::Extra(_) | Change::Align(_)) {
                // What the change moves: later members and the struct's size.
                expected.extend((i..types.len()).map(|j| format!("{level}.m{j}")));
                expected.push(level.clone());
            }
        }
        if in_inner && uses_inner {
            // A nested struct of another size or alignment moves the outer member holding it
            // (its offset, or its array's stride) before anything inside it is compared.
            for (k, t) in outer_types.iter().enumerate() {
                if t.contains("Inner") {
                    expected.push(format!("outer.m{k}"));
                    expected.push(format!("outer.m{k}[]"));
                }
            }
            expected.push("outer".to_owned());
        }
        let path = found.path.as_str();
        prop_assert!(
            expected.iter().any(|e| e == path),
            "{change:?} named `{path}` ({}), expected one of {expected:?}\n{changed_wgsl}",
            found.body.as_str()
        );
    }
}
