//! Operations over columns held in chunks ([`Chunked`]: a column larger than one buffer, such
//! as a chunked [`GpuVector`](crate::GpuVector)), by one driver over `ops`' own functions.
//!
//! The driver cuts the columns into pieces of rows that lie in one chunk of each (and in one
//! piece of each mask), hands every piece to the one-buffer operation as
//! [`GpuDataView`](crate::GpuDataView)s and collects the outputs, in row order, as the chunks
//! of a new column: element-wise operations ([`arithmetic`], [`math`], [`lanes`], [`evaluate`], and any
//! operation through [`map`]) halve a piece again where its output would not fit one buffer;
//! [`mask`] writes one mask piece per piece and [`compact`] keeps each column's rows piece by
//! piece. Operations whose result depends on rows of several chunks ([`extent`],
//! [`prefix_sum`], [`gather`], the sorts) hand the kernels the whole column's chunks at once; the
//! aggregations ([`reduce`], [`histogram`], [`group_by`], [`grid_aggregate`]) cut their columns
//! and mask into pieces and read every piece into one set of accumulators. Refusals and errors come in the column type's error ([`Chunked::Error`]), an operation's error
//! naming the rows of the piece it failed on.
//!
//! A new operation plugs in by the shape of its result: row `i` from row `i` of the inputs
//! goes through the driver's `collect` (a closure from one piece's [`ChunkPiece`]s to the
//! one-buffer output, and which errors mean "halve the piece"); one result per piece that is
//! not a column (masks, counts) loops over `Cuts::pieces`; a result over the whole column takes
//! `column_views` and a kernel that reads several views as one column (as `extent`,
//! `prefix_sum` and `gather` do).

mod aggregate;
mod column;
mod driver;
mod elementwise;
mod select;
mod sort;
mod whole;

pub use aggregate::{grid_aggregate, group_by, histogram, reduce};
pub use column::{ChunkPiece, Chunked};
pub use driver::map;
pub use elementwise::{arithmetic, evaluate, lanes, math};
pub use select::{compact, mask};
pub use sort::{argsort, segmented_sort, sort, sort_key, sort_pairs, top_k};
pub use whole::{extent, gather, prefix_sum};
