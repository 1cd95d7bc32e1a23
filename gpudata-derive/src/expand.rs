//! Code generation for a checked [`Input`]: a `Facts` constant describing the struct, the
//! `GpuStruct` impl whose consts call the runtime's `const fn` layout engine, compile-time
//! checks spanned at the user's tokens, and the field marker types.

use proc_macro2::{Delimiter, Group, Literal, Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::{Ident, Type};

use crate::fallback;
use crate::internals::ast::{Field, Input};
use crate::internals::attr::{LayoutKind, StepModeKind};
use crate::internals::check;
use crate::internals::ctxt::Ctxt;
use crate::markers::marker_module;

/// The whole derive: parse, check, then expand or report every error with a fallback impl.
pub(crate) fn derive(input: &syn::DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let model = Input::from_ast(&cx, input);
    let mut shader = None;
    if let Some(model) = &model {
        check::check(&cx, model);
        shader = crate::shader::read(&cx, model);
    }
    match (cx.check(), model) {
        (Ok(()), Some(model)) => expand(&model, shader.as_ref()),
        (Ok(()), None) => TokenStream::new(),
        (Err(err), model) => {
            let mut out = err.to_compile_error();
            if let Some(model) = model {
                out.extend(fallback::fallback(&model));
            }
            out
        }
    }
}

/// The first and last token spans of `tokens`, so a generated expression covers all of them.
pub(crate) fn span_range(tokens: &impl ToTokens) -> (Span, Span) {
    let mut iter = tokens.to_token_stream().into_iter();
    let first = iter.next().map_or_else(Span::call_site, |t| t.span());
    let last = iter.last().map_or(first, |t| t.span());
    (first, last)
}

/// `gpudata::__private::fail(msg)` spanned over `range`: `fail` is `#[track_caller]`, so rustc
/// reports a failed `const` at this call, on the user's token.
pub(crate) fn fail_at(p: &TokenStream, msg: &Ident, (first, last): (Span, Span)) -> TokenStream {
    let path = respan(quote!(#p::fail), first);
    let mut args = Group::new(Delimiter::Parenthesis, quote_spanned!(last=> #msg));
    args.set_span(last);
    quote!(#path #args)
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
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

/// A type as a user would write it, for messages: `[u8 ; 4]` → `[u8; 4]`.
fn type_string(ty: &Type) -> String {
    let raw = ty.to_token_stream().to_string();
    let mut out = raw;
    for (from, to) in [
        (" ;", ";"),
        ("[ ", "["),
        (" ]", "]"),
        (" :: ", "::"),
        (":: ", "::"),
        (" < ", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        ("& ", "&"),
        ("( ", "("),
        (" )", ")"),
    ] {
        out = out.replace(from, to);
    }
    out
}

fn usize_lit(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

fn option_tokens(value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

/// An array of options: `[None; N]` when every entry is `None` (the common case, and less to
/// compile), else the entries.
fn option_array(values: Vec<Option<TokenStream>>) -> TokenStream {
    if values.iter().all(Option::is_none) {
        let n = usize_lit(values.len());
        return quote!([::core::option::Option::None; #n]);
    }
    let values = values.into_iter().map(option_tokens);
    quote!([#(#values),*])
}

/// The expansion of a struct that passed every macro-side check.
///
/// The output is kept small because it is compiled once per struct: one `Facts` constant, one
/// `analyze` call (the runtime's `const fn` layout engine and every check), one `const` that
/// reports the first problem at the user's token, the `GpuStruct` impl reading the analysis,
/// and one impl per field marker.
fn expand(input: &Input<'_>, shader: Option<&crate::shader::ShaderFacts>) -> TokenStream {
    let krate = &input.attrs.krate;
    let p = quote!(#krate::__private);
    let ident = input.ident;
    let gpu: Vec<&Field<'_>> = input.gpu_fields().collect();
    let n = usize_lit(gpu.len());
    let layout = match input.attrs.layout {
        LayoutKind::WgslStorage => quote!(#p::StructLayout::WgslStorage),
        LayoutKind::Packed => quote!(#p::StructLayout::Packed),
    };
    let step_mode = match input.attrs.step_mode {
        StepModeKind::Vertex => quote!(#p::StepMode::Vertex),
        StepModeKind::Instance => quote!(#p::StepMode::Instance),
    };
    let location = Literal::u32_suffixed(input.attrs.location.as_ref().map_or(0, |(n, _)| *n));
    let zero_copy = input.attrs.zero_copy.is_some();
    let analysis = quote!(<#ident as #p::Analyzed<#n>>::ANALYSIS);

    let indices: Vec<Literal> = (0..gpu.len()).map(usize_lit).collect();
    let names: Vec<String> = gpu.iter().map(|f| f.gpu_name()).collect();
    let members: Vec<&Ident> = gpu.iter().map(|f| f.ident).collect();
    let type_names: Vec<String> = gpu.iter().map(|f| type_string(f.ty)).collect();
    let sizes = gpu.iter().map(|f| {
        let ty = f.ty;
        let (first, _) = span_range(ty);
        quote_spanned!(first=> ::core::mem::size_of::<#ty>())
    });
    let requested = option_array(
        gpu.iter()
            .map(|f| f.attrs.format.as_ref().map(ToTokens::to_token_stream))
            .collect(),
    );
    let formats = gpu.iter().map(|f| {
        let ty = f.ty;
        let (first, _) = span_range(ty);
        let from_type = quote_spanned!(first=> <#ty as #p::GpuField>::FORMAT);
        match &f.attrs.format {
            Some(lit) => quote!(#p::format_or(#p::VertexFormat::from_name(#lit), #from_type)),
            None => from_type,
        }
    });
    let declared_offsets = option_array(
        gpu.iter()
            .map(|f| {
                f.attrs
                    .offset
                    .as_ref()
                    .map(|(n, _)| Literal::u64_suffixed(*n).into_token_stream())
            })
            .collect(),
    );
    let declared_stride = option_tokens(
        input
            .attrs
            .stride
            .as_ref()
            .map(|(n, _)| Literal::u64_suffixed(*n).into_token_stream()),
    );
    // The host layout is checked eagerly only under `zero_copy`; otherwise
    // `HOST_LAYOUT_MATCHES` computes it on first use.
    let (host_for_analysis, m) = if zero_copy {
        let (host, m) = host_facts(input, &p);
        (quote!(::core::option::Option::Some(#host)), m)
    } else {
        (quote!(::core::option::Option::None), usize_lit(0))
    };
    let host_matches = if !input.attrs.repr_c {
        quote!(false)
    } else if zero_copy {
        quote!(#analysis.host_matches)
    } else {
        let pad_sizes = input.fields.iter().filter(|f| !f.is_gpu()).map(|f| {
            let ty = f.ty;
            quote!(+ ::core::mem::size_of::<#ty>())
        });
        quote! {
            #p::host_matches(
                &#analysis,
                <Self as #p::GpuStruct>::FIELD_COPIES,
                ::core::mem::size_of::<Self>(),
                0 #(#pad_sizes)*,
            )
        }
    };

    // The analysis lives in an associated const (evaluated on first use). A `const` that reads it
    // for every struct, reporting problems at the user's tokens, is emitted unless every field is
    // a plain scalar or array of scalars with nothing asserted: no problem can arise there
    // (shadowed scalar names aside, which the analysis then reports where it is first used).
    let eager = needs_eager_check(input);
    let checks = if eager {
        problem_arms(input, &gpu, &p, &analysis)
    } else {
        TokenStream::new()
    };
    let analyze = {
        let span = input.ident.span();
        respan(quote!(#p::analyze), span)
    };

    let padding_check = padding_check(input, &p);
    let attributes = attributes_const(
        &gpu,
        &p,
        &analysis,
        &location,
        input.attrs.layout == LayoutKind::WgslStorage,
    );

    let module = input.fields_mod();
    let marker_impls = gpu.iter().zip(&indices).map(|(f, k)| {
        let ty = f.ty;
        let marker = f.marker();
        // The bound holds exactly when the field type is a `GpuField`; the `for<'_>` binder keeps
        // an unsatisfied one from being an error here (the `FORMAT` lookup reports it, once).
        let bound = quote!(where for<'__gpudata> #ty: #p::GpuField);
        quote! {
            #[automatically_derived]
            impl #p::GpuFieldMarker for #module::#marker #bound {
                type Struct = #ident;
                type Value = #ty;
                const INDEX: ::core::primitive::usize = #k;
            }
            #[automatically_derived]
            impl #p::GpuFieldOf<#ident> for #module::#marker #bound {}
        }
    });
    let markers = marker_module(input);
    let shader_checks = shader.map(|facts| crate::shader::expand(facts, input, &p, &analysis));

    quote! {
        #markers

        #[doc(hidden)]
        const _: () = {
            #[automatically_derived]
            impl #p::Analyzed<#n> for #ident {
                const ANALYSIS: #p::Analysis<#n> = #analyze(&#p::Facts::<#n, #m> {
                    layout: #layout,
                    names: [#(#names),*],
                    types: [#(#type_names),*],
                    sizes: [#(#sizes),*],
                    requested: #requested,
                    formats: [#(#formats),*],
                    declared_offsets: #declared_offsets,
                    declared_stride: #declared_stride,
                    host: #host_for_analysis,
                    zero_copy: #zero_copy,
                    reported_by_caller: #eager,
                });
            }
            #checks
            #padding_check
            #shader_checks

            #[automatically_derived]
            unsafe impl #p::GpuStruct for #ident {
                const FORMAT: &'static #p::GpuDataStructFormat = {
                    const FIELDS: &[#p::GpuDataStructField] = &#p::struct_fields(&#analysis);
                    &#p::GpuDataStructFormat::from_static(#layout, FIELDS, #analysis.layout.shape)
                };
                const STEP_MODE: #p::StepMode = #step_mode;
                const ATTRIBUTES: &'static [#p::wgpu::VertexAttribute] = #attributes;
                const HOST_LAYOUT_MATCHES: ::core::primitive::bool = #host_matches;
                const FIELD_COPIES: &'static [#p::FieldCopy] = &#p::row_copies(
                    &#analysis,
                    [#(::core::mem::offset_of!(#ident, #members)),*],
                );
            }

            #(#marker_impls)*
        };
    }
}

/// For structs with `#[gpu(padding)]` fields: a `const` requiring each padding type to be plain
/// data, reported at the type.
fn padding_check(input: &Input<'_>, p: &TokenStream) -> TokenStream {
    let asserts: Vec<TokenStream> = input
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

/// Whether `ty` is a scalar (`f32`, `u32`, `i32`, `u16`, `i16`, `u8`, `i8`) or an array of 2 to
/// 4 of them, so that its format is known without evaluating anything; with `webgl == false`,
/// three 8- or 16-bit scalars (a `-webgl` format) do not count.
fn plain_type(ty: &Type, webgl: bool) -> bool {
    fn scalar(ty: &Type) -> Option<&'static str> {
        let Type::Path(path) = ty else { return None };
        if path.qself.is_some() || path.path.leading_colon.is_some() {
            return None;
        }
        let ident = path.path.get_ident()?;
        ["f32", "u32", "i32", "u16", "i16", "u8", "i8"]
            .into_iter()
            .find(|name| ident == name)
    }
    match ty {
        Type::Array(array) => {
            let Some(elem) = scalar(&array.elem) else {
                return false;
            };
            let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(len),
                ..
            }) = &array.len
            else {
                return false;
            };
            match len.base10_parse::<usize>() {
                Ok(2 | 4) => true,
                Ok(3) => webgl || !["u8", "i8", "u16", "i16"].contains(&elem),
                _ => false,
            }
        }
        other => scalar(other).is_some(),
    }
}

/// Whether field `f` may have a `-webgl` format: a format string naming one, or, with no format
/// string, a type other than a plain WebGPU one (see [`plain_type`]).
fn maybe_webgl(f: &Field<'_>) -> bool {
    match &f.attrs.format {
        Some(lit) => lit.value().ends_with("-webgl"),
        None => !plain_type(f.ty, false),
    }
}

/// Whether problems must be looked for eagerly: anything asserted, any format string, any type
/// other than a scalar or an array of 2 to 4 scalars, or a three-element 8/16-bit array in the
/// packed layout (a WebGL-only format, which packed refuses).
fn needs_eager_check(input: &Input<'_>) -> bool {
    let packed = input.attrs.layout == LayoutKind::Packed;
    input.attrs.zero_copy.is_some()
        || input.attrs.stride.is_some()
        || input.gpu_fields().any(|f| {
            f.attrs.format.is_some() || f.attrs.offset.is_some() || !plain_type(f.ty, !packed)
        })
}

/// `GpuStruct::ATTRIBUTES`: the analysis's vertex attributes, or (for a struct with a `-webgl`
/// field, when the constant is first used) a compile error spanned at that field. Only fields
/// that may be `-webgl` get an arm of their own.
fn attributes_const(
    gpu: &[&Field<'_>],
    p: &TokenStream,
    analysis: &TokenStream,
    location: &Literal,
    storage: bool,
) -> TokenStream {
    let msg = format_ident!("__gpudata_msg");
    let arms = gpu
        .iter()
        .enumerate()
        .filter(|(_, f)| storage && maybe_webgl(f))
        .map(|(k, f)| {
            let range = match &f.attrs.format {
                Some(lit) => span_range(lit),
                None => span_range(f.ty),
            };
            let fail = fail_at(p, &msg, range);
            let k = usize_lit(k);
            quote!(#k => #fail,)
        });
    quote! {
        &match #p::vertex_attributes(&#analysis, #location) {
            ::core::result::Result::Ok(__gpudata_list) => __gpudata_list,
            ::core::result::Result::Err(__gpudata_k) => {
                let #msg = &#p::no_vertex_layout(&#analysis, __gpudata_k);
                match __gpudata_k {
                    #(#arms)*
                    _ => #p::fail(#msg),
                }
            }
        }
    }
}

/// The one `const` that fails the build with the analysis's first problem, spanned at the token
/// it is about: one match arm per place a problem can be reported. (The analysis itself does not
/// fail then, so the items reading it add no notes to the error.)
fn problem_arms(
    input: &Input<'_>,
    gpu: &[&Field<'_>],
    p: &TokenStream,
    analysis: &TokenStream,
) -> TokenStream {
    let msg = format_ident!("__gpudata_msg");
    let mut arms = Vec::new();
    let mut arm = |pattern: TokenStream, range: (Span, Span)| {
        let fail = fail_at(p, &msg, range);
        arms.push(quote!(#p::Spot::#pattern => #fail,));
    };
    for (k, f) in gpu.iter().enumerate() {
        let k = usize_lit(k);
        arm(quote!(Type(#k)), span_range(f.ty));
        if let Some(lit) = &f.attrs.format {
            arm(quote!(Format(#k)), span_range(lit));
        }
        if let Some((_, lit)) = &f.attrs.offset {
            arm(quote!(Offset(#k)), span_range(lit));
        }
    }
    if let Some((_, lit)) = &input.attrs.stride {
        arm(quote!(Stride), span_range(lit));
    }
    if let Some(zero_copy) = &input.attrs.zero_copy {
        for (j, f) in input.fields.iter().enumerate() {
            let j = usize_lit(j);
            arm(quote!(ZeroCopyField(#j)), span_range(f.ident));
        }
        arm(quote!(ZeroCopyEnd), span_range(zero_copy));
    }
    quote! {
        const _: () = if let ::core::option::Option::Some((__gpudata_spot, #msg)) = &#analysis.problem {
            match __gpudata_spot {
                #(#arms)*
                _ => #p::fail(#msg),
            }
        };
    }
}

/// `HostFacts { .. }` (fields with `offset_of!`, the struct's size) and the host field count.
fn host_facts(input: &Input<'_>, p: &TokenStream) -> (TokenStream, Literal) {
    let ident = input.ident;
    let mut gpu_index = 0usize;
    let fields: Vec<TokenStream> = input
        .fields
        .iter()
        .map(|f| {
            let name = f.ident.unraw().to_string();
            let member = f.ident;
            let ty = f.ty;
            let index = if f.is_gpu() {
                let k = usize_lit(gpu_index);
                gpu_index += 1;
                quote!(::core::option::Option::Some(#k))
            } else {
                quote!(::core::option::Option::None)
            };
            quote! {
                #p::HostField {
                    name: #name,
                    offset: ::core::mem::offset_of!(#ident, #member),
                    size: ::core::mem::size_of::<#ty>(),
                    gpu_index: #index,
                    gpu_offset: ::core::option::Option::None,
                }
            }
        })
        .collect();
    let m = usize_lit(fields.len());
    let host = quote! {
        #p::HostFacts {
            fields: [#(#fields),*],
            size: ::core::mem::size_of::<#ident>(),
        }
    };
    (host, m)
}
