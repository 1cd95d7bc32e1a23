//! Physical re-layout on the GPU: packed columns, segmented tables, interleaved rows. Their
//! copies are plans of the operations' kernels, recorded by `crate::ops::kernels::transform::relayout`.

pub(crate) mod fields;
pub(crate) mod pack;
pub(crate) mod segment;
pub(crate) mod segmented;
