//! Physical re-layout on the GPU: packed columns, segmented tables, interleaved rows. Their
//! copies are recorded with the kernels' copy engine (`crate::kernels::copy`).

pub(crate) mod fields;
pub(crate) mod pack;
pub(crate) mod segment;
pub(crate) mod segmented;
