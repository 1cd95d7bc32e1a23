//! What the `#[derive(GpuStruct)]` expansion (and `impl_gpu_field!`'s) names, through
//! `::gpudata::__private`, its one public path. Not a public API: nothing here is covered by
//! semver.
//!
//! The expansion describes a struct (names, type sizes, formats, declared assertions) in a
//! [`Facts`] constant; everything computed from it (offsets through the layout engine, checks
//! and their messages) is a `const fn` here, so the macro never computes a layout and every
//! compile-time message is written in one place. Files, bottom up (each imports only those
//! above it in this list, and `record/`, `layout/`, `format/` below the folder):
//!
//! - `facts.rs`: what the expansion states ([`Facts`]) and what the analysis makes of it
//!   ([`Analysis`]), with their small readers;
//! - `messages.rs`: the analysis's compile-time messages;
//! - `zero_copy.rs`: whether host bytes are GPU rows (`zero_copy`, `HOST_LAYOUT_MATCHES`) and
//!   the padding-field check;
//! - `analysis.rs`: [`analyze`], the one pass over a struct's facts;
//! - `tables.rs`: a struct's leaves, the one table its constants are read from (a struct of
//!   vertex-format fields is a tree of depth 1, each field its own leaf);
//! - `accessors.rs`: the traits a derived struct implements and the generic `const fn` each
//!   constant of the expansion calls (`tree_*`, and `lazy_*` for structs analysed on first use);
//! - `shader_tree.rs`, `shader.rs`: the compile-time shader check (`#[gpu(shader = "...")]`);
//! - `vertex_set.rs`: the check of a whole vertex state (`check_vertex_set!`).
//!
//! Below this folder, in `record/`: the const text builder and the type-tree walks (`tree/`),
//! `impl_gpu_field!`'s checks (`field_check.rs`).

mod accessors;
mod analysis;
mod facts;
mod messages;
mod shader;
mod shader_tree;
mod tables;
mod vertex_set;
mod zero_copy;

pub use ::bytemuck;
pub use ::core;
pub use ::wgpu;

pub use self::accessors::{
    Analyzed, Described, LeafTableSet, LeafTables, analysis_host_matches, described, first_leaf_of,
    host_facts, host_offsets, lazy_analysis, lazy_message, lazy_spot, nests_by_default,
    tree_attributes, tree_copies, tree_facts, tree_fields, tree_format, tree_host_matches, tree_of,
    tree_webgl, tree_webgl_message,
};
pub use self::analysis::{analyze, runtime_layout};
pub use self::facts::{
    Analysis, FALLBACK_FORMAT, FALLBACK_STRUCT, Facts, HostFacts, HostField, Spot, first_leaf,
    format_or, host_shape, leaf_total, member_type, problem_message, problem_spot,
};
pub use self::messages::{no_vertex_layout_leaf, webgl_message};
pub use self::shader::{
    ShaderInput, ShaderMember, fail_if, feed_problem, input_problem, member_problem,
    stride_problem, zero_copy_message,
};
pub use self::shader_tree::{
    ShaderStruct, ShaderStructMember, ShaderTree, TreeFinding, compare_tree, finding_text,
    more_text,
};
pub use self::tables::{flatten, webgl_field};
pub use self::vertex_set::vertex_set_problem;
pub use self::zero_copy::{
    PaddingField, assert_padding, element_host_matches, host_matches_members, zero_copy_problem,
};
pub use crate::format::{PrimitiveType, ShaderType, VertexFormat};
pub use crate::layout::{
    AddressSpace, ConstLayout, GpuDataStructField, GpuDataStructFormat, LayoutRuleError, LeafType,
    RowShape, RuntimeTail, StepMode, StructLayout, TypeLayout, TypeRuleError, WgslMember,
    WgslStruct, WgslType, layout_formats,
};
pub use crate::record::field_check::{PlainField, check_field_size, check_plain_field};
pub use crate::record::host_shape::carrier_type;
pub use crate::record::shader_rules::{EntryInput, VertexEntry};
pub use crate::record::tree::{
    Leaf, LeafName, LeafPath, Msg, TreeFault, TreeProblem, element_copies, fail, fail_with,
    leaf_attributes, leaf_copies, leaf_count, leaf_fields, webgl_leaf,
};
pub use crate::record::{
    FieldCopy, GpuField, GpuFieldMarker, GpuFieldOf, GpuRuntimeStruct, GpuStruct, GpuType,
    HostMember, HostShape, RuntimeArray, UniformLayout,
};
