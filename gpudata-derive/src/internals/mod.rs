//! Parsing and checking: `#[gpu(...)]` attributes into a typed model, then cross-field rules.

pub(crate) mod ast;
pub(crate) mod attr;
pub(crate) mod case;
pub(crate) mod check;
pub(crate) mod ctxt;
pub(crate) mod shader_attr;
pub(crate) mod symbol;
pub(crate) mod value;
pub(crate) mod wgsl_type;
