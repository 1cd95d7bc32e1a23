//! Spans for generated code: a `const` failure reported at the user's tokens.

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream};
use quote::{ToTokens, quote};

/// The first and last token spans of `tokens`, so a generated expression covers all of them.
pub(crate) fn span_range(tokens: &impl ToTokens) -> (Span, Span) {
    let mut iter = tokens.to_token_stream().into_iter();
    let first = iter.next().map_or_else(Span::call_site, |t| t.span());
    let last = iter.last().map_or(first, |t| t.span());
    (first, last)
}

/// `gpudata::__private::fail(msg)` spanned over `range`: `fail` is `#[track_caller]`, so rustc
/// reports a failed `const` at this call, on the user's token. `msg` is an expression of type
/// `&Msg`; the expansion's own messages bind nothing (a binding could be turned into a pattern by
/// a user's constant).
pub(crate) fn fail_at(p: &Ident, msg: &impl ToTokens, range: (Span, Span)) -> TokenStream {
    call_at(quote!(#p::fail), msg, range)
}

/// `gpudata::__private::fail_with(msg)` spanned over `range`, `msg` an expression of type `Msg`
/// (by value: a `&call()` would be a promoted constant, which rustc evaluates with the item).
pub(crate) fn fail_with_at(p: &Ident, msg: &impl ToTokens, range: (Span, Span)) -> TokenStream {
    call_at(quote!(#p::fail_with), msg, range)
}

/// `gpudata::__private::fail_if(problem)` spanned over `range`, `problem` an expression of type
/// `&Option<Msg>`: fails there when it is `Some`, binding nothing.
#[cfg_attr(
    not(feature = "naga"),
    allow(dead_code, reason = "the shader check's, feature `naga`")
)]
pub(crate) fn fail_if_at(p: &Ident, problem: &impl ToTokens, range: (Span, Span)) -> TokenStream {
    call_at(quote!(#p::fail_if), problem, range)
}

/// `function(args)`, the path spanned at `first` and the parentheses at `last`.
fn call_at(
    function: TokenStream,
    args: &impl ToTokens,
    (first, last): (Span, Span),
) -> TokenStream {
    let path = respan(function, first);
    let mut args = Group::new(Delimiter::Parenthesis, args.to_token_stream());
    args.set_span(last);
    quote!(#path #args)
}

/// `tokens` with every span set to `span`.
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let proc_macro2::TokenTree::Group(group) = &token {
                let mut inner = Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = proc_macro2::TokenTree::Group(inner);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}
