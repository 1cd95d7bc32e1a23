//! Formats, struct layouts and `#[derive(GpuStruct)]` on the host (and the few checks that only
//! need wgpu's or naga's validation): one test binary, one module per subject.

#[path = "../support/mod.rs"]
pub mod support;

mod complexity;
mod derive_encode;
mod derive_layout;
mod derive_markers;
mod derive_nested;
mod derive_packed;
mod derive_rows;
#[cfg(all(feature = "glam", feature = "mint"))]
mod derive_vectors;
mod derive_wgsl_types;
mod error_catalogue;
mod errors;
mod fixtures;
mod hygiene;
mod layout_block;
mod layout_naga;
mod layout_types;
mod layout_vectors;
mod layout_wgpu;
pub mod lints;
mod shader_bounds;
mod shader_check;
mod shader_nested;
mod shader_props;
mod shader_tree_props;
mod vectors;
mod vertex_state;
