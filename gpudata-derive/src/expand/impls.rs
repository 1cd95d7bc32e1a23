//! The trait impls of a derived struct, reading its analysis and its one leaf table: `GpuStruct`
//! (or `GpuRuntimeStruct` for a struct with a runtime-sized tail), and `Described` and `GpuType`
//! (what lets a struct be a member of another, and describes it as WGSL).

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;

use super::context::Context;
use super::tokens::{describe, leaves_tokens, option_u64, usize_lit, wgsl_tokens};
use super::uniform::uniform_impl;
use crate::internals::ast::Field;
use crate::internals::attr::StepModeKind;
use crate::internals::classify::{Check, Engine, PlainType};
use crate::spans::{fail_with_at, span_range};

/// `impl GpuStruct` (and, for a `wgsl-uniform` struct, `UniformLayout`): every constant a
/// call of a `const fn` reading the analysis.
/// `vertex_entries` is the `VERTEX_ENTRIES` constant of a struct checked against vertex entry
/// points (`None`: the default, none).
pub(super) fn gpu_struct_impl(
    cx: &Context<'_, '_>,
    vertex_entries: Option<TokenStream>,
) -> TokenStream {
    let Context { input, p, n, .. } = cx;
    let ident = input.ident;
    // `GpuStruct::STEP_MODE` defaults to `Vertex`.
    let step_mode = match input.attrs.step_mode {
        StepModeKind::Vertex => TokenStream::new(),
        StepModeKind::Instance => quote!(const STEP_MODE: #p::StepMode = #p::StepMode::Instance;),
    };
    let host_matches = if !input.attrs.repr_c {
        quote!(false)
    } else if input.attrs.zero_copy.is_some() {
        quote!(#p::analysis_host_matches::<Self, #n>())
    } else {
        quote!(#p::tree_host_matches::<Self, #n>())
    };
    let attributes = attributes_const(cx);
    // The type tree the run-time shader check compares (`packed` structs have none).
    let tree = if cx.packed {
        TokenStream::new()
    } else {
        quote! {
            const TREE: ::core::option::Option<(
                &'static #p::WgslStruct,
                &'static #p::HostShape,
            )> = #p::tree_of::<Self>();
        }
    };
    // What a uniform buffer requires of its type (a bound, so a struct of another layout is an
    // error at the user's call).
    let uniform = uniform_impl(input, p);
    quote! {
        #[automatically_derived]
        unsafe impl #p::GpuStruct for #ident {
            const FORMAT: &'static #p::GpuDataStructFormat = #p::tree_format::<Self, #n>();
            #step_mode
            const ATTRIBUTES: &'static [#p::wgpu::VertexAttribute] = #attributes;
            const HOST_LAYOUT_MATCHES: ::core::primitive::bool = #host_matches;
            const FIELD_COPIES: &'static [#p::FieldCopy] = #p::tree_copies::<Self, #n>();
            #tree
            #vertex_entries
        }
        #uniform
    }
}

/// `GpuStruct::ATTRIBUTES`: the leaves' vertex attributes, or (when the constant is first used)
/// a compile error at the field of the first leaf that no wgpu vertex attribute reads. Only
/// fields that may hold such a leaf get an arm of their own (a `wgsl = "..."` type's leaves all
/// have wgpu formats, and a flat `packed` struct's analysis refuses `-webgl` fields); without
/// any, `tree_attributes` fails itself, at the derive.
fn attributes_const(cx: &Context<'_, '_>) -> TokenStream {
    let Context { p, n, .. } = cx;
    let msg = quote!(#p::tree_webgl_message::<Self, #n>());
    let flat_packed = cx.packed && cx.strategy.engine == Engine::Flat;
    let arms: Vec<TokenStream> = cx
        .gpu
        .iter()
        .zip(&cx.strategy.plain)
        .enumerate()
        .filter(|(_, (f, plain))| !flat_packed && f.attrs.wgsl.is_none() && maybe_webgl(f, **plain))
        .map(|(k, (f, _))| webgl_arm(cx, k, f, &msg))
        .collect();
    if arms.is_empty() {
        return quote!(#p::tree_attributes::<Self, #n>());
    }
    quote! {
        match #p::tree_webgl::<Self, #n>() {
            ::core::option::Option::None => #p::tree_attributes::<Self, #n>(),
            #(#arms)*
            ::core::option::Option::Some(_) => #p::fail_with(#msg),
        }
    }
}

/// Whether field `f` (of [`PlainType`] `plain`) may have a `-webgl` format: a format string
/// naming one, or, with no format string, a type other than a plain WebGPU one.
fn maybe_webgl(f: &Field<'_>, plain: PlainType) -> bool {
    match &f.attrs.format {
        Some(lit) => lit.value().ends_with("-webgl"),
        None => plain != PlainType::WebGpu,
    }
}

/// The `Some(k) => fail` arm of a `-webgl` check for gpu field `k`: the failure spanned at the
/// field's `format` literal, else at its type.
fn webgl_arm(cx: &Context<'_, '_>, k: usize, f: &Field<'_>, msg: &TokenStream) -> TokenStream {
    let range = match &f.attrs.format {
        Some(lit) => span_range(lit),
        None => span_range(f.ty),
    };
    let fail = fail_with_at(&cx.p, msg, range);
    let k = usize_lit(k);
    quote!(::core::option::Option::Some(#k) => #fail,)
}

/// The `Described` and `GpuType` impls that let a non-`packed` struct be a member of another
/// (and describe it as WGSL); a `packed` struct on the general engine gets `Described` only (it
/// does not nest), a flat `packed` one neither.
pub(super) fn wgsl_impls(cx: &Context<'_, '_>) -> TokenStream {
    let Context { input, p, n, .. } = cx;
    if cx.packed && cx.strategy.engine == Engine::Flat {
        return TokenStream::new();
    }
    let ident = input.ident;
    let name = ident.unraw().to_string();
    let members = cx.gpu.iter().zip(&cx.requested).map(|(f, r)| {
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
        let align = option_u64(f.attrs.align.as_ref());
        let size = option_u64(f.attrs.size.as_ref());
        quote! {
            #p::WgslMember { name: #gpu_name, ty: #wgsl_ty, align: #align, size: #size }
        }
    });
    let gpu_type = if cx.packed {
        TokenStream::new()
    } else {
        let host = host_shape_tokens(cx);
        // What a struct nesting this one reads eagerly: its leaf count where the macro knows
        // it, and whether it can be a member (every derived struct that passed its own checks
        // can, but one ending in a runtime-sized array).
        let leaves = match (&cx.strategy.check, cx.strategy.engine) {
            (Check::Lazy(leaves), _) => Some(leaves_tokens(leaves, p)),
            (_, Engine::Flat) => Some(quote!(#n)),
            (_, Engine::Tree) => None,
        };
        let leaves = leaves.map(|l| quote!(const LEAVES: ::core::primitive::usize = #l;));
        let nests = input.tail().is_none();
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
pub(super) fn host_shape_tokens(cx: &Context<'_, '_>) -> TokenStream {
    let Context { input, p, .. } = cx;
    let ident = input.ident;
    let hosts = cx.gpu.iter().zip(&cx.requested).map(|(f, r)| {
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
    let pad_total = &cx.pad_total;
    quote! {
        #p::HostShape::Struct {
            members: &[#(#hosts),*],
            size: ::core::mem::size_of::<Self>(),
            padding: #pad_total,
        }
    }
}

/// The `GpuRuntimeStruct` impl of a struct whose last field `tail` is `RuntimeArray<E>` (always
/// on the general engine): the storage layout with its tail, the header's leaves (the tail has
/// none) and the element's copies.
pub(super) fn runtime_impl(cx: &Context<'_, '_>, tail: &Field<'_>) -> TokenStream {
    let Context { input, p, n, .. } = cx;
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
            const HEADER_FIELDS: &'static [#p::GpuDataStructField] =
                #p::tree_fields::<Self, #n>();
            const HEADER_COPIES: &'static [#p::FieldCopy] = #p::tree_copies::<Self, #n>();
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
