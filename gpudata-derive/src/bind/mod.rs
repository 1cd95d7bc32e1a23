//! `#[derive(GpuBindGroup)]`: a struct whose fields borrow one bind group's resources. The
//! macro reads `#[bind_group(...)]` and each field's `#[binding(...)]`
//! (`internals::bind_attr`), matches the fields with a named shader's globals
//! (`shader::bind_group`, feature `naga`), and emits, through `gpudata::__private`: each
//! field's `BindingKeys`, one `const` assertion per field that its keys fit its resource
//! (`keys_problem`) and, with a shader, one that it binds its global (`shader_problem`), both
//! spanned at the field, and the `GpuBindGroup` impl. The macro never decides what a resource
//! is: the field type's `BindResource::KIND` does, in `const`.

mod expand;

use proc_macro2::TokenStream;

use crate::internals::bind_attr::{self, FieldKeys, GroupAttrs};
use crate::internals::ctxt::Ctxt;
use crate::shader::bind_group::{BindField, GroupShader, resolve};

/// One field: its name, the type it borrows, and its keys.
pub(crate) struct Field<'a> {
    pub(crate) ident: &'a syn::Ident,
    /// The whole field type (`&'a R`), for spans.
    pub(crate) ty: &'a syn::Type,
    /// `R`.
    pub(crate) resource: &'a syn::Type,
    pub(crate) keys: FieldKeys,
}

/// What the expansion writes for one field.
pub(crate) struct Resolved {
    pub(crate) binding: u32,
    pub(crate) visibility: u32,
    pub(crate) shader_size: Option<u64>,
    /// The `ShaderGlobal` expression, with a shader.
    pub(crate) global: Option<TokenStream>,
    /// The WGSL global's name (the field's, or `global = "..."`).
    pub(crate) global_name: String,
}

/// The whole derive: parse, check, read the shader, expand (or emit a fallback impl).
pub(crate) fn derive(input: &syn::DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let out = derive_in(&cx, input);
    match cx.check() {
        Ok(()) => out,
        Err(errors) => errors.around(out),
    }
}

fn derive_in(cx: &Ctxt, input: &syn::DeriveInput) -> TokenStream {
    let attrs = bind_attr::group_attrs(cx, &input.attrs);
    let syn::Data::Struct(syn::DataStruct {
        fields: syn::Fields::Named(named),
        ..
    }) = &input.data
    else {
        cx.error_spanned_by(
            &input.ident,
            "`GpuBindGroup` is derived for a struct with named fields, one per binding: `struct Globals<'a> { camera: &'a GpuUniform<Camera> }`",
        );
        return TokenStream::new();
    };
    for param in &input.generics.params {
        if !matches!(param, syn::GenericParam::Lifetime(_)) {
            cx.error_spanned_by(
                param,
                "a bind group struct takes lifetimes only (its fields borrow resources): `struct Globals<'a>`",
            );
        }
    }
    let mut fields = Vec::new();
    for f in &named.named {
        let keys = bind_attr::field_keys(cx, &f.attrs);
        let Some(ident) = &f.ident else { continue };
        check_keys(cx, ident, &keys);
        match &f.ty {
            syn::Type::Reference(r) if r.mutability.is_none() => fields.push(Field {
                ident,
                ty: &f.ty,
                resource: &r.elem,
                keys,
            }),
            other => cx.error_spanned_by(
                other,
                "a bind group field borrows its resource: write `&'a GpuUniform<T>`, `&'a wgpu::TextureView`, ...",
            ),
        }
    }
    if cx.blocks() {
        return expand::fallback(input, &attrs);
    }
    let group = attrs.group.as_ref().map_or(0, |(n, _)| *n);
    let p = expand::private_ident();
    let shader = attrs.shader.as_ref().and_then(|_| {
        let bind_fields: Vec<BindField<'_>> = fields
            .iter()
            .map(|f| BindField {
                ident: f.ident,
                keys: &f.keys,
            })
            .collect();
        cx.not_blocking(|| resolve(cx, &p, &attrs, group, &bind_fields))
    });
    let resolved = resolve_fields(cx, &attrs, &fields, shader.as_ref());
    if cx.blocks() {
        return expand::fallback(input, &attrs);
    }
    expand::expand(input, &attrs, &fields, &resolved, shader.as_ref())
}

/// Keys that contradict each other, whatever the resource.
fn check_keys(cx: &Ctxt, ident: &syn::Ident, keys: &FieldKeys) {
    let spot: &dyn quote::ToTokens = match &keys.attr {
        Some(attr) => attr,
        None => ident,
    };
    if keys.is_texture() && keys.is_storage_texture() {
        cx.error_spanned_by(
            spot,
            "a texture field is sampled (`texture`, `sample`, `multisampled`) or a storage texture (`storage_texture`, `format`, `access`), not both",
        );
    } else if keys.is_storage_texture() && keys.format.is_none() {
        cx.error_spanned_by(
            spot,
            "a storage texture needs its texel format: add `format = \"rgba8unorm\"` (the format the wgsl's texture_storage_* declares)",
        );
    }
}

/// Each field's binding number and stages, from the shader when it names them, else from the
/// keys; problems reported at the field.
fn resolve_fields(
    cx: &Ctxt,
    attrs: &GroupAttrs,
    fields: &[Field<'_>],
    shader: Option<&GroupShader>,
) -> Vec<Resolved> {
    let mut out: Vec<Resolved> = Vec::new();
    for (k, f) in fields.iter().enumerate() {
        let bound = shader
            .and_then(|s| s.fields.get(k))
            .and_then(Option::as_ref);
        let global_name = f.keys.global.as_ref().map_or_else(
            || syn::ext::IdentExt::unraw(f.ident).to_string(),
            syn::LitStr::value,
        );
        let binding = match (bound, &f.keys.binding) {
            (Some(b), _) => b.binding,
            (None, Some((n, _))) => *n,
            (None, None) => {
                if shader.is_none() {
                    cx.error_spanned_by(
                        f.ident,
                        format_args!(
                            "field `{}` needs its binding number: `#[binding(N)]`, or name a shader in #[bind_group(shader = \"...\")] to take it from the wgsl global `{global_name}`",
                            f.ident
                        ),
                    );
                }
                0
            }
        };
        let visibility = match (bound, &f.keys.visibility, &attrs.visibility) {
            (Some(b), _, _) => b.visibility,
            (None, Some((bits, _)), _) | (None, None, Some((bits, _))) => *bits,
            (None, None, None) => {
                if shader.is_none() {
                    cx.error_spanned_by(
                        f.ident,
                        format_args!(
                            "field `{}` needs the stages that see it: add `visibility = \"vertex | fragment\"` to #[bind_group(...)] or to the field's #[binding(...)], or name a shader in #[bind_group(shader = \"...\")] to take them from its entry points",
                            f.ident
                        ),
                    );
                }
                0
            }
        };
        if let Some(earlier) = out.iter().position(|r| r.binding == binding)
            && (shader.is_none() || bound.is_some())
        {
            let spot: &dyn quote::ToTokens = match &f.keys.attr {
                Some(attr) => attr,
                None => f.ident,
            };
            cx.error_spanned_by(
                spot,
                format_args!(
                    "field `{}` takes @binding({binding}), which field `{}` binds already; give each field its own binding",
                    f.ident, fields[earlier].ident
                ),
            );
        }
        out.push(Resolved {
            binding,
            visibility,
            shader_size: bound.and_then(|b| b.min_size),
            global: bound.map(|b| b.global.clone()),
            global_name,
        });
    }
    out
}
