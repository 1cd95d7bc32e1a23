//! What the expansion's constants call: the traits a derived struct implements for them
//! ([`Analyzed`], [`Described`]) and one generic `const fn` per constant, reading tables made on
//! first use. Two families: `tree_*`, every struct's constants read from its one leaf table
//! ([`LeafTables`]; a struct of vertex-format fields is a tree of depth 1, each field its own
//! leaf), and `lazy_*` (structs analysed on first use).

#![allow(
    clippy::cast_possible_truncation,
    reason = "offsets and strides of one row are far below usize::MAX on every target wgpu supports"
)]

use super::analysis::analyze;
use super::facts::{Analysis, Facts, Spot, first_leaf, problem_message, problem_spot};
use super::messages::webgl_message;
use super::tables::{flatten, webgl_field};
use super::zero_copy::host_matches_members;
use crate::format::VertexFormat;
use crate::layout::{GpuDataStructField, GpuDataStructFormat, WgslStruct};
use crate::record::tree::{self, Leaf, Msg, fail_with, leaf_attributes, leaf_copies, leaf_fields};
use crate::record::{FieldCopy, GpuType, HostShape};

/// Holds a struct's [`Analysis`] as an associated const, so it is evaluated on first use only
/// (a free `const` is evaluated for every struct, used or not), the host facts its tables read,
/// and its tables ([`LeafTables`] with its leaf count, the one const argument the expansion
/// writes).
///
/// Every other constant of the expansion is a call of a generic `const fn` here ([`tree_format`],
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
    /// The host shape a nested struct's leaves are read from: its [`GpuType::HOST`], or a
    /// `packed` struct's own, which does not nest. A tree of depth 1 (a struct the flat engine
    /// laid out) reads its leaves from the analysis and keeps this placeholder.
    const LEAF_HOST: HostShape = HostShape::Packed;
    /// The first vertex attribute's shader location (`#[gpu(location = N)]`, else 0).
    const LOCATION: u32 = 0;
    /// Whether the struct's last field is a `RuntimeArray` (a header plus elements, not a row).
    const TAIL: bool = false;
    /// `LeafTables<Self, N, L>`.
    type Tables: LeafTableSet;
}

/// Describes a derived struct as WGSL members; the derive implements it for every non-`packed`
/// struct, and [`GpuType::WGSL`] points at it.
pub trait Described {
    /// The struct.
    const STRUCT: WgslStruct;
}

/// The tables of a derived struct `T` (`N` fields, `L` leaves), computed on first use.
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
    /// The vertex attributes (a leaf without a wgpu format, which [`webgl_field`] finds, gets
    /// `float32`).
    const ATTRIBUTES: &'static [wgpu::VertexAttribute];
}

impl<T: Analyzed<N>, const N: usize, const L: usize> LeafTableSet for LeafTables<T, N, L> {
    const LEAVES: &'static [Leaf] = &flatten::<L, N>(&T::ANALYSIS, T::LEAF_HOST);
    const FIELDS: &'static [GpuDataStructField] = &leaf_fields::<L>(Self::LEAVES);
    const FORMAT: &'static GpuDataStructFormat = &GpuDataStructFormat::from_static(
        T::ANALYSIS.rules,
        Self::FIELDS,
        T::ANALYSIS.layout.shape,
    );
    const COPIES: &'static [FieldCopy] = &leaf_copies::<L>(Self::LEAVES, &T::OFFSETS);
    const ATTRIBUTES: &'static [wgpu::VertexAttribute] =
        &leaf_attributes::<L>(Self::LEAVES, T::LOCATION);
}

/// Whether a `zero_copy` struct's host bytes are its rows (the analysis checked it).
#[must_use]
pub const fn analysis_host_matches<T: Analyzed<N>, const N: usize>() -> bool {
    T::ANALYSIS.host_matches
}

/// `GpuStruct::FORMAT` of a derived struct (one field per leaf).
#[must_use]
pub const fn tree_format<T: Analyzed<N>, const N: usize>() -> &'static GpuDataStructFormat {
    <T::Tables as LeafTableSet>::FORMAT
}

/// The struct format fields of a derived struct (a runtime-sized struct's header).
#[must_use]
pub const fn tree_fields<T: Analyzed<N>, const N: usize>() -> &'static [GpuDataStructField] {
    <T::Tables as LeafTableSet>::FIELDS
}

/// `GpuStruct::FIELD_COPIES` of a derived struct.
#[must_use]
pub const fn tree_copies<T: Analyzed<N>, const N: usize>() -> &'static [FieldCopy] {
    <T::Tables as LeafTableSet>::COPIES
}

/// The field of a derived struct's first leaf without a wgpu vertex format.
#[must_use]
pub const fn tree_webgl<T: Analyzed<N>, const N: usize>() -> Option<usize> {
    webgl_field(<T::Tables as LeafTableSet>::LEAVES)
}

/// Why a derived struct has no vertex layout (see [`webgl_message`]).
#[must_use]
pub const fn tree_webgl_message<T: Analyzed<N>, const N: usize>() -> Msg {
    webgl_message(<T::Tables as LeafTableSet>::LEAVES)
}

/// `GpuStruct::ATTRIBUTES` of a derived struct: its leaves' vertex attributes (see
/// [`leaf_attributes`]), or, when a leaf has no wgpu vertex format, a compile error at the
/// caller. (The expansion matches [`tree_webgl`] first, to report that error at the field, for a
/// struct whose fields may hold such a leaf.)
///
/// # Panics
/// When a leaf has no wgpu vertex format.
#[must_use]
#[track_caller]
pub const fn tree_attributes<T: Analyzed<N>, const N: usize>() -> &'static [wgpu::VertexAttribute] {
    match tree_webgl::<T, N>() {
        None => <T::Tables as LeafTableSet>::ATTRIBUTES,
        Some(_) => fail_with(tree_webgl_message::<T, N>()),
    }
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

/// `GpuStruct::HOST_LAYOUT_MATCHES` of a derived `#[repr(C)]` struct (see
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

/// The index of field `k`'s first leaf in a nested struct's format (a field marker's `INDEX`).
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

/// The facts of a nested struct `T` with each field's size, format, host shape and tree flag
/// read from its `Analyzed::LEAF_HOST` members (its `GpuType::HOST`, or a packed struct's own
/// shape), and its WGSL struct from `Described`: the expansion states them once, there.
/// A field is a tree (a WGSL type rather than one vertex format) unless its host shape is one
/// vertex format's bytes ([`HostShape::Field`], every [`GpuField`](crate::GpuField) and every
/// `format = "..."` field) and it has no `wgsl = "..."` string.
#[must_use]
pub const fn tree_facts<T: Described + Analyzed<N>, const N: usize, const M: usize>(
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

/// The facts of a depth-1 struct with a `GpuType::HOST` (not `packed`), laid out by the flat
/// engine: each field's size and format read from its host members (a [`GpuField`](crate::GpuField)'s format, or the `format = "..."`
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
