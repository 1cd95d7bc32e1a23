//! The struct's `Analyzed` impl: the host offsets, the padding bytes, the `Facts` constant
//! describing the struct, which the runtime's `const fn` layout engine analyses (the macro never
//! computes an offset), and what its one leaf table reads (a struct on the flat engine is a tree
//! of depth 1: as many leaves as fields).

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::ext::IdentExt;

use super::context::Context;
use super::impls::host_shape_tokens;
use super::tokens::{
    leaves_tokens, option_array, option_tokens, option_u64, type_string, usize_lit,
};
use crate::internals::ast::Field;
use crate::internals::attr::LayoutKind;
use crate::internals::classify::{Check, Engine};
use crate::spans::{respan, span_range};

/// `impl Analyzed<N>`: `OFFSETS`, `PADDING` where there are padding fields, the analysis (with
/// its `FACTS` for a struct the macro checks itself, analysed on first use), and its leaf table.
///
/// Every constant is a call of a generic `const fn` of `__private` naming no constant itself, so
/// rustc computes nothing for a struct before it is used (see `Analyzed`).
pub(super) fn analyzed_impl(cx: &Context<'_, '_>) -> TokenStream {
    let Context { input, p, n, .. } = cx;
    let ident = input.ident;
    let offsets = if cx.packed {
        let members = cx.gpu.iter().map(|f| f.ident);
        quote!([#(::core::mem::offset_of!(#ident, #members)),*])
    } else {
        quote!(#p::host_offsets::<Self, #n>())
    };
    // `Analyzed::PADDING` defaults to 0 (no `#[gpu(padding)]` field).
    let padding_item = if input.fields.iter().all(Field::is_gpu) {
        TokenStream::new()
    } else {
        let pad_total = &cx.pad_total;
        quote!(const PADDING: ::core::primitive::usize = #pad_total;)
    };
    let facts = facts_expr(cx);
    let analysis_items = match &cx.strategy.check {
        Check::Lazy(_) => {
            let lazy_analysis = respan(quote!(#p::lazy_analysis::<Self, #n>), ident.span());
            quote! {
                const FACTS: #p::Facts<#n, 0> = #facts;
                const ANALYSIS: #p::Analysis<#n> = #lazy_analysis();
            }
        }
        Check::Never | Check::Eager => {
            let analyze = respan(quote!(#p::analyze), ident.span());
            quote! {
                const ANALYSIS: #p::Analysis<#n> = #analyze(#facts);
            }
        }
    };
    let table_items = table_items(cx);
    quote! {
        #[automatically_derived]
        impl #p::Analyzed<#n> for #ident {
            const OFFSETS: [::core::primitive::usize; #n] = #offsets;
            #padding_item
            #analysis_items
            #table_items
        }
    }
}

/// What the struct's leaf table reads besides the analysis and `OFFSETS`: the host shape a
/// nested struct's leaves are read from (its `GpuType::HOST`; a packed struct, which does not
/// nest, has none: its shape is written here; a depth-1 struct needs none), its first location
/// and whether it ends in a `RuntimeArray`, where they differ from the defaults, and its tables
/// with the leaf count, the one const argument of the expansion (the field count on the flat
/// engine; else evaluated with the item, from the analysis the problem check evaluates anyway,
/// or counted by the macro).
fn table_items(cx: &Context<'_, '_>) -> TokenStream {
    let Context { input, p, n, .. } = cx;
    let (leaf_host, total) = match (cx.strategy.engine, &cx.strategy.check) {
        (Engine::Flat, _) => (TokenStream::new(), quote!(#n)),
        (Engine::Tree, check) => {
            let total = match check {
                Check::Lazy(leaves) => leaves_tokens(leaves, p),
                Check::Never | Check::Eager => {
                    quote!(#p::leaf_total(&<Self as #p::Analyzed<#n>>::ANALYSIS))
                }
            };
            let host = if cx.packed {
                host_shape_tokens(cx)
            } else {
                quote!(<Self as #p::GpuType>::HOST)
            };
            (
                quote!(const LEAF_HOST: #p::HostShape = #host;),
                quote!({ #total }),
            )
        }
    };
    // Only a struct declaring a `RuntimeArray` field may end in `array<E>`.
    let tail = if input.tail().is_some() {
        quote!(
            const TAIL: ::core::primitive::bool = true;
        )
    } else {
        TokenStream::new()
    };
    // `Analyzed::LOCATION` defaults to 0.
    let location = match &input.attrs.location {
        Some((l, _)) if *l != 0 => {
            let location = &cx.location;
            quote!(const LOCATION: ::core::primitive::u32 = #location;)
        }
        _ => TokenStream::new(),
    };
    quote! {
        #leaf_host
        #location
        #tail
        type Tables = #p::LeafTables<Self, #n, #total>;
    }
}

/// The `Facts` expression. Sizes and formats (and on the general engine host shapes and tree
/// flags) are read from the struct's `GpuType::HOST` / `Analyzed::LEAF_HOST` where it has one
/// (every struct but a flat `packed` one), instead of being restated per field.
fn facts_expr(cx: &Context<'_, '_>) -> TokenStream {
    let Context { input, p, n, .. } = cx;
    let gpu = &cx.gpu;
    let layout = match input.attrs.layout {
        LayoutKind::WgslStorage => quote!(#p::StructLayout::WgslStorage),
        LayoutKind::WgslUniform => quote!(#p::StructLayout::WgslUniform),
        LayoutKind::Packed => quote!(#p::StructLayout::Packed),
    };
    let space = match input.attrs.layout {
        LayoutKind::WgslUniform => quote!(#p::AddressSpace::Uniform),
        _ => quote!(#p::AddressSpace::Storage),
    };
    let names: Vec<String> = gpu.iter().map(|f| f.gpu_name()).collect();
    let type_names: Vec<String> = gpu.iter().map(|f| type_string(f.ty)).collect();
    let eager = matches!(cx.strategy.check, Check::Eager);
    let tree = cx.strategy.engine == Engine::Tree;
    // The host layout is checked eagerly only under `zero_copy`; otherwise
    // `HOST_LAYOUT_MATCHES` computes it on first use.
    let zero_copy = input.attrs.zero_copy.is_some();
    let (host, m) = if zero_copy {
        let (host, m) = host_facts(cx);
        (quote!(::core::option::Option::Some(#host)), m)
    } else {
        (quote!(::core::option::Option::None), usize_lit(0))
    };
    let literal = if cx.strategy.named_facts {
        let wgsl_flags = gpu.iter().map(|f| f.attrs.wgsl.is_some());
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
        let requested = option_array(
            gpu.iter()
                .map(|f| f.attrs.format.as_ref().map(ToTokens::to_token_stream))
                .collect(),
        );
        let (sizes, formats) = if cx.packed && !tree {
            packed_sizes_and_formats(cx)
        } else {
            (quote!([0; #n]), quote!([#p::VertexFormat::Float32; #n]))
        };
        let wgsl = if tree {
            let wgsl = gpu.iter().map(|f| f.attrs.wgsl.is_some());
            quote!([#(#wgsl),*])
        } else {
            quote!([false; #n])
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
        let declared_stride = option_u64(input.attrs.stride.as_ref());
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
                    structure: ::core::option::Option::None,
                    hosts: [#p::HostShape::Packed; #n],
                    tree: [false; #n],
                    wgsl: #wgsl,
                    tail: false,
                    host: #host,
                    zero_copy: #zero_copy,
                    reported_by_caller: #eager,
                }
        }
    };
    match (cx.strategy.engine, cx.packed) {
        (Engine::Tree, _) => quote!(#p::tree_facts::<Self, #n, #m>(#literal)),
        (Engine::Flat, false) => quote!(#p::host_facts::<Self, #n, #m>(#literal)),
        (Engine::Flat, true) => literal,
    }
}

/// A flat `packed` struct's field sizes and formats (it has no host shape to read them from).
fn packed_sizes_and_formats(cx: &Context<'_, '_>) -> (TokenStream, TokenStream) {
    let p = &cx.p;
    let sizes = cx.gpu.iter().map(|f| {
        let ty = f.ty;
        let (first, _) = span_range(ty);
        quote_spanned!(first=> ::core::mem::size_of::<#ty>())
    });
    let formats = cx.gpu.iter().map(|f| {
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
    (quote!([#(#sizes),*]), quote!([#(#formats),*]))
}

/// `HostFacts { .. }` (fields with `offset_of!`, the struct's size) and the host field count.
fn host_facts(cx: &Context<'_, '_>) -> (TokenStream, Literal) {
    let Context { input, p, .. } = cx;
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
                option_tokens(Some(k.into_token_stream()))
            } else {
                option_tokens(None)
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
