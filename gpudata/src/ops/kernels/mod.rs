//! The kernels of the operations and the table re-layouts, in three families over shared parts.
//!
//! - [`transform`]: the *row transform*, one WGSL generator every element-wise operation,
//!   `interleave`, `deinterleave`, `fround` and every table re-layout is generated in, and its
//!   planner (sources grouped by buffer, rows per invocation, load and store widths, bindings
//!   that fit the device, outputs that are fresh buffers or placed ranges of existing ones).
//! - [`select`]: the selection kernels (masks, prefix sums, compaction, the `extent` reduction,
//!   gather, sequence, segmented map, mask slices, index buffers under a mask), which bind word
//!   ranges with their bases in the uniform.
//!
//! - [`aggregate`]: the aggregation kernels (reductions, and per-group accumulation in integer
//!   atomics for histograms, group-by and grids, with a hash table for sparse keys).
//!
//! Shared by all: [`OpsConfig`] and the planning context ([`config`]), the one binding and
//! dispatch path ([`dispatch`]: binding checks, workgroups, bind groups, error scopes,
//! submission), the rules that split rows over dispatches ([`split`]), and the placement
//! checks every input goes through, on the GPU and in the CPU reference ([`shape`]). Every pipeline
//! compiles through the device's one cache
//! ([`Gpu::compiled_pipelines`](crate::Gpu::compiled_pipelines) counts them).

pub(crate) mod aggregate;
pub(crate) mod config;
pub(crate) mod dispatch;
pub(crate) mod select;
pub(crate) mod shape;
pub(crate) mod sort;
pub(crate) mod split;
pub(crate) mod transform;

pub use config::OpsConfig;
pub(crate) use config::Planner;
pub use select::predicate::Comparison;
