//! What every part of one expansion reads: the checked struct, its [`Strategy`], and the tokens
//! several parts interpolate, built once.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{ToTokens, quote};
use syn::Ident;

use super::tokens::usize_lit;
use crate::internals::ast::{Field, Input};
use crate::internals::attr::LayoutKind;
use crate::internals::classify::Strategy;

/// One struct's expansion.
pub(super) struct Context<'i, 'a> {
    /// The checked struct.
    pub(super) input: &'i Input<'a>,
    /// Its gpu fields, in order.
    pub(super) gpu: Vec<&'i Field<'a>>,
    /// How it is expanded.
    pub(super) strategy: Strategy<'a>,
    /// Whether its layout is `packed`.
    pub(super) packed: bool,
    /// The name `__private` is imported under (see [`Context::new`]).
    pub(super) p: Ident,
    /// The gpu field count.
    pub(super) n: Literal,
    /// `<Struct as Analyzed<N>>::ANALYSIS`.
    pub(super) analysis: TokenStream,
    /// Each gpu field's `format = "..."` literal as an `Option` expression.
    pub(super) requested: Vec<TokenStream>,
    /// The bytes of the `#[gpu(padding)]` fields: `0 + size_of::<T>() + ...`.
    pub(super) pad_total: TokenStream,
    /// The first shader location, suffixed (`0u32`).
    pub(super) location: Literal,
}

impl<'i, 'a> Context<'i, 'a> {
    /// The context of `input`, which passed every macro-side check.
    pub(super) fn new(input: &'i Input<'a>) -> Self {
        // Every generated item but the marker module lies in one `const _` block that imports
        // `__private` under this short name: its paths are a third of the tokens of
        // `::gpudata::__private::Name` for the proc-macro bridge, the parser and name
        // resolution, and an `Ident` is appended where it is interpolated (a `TokenStream`
        // would first flush the tokens buffered so far across the bridge).
        let p = Ident::new("__gpudata_private", Span::call_site());
        let gpu: Vec<&Field<'_>> = input.gpu_fields().collect();
        let n = usize_lit(gpu.len());
        let ident = input.ident;
        let analysis = quote!(<#ident as #p::Analyzed<#n>>::ANALYSIS);
        let requested = gpu
            .iter()
            .map(|f| {
                let r = f.attrs.format.as_ref().map(ToTokens::to_token_stream);
                super::tokens::option_tokens(r)
            })
            .collect();
        let pads = input.fields.iter().filter(|f| !f.is_gpu()).map(|f| {
            let ty = f.ty;
            quote!(+ ::core::mem::size_of::<#ty>())
        });
        let pad_total = quote!(0 #(#pads)*);
        let location = Literal::u32_suffixed(input.attrs.location.as_ref().map_or(0, |(n, _)| *n));
        Context {
            input,
            gpu,
            strategy: Strategy::of(input),
            packed: input.attrs.layout == LayoutKind::Packed,
            p,
            n,
            analysis,
            requested,
            pad_total,
            location,
        }
    }
}
