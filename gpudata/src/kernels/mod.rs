//! The kernels that operations and table re-layouts share: one WGSL generator
//! ([`wgsl_gen`]: the *row transform* every operation is generated in), one dispatch and
//! binding-split planner ([`plan`]: rows per invocation, load and store widths, bindings that
//! fit the device, runs of rows when one binding cannot hold them), the strided byte copy of
//! table re-layouts ([`copy`], split by the same planner rules) and [`OpError`], the errors of
//! planning and running them. Every pipeline compiles through the device's one cache
//! ([`Gpu::compiled_pipelines`](crate::Gpu::compiled_pipelines) counts them).

pub(crate) mod bits;
pub(crate) mod compact;
mod config;
pub(crate) mod copy;
mod error;
pub(crate) mod index;
pub(crate) mod plan;
pub(crate) mod predicate;
pub(crate) mod primitives;
pub(crate) mod reduce;
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
