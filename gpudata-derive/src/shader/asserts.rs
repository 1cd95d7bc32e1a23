//! The `const` assertions of the compile-time shader check: one per matched member (its offset
//! and its WGSL type tree, `__private::member_problem`), one for the rows' stride
//! (`stride_problem`), one per matched vertex input (`input_problem`), each failing through
//! `__private::fail_if` spanned at the user's tokens; the expansion binds no name.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::ShaderFacts;
use super::wgsl::{Leaf, Member, Primitive, Tree, ValueType};
use crate::internals::ast::Input;
use crate::spans::{fail_if_at, span_range};

fn primitive(p: &Ident, primitive: Primitive) -> TokenStream {
    match primitive {
        Primitive::F32 => quote!(#p::PrimitiveType::F32),
        Primitive::F16 => quote!(#p::PrimitiveType::F16),
        Primitive::I32 => quote!(#p::PrimitiveType::I32),
        Primitive::U32 => quote!(#p::PrimitiveType::U32),
    }
}

fn value_type(p: &Ident, ty: ValueType) -> TokenStream {
    match ty {
        Some((scalar, n)) => {
            let scalar = primitive(p, scalar);
            let n = Literal::u32_suffixed(n);
            quote!(::core::option::Option::Some(#p::ShaderType::new(#scalar, #n)))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn leaf(p: &Ident, leaf: Option<Leaf>) -> TokenStream {
    let Some(leaf) = leaf else {
        return quote!(::core::option::Option::None);
    };
    let leaf = match leaf {
        Leaf::Scalar(s) => {
            let s = primitive(p, s);
            quote!(#p::LeafType::Scalar(#s))
        }
        Leaf::Atomic(s) => {
            let s = primitive(p, s);
            quote!(#p::LeafType::Atomic(#s))
        }
        Leaf::Vector(n, s) => {
            let s = primitive(p, s);
            quote!(#p::LeafType::Vector { components: #n, scalar: #s })
        }
        Leaf::Matrix(c, r, s) => {
            let s = primitive(p, s);
            quote!(#p::LeafType::Matrix { columns: #c, rows: #r, scalar: #s })
        }
    };
    quote!(::core::option::Option::Some(#leaf))
}

/// `tree` as a `__private::ShaderTree` expression (every reference in it is to a constant
/// expression, so it is promoted to `'static`).
pub(super) fn tree(p: &Ident, tree: &Tree) -> TokenStream {
    match tree {
        Tree::Leaf(l, name) => {
            let l = leaf(p, *l);
            quote!(#p::ShaderTree::Leaf { leaf: #l, name: #name })
        }
        Tree::Array(element, count, stride, name) => {
            let element = self::tree(p, element);
            let count = match count {
                Some(n) => {
                    let n = Literal::u32_suffixed(*n);
                    quote!(::core::option::Option::Some(#n))
                }
                None => quote!(::core::option::Option::None),
            };
            let stride = Literal::u64_suffixed(u64::from(*stride));
            quote!(#p::ShaderTree::Array { element: &#element, count: #count, stride: #stride, name: #name })
        }
        Tree::Struct(s) => {
            let (name, at) = (&s.name, &s.at);
            let size = Literal::u64_suffixed(u64::from(s.size));
            let members = s.members.iter().map(|m| {
                let (name, at) = (&m.name, &m.at);
                let member_tree = self::tree(p, &m.tree);
                let (offset, align) = offsets(m);
                quote! {
                    #p::ShaderStructMember {
                        name: #name, at: #at, tree: #member_tree, offset: #offset, align: #align,
                    }
                }
            });
            quote! {
                #p::ShaderTree::Struct(&#p::ShaderStruct {
                    name: #name, at: #at, size: #size, members: &[#(#members),*],
                })
            }
        }
    }
}

fn offsets(m: &Member) -> (Literal, Literal) {
    (
        Literal::u64_suffixed(u64::from(m.offset)),
        Literal::u64_suffixed(u64::from(m.align)),
    )
}

/// `m` as a `__private::ShaderMember` expression named `path`.
fn member_expr(p: &Ident, path: &str, m: &Member) -> TokenStream {
    let at = &m.at;
    let member_tree = tree(p, &m.tree);
    let (offset, align) = offsets(m);
    let size = Literal::u64_suffixed(u64::from(m.size));
    quote!(#p::ShaderMember {
        path: #path, at: #at, tree: #member_tree, offset: #offset, align: #align, size: #size,
    })
}

/// The message of a `zero_copy` problem given the matched members
/// (`__private::zero_copy_message`), for the derive's problem check; `None` without members.
pub(super) fn zero_copy_message(
    facts: &ShaderFacts,
    p: &Ident,
    analysis: &TokenStream,
) -> Option<TokenStream> {
    if facts.members.is_empty() {
        return None;
    }
    let members = facts.members.iter().map(|(k, path, m)| {
        let member = member_expr(p, path, m);
        let k = Literal::usize_unsuffixed(*k);
        quote!((#k, #member))
    });
    Some(quote!(&#p::zero_copy_message(&#analysis, &[#(#members),*])))
}

/// The assertions, inside the derive's `const _: () = { ... }` block.
pub(super) fn expand(
    facts: &ShaderFacts,
    input: &Input<'_>,
    p: &Ident,
    analysis: &TokenStream,
) -> TokenStream {
    let gpu: Vec<_> = input.gpu_fields().collect();
    let field_range = |k: usize| {
        let field = gpu[k];
        let (first, _) = span_range(field.ident);
        let (_, last) = span_range(field.ty);
        (first, last)
    };
    let assert = |problem: TokenStream, range| {
        let fail = fail_if_at(p, &quote!(&#problem), range);
        quote!(const _: () = #fail;)
    };
    let mut out = Vec::new();
    for (k, path, m) in &facts.members {
        let member = member_expr(p, path, m);
        let k_lit = Literal::usize_unsuffixed(*k);
        out.push(assert(
            quote!(#p::member_problem(&#analysis, #k_lit, &#member)),
            field_range(*k),
        ));
    }
    if let Some((name, at, size, one_value, lit)) = &facts.stride {
        let size = Literal::u64_suffixed(u64::from(*size));
        let matched = facts.members.iter().map(|(k, _, m)| {
            let k = Literal::usize_unsuffixed(*k);
            let offset = Literal::u64_suffixed(u64::from(m.offset));
            quote!((#k, #offset))
        });
        out.push(assert(
            quote!(#p::stride_problem(&#analysis, #name, #at, #size, #one_value, &[#(#matched),*])),
            span_range(lit),
        ));
    }
    for (k, path, i) in &facts.inputs {
        let (at, type_name, location) = (&i.at, &i.type_name, i.location);
        let input_ty = value_type(p, i.ty);
        let k_lit = Literal::usize_unsuffixed(*k);
        out.push(assert(
            quote!(#p::input_problem(&#analysis, #k_lit, &#p::ShaderInput {
                path: #path, at: #at, location: #location, ty: #input_ty, type_name: #type_name,
            })),
            field_range(*k),
        ));
    }
    let path = &facts.path;
    quote! {
        // Rebuilds when the shader changes.
        const _: &[::core::primitive::u8] = ::core::include_bytes!(#path);
        #(#out)*
    }
}

/// `const VERTEX_ENTRIES: &[VertexEntry] = &[...];` for the entry points in `facts`, or nothing.
pub(super) fn vertex_entries(facts: &ShaderFacts, p: &Ident) -> TokenStream {
    if facts.entries.is_empty() {
        return TokenStream::new();
    }
    let path = &facts.path;
    let entries = facts.entries.iter().map(|(entry, inputs)| {
        let inputs = inputs.iter().map(|i| {
            let (location, name, at) = (i.location, &i.name, &i.at);
            quote!(#p::EntryInput { location: #location, name: #name, at: #at })
        });
        quote!(#p::VertexEntry { shader: #path, entry: #entry, inputs: &[#(#inputs),*] })
    });
    quote! {
        const VERTEX_ENTRIES: &'static [#p::VertexEntry] = &[#(#entries),*];
    }
}
