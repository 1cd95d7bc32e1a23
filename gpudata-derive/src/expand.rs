//! Code generation for a checked [`Input`]: a `Facts` constant describing the struct, the
//! `GpuStruct` impl whose consts call the runtime's `const fn` layout engine, compile-time
//! checks spanned at the user's tokens, and the field marker types.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::{Ident, Type};

use crate::fallback;
use crate::internals::ast::{Field, Input, is_scalar, runtime_element};
use crate::internals::attr::{LayoutKind, StepModeKind};
use crate::internals::check;
use crate::internals::ctxt::Ctxt;
use crate::internals::wgsl_type::{LeafKind, WgslTy};
use crate::markers::marker_module;
use crate::spans::{fail_at, fail_with_at, respan, span_range};

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
        shader = cx.not_blocking(|| crate::shader::read(&cx, model));
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
    // Every generated item but the marker module lies in one `const _` block that imports
    // `__private` under this short name: its paths are a third of the tokens of
    // `::gpudata::__private::Name` for the proc-macro bridge, the parser and name resolution,
    // and an `Ident` is appended where it is interpolated (a `TokenStream` would first flush the
    // tokens buffered so far across the bridge).
    let p = Ident::new("__gpudata_private", Span::call_site());
    let ident = input.ident;
    let gpu: Vec<&Field<'_>> = input.gpu_fields().collect();
    let n = usize_lit(gpu.len());
    let layout = match input.attrs.layout {
        LayoutKind::WgslStorage => quote!(#p::StructLayout::WgslStorage),
        LayoutKind::WgslUniform => quote!(#p::StructLayout::WgslUniform),
        LayoutKind::Packed => quote!(#p::StructLayout::Packed),
    };
    let space = match input.attrs.layout {
        LayoutKind::WgslUniform => quote!(#p::AddressSpace::Uniform),
        _ => quote!(#p::AddressSpace::Storage),
    };
    let packed = input.attrs.layout == LayoutKind::Packed;
    // The general path flattens nested types into leaves, laid out by WGSL's memory model (or,
    // in a packed struct, each leaf by the vertex rules); the flat path (structs of plain scalar
    // fields) keeps the flat engine, which gives the same offsets for those and costs less to
    // compile.
    let general = needs_general_path(input);
    // `GpuStruct::STEP_MODE` defaults to `Vertex`.
    let step_mode = match input.attrs.step_mode {
        StepModeKind::Vertex => TokenStream::new(),
        StepModeKind::Instance => quote!(const STEP_MODE: #p::StepMode = #p::StepMode::Instance;),
    };
    let location = Literal::u32_suffixed(input.attrs.location.as_ref().map_or(0, |(n, _)| *n));
    let zero_copy = input.attrs.zero_copy.is_some();
    let analysis = quote!(<#ident as #p::Analyzed<#n>>::ANALYSIS);

    let indices: Vec<Literal> = (0..gpu.len()).map(usize_lit).collect();
    let names: Vec<String> = gpu.iter().map(|f| f.gpu_name()).collect();
    let members: Vec<&Ident> = gpu.iter().map(|f| f.ident).collect();
    let type_names: Vec<String> = gpu.iter().map(|f| type_string(f.ty)).collect();
    let sizes = if general || !packed {
        quote!([0; #n])
    } else {
        let sizes = gpu.iter().map(|f| {
            let ty = f.ty;
            let (first, _) = span_range(ty);
            quote_spanned!(first=> ::core::mem::size_of::<#ty>())
        });
        quote!([#(#sizes),*])
    };
    let requested_tokens: Vec<Option<TokenStream>> = gpu
        .iter()
        .map(|f| f.attrs.format.as_ref().map(ToTokens::to_token_stream))
        .collect();
    let requested = option_array(requested_tokens.clone());
    let formats = if general || !packed {
        quote!([#p::VertexFormat::Float32; #n])
    } else {
        let formats = gpu.iter().map(|f| {
            let ty = f.ty;
            let (first, _) = span_range(ty);
            let from_type = quote_spanned!(first=> <#ty as #p::GpuField>::FORMAT);
            match &f.attrs.format {
                Some(lit) => {
                    quote!(#p::format_or(#p::VertexFormat::from_name(#lit), #from_type))
                }
                None => from_type,
            }
        });
        quote!([#(#formats),*])
    };
    let requested_opts: Vec<TokenStream> = requested_tokens
        .iter()
        .map(|r| option_tokens(r.clone()))
        .collect();
    // On the general path the sizes, formats, host shapes and tree flags are read from the
    // struct's `Described` and `Flattened` impls by `tree_facts` (written once, there).
    let tree_facts = if general {
        let wgsl = gpu.iter().map(|f| f.attrs.wgsl.is_some());
        quote! {
            structure: ::core::option::Option::None,
            hosts: [#p::HostShape::Packed; #n],
            tree: [false; #n],
            wgsl: [#(#wgsl),*],
            tail: false,
        }
    } else {
        quote! {
            structure: ::core::option::Option::None,
            hosts: [#p::HostShape::Packed; #n],
            tree: [false; #n],
            wgsl: [false; #n],
            tail: false,
        }
    };
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
    let pad_total = {
        let pads = input.fields.iter().filter(|f| !f.is_gpu()).map(|f| {
            let ty = f.ty;
            quote!(+ ::core::mem::size_of::<#ty>())
        });
        quote!(0 #(#pads)*)
    };
    // `Analyzed::PADDING` defaults to 0 (no `#[gpu(padding)]` field).
    let padding_item = if input.fields.iter().all(Field::is_gpu) {
        TokenStream::new()
    } else {
        quote!(const PADDING: ::core::primitive::usize = #pad_total;)
    };
    // Every constant below is a call of a generic `const fn` of `__private` naming no constant
    // itself, so rustc computes nothing for a struct before it is used (see `Analyzed`).
    let host_matches = if !input.attrs.repr_c {
        quote!(false)
    } else if zero_copy {
        quote!(#p::analysis_host_matches::<Self, #n>())
    } else if general {
        quote!(#p::tree_host_matches::<Self, #n>())
    } else {
        quote!(#p::flat_host_matches::<Self, #n>())
    };

    // The analysis lives in an associated const (evaluated on first use). A `const` that reads it
    // for every struct, reporting problems at the user's tokens, is emitted unless every field is
    // a plain scalar or array of scalars with nothing asserted: no problem can arise there
    // (shadowed scalar names aside, which the analysis then reports where it is first used).
    // A struct the macro checks itself (see `lazy`) is analysed on first use; its one eager
    // check reads the nested types' `NESTS`.
    let lazy = if general {
        crate::lazy::lazy_facts(input, &p)
    } else {
        None
    };
    let eager = lazy.is_none() && (general || needs_eager_check(input));
    let checks = match &lazy {
        Some(lazy) => lazy_check(input, &p, lazy),
        None if eager => problem_arms(input, &gpu, &p, &analysis),
        None => TokenStream::new(),
    };
    let analyze = {
        let span = input.ident.span();
        respan(quote!(#p::analyze), span)
    };

    let padding_check = padding_check(input, &p);
    let attributes = if general {
        leaf_attributes_const(&gpu, &p)
    } else {
        attributes_const(&gpu, &p, &n, &location, !packed)
    };

    let (format, fields, copies) = if general {
        (
            quote!(#p::tree_format::<Self>()),
            quote!(#p::tree_fields::<Self>()),
            quote!(#p::tree_copies::<Self>()),
        )
    } else {
        (
            quote!(#p::flat_format::<Self, #n>()),
            TokenStream::new(),
            quote!(#p::flat_copies::<Self, #n>()),
        )
    };
    // What a struct nesting this one reads eagerly (see `lazy`): its leaf count where the macro
    // knows it, and whether it can be a member (every derived struct that passed its own
    // checks can, but one ending in a runtime-sized array).
    let leaves = match (&lazy, general) {
        (Some(lazy), _) => Some(lazy.leaves.clone()),
        (None, false) => Some(n.to_token_stream()),
        (None, true) => None,
    };
    let wgsl_impls = if packed && !general {
        TokenStream::new()
    } else {
        wgsl_impls(
            input,
            &gpu,
            &p,
            &requested_opts,
            &pad_total,
            leaves.as_ref(),
        )
    };
    let flattened = if general {
        let total = match &lazy {
            Some(lazy) => lazy.leaves.clone(),
            None => quote!(#p::leaf_total(&<Self as #p::Analyzed<#n>>::ANALYSIS)),
        };
        flattened_impl(
            input,
            &gpu,
            &p,
            &requested_opts,
            &pad_total,
            &location,
            &total,
        )
    } else {
        TokenStream::new()
    };

    let module = input.fields_mod();
    let marker_impls = gpu.iter().zip(&indices).enumerate().map(|(j, (f, k))| {
        let ty = f.ty;
        let marker = f.marker();
        // A struct the macro checks itself states each field's first leaf; another general-path
        // struct reads it from its analysis, on first use.
        let first = lazy.as_ref().and_then(|lazy| lazy.firsts.get(j));
        let k = match first {
            _ if !general => k.to_token_stream(),
            Some(first) => first.clone(),
            None => quote!(#p::first_leaf_of::<#ident, #n>(#k)),
        };
        // The bound holds exactly when the field type is a `GpuField`; the `for<'_>` binder keeps
        // an unsatisfied one from being an error here (the `FORMAT` lookup reports it, once). A
        // plain scalar or vector type is one (and costs rustc nothing to prove without it).
        let bound = if plain_type(ty, true) {
            TokenStream::new()
        } else {
            quote!(where for<'__gpudata> #ty: #p::GpuField)
        };
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
    // The type tree the run-time shader check compares (`packed` structs have none).
    let tree = if packed {
        TokenStream::new()
    } else {
        quote! {
            const TREE: ::core::option::Option<(
                &'static #p::WgslStruct,
                &'static #p::HostShape,
            )> = #p::tree_of::<Self>();
        }
    };
    let shader_checks = shader.map(|facts| crate::shader::expand(facts, input, &p, &analysis));
    // What a uniform buffer requires of its type (a bound, so a struct of another layout is an
    // error at the user's call).
    let uniform = crate::uniform::uniform_impl(input, &p);
    // A struct with a runtime-sized tail is a header plus elements, not a row: no `GpuStruct`
    // impl and no field markers, a `GpuRuntimeStruct` impl instead.
    let (markers, marker_impls, value_impl) = match input.tail() {
        Some(tail) => (
            TokenStream::new(),
            Vec::new(),
            runtime_impl(input, tail, &p, &fields, &copies),
        ),
        None => (
            marker_module(input),
            marker_impls.collect(),
            quote! {
                #[automatically_derived]
                unsafe impl #p::GpuStruct for #ident {
                    const FORMAT: &'static #p::GpuDataStructFormat = #format;
                    #step_mode
                    const ATTRIBUTES: &'static [#p::wgpu::VertexAttribute] = #attributes;
                    const HOST_LAYOUT_MATCHES: ::core::primitive::bool = #host_matches;
                    const FIELD_COPIES: &'static [#p::FieldCopy] = #copies;
                    #tree
                }
                #uniform
            },
        ),
    };

    // The common case (no format string, nothing asserted, a host shape to read) in one call.
    let simple = !packed
        && !zero_copy
        && input.attrs.stride.is_none()
        && gpu
            .iter()
            .all(|f| f.attrs.format.is_none() && f.attrs.offset.is_none());
    let wgsl_flags = gpu.iter().map(|f| f.attrs.wgsl.is_some());
    let facts_literal = if simple {
        quote! {
            #p::Facts::<#n, 0>::named(
                #layout,
                #space,
                [#(#names),*],
                [#(#type_names),*],
                [#(#wgsl_flags),*],
                #eager,
            )
        }
    } else {
        quote! {
                #p::Facts::<#n, #m> {
                    layout: #layout,
                    names: [#(#names),*],
                    types: [#(#type_names),*],
                    sizes: #sizes,
                    requested: #requested,
                    formats: #formats,
                    declared_offsets: #declared_offsets,
                    declared_stride: #declared_stride,
                    space: #space,
                    #tree_facts
                    host: #host_for_analysis,
                    zero_copy: #zero_copy,
                    reported_by_caller: #eager,
                }
        }
    };
    // Sizes and formats (and on the general path host shapes and tree flags) are read from the
    // struct's `GpuType::HOST` / `Flattened::LEAF_HOST` where it has one (every struct but a
    // flat `packed` one), instead of being restated per field.
    let facts_expr = if general {
        quote!(#p::tree_facts::<Self, #n, #m>(#facts_literal))
    } else if !packed {
        quote!(#p::host_facts::<Self, #n, #m>(#facts_literal))
    } else {
        facts_literal
    };
    let analysis_items = match &lazy {
        Some(_) => {
            let lazy_analysis = respan(quote!(#p::lazy_analysis::<Self, #n>), input.ident.span());
            quote! {
                const FACTS: #p::Facts<#n, 0> = #facts_expr;
                const ANALYSIS: #p::Analysis<#n> = #lazy_analysis();
            }
        }
        None => quote! {
            const ANALYSIS: #p::Analysis<#n> = #analyze(#facts_expr);
        },
    };
    let offsets = if packed {
        quote!([#(::core::mem::offset_of!(#ident, #members)),*])
    } else {
        quote!(#p::host_offsets::<Self, #n>())
    };

    quote! {
        #markers

        #[doc(hidden)]
        const _: () = {
            use #krate::__private as #p;
            #[automatically_derived]
            impl #p::Analyzed<#n> for #ident {
                const OFFSETS: [::core::primitive::usize; #n] = #offsets;
                #padding_item
                #analysis_items
            }
            #checks
            #padding_check
            #shader_checks

            #wgsl_impls
            #flattened

            #value_impl

            #(#marker_impls)*
        };
    }
}

/// The `GpuRuntimeStruct` impl of a struct whose last field `tail` is `RuntimeArray<E>`: the
/// storage layout with its tail, the header's leaves (`fields`, `copies`: the general path's,
/// the tail having none) and the element's copies.
fn runtime_impl(
    input: &Input<'_>,
    tail: &Field<'_>,
    p: &Ident,
    fields: &TokenStream,
    copies: &TokenStream,
) -> TokenStream {
    let ident = input.ident;
    let Some(elem) = tail.runtime_element() else {
        return TokenStream::new();
    };
    let (wgsl, host, _) = describe(elem, p);
    quote! {
        #[automatically_derived]
        unsafe impl #p::GpuRuntimeStruct for #ident {
            type Element = #elem;
            const LAYOUT: #p::TypeLayout =
                #p::runtime_layout(&<Self as #p::Described>::STRUCT);
            const HEADER_FIELDS: &'static [#p::GpuDataStructField] = #fields;
            const HEADER_COPIES: &'static [#p::FieldCopy] = #copies;
            const ELEMENT_COPIES: &'static [#p::FieldCopy] = &#p::element_copies::<
                { #p::leaf_count(&#wgsl) },
            >(&#wgsl, #host);
            const ELEMENT_HOST_MATCHES: ::core::primitive::bool = #p::element_host_matches(
                &#wgsl,
                #host,
                ::core::mem::size_of::<#elem>(),
                <Self as #p::GpuRuntimeStruct>::LAYOUT,
            );
        }
    }
}

/// For structs with `#[gpu(padding)]` fields: a `const` requiring each padding type to be plain
/// data, reported at the type.
fn padding_check(input: &Input<'_>, p: &Ident) -> TokenStream {
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
pub(crate) fn plain_type(ty: &Type, webgl: bool) -> bool {
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
    p: &Ident,
    n: &Literal,
    location: &Literal,
    storage: bool,
) -> TokenStream {
    let msg = quote!(#p::flat_webgl_message::<Self, #n>());
    let arms = gpu
        .iter()
        .enumerate()
        .filter(|(_, f)| storage && maybe_webgl(f))
        .map(|(k, f)| webgl_arm(k, f, p, &msg));
    quote! {
        &match #p::flat_webgl::<Self, #n>() {
            ::core::option::Option::None => #p::flat_attributes::<Self, #n>(#location),
            #(#arms)*
            ::core::option::Option::Some(_) => #p::fail_with(#msg),
        }
    }
}

/// The one `const` that fails the build with the analysis's first problem, spanned at the token
/// it is about: one match arm per place a problem can be reported. (The analysis itself does not
/// fail then, so the items reading it add no notes to the error.)
fn problem_arms(
    input: &Input<'_>,
    gpu: &[&Field<'_>],
    p: &Ident,
    analysis: &TokenStream,
) -> TokenStream {
    let msg = quote!(&#p::problem_message(&#analysis));
    let mut arms = Vec::new();
    let mut arm = |pattern: TokenStream, range: (Span, Span)| {
        let fail = fail_at(p, &msg, range);
        arms.push(quote!(::core::option::Option::Some(#p::Spot::#pattern) => #fail,));
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
fn lazy_check(input: &Input<'_>, p: &Ident, lazy: &crate::lazy::LazyFacts) -> TokenStream {
    if lazy.nests.is_empty() {
        return TokenStream::new();
    }
    let ident = input.ident;
    let gpu: Vec<&Field<'_>> = input.gpu_fields().collect();
    let n = usize_lit(gpu.len());
    let msg = quote!(#p::lazy_message::<#ident, #n>());
    let conds = lazy.nests.iter().map(|(_, c)| c);
    let mut seen = Vec::new();
    let arms = lazy.nests.iter().filter_map(|(k, _)| {
        if seen.contains(k) {
            return None;
        }
        seen.push(*k);
        let fail = fail_with_at(p, &msg, span_range(gpu[*k].ty));
        let k = usize_lit(*k);
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

/// The `Described` and `GpuType` impls that let a non-`packed` struct be a member of another
/// (and describe it as WGSL), and, on the general path, its `Flattened` leaves (a `packed`
/// struct on the general path gets `Described` and `Flattened` only: it does not nest).
fn wgsl_impls(
    input: &Input<'_>,
    gpu: &[&Field<'_>],
    p: &Ident,
    requested: &[TokenStream],
    pad_total: &TokenStream,
    leaves: Option<&TokenStream>,
) -> TokenStream {
    let ident = input.ident;
    let name = ident.unraw().to_string();
    let members = gpu.iter().zip(requested).map(|(f, r)| {
        let gpu_name = f.gpu_name();
        let wgsl_ty = match &f.attrs.wgsl {
            Some((_, parsed)) => wgsl_tokens(parsed, p),
            None if f.attrs.format.is_none() => describe(f.ty, p).0,
            None => {
                let (wgsl, _, _) = describe(f.ty, p);
                quote!(#p::member_type(#wgsl, #r))
            }
        };
        if f.attrs.align.is_none() && f.attrs.size.is_none() {
            return quote!(#p::WgslMember::new(#gpu_name, #wgsl_ty));
        }
        let align = option_tokens(
            f.attrs
                .align
                .as_ref()
                .map(|(n, _)| Literal::u64_suffixed(*n).into_token_stream()),
        );
        let size = option_tokens(
            f.attrs
                .size
                .as_ref()
                .map(|(n, _)| Literal::u64_suffixed(*n).into_token_stream()),
        );
        quote! {
            #p::WgslMember { name: #gpu_name, ty: #wgsl_ty, align: #align, size: #size }
        }
    });
    let host = host_shape_tokens(input, gpu, p, requested, pad_total);
    let leaves = leaves.map(|l| quote!(const LEAVES: ::core::primitive::usize = #l;));
    let nests = input.tail().is_none();
    let gpu_type = if input.attrs.layout == LayoutKind::Packed {
        TokenStream::new()
    } else {
        quote! {
            #[automatically_derived]
            unsafe impl #p::GpuType for #ident {
                const WGSL: #p::WgslType = #p::WgslType::Struct(#p::described::<Self>());
                const HOST: #p::HostShape = #host;
                #leaves
                const NESTS: ::core::primitive::bool = #nests;
            }
        }
    };
    quote! {
        #[automatically_derived]
        impl #p::Described for #ident {
            const STRUCT: #p::WgslStruct = #p::WgslStruct {
                name: #name,
                members: &[#(#members),*],
            };
        }
        #gpu_type
    }
}

/// The struct's `HostShape::Struct { .. }`: each gpu field's host offset, size and shape.
fn host_shape_tokens(
    input: &Input<'_>,
    gpu: &[&Field<'_>],
    p: &Ident,
    requested: &[TokenStream],
    pad_total: &TokenStream,
) -> TokenStream {
    let ident = input.ident;
    let hosts = gpu.iter().zip(requested).map(|(f, r)| {
        let ty = f.ty;
        let member = f.ident;
        let (_, host, _) = describe(ty, p);
        let shape = if f.attrs.format.is_some() {
            quote!(#p::host_shape(#host, #r))
        } else {
            host
        };
        quote! {
            #p::HostMember {
                offset: ::core::mem::offset_of!(#ident, #member),
                size: ::core::mem::size_of::<#ty>(),
                shape: #shape,
            }
        }
    });
    quote! {
        #p::HostShape::Struct {
            members: &[#(#hosts),*],
            size: ::core::mem::size_of::<Self>(),
            padding: #pad_total,
        }
    }
}

/// The `Flattened` impl of a general-path struct: the host shape its leaves are read from (a
/// packed struct, which does not nest, has no `GpuType::HOST`: its shape is written here), its
/// first location, and its tables with the leaf count, the one const argument of the expansion
/// (evaluated with the item, from the analysis the problem check evaluates anyway).
fn flattened_impl(
    input: &Input<'_>,
    gpu: &[&Field<'_>],
    p: &Ident,
    requested: &[TokenStream],
    pad_total: &TokenStream,
    location: &Literal,
    total: &TokenStream,
) -> TokenStream {
    let ident = input.ident;
    let n = usize_lit(gpu.len());
    let leaves_host = if input.attrs.layout == LayoutKind::Packed {
        host_shape_tokens(input, gpu, p, requested, pad_total)
    } else {
        quote!(<Self as #p::GpuType>::HOST)
    };
    // Only a struct declaring a `RuntimeArray` field may end in `array<E>`.
    let tail = if input.tail().is_some() {
        quote!(
            const TAIL: ::core::primitive::bool = true;
        )
    } else {
        TokenStream::new()
    };
    // `Flattened::LOCATION` defaults to 0.
    let location = match &input.attrs.location {
        Some((n, _)) if *n != 0 => quote!(const LOCATION: ::core::primitive::u32 = #location;),
        _ => TokenStream::new(),
    };
    quote! {
        #[automatically_derived]
        impl #p::Flattened for #ident {
            const LEAF_HOST: #p::HostShape = #leaves_host;
            #location
            #tail
            type Tables = #p::LeafTables<Self, #n, { #total }>;
        }
    }
}

/// A field type's WGSL description, host shape and flat vertex format, as tokens. An array of
/// anything but a scalar (`[Light; 4]`, `[[f32; 4]; 4]`, `[glam::Vec3; 2]`) is `array<E, N>`,
/// described here from its element, so no trait impl for arrays is needed (one would overlap the
/// vertex-format arrays such as `[f32; 3]`, which keep their vector meaning); everything else is
/// the type's `GpuType`.
fn describe(ty: &Type, p: &Ident) -> (TokenStream, TokenStream, TokenStream) {
    // `RuntimeArray<E>`: `array<E>`, its elements outside the value (a zero-sized member).
    if let Some(elem) = runtime_element(ty) {
        let (wgsl, host, _) = describe(elem, p);
        return (
            quote! {
                #p::WgslType::Array {
                    element: &#wgsl,
                    count: ::core::option::Option::None,
                }
            },
            quote! {
                #p::HostShape::Array {
                    element: &#host,
                    stride: ::core::mem::size_of::<#elem>(),
                }
            },
            quote!(::core::option::Option::None),
        );
    }
    if let Type::Array(array) = ty
        && !is_scalar(&array.elem)
    {
        let (wgsl, host, _) = describe(&array.elem, p);
        let elem = &array.elem;
        let len = &array.len;
        return (
            quote! {
                #p::WgslType::Array {
                    element: &#wgsl,
                    count: ::core::option::Option::Some((#len) as ::core::primitive::u32),
                }
            },
            quote! {
                #p::HostShape::Array {
                    element: &#host,
                    stride: ::core::mem::size_of::<#elem>(),
                }
            },
            quote!(::core::option::Option::None),
        );
    }
    (
        quote!(<#ty as #p::GpuType>::WGSL),
        quote!(<#ty as #p::GpuType>::HOST),
        quote!(<#ty as #p::GpuType>::FLAT),
    )
}

/// Whether the struct needs the general path: a `wgsl-uniform` layout, a field that is not a
/// plain scalar or array of scalars (possibly a nested type), or a `wgsl`, `align` or `size`
/// attribute.
fn needs_general_path(input: &Input<'_>) -> bool {
    input.attrs.layout == LayoutKind::WgslUniform
        || input.tail().is_some()
        || input.gpu_fields().any(|f| {
            f.attrs.wgsl.is_some()
                || f.attrs.align.is_some()
                || f.attrs.size.is_some()
                || !plain_type(f.ty, true)
        })
}

/// `GpuStruct::ATTRIBUTES` on the general path: the leaves' vertex attributes, or a compile
/// error at the field of the first leaf that no wgpu vertex attribute reads. Only fields that
/// may hold such a leaf get an arm of their own (a `wgsl = "..."` type's leaves all have wgpu
/// formats).
fn leaf_attributes_const(gpu: &[&Field<'_>], p: &Ident) -> TokenStream {
    let msg = quote!(#p::tree_webgl_message::<Self>());
    let arms = gpu
        .iter()
        .enumerate()
        .filter(|(_, f)| f.attrs.wgsl.is_none() && maybe_webgl(f))
        .map(|(k, f)| webgl_arm(k, f, p, &msg));
    quote! {
        match #p::tree_webgl::<Self>() {
            ::core::option::Option::None => #p::tree_attributes::<Self>(),
            #(#arms)*
            ::core::option::Option::Some(_) => #p::fail_with(#msg),
        }
    }
}

/// `HostFacts { .. }` (fields with `offset_of!`, the struct's size) and the host field count.
fn host_facts(input: &Input<'_>, p: &Ident) -> (TokenStream, Literal) {
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

/// The `Some(k) => fail` arm of a `-webgl` check for gpu field `k`: the failure spanned at the
/// field's `format` literal, else at its type.
fn webgl_arm(k: usize, f: &Field<'_>, p: &Ident, msg: &TokenStream) -> TokenStream {
    let range = match &f.attrs.format {
        Some(lit) => span_range(lit),
        None => span_range(f.ty),
    };
    let fail = fail_with_at(p, msg, range);
    let k = usize_lit(k);
    quote!(::core::option::Option::Some(#k) => #fail,)
}

/// The tokens of the `WgslType` constant, through `p` (`::gpudata::__private`).
fn wgsl_tokens(ty: &WgslTy, p: &Ident) -> TokenStream {
    match ty {
        WgslTy::Leaf {
            kind,
            columns,
            rows,
            scalar,
        } => {
            let primitive = match *scalar {
                "f16" => quote!(#p::PrimitiveType::F16),
                "i32" => quote!(#p::PrimitiveType::I32),
                "u32" => quote!(#p::PrimitiveType::U32),
                _ => quote!(#p::PrimitiveType::F32),
            };
            let leaf = match kind {
                LeafKind::Scalar => quote!(#p::LeafType::Scalar(#primitive)),
                LeafKind::Atomic => quote!(#p::LeafType::Atomic(#primitive)),
                LeafKind::Vector => {
                    quote!(#p::LeafType::Vector { components: #rows, scalar: #primitive })
                }
                LeafKind::Matrix => quote! {
                    #p::LeafType::Matrix { columns: #columns, rows: #rows, scalar: #primitive }
                },
            };
            quote!(#p::WgslType::Leaf(#leaf))
        }
        WgslTy::Array(element, count) => {
            let element = wgsl_tokens(element, p);
            quote! {
                #p::WgslType::Array {
                    element: &#element,
                    count: ::core::option::Option::Some(#count),
                }
            }
        }
    }
}
