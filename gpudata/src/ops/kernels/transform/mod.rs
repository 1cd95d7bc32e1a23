//! The row transform: the one WGSL generator ([`wgsl_gen`]) that operations and table
//! re-layouts are generated in, its planner ([`plan`]), the byte-moving row code ([`moves`]) and
//! the table re-layouts recorded as placed plans of it ([`relayout`]).

pub(crate) mod moves;
pub(crate) mod plan;
pub(crate) mod relayout;
pub(crate) mod wgsl_gen;
