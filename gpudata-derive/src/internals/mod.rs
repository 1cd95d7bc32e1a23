//! Parsing, checking and classification: `#[gpu(...)]` attributes into a typed model, then
//! cross-field rules, then how the struct is expanded (`classify`).

pub(crate) mod ast;
pub(crate) mod attr;
pub(crate) mod bind_attr;
pub(crate) mod case;
pub(crate) mod check;
pub(crate) mod classify;
pub(crate) mod ctxt;
pub(crate) mod shader_attr;
pub(crate) mod symbol;
pub(crate) mod value;
pub(crate) mod wgsl_type;
