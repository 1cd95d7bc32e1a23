//! What the expansion states about a struct ([`Facts`], [`HostFacts`], [`HostField`]) and what
//! the analysis makes of them ([`Analysis`], a problem's [`Spot`]), with the small readers of
//! both that the expansion calls: a field's format, member type and host shape, the leaf counts,
//! the first field no vertex attribute reads, and the placeholders of a failed derive.

#![allow(
    clippy::cast_possible_truncation,
    reason = "offsets and strides of one row are far below usize::MAX on every target wgpu supports"
)]

use crate::format::VertexFormat;
use crate::layout::{
    AddressSpace, ConstLayout, GpuDataStructFormat, RowShape, StructLayout, WgslStruct, WgslType,
};
use crate::record::HostShape;
use crate::record::host_shape::carrier_type;
use crate::record::tree::Msg;

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
    /// Its gpu offset, filled in by [`analyze`](super::analyze).
    pub gpu_offset: Option<u64>,
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

pub(super) const EMPTY_SHAPE: RowShape = RowShape {
    components: 0,
    row_byte_length: 0,
    byte_stride: 0,
    alignment: 1,
};

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

/// `Some(format)`'s format, else `fallback` (an unknown `format = "..."` string is reported by
/// [`analyze`](super::analyze); the layout goes on with the type's format so nothing cascades).
#[must_use]
pub const fn format_or(found: Option<VertexFormat>, fallback: VertexFormat) -> VertexFormat {
    match found {
        Some(format) => format,
        None => fallback,
    }
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

/// The struct format of a derive that failed (the compile error is already reported).
pub const FALLBACK_FORMAT: &GpuDataStructFormat =
    &GpuDataStructFormat::from_static(StructLayout::WgslStorage, &[], EMPTY_SHAPE);

/// The WGSL struct of a runtime-sized derive that failed (the compile error is already
/// reported): it lays out as [`runtime_layout`](super::runtime_layout)'s placeholder.
pub const FALLBACK_STRUCT: WgslStruct = WgslStruct::new("Fallback", &[]);
