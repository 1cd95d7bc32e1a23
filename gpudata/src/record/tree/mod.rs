//! Type trees in `const fn`s, the bottom of `record/`: a [`WgslType`](crate::layout::WgslType)
//! with its [`HostShape`](super::HostShape) flattened to leaves, the tables a derived struct's
//! constants are made of, and whether a value's host bytes are its GPU bytes. Nothing here knows
//! [`GpuType`](super::GpuType) (whose defaults call [`leaf_count`] and [`nests`]) or the derive's
//! facts (`derive_support/`, which builds on these).
//!
//! - `text.rs`: `Text`, the one `const` text builder (messages and leaf paths), and `fail`;
//! - `walk.rs`: the walk over a type's leaves and what it counts;
//! - `tables.rs`: leaves, struct format entries, copies and vertex attributes, as tables;
//! - `image.rs`: whether host bytes are GPU bytes, and, when not, what to change.

mod image;
mod tables;
mod text;
mod walk;

pub use image::{ImageMismatch, image_fault, image_matches};
pub use tables::{
    element_copies, element_problem, leaf_attributes, leaf_copies, leaf_fields, leaves, webgl_leaf,
};
pub use text::{LeafName, Msg, fail, fail_with};
pub(crate) use walk::{EMPTY_LEAF, Walk, has_runtime_array, scalar_bytes};
pub use walk::{Leaf, LeafPath, TreeFault, TreeProblem, fault_path, leaf_count, nests};
