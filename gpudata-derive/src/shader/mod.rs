//! The compile-time shader check: `#[gpu(shader = "file.wgsl", shader_struct = "Name")]` and
//! `#[gpu(shader = "file.wgsl", vertex_entry = "vs_main")]` (feature `naga`).
//!
//! At expansion the macro reads the file (relative to `CARGO_MANIFEST_DIR`), parses it with
//! naga and matches the struct's fields with the WGSL struct's members by name, or with the
//! entry point's inputs by location. What names alone decide (a field without a member, a member
//! without a field, a location nobody reads, an unreadable or invalid file) is reported here,
//! spanned at the field or the attribute. What needs the derived layout (offsets, formats, the
//! stride) becomes `const` assertions calling gpudata's `const fn` rules
//! (`__private::member_problem`, `stride_problem`, `input_problem`), spanned at the field. An
//! `include_bytes!` of the file makes cargo rebuild when it changes.

mod attr;
#[cfg(feature = "naga")]
mod wgsl;

pub(crate) use attr::ShaderAttrs;

use proc_macro2::TokenStream;

use crate::internals::ast::Input;
use crate::internals::ctxt::Ctxt;

/// What the expansion asserts, read from the WGSL file (never built without feature `naga`).
#[cfg_attr(not(feature = "naga"), allow(dead_code))]
pub(crate) struct ShaderFacts {
    /// The file's absolute path, for `include_bytes!`.
    #[cfg(feature = "naga")]
    path: String,
    /// `(gpu field index, member)` pairs, and the struct's path, position and size.
    #[cfg(feature = "naga")]
    members: Vec<(usize, String, wgsl::Member)>,
    #[cfg(feature = "naga")]
    stride: Option<(String, String, u32)>,
    /// `(gpu field index, input)` pairs with the entry point's name.
    #[cfg(feature = "naga")]
    inputs: Vec<(usize, String, wgsl::Input)>,
}

/// Reads the WGSL facts the struct's shader attributes ask for, recording every problem in
/// `cx`; `None` when there is nothing to check.
pub(crate) fn read(cx: &Ctxt, input: &Input<'_>) -> Option<ShaderFacts> {
    let attrs = &input.attrs.shader;
    let Some(file) = &attrs.file else {
        for lit in [&attrs.shader_struct, &attrs.vertex_entry]
            .into_iter()
            .flatten()
        {
            cx.error_spanned_by(
                lit,
                "this key names a part of a shader: add `shader = \"path/to/file.wgsl\"` (relative to the crate's Cargo.toml)",
            );
        }
        return None;
    };
    if attrs.shader_struct.is_none() && attrs.vertex_entry.is_none() {
        cx.error_spanned_by(
            file,
            "`shader` needs what to check: add `shader_struct = \"Name\"` (a WGSL struct the rows must match) or `vertex_entry = \"vs_main\"` (an entry point the attributes feed)",
        );
        return None;
    }
    read_file(cx, input, file)
}

#[cfg(not(feature = "naga"))]
fn read_file(cx: &Ctxt, _input: &Input<'_>, file: &syn::LitStr) -> Option<ShaderFacts> {
    cx.error_spanned_by(
        file,
        "the shader check needs gpudata's `naga` feature: add `features = [\"naga\"]` to the gpudata dependency",
    );
    None
}

#[cfg(feature = "naga")]
fn read_file(cx: &Ctxt, input: &Input<'_>, file: &syn::LitStr) -> Option<ShaderFacts> {
    let relative = file.value();
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    let path = std::path::Path::new(&dir).join(&relative);
    let shader = match wgsl::Wgsl::load(&relative, &path) {
        Ok(shader) => shader,
        Err(message) => {
            cx.error_spanned_by(file, message);
            return None;
        }
    };
    let mut facts = ShaderFacts {
        path: path.to_string_lossy().into_owned(),
        members: Vec::new(),
        stride: None,
        inputs: Vec::new(),
    };
    let attrs = &input.attrs.shader;
    if let Some(lit) = &attrs.shader_struct {
        let name = lit.value();
        match shader.struct_named(&name) {
            None => cx.error_spanned_by(
                lit,
                format_args!(
                    "the shader `{relative}` declares no struct `{name}`; its structs: {}",
                    list(&shader.struct_names())
                ),
            ),
            Some(found) => {
                let mut members: Vec<Option<wgsl::Member>> =
                    found.members.into_iter().map(Some).collect();
                for (k, field) in input.gpu_fields().enumerate() {
                    let gpu_name = field.gpu_name();
                    let slot = members
                        .iter_mut()
                        .find(|m| m.as_ref().is_some_and(|m| m.name == gpu_name));
                    match slot.and_then(Option::take) {
                        Some(member) => {
                            facts.members.push((k, format!("{name}.{gpu_name}"), member));
                        }
                        None => cx.error_spanned_by(
                            field.ident,
                            format_args!(
                                "field `{gpu_name}` has no member in wgsl struct `{name}` ({}); add it to the wgsl, rename the field with #[gpu(name = \"...\")], or make it #[gpu(padding)]",
                                found.at
                            ),
                        ),
                    }
                }
                for member in members.into_iter().flatten() {
                    cx.error_spanned_by(
                        lit,
                        format_args!(
                            "wgsl member `{name}.{}` ({}, {} at offset {}) has no field in the struct; add one, or rename a field with #[gpu(name = \"...\")]",
                            member.name, member.at, member.type_name, member.offset
                        ),
                    );
                }
                facts.stride = Some((name, found.at, found.size));
            }
        }
    }
    if let Some(lit) = &attrs.vertex_entry {
        let entry = lit.value();
        match shader.vertex_inputs(&entry) {
            None => cx.error_spanned_by(
                lit,
                format_args!("the shader `{relative}` has no vertex entry point `{entry}`"),
            ),
            Some(mut inputs) => {
                let base = input.attrs.location.as_ref().map_or(0, |(n, _)| *n);
                let read: Vec<String> = inputs.iter().map(|i| i.location.to_string()).collect();
                for (k, field) in input.gpu_fields().enumerate() {
                    let location = u32::try_from(k).ok().and_then(|k| base.checked_add(k));
                    let found = inputs.iter().position(|i| Some(i.location) == location);
                    match found {
                        Some(i) => {
                            let input = inputs.swap_remove(i);
                            facts.inputs.push((k, format!("{entry}({})", input.name), input));
                        }
                        None => cx.error_spanned_by(
                            field.ident,
                            format_args!(
                                "field `{}` feeds location {}, which wgsl `{entry}` does not read (it reads {}); check #[gpu(location = N)] and the field order",
                                field.gpu_name(),
                                location.map_or_else(|| "past u32::MAX".to_owned(), |l| l.to_string()),
                                if read.is_empty() { "no location".to_owned() } else { format!("locations {}", read.join(", ")) }
                            ),
                        ),
                    }
                }
            }
        }
    }
    Some(facts)
}

#[cfg(feature = "naga")]
fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The `const` assertions of `facts`, inside the derive's `const _: () = { ... }` block.
#[cfg(not(feature = "naga"))]
pub(crate) fn expand(
    _facts: &ShaderFacts,
    _input: &Input<'_>,
    _p: &TokenStream,
    _analysis: &TokenStream,
) -> TokenStream {
    TokenStream::new()
}

/// The `const` assertions of `facts`, inside the derive's `const _: () = { ... }` block.
#[cfg(feature = "naga")]
pub(crate) fn expand(
    facts: &ShaderFacts,
    input: &Input<'_>,
    p: &TokenStream,
    analysis: &TokenStream,
) -> TokenStream {
    use crate::expand::{fail_at, span_range};
    use proc_macro2::Literal;
    use quote::{format_ident, quote};

    let msg = format_ident!("__gpudata_msg");
    let gpu: Vec<_> = input.gpu_fields().collect();
    let field_range = |k: usize| {
        let field = gpu[k];
        let (first, _) = span_range(field.ident);
        let (_, last) = span_range(field.ty);
        (first, last)
    };
    let ty = |ty: wgsl::ValueType| match ty {
        Some((primitive, n)) => {
            let primitive = match primitive {
                wgsl::Primitive::F32 => quote!(F32),
                wgsl::Primitive::F16 => quote!(F16),
                wgsl::Primitive::I32 => quote!(I32),
                wgsl::Primitive::U32 => quote!(U32),
            };
            let n = Literal::u32_suffixed(n);
            quote!(::core::option::Option::Some(#p::ShaderType::new(#p::PrimitiveType::#primitive, #n)))
        }
        None => quote!(::core::option::Option::None),
    };
    let assert = |check: TokenStream, range| {
        let fail = fail_at(p, &msg, range);
        quote!(const _: () = if let ::core::option::Option::Some(#msg) = &#check { #fail };)
    };
    let mut out = Vec::new();
    for (k, path, m) in &facts.members {
        let (at, type_name) = (&m.at, &m.type_name);
        let (offset, align) = (u64::from(m.offset), u64::from(m.align));
        let member_ty = ty(m.ty);
        let k_lit = Literal::usize_unsuffixed(*k);
        out.push(assert(
            quote!(#p::member_problem(&#analysis, #k_lit, &#p::ShaderMember {
                path: #path, at: #at, ty: #member_ty, type_name: #type_name, offset: #offset, align: #align,
            })),
            field_range(*k),
        ));
    }
    if let (Some((name, at, size)), Some(lit)) = (&facts.stride, &input.attrs.shader.shader_struct)
    {
        let size = u64::from(*size);
        out.push(assert(
            quote!(#p::stride_problem(&#analysis, #name, #at, #size)),
            span_range(lit),
        ));
    }
    for (k, path, i) in &facts.inputs {
        let (at, type_name, location) = (&i.at, &i.type_name, i.location);
        let input_ty = ty(i.ty);
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
        const _: &[u8] = ::core::include_bytes!(#path);
        #(#out)*
    }
}
