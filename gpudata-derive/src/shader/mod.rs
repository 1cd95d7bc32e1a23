//! The compile-time shader check (feature `naga`): `#[gpu(shader = "file.wgsl", ...)]` with
//! `shader_struct = "Name"` (a WGSL struct the rows must match), `shader_global = "name", group =
//! N, binding = M` (a uniform or storage global holding the rows, and its `@group/@binding`), or
//! `vertex_entry = "vs_main"` (an entry point the struct's attributes feed).
//!
//! At expansion the macro reads the file (relative to `CARGO_MANIFEST_DIR`; when no such file
//! exists, relative to the source file naming it, as `include_str!`), parses it with naga and
//! matches the struct's fields with the WGSL struct's members by name, or with the entry point's
//! inputs by location. What names alone decide (a field without a member, a member without a
//! field, a binding that differs, a missing entry point, an unreadable or invalid file) is
//! reported here, spanned at the field or the attribute, in the same build as the rest. What
//! needs the derived layout (offsets, type trees, the stride, input kinds) becomes `const`
//! assertions calling gpudata's `const fn` rules (`__private::member_problem`, `stride_problem`,
//! `input_problem`), spanned at the field. An `include_bytes!` of the file makes cargo rebuild
//! when it changes.

#[cfg(feature = "naga")]
mod asserts;
pub(crate) mod bind_group;
#[cfg(feature = "naga")]
mod matching;
#[cfg(feature = "naga")]
mod wgsl;

use proc_macro2::{Ident, TokenStream};

use crate::internals::ast::Input;
use crate::internals::ctxt::Ctxt;

/// What the expansion asserts, read from the WGSL file (never built without feature `naga`).
#[cfg_attr(not(feature = "naga"), allow(dead_code))]
#[derive(Default)]
pub(crate) struct ShaderFacts {
    /// The file's absolute path, for `include_bytes!`.
    #[cfg(feature = "naga")]
    path: String,
    /// `(gpu field index, wgsl path, member)` of each field matched by name.
    #[cfg(feature = "naga")]
    members: Vec<(usize, String, wgsl::Member)>,
    /// The rows' wgsl name, position and stride, whether they are one value (a struct global,
    /// not an array's elements), and the attribute string to report at.
    #[cfg(feature = "naga")]
    stride: Option<(String, String, u32, bool, syn::LitStr)>,
    /// `(gpu field index, wgsl path, input)` of each field matched by location.
    #[cfg(feature = "naga")]
    inputs: Vec<(usize, String, wgsl::Input)>,
    /// Each `vertex_entry` and every input it reads, for `GpuStruct::VERTEX_ENTRIES`.
    #[cfg(feature = "naga")]
    entries: Vec<(String, Vec<wgsl::Input>)>,
}

/// Reads the WGSL facts the struct's shader attributes ask for, recording every problem in
/// `cx`; `None` when there is nothing to check.
pub(crate) fn read(cx: &Ctxt, input: &Input<'_>) -> Option<ShaderFacts> {
    let attrs = &input.attrs.shader;
    let Some(file) = &attrs.file else {
        for lit in [
            &attrs.shader_struct,
            &attrs.vertex_entry,
            &attrs.shader_global,
        ]
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
    if attrs.shader_struct.is_none()
        && attrs.vertex_entry.is_none()
        && attrs.shader_global.is_none()
    {
        cx.error_spanned_by(
            file,
            "`shader` needs what to check: add `shader_struct = \"Name\"` (a WGSL struct the rows must match), `shader_global = \"name\", group = N, binding = M` (a uniform or storage global holding them) or `vertex_entry = \"vs_main\"` (an entry point the attributes feed)",
        );
        return None;
    }
    if let (Some(_), Some(global)) = (&attrs.shader_struct, &attrs.shader_global) {
        cx.error_spanned_by(
            global,
            "`shader_global` checks the struct its global holds: keep `shader_struct` or `shader_global`, not both",
        );
        return None;
    }
    let mut ok = true;
    if attrs.shader_global.is_some() {
        if attrs.group.is_none() || attrs.binding.is_none() {
            cx.error_spanned_by(
                &attrs.shader_global,
                "`shader_global` needs the global's `group = N, binding = M` (its @group and @binding)",
            );
            ok = false;
        }
    } else {
        for (_, lit) in [&attrs.group, &attrs.binding].into_iter().flatten() {
            cx.error_spanned_by(
                lit,
                "`group` and `binding` belong to `shader_global = \"name\"`, the global they locate",
            );
            ok = false;
        }
    }
    if !ok {
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
    let path = resolve(&relative, file);
    let shader = match wgsl::Wgsl::load(&relative, &path) {
        Ok(shader) => shader,
        Err(message) => {
            cx.error_spanned_by(file, message);
            return None;
        }
    };
    let mut facts = ShaderFacts {
        path: path.to_string_lossy().into_owned(),
        ..ShaderFacts::default()
    };
    let attrs = &input.attrs.shader;
    if let Some(lit) = &attrs.shader_struct {
        matching::shader_struct(cx, input, &shader, lit, &mut facts);
    }
    if let Some(lit) = &attrs.shader_global {
        matching::shader_global(cx, input, &shader, lit, &mut facts);
    }
    if let Some(lit) = &attrs.vertex_entry {
        matching::vertex_entry(cx, input, &shader, lit, &mut facts);
    }
    Some(facts)
}

/// Where `relative` is: under `CARGO_MANIFEST_DIR`, or, when no file is there, beside the source
/// file of `lit` (so a test crate generated elsewhere, such as trybuild's, finds it too).
#[cfg(feature = "naga")]
fn resolve(relative: &str, lit: &syn::LitStr) -> std::path::PathBuf {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    let in_crate = std::path::Path::new(&dir).join(relative);
    if in_crate.exists() {
        return in_crate;
    }
    // `Span::unwrap` (proc_macro2 → proc_macro) fails only outside a procedural macro; this runs
    // only while the derive expands, where it cannot.
    let beside_source = lit
        .span()
        .unwrap()
        .local_file()
        .and_then(|source| Some(source.parent()?.join(relative)))
        .filter(|p| p.exists());
    beside_source.unwrap_or(in_crate)
}

/// The message the derive's problem check gives a `zero_copy` problem when the shader check
/// matched members: one naming a member wider than its field (the field's type is the mistake,
/// and `#[gpu(padding)]` would only hide it); `None` keeps the analysis's own message.
#[cfg(feature = "naga")]
pub(crate) fn zero_copy_message(
    facts: &ShaderFacts,
    p: &Ident,
    analysis: &TokenStream,
) -> Option<TokenStream> {
    asserts::zero_copy_message(facts, p, analysis)
}

/// Without feature `naga` there is no shader check: the analysis's own message.
#[cfg(not(feature = "naga"))]
pub(crate) fn zero_copy_message(
    _facts: &ShaderFacts,
    _p: &Ident,
    _analysis: &TokenStream,
) -> Option<TokenStream> {
    None
}

/// The `const` assertions of `facts`, inside the derive's `const _: () = { ... }` block.
#[cfg(not(feature = "naga"))]
pub(crate) fn expand(
    _facts: &ShaderFacts,
    _input: &Input<'_>,
    _p: &Ident,
    _analysis: &TokenStream,
) -> TokenStream {
    TokenStream::new()
}

/// The `const` assertions of `facts`, inside the derive's `const _: () = { ... }` block.
#[cfg(feature = "naga")]
pub(crate) fn expand(
    facts: &ShaderFacts,
    input: &Input<'_>,
    p: &Ident,
    analysis: &TokenStream,
) -> TokenStream {
    asserts::expand(facts, input, p, analysis)
}

/// `GpuStruct::VERTEX_ENTRIES` of `facts`: each vertex entry point the struct was checked
/// against and every input it reads (what `check_vertex_set!` checks a set of buffers with);
/// nothing when there is none.
#[cfg(feature = "naga")]
pub(crate) fn vertex_entries(facts: &ShaderFacts, p: &Ident) -> TokenStream {
    asserts::vertex_entries(facts, p)
}

/// Without feature `naga` no entry point is checked: `VERTEX_ENTRIES` keeps its default.
#[cfg(not(feature = "naga"))]
pub(crate) fn vertex_entries(_facts: &ShaderFacts, _p: &Ident) -> TokenStream {
    TokenStream::new()
}
