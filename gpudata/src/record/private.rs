//! What the `#[derive(GpuStruct)]` expansion names, through `::gpudata::__private`. Not a public
//! API: nothing here is covered by semver.
//!
//! The expansion describes a struct (names, type sizes, formats, declared assertions) in a
//! [`Facts`] constant; everything computed from it (offsets through the layout engine, checks
//! and their messages) is a `const fn` here, so the macro never computes a layout and every
//! compile-time message is written in one place.

#![allow(
    clippy::cast_possible_truncation,
    reason = "offsets and strides of one row are far below usize::MAX on every target wgpu supports"
)]

pub use ::bytemuck;
pub use ::core;
pub use ::wgpu;

pub use super::gpu_type::GpuType;
pub use super::host_shape::{HostMember, HostShape, carrier_type};
pub use super::runtime::{GpuRuntimeStruct, RuntimeArray};
pub use super::shader::{
    ShaderInput, ShaderMember, fail_if, input_problem, member_problem, stride_problem,
};
pub use super::shader_tree::{
    ShaderStruct, ShaderStructMember, ShaderTree, TreeFinding, compare_tree,
};
use super::tree;
pub use super::tree::Msg;
pub use super::tree::element_copies;
use super::tree::{self as image, ImageMismatch};
pub use super::tree::{
    Leaf, LeafName, TreeFault, TreeProblem, leaf_attributes, leaf_copies, leaf_count, leaf_fields,
    webgl_leaf,
};
pub use super::{FieldCopy, GpuField, GpuFieldMarker, GpuFieldOf, GpuStruct, UniformLayout};
pub use crate::format::{PrimitiveType, ShaderType, VertexFormat};
pub use crate::layout::{
    AddressSpace, ConstLayout, GpuDataStructField, GpuDataStructFormat, LayoutRuleError, LeafType,
    RowShape, RuntimeTail, StepMode, StructLayout, TypeLayout, TypeRuleError, WgslMember,
    WgslStruct, WgslType, layout_formats,
};

/// Where a compile-time problem is reported: the token of a field or attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spot {
    /// The `format = "..."` string of gpu field `k`.
    Format(usize),
    /// The `wgsl = "..."` string of gpu field `k`.
    Wgsl(usize),
    /// The `align = N` literal of gpu field `k`.
    Align(usize),
    /// The `size = N` literal of gpu field `k`.
    Size(usize),
    /// The type of gpu field `k`.
    Type(usize),
    /// The `offset = N` literal of gpu field `k`.
    Offset(usize),
    /// The `stride = N` literal.
    Stride,
    /// Host field `j` (gpu or padding, in declaration order), for `zero_copy`.
    ZeroCopyField(usize),
    /// The `zero_copy` key, for problems at the struct's end.
    ZeroCopyEnd,
}

/// The host side of a `#[repr(C)]` struct: its fields in declaration order and its size.
#[derive(Clone, Copy)]
pub struct HostFacts<const M: usize> {
    /// Every field, gpu and padding.
    pub fields: [HostField; M],
    /// `size_of` the struct.
    pub size: usize,
}

/// What the expansion states about a struct: `N` gpu fields in declaration order and, for
/// `#[repr(C)]` structs, `M` host fields.
#[derive(Clone, Copy)]
pub struct Facts<const N: usize, const M: usize> {
    /// The layout rules.
    pub layout: StructLayout,
    /// Field names in the struct format.
    pub names: [&'static str; N],
    /// Field types as written.
    pub types: [&'static str; N],
    /// `size_of` each field type.
    pub sizes: [usize; N],
    /// The `format = "..."` strings.
    pub requested: [Option<&'static str>; N],
    /// Each field's format (the requested one when it exists, else the type's).
    pub formats: [VertexFormat; N],
    /// The `offset = N` assertions.
    pub declared_offsets: [Option<u64>; N],
    /// The `stride = N` assertion.
    pub declared_stride: Option<u64>,
    /// The host layout, given for `#[gpu(zero_copy)]` structs, whose check runs eagerly.
    pub host: Option<HostFacts<M>>,
    /// Whether `#[gpu(zero_copy)]` makes a differing host layout an error.
    pub zero_copy: bool,
    /// The WGSL address space whose rules lay out a `wgsl-storage` or `wgsl-uniform` struct.
    pub space: AddressSpace,
    /// The struct as WGSL members (`None` for `packed` structs and structs of plain scalar
    /// fields, laid out by the flat engine): set, every field is laid out by WGSL's memory model
    /// and flattened into leaves.
    pub structure: Option<&'static WgslStruct>,
    /// Where each field's GPU bytes lie in its host bytes (members laid out by WGSL's model).
    pub hosts: [HostShape; N],
    /// Whether field `k` is a WGSL type rather than one vertex format (a nested struct, an array,
    /// a matrix, or a `wgsl = "..."` field).
    pub tree: [bool; N],
    /// Whether field `k` has a `wgsl = "..."` string.
    pub wgsl: [bool; N],
    /// Whether the struct declares a runtime-sized tail (its last field a `RuntimeArray`): a
    /// header plus elements, not a row. Only then may its last member be `array<E>`.
    pub tail: bool,
    /// Whether the expansion reports problems itself, from a `const` evaluated for every struct
    /// (spanned at the user's tokens). When `false` (fields of plain scalar types with nothing
    /// asserted, where no problem is expected) the analysis is evaluated only when a `GpuStruct`
    /// const is used, and fails there on any problem, so nothing unchecked is ever used.
    pub reported_by_caller: bool,
}

/// Holds a struct's [`Analysis`] as an associated const, so it is evaluated on first use only
/// (a free `const` is evaluated for every struct, used or not), and the host facts its tables
/// read.
///
/// Every other constant of the expansion is a call of a generic `const fn` here ([`flat_format`],
/// [`tree_copies`], ...) reading these through the type: rustc evaluates the constants an
/// associated const's body names (a lint pass looks at every one, in the environment of the
/// item that names it), but not calls, so nothing is computed for a struct before it is used,
/// and nothing twice.
pub trait Analyzed<const N: usize> {
    /// The analysis.
    const ANALYSIS: Analysis<N>;
    /// `offset_of!` each gpu field.
    const OFFSETS: [usize; N];
    /// The bytes of the host-only `#[gpu(padding)]` fields (0 without any).
    const PADDING: usize = 0;
    /// The facts of a struct analysed on first use ([`lazy_analysis`]; `reported_by_caller:
    /// false`); other structs state theirs in `ANALYSIS` and keep this placeholder.
    const FACTS: Facts<N, 0> = Facts::placeholder();
}

/// What the checks need, computed once per struct from its [`Facts`]. Only this and the check
/// reading it are evaluated for every derived struct; the vertex attributes and the host-layout
/// verdict are computed where the `GpuStruct` consts that use them are, on first use.
#[derive(Clone, Copy)]
pub struct Analysis<const N: usize> {
    /// Offsets and totals (zeros when there is a problem, which fails the build).
    pub layout: ConstLayout<N>,
    /// Each field's format.
    pub formats: [VertexFormat; N],
    /// Each field's name in the struct format.
    pub names: [&'static str; N],
    /// Whether the fields are well formed and laid out (assertions aside).
    pub valid: bool,
    /// For `zero_copy` structs: whether the host bytes are the gpu rows.
    pub host_matches: bool,
    /// The first problem, where to report it, and the message.
    pub problem: Option<(Spot, Msg)>,
    /// As in [`Facts`].
    pub space: AddressSpace,
    /// As in [`Facts`].
    pub structure: Option<&'static WgslStruct>,
    /// As in [`Facts`].
    pub hosts: [HostShape; N],
    /// As in [`Facts`].
    pub tree: [bool; N],
    /// Leaves of each field (1 for a vertex-format field).
    pub leaf_counts: [usize; N],
    /// The layout rules (a `packed` struct on the general path places its leaves by vertex
    /// rules, not by WGSL's memory model).
    pub rules: StructLayout,
    /// Packed structs on the general path: whether field `k`'s host bytes are its packed GPU
    /// bytes (every leaf at the same distance from the field's start on both sides, no gaps).
    pub packed_images: [bool; N],
    /// As in [`Facts`].
    pub sizes: [usize; N],
}

const EMPTY_SHAPE: RowShape = RowShape {
    components: 0,
    row_byte_length: 0,
    byte_stride: 0,
    alignment: 1,
};

/// `Some(format)`'s format, else `fallback` (an unknown `format = "..."` string is reported by
/// [`analyze`]; the layout goes on with the type's format so nothing cascades).
#[must_use]
pub const fn format_or(found: Option<VertexFormat>, fallback: VertexFormat) -> VertexFormat {
    match found {
        Some(format) => format,
        None => fallback,
    }
}

/// Fails compilation with `msg`, reported at the caller (the expansion spans the call at the
/// user's token).
#[track_caller]
pub const fn fail(msg: &Msg) -> ! {
    panic!("{}", msg.as_str())
}

impl<const N: usize> Facts<N, 0> {
    /// `Analyzed::FACTS` of a struct that states its facts in `ANALYSIS` (never analysed).
    #[must_use]
    pub const fn placeholder() -> Facts<N, 0> {
        Facts::named(
            StructLayout::WgslStorage,
            AddressSpace::Storage,
            [""; N],
            [""; N],
            [false; N],
            true,
        )
    }

    /// The facts of a struct without format strings or assertions, not `zero_copy`: names,
    /// types as written and `wgsl = "..."` flags; the sizes, formats, host shapes and tree flags
    /// are placeholders that [`host_facts`] or [`tree_facts`] fill in from the struct's host
    /// shape.
    #[must_use]
    pub const fn named(
        layout: StructLayout,
        space: AddressSpace,
        names: [&'static str; N],
        types: [&'static str; N],
        wgsl: [bool; N],
        reported_by_caller: bool,
    ) -> Facts<N, 0> {
        Facts {
            layout,
            names,
            types,
            sizes: [0; N],
            requested: [None; N],
            formats: [VertexFormat::Float32; N],
            declared_offsets: [None; N],
            declared_stride: None,
            host: None,
            zero_copy: false,
            space,
            structure: None,
            hosts: [HostShape::Packed; N],
            tree: [false; N],
            wgsl,
            tail: false,
            reported_by_caller,
        }
    }
}

impl<const N: usize, const M: usize> Facts<N, M> {
    const fn unknown_format(&self, k: usize, requested: &str) -> Msg {
        Msg::new()
            .str("field `")
            .str(self.names[k])
            .str("`: unsupported vertex format `")
            .str(requested)
            .str("`; expected a WebGPU vertex format such as `float32x3`, `unorm8x4`, `snorm16x2`, `float16x4`, `unorm10-10-10-2` or `uint16x3-webgl`")
    }

    const fn size_mismatch(&self, k: usize, format_len: u64) -> Msg {
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

    const fn layout_problem(&self, error: LayoutRuleError) -> (usize, Msg) {
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

    /// The first problem of the fields themselves (formats, sizes, layout rules). Written with
    /// few calls: every call costs in the compile-time interpreter, once per derived struct.
    const fn field_problem(
        &self,
        result: &Result<ConstLayout<N>, LayoutRuleError>,
    ) -> Option<(Spot, Msg)> {
        let mut k = 0;
        while k < N {
            let spot = match self.requested[k] {
                Some(requested) => {
                    if VertexFormat::from_name(requested).is_none() {
                        return Some((Spot::Format(k), self.unknown_format(k, requested)));
                    }
                    Spot::Format(k)
                }
                None => Spot::Type(k),
            };
            let format_len = self.formats[k].byte_length();
            if !self.tree[k] && self.sizes[k] as u64 != format_len {
                return Some((spot, self.size_mismatch(k, format_len)));
            }
            k += 1;
        }
        match result {
            Ok(_) => None,
            Err(error) => {
                let (index, msg) = self.layout_problem(*error);
                let spot = if self.requested[index].is_some() {
                    Spot::Format(index)
                } else {
                    Spot::Type(index)
                };
                Some((spot, msg))
            }
        }
    }

    /// The spot of a member rule broken by field `k`: its `align`/`size` literal, its `wgsl`
    /// string, or its type.
    const fn rule_spot(&self, k: usize, error: TypeRuleError, s: &WgslStruct) -> Spot {
        match error {
            TypeRuleError::AlignNotPowerOfTwo { .. } | TypeRuleError::AlignBelowRequired { .. }
                if s.members[k].align.is_some() =>
            {
                Spot::Align(k)
            }
            TypeRuleError::SizeBelowRequired { .. } | TypeRuleError::SizeOnRuntimeArray
                if s.members[k].size.is_some() =>
            {
                Spot::Size(k)
            }
            _ => self.type_spot(k),
        }
    }

    /// Where a problem of field `k`'s type is reported: its `wgsl` string when it has one.
    const fn type_spot(&self, k: usize) -> Spot {
        if self.wgsl[k] {
            Spot::Wgsl(k)
        } else {
            Spot::Type(k)
        }
    }

    /// The message of a rule broken by field `k`, naming the member inside it at fault (see
    /// [`tree::fault_path`]).
    const fn rule_message(
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
    const fn tree_message(&self, k: usize, fault: TreeFault) -> Msg {
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

    /// `problem` of field `k` itself.
    const fn fault(&self, k: usize, problem: TreeProblem) -> TreeFault {
        TreeFault {
            name: LeafName::new().push(self.names[k]),
            problem,
        }
    }

    /// A `wgsl = "..."` field whose WGSL type holds another number of component bytes than
    /// the field's host type.
    const fn wgsl_size_problem(&self, k: usize, member: &WgslMember) -> Option<(Spot, Msg)> {
        let wgsl_bytes = tree::scalar_bytes(&member.ty);
        if self.wgsl[k]
            && !matches!(
                self.hosts[k],
                HostShape::Struct { .. } | HostShape::Columns { .. }
            )
            && wgsl_bytes != self.sizes[k]
        {
            let problem = TreeProblem::HostMismatch {
                wgsl_bytes,
                host_bytes: self.sizes[k],
            };
            return Some((
                self.type_spot(k),
                self.tree_message(k, self.fault(k, problem)),
            ));
        }
        None
    }

    /// The packed path (`layout = "packed"` with nested types): every field flattened into its
    /// leaves (scalars, vectors, one column per matrix column, array elements and struct members
    /// in order, luma.gl's names), each leaf's vertex format placed by the packed (WebGPU vertex)
    /// rules through the flat engine's [`LayoutCursor`](crate::layout::LayoutCursor), as
    /// [`StructDecl::row_format`](crate::layout::StructDecl::row_format) does at run time. Nested
    /// structs' own `@align`/`@size` do not apply (vertex rules know no WGSL placement).
    #[allow(
        clippy::result_large_err,
        reason = "a const fn cannot box; the message is a fixed buffer, built once per struct"
    )]
    const fn packed_layout(
        &self,
        s: &WgslStruct,
        leaf_counts: &mut [usize; N],
        images: &mut [bool; N],
    ) -> Result<ConstLayout<N>, (Spot, Msg)> {
        let mut offsets = [0u64; N];
        let mut walk = tree::Walk::packing(&mut [], false);
        let mut k = 0;
        while k < N {
            let member = &s.members[k];
            if let Some(problem) = self.wgsl_size_problem(k, member) {
                return Err(problem);
            }
            if tree::has_runtime_array(&member.ty) || leaf_count(&member.ty) == 0 {
                return Err((self.type_spot(k), self.packed_runtime_message(k)));
            }
            let before = walk.count;
            if let Err(fault) = walk.field(k, member, self.hosts[k], 0, 0) {
                // Walk the field again building paths, to name the leaf at fault (every fault
                // but an offset overflow is the leaf's own, found by a fresh walk too).
                let fault = match tree::Walk::packing(&mut [], true).field(
                    k,
                    member,
                    self.hosts[k],
                    0,
                    0,
                ) {
                    Err(named_fault) => named_fault,
                    Ok(()) => fault,
                };
                return Err(match fault.problem {
                    TreeProblem::HostMismatch { .. } => {
                        (self.type_spot(k), self.tree_message(k, fault))
                    }
                    TreeProblem::Packed(error) => (
                        self.type_spot(k),
                        Self::packed_leaf_message(&fault.name, error),
                    ),
                    _ => (Spot::Type(k), self.tree_message(k, fault)),
                });
            }
            leaf_counts[k] = walk.count - before;
            offsets[k] = walk.field_start();
            images[k] = walk.image && walk.covered == self.sizes[k];
            k += 1;
        }
        match walk.packed_shape() {
            Ok(shape) => Ok(ConstLayout { offsets, shape }),
            Err(error) => Err((Spot::Type(0), Msg::new().str(error.message()))),
        }
    }

    /// A runtime-sized array in a packed struct.
    const fn packed_runtime_message(&self, k: usize) -> Msg {
        Msg::new()
            .str("field `")
            .str(self.names[k])
            .str("` holds a runtime-sized array, which the packed layout (WebGPU vertex rules) cannot hold: a vertex row has a fixed size; use a fixed-size array (`[T; N]`), or a `wgsl-storage` struct for a header plus a runtime-sized tail")
    }

    /// A leaf (named by its whole path) that the packed rules refuse.
    const fn packed_leaf_message(name: &LeafName, error: LayoutRuleError) -> Msg {
        let msg = Msg::new().str("field `").str(name.as_str());
        match error {
            LayoutRuleError::WebglOnlyInPacked { format, .. } => msg
                .str("` uses WebGL-only format `")
                .str(format.as_str())
                .str("`, which the packed layout (WebGPU vertex rules) cannot hold; use a 2- or 4-component type or format, or `#[gpu(layout = \"wgsl-storage\")]`"),
            other => msg.str("`: ").str(other.message()),
        }
    }

    /// The general path: the fields as WGSL members of `s`, laid out by WGSL's memory model in
    /// `self.space`, each flattened into leaves.
    #[allow(
        clippy::result_large_err,
        reason = "a const fn cannot box; the message is a fixed buffer, built once per struct"
    )]
    const fn member_layout(
        &self,
        s: &WgslStruct,
        leaf_counts: &mut [usize; N],
    ) -> Result<ConstLayout<N>, (Spot, Msg)> {
        let space = self.space;
        let (offsets, layout) = match s.offsets::<N>(space) {
            Ok(found) => found,
            Err((k, error)) => {
                let k = if k < N { k } else { 0 };
                return Err((
                    self.rule_spot(k, error, s),
                    self.rule_message(k, s, error, space),
                ));
            }
        };
        let mut walk = tree::Walk::counting(space);
        let mut k = 0;
        while k < N {
            let member = &s.members[k];
            // A `wgsl = "..."` type must hold as many bytes of components as the field.
            if let Some(problem) = self.wgsl_size_problem(k, member) {
                return Err(problem);
            }
            // The runtime-sized tail (the last member: the rules above refuse it anywhere else):
            // no leaves in the header, but its element must flatten. Only a struct declaring a
            // `RuntimeArray` field has one; in any other struct (a hand-written `GpuType` whose
            // WGSL type is `array<E>`) it would hide in a fixed-size row.
            if let WgslType::Array {
                element,
                count: None,
            } = &member.ty
            {
                if !self.tail {
                    return Err((
                        self.type_spot(k),
                        self.tree_message(k, self.fault(k, TreeProblem::RuntimeArray)),
                    ));
                }
                leaf_counts[k] = 0;
                let name = LeafName::new().push(self.names[k]);
                if let Some(fault) = tree::element_problem(element, self.hosts[k], name) {
                    return Err((Spot::Type(k), self.tree_message(k, fault)));
                }
                k += 1;
                continue;
            }
            let before = walk.count;
            if let Err(fault) = walk.field(k, member, self.hosts[k], offsets[k], 0) {
                // Walk the field again building paths, to name the member at fault.
                let fault = match tree::Walk::counting(space).named().field(
                    k,
                    member,
                    self.hosts[k],
                    offsets[k],
                    0,
                ) {
                    Err(named_fault) => named_fault,
                    Ok(()) => fault,
                };
                let spot = match fault.problem {
                    TreeProblem::HostMismatch { .. } => self.type_spot(k),
                    _ => Spot::Type(k),
                };
                return Err((spot, self.tree_message(k, fault)));
            }
            // At least one leaf: the rules refused empty structs, zero-length arrays and
            // runtime-sized arrays anywhere but the tail, so every other type has a leaf.
            leaf_counts[k] = walk.count - before;
            k += 1;
        }
        Ok(ConstLayout {
            offsets,
            shape: RowShape {
                components: walk.components,
                row_byte_length: walk.end,
                byte_stride: layout.size,
                alignment: layout.alignment,
            },
        })
    }

    /// Under `zero_copy`, a field whose type's host bytes are not its GPU bytes: in a WGSL
    /// layout, the member at fault inside it and what to change there ([`image::image_fault`],
    /// evaluated only then).
    const fn image_problem(
        &self,
        layout: &ConstLayout<N>,
        images: &[bool; N],
    ) -> Option<(usize, Msg)> {
        let (Some(s), Some(host)) = (self.structure, &self.host) else {
            return None;
        };
        let _ = layout;
        let mut j = 0;
        while j < M {
            let field = host.fields[j];
            let packed = matches!(self.layout, StructLayout::Packed);
            if let Some(k) = field.gpu_index
                && self.tree[k]
                && !(if packed {
                    images[k]
                } else {
                    image::image_matches(&s.members[k].ty, self.hosts[k], field.size, self.space)
                })
            {
                let msg = Msg::new()
                    .str("`#[gpu(zero_copy)]`: field `")
                    .str(field.name)
                    .str("` is `")
                    .str(self.types[k])
                    .str("`, whose host bytes are not its gpu bytes in the ")
                    .str(self.layout.as_str())
                    .str(" layout");
                // (The packed rules place leaves, not members: packed rows report the field.)
                if packed {
                    return Some((j, msg.str(" (its leaves, the vertex attributes, lie elsewhere on the host, or host bytes between them are implicit padding); use a type whose leaves lie back to back as the packed layout places them (such as `glam::Mat4`, `glam::Mat3` or `[[f32; 4]; 4]`, not `glam::Mat3A` or `glam::Vec3A`), or leave out `zero_copy`")));
                }
                let fault = image::image_fault(
                    &s.members[k].ty,
                    self.hosts[k],
                    self.space,
                    LeafName::new().push(field.name),
                );
                let msg = if fault.path.as_str().len() > field.name.len() {
                    msg.str(" at `").str(fault.path.as_str()).str("`")
                } else {
                    msg
                };
                return Some((j, image_fix(msg, fault.mismatch)));
            }
            j += 1;
        }
        None
    }

    /// The first declared `offset = N` or `stride = N` that the layout contradicts.
    const fn assertion_problem(&self, layout: &ConstLayout<N>) -> Option<(Spot, Msg)> {
        let mut k = 0;
        while k < N {
            if let Some(declared) = self.declared_offsets[k]
                && declared != layout.offsets[k]
            {
                let msg = Msg::new()
                    .str("field `")
                    .str(self.names[k])
                    .str("` is declared at `offset = ")
                    .num(declared)
                    .str("`, but the ")
                    .str(self.layout.as_str())
                    .str(" layout places it at byte ")
                    .num(layout.offsets[k])
                    .str("; fix the assertion or the fields before it");
                return Some((Spot::Offset(k), msg));
            }
            k += 1;
        }
        if let Some(declared) = self.declared_stride
            && declared != layout.shape.byte_stride
        {
            let msg = Msg::new()
                .str("the struct is declared with `stride = ")
                .num(declared)
                .str("`, but the ")
                .str(self.layout.as_str())
                .str(" layout gives a byte stride of ")
                .num(layout.shape.byte_stride)
                .str("; fix the assertion or the fields");
            return Some((Spot::Stride, msg));
        }
        None
    }
}

/// `leaf`'s WGSL spelling (`vec3<f32>`, `mat3x3<f32>`) appended to `msg`.
const fn leaf_text(msg: Msg, leaf: LeafType) -> Msg {
    let scalar = leaf.scalar().as_str();
    match leaf {
        LeafType::Scalar(_) => msg.str(scalar),
        LeafType::Vector { components, .. } => msg
            .str("vec")
            .num(components as u64)
            .str("<")
            .str(scalar)
            .str(">"),
        LeafType::Matrix { columns, rows, .. } => msg
            .str("mat")
            .num(columns as u64)
            .str("x")
            .num(rows as u64)
            .str("<")
            .str(scalar)
            .str(">"),
        LeafType::Atomic(_) => msg.str("atomic<").str(scalar).str(">"),
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
const fn image_fix(msg: Msg, mismatch: ImageMismatch) -> Msg {
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

/// Lays out the struct through the runtime's engine and checks everything the expansion
/// asserts, once.
///
/// # Panics
/// On a problem, unless `facts.reported_by_caller`, at the caller.
#[must_use]
#[track_caller]
pub const fn analyze<const N: usize, const M: usize>(facts: Facts<N, M>) -> Analysis<N> {
    let facts = &facts;
    let mut leaf_counts = [1usize; N];
    let mut packed_images = [true; N];
    let (result, mut problem) = match facts.structure {
        None => {
            let result = layout_formats(facts.layout, &facts.formats);
            let problem = facts.field_problem(&result);
            match (result, problem) {
                (Ok(layout), None) => (Some(layout), None),
                (_, problem) => (None, problem),
            }
        }
        Some(s) => match facts.field_problem(&Ok(ConstLayout {
            offsets: [0; N],
            shape: EMPTY_SHAPE,
        })) {
            Some(problem) => (None, Some(problem)),
            None => match if matches!(facts.layout, StructLayout::Packed) {
                facts.packed_layout(s, &mut leaf_counts, &mut packed_images)
            } else {
                facts.member_layout(s, &mut leaf_counts)
            } {
                Ok(layout) => (Some(layout), None),
                Err(problem) => (None, Some(problem)),
            },
        },
    };
    let layout = match result {
        Some(layout) => layout,
        None => ConstLayout {
            offsets: [0; N],
            shape: EMPTY_SHAPE,
        },
    };
    let valid = problem.is_none();
    if valid {
        problem = facts.assertion_problem(&layout);
    }

    let mut host_matches = false;
    if let Some(host) = &facts.host {
        let mut zero_copy = host_problem(&layout, host);
        if zero_copy.is_none() {
            zero_copy = facts.image_problem(&layout, &packed_images);
        }
        host_matches = valid && zero_copy.is_none();
        if valid
            && facts.zero_copy
            && problem.is_none()
            && let Some((at, msg)) = zero_copy
        {
            let spot = if at < M {
                Spot::ZeroCopyField(at)
            } else {
                Spot::ZeroCopyEnd
            };
            problem = Some((spot, msg));
        }
    }

    if !facts.reported_by_caller
        && let Some((_, msg)) = &problem
    {
        fail(msg);
    }

    Analysis {
        layout,
        formats: facts.formats,
        names: facts.names,
        valid,
        host_matches,
        problem,
        space: facts.space,
        structure: facts.structure,
        hosts: facts.hosts,
        tree: facts.tree,
        leaf_counts,
        rules: facts.layout,
        packed_images,
        sizes: facts.sizes,
    }
}

/// The spot of the analysis's problem, for the expansion's match (which binds nothing, so no
/// constant of the user's can turn a binding into a pattern).
#[must_use]
pub const fn problem_spot<const N: usize>(analysis: &Analysis<N>) -> Option<Spot> {
    match &analysis.problem {
        Some((spot, _)) => Some(*spot),
        None => None,
    }
}

/// The analysis's problem message (empty when there is none).
#[must_use]
pub const fn problem_message<const N: usize>(analysis: &Analysis<N>) -> Msg {
    match &analysis.problem {
        Some((_, msg)) => *msg,
        None => Msg::new(),
    }
}

/// Leaves in the struct format: one per vertex-format field, more for nested types.
#[must_use]
pub const fn leaf_total<const N: usize>(analysis: &Analysis<N>) -> usize {
    let mut total = 0;
    let mut k = 0;
    while k < N {
        total += analysis.leaf_counts[k];
        k += 1;
    }
    total
}

/// The index of field `k`'s first leaf in the struct format.
#[must_use]
pub const fn first_leaf<const N: usize>(analysis: &Analysis<N>, k: usize) -> usize {
    let mut first = 0;
    let mut j = 0;
    while j < k && j < N {
        first += analysis.leaf_counts[j];
        j += 1;
    }
    first
}

/// The `L` leaves of a struct on the general path (`host`: the struct's own `GpuType::HOST`);
/// placeholders when the analysis found a problem (which fails the build).
#[must_use]
pub const fn flatten<const L: usize, const N: usize>(
    analysis: &Analysis<N>,
    host: HostShape,
) -> [Leaf; L] {
    let empty = Leaf {
        field: 0,
        name: LeafName::EMPTY,
        format: None,
        leaf: LeafType::Scalar(PrimitiveType::F32),
        gpu: 0,
        host: 0,
        len: 0,
    };
    let (Some(s), true) = (analysis.structure, analysis.valid) else {
        return [empty; L];
    };
    // `L` is the expansion's count (written from the fields' types where the macro counts them
    // itself, see [`lazy_analysis`]): a different count here is a bug of the derive, never a silent
    // table.
    if leaf_total(analysis) != L {
        fail_with(Msg::new().str("gpudata derive: leaf count mismatch (a bug of the derive)"));
    }
    let packed = matches!(analysis.rules, StructLayout::Packed);
    match tree::leaves::<L>(s, host, analysis.space, packed) {
        Ok(leaves) => leaves,
        Err(_) => [empty; L],
    }
}

/// Whether a struct on the general path has host bytes that are its GPU rows: every field at
/// its GPU offset with a type whose host bytes are its GPU bytes, no implicit padding, the struct
/// as long as the stride.
#[must_use]
pub const fn host_matches_members<const N: usize>(
    analysis: &Analysis<N>,
    host_offsets: [usize; N],
    host_sizes: [usize; N],
    host_size: usize,
    padding_sizes: usize,
) -> bool {
    let Some(s) = analysis.structure else {
        return false;
    };
    if !analysis.valid
        || analysis.problem.is_some()
        || host_size as u64 != analysis.layout.shape.byte_stride
    {
        return false;
    }
    let mut covered = padding_sizes;
    let mut k = 0;
    while k < N {
        let image = if matches!(analysis.rules, StructLayout::Packed) {
            analysis.packed_images[k]
        } else {
            image::image_matches(
                &s.members[k].ty,
                analysis.hosts[k],
                host_sizes[k],
                analysis.space,
            )
        };
        if host_offsets[k] as u64 != analysis.layout.offsets[k] || !image {
            return false;
        }
        covered += host_sizes[k];
        k += 1;
    }
    covered == host_size
}

/// A field's member type: the carrier of a `format = "..."` string it names, else its type's.
#[must_use]
pub const fn member_type(ty: WgslType, requested: Option<&str>) -> WgslType {
    match requested {
        Some(name) => match VertexFormat::from_name(name) {
            Some(format) => carrier_type(format),
            None => ty,
        },
        None => ty,
    }
}

/// A field's host shape: a `format = "..."` string it names, else its type's.
#[must_use]
pub const fn host_shape(shape: HostShape, requested: Option<&str>) -> HostShape {
    match requested {
        Some(name) => match VertexFormat::from_name(name) {
            Some(format) => HostShape::Field(format),
            None => shape,
        },
        None => shape,
    }
}

/// The storage layout of a struct ending in a runtime-sized array (its analysis succeeded, or
/// the build failed): the layout engine's, or a placeholder with an empty tail.
#[must_use]
pub const fn runtime_layout(s: &'static WgslStruct) -> TypeLayout {
    match WgslType::Struct(s).layout(AddressSpace::Storage) {
        Ok(layout) if layout.tail.is_some() => layout,
        _ => TypeLayout {
            alignment: 4,
            size: 4,
            tail: Some(RuntimeTail {
                offset: 4,
                stride: 0,
            }),
        },
    }
}

/// Whether a slice of tail elements (WGSL type `ty`, host shape `host`, `size` bytes each) is
/// its GPU bytes: the element's host image is its GPU image and its size is the tail's stride.
#[must_use]
pub const fn element_host_matches(
    ty: &WgslType,
    host: HostShape,
    size: usize,
    layout: TypeLayout,
) -> bool {
    match layout.tail {
        Some(tail) => {
            tail.stride == size as u64
                && image::image_matches(ty, host, size, AddressSpace::Storage)
        }
        None => false,
    }
}

/// Whether a field is a WGSL type rather than one vertex format.
#[must_use]
pub const fn is_tree(flat: Option<VertexFormat>, wgsl: bool) -> bool {
    flat.is_none() || wgsl
}

/// A field's vertex format on the general path: the type's flat format (the requested one is
/// applied by [`format_or`]), or a placeholder for WGSL-typed fields.
#[must_use]
pub const fn flat_or_placeholder(flat: Option<VertexFormat>) -> VertexFormat {
    match flat {
        Some(format) => format,
        None => VertexFormat::Float32,
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

/// The field of the first leaf without a wgpu vertex format.
#[must_use]
pub const fn webgl_field(leaves: &[Leaf]) -> Option<usize> {
    match webgl_leaf(leaves) {
        Some(k) => Some(leaves[k].field),
        None => None,
    }
}

/// The message for [`webgl_field`]'s leaf.
#[must_use]
pub const fn webgl_message(leaves: &[Leaf]) -> Msg {
    match webgl_leaf(leaves) {
        Some(k) => no_vertex_layout_leaf(leaves, k),
        None => Msg::new(),
    }
}

/// Describes a derived struct as WGSL members; the derive implements it for every non-`packed`
/// struct, and [`GpuType::WGSL`] points at it.
pub trait Described {
    /// The struct.
    const STRUCT: WgslStruct;
}

/// A struct on the general path: the host shape its leaves are read from (its
/// [`GpuType::HOST`], or a `packed` struct's own, which does not nest), its first shader
/// location, and its tables ([`LeafTables`] with its leaf count, the one const argument the
/// expansion writes).
pub trait Flattened {
    /// The host shape of the whole struct.
    const LEAF_HOST: HostShape;
    /// The first vertex attribute's shader location (`#[gpu(location = N)]`, else 0).
    const LOCATION: u32 = 0;
    /// Whether the struct's last field is a `RuntimeArray` (a header plus elements, not a row).
    const TAIL: bool = false;
    /// `LeafTables<Self, N, L>`.
    type Tables: LeafTableSet;
}

/// The tables of a struct on the flat path (`N` vertex-format fields), computed on first use.
struct FlatTables<T, const N: usize>(core::marker::PhantomData<T>);

impl<T: Analyzed<N>, const N: usize> FlatTables<T, N> {
    const FIELDS: &'static [GpuDataStructField] = &struct_fields(&T::ANALYSIS);
    const FORMAT: &'static GpuDataStructFormat = &GpuDataStructFormat::from_static(
        T::ANALYSIS.rules,
        Self::FIELDS,
        T::ANALYSIS.layout.shape,
    );
    const COPIES: &'static [FieldCopy] = &row_copies(&T::ANALYSIS, T::OFFSETS);
}

/// The tables of a general-path struct `T` (`N` fields, `L` leaves), computed on first use.
pub struct LeafTables<T, const N: usize, const L: usize>(core::marker::PhantomData<T>);

/// What [`LeafTables`] hold.
pub trait LeafTableSet {
    /// The leaves in struct-format order.
    const LEAVES: &'static [Leaf];
    /// The struct format's fields, one per leaf.
    const FIELDS: &'static [GpuDataStructField];
    /// The struct format.
    const FORMAT: &'static GpuDataStructFormat;
    /// The copies that encode and decode a row.
    const COPIES: &'static [FieldCopy];
    /// The vertex attributes (a leaf without a wgpu format, which `WEBGL` finds, gets
    /// `float32`).
    const ATTRIBUTES: &'static [wgpu::VertexAttribute];
    /// The field of the first leaf without a wgpu vertex format.
    const WEBGL: Option<usize>;
}

impl<T: Analyzed<N> + Flattened, const N: usize, const L: usize> LeafTableSet
    for LeafTables<T, N, L>
{
    const LEAVES: &'static [Leaf] = &flatten::<L, N>(&T::ANALYSIS, T::LEAF_HOST);
    const FIELDS: &'static [GpuDataStructField] = &leaf_fields::<L>(Self::LEAVES);
    const FORMAT: &'static GpuDataStructFormat = &GpuDataStructFormat::from_static(
        T::ANALYSIS.rules,
        Self::FIELDS,
        T::ANALYSIS.layout.shape,
    );
    const COPIES: &'static [FieldCopy] = &leaf_copies::<L>(Self::LEAVES);
    const ATTRIBUTES: &'static [wgpu::VertexAttribute] =
        &leaf_attributes::<L>(Self::LEAVES, T::LOCATION);
    const WEBGL: Option<usize> = webgl_field(Self::LEAVES);
}

/// `GpuStruct::FORMAT` of a flat-path struct.
#[must_use]
pub const fn flat_format<T: Analyzed<N>, const N: usize>() -> &'static GpuDataStructFormat {
    FlatTables::<T, N>::FORMAT
}

/// `GpuStruct::FIELD_COPIES` of a flat-path struct.
#[must_use]
pub const fn flat_copies<T: Analyzed<N>, const N: usize>() -> &'static [FieldCopy] {
    FlatTables::<T, N>::COPIES
}

/// `GpuStruct::HOST_LAYOUT_MATCHES` of a flat-path `#[repr(C)]` struct (see [`host_matches`]).
#[must_use]
pub const fn flat_host_matches<T: Analyzed<N>, const N: usize>() -> bool {
    host_matches(
        &T::ANALYSIS,
        FlatTables::<T, N>::COPIES,
        size_of::<T>(),
        T::PADDING,
    )
}

/// The first field of a flat-path struct without a wgpu vertex format (see [`webgl_index`]).
#[must_use]
pub const fn flat_webgl<T: Analyzed<N>, const N: usize>() -> Option<usize> {
    webgl_index(&T::ANALYSIS)
}

/// Why a flat-path struct has no vertex layout (see [`no_vertex_layout_of`]).
#[must_use]
pub const fn flat_webgl_message<T: Analyzed<N>, const N: usize>() -> Msg {
    no_vertex_layout_of(&T::ANALYSIS)
}

/// The vertex attributes of a flat-path struct (see [`vertex_attribute_list`]).
#[must_use]
pub const fn flat_attributes<T: Analyzed<N>, const N: usize>(
    location: u32,
) -> [wgpu::VertexAttribute; N] {
    vertex_attribute_list(&T::ANALYSIS, location)
}

/// Whether a `zero_copy` struct's host bytes are its rows (the analysis checked it).
#[must_use]
pub const fn analysis_host_matches<T: Analyzed<N>, const N: usize>() -> bool {
    T::ANALYSIS.host_matches
}

/// `GpuStruct::FORMAT` of a general-path struct (one field per leaf).
#[must_use]
pub const fn tree_format<T: Flattened>() -> &'static GpuDataStructFormat {
    <T::Tables as LeafTableSet>::FORMAT
}

/// The struct format fields of a general-path struct (a runtime-sized struct's header).
#[must_use]
pub const fn tree_fields<T: Flattened>() -> &'static [GpuDataStructField] {
    <T::Tables as LeafTableSet>::FIELDS
}

/// `GpuStruct::FIELD_COPIES` of a general-path struct.
#[must_use]
pub const fn tree_copies<T: Flattened>() -> &'static [FieldCopy] {
    <T::Tables as LeafTableSet>::COPIES
}

/// The field of a general-path struct's first leaf without a wgpu vertex format.
#[must_use]
pub const fn tree_webgl<T: Flattened>() -> Option<usize> {
    <T::Tables as LeafTableSet>::WEBGL
}

/// Why a general-path struct has no vertex layout (see [`webgl_message`]).
#[must_use]
pub const fn tree_webgl_message<T: Flattened>() -> Msg {
    webgl_message(<T::Tables as LeafTableSet>::LEAVES)
}

/// The vertex attributes of a general-path struct's leaves (see [`leaf_attributes`]).
#[must_use]
pub const fn tree_attributes<T: Flattened>() -> &'static [wgpu::VertexAttribute] {
    <T::Tables as LeafTableSet>::ATTRIBUTES
}

/// `GpuStruct::TREE` of a struct that nests: its WGSL struct and host shape.
#[must_use]
pub const fn tree_of<T: Described + GpuType>() -> Option<(&'static WgslStruct, &'static HostShape)>
{
    Some((HostTree::<T>::STRUCT, HostTree::<T>::HOST))
}

/// References to a struct's description, made on first use.
struct HostTree<T>(core::marker::PhantomData<T>);

impl<T: Described + GpuType> HostTree<T> {
    const STRUCT: &'static WgslStruct = &T::STRUCT;
    const HOST: &'static HostShape = &T::HOST;
}

/// `GpuStruct::HOST_LAYOUT_MATCHES` of a general-path `#[repr(C)]` struct (see
/// [`host_matches_members`]).
#[must_use]
pub const fn tree_host_matches<T: Analyzed<N>, const N: usize>() -> bool {
    host_matches_members(
        &T::ANALYSIS,
        T::OFFSETS,
        T::ANALYSIS.sizes,
        size_of::<T>(),
        T::PADDING,
    )
}

/// The index of field `k`'s first leaf in a general-path struct's format (a field marker's
/// `INDEX`).
#[must_use]
pub const fn first_leaf_of<T: Analyzed<N>, const N: usize>(k: usize) -> usize {
    first_leaf(&T::ANALYSIS, k)
}

/// `Analyzed::ANALYSIS` of a lazy struct: one whose problems the derive rules out itself from
/// the fields' syntax (every field a plain scalar or vector, an array of them, a `wgsl = "..."`
/// type whose bytes the macro counts, or a nested type whose own cheap constants
/// [`GpuType::NESTS`] and [`GpuType::LEAVES`] stand for it), in the `wgsl-storage` layout with
/// nothing asserted. It states its facts in `Analyzed::FACTS`; this analysis runs on first use
/// only and fails at the caller (the expansion spans it at the struct's name) on a problem the
/// macro could not see (a shadowed scalar name). The expansion's one eager `const` reads only
/// the nested types' `NESTS` and, when one is `false`, reports the analysis's problem at its
/// field through [`lazy_spot`] and [`lazy_message`].
///
/// # Panics
/// On a problem.
#[must_use]
#[track_caller]
pub const fn lazy_analysis<T: Analyzed<N>, const N: usize>() -> Analysis<N> {
    analyze(T::FACTS)
}

/// The analysis of a lazy struct (see [`lazy_analysis`]) without failing: its problem's spot.
#[must_use]
pub const fn lazy_spot<T: Analyzed<N>, const N: usize>() -> Option<Spot> {
    let mut facts = T::FACTS;
    facts.reported_by_caller = true;
    problem_spot(&analyze(facts))
}

/// The analysis of a lazy struct (see [`lazy_analysis`]) without failing: its problem's message.
#[must_use]
pub const fn lazy_message<T: Analyzed<N>, const N: usize>() -> Msg {
    let mut facts = T::FACTS;
    facts.reported_by_caller = true;
    problem_message(&analyze(facts))
}

/// Whether a value of `T` can be a field of a row in the `wgsl-storage` layout: its WGSL type
/// laid out, at least one leaf, every leaf with a vertex format, no runtime-sized array, and a
/// type that is one vertex format's bytes ([`HostShape::Field`]) exactly as long as the format
/// (which the analysis checks too) ([`GpuType::NESTS`]'s default).
#[must_use]
pub const fn nests_by_default<T: GpuType>() -> bool {
    tree::nests(&T::WGSL, T::HOST, size_of::<T>())
}

/// The facts of a general-path struct `T` with each field's size, format, host shape and tree
/// flag read from its `Flattened::LEAF_HOST` members (its `GpuType::HOST`, or a packed struct's
/// own shape), and its WGSL struct from `Described`: the expansion states them once, there.
/// A field is a tree (a WGSL type rather than one vertex format) unless its host shape is one
/// vertex format's bytes ([`HostShape::Field`], every [`GpuField`] and every
/// `format = "..."` field) and it has no `wgsl = "..."` string.
#[must_use]
pub const fn tree_facts<T: Described + Flattened, const N: usize, const M: usize>(
    mut facts: Facts<N, M>,
) -> Facts<N, M> {
    facts.structure = Some(described::<T>());
    facts.tail = T::TAIL;
    if let HostShape::Struct { members, .. } = T::LEAF_HOST {
        let mut k = 0;
        while k < N && k < members.len() {
            let shape = members[k].shape;
            facts.sizes[k] = members[k].size;
            facts.hosts[k] = shape;
            let (format, tree) = match shape {
                HostShape::Field(format) => (format, facts.wgsl[k]),
                _ => (VertexFormat::Float32, true),
            };
            facts.formats[k] = format;
            facts.tree[k] = tree;
            k += 1;
        }
    }
    facts
}

/// `Analyzed::OFFSETS` of a struct with a `GpuType::HOST`: its members' host offsets.
#[must_use]
pub const fn host_offsets<T: GpuType, const N: usize>() -> [usize; N] {
    let mut offsets = [0; N];
    if let HostShape::Struct { members, .. } = T::HOST {
        let mut k = 0;
        while k < N && k < members.len() {
            offsets[k] = members[k].offset;
            k += 1;
        }
    }
    offsets
}

/// The facts of a flat-path struct with a `GpuType::HOST` (not `packed`): each field's size and
/// format read from its host members (a [`GpuField`]'s format, or the `format = "..."`
/// string's), which the expansion states once, there.
#[must_use]
pub const fn host_facts<T: GpuType, const N: usize, const M: usize>(
    mut facts: Facts<N, M>,
) -> Facts<N, M> {
    if let HostShape::Struct { members, .. } = T::HOST {
        let mut k = 0;
        while k < N && k < members.len() {
            facts.sizes[k] = members[k].size;
            if let HostShape::Field(format) = members[k].shape {
                facts.formats[k] = format;
            }
            k += 1;
        }
    }
    facts
}

/// The WGSL struct of a derived type, through a call (an associated const naming
/// `Described::STRUCT` would make rustc evaluate it for every struct).
#[must_use]
pub const fn described<T: Described>() -> &'static WgslStruct {
    StructRef::<T>::STRUCT
}

/// A reference to a struct's description, made on first use.
struct StructRef<T>(core::marker::PhantomData<T>);

impl<T: Described> StructRef<T> {
    const STRUCT: &'static WgslStruct = &T::STRUCT;
}

/// [`fail`] with a message passed by value (no constant for rustc to evaluate early).
#[track_caller]
pub const fn fail_with(msg: Msg) -> ! {
    panic!("{}", msg.as_str())
}

/// Why the host bytes of a `#[repr(C)]` struct are not its gpu rows (see [`zero_copy_problem`]).
const fn host_problem<const N: usize, const M: usize>(
    layout: &ConstLayout<N>,
    host: &HostFacts<M>,
) -> Option<(usize, Msg)> {
    let mut fields = host.fields;
    // Fill in the gpu offsets: host fields name gpu fields by index.
    let mut j = 0;
    while j < M {
        if let Some(k) = fields[j].gpu_index {
            fields[j].gpu_offset = Some(layout.offsets[k]);
        }
        j += 1;
    }
    zero_copy_problem(&fields, host.size, layout.shape.byte_stride)
}

/// Whether a `#[repr(C)]` struct's host bytes are its gpu rows (`HOST_LAYOUT_MATCHES`): every gpu
/// field at its gpu offset, the struct as long as the stride, and the fields' sizes (gpu fields'
/// formats plus `padding_sizes`, the `#[gpu(padding)]` fields' sizes) adding up to the struct's
/// size, so no byte is implicit padding.
#[must_use]
pub const fn host_matches<const N: usize>(
    analysis: &Analysis<N>,
    copies: &[FieldCopy],
    host_size: usize,
    padding_sizes: usize,
) -> bool {
    if !analysis.valid || analysis.problem.is_some() || copies.len() != N {
        return false;
    }
    if host_size as u64 != analysis.layout.shape.byte_stride {
        return false;
    }
    let mut covered = padding_sizes as u64;
    let mut k = 0;
    while k < N {
        if copies[k].host as u64 != analysis.layout.offsets[k] {
            return false;
        }
        covered += analysis.formats[k].byte_length();
        k += 1;
    }
    covered == host_size as u64
}

/// The first field whose format no wgpu vertex attribute reads (a `-webgl` one), if any; the
/// expansion then fails with [`no_vertex_layout_of`], spanned at the field.
#[must_use]
pub const fn webgl_index<const N: usize>(analysis: &Analysis<N>) -> Option<usize> {
    let mut k = 0;
    while k < N {
        if analysis.formats[k].to_wgpu().is_none() {
            return Some(k);
        }
        k += 1;
    }
    None
}

/// The vertex attributes, locations counted from `location` (a field without a wgpu format,
/// which [`webgl_index`] finds first, gets `float32`).
#[must_use]
pub const fn vertex_attribute_list<const N: usize>(
    analysis: &Analysis<N>,
    location: u32,
) -> [wgpu::VertexAttribute; N] {
    let mut list = [wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32,
        offset: 0,
        shader_location: 0,
    }; N];
    let mut k = 0;
    while k < N {
        if let Some(format) = analysis.formats[k].to_wgpu() {
            list[k].format = format;
        }
        list[k].offset = analysis.layout.offsets[k];
        list[k].shader_location = location.saturating_add(k as u32);
        k += 1;
    }
    list
}

/// Why the struct has no vertex layout: its first `-webgl` field (see [`webgl_index`]).
#[must_use]
pub const fn no_vertex_layout_of<const N: usize>(analysis: &Analysis<N>) -> Msg {
    match webgl_index(analysis) {
        Some(k) => no_vertex_layout(analysis, k),
        None => Msg::new(),
    }
}

/// Why field `k` leaves the struct without a vertex layout.
#[must_use]
pub const fn no_vertex_layout<const N: usize>(analysis: &Analysis<N>, k: usize) -> Msg {
    Msg::new()
        .str("field `")
        .str(analysis.names[k])
        .str("` has WebGL-only format `")
        .str(analysis.formats[k].as_str())
        .str("`, which no wgpu vertex attribute reads, so the struct has no vertex layout; use a 2- or 4-component type or format, or use the struct only as storage (without `vertex_buffer_layout`)")
}

/// The struct format's field entries.
#[must_use]
pub const fn struct_fields<const N: usize>(analysis: &Analysis<N>) -> [GpuDataStructField; N] {
    let mut fields = [const { GpuDataStructField::from_static("", VertexFormat::Float32, 0) }; N];
    let mut k = 0;
    while k < N {
        let field = GpuDataStructField::from_static(
            analysis.names[k],
            analysis.formats[k],
            analysis.layout.offsets[k],
        );
        // The placeholder borrows a `'static` string: forgetting it frees nothing.
        core::mem::forget(core::mem::replace(&mut fields[k], field));
        k += 1;
    }
    fields
}

/// The copies that encode or decode one row, from the analysis and the host field offsets.
#[must_use]
pub const fn row_copies<const N: usize>(
    analysis: &Analysis<N>,
    host_offsets: [usize; N],
) -> [FieldCopy; N] {
    let mut copies = [FieldCopy {
        host: 0,
        gpu: 0,
        len: 0,
    }; N];
    let mut k = 0;
    while k < N {
        copies[k] = FieldCopy {
            host: host_offsets[k],
            gpu: analysis.layout.offsets[k] as usize,
            len: analysis.formats[k].byte_length() as usize,
        };
        k += 1;
    }
    copies
}

/// One host field of a `#[repr(C)]` struct, gpu or padding, in declaration order.
#[derive(Clone, Copy)]
pub struct HostField {
    /// The Rust field name.
    pub name: &'static str,
    /// `offset_of!` the field.
    pub offset: usize,
    /// `size_of` its type.
    pub size: usize,
    /// Its index among the gpu fields; `None` for `#[gpu(padding)]` fields.
    pub gpu_index: Option<usize>,
    /// Its gpu offset, filled in by [`analyze`].
    pub gpu_offset: Option<u64>,
}

/// Why a `#[repr(C)]` struct's bytes are not its GPU rows: the index of the host field to report
/// at (`fields.len()` for the struct's end) and the message; `None` when they are.
#[must_use]
pub const fn zero_copy_problem(
    fields: &[HostField],
    host_size: usize,
    byte_stride: u64,
) -> Option<(usize, Msg)> {
    const HEAD: &str = "`#[gpu(zero_copy)]`: ";
    let mut at = 0usize;
    let mut j = 0;
    while j < fields.len() {
        let field = fields[j];
        if let Some(gpu) = field.gpu_offset {
            let gpu = gpu as usize;
            if field.offset < gpu {
                let msg = Msg::new()
                    .str(HEAD)
                    .str("field `")
                    .str(field.name)
                    .str("` is at host offset ")
                    .num(field.offset as u64)
                    .str(" but gpu offset ")
                    .num(gpu as u64)
                    .str("; add `#[gpu(padding)] _pad: [u8; ")
                    .num((gpu - at) as u64)
                    .str("]` before `")
                    .str(field.name)
                    .str("`");
                return Some((j, msg));
            }
            if field.offset > gpu {
                let msg = Msg::new()
                    .str(HEAD)
                    .str("field `")
                    .str(field.name)
                    .str("` is at host offset ")
                    .num(field.offset as u64)
                    .str(" but gpu offset ")
                    .num(gpu as u64)
                    .str("; the host places it later, so remove host-only fields before it or use a field type with a smaller alignment (such as an array)");
                return Some((j, msg));
            }
        }
        if field.offset > at {
            let msg = Msg::new()
                .str(HEAD)
                .str("the host struct has ")
                .num((field.offset - at) as u64)
                .str(" bytes of implicit padding before field `")
                .str(field.name)
                .str("`; make them explicit with `#[gpu(padding)] _pad: [u8; ")
                .num((field.offset - at) as u64)
                .str("]` before `")
                .str(field.name)
                .str("`");
            return Some((j, msg));
        }
        at = field.offset + field.size;
        j += 1;
    }
    let stride = byte_stride as usize;
    if host_size > stride {
        let msg = Msg::new()
            .str(HEAD)
            .str("the host struct is ")
            .num(host_size as u64)
            .str(" bytes but the gpu byte stride is ")
            .num(byte_stride)
            .str("; remove host-only fields or `#[repr(align)]` so the struct is ")
            .num(byte_stride)
            .str(" bytes");
        return Some((fields.len(), msg));
    }
    if at < stride {
        let msg = Msg::new()
            .str(HEAD)
            .str("the gpu byte stride is ")
            .num(byte_stride)
            .str(" but the host fields end at byte ")
            .num(at as u64)
            .str("; add `#[gpu(padding)] _pad: [u8; ")
            .num((stride - at) as u64)
            .str("]` after the last field");
        return Some((fields.len(), msg));
    }
    None
}

/// The struct format of a derive that failed (the compile error is already reported).
pub const FALLBACK_FORMAT: &GpuDataStructFormat =
    &GpuDataStructFormat::from_static(StructLayout::WgslStorage, &[], EMPTY_SHAPE);

/// The WGSL struct of a runtime-sized derive that failed (the compile error is already
/// reported): it lays out as [`runtime_layout`]'s placeholder.
pub const FALLBACK_STRUCT: WgslStruct = WgslStruct::new("Fallback", &[]);

/// A type a host-only `#[gpu(padding)]` field may have: plain data, so the struct's bytes stay
/// initialized and the field can decode as zeros.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `#[gpu(padding)]` field",
    label = "not plain data",
    note = "padding fields must be `bytemuck::Pod` (every byte initialized, any bit pattern valid), such as `[u8; N]` or `u32`"
)]
pub trait PaddingField: bytemuck::Pod {}

impl<T: bytemuck::Pod> PaddingField for T {}

/// Requires a `#[gpu(padding)]` field type to be plain data.
pub const fn assert_padding<T: PaddingField>() {}

/// A type `impl_gpu_field!` accepts: plain data in bytemuck's sense.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `bytemuck::Pod`, so `impl_gpu_field!` cannot make it a gpu field",
    label = "not plain data",
    note = "derive `bytemuck::Pod` and `bytemuck::Zeroable` on a `#[repr(C)]` or `#[repr(transparent)]` type, or write `unsafe impl gpudata::GpuField` and uphold its safety contract"
)]
pub trait PlainField: bytemuck::Pod {}

impl<T: bytemuck::Pod> PlainField for T {}

/// `impl_gpu_field!`'s checks: `T` is plain data (a trait bound) and as long as `format`.
///
/// # Panics
/// At compile time, when the sizes differ.
#[track_caller]
pub const fn check_plain_field<T: PlainField>(type_name: &str, format: VertexFormat) {
    check_field_size::<T>(type_name, format);
}

/// Checks that a field type is as long as its format.
///
/// # Panics
/// At compile time, when the sizes differ.
#[track_caller]
pub const fn check_field_size<T>(type_name: &str, format: VertexFormat) {
    let size = size_of::<T>() as u64;
    if size != format.byte_length() {
        let msg = Msg::new()
            .str("`")
            .str(type_name)
            .str("` is ")
            .num(size)
            .str(" bytes, but format `")
            .str(format.as_str())
            .str("` is ")
            .num(format.byte_length())
            .str(" bytes; name a format as long as the type");
        fail(&msg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_copy_problem_names_the_field_and_the_padding() {
        let fields = [
            HostField {
                name: "a",
                gpu_index: None,
                offset: 0,
                size: 4,
                gpu_offset: Some(0),
            },
            HostField {
                name: "b",
                gpu_index: None,
                offset: 4,
                size: 12,
                gpu_offset: Some(16),
            },
        ];
        let (at, msg) = zero_copy_problem(&fields, 16, 32).unwrap();
        assert_eq!(at, 1);
        assert!(
            msg.as_str()
                .contains("add `#[gpu(padding)] _pad: [u8; 12]` before `b`")
        );
        let fixed = [
            fields[0],
            HostField {
                name: "_pad",
                gpu_index: None,
                offset: 4,
                size: 12,
                gpu_offset: None,
            },
            HostField {
                name: "b",
                gpu_index: None,
                offset: 16,
                size: 12,
                gpu_offset: Some(16),
            },
        ];
        let (at, msg) = zero_copy_problem(&fixed, 28, 32).unwrap();
        assert_eq!(at, 3);
        assert!(
            msg.as_str().contains("[u8; 4]` after the last field"),
            "{}",
            msg.as_str()
        );
        assert!(zero_copy_problem(&fixed, 28, 28).is_none());
    }
}
