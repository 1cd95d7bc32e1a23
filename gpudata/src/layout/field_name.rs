//! The rule for the names of a struct format's fields: luma.gl's field paths (`position`,
//! `material.color`, `lights[1].color`), written once in the `gpudata-names` crate, which the
//! derive applies at compile time too; [`FieldNameProblem`] is that crate's account of what is
//! wrong and where, carried by [`LayoutError::InvalidFieldName`](super::LayoutError).
//!
//! Keywords are fine here (`meta` is a field name); WGSL's stricter rule
//! ([`check_wgsl_name`](super::check_wgsl_name)) applies wherever WGSL text is made. Vertex
//! layouts' attribute names are not checked: they name where the data came from (an Arrow
//! column named `dep delay` uploads, lays out and renders), and become field names only when
//! columns are interleaved into struct rows.

pub use gpudata_names::FieldNameProblem;

/// Checks `name` against the field-path rule (see the module docs).
pub(crate) fn check_field_name(name: &str) -> Result<(), FieldNameProblem> {
    gpudata_names::field_path_problem(name).map_or(Ok(()), Err)
}
