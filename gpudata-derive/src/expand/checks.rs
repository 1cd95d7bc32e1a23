//! The compile-time checks spanned at the user's tokens: the `const` reporting the analysis's
//! first problem (or, for a struct the macro checks itself, the nested types it cannot hold),
//! and the padding fields' plain-data check.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

use super::context::Context;
use super::tokens::usize_lit;
use crate::internals::classify::{Check, Leaves};
use crate::spans::{fail_at, fail_with_at, span_range};

/// The struct's eager problem check, as its [`Check`] says: none, the analysis's first problem,
/// or the nested types' `NESTS`. `zero_copy_message`, from the shader check, replaces the
/// message of a `zero_copy` problem.
pub(super) fn problem_check(
    cx: &Context<'_, '_>,
    zero_copy_message: Option<&TokenStream>,
) -> TokenStream {
    match &cx.strategy.check {
        Check::Never => TokenStream::new(),
        Check::Eager => problem_arms(cx, zero_copy_message),
        Check::Lazy(leaves) => lazy_check(cx, leaves),
    }
}

/// The one `const` that fails the build with the analysis's first problem, spanned at the token
/// it is about: one match arm per place a problem can be reported. (The analysis itself does not
/// fail then, so the items reading it add no notes to the error.)
fn problem_arms(cx: &Context<'_, '_>, zero_copy_message: Option<&TokenStream>) -> TokenStream {
    let Context {
        input, p, analysis, ..
    } = cx;
    let msg = quote!(&#p::problem_message(&#analysis));
    let mut arms = Vec::new();
    let mut arm = |pattern: TokenStream, range: (Span, Span)| {
        let fail = fail_at(p, &msg, range);
        arms.push(quote!(::core::option::Option::Some(#p::Spot::#pattern) => #fail,));
    };
    for (k, f) in cx.gpu.iter().enumerate() {
        let k = usize_lit(k);
        arm(quote!(Type(#k)), span_range(f.ty));
        if let Some(lit) = &f.attrs.format {
            arm(quote!(Format(#k)), span_range(lit));
        }
        if let Some((_, lit)) = &f.attrs.offset {
            arm(quote!(Offset(#k)), span_range(lit));
        }
        if let Some((lit, _)) = &f.attrs.wgsl {
            arm(quote!(Wgsl(#k)), span_range(lit));
        }
        if let Some((_, lit)) = &f.attrs.align {
            arm(quote!(Align(#k)), span_range(lit));
        }
        if let Some((_, lit)) = &f.attrs.size {
            arm(quote!(Size(#k)), span_range(lit));
        }
    }
    if let Some((_, lit)) = &input.attrs.stride {
        arm(quote!(Stride), span_range(lit));
    }
    if let Some(zero_copy) = &input.attrs.zero_copy {
        let msg = zero_copy_message.unwrap_or(&msg);
        let mut arm = |pattern: TokenStream, range: (Span, Span)| {
            let fail = fail_at(p, msg, range);
            arms.push(quote!(::core::option::Option::Some(#p::Spot::#pattern) => #fail,));
        };
        for (j, f) in input.fields.iter().enumerate() {
            let j = usize_lit(j);
            arm(quote!(ZeroCopyField(#j)), span_range(f.ident));
        }
        arm(quote!(ZeroCopyEnd), span_range(zero_copy));
    }
    quote! {
        const _: () = match #p::problem_spot(&#analysis) {
            ::core::option::Option::None => {}
            #(#arms)*
            ::core::option::Option::Some(_) => #p::fail(#msg),
        };
    }
}

/// The eager check of a struct the macro checks itself: `const`-true unless a nested type
/// cannot be a member, then the analysis's problem at its field (nothing without nested types).
fn lazy_check(cx: &Context<'_, '_>, leaves: &Leaves<'_>) -> TokenStream {
    if leaves.nested.is_empty() {
        return TokenStream::new();
    }
    let Context { input, p, n, .. } = cx;
    let ident = input.ident;
    let msg = quote!(#p::lazy_message::<#ident, #n>());
    let conds = leaves.nested.iter().map(|term| {
        let ty = term.ty;
        quote!(<#ty as #p::GpuType>::NESTS)
    });
    let mut seen = Vec::new();
    let arms = leaves.nested.iter().filter_map(|term| {
        let k = term.field;
        if seen.contains(&k) {
            return None;
        }
        seen.push(k);
        let fail = fail_with_at(p, &msg, span_range(cx.gpu[k].ty));
        let k = usize_lit(k);
        Some(quote!(::core::option::Option::Some(#p::Spot::Type(#k)) => #fail,))
    });
    quote! {
        const _: () = if #(#conds)&&* {
        } else {
            match #p::lazy_spot::<#ident, #n>() {
                ::core::option::Option::None => {}
                #(#arms)*
                ::core::option::Option::Some(_) => #p::fail_with(#msg),
            }
        };
    }
}

/// For structs with `#[gpu(padding)]` fields: a `const` requiring each padding type to be plain
/// data, reported at the type.
pub(super) fn padding_check(cx: &Context<'_, '_>) -> TokenStream {
    let p = &cx.p;
    let asserts: Vec<TokenStream> = cx
        .input
        .fields
        .iter()
        .filter(|f| !f.is_gpu())
        .map(|f| {
            let ty = f.ty;
            let (first, _) = span_range(ty);
            quote_spanned!(first=> #p::assert_padding::<#ty>();)
        })
        .collect();
    if asserts.is_empty() {
        return TokenStream::new();
    }
    quote!(const _: () = { #(#asserts)* };)
}
