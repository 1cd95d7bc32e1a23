//! Small token builders the expansion's parts share: literals, options, a type as users write
//! it, a field type's WGSL description and host shape, an attribute's WGSL type, and the leaf
//! counts of a struct the macro checks itself.

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, quote};
use syn::{Ident, Type};

use crate::internals::ast::{is_scalar, runtime_element};
use crate::internals::classify::{Leaves, Nested};
use crate::internals::wgsl_type::{LeafSyntax, ScalarSyntax, WgslTy};

/// `n` as an unsuffixed literal.
pub(super) fn usize_lit(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

/// `Some(value)` or `None`, as an expression.
pub(super) fn option_tokens(value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

/// An array of options: `[None; N]` when every entry is `None` (the common case, and less to
/// compile), else the entries.
pub(super) fn option_array(values: Vec<Option<TokenStream>>) -> TokenStream {
    if values.iter().all(Option::is_none) {
        let n = usize_lit(values.len());
        return quote!([::core::option::Option::None; #n]);
    }
    let values = values.into_iter().map(option_tokens);
    quote!([#(#values),*])
}

/// A declared number (`offset`, `stride`, `align`, `size`) as `Some(16u64)`, or `None`.
pub(super) fn option_u64<T>(value: Option<&(u64, T)>) -> TokenStream {
    option_tokens(value.map(|(n, _)| Literal::u64_suffixed(*n).into_token_stream()))
}

/// A type as a user would write it, for messages: `[u8 ; 4]` → `[u8; 4]`.
pub(super) fn type_string(ty: &Type) -> String {
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

/// A field type's WGSL description, host shape and flat vertex format, as tokens. An array of
/// anything but a scalar (`[Light; 4]`, `[[f32; 4]; 4]`, `[glam::Vec3; 2]`) is `array<E, N>`,
/// described here from its element, so no trait impl for arrays is needed (one would overlap the
/// vertex-format arrays such as `[f32; 3]`, which keep their vector meaning); everything else is
/// the type's `GpuType`.
pub(super) fn describe(ty: &Type, p: &Ident) -> (TokenStream, TokenStream, TokenStream) {
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

/// The tokens of the `WgslType` constant of a `wgsl = "..."` attribute's type.
pub(super) fn wgsl_tokens(ty: &WgslTy, p: &Ident) -> TokenStream {
    let primitive = |scalar: &ScalarSyntax| match scalar {
        ScalarSyntax::F16 => quote!(#p::PrimitiveType::F16),
        ScalarSyntax::I32 => quote!(#p::PrimitiveType::I32),
        ScalarSyntax::U32 => quote!(#p::PrimitiveType::U32),
        ScalarSyntax::F32 => quote!(#p::PrimitiveType::F32),
    };
    match ty {
        WgslTy::Leaf(leaf) => {
            let leaf = match leaf {
                LeafSyntax::Scalar(scalar) => {
                    let primitive = primitive(scalar);
                    quote!(#p::LeafType::Scalar(#primitive))
                }
                LeafSyntax::Atomic(scalar) => {
                    let primitive = primitive(scalar);
                    quote!(#p::LeafType::Atomic(#primitive))
                }
                LeafSyntax::Vector { components, scalar } => {
                    let primitive = primitive(scalar);
                    quote!(#p::LeafType::Vector { components: #components, scalar: #primitive })
                }
                LeafSyntax::Matrix {
                    columns,
                    rows,
                    scalar,
                } => {
                    let primitive = primitive(scalar);
                    quote! {
                        #p::LeafType::Matrix { columns: #columns, rows: #rows, scalar: #primitive }
                    }
                }
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

/// A leaf count: `literal + 3 * <T as GpuType>::LEAVES + ...` over `nested`.
pub(super) fn leaf_sum(literal: usize, nested: &[Nested<'_>], p: &Ident) -> TokenStream {
    let literal = usize_lit(literal);
    let nested = nested.iter().map(|term| {
        let counts = term.counts.iter().copied().map(usize_lit);
        let ty = term.ty;
        quote!(#(#counts *)* <#ty as #p::GpuType>::LEAVES)
    });
    quote!(#literal #(+ #nested)*)
}

/// The struct's leaf count, `GpuType::LEAVES`.
pub(super) fn leaves_tokens(leaves: &Leaves<'_>, p: &Ident) -> TokenStream {
    leaf_sum(leaves.literal, &leaves.nested, p)
}
