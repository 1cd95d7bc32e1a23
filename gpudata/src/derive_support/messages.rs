//! The compile-time messages of the analysis, each written once: a field's format, size or
//! layout rule, a member of a nested type at fault (by its path), a leaf no vertex format holds,
//! a `zero_copy` field and what to change, a field no vertex attribute reads.

#![allow(
    clippy::cast_possible_truncation,
    reason = "offsets and strides of one row are far below usize::MAX on every target wgpu supports"
)]

use super::facts::Facts;
use crate::format::PrimitiveType;
use crate::layout::{AddressSpace, LayoutRuleError, LeafType, TypeRuleError, WgslStruct};
use crate::record::tree::{
    self, ImageMismatch, Leaf, LeafName, Msg, TreeFault, TreeProblem, webgl_leaf,
};

impl<const N: usize, const M: usize> Facts<N, M> {
    pub(super) const fn unknown_format(&self, k: usize, requested: &str) -> Msg {
        Msg::new()
            .str("field `")
            .str(self.names[k])
            .str("`: unsupported vertex format `")
            .str(requested)
            .str("`; expected a WebGPU vertex format such as `float32x3`, `unorm8x4`, `snorm16x2`, `float16x4`, `unorm10-10-10-2` or `uint16x3-webgl`")
    }

    pub(super) const fn size_mismatch(&self, k: usize, format_len: u64) -> Msg {
        let size = self.sizes[k] as u64;
        let msg = Msg::new()
            .str("field `")
            .str(self.names[k])
            .str("` is `")
            .str(self.types[k])
            .str("` (")
            .num(size)
            .str(" bytes), but format `")
            .str(self.formats[k].as_str())
            .str("` is ")
            .num(format_len)
            .str(" bytes; ");
        if self.requested[k].is_some() {
            msg.str("use a format of ")
                .num(size)
                .str(" bytes or a field type of ")
                .num(format_len)
                .str(" bytes")
        } else {
            msg.str("the `GpuField` impl of `")
                .str(self.types[k])
                .str("` must name a format as long as the type")
        }
    }

    pub(super) const fn layout_problem(&self, error: LayoutRuleError) -> (usize, Msg) {
        match error {
            LayoutRuleError::WebglOnlyInPacked { index, format } => (
                index,
                Msg::new()
                    .str("field `")
                    .str(self.names[index])
                    .str("` uses WebGL-only format `")
                    .str(format.as_str())
                    .str("`, which the packed layout (WebGPU vertex rules) cannot hold; use a 2- or 4-component type or format, or `#[gpu(layout = \"wgsl-storage\")]`"),
            ),
            LayoutRuleError::Overflow { index } => (
                index,
                Msg::new()
                    .str("field `")
                    .str(self.names[index])
                    .str("`: struct offsets overflow u64"),
            ),
            LayoutRuleError::NoFields | LayoutRuleError::DuplicateName { .. } => {
                (0, Msg::new().str(error.message()))
            }
        }
    }

    /// The message of a rule broken by field `k`, naming the member inside it at fault (see
    /// [`tree::fault_path`]).
    pub(super) const fn rule_message(
        &self,
        k: usize,
        s: &WgslStruct,
        error: TypeRuleError,
        space: AddressSpace,
    ) -> Msg {
        let field = LeafName::new().push(self.names[k]);
        let path = if k < s.members.len() {
            tree::fault_path(&s.members[k].ty, space, field)
        } else {
            field
        };
        let msg = Msg::new().str("field `").str(path.as_str()).str("`");
        match error {
            TypeRuleError::AlignNotPowerOfTwo { align } => {
                msg.str(": `align = ").num(align).str("` is not a power of two")
            }
            TypeRuleError::AlignBelowRequired { align, required } => msg
                .str(": `align = ")
                .num(align)
                .str("` is not a multiple of the field type's alignment ")
                .num(required)
                .str(" in the ")
                .str(space.as_str())
                .str(" layout; use `align = ")
                .num(required)
                .str("` or a multiple of it"),
            TypeRuleError::SizeBelowRequired { size, required } => msg
                .str(": `size = ")
                .num(size)
                .str("` is smaller than the field type's size ")
                .num(required)
                .str(" in the ")
                .str(space.as_str())
                .str(" layout; use `size = ")
                .num(required)
                .str("` or more"),
            TypeRuleError::UniformArrayStride { stride } => msg
                .str(" is an array with a stride of ")
                .num(stride)
                .str(" bytes, but arrays in the wgsl-uniform layout need a stride that is a multiple of 16; use 4-component vectors or an array of a struct"),
            TypeRuleError::NestedRuntimeArray => msg
                .str(": ")
                .str(error.message())
                .str("; bind the struct that ends in a `RuntimeArray` on its own (`var<storage>`), or hold a fixed-size array here"),
            other => msg
                .str(": ")
                .str(other.message())
                .str(" (in the ")
                .str(space.as_str())
                .str(" layout)"),
        }
    }

    /// The message of a tree problem of field `k` at `path` (the field or a member inside it).
    pub(super) const fn tree_message(&self, k: usize, fault: TreeFault) -> Msg {
        let msg = Msg::new().str("field `").str(fault.name.as_str()).str("` ");
        match fault.problem {
            TreeProblem::HostMismatch {
                wgsl_bytes,
                host_bytes,
            } => msg
                .str("is `")
                .str(self.types[k])
                .str("` (")
                .num(host_bytes as u64)
                .str(" bytes of components), but its `wgsl` type holds ")
                .num(wgsl_bytes as u64)
                .str(" bytes of components; use a field type with as many components as the WGSL type, such as `[[f32; R]; C]` for `matCxR<f32>`"),
            TreeProblem::RuntimeArray => msg.str(
                "is a runtime-sized `array<E>` (its type's `GpuType::WGSL`), which a row cannot hold: a row has a fixed size; declare the struct's tail as a `RuntimeArray<E>` field (a header plus elements, held by `GpuStorage`), or use a fixed-size array `[T; N]`",
            ),
            TreeProblem::NoVertexFormat(leaf) => no_vertex_format(msg, leaf),
            TreeProblem::Packed(error) => msg.str(error.message()),
        }
    }

    /// A runtime-sized array in a packed struct.
    pub(super) const fn packed_runtime_message(&self, k: usize) -> Msg {
        Msg::new()
            .str("field `")
            .str(self.names[k])
            .str("` holds a runtime-sized array, which the packed layout (WebGPU vertex rules) cannot hold: a vertex row has a fixed size; use a fixed-size array (`[T; N]`), or a `wgsl-storage` struct for a header plus a runtime-sized tail")
    }

    /// A leaf (named by its whole path) that the packed rules refuse.
    pub(super) const fn packed_leaf_message(name: &LeafName, error: LayoutRuleError) -> Msg {
        let msg = Msg::new().str("field `").str(name.as_str());
        match error {
            LayoutRuleError::WebglOnlyInPacked { format, .. } => msg
                .str("` uses WebGL-only format `")
                .str(format.as_str())
                .str("`, which the packed layout (WebGPU vertex rules) cannot hold; use a 2- or 4-component type or format, or `#[gpu(layout = \"wgsl-storage\")]`"),
            other => msg.str("`: ").str(other.message()),
        }
    }
}

/// `msg` with `leaf`'s WGSL spelling (`vec3<f32>`, `mat3x3<f32>`) appended.
pub(super) const fn leaf_text(msg: Msg, leaf: LeafType) -> Msg {
    match leaf {
        LeafType::Scalar(s) => msg.str(s.as_str()),
        LeafType::Vector { components, scalar } => msg
            .str("vec")
            .num(components as u64)
            .str("<")
            .str(scalar.as_str())
            .str(">"),
        LeafType::Matrix {
            columns,
            rows,
            scalar,
        } => msg
            .str("mat")
            .num(columns as u64)
            .str("x")
            .num(rows as u64)
            .str("<")
            .str(scalar.as_str())
            .str(">"),
        LeafType::Atomic(s) => msg.str("atomic<").str(s.as_str()).str(">"),
    }
}

/// The Rust scalar of a WGSL scalar, for suggested field types.
const fn rust_scalar(scalar: PrimitiveType) -> &'static str {
    match scalar {
        PrimitiveType::F16 => "half::f16",
        other => other.as_str(),
    }
}

/// Why a `vec3<f16>` (or a matrix of such columns), `leaf`, cannot be in a row, and what to use
/// instead, after `msg` (`field `...` `).
const fn no_vertex_format(msg: Msg, leaf: LeafType) -> Msg {
    let msg = leaf_text(msg.str("is a `"), leaf).str("`");
    let msg = match leaf {
        LeafType::Matrix { .. } => msg.str(", whose `vec3<f16>` columns no vertex format holds"),
        _ => msg.str(", which no vertex format holds"),
    };
    let msg = msg.str(" (WebGPU has no `float16x3`), and every derived struct has a row format of one vertex format per leaf; use ");
    match leaf {
        LeafType::Matrix { columns, .. } => msg
            .str("`mat")
            .num(columns as u64)
            .str("x4<f16>` (`#[gpu(wgsl = \"mat")
            .num(columns as u64)
            .str("x4<f16>\")]` on a `[[half::f16; 4]; ")
            .num(columns as u64)
            .str("]`), `array<array<f16, 3>, ")
            .num(columns as u64)
            .str(">` (on a `[[u16; 3]; ")
            .num(columns as u64)
            .str("]` of f16 bits) or `mat")
            .num(columns as u64)
            .str("x3<f32>`"),
        _ => msg.str("`vec4<f16>` (`#[gpu(wgsl = \"vec4<f16>\")]` on a `[half::f16; 4]`), `array<f16, 3>` (`#[gpu(wgsl = \"array<f16, 3>\")]` on a `[u16; 3]` of f16 bits: three `float16` leaves) or `vec3<f32>`"),
    }
}

/// `msg` (naming a `zero_copy` field whose bytes differ, and where) followed by why and what to
/// change: padding to add and where, or, where no padding can help, the type to use instead.
pub(super) const fn image_fix(msg: Msg, mismatch: ImageMismatch) -> Msg {
    const LEAVE_OUT: &str = ", or leave out `zero_copy`";
    match mismatch {
        ImageMismatch::Offset {
            within,
            member,
            host,
            gpu,
            pad,
        } => {
            let msg = msg
                .str(": `")
                .str(member)
                .str("` is at byte ")
                .num(host)
                .str(" of `")
                .str(within)
                .str("` on the host but ")
                .num(gpu)
                .str(" on the gpu; ");
            if host < gpu {
                msg.str("add `#[gpu(padding)] _pad: [u8; ")
                    .num(pad)
                    .str("]` before `")
                    .str(member)
                    .str("` in `")
                    .str(within)
                    .str("`")
            } else {
                msg.str("the host places it later, so remove host-only fields before it in `")
                    .str(within)
                    .str("` or use a field type with a smaller alignment (such as an array)")
            }
        }
        ImageMismatch::ImplicitPadding {
            within,
            before,
            bytes,
        } => {
            let msg = msg
                .str(": `")
                .str(within)
                .str("` has ")
                .num(bytes)
                .str(" bytes of implicit host padding ");
            let msg = match before {
                Some(member) => msg.str("before `").str(member).str("`"),
                None => msg.str("after its last field"),
            };
            let msg = msg
                .str(" (uninitialized bytes are never copied); make them explicit with `#[gpu(padding)] _pad: [u8; ")
                .num(bytes)
                .str("]` ");
            match before {
                Some(member) => msg.str("before `").str(member).str("` in `"),
                None => msg.str("after the last field of `"),
            }
            .str(within)
            .str("`")
        }
        ImageMismatch::HiddenPadding { within, bytes } => msg
            .str(": `")
            .str(within)
            .str("` has ")
            .num(bytes)
            .str(" bytes of implicit host padding (uninitialized bytes are never copied); make them explicit with `#[gpu(padding)]` fields where its fields leave gaps"),
        ImageMismatch::Size {
            within,
            host,
            gpu,
            pad,
        } => {
            let msg = msg
                .str(": `")
                .str(within)
                .str("` is ")
                .num(host)
                .str(" bytes on the host but ")
                .num(gpu)
                .str(" on the gpu; ");
            if host < gpu {
                msg.str("add `#[gpu(padding)] _pad: [u8; ")
                    .num(pad)
                    .str("]` after the last field of `")
                    .str(within)
                    .str("`")
            } else {
                msg.str("remove host-only fields or `#[repr(align)]` from `")
                    .str(within)
                    .str("` so it is ")
                    .num(gpu)
                    .str(" bytes")
            }
        }
        ImageMismatch::Stride {
            matrix: Some(matrix),
            element,
            count,
            host,
            gpu,
        } => {
            let scalar = matrix.scalar();
            let msg = leaf_text(msg.str(": the columns of its `"), matrix)
                .str("` lie ")
                .num(host)
                .str(" bytes apart on the host but ")
                .num(gpu)
                .str(" on the gpu, and no padding field fits between a matrix's columns; use `[[")
                .str(rust_scalar(scalar))
                .str("; 4]; ")
                .num(count as u64)
                .str("]` with `#[gpu(wgsl = \"mat")
                .num(count as u64)
                .str("x4<")
                .str(scalar.as_str())
                .str(">\")]` (the shader reading each column's first ");
            let rows = match element {
                Some(column) => column.components() as u64,
                None => 0,
            };
            msg.num(rows).str(" components)").str(LEAVE_OUT)
        }
        ImageMismatch::Stride {
            matrix: None,
            element,
            count,
            host,
            gpu,
        } => {
            let msg = msg
                .str(": its elements lie ")
                .num(host)
                .str(" bytes apart on the host but ")
                .num(gpu)
                .str(" on the gpu, and no padding field fits between an array's elements; ");
            match element {
                Some(LeafType::Vector { components, scalar }) => msg
                    .str("use `[[")
                    .str(rust_scalar(scalar))
                    .str("; 4]; ")
                    .num(count as u64)
                    .str("]` (an `array<vec4<")
                    .str(scalar.as_str())
                    .str(">, ")
                    .num(count as u64)
                    .str(">`), or an array of a `#[repr(C)]` struct holding the `[")
                    .str(rust_scalar(scalar))
                    .str("; ")
                    .num(components as u64)
                    .str("]` and a `#[gpu(padding)] _pad: [u8; ")
                    .num(gpu - host)
                    .str("]`")
                    .str(LEAVE_OUT),
                _ => msg
                    .str("use an element type of ")
                    .num(gpu)
                    .str(" bytes")
                    .str(LEAVE_OUT),
            }
        }
        ImageMismatch::Lanes(leaf) => {
            let scalar = leaf.scalar();
            match leaf {
                LeafType::Matrix { columns, .. } => leaf_text(msg.str(": its host type keeps each column of a `"), leaf)
                    .str("` in 16 bytes whose last 4 may be uninitialized (as `glam::Mat3A` does under glam's `scalar-math`), so they are never copied; use `[[")
                    .str(rust_scalar(scalar))
                    .str("; 4]; ")
                    .num(columns as u64)
                    .str("]` with `#[gpu(wgsl = \"mat")
                    .num(columns as u64)
                    .str("x4<")
                    .str(scalar.as_str())
                    .str(">\")]` (the shader reading each column's first 3 components)")
                    .str(LEAVE_OUT),
                _ => leaf_text(msg.str(": its host type keeps a `"), leaf)
                    .str("` in 16 bytes whose last 4 may be uninitialized (as `glam::Vec3A` does under glam's `scalar-math`), so they are never copied; use `[")
                    .str(rust_scalar(scalar))
                    .str("; 3]` (or `glam::Vec3`) followed by a `#[gpu(padding)] _pad: [u8; 4]` field, or `[")
                    .str(rust_scalar(scalar))
                    .str("; 4]` as a `vec4`")
                    .str(LEAVE_OUT),
            }
        }
        ImageMismatch::Other => msg.str(" (its columns or elements are packed differently); use a type laid out as WGSL lays it out (such as `glam::Mat4` or `[[f32; 4]; 4]`, not `glam::Mat3` or `[[f32; 3]; 3]`)").str(LEAVE_OUT),
    }
}

/// Why leaf `k` leaves the struct without a vertex layout.
#[must_use]
pub const fn no_vertex_layout_leaf(leaves: &[Leaf], k: usize) -> Msg {
    let leaf = &leaves[k];
    let format = match leaf.format {
        Some(format) => format.as_str(),
        None => "(none)",
    };
    Msg::new()
        .str("field `")
        .str(leaf.name.as_str())
        .str("` has WebGL-only format `")
        .str(format)
        .str("`, which no wgpu vertex attribute reads, so the struct has no vertex layout; use a 2- or 4-component type or format, or use the struct only as storage (without `vertex_buffer_layout`)")
}

/// The message for [`webgl_field`](super::webgl_field)'s leaf.
#[must_use]
pub const fn webgl_message(leaves: &[Leaf]) -> Msg {
    match webgl_leaf(leaves) {
        Some(k) => no_vertex_layout_leaf(leaves, k),
        None => Msg::new(),
    }
}
