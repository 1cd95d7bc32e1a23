//! The shader-check keys of `#[gpu(...)]` on the struct: `shader = "file.wgsl"` with
//! `shader_struct = "Name"`, `vertex_entry = "vs_main"`, or `shader_global = "name"` and its
//! `group = N, binding = M`.

use syn::meta::ParseNestedMeta;
use syn::{LitInt, LitStr};

use super::ctxt::Ctxt;
use super::symbol::{BINDING, GROUP, SHADER, SHADER_GLOBAL, SHADER_STRUCT, Symbol, VERTEX_ENTRY};
use super::value::{int_value, string_value};

/// The shader-check keys of one struct.
#[derive(Default)]
pub(crate) struct ShaderAttrs {
    /// `shader = "..."`: the WGSL file, relative to the crate's `Cargo.toml`.
    pub(crate) file: Option<LitStr>,
    /// `shader_struct = "..."`: the WGSL struct the rows must match.
    pub(crate) shader_struct: Option<LitStr>,
    /// `vertex_entry = "..."`: the vertex entry point the struct's attributes feed.
    pub(crate) vertex_entry: Option<LitStr>,
    /// `shader_global = "..."`: the uniform or storage global whose rows the struct is.
    pub(crate) shader_global: Option<LitStr>,
    /// `group = N`: the global's `@group`.
    pub(crate) group: Option<(u32, LitInt)>,
    /// `binding = N`: the global's `@binding`.
    pub(crate) binding: Option<(u32, LitInt)>,
}

impl ShaderAttrs {
    /// Reads `meta` when it is a shader-check key (`Ok(true)`); `Ok(false)` for other keys.
    pub(crate) fn parse_key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
        let duplicate = |key: Symbol| {
            cx.error_spanned_by(
                &meta.path,
                format_args!("duplicate gpu attribute `{key}`; keep one"),
            );
        };
        for (key, slot) in [(GROUP, &mut self.group), (BINDING, &mut self.binding)] {
            if meta.path == key {
                let value = int_value::<u32>(cx, meta, key, &format!("{key} = 0"))?;
                if slot.is_some() {
                    duplicate(key);
                } else {
                    *slot = value;
                }
                return Ok(true);
            }
        }
        let (key, slot, example): (Symbol, &mut Option<LitStr>, &str) = if meta.path == SHADER {
            (
                SHADER,
                &mut self.file,
                "shader = \"shaders/particles.wgsl\"",
            )
        } else if meta.path == SHADER_STRUCT {
            (
                SHADER_STRUCT,
                &mut self.shader_struct,
                "shader_struct = \"Particle\"",
            )
        } else if meta.path == VERTEX_ENTRY {
            (
                VERTEX_ENTRY,
                &mut self.vertex_entry,
                "vertex_entry = \"vs_main\"",
            )
        } else if meta.path == SHADER_GLOBAL {
            (
                SHADER_GLOBAL,
                &mut self.shader_global,
                "shader_global = \"particles\"",
            )
        } else {
            return Ok(false);
        };
        let value = string_value(cx, meta, key, example)?;
        if slot.is_some() {
            duplicate(key);
        } else {
            *slot = value;
        }
        Ok(true)
    }
}
