//! The compile-time shader check's type trees: a WGSL struct member's type as the macro read it
//! from the shader ([`ShaderTree`]), compared in `const fn`s with the host's type tree (the
//! derived struct's [`WgslType`] and [`HostShape`], laid out by `layout::memory`'s rules),
//! level by level: nested structs member by member, arrays by count, stride and element, leaves
//! by type (a vertex-format field by [`storage_accepts`]). The run-time twin is
//! `check::decl` (over naga's types); both call the same layout and leaf rules.

use super::messages::leaf_text;
use crate::format::{ShaderType, VertexFormat, const_str_eq};
use crate::layout::{AddressSpace, LeafType, MemberCursor, WgslStruct, WgslType, array_layout};
use crate::record::HostShape;
use crate::record::shader_rules::{offset_hint, storage_accepts, struct_size_agrees, type_name};
use crate::record::tree::Msg;

/// A WGSL type as the compile-time check read it from the shader.
#[derive(Clone, Copy, Debug)]
pub enum ShaderTree {
    /// A scalar, vector, matrix or atomic of `f32`, `f16`, `i32` or `u32` (`leaf: None`: any
    /// other type, which no host type matches).
    Leaf {
        /// The leaf.
        leaf: Option<LeafType>,
        /// Its WGSL spelling.
        name: &'static str,
    },
    /// `array<E, N>` (`count: Some(N)`) or `array<E>`.
    Array {
        /// `E`.
        element: &'static ShaderTree,
        /// `N`.
        count: Option<u32>,
        /// The array stride.
        stride: u64,
        /// Its WGSL spelling.
        name: &'static str,
    },
    /// A struct.
    Struct(&'static ShaderStruct),
}

/// A WGSL struct as the compile-time check read it.
#[derive(Clone, Copy, Debug)]
pub struct ShaderStruct {
    /// Its name.
    pub name: &'static str,
    /// `file:line:column` of its declaration.
    pub at: &'static str,
    /// Its size.
    pub size: u64,
    /// Its members.
    pub members: &'static [ShaderStructMember],
}

/// A member of a [`ShaderStruct`].
#[derive(Clone, Copy, Debug)]
pub struct ShaderStructMember {
    /// Its name.
    pub name: &'static str,
    /// `file:line:column` of its declaration.
    pub at: &'static str,
    /// Its type.
    pub tree: ShaderTree,
    /// Its byte offset.
    pub offset: u64,
    /// Its type's alignment.
    pub align: u64,
}

impl ShaderTree {
    /// The WGSL spelling.
    #[must_use]
    pub const fn name(&self) -> &'static str {
        match self {
            ShaderTree::Leaf { name, .. } | ShaderTree::Array { name, .. } => name,
            ShaderTree::Struct(s) => s.name,
        }
    }
}

/// The value type of a scalar, vector or atomic leaf ([`LeafType::value`]: atomics as their
/// scalar, `atomic<i32>` and `atomic<u32>` only); `None` for matrices.
#[must_use]
pub const fn leaf_value(leaf: LeafType) -> Option<ShaderType> {
    leaf.value()
}

const fn leaf_eq(a: LeafType, b: LeafType) -> bool {
    match (a, b) {
        (LeafType::Scalar(x), LeafType::Scalar(y)) | (LeafType::Atomic(x), LeafType::Atomic(y)) => {
            x as u8 == y as u8
        }
        (
            LeafType::Vector {
                components: n,
                scalar: x,
            },
            LeafType::Vector {
                components: m,
                scalar: y,
            },
        ) => n == m && x as u8 == y as u8,
        (
            LeafType::Matrix {
                columns: c,
                rows: r,
                scalar: x,
            },
            LeafType::Matrix {
                columns: d,
                rows: s,
                scalar: y,
            },
        ) => c == d && r == s && x as u8 == y as u8,
        _ => false,
    }
}

/// `msg` with the host type's WGSL spelling appended.
const fn host_text(msg: Msg, ty: &WgslType) -> Msg {
    match ty {
        WgslType::Leaf(leaf) => leaf_text(msg, *leaf),
        WgslType::Array {
            element,
            count: Some(n),
        } => host_text(msg.str("array<"), element)
            .str(", ")
            .num(*n as u64)
            .str(">"),
        WgslType::Array {
            element,
            count: None,
        } => host_text(msg.str("array<"), element).str(">"),
        WgslType::Struct(s) => msg.str(s.name),
    }
}

/// The first disagreement found in a type tree (its path below the field, WGSL position and
/// what differs) and how many more there are.
#[derive(Clone, Copy)]
pub struct TreeFinding {
    /// The path of the first one (`lights[].color`).
    pub path: Msg,
    /// Its WGSL `file:line:column`.
    pub at: &'static str,
    /// What differs.
    pub body: Msg,
    /// Disagreements after the first.
    pub more: u64,
    /// Whether there is one.
    pub found: bool,
}

impl TreeFinding {
    /// Nothing found yet.
    #[must_use]
    pub const fn none() -> TreeFinding {
        TreeFinding {
            path: Msg::new(),
            at: "",
            body: Msg::new(),
            more: 0,
            found: false,
        }
    }

    /// This finding with one more disagreement: the first one's `path`, `at` and `body`, or
    /// one more counted.
    #[must_use]
    pub const fn note(mut self, path: Msg, at: &'static str, body: Msg) -> TreeFinding {
        if self.found {
            self.more += 1;
        } else {
            self.path = path;
            self.at = at;
            self.body = body;
            self.found = true;
        }
        self
    }
}

/// `msg` with `found`'s first disagreement: its path and WGSL position when it lies below the
/// value `name` (`` `lights[].color` (file:line:column): ``), then what differs.
#[must_use]
pub const fn finding_text(msg: Msg, found: &TreeFinding, name: &str) -> Msg {
    let msg = if const_str_eq(found.path.as_str(), name) {
        msg
    } else {
        msg.str("`")
            .str(found.path.as_str())
            .str("` (")
            .str(found.at)
            .str("): ")
    };
    msg.str(found.body.as_str())
}

/// `msg` with how many more disagreements lie below `name`, and the run-time check (`lister`)
/// that lists every one; `msg` itself when there are none.
#[must_use]
pub const fn more_text(msg: Msg, found: &TreeFinding, name: &str, lister: &str) -> Msg {
    if found.more == 0 {
        return msg;
    }
    msg.str(" (")
        .num(found.more)
        .str(" more below `")
        .str(name)
        .str("`; `")
        .str(lister)
        .str("` lists every one)")
}

/// What to say when a field of `format` meets a shader member of another type.
#[must_use]
pub const fn format_body(format: VertexFormat, shader_type: &str) -> Msg {
    let carrier = format.wgsl_carrier();
    let carrier = type_name(ShaderType::new(carrier.primitive(), carrier.components()));
    Msg::new()
        .str("host format ")
        .str(format.as_str())
        .str(" is stored as ")
        .str(carrier)
        .str(", the shader declares ")
        .str(shader_type)
        .str("; declare the member as ")
        .str(carrier)
        .str(" or change the field's type")
}

/// What to say when a member sits at another offset.
#[must_use]
pub const fn offset_body(host: u64, shader: u64, shader_type: &str, align: u64) -> Msg {
    Msg::new()
        .str("host offset ")
        .num(host)
        .str(", shader offset ")
        .num(shader)
        .str(" (")
        .str(shader_type)
        .str(" aligns to ")
        .num(align)
        .str("); ")
        .str(offset_hint(host, shader))
}

const fn same_count(host: Option<u32>, shader: Option<u32>) -> bool {
    match (host, shader) {
        (Some(n), Some(m)) => n == m,
        (None, None) => true,
        _ => false,
    }
}

/// Compares the host type `host` (its GPU bytes located by `shape`) with the shader's `shader`,
/// under `space`'s rules; `path` names the value, `at` is the shader's declaration of it.
#[must_use]
pub const fn compare_tree(
    host: &WgslType,
    shape: &HostShape,
    shader: &ShaderTree,
    space: AddressSpace,
    path: Msg,
    at: &'static str,
    found: TreeFinding,
) -> TreeFinding {
    match (host, shader) {
        (
            WgslType::Leaf(leaf),
            ShaderTree::Leaf {
                leaf: shader_leaf, ..
            },
        ) => {
            let field = match shape {
                HostShape::Field(format) => Some(*format),
                _ => None,
            };
            let accepted = match *shader_leaf {
                Some(s) => {
                    leaf_eq(*leaf, s)
                        || match (field, leaf_value(s)) {
                            (Some(format), Some(value)) => storage_accepts(format, value),
                            _ => false,
                        }
                }
                None => false,
            };
            if accepted {
                return found;
            }
            let body = match field {
                Some(format) => format_body(format, shader.name()),
                None => type_body(host, shader),
            };
            found.note(path, at, body)
        }
        (
            WgslType::Array { element, count },
            ShaderTree::Array {
                element: shader_element,
                count: shader_count,
                stride,
                ..
            },
        ) if same_count(*count, *shader_count) => {
            let element_shape = match shape {
                HostShape::Array { element, .. } => *element,
                _ => &HostShape::Packed,
            };
            let element_path = path.str("[]");
            let mut found = found;
            if let Ok(inner) = element.layout(space) {
                let host_stride = match array_layout(inner, Some(1), space) {
                    Ok(one) => one.size,
                    Err(_) => inner.stride(),
                };
                if host_stride != *stride {
                    let body = Msg::new()
                        .str("host array stride ")
                        .num(host_stride)
                        .str(" bytes, shader stride ")
                        .num(*stride)
                        .str(" bytes; make the element types agree");
                    found = found.note(element_path, at, body);
                }
            }
            compare_tree(
                element,
                element_shape,
                shader_element,
                space,
                element_path,
                at,
                found,
            )
        }
        (WgslType::Struct(host), ShaderTree::Struct(shader)) => {
            compare_struct(host, shape, shader, space, path, found)
        }
        _ => found.note(path, at, type_body(host, shader)),
    }
}

const fn type_body(host: &WgslType, shader: &ShaderTree) -> Msg {
    host_text(Msg::new().str("host type "), host)
        .str(", the shader declares ")
        .str(shader.name())
        .str("; make the types agree")
}

/// Compares a host struct with a shader struct: members by name, their offsets and types, members
/// on one side only, and the struct's size.
const fn compare_struct(
    host: &WgslStruct,
    shape: &HostShape,
    shader: &ShaderStruct,
    space: AddressSpace,
    prefix: Msg,
    found: TreeFinding,
) -> TreeFinding {
    let shapes: &[crate::record::HostMember] = match shape {
        HostShape::Struct { members, .. } => members,
        _ => &[],
    };
    let mut found = found;
    let mut cursor = MemberCursor::new(space);
    let mut i = 0;
    while i < host.members.len() {
        let member = &host.members[i];
        let Ok(layout) = member.ty.layout(space) else {
            // The host's own layout problem is reported by its derive.
            return found;
        };
        let Ok(placed) = cursor.place(
            layout,
            member.ty.is_runtime_array(),
            member.align,
            member.size,
        ) else {
            return found;
        };
        let path = prefix.str(".").str(member.name);
        match find(shader, member.name) {
            None => {
                let body = Msg::new()
                    .str("the shader's struct `")
                    .str(shader.name)
                    .str("` has no member `")
                    .str(member.name)
                    .str("`; add it to the wgsl, or rename the field with #[gpu(name = \"...\")]");
                found = found.note(path, shader.at, body);
            }
            Some(s) => {
                let member_shape = if i < shapes.len() {
                    &shapes[i].shape
                } else {
                    &HostShape::Packed
                };
                found = compare_tree(&member.ty, member_shape, &s.tree, space, path, s.at, found);
                if placed.offset != s.offset {
                    let body = offset_body(placed.offset, s.offset, s.tree.name(), s.align);
                    found = found.note(path, s.at, body);
                }
            }
        }
        i += 1;
    }
    let mut j = 0;
    while j < shader.members.len() {
        let s = &shader.members[j];
        if !has_member(host, s.name) {
            let body = Msg::new()
                .str("wgsl member (")
                .str(s.tree.name())
                .str(" at offset ")
                .num(s.offset)
                .str(") has no field in host struct `")
                .str(host.name)
                .str("`; add one, or rename a field with #[gpu(name = \"...\")]");
            found = found.note(prefix.str(".").str(s.name), s.at, body);
        }
        j += 1;
    }
    if let Ok(layout) = cursor.finish()
        && !struct_size_agrees(space, layout.size, shader.size)
    {
        let body = Msg::new()
            .str("host struct `")
            .str(host.name)
            .str("` is ")
            .num(layout.size)
            .str(" bytes, the shader's `")
            .str(shader.name)
            .str("` is ")
            .num(shader.size)
            .str("; make the last members agree");
        found = found.note(prefix, shader.at, body);
    }
    found
}

const fn find<'s>(shader: &'s ShaderStruct, name: &str) -> Option<&'s ShaderStructMember> {
    let mut j = 0;
    while j < shader.members.len() {
        if const_str_eq(shader.members[j].name, name) {
            return Some(&shader.members[j]);
        }
        j += 1;
    }
    None
}

const fn has_member(host: &WgslStruct, name: &str) -> bool {
    let mut i = 0;
    while i < host.members.len() {
        if const_str_eq(host.members[i].name, name) {
            return true;
        }
        i += 1;
    }
    false
}
