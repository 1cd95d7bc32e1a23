//! Physical re-layout on the GPU: packed columns, segmented tables, interleaved rows, and the
//! copy engine they record their copies with.

pub(crate) mod copy;
pub(crate) mod fields;
pub(crate) mod pack;
pub(crate) mod segmented;

use segmented::SegmentedLayout;
