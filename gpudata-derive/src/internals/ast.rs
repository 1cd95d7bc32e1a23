//! The typed model of a `#[derive(GpuStruct)]` input: the struct, its fields and their
//! attributes, keeping the original syntax for spans.

use proc_macro2::Span;
use quote::format_ident;
use syn::ext::IdentExt;
use syn::{Ident, Type, Visibility};

use super::attr::{Container, FieldAttrs};
use super::case::{snake_case, upper_camel_case};
use super::ctxt::Ctxt;

/// A struct with named fields.
pub(crate) struct Input<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) vis: &'a Visibility,
    pub(crate) attrs: Container,
    pub(crate) fields: Vec<Field<'a>>,
    /// The span of the struct's braces, for "no fields" errors.
    pub(crate) brace_span: Span,
}

/// One named field.
pub(crate) struct Field<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) ty: &'a Type,
    pub(crate) attrs: FieldAttrs,
}

impl<'a> Input<'a> {
    /// The model of `input`, or `None` (with the reason recorded) when it is not a struct with
    /// named fields and no generic parameters. Attributes are read either way so their errors are
    /// reported in the same build.
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a syn::DeriveInput) -> Option<Input<'a>> {
        let attrs = Container::from_ast(cx, input);
        let mut ok = true;
        if !input.generics.params.is_empty() {
            cx.error_spanned_by(
                &input.generics,
                "generic gpu structs are not supported: the layout is computed for concrete field types at compile time; declare one struct per concrete type (a `macro_rules!` can stamp them out)",
            );
            ok = false;
        }
        let fields = match &input.data {
            syn::Data::Struct(data) => match &data.fields {
                syn::Fields::Named(named) => Some((named, named.brace_token.span.join())),
                syn::Fields::Unnamed(unnamed) => {
                    cx.error_spanned_by(
                        unnamed,
                        "`GpuStruct` needs named fields, which become the gpu field names; write `struct Name { field: Type, ... }`",
                    );
                    None
                }
                syn::Fields::Unit => {
                    cx.error_spanned_by(
                        &input.ident,
                        "`GpuStruct` needs at least one field: a unit struct has no gpu row; write `struct Name { field: Type, ... }`",
                    );
                    None
                }
            },
            syn::Data::Enum(data) => {
                cx.error_spanned_by(
                    data.enum_token,
                    "`GpuStruct` cannot be derived for an enum: a gpu row is a struct with named fields; use a struct (store a variant as a `u32` field)",
                );
                None
            }
            syn::Data::Union(data) => {
                cx.error_spanned_by(
                    data.union_token,
                    "`GpuStruct` cannot be derived for a union: a gpu row is a struct with named fields; use a struct",
                );
                None
            }
        };
        let (named, brace_span) = fields?;
        let fields = named
            .named
            .iter()
            .filter_map(|field| {
                let attrs = FieldAttrs::from_ast(cx, field);
                field.ident.as_ref().map(|ident| Field {
                    ident,
                    ty: &field.ty,
                    attrs,
                })
            })
            .collect();
        ok.then_some(Input {
            ident: &input.ident,
            vis: &input.vis,
            attrs,
            fields,
            brace_span,
        })
    }

    /// Fields stored in the gpu row, in declaration order.
    pub(crate) fn gpu_fields(&self) -> impl Iterator<Item = &Field<'a>> {
        self.fields.iter().filter(|f| f.is_gpu())
    }

    /// The runtime-sized tail: the last field, when it is a [`Field::runtime_element`] field in
    /// the gpu row.
    pub(crate) fn tail(&self) -> Option<&Field<'a>> {
        self.fields
            .last()
            .filter(|f| f.is_gpu() && f.runtime_element().is_some())
    }

    /// The marker module's name: `#[gpu(fields = "...")]`, else `<snake_case name>_fields`.
    pub(crate) fn fields_mod(&self) -> Ident {
        match &self.attrs.fields_mod {
            Some(ident) => ident.clone(),
            None => format_ident!(
                "{}_fields",
                snake_case(&self.ident.unraw().to_string()),
                span = self.ident.span()
            ),
        }
    }
}

impl<'a> Field<'a> {
    /// Whether the field is part of the gpu row (not `#[gpu(padding)]`).
    pub(crate) fn is_gpu(&self) -> bool {
        self.attrs.padding.is_none()
    }

    /// The name in the struct format: `#[gpu(name = "...")]`, else the field's name.
    pub(crate) fn gpu_name(&self) -> String {
        match &self.attrs.name {
            Some(name) => name.value(),
            None => self.ident.unraw().to_string(),
        }
    }

    /// The element type of a `RuntimeArray<E>` field (any path ending in `RuntimeArray` with one
    /// type argument: `gpudata::record::RuntimeArray<Particle>`).
    pub(crate) fn runtime_element(&self) -> Option<&'a Type> {
        runtime_element(self.ty)
    }

    /// The marker type's name, or `None` when the field's name has no UpperCamelCase form.
    pub(crate) fn marker(&self) -> Option<Ident> {
        let name = upper_camel_case(&self.ident.unraw().to_string());
        let valid = name.chars().next().is_some_and(|c| !c.is_ascii_digit())
            && syn::parse_str::<Ident>(&name).is_ok();
        valid.then(|| Ident::new(&name, self.ident.span()))
    }
}

/// The element type of `RuntimeArray<E>` (any path ending in `RuntimeArray` with one type
/// argument: `gpudata::record::RuntimeArray<Particle>`).
pub(crate) fn runtime_element(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if path.qself.is_some() || last.ident != "RuntimeArray" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let mut types = args.args.iter();
    match (types.next(), types.next()) {
        (Some(syn::GenericArgument::Type(ty)), None) => Some(ty),
        _ => None,
    }
}

/// Whether `ty` names a scalar whose arrays are vertex formats (vectors): the Rust primitives and
/// `f16` (`half::f16`).
pub(crate) fn is_scalar(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    path.qself.is_none()
        && path.path.segments.last().is_some_and(|last| {
            ["f32", "u32", "i32", "u16", "i16", "u8", "i8", "f16"]
                .iter()
                .any(|name| last.ident == name)
        })
}
