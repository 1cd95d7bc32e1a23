//! The kernels that operations and table re-layouts share: one WGSL generator
//! ([`wgsl_gen`]: the *row transform* every operation and re-layout is generated in), one
//! dispatch and binding-split planner ([`plan`]: rows per invocation, load and store widths,
//! bindings that fit the device, runs of rows when one binding cannot hold them, outputs that
//! are fresh buffers or placed ranges of existing ones), the byte-moving row code ([`moves`])
//! and the table re-layouts recorded as plans of it ([`relayout`]), and [`OpError`], the errors
//! of planning and running them. Every pipeline compiles through the device's one cache
//! ([`Gpu::compiled_pipelines`](crate::Gpu::compiled_pipelines) counts them).

pub(crate) mod bits;
pub(crate) mod compact;
mod config;
mod error;
pub(crate) mod index;
pub(crate) mod moves;
pub(crate) mod plan;
pub(crate) mod predicate;
pub(crate) mod primitives;
pub(crate) mod reduce;
pub(crate) mod relayout;
pub(crate) mod rows;
pub(crate) mod scan;
pub(crate) mod shape;
mod split;
pub(crate) mod wgsl_gen;

pub use config::OpsConfig;
pub(crate) use config::Planner;
pub use error::OpError;
pub use plan::OpPlan;
pub use predicate::Comparison;
