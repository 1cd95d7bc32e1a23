//! The selection kernels: word-granular bindings with their bases in the uniform, split over
//! runs of rows by [`rows`] (masks [`predicate`], prefix sums [`scan`], compaction [`compact`],
//! the `extent` reduction [`reduce`], gather, sequence and segmented map [`index`], mask slices
//! [`bits`], index buffers under a vertex mask [`primitives`]).

pub(crate) mod bits;
pub(crate) mod compact;
pub(crate) mod index;
pub(crate) mod packed;
pub(crate) mod predicate;
pub(crate) mod primitives;
pub(crate) mod reduce;
pub(crate) mod rows;
pub(crate) mod scan;
pub(crate) mod subword;
