//! What a failed derive emits next to its errors: the marker module and a stub `GpuStruct` impl,
//! so code that names them does not add errors of its own to the real one.

use proc_macro2::TokenStream;
use quote::quote;

use super::markers::marker_module;
use super::uniform::uniform_impl;
use crate::internals::ast::Input;
use crate::internals::attr::LayoutKind;

/// The marker module plus an impl with an empty format (the build already failed).
pub(super) fn fallback(input: &Input<'_>) -> TokenStream {
    let krate = &input.attrs.krate;
    let p = quote!(#krate::__private);
    let ident = input.ident;
    let markers = marker_module(input);
    // A failed non-packed struct still nests (as one `u32`), so its users add no errors.
    let nested = if input.attrs.layout == LayoutKind::Packed {
        TokenStream::new()
    } else {
        quote! {
            #[automatically_derived]
            unsafe impl #p::GpuType for #ident
            where
                for<'__gpudata> #ident: ::core::marker::Copy,
            {
                const WGSL: #p::WgslType = #p::WgslType::Leaf(
                    #p::LeafType::Scalar(#p::PrimitiveType::U32),
                );
                const HOST: #p::HostShape = #p::HostShape::Packed;
            }
        }
    };
    // A failed uniform struct stays a uniform buffer's type, so `GpuUniform<T>` adds no errors.
    let uniform = uniform_impl(input, &p);
    // A failed struct with a runtime-sized tail gets the trait of its kind, so `GpuStorage<T>`
    // adds no errors either.
    if let Some(elem) = input.tail().and_then(|f| f.runtime_element()) {
        return quote! {
            #[doc(hidden)]
            const _: () = {
                #[automatically_derived]
                unsafe impl #p::GpuRuntimeStruct for #ident
                where
                    for<'__gpudata> #ident: ::core::marker::Copy,
                    for<'__gpudata> #elem: #p::GpuType,
                {
                    type Element = #elem;
                    const LAYOUT: #p::TypeLayout = #p::runtime_layout(&#p::FALLBACK_STRUCT);
                    const HEADER_FIELDS: &'static [#p::GpuDataStructField] = &[];
                    const HEADER_COPIES: &'static [#p::FieldCopy] = &[];
                    const ELEMENT_COPIES: &'static [#p::FieldCopy] = &[];
                    const ELEMENT_HOST_MATCHES: ::core::primitive::bool = false;
                }
            };
        };
    }
    quote! {
        #markers

        #[doc(hidden)]
        const _: () = {
            #[automatically_derived]
            unsafe impl #p::GpuStruct for #ident
            where
                for<'__gpudata> #ident: ::core::marker::Copy,
            {
                const FORMAT: &'static #p::GpuDataStructFormat = #p::FALLBACK_FORMAT;
                const STEP_MODE: #p::StepMode = #p::StepMode::Vertex;
                const ATTRIBUTES: &'static [#p::wgpu::VertexAttribute] = &[];
                const HOST_LAYOUT_MATCHES: ::core::primitive::bool = false;
                const FIELD_COPIES: &'static [#p::FieldCopy] = &[];
            }
            #uniform
            #nested
        };
    }
}
