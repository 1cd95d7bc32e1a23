//! `#[gpu(...)]` and `#[repr(...)]` parsing into typed holders. Parsers record errors in the
//! [`Ctxt`] and return what they could read, so every bad key of a struct is reported at once.

use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::{Ident, LitInt, LitStr};

use super::ctxt::Ctxt;
use super::symbol::{
    ALIGN, CRATE, FIELDS, FORMAT, GPU, LAYOUT, LOCATION, NAME, OFFSET, PADDING, REPR, SIZE,
    STEP_MODE, STRIDE, Symbol, WGSL, ZERO_COPY,
};
use super::value::{flag, int_value, skip_value, string_value};
use super::wgsl_type::{self, WgslTy};

/// One key's value, remembering that it was set so a second setting is reported.
struct Attr<'c, T> {
    cx: &'c Ctxt,
    name: Symbol,
    value: Option<T>,
}

impl<'c, T> Attr<'c, T> {
    fn none(cx: &'c Ctxt, name: Symbol) -> Self {
        Attr {
            cx,
            name,
            value: None,
        }
    }

    /// Sets the value; `key` is the key's token, where a duplicate is reported.
    fn set<A: ToTokens>(&mut self, key: A, value: T) {
        if self.value.is_some() {
            self.cx.error_spanned_by(
                key,
                format_args!("duplicate gpu attribute `{}`; keep one", self.name),
            );
        } else {
            self.value = Some(value);
        }
    }

    fn get(self) -> Option<T> {
        self.value
    }
}

/// The struct layout rules named by `layout = "..."`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LayoutKind {
    WgslStorage,
    WgslUniform,
    Packed,
}

/// The step mode named by `step_mode = "..."`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StepModeKind {
    Vertex,
    Instance,
}

/// Struct-level attributes.
pub(crate) struct Container {
    pub(crate) layout: LayoutKind,
    pub(crate) step_mode: StepModeKind,
    /// `location = N`: the first shader location.
    pub(crate) location: Option<(u32, LitInt)>,
    /// `crate = "path"`.
    pub(crate) krate: syn::Path,
    /// `stride = N` assertion.
    pub(crate) stride: Option<(u64, LitInt)>,
    /// `zero_copy`, kept as its token for spans.
    pub(crate) zero_copy: Option<syn::Path>,
    /// `fields = "name"`: the marker module.
    pub(crate) fields_mod: Option<Ident>,
    /// `#[repr(C)]` is present.
    pub(crate) repr_c: bool,
    /// `shader`, `shader_struct`, `vertex_entry`.
    pub(crate) shader: super::shader_attr::ShaderAttrs,
}

/// Field-level attributes.
#[derive(Default)]
pub(crate) struct FieldAttrs {
    /// `format = "..."`.
    pub(crate) format: Option<LitStr>,
    /// `name = "..."`.
    pub(crate) name: Option<LitStr>,
    /// `offset = N` assertion.
    pub(crate) offset: Option<(u64, LitInt)>,
    /// `padding`, kept as its token for spans.
    pub(crate) padding: Option<syn::Path>,
    /// `wgsl = "..."`: the string and the type read from it.
    pub(crate) wgsl: Option<(LitStr, WgslTy)>,
    /// `align = N`.
    pub(crate) align: Option<(u64, LitInt)>,
    /// `size = N`.
    pub(crate) size: Option<(u64, LitInt)>,
}

const STRUCT_KEYS: &str = "`layout`, `step_mode`, `location`, `stride`, `zero_copy`, `fields`, `crate`, `shader`, `shader_struct`, `vertex_entry`, `shader_global`, `group` or `binding`";
const FIELD_KEYS: &str = "`format`, `wgsl`, `name`, `offset`, `align`, `size` or `padding`";

impl Container {
    /// Reads `#[gpu(...)]` and `#[repr(...)]` from the struct's attributes.
    pub(crate) fn from_ast(cx: &Ctxt, input: &syn::DeriveInput) -> Container {
        let mut layout = Attr::none(cx, LAYOUT);
        let mut step_mode = Attr::none(cx, STEP_MODE);
        let mut location = Attr::none(cx, LOCATION);
        let mut krate = Attr::none(cx, CRATE);
        let mut stride = Attr::none(cx, STRIDE);
        let mut zero_copy = Attr::none(cx, ZERO_COPY);
        let mut fields_mod = Attr::none(cx, FIELDS);
        let mut repr_c = false;
        let mut shader = super::shader_attr::ShaderAttrs::default();

        for attr in &input.attrs {
            if attr.path() == REPR {
                repr_c |= repr_has_c(attr);
                continue;
            }
            if attr.path() != GPU || !is_list(cx, attr) {
                continue;
            }
            let parsed = attr.parse_nested_meta(|meta| {
                if meta.path == LAYOUT {
                    let Some(s) = string_value(cx, &meta, LAYOUT, "layout = \"packed\"")? else {
                        layout.set(&meta.path, None);
                        return Ok(());
                    };
                    let kind = match s.value().as_str() {
                        "wgsl-storage" => Some(LayoutKind::WgslStorage),
                        "wgsl-uniform" => Some(LayoutKind::WgslUniform),
                        "packed" => Some(LayoutKind::Packed),
                        other => {
                            cx.error_spanned_by(
                                &s,
                                format_args!(
                                    "unknown layout `{other}`; expected `wgsl-storage` (the default), `wgsl-uniform` or `packed`"
                                ),
                            );
                            None
                        }
                    };
                    layout.set(&meta.path, kind);
                } else if meta.path == STEP_MODE {
                    let Some(s) = string_value(cx, &meta, STEP_MODE, "step_mode = \"instance\"")?
                    else {
                        step_mode.set(&meta.path, None);
                        return Ok(());
                    };
                    let kind = match s.value().as_str() {
                        "vertex" => Some(StepModeKind::Vertex),
                        "instance" => Some(StepModeKind::Instance),
                        other => {
                            cx.error_spanned_by(
                                &s,
                                format_args!(
                                    "unknown step mode `{other}`; expected `vertex` (the default) or `instance`"
                                ),
                            );
                            None
                        }
                    };
                    step_mode.set(&meta.path, kind);
                } else if meta.path == LOCATION {
                    let value = int_value::<u32>(cx, &meta, LOCATION, "location = 0")?;
                    location.set(&meta.path, value);
                } else if meta.path == STRIDE {
                    let value = int_value::<u64>(cx, &meta, STRIDE, "stride = 32")?;
                    stride.set(&meta.path, value);
                } else if meta.path == CRATE {
                    let value = string_value(cx, &meta, CRATE, "crate = \"::gpudata\"")?
                        .and_then(|s| match s.parse::<syn::Path>() {
                            Ok(path) => Some(path),
                            Err(_) => {
                                cx.error_spanned_by(
                                    &s,
                                    "`crate` expects the path gpudata is reachable at, such as `\"::gpudata\"` or `\"my_engine::gpudata\"`",
                                );
                                None
                            }
                        });
                    krate.set(&meta.path, value);
                } else if meta.path == FIELDS {
                    let value = string_value(cx, &meta, FIELDS, "fields = \"particle_fields\"")?
                        .and_then(|s| match s.parse::<Ident>() {
                            Ok(ident) => Some(ident),
                            Err(_) => {
                                cx.error_spanned_by(
                                    &s,
                                    "`fields` expects a module name such as `\"particle_fields\"`",
                                );
                                None
                            }
                        });
                    fields_mod.set(&meta.path, value);
                } else if meta.path == ZERO_COPY {
                    if flag(cx, &meta, ZERO_COPY)? {
                        zero_copy.set(&meta.path, meta.path.clone());
                    }
                } else if !shader.parse_key(cx, &meta)? {
                    unknown_key(cx, &meta, "struct", STRUCT_KEYS)?;
                }
                Ok(())
            });
            if let Err(err) = parsed {
                cx.syn_error(err);
            }
        }

        Container {
            layout: layout.get().flatten().unwrap_or(LayoutKind::WgslStorage),
            step_mode: step_mode.get().flatten().unwrap_or(StepModeKind::Vertex),
            location: location.get().flatten(),
            krate: krate
                .get()
                .flatten()
                .unwrap_or_else(|| syn::parse_quote!(::gpudata)),
            stride: stride.get().flatten(),
            zero_copy: zero_copy.get(),
            fields_mod: fields_mod.get().flatten(),
            repr_c,
            shader,
        }
    }
}

impl FieldAttrs {
    /// Reads `#[gpu(...)]` from a field's attributes.
    pub(crate) fn from_ast(cx: &Ctxt, field: &syn::Field) -> FieldAttrs {
        let mut format = Attr::none(cx, FORMAT);
        let mut name = Attr::none(cx, NAME);
        let mut offset = Attr::none(cx, OFFSET);
        let mut padding = Attr::none(cx, PADDING);
        let mut wgsl = Attr::none(cx, WGSL);
        let mut align = Attr::none(cx, ALIGN);
        let mut size = Attr::none(cx, SIZE);

        for attr in &field.attrs {
            if attr.path() != GPU || !is_list(cx, attr) {
                continue;
            }
            let parsed = attr.parse_nested_meta(|meta| {
                if meta.path == FORMAT {
                    let value = string_value(cx, &meta, FORMAT, "format = \"unorm8x4\"")?;
                    format.set(&meta.path, value);
                } else if meta.path == NAME {
                    let value = string_value(cx, &meta, NAME, "name = \"a_position\"")?;
                    name.set(&meta.path, value);
                } else if meta.path == OFFSET {
                    let value = int_value::<u64>(cx, &meta, OFFSET, "offset = 16")?;
                    offset.set(&meta.path, value);
                } else if meta.path == PADDING {
                    if flag(cx, &meta, PADDING)? {
                        padding.set(&meta.path, meta.path.clone());
                    }
                } else if meta.path == WGSL {
                    let value = string_value(cx, &meta, WGSL, "wgsl = \"mat4x4<f32>\"")?
                        .and_then(|s| match wgsl_type::parse(&s.value()) {
                            Some(ty) => Some((s, ty)),
                            None => {
                                cx.error_spanned_by(
                                    &s,
                                    format_args!(
                                        "`{}` is not a WGSL type gpudata reads here; expected a scalar (`f32`, `f16`, `i32`, `u32`), `vecN<T>`, `matCxR<T>`, `atomic<T>`, a shorthand such as `vec3f`, or `array<E, N>` of them",
                                        s.value()
                                    ),
                                );
                                None
                            }
                        });
                    wgsl.set(&meta.path, value);
                } else if meta.path == ALIGN {
                    let value = int_value::<u64>(cx, &meta, ALIGN, "align = 16")?;
                    align.set(&meta.path, value);
                } else if meta.path == SIZE {
                    let value = int_value::<u64>(cx, &meta, SIZE, "size = 32")?;
                    size.set(&meta.path, value);
                } else {
                    unknown_key(cx, &meta, "field", FIELD_KEYS)?;
                }
                Ok(())
            });
            if let Err(err) = parsed {
                cx.syn_error(err);
            }
        }

        FieldAttrs {
            format: format.get().flatten(),
            name: name.get().flatten(),
            offset: offset.get().flatten(),
            padding: padding.get(),
            wgsl: wgsl.get().flatten(),
            align: align.get().flatten(),
            size: size.get().flatten(),
        }
    }
}

/// `#[gpu(...)]` must be a list; `#[gpu]` and `#[gpu = ...]` are reported.
fn is_list(cx: &Ctxt, attr: &syn::Attribute) -> bool {
    match &attr.meta {
        syn::Meta::List(_) => true,
        other => {
            cx.error_spanned_by(
                other,
                "expected `#[gpu(key = value, ...)]`, e.g. `#[gpu(layout = \"packed\")]`",
            );
            false
        }
    }
}

/// Whether `#[repr(...)]` lists `C`.
fn repr_has_c(attr: &syn::Attribute) -> bool {
    let mut c = false;
    // rustc reports malformed `repr`s itself; only `C` matters here.
    let _ = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("C") {
            c = true;
        }
        skip_value(&meta)
    });
    c
}

/// Reports an unknown key and skips its value.
fn unknown_key(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    level: &str,
    expected: &str,
) -> syn::Result<()> {
    let path = meta.path.to_token_stream().to_string().replace(' ', "");
    cx.error_spanned_by(
        &meta.path,
        format_args!("unknown gpu {level} attribute `{path}`; expected {expected}"),
    );
    skip_value(meta)
}
