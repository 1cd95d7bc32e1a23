//! The shader-check keys of `#[gpu(...)]` on the struct: `shader = "file.wgsl"`,
//! `shader_struct = "Name"` and `vertex_entry = "vs_main"`.

use syn::LitStr;
use syn::meta::ParseNestedMeta;

use crate::internals::attr::string_value;
use crate::internals::ctxt::Ctxt;
use crate::internals::symbol::{SHADER, SHADER_STRUCT, Symbol, VERTEX_ENTRY};

/// The shader-check keys of one struct.
#[derive(Default)]
pub(crate) struct ShaderAttrs {
    /// `shader = "..."`: the WGSL file, relative to the crate's `Cargo.toml`.
    pub(crate) file: Option<LitStr>,
    /// `shader_struct = "..."`: the WGSL struct the rows must match.
    pub(crate) shader_struct: Option<LitStr>,
    /// `vertex_entry = "..."`: the vertex entry point the struct's attributes feed.
    pub(crate) vertex_entry: Option<LitStr>,
}

impl ShaderAttrs {
    /// Reads `meta` when it is a shader-check key (`Ok(true)`); `Ok(false)` for other keys.
    pub(crate) fn parse_key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
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
        } else {
            return Ok(false);
        };
        let value = string_value(cx, meta, key, example)?;
        if slot.is_some() {
            cx.error_spanned_by(
                &meta.path,
                format_args!("duplicate gpu attribute `{key}`; keep one"),
            );
        } else {
            *slot = value;
        }
        Ok(true)
    }
}
