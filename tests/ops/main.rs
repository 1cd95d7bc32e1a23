//! Operations on the GPU against the CPU reference: arithmetic, `fround`, interleave and
//! deinterleave, aggregations (reduce, histogram, group-by, grid), inputs split over several
//! bindings, and the `OpError` catalogue.

#[path = "../support/mod.rs"]
pub mod support;

mod add;
mod aggregate;
mod aggregate_groups;
mod aggregate_parts;
mod constants;
mod deinterleave;
mod elementwise;
mod errors;
mod every_format;
mod faults;
mod filter;
mod fixtures;
mod fround;
mod fused;
mod integer;
mod interleave;
mod luma_elementwise;
mod luma_select;
mod packed_compaction;
mod select;
mod sort;
mod sort_by;
mod sort_parts;
mod split;
