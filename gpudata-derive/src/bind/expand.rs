//! The tokens of `#[derive(GpuBindGroup)]`: per field a `BindingKeys` constant and its `const`
//! assertions (spanned at the field), then the `GpuBindGroup` impl; or, for a struct with
//! errors, a fallback impl of no bindings, so one mistake does not cascade into its uses.

use proc_macro2::{Ident, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote};
use syn::ext::IdentExt;

use super::{Field, Resolved};
use crate::internals::bind_attr::{BufferKey, FieldKeys, GroupAttrs};
use crate::shader::bind_group::GroupShader;
use crate::spans::{fail_if_at, span_range};

/// The name `__private` is imported under.
pub(super) fn private_ident() -> Ident {
    Ident::new("__gpudata_private", Span::call_site())
}

/// `tokens` with every named lifetime made `'static`: the field types inside the free `const`
/// assertions, which have no lifetime parameters.
fn static_lifetimes(tokens: TokenStream) -> TokenStream {
    let mut out = Vec::new();
    let mut after_quote = false;
    for token in tokens {
        let token = match token {
            TokenTree::Group(g) => {
                let mut inner =
                    proc_macro2::Group::new(g.delimiter(), static_lifetimes(g.stream()));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            TokenTree::Ident(ident) if after_quote && ident != "_" => {
                TokenTree::Ident(Ident::new("static", ident.span()))
            }
            other => other,
        };
        after_quote = matches!(&token, TokenTree::Punct(p) if p.as_char() == '\'');
        out.push(token);
    }
    out.into_iter().collect()
}

fn buffer_tokens(p: &Ident, keys: &FieldKeys) -> TokenStream {
    let wgpu = quote!(#p::wgpu);
    match keys.buffer {
        None => quote!(::core::option::Option::None),
        Some(BufferKey::Uniform) => {
            quote!(::core::option::Option::Some(#wgpu::BufferBindingType::Uniform))
        }
        Some(key) => {
            let read_only = key == BufferKey::Storage;
            quote!(::core::option::Option::Some(
                #wgpu::BufferBindingType::Storage { read_only: #read_only }
            ))
        }
    }
}

fn sample_tokens(p: &Ident, variant: Option<&str>) -> TokenStream {
    let wgpu = quote!(#p::wgpu);
    match variant {
        None | Some("Float { filterable: true }") => {
            quote!(#wgpu::TextureSampleType::Float { filterable: true })
        }
        Some("Float { filterable: false }") => {
            quote!(#wgpu::TextureSampleType::Float { filterable: false })
        }
        Some(other) => {
            let v = Ident::new(other, Span::call_site());
            quote!(#wgpu::TextureSampleType::#v)
        }
    }
}

fn texture_tokens(p: &Ident, keys: &FieldKeys) -> (TokenStream, TokenStream) {
    let wgpu = quote!(#p::wgpu);
    let none = quote!(::core::option::Option::None);
    if keys.is_texture() {
        let d = Ident::new(keys.texture.unwrap_or("D2"), Span::call_site());
        let sample = sample_tokens(p, keys.sample);
        let multi = keys.multisampled;
        let texture = quote!(::core::option::Option::Some(#p::TextureKeys {
            view_dimension: #wgpu::TextureViewDimension::#d,
            sample_type: #sample,
            multisampled: #multi,
        }));
        return (texture, none);
    }
    if let (true, Some((variant, wgsl))) = (keys.is_storage_texture(), keys.format) {
        let d = Ident::new(keys.storage_texture.unwrap_or("D2"), Span::call_site());
        let f = Ident::new(variant, Span::call_site());
        let a = Ident::new(keys.access.unwrap_or("WriteOnly"), Span::call_site());
        let storage = quote!(::core::option::Option::Some(#p::StorageTextureKeys {
            view_dimension: #wgpu::TextureViewDimension::#d,
            format: #wgpu::TextureFormat::#f,
            format_name: #wgsl,
            access: #wgpu::StorageTextureAccess::#a,
        }));
        return (none.clone(), storage);
    }
    (none.clone(), none)
}

/// A field's `BindingKeys` expression.
fn keys_tokens(p: &Ident, keys: &FieldKeys, r: &Resolved) -> TokenStream {
    let wgpu = quote!(#p::wgpu);
    let binding = Literal::u32_suffixed(r.binding);
    let visibility = Literal::u32_suffixed(r.visibility);
    let buffer = buffer_tokens(p, keys);
    let (texture, storage_texture) = texture_tokens(p, keys);
    let sampler = match keys.sampler {
        Some(v) => {
            let v = Ident::new(v, Span::call_site());
            quote!(::core::option::Option::Some(#wgpu::SamplerBindingType::#v))
        }
        None => quote!(::core::option::Option::None),
    };
    let shader_size = match r.shader_size {
        Some(n) => {
            let n = Literal::u64_suffixed(n);
            quote!(::core::option::Option::Some(#n))
        }
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #p::BindingKeys {
            binding: #binding,
            visibility: #wgpu::ShaderStages::from_bits_retain(#visibility),
            buffer: #buffer,
            texture: #texture,
            storage_texture: #storage_texture,
            sampler: #sampler,
            shader_size: #shader_size,
        }
    }
}

fn label(input: &syn::DeriveInput, attrs: &GroupAttrs) -> String {
    attrs
        .label
        .as_ref()
        .map_or_else(|| input.ident.unraw().to_string(), syn::LitStr::value)
}

/// The expansion of a struct that passed every macro-side check.
pub(super) fn expand(
    input: &syn::DeriveInput,
    attrs: &GroupAttrs,
    fields: &[Field<'_>],
    resolved: &[Resolved],
    shader: Option<&GroupShader>,
) -> TokenStream {
    let p = private_ident();
    let krate = &attrs.krate;
    let group = Literal::u32_suffixed(attrs.group.as_ref().map_or(0, |(n, _)| *n));
    let entry_points = attrs.entries.iter();
    let mut items = Vec::new();
    let mut bindings = Vec::new();
    let mut entries = Vec::new();
    // Each field's name, kind expression and span range, for the sampling pairs.
    let mut sides = Vec::new();
    for (k, (f, r)) in fields.iter().zip(resolved).enumerate() {
        let keys_const = format_ident!("__GPUDATA_KEYS_{}", k);
        let keys = keys_tokens(&p, &f.keys, r);
        let resource = f.resource;
        let resource = static_lifetimes(quote!(#resource));
        let kind = quote!(<#resource as #p::BindResource>::KIND);
        let name = f.ident.unraw().to_string();
        let global_name = &r.global_name;
        let range = {
            let (first, _) = span_range(f.ident);
            let (_, last) = span_range(f.ty);
            (first, last)
        };
        let keys_check = fail_if_at(
            &p,
            &quote!(&#p::keys_problem(#name, &#kind, &#keys_const)),
            range,
        );
        items.push(quote! {
            const #keys_const: #p::BindingKeys = #keys;
            const _: () = #keys_check;
        });
        if let Some(global) = &r.global {
            let shader_check = fail_if_at(
                &p,
                &quote!(&#p::shader_problem(#name, &#kind, &#keys_const, &#global)),
                range,
            );
            items.push(quote!(const _: () = #shader_check;));
        }
        bindings.push(quote!(#p::binding_field(#name, #global_name, #kind, &#keys_const)));
        sides.push((
            quote!(#p::PairField { name: #name, kind: &#kind, keys: &#keys_const }),
            range,
        ));
        let member = f.ident;
        let k = Literal::usize_unsuffixed(k);
        entries.push(quote! {
            #p::wgpu::BindGroupEntry {
                binding: bindings[#k].entry.binding,
                resource: #p::BindResource::resource(self.#member, gpu, &bindings[#k].entry.ty)?,
            }
        });
    }
    for pair in shader.map_or(&[][..], |s| &s.pairs[..]) {
        let (Some((sampler, range)), Some((texture, _))) =
            (sides.get(pair.sampler), sides.get(pair.texture))
        else {
            continue;
        };
        let (entry, at) = (&pair.entry, &pair.at);
        let check = fail_if_at(
            &p,
            &quote!(&#p::sampling_problem(#sampler, #texture, #entry, #at)),
            *range,
        );
        items.push(quote!(const _: () = #check;));
    }
    let rebuild = shader.map(|s| {
        let path = &s.path;
        quote!(
            const _: &[::core::primitive::u8] = ::core::include_bytes!(#path);
        )
    });
    let body = quote! {
        let bindings = <Self as #p::GpuBindGroup>::BINDINGS;
        ::core::result::Result::Ok(::std::vec![#(#entries),*])
    };
    let group_impl = group_impl(
        input,
        attrs,
        &quote!(#group),
        &quote!(&[#(#entry_points),*]),
        &quote!(&[#(#bindings),*]),
        &body,
    );
    quote! {
        #[doc(hidden)]
        const _: () = {
            use #krate::__private as #p;
            #rebuild
            #(#items)*
            #group_impl
        };
    }
}

/// `impl GpuBindGroup` with these constants and `entries` body (which reads `gpu`).
fn group_impl(
    input: &syn::DeriveInput,
    attrs: &GroupAttrs,
    group: &TokenStream,
    entry_points: &TokenStream,
    bindings: &TokenStream,
    body: &TokenStream,
) -> TokenStream {
    let p = private_ident();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let label = label(input, attrs);
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::GpuBindGroup for #ident #ty_generics #where_clause {
            const LABEL: &'static ::core::primitive::str = #label;
            const GROUP: ::core::primitive::u32 = #group;
            const ENTRY_POINTS: &'static [&'static ::core::primitive::str] = #entry_points;
            const BINDINGS: &'static [#p::BindingField] = #bindings;

            fn entries<'__gpudata_s>(
                &'__gpudata_s self,
                gpu: &#p::Gpu,
            ) -> ::core::result::Result<
                ::std::vec::Vec<#p::wgpu::BindGroupEntry<'__gpudata_s>>,
                #p::GpuError,
            > {
                #body
            }
        }
    }
}

/// The impl of a struct with errors: no bindings, so its uses type-check and only the
/// struct's own errors are reported.
pub(super) fn fallback(input: &syn::DeriveInput, attrs: &GroupAttrs) -> TokenStream {
    let p = private_ident();
    let krate = &attrs.krate;
    let empty = quote!(&[]);
    let body = quote! {
        let _ = gpu;
        ::core::result::Result::Ok(::std::vec::Vec::new())
    };
    let group_impl = group_impl(input, attrs, &quote!(0), &empty, &empty, &body);
    quote! {
        #[doc(hidden)]
        const _: () = {
            use #krate::__private as #p;
            #group_impl
        };
    }
}
