//! Sorting columns held in chunks: [`sort_key`] (a chunked column as a key of
//! [`ops::argsort_by`](crate::ops::argsort_by)), [`argsort`], [`sort`], [`sort_pairs`],
//! [`top_k`] and [`segmented_sort`], the chunked forms of `ops`' sorts. A sort orders rows of
//! every chunk together, so it reads the chunks as one column, as `gather` does: one
//! `argsort_by` over the chunks in place, then one gather of each output column through the
//! permutation.

use super::column::Chunked;
use super::driver::column_views;
use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::ops::gather::gather_pieces;
use crate::ops::output::view_of;
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

/// The permutation that sorts a chunked column of one-lane keys (any integer, normalized or
/// float format, by the value a shader reads), as
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

/// A chunked column of one-lane keys (as [`argsort`] takes them) sorted as
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
    take(gpu, "sort", &order, None, column)
}

/// The first `first` row ids of `order` (all of them for `None`), as a view.
fn prefix<'a>(
    op: &'static str,
    order: &'a GpuData,
    first: Option<u64>,
) -> Result<GpuDataView<'a>, OpError> {
    let ids = view_of(op, order, "uint32 row ids")?;
    ids.slice(0, first.unwrap_or(ids.length()))
        .ok_or(OpError::RowsOutOfRange {
            op,
            first: 0,
            rows: first.unwrap_or(0),
            length: ids.length(),
        })
}

/// Rows `ids` (all of `order`, or its first `first` rows) of `column`, gathered through the
/// chunks into a column of the same name.
fn take<C: Chunked>(
    gpu: &Gpu,
    op: &'static str,
    order: &GpuData,
    first: Option<u64>,
    column: &C,
) -> Result<C, C::Error<OpError>> {
    let (format, views) = column_views(op, column)?;
    let fail = |e| C::piece_error(column.name(), 0, column.length(), e);
    let ids = prefix(op, order, first).map_err(fail)?;
    let chunks = gather_pieces(gpu, &[ids], &views, format).map_err(fail)?;
    C::from_chunks(column.name(), chunks)
}

/// Chunked keys sorted as [`sort`] sorts them, and chunked `values` (any vertex format, as
/// many rows, chunked any way) in the same order: `(keys, values)`, columns of their names.
/// Unlike [`ops::sort_pairs`](crate::ops::sort_pairs()), values of any row size travel.
///
/// # Errors
/// As [`argsort`] over the keys; the values' [`Chunked::length_error`] for another row count;
/// then `ops::gather`'s errors.
pub fn sort_pairs<C: Chunked>(
    gpu: &Gpu,
    keys: &C,
    values: &C,
    options: &SortOptions,
) -> Result<(C, C), C::Error<OpError>> {
    if values.length() != keys.length() {
        return Err(values.length_error(keys.length()));
    }
    let order = argsort(gpu, keys, options)?;
    Ok((
        take(gpu, "sort_pairs", &order, None, keys)?,
        take(gpu, "sort_pairs", &order, None, values)?,
    ))
}

/// The first `k` keys of [`sort`]'s order of a chunked column and their `uint32` row ids (over
/// all its rows): `(keys, ids)`, as [`ops::top_k`](crate::ops::top_k()) of one buffer.
///
/// # Errors
/// [`OpError::TopKTooLarge`] (in the column type's error) for `k` above the row count; as
/// [`argsort`]; then `ops::gather`'s errors.
pub fn top_k<C: Chunked>(
    gpu: &Gpu,
    keys: &C,
    k: u64,
    options: &SortOptions,
) -> Result<(C, GpuData), C::Error<OpError>> {
    const OP: &str = "top_k";
    let rows = keys.length();
    if k > rows {
        let error = OpError::TopKTooLarge { op: OP, k, rows };
        return Err(C::piece_error(keys.name(), 0, rows, error));
    }
    let order = argsort(gpu, keys, options)?;
    let top = take(gpu, OP, &order, Some(k), keys)?;
    let fail = |e| C::piece_error(keys.name(), 0, rows, e);
    let ids = prefix(OP, &order, Some(k)).map_err(fail)?;
    // The first `k` ids, packed in a buffer of their own.
    let sequence =
        crate::ops::sequence(gpu, u32::try_from(k).unwrap_or(u32::MAX), 0, 1).map_err(fail)?;
    let positions = view_of(OP, &sequence, "row positions").map_err(fail)?;
    let ids = crate::ops::gather(gpu, positions, ids).map_err(fail)?;
    Ok((top, ids))
}

/// A chunked column of keys sorted within each segment, segments in the order of their ids:
/// `segment_ids` (chunked `uint32`, one per row, chunked any way) then the keys, as
/// [`ops::segmented_sort`](crate::ops::segmented_sort()) with
/// [`Segments::Ids`](crate::ops::Segments::Ids) sorts one buffer.
///
/// # Errors
/// As [`argsort`]; `ops::argsort_by`'s refusal of ids that are not `uint32`; the ids'
/// [`Chunked::length_error`] for another row count; then `ops::gather`'s errors.
pub fn segmented_sort<C: Chunked>(
    gpu: &Gpu,
    keys: &C,
    segment_ids: &C,
    options: &SortOptions,
) -> Result<C, C::Error<OpError>> {
    const OP: &str = "segmented_sort";
    if segment_ids.length() != keys.length() {
        return Err(segment_ids.length_error(keys.length()));
    }
    let (id_format, _) = column_views(OP, segment_ids)?;
    if id_format != crate::format::VertexFormat::Uint32 {
        let error = OpError::UnsupportedFormat {
            op: OP,
            input: 1,
            format: id_format,
            expected: "uint32 segment ids",
        };
        return Err(C::piece_error(
            segment_ids.name(),
            0,
            segment_ids.length(),
            error,
        ));
    }
    let by_segment = sort_key(segment_ids)?;
    let by_key = sort_key(keys)?.with_order(options.order);
    let order = argsort_by(gpu, &[by_segment, by_key])
        .map_err(|e| C::piece_error(keys.name(), 0, keys.length(), e))?;
    take(gpu, OP, &order, None, keys)
}
