//! Error accumulation: every phase records problems here instead of returning early, so one
//! build reports every mistake of a struct. As serde_derive's `Ctxt`, it must be
//! [`check`](Ctxt::check)ed: dropping it with its errors unread panics.

use std::cell::{Cell, RefCell};
use std::fmt::Display;
use std::thread;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// Collects the errors of one derive invocation.
///
/// Most errors block the expansion (the derive then emits its fallback). Errors recorded inside
/// [`not_blocking`](Ctxt::not_blocking) (the shader check's name-level ones) leave the struct
/// valid: it expands with them, so both kinds of error come in one build.
pub(crate) struct Ctxt {
    /// `(error, blocks the expansion)`, in the order recorded; `None` once checked.
    errors: RefCell<Option<Vec<(syn::Error, bool)>>>,
    /// Whether errors recorded now block the expansion.
    blocking: Cell<bool>,
}

impl Ctxt {
    /// An empty collector.
    pub(crate) fn new() -> Ctxt {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
            blocking: Cell::new(true),
        }
    }

    /// Records `msg` spanned at the tokens of `obj`.
    pub(crate) fn error_spanned_by<A: ToTokens, T: Display>(&self, obj: A, msg: T) {
        self.syn_error(syn::Error::new_spanned(obj.into_token_stream(), msg));
    }

    /// Records `msg` at `span`.
    pub(crate) fn error_at<T: Display>(&self, span: Span, msg: T) {
        self.syn_error(syn::Error::new(span, msg));
    }

    /// Records an error from syn's parsers.
    pub(crate) fn syn_error(&self, err: syn::Error) {
        // `check` takes the errors by value: none can come after it.
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push((err, self.blocking.get()));
        }
    }

    /// Runs `f`, recording its errors as not blocking the expansion.
    pub(crate) fn not_blocking<R>(&self, f: impl FnOnce() -> R) -> R {
        let before = self.blocking.replace(false);
        let out = f();
        self.blocking.set(before);
        out
    }

    /// Whether an error recorded so far blocks the expansion.
    pub(crate) fn blocks(&self) -> bool {
        self.errors
            .borrow()
            .as_ref()
            .is_some_and(|errors| errors.iter().any(|(_, blocks)| *blocks))
    }

    /// Every recorded error, or `Ok` when there are none.
    pub(crate) fn check(self) -> Result<(), Errors> {
        let errors = self.errors.borrow_mut().take().unwrap_or_default();
        if errors.is_empty() {
            return Ok(());
        }
        let (blocking, not_blocking) = errors.into_iter().partition(|(_, blocks)| *blocks);
        Err(Errors {
            blocking: combine(blocking),
            not_blocking: combine(not_blocking),
        })
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !thread::panicking() && self.errors.borrow().is_some() {
            panic!("a derive's errors were dropped without `Ctxt::check`");
        }
    }
}

/// The errors of one derive: the `compile_error!`s around its output.
pub(crate) struct Errors {
    blocking: Option<syn::Error>,
    not_blocking: Option<syn::Error>,
}

impl Errors {
    /// `output` (the expansion, or the fallback when an error blocks it) between the blocking
    /// errors and the others.
    pub(crate) fn around(self, output: TokenStream) -> TokenStream {
        let mut out = self
            .blocking
            .map_or_else(TokenStream::new, |err| err.to_compile_error());
        out.extend(output);
        if let Some(err) = self.not_blocking {
            out.extend(err.to_compile_error());
        }
        out
    }
}

/// `errors` as one `syn::Error` (`None` when empty).
fn combine(errors: Vec<(syn::Error, bool)>) -> Option<syn::Error> {
    errors
        .into_iter()
        .map(|(err, _)| err)
        .reduce(|mut all, err| {
            all.combine(err);
            all
        })
}
