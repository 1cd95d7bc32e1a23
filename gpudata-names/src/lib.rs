//! The name rules that both `gpudata` (at run time) and `gpudata-derive` (at compile time)
//! apply, each written once:
//!
//! - [`field_path_problem`]: the names of a struct format's fields, luma.gl's field paths
//!   (`position`, `material.color`, `lights[1].color`);
//! - [`wgsl_identifier_problem`]: the names WGSL text can use for a struct or a member (ASCII
//!   identifiers, not `_`, not starting with `__`, not a keyword or reserved word), and
//!   [`is_predeclared`]: the predeclared names a struct would shadow (`f32`, `vec3f`, `storage`);
//! - [`type_syntax`]: the grammar of the WGSL types gpudata reads from text (`vec3<f32>`,
//!   `mat4x4h`, `array<E, N>`), one level at a time, which `gpudata::layout::TypeDecl::parse`
//!   and the derive's `#[gpu(wgsl = "...")]` each build their own tree from;
//!
//! and one rule over whole WGSL text, [`wgsl_source_shape`]: the bounds it must stay within
//! before naga reads it (naga's reader recurses once per level of an expression), and the thread
//! stack to read it on.
//!
//! Each rule returns a small problem value saying what is wrong and where; the error types stay
//! in their crates (`gpudata::layout::LayoutError`, `WgslError`, the derive's spanned compile
//! errors), which map it. No dependencies, no allocation, `no_std` unless feature `std` (the
//! parse thread).

#![cfg_attr(not(feature = "std"), no_std)]

mod field_path;
mod type_syntax;
mod wgsl;
mod wgsl_source;
mod words;

pub use field_path::{FieldNameProblem, field_path_problem};
pub use type_syntax::{
    ArraySyntax, CountSyntax, LeafSyntax, ScalarSyntax, TypeSyntax, alias_syntax, type_syntax,
};
pub use wgsl::{WgslNameProblem, is_predeclared, wgsl_identifier_problem};
#[cfg(feature = "std")]
pub use wgsl_source::ParseThreadError;
pub use wgsl_source::{
    MAX_DECLARATIONS, MAX_DEPTH, MAX_NESTING, WgslBound, WgslSourceProblem, WgslSourceShape,
    line_column, wgsl_source_shape,
};
