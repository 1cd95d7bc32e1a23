//! The values of `#[gpu(...)]` keys: a string, an unsigned integer, a flag, or anything skipped.
//! Readers record errors in the [`Ctxt`] and return what they could read.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::{Expr, ExprLit, Lit, LitInt, LitStr, Token};

use super::ctxt::Ctxt;
use super::symbol::Symbol;

/// Consumes `= value` or `(...)` after a key, whatever it is.
pub(crate) fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.input.parse::<Token![=]>()?;
        meta.input.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<TokenStream>()?;
    }
    Ok(())
}

/// The expression after `key =`, or `None` (reported) when the key has no value.
fn value(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    key: Symbol,
    example: &str,
) -> syn::Result<Option<Expr>> {
    if meta.input.peek(Token![=]) {
        meta.input.parse::<Token![=]>()?;
        return Ok(Some(meta.input.parse::<Expr>()?));
    }
    cx.error_spanned_by(
        &meta.path,
        format_args!("`{key}` needs a value; write `{example}`"),
    );
    skip_value(meta)?;
    Ok(None)
}

/// A string literal value.
pub(crate) fn string_value(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    key: Symbol,
    example: &str,
) -> syn::Result<Option<LitStr>> {
    Ok(value(cx, meta, key, example)?.and_then(|expr| match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s),
        other => {
            cx.error_spanned_by(
                other,
                format_args!("`{key}` expects a string; write `{example}`"),
            );
            None
        }
    }))
}

/// An unsigned integer literal value.
pub(crate) fn int_value<N>(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    key: Symbol,
    example: &str,
) -> syn::Result<Option<(N, LitInt)>>
where
    N: std::str::FromStr,
    N::Err: std::fmt::Display,
{
    Ok(value(cx, meta, key, example)?.and_then(|expr| match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => match i.base10_parse::<N>() {
            Ok(n) => Some((n, i)),
            Err(_) => {
                cx.error_spanned_by(
                    &i,
                    format_args!(
                        "`{key}` expects an unsigned integer that fits in {}; write `{example}`",
                        std::any::type_name::<N>()
                    ),
                );
                None
            }
        },
        other => {
            cx.error_spanned_by(
                other,
                format_args!("`{key}` expects an unsigned integer; write `{example}`"),
            );
            None
        }
    }))
}

/// A key without a value: `true` when well formed; a value given anyway is reported and skipped
/// (and the flag left unset, so the mistake does not cascade).
pub(crate) fn flag(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: Symbol) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        cx.error_spanned_by(
            &meta.path,
            format_args!("`{key}` takes no value; write `#[gpu({key})]`"),
        );
        skip_value(meta)?;
        return Ok(false);
    }
    Ok(true)
}
