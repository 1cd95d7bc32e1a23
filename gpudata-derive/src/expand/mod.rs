//! Code generation for a checked [`Input`], one module per output: the `Analyzed` impl with the
//! `Facts` describing the struct ([`facts`]), the compile-time checks spanned at the user's
//! tokens ([`checks`]), the trait impls reading the analysis ([`impls`]), the field markers
//! ([`markers`]), and, for a struct that failed, the [`fallback`]. How a struct is expanded is
//! decided once, by its [`Strategy`](crate::internals::classify::Strategy).

mod checks;
mod context;
mod facts;
mod fallback;
mod impls;
mod markers;
mod tokens;
mod uniform;

use proc_macro2::TokenStream;
use quote::quote;

use self::context::Context;
use crate::internals::ast::Input;
use crate::internals::check;
use crate::internals::ctxt::Ctxt;
use crate::shader::{self, ShaderFacts};

/// The whole derive: parse, check, then expand or report every error with a fallback impl.
pub(crate) fn derive(input: &syn::DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let model = Input::from_ast(&cx, input);
    let mut shader = None;
    if let Some(model) = &model {
        check::check(&cx, model);
        // The shader check's name-level errors (a field without a member, a binding that
        // differs) leave the struct itself valid: it expands, with the `const` assertions of
        // everything the names matched, so both kinds of error come in one build.
        shader = cx.not_blocking(|| shader::read(&cx, model));
    }
    let out = match &model {
        Some(model) if !cx.blocks() => expand(model, shader.as_ref()),
        Some(model) => fallback::fallback(model),
        None => TokenStream::new(),
    };
    match cx.check() {
        Ok(()) => out,
        Err(errors) => errors.around(out),
    }
}

/// The expansion of a struct that passed every macro-side check.
///
/// The output is kept small because it is compiled once per struct: one `Facts` constant, one
/// `analyze` call (the runtime's `const fn` layout engine and every check), one `const` that
/// reports the first problem at the user's token, the `GpuStruct` impl reading the analysis,
/// and one impl per field marker.
fn expand(input: &Input<'_>, shader: Option<&ShaderFacts>) -> TokenStream {
    let cx = Context::new(input);
    let krate = &input.attrs.krate;
    let p = &cx.p;
    let analyzed = facts::analyzed_impl(&cx);
    let zero_copy_message =
        shader.and_then(|facts| shader::zero_copy_message(facts, p, &cx.analysis));
    let problem_check = checks::problem_check(&cx, zero_copy_message.as_ref());
    let padding_check = checks::padding_check(&cx);
    let shader_checks = shader.map(|facts| shader::expand(facts, input, p, &cx.analysis));
    let wgsl_impls = impls::wgsl_impls(&cx);
    // A struct with a runtime-sized tail is a header plus elements, not a row: no `GpuStruct`
    // impl and no field markers, a `GpuRuntimeStruct` impl instead.
    let (markers, value_impl, marker_impls) = match input.tail() {
        Some(tail) => (
            TokenStream::new(),
            impls::runtime_impl(&cx, tail),
            TokenStream::new(),
        ),
        None => (
            markers::marker_module(input),
            impls::gpu_struct_impl(&cx, shader.map(|facts| shader::vertex_entries(facts, p))),
            markers::marker_impls(&cx),
        ),
    };
    quote! {
        #markers

        #[doc(hidden)]
        const _: () = {
            use #krate::__private as #p;
            #analyzed
            #problem_check
            #padding_check
            #shader_checks

            #wgsl_impls

            #value_impl

            #marker_impls
        };
    }
}
