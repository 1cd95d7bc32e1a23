//! Attribute names, one constant each.

use std::fmt;

/// An attribute key.
#[derive(Clone, Copy)]
pub(crate) struct Symbol(pub(crate) &'static str);

pub(crate) const GPU: Symbol = Symbol("gpu");
pub(crate) const REPR: Symbol = Symbol("repr");

// Struct keys.
pub(crate) const LAYOUT: Symbol = Symbol("layout");
pub(crate) const STEP_MODE: Symbol = Symbol("step_mode");
pub(crate) const LOCATION: Symbol = Symbol("location");
pub(crate) const CRATE: Symbol = Symbol("crate");
pub(crate) const STRIDE: Symbol = Symbol("stride");
pub(crate) const ZERO_COPY: Symbol = Symbol("zero_copy");
pub(crate) const FIELDS: Symbol = Symbol("fields");
pub(crate) const SHADER: Symbol = Symbol("shader");
pub(crate) const SHADER_STRUCT: Symbol = Symbol("shader_struct");
pub(crate) const VERTEX_ENTRY: Symbol = Symbol("vertex_entry");
pub(crate) const SHADER_GLOBAL: Symbol = Symbol("shader_global");
pub(crate) const GROUP: Symbol = Symbol("group");
pub(crate) const BINDING: Symbol = Symbol("binding");

// Field keys.
pub(crate) const FORMAT: Symbol = Symbol("format");
pub(crate) const NAME: Symbol = Symbol("name");
pub(crate) const OFFSET: Symbol = Symbol("offset");
pub(crate) const PADDING: Symbol = Symbol("padding");
pub(crate) const WGSL: Symbol = Symbol("wgsl");
pub(crate) const ALIGN: Symbol = Symbol("align");
pub(crate) const SIZE: Symbol = Symbol("size");

impl PartialEq<Symbol> for syn::Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl PartialEq<Symbol> for &syn::Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}
