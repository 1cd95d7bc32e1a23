//! Sorting columns held in chunks: [`sort_key`] (a chunked column as a key of
//! [`ops::argsort_by`](crate::ops::argsort_by)), [`argsort`] and [`sort`]. A sort orders rows
//! of every chunk together, so it reads the chunks as one column, as `gather` does.

use super::column::Chunked;
use super::driver::column_views;
use crate::data::GpuData;
use crate::device::Gpu;
use crate::ops::gather::gather_pieces;
use crate::ops::{OpError, SortKey, SortOptions, argsort_by};

/// The column as an ascending [`SortKey`] over its chunks, for
/// [`ops::argsort_by`](crate::ops::argsort_by): set its order and validity on the key.
///
/// # Errors
/// The column type's refusal of a list format, and [`OpError::WrongData`] (in the column
/// type's error, naming the column) for chunks that are not one vertex format.
pub fn sort_key<C: Chunked>(column: &C) -> Result<SortKey<'_>, C::Error<OpError>> {
    let (_, views) = column_views("argsort_by", column)?;
    Ok(SortKey::from_pieces(views))
}

/// The permutation that sorts a chunked column of `uint32`, `sint32` or `float32` keys, as
/// [`ops::argsort`](crate::ops::argsort()) sorts one buffer (the same total order, stable):
/// `uint32` row ids over all its rows, in one buffer.
///
/// # Errors
/// As [`sort_key`]; then `ops::argsort_by`'s errors on the whole column (rows `0..length`).
pub fn argsort<C: Chunked>(
    gpu: &Gpu,
    column: &C,
    options: &SortOptions,
) -> Result<GpuData, C::Error<OpError>> {
    let key = sort_key(column)?.with_order(options.order);
    argsort_by(gpu, &[key]).map_err(|e| C::piece_error(column.name(), 0, column.length(), e))
}

/// A chunked column of `uint32`, `sint32` or `float32` keys sorted as
/// [`ops::sort`](crate::ops::sort()) sorts one buffer: a column of the same name whose chunks
/// hold the sorted rows (one chunk while they fit one buffer).
///
/// # Errors
/// As [`argsort`], then `ops::gather`'s errors.
pub fn sort<C: Chunked>(
    gpu: &Gpu,
    column: &C,
    options: &SortOptions,
) -> Result<C, C::Error<OpError>> {
    let order = argsort(gpu, column, options)?;
    let (format, views) = column_views("sort", column)?;
    let fail = |e| C::piece_error(column.name(), 0, column.length(), e);
    let ids = order.as_view().ok_or_else(|| {
        fail(OpError::WrongData {
            op: "sort",
            expected: "uint32 row ids",
            found: "another layout".to_owned(),
        })
    })?;
    let chunks = gather_pieces(gpu, &[ids], &views, format).map_err(fail)?;
    C::from_chunks(column.name(), chunks)
}
