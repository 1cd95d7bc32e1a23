//! Rules across fields and attributes that parsing alone cannot see.

use std::collections::HashMap;

use gpudata_names::{WgslNameProblem, field_path_problem, is_predeclared, wgsl_identifier_problem};
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ext::IdentExt;

use super::ast::Input;
use super::attr::LayoutKind;
use super::ctxt::Ctxt;

/// Records every cross-field problem of `input`.
pub(crate) fn check(cx: &Ctxt, input: &Input<'_>) {
    check_has_gpu_fields(cx, input);
    check_padding_fields(cx, input);
    check_names(cx, input);
    check_markers(cx, input);
    check_zero_copy(cx, input);
    check_locations(cx, input);
    check_wgsl_fields(cx, input);
    check_runtime_arrays(cx, input);
}

/// A key and its token, when the key is set.
fn key(name: &'static str, token: Option<&impl ToTokens>) -> Option<(&'static str, TokenStream)> {
    token.map(|t| (name, t.to_token_stream()))
}

/// An error at every key that is set, with `message(key)`.
fn refuse_keys<const N: usize>(
    cx: &Ctxt,
    keys: [Option<(&'static str, TokenStream)>; N],
    message: impl Fn(&str) -> String,
) {
    for (key, at) in keys.into_iter().flatten() {
        cx.error_spanned_by(at, message(key));
    }
}

/// `RuntimeArray<E>` (WGSL's runtime-sized `array<E>`): only as the last field of a
/// `wgsl-storage` struct, with nothing asserted that a header-plus-tail value cannot honour.
fn check_runtime_arrays(cx: &Ctxt, input: &Input<'_>) {
    let last = input.fields.len().saturating_sub(1);
    let mut tail = None;
    for (j, field) in input.fields.iter().enumerate() {
        let Some(element) = field.runtime_element() else {
            continue;
        };
        let name = field.ident;
        if let syn::Type::Array(array) = element
            && !super::ast::is_scalar(&array.elem)
        {
            cx.error_spanned_by(
                element,
                format_args!(
                    "field `{name}`: the element of a `RuntimeArray` is one gpu type (a scalar, vector, matrix or derived struct), not an array of them; wrap the array in a `#[derive(GpuStruct)]` struct"
                ),
            );
        }
        if input.attrs.layout == LayoutKind::Packed {
            cx.error_spanned_by(
                field.ty,
                format_args!(
                    "field `{name}`: the packed layout (vertex rows) cannot hold a `RuntimeArray`, a row has a fixed size; use `#[gpu(layout = \"wgsl-storage\")]` for a storage struct with a runtime-sized tail, or a fixed-size array `[T; N]`"
                ),
            );
        } else if input.attrs.layout == LayoutKind::WgslUniform {
            cx.error_spanned_by(
                field.ty,
                format_args!(
                    "field `{name}`: a `wgsl-uniform` struct cannot hold a `RuntimeArray`, uniform buffers have a fixed size; use a fixed-size array `[T; N]`, or the default `wgsl-storage` layout and bind the struct as `var<storage>`"
                ),
            );
        } else if j != last {
            cx.error_spanned_by(
                field.ty,
                format_args!(
                    "field `{name}`: a `RuntimeArray` must be the struct's last field (WGSL allows a runtime-sized array only as the last member of a storage struct); move `{name}` after every other field"
                ),
            );
        } else {
            tail = Some(field);
        }
        refuse_keys(
            cx,
            [
                key("format", field.attrs.format.as_ref()),
                key("wgsl", field.attrs.wgsl.as_ref().map(|(lit, _)| lit)),
                key("size", field.attrs.size.as_ref().map(|(_, lit)| lit)),
                key("offset", field.attrs.offset.as_ref().map(|(_, lit)| lit)),
                key("padding", field.attrs.padding.as_ref()),
            ],
            |key| {
                format!(
                    "`{key}` does not apply to a `RuntimeArray` field: its element type says what it holds and its offset follows from the fields before it; remove `{key}` (`name` and `align` apply)"
                )
            },
        );
    }
    let Some(tail) = tail else { return };
    let name = tail.ident;
    refuse_keys(
        cx,
        [
            key("zero_copy", input.attrs.zero_copy.as_ref()),
            key("stride", input.attrs.stride.as_ref().map(|(_, lit)| lit)),
            key(
                "location",
                input.attrs.location.as_ref().map(|(_, lit)| lit),
            ),
            key("shader", input.attrs.shader.file.as_ref()),
        ],
        |key| {
            format!(
                "`{key}` does not apply to a struct with a `RuntimeArray` tail (`{name}`): it is a header plus elements, not a row of fixed size; remove `{key}` (the elements' own struct may have it)"
            )
        },
    );
}

/// `align` and `size` place fields by WGSL's memory model: not in `packed` rows (where `wgsl`
/// only says what the field is: its leaves are placed by vertex rules); none of the three on
/// padding fields, and `wgsl` not with `format`.
fn check_wgsl_fields(cx: &Ctxt, input: &Input<'_>) {
    let packed = input.attrs.layout == LayoutKind::Packed;
    for field in &input.fields {
        let tokens = [
            field
                .attrs
                .wgsl
                .as_ref()
                .map(|(lit, _)| ("wgsl", lit.to_token_stream())),
            field
                .attrs
                .align
                .as_ref()
                .map(|(_, lit)| ("align", lit.to_token_stream())),
            field
                .attrs
                .size
                .as_ref()
                .map(|(_, lit)| ("size", lit.to_token_stream())),
        ];
        for (key, at) in tokens.into_iter().flatten() {
            if field.attrs.padding.is_some() {
                cx.error_spanned_by(
                    at,
                    format_args!(
                        "a `#[gpu(padding)]` field is not in the gpu row, so `{key}` does not apply; remove one of them"
                    ),
                );
            } else if packed && key != "wgsl" {
                cx.error_spanned_by(
                    at,
                    format_args!(
                        "`{key}` places a field by WGSL's memory model, which the packed layout (WebGPU vertex rules) does not follow; use `#[gpu(layout = \"wgsl-storage\")]` or `\"wgsl-uniform\"`"
                    ),
                );
            }
        }
        if let (Some((wgsl, _)), Some(format)) = (&field.attrs.wgsl, &field.attrs.format) {
            cx.error_spanned_by(
                wgsl,
                format_args!(
                    "`wgsl = {:?}` and `format = {:?}` both say what the field is; keep one",
                    wgsl.value(),
                    format.value()
                ),
            );
        }
    }
}

fn check_has_gpu_fields(cx: &Ctxt, input: &Input<'_>) {
    if input.fields.is_empty() {
        cx.error_at(
            input.brace_span,
            "`GpuStruct` needs at least one field: an empty struct has no gpu row; add a field such as `position: [f32; 3]`",
        );
    } else if input.gpu_fields().next().is_none() {
        cx.error_spanned_by(
            input.ident,
            "every field is `#[gpu(padding)]`, so the gpu row is empty; keep at least one field without `padding`",
        );
    }
}

fn check_padding_fields(cx: &Ctxt, input: &Input<'_>) {
    for field in &input.fields {
        if field.attrs.padding.is_none() {
            continue;
        }
        if let Some(format) = &field.attrs.format {
            cx.error_spanned_by(
                format,
                "a `#[gpu(padding)]` field is not in the gpu row, so `format` does not apply; remove one of them",
            );
        }
        if let Some(name) = &field.attrs.name {
            cx.error_spanned_by(
                name,
                "a `#[gpu(padding)]` field is not in the gpu row, so `name` does not apply; remove one of them",
            );
        }
        if let Some((_, offset)) = &field.attrs.offset {
            cx.error_spanned_by(
                offset,
                "a `#[gpu(padding)]` field is not in the gpu row, so `offset` does not apply; remove one of them",
            );
        }
    }
}

/// Gpu field names follow the runtime's field-path rule (`gpudata-names`, the same function);
/// in a `wgsl-storage` or `wgsl-uniform` struct, whose `GpuType::WGSL` declares a WGSL struct
/// of these names, the struct's name and every field name also follow the runtime's WGSL
/// identifier rule, so that `StructDecl::wgsl` cannot refuse them later. A `packed` struct has
/// no WGSL declaration (it does not nest, and its flat `FORMAT.wgsl_struct` is the runtime's
/// fallible conversion of any format): its names stay free field paths, like vertex attributes.
/// Every name is known here, so the rule costs nothing at const evaluation.
fn check_names(cx: &Ctxt, input: &Input<'_>) {
    let wgsl = input.attrs.layout != LayoutKind::Packed;
    if wgsl {
        check_wgsl_struct_name(cx, input);
    }
    let mut seen: HashMap<String, String> = HashMap::new();
    for field in input.gpu_fields() {
        let name = field.gpu_name();
        let at = match &field.attrs.name {
            Some(lit) => lit.to_token_stream(),
            None => field.ident.to_token_stream(),
        };
        if name.is_empty() {
            cx.error_spanned_by(
                at,
                "gpu field names cannot be empty; write a name such as `name = \"a_position\"`",
            );
            continue;
        }
        if let Some(problem) = field_path_problem(&name) {
            cx.error_spanned_by(
                at,
                format_args!(
                    "gpu field name {name:?} is not a field path: expected identifiers joined by `.`, each with optional `[N]` indices (`position`, `lights[1].color`), found {problem}; write a name such as `name = \"a_position\"`"
                ),
            );
            continue;
        }
        if wgsl && let Some(problem) = wgsl_identifier_problem(&name) {
            let instead = match problem {
                WgslNameProblem::Reserved => format!("{name}_"),
                _ => "a_position".to_owned(),
            };
            cx.error_spanned_by(
                at,
                format_args!(
                    "gpu field name {name:?} cannot name a member of the struct's WGSL declaration: expected a WGSL identifier (ASCII letters, digits and `_`, not starting with a digit or `__`, not a WGSL keyword or reserved word), found {problem}; write a name such as `name = \"{instead}\"`, or use `#[gpu(layout = \"packed\")]` for vertex rows, which have no WGSL declaration"
                ),
            );
            continue;
        }
        if let Some(first) = seen.get(&name) {
            cx.error_spanned_by(
                at,
                format_args!(
                    "duplicate gpu field name `{name}`: field `{first}` already uses it; give one of them another `#[gpu(name = \"...\")]`"
                ),
            );
        } else {
            seen.insert(name, field.ident.to_string());
        }
    }
}

/// The struct's name names its WGSL declaration: a WGSL identifier that shadows no predeclared
/// name (the runtime's `WgslError::InvalidName` / `PredeclaredName`, decided here instead).
fn check_wgsl_struct_name(cx: &Ctxt, input: &Input<'_>) {
    let name = input.ident.unraw().to_string();
    let found = match wgsl_identifier_problem(&name) {
        Some(problem) => problem.to_string(),
        None if is_predeclared(&name) => "a WGSL predeclared type, address space, access mode or built-in function, which the struct would shadow in the whole module".to_owned(),
        None => return,
    };
    cx.error_spanned_by(
        input.ident,
        format_args!(
            "struct name `{name}` cannot name the struct's WGSL declaration: expected a WGSL identifier that is not predeclared, found {found}; rename the struct, or use `#[gpu(layout = \"packed\")]` for vertex rows, which have no WGSL declaration"
        ),
    );
}

fn check_markers(cx: &Ctxt, input: &Input<'_>) {
    let mut seen: HashMap<String, String> = HashMap::new();
    for field in input.gpu_fields() {
        let Some(marker) = field.marker() else {
            cx.error_spanned_by(
                field.ident,
                format_args!(
                    "field `{}` has no UpperCamelCase form to name its marker type; rename the field",
                    field.ident
                ),
            );
            continue;
        };
        let marker = marker.to_string();
        if let Some(first) = seen.get(&marker) {
            cx.error_spanned_by(
                field.ident,
                format_args!(
                    "fields `{first}` and `{}` would both get the marker type `{marker}`; rename one of them",
                    field.ident
                ),
            );
        } else {
            seen.insert(marker, field.ident.to_string());
        }
    }
}

fn check_zero_copy(cx: &Ctxt, input: &Input<'_>) {
    if let Some(zero_copy) = &input.attrs.zero_copy
        && !input.attrs.repr_c
    {
        cx.error_spanned_by(
            zero_copy,
            "`zero_copy` needs `#[repr(C)]` on the struct, so its host layout is fixed; add `#[repr(C)]`",
        );
    }
}

fn check_locations(cx: &Ctxt, input: &Input<'_>) {
    if let Some((base, lit)) = &input.attrs.location {
        let count = input.gpu_fields().count() as u64;
        if u64::from(*base) + count > u64::from(u32::MAX) + 1 {
            cx.error_spanned_by(
                lit,
                format_args!(
                    "shader locations {base}.. for {count} fields overflow u32; use a smaller `location`"
                ),
            );
        }
    }
}
