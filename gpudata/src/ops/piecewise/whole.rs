//! Operations over a whole chunked column whose result depends on rows of several chunks:
//! `extent` (every chunk reduced into one accumulator), `prefix_sum` (the carry between chunks
//! is the scan's own block offsets, on the GPU) and `gather` (indices addressing the whole
//! column's rows, each chunk bound as parts of the source). The kernels take the column's
//! chunks as views ([`column_views`]) and give exactly the one-buffer result for the same rows.

use crate::data::GpuData;
use crate::device::Gpu;
use crate::ops::{OpError, OpsConfig, gather_pieces, plan_extent_pieces, prefix_sum_pieces};

use super::column::Chunked;
use super::driver::column_views;

/// The minimum and maximum of every lane over all rows of every chunk: exactly
/// [`ops::extent`](crate::ops::extent()) of the same rows in one buffer (one row per lane,
/// `[minimum, maximum]`, in the column's data type with two components; luma.gl's NaN rule
/// with the column's first row: a NaN there is the lane's minimum and maximum, NaNs in any
/// later row, the first rows of later chunks included, are skipped; `-0` below `+0`;
/// normalized formats by their stored integers, `float16` by value).
///
/// Every chunk's rows reduce into one accumulator, so a column of any number of chunks costs
/// one pass over its rows and one final dispatch; nothing is read back. Each chunk may hold up
/// to `u32::MAX` rows, the column any number.
///
/// # Errors
/// The column type's refusal of a list format; the piece error (named after the column, over
/// all its rows or the chunk's) with `ops::extent`'s error: [`OpError::Empty`] for no rows,
/// [`OpError::UnsupportedFormat`], [`OpError::WrongData`] for a column that is not one vertex
/// format, the input checks of every operation, [`OpError::TooManyRows`] for a chunk past
/// `u32::MAX` rows, [`OpError::Gpu`].
pub fn extent<C: Chunked>(gpu: &Gpu, column: &C) -> Result<GpuData, C::Error<OpError>> {
    const OP: &str = "extent";
    let (_, views) = column_views(OP, column)?;
    plan_extent_pieces(gpu, &views, &OpsConfig::default())
        .and_then(|plan| plan.run(gpu))
        .map_err(|source| C::piece_error(column.name(), 0, column.length(), source))
}

/// The exclusive prefix sum of a one-lane integer column across all its chunks: exactly
/// [`ops::prefix_sum`](crate::ops::prefix_sum()) of the same rows in one buffer (wrapping
/// 32-bit sums, `n + 1` values, the last the total; `uint32` for unsigned input, `sint32` for
/// signed), as a column named `prefix_sum` whose chunks follow this column's (cut further where
/// an output chunk, four bytes a value, would not fit one buffer; the last chunk holds one
/// value more, the total; a column of no rows gives one chunk holding 0).
///
/// Every chunk's value `i` already includes the wrapping total of the chunks before it: the
/// chunks' block sums are scanned together on the GPU, so the carries cost no readback and no
/// extra pass over the values.
///
/// # Errors
/// As [`extent`], with `ops::prefix_sum`'s error: [`OpError::UnsupportedFormat`] for another
/// format than a one-lane integer one, [`OpError::TooLarge`] when the column's block sums
/// (four bytes per 256 rows) do not fit one buffer.
pub fn prefix_sum<C: Chunked>(gpu: &Gpu, column: &C) -> Result<C, C::Error<OpError>> {
    const OP: &str = "prefix_sum";
    let (format, views) = column_views(OP, column)?;
    let chunks = prefix_sum_pieces(gpu, &views, format)
        .map_err(|source| C::piece_error(column.name(), 0, column.length(), source))?;
    C::from_chunks(OP, chunks)
}

/// The rows of `source` at the row indices in `ids`, across all chunks of both: exactly
/// [`ops::gather`](crate::ops::gather()) of the same rows in one buffer (an index that is not
/// an integer in `0..source.length()`, negative, too large, fractional or NaN, gives a zero
/// row; indices of any one-component integer or float format, `float16` by value). The output
/// is a column named after `source`, of its format, chunked as `ids` is (cut further where an
/// output chunk would not fit one buffer); indices of no rows give one empty chunk.
///
/// Every chunk of `source` is bound as one or more parts of the source, each part one dispatch
/// over a run of indices that writes the rows whose index falls into it (so the indices are
/// read once per part); nothing is read back.
///
/// # Errors
/// The column type's refusal when `ids` or `source` has a list format; the piece error (named
/// after `source`, over the rows of `ids`) with `ops::gather`'s error:
/// [`OpError::UnsupportedFormat`] for an index format it does not take,
/// [`OpError::WrongData`] for a column that is not one vertex format, the input checks of
/// every operation, [`OpError::TooManyRows`] for a source of more than `u32::MAX` rows (the
/// indices are 32-bit, as for one buffer), [`OpError::TooLarge`], [`OpError::Gpu`].
pub fn gather<C: Chunked>(gpu: &Gpu, ids: &C, source: &C) -> Result<C, C::Error<OpError>> {
    const OP: &str = "gather";
    let (_, id_views) = column_views(OP, ids)?;
    let (format, views) = column_views(OP, source)?;
    let chunks = gather_pieces(gpu, &id_views, &views, format)
        .map_err(|error| C::piece_error(source.name(), 0, ids.length(), error))?;
    C::from_chunks(source.name(), chunks)
}
