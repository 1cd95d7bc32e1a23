//! What names decide: the struct's fields matched with a WGSL struct's members by name (for
//! `shader_struct` and the rows of `shader_global`), with an entry point's inputs by location (for
//! `vertex_entry`), and a global's `@group/@binding` and address space. Each problem is a macro
//! error spanned at the field or the attribute; the matched pairs go to the `const` assertions.

use syn::LitStr;

use super::ShaderFacts;
use super::wgsl::{Struct, Wgsl};
use crate::internals::ast::Input;
use crate::internals::ctxt::Ctxt;

/// `shader_struct = "Name"`: the fields against the struct `Name`.
pub(super) fn shader_struct(
    cx: &Ctxt,
    input: &Input<'_>,
    shader: &Wgsl,
    lit: &LitStr,
    facts: &mut ShaderFacts,
) {
    let name = lit.value();
    match shader.struct_named(&name) {
        None => cx.error_spanned_by(
            lit,
            format_args!(
                "the shader `{}` declares no struct `{name}`; its structs: {}",
                shader.file(),
                list(&shader.struct_names())
            ),
        ),
        Some(found) => rows(
            cx,
            input,
            lit,
            found,
            &name,
            &name,
            Step::Array(None),
            facts,
        ),
    }
}

/// `shader_global = "name", group = N, binding = M`: the global's binding and address space, and
/// the fields against the struct rows its type holds.
pub(super) fn shader_global(
    cx: &Ctxt,
    input: &Input<'_>,
    shader: &Wgsl,
    lit: &LitStr,
    facts: &mut ShaderFacts,
) {
    let name = lit.value();
    let Some(global) = shader.global_named(&name) else {
        cx.error_spanned_by(
            lit,
            format_args!(
                "the shader `{}` declares no global `{name}`; its uniform and storage globals: {}",
                shader.file(),
                list(&shader.global_names())
            ),
        );
        return;
    };
    let attrs = &input.attrs.shader;
    let at = &global.at;
    let Some(space) = &global.space else {
        cx.error_spanned_by(
            lit,
            format_args!(
                "wgsl `{name}` ({at}) is not a uniform or storage buffer; the check compares the rows of `var<uniform>` and `var<storage>` globals"
            ),
        );
        return;
    };
    match global.binding {
        None => cx.error_spanned_by(
            lit,
            format_args!(
                "wgsl `{name}` ({at}) has no @group/@binding; declare it `@group(N) @binding(M) var<{space}> {name}: ...`"
            ),
        ),
        Some((group, binding)) => {
            for (host, shader_value, key) in [
                (&attrs.group, group, "group"),
                (&attrs.binding, binding, "binding"),
            ] {
                if let Some((n, lit)) = host
                    && *n != shader_value
                {
                    cx.error_spanned_by(
                        lit,
                        format_args!(
                            "`{key} = {n}`, but wgsl `{name}` ({at}) is declared @group({group}) @binding({binding}); make the two agree"
                        ),
                    );
                }
            }
        }
    }
    let Some((rows_struct, stride, suffix)) = global.rows else {
        cx.error_spanned_by(
            lit,
            format_args!(
                "wgsl `{name}` ({at}) is `var<{space}> {name}: {}`, which holds no struct rows; the check compares a struct, an `array<S>`, or a struct ending in a runtime-sized `array<S>`",
                global.type_name
            ),
        );
        return;
    };
    let rows_name = format!("{name}{}", suffix.trim_end_matches('.'));
    let prefix = format!("{name}{suffix}");
    rows(
        cx,
        input,
        lit,
        rows_struct,
        &rows_name,
        prefix.trim_end_matches('.'),
        // A struct global holds one value; arrays step by their stride.
        if suffix == "." {
            Step::One(stride)
        } else {
            Step::Array(Some(stride))
        },
        facts,
    );
}

/// How the shader's rows step: the one value of a struct global (its size), or an array's
/// elements (its stride; the struct's size when `None`).
#[derive(Clone, Copy)]
enum Step {
    One(u32),
    Array(Option<u32>),
}

/// The fields against `found`'s members by name: each matched pair is asserted; a field without a
/// member, a member without a field is an error. The rows step as `step` says; `subject` names
/// them in the stride assertion, `prefix` each member's path.
#[allow(
    clippy::too_many_arguments,
    reason = "the two callers differ in every one of them"
)]
fn rows(
    cx: &Ctxt,
    input: &Input<'_>,
    lit: &LitStr,
    found: Struct,
    subject: &str,
    prefix: &str,
    step: Step,
    facts: &mut ShaderFacts,
) {
    let struct_name = found.name.clone();
    let mut members: Vec<Option<_>> = found.members.into_iter().map(Some).collect();
    for (k, field) in input.gpu_fields().enumerate() {
        let gpu_name = field.gpu_name();
        let slot = members
            .iter_mut()
            .find(|m| m.as_ref().is_some_and(|m| m.name == gpu_name));
        match slot.and_then(Option::take) {
            Some(member) => facts
                .members
                .push((k, format!("{prefix}.{gpu_name}"), member)),
            None => cx.error_spanned_by(
                field.ident,
                format_args!(
                    "field `{gpu_name}` has no member in wgsl struct `{struct_name}` ({}); add it to the wgsl, rename the field with #[gpu(name = \"...\")], or make it #[gpu(padding)]",
                    found.at
                ),
            ),
        }
    }
    for member in members.into_iter().flatten() {
        cx.error_spanned_by(
            lit,
            format_args!(
                "wgsl member `{struct_name}.{}` ({}, {} at offset {}) has no field in the struct; add one, or rename a field with #[gpu(name = \"...\")]",
                member.name, member.at, member.type_name, member.offset
            ),
        );
    }
    let (stride, one_value) = match step {
        Step::One(size) => (size, true),
        Step::Array(stride) => (stride.unwrap_or(found.size), false),
    };
    facts.stride = Some((subject.to_owned(), found.at, stride, one_value, lit.clone()));
}

/// `vertex_entry = "vs_main"` (or several, `"vs_bake, vs_main"`): each field, at its location,
/// against the input each entry point declares there. A field no entry point reads is allowed,
/// as WebGPU allows an attribute no input reads (a depth-only entry point reads fewer).
pub(super) fn vertex_entry(
    cx: &Ctxt,
    input: &Input<'_>,
    shader: &Wgsl,
    lit: &LitStr,
    facts: &mut ShaderFacts,
) {
    let value = lit.value();
    let base = input.attrs.location.as_ref().map_or(0, |(n, _)| *n);
    for entry in value.split(',').map(str::trim) {
        let Some(mut inputs) = shader.vertex_inputs(entry) else {
            cx.error_spanned_by(
                lit,
                format_args!(
                    "the shader `{}` has no vertex entry point `{entry}`",
                    shader.file()
                ),
            );
            continue;
        };
        facts.entries.push((
            entry.to_owned(),
            shader.vertex_inputs(entry).unwrap_or_default(),
        ));
        for k in 0..input.gpu_fields().count() {
            let location = u32::try_from(k).ok().and_then(|k| base.checked_add(k));
            if let Some(i) = inputs.iter().position(|i| Some(i.location) == location) {
                let read = inputs.swap_remove(i);
                facts
                    .inputs
                    .push((k, format!("{entry}({})", read.name), read));
            }
        }
    }
}

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
