//! The analysis: a struct's [`Facts`] laid out through the runtime's engine (flat fields by the
//! flat engine, nested types by WGSL's memory model or, under `packed`, leaf by leaf by the
//! vertex rules), every assertion checked, the first problem found with where to report it.

#![allow(
    clippy::cast_possible_truncation,
    reason = "offsets and strides of one row are far below usize::MAX on every target wgpu supports"
)]

use super::facts::{Analysis, EMPTY_SHAPE, Facts, Spot};
use super::zero_copy::host_problem;
use crate::format::VertexFormat;
use crate::layout::{
    AddressSpace, ConstLayout, LayoutRuleError, RowShape, RuntimeTail, StructLayout, TypeLayout,
    TypeRuleError, WgslMember, WgslStruct, WgslType, layout_formats,
};
use crate::record::HostShape;
use crate::record::tree::{self, LeafName, Msg, TreeFault, TreeProblem, fail, leaf_count};

impl<const N: usize, const M: usize> Facts<N, M> {
    /// The first problem of the fields themselves (formats, sizes, layout rules). Written with
    /// few calls: every call costs in the compile-time interpreter, once per derived struct.
    pub(super) const fn field_problem(
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
    pub(super) const fn rule_spot(&self, k: usize, error: TypeRuleError, s: &WgslStruct) -> Spot {
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
    pub(super) const fn type_spot(&self, k: usize) -> Spot {
        if self.wgsl[k] {
            Spot::Wgsl(k)
        } else {
            Spot::Type(k)
        }
    }

    /// `problem` of field `k` itself.
    pub(super) const fn fault(&self, k: usize, problem: TreeProblem) -> TreeFault {
        TreeFault {
            name: LeafName::new().push(self.names[k]),
            problem,
        }
    }

    /// A `wgsl = "..."` field whose WGSL type holds another number of component bytes than
    /// the field's host type.
    pub(super) const fn wgsl_size_problem(
        &self,
        k: usize,
        member: &WgslMember,
    ) -> Option<(Spot, Msg)> {
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
    pub(super) const fn packed_layout(
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

    /// The general path: the fields as WGSL members of `s`, laid out by WGSL's memory model in
    /// `self.space`, each flattened into leaves.
    #[allow(
        clippy::result_large_err,
        reason = "a const fn cannot box; the message is a fixed buffer, built once per struct"
    )]
    pub(super) const fn member_layout(
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

    /// The first declared `offset = N` or `stride = N` that the layout contradicts.
    pub(super) const fn assertion_problem(&self, layout: &ConstLayout<N>) -> Option<(Spot, Msg)> {
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
