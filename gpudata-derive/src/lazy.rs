//! Structs the macro checks itself: a `wgsl-storage` struct with nothing asserted whose fields
//! are plain scalars and vectors, arrays of them, `wgsl = "..."` types whose bytes the macro
//! counts, and nested types. No problem of its own can arise there (a shadowed scalar name
//! aside, which the analysis reports when it is first used), so its analysis runs on first use
//! only (`__private::lazy_analysis`, its facts in `Analyzed::FACTS`), and the one eager check reads the nested types' `GpuType::NESTS`:
//! cheap constants instead of the layout engine run in rustc's interpreter for every struct.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;
use syn::Type;

use crate::expand::plain_type;
use crate::internals::ast::{Field, Input, is_scalar, runtime_element};
use crate::internals::attr::LayoutKind;
use crate::internals::wgsl_type::{LeafKind, WgslTy};

/// What the macro knows of a struct it checks itself.
pub(crate) struct LazyFacts {
    /// The struct's leaf count: a literal plus the nested types' `GpuType::LEAVES`.
    pub(crate) leaves: TokenStream,
    /// For gpu field `k` holding nested types: `<T as GpuType>::NESTS` of each.
    pub(crate) nests: Vec<(usize, TokenStream)>,
    /// Each gpu field's first leaf (its marker's `INDEX`): the leaves of the fields before it,
    /// a literal unless a nested type precedes it.
    pub(crate) firsts: Vec<TokenStream>,
}

/// The struct's [`LazyFacts`], or `None` when its problems need the analysis to be found.
pub(crate) fn lazy_facts(input: &Input<'_>, p: &Ident) -> Option<LazyFacts> {
    if input.attrs.layout != LayoutKind::WgslStorage
        || input.attrs.zero_copy.is_some()
        || input.attrs.stride.is_some()
        || input.tail().is_some()
    {
        return None;
    }
    let mut literal = 0usize;
    let mut nested = Vec::new();
    let mut nests = Vec::new();
    let mut firsts = Vec::new();
    for (k, f) in input.gpu_fields().enumerate() {
        let first = Literal::usize_unsuffixed(literal);
        firsts.push(quote!(#first #(+ #nested)*));
        let FieldLeaves {
            literal: l,
            nested: n,
            nests: c,
        } = field_leaves(f, p)?;
        literal = literal.checked_add(l)?;
        nested.extend(n);
        nests.extend(c.into_iter().map(|c| (k, c)));
    }
    let literal = Literal::usize_unsuffixed(literal);
    Some(LazyFacts {
        leaves: quote!(#literal #(+ #nested)*),
        nests,
        firsts,
    })
}

/// One field's leaves: a count the macro knows, terms naming nested types' counts, and the
/// nested types' `NESTS`.
struct FieldLeaves {
    literal: usize,
    nested: Vec<TokenStream>,
    nests: Vec<TokenStream>,
}

fn field_leaves(f: &Field<'_>, p: &Ident) -> Option<FieldLeaves> {
    let attrs = &f.attrs;
    if attrs.format.is_some()
        || attrs.offset.is_some()
        || attrs.align.is_some()
        || attrs.size.is_some()
    {
        return None;
    }
    match &attrs.wgsl {
        Some((_, wgsl)) => {
            let bytes = wgsl_bytes(wgsl)?;
            (host_bytes(f.ty)? == bytes).then_some(FieldLeaves {
                literal: wgsl_leaves(wgsl)?,
                nested: Vec::new(),
                nests: Vec::new(),
            })
        }
        None => type_leaves(f.ty, p),
    }
}

/// The leaves of a field of type `ty` without attributes.
fn type_leaves(ty: &Type, p: &Ident) -> Option<FieldLeaves> {
    if runtime_element(ty).is_some() {
        return None;
    }
    if plain_type(ty, true) {
        return Some(FieldLeaves {
            literal: 1,
            nested: Vec::new(),
            nests: Vec::new(),
        });
    }
    match ty {
        Type::Array(array) if !is_scalar(&array.elem) => {
            let n = literal_len(&array.len)?;
            let inner = type_leaves(&array.elem, p)?;
            let count = Literal::usize_unsuffixed(n);
            Some(FieldLeaves {
                literal: inner.literal.checked_mul(n)?,
                nested: inner
                    .nested
                    .into_iter()
                    .map(|term| quote!(#count * #term))
                    .collect(),
                nests: inner.nests,
            })
        }
        Type::Path(path) if path.qself.is_none() && !is_scalar(ty) => Some(FieldLeaves {
            literal: 0,
            nested: vec![quote!(<#ty as #p::GpuType>::LEAVES)],
            nests: vec![quote!(<#ty as #p::GpuType>::NESTS)],
        }),
        _ => None,
    }
}

/// An array length written as a literal of at least 1.
fn literal_len(len: &syn::Expr) -> Option<usize> {
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(len),
        ..
    }) = len
    else {
        return None;
    };
    len.base10_parse::<usize>().ok().filter(|n| *n >= 1)
}

/// Bytes of a host type of 32-bit scalars the macro reads from its syntax: `f32`, `[u32; N]`,
/// `[[f32; R]; C]`.
fn host_bytes(ty: &Type) -> Option<usize> {
    fn word(ty: &Type) -> bool {
        let Type::Path(path) = ty else { return false };
        path.qself.is_none()
            && path
                .path
                .get_ident()
                .is_some_and(|i| i == "f32" || i == "u32" || i == "i32")
    }
    if word(ty) {
        return Some(4);
    }
    let Type::Array(array) = ty else { return None };
    let n = literal_len(&array.len)?;
    n.checked_mul(host_bytes(&array.elem)?)
}

/// Bytes of the scalars of a WGSL type of 32-bit scalars (no `f16`, no atomics, `f32`
/// matrices, arrays of at least one element), else `None`.
fn wgsl_bytes(ty: &WgslTy) -> Option<usize> {
    match ty {
        WgslTy::Leaf {
            kind,
            columns,
            rows,
            scalar,
        } => match kind {
            LeafKind::Atomic => None,
            _ if *scalar == "f16" => None,
            LeafKind::Matrix if *scalar != "f32" => None,
            _ => Some(usize::from(*columns) * usize::from(*rows) * 4),
        },
        WgslTy::Array(element, count) => {
            let count = usize::try_from(*count).ok().filter(|n| *n >= 1)?;
            count.checked_mul(wgsl_bytes(element)?)
        }
    }
}

/// Leaves of a WGSL type: one per scalar or vector, one per matrix column.
fn wgsl_leaves(ty: &WgslTy) -> Option<usize> {
    match ty {
        WgslTy::Leaf {
            kind: LeafKind::Matrix,
            columns,
            ..
        } => Some(usize::from(*columns)),
        WgslTy::Leaf { .. } => Some(1),
        WgslTy::Array(element, count) => usize::try_from(*count)
            .ok()?
            .checked_mul(wgsl_leaves(element)?),
    }
}
