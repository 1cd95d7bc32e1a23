//! The one piecewise driver: columns in chunks cut together into pieces of rows that lie in one
//! chunk of each ([`Cuts`]), an operation run on every piece (halved where its output would not
//! fit one buffer) and the outputs collected as the chunks of a new column ([`collect`]).

use crate::data::{GpuData, GpuDataFormat, GpuDataView};
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::ops::OpError;

use super::column::{ChunkPiece, Chunked};

/// One chunk's place among its column's rows.
#[derive(Clone, Copy)]
pub(super) struct Span<'a> {
    /// The column's row index of the chunk's first row.
    pub first_row: u64,
    /// The chunk's rows.
    pub rows: u64,
    /// The chunk.
    pub data: &'a GpuData,
}

/// Where each chunk of `column` lies among its rows, in order.
pub(super) fn spans<C: Chunked>(column: &C) -> Vec<Span<'_>> {
    let mut first_row = 0u64;
    column
        .chunks()
        .iter()
        .map(|data| {
            let span = Span {
                first_row,
                rows: data.length(),
                data,
            };
            // No overflow: the sum is the column's length, checked when the chunks joined it.
            first_row += data.length();
            span
        })
        .collect()
}

/// Checks that `columns` can be cut into pieces together: rows the driver can address one by
/// one, one length, at least one chunk each.
///
/// # Errors
/// The column type's refusals ([`Chunked::check_rows`], [`Chunked::length_error`]).
pub(super) fn check<C: Chunked, E>(columns: &[&C]) -> Result<(), C::Error<E>> {
    let length = columns.first().map_or(0, |c| c.length());
    for column in columns {
        column.check_rows()?;
        if column.length() != length || column.chunks().is_empty() {
            return Err(column.length_error(length));
        }
    }
    Ok(())
}

/// Columns (checked by [`check`]) cut together into pieces of rows: each piece lies in one
/// chunk of every column.
pub(super) struct Cuts<'a> {
    spans: Vec<Vec<Span<'a>>>,
    ends: Vec<u64>,
}

impl<'a> Cuts<'a> {
    /// `columns` cut wherever any column's chunk ends and at every row in `cuts` (other
    /// boundaries, such as a mask's pieces'); one empty piece when there are no rows.
    pub(super) fn new<C: Chunked>(columns: &[&'a C], cuts: &[u64]) -> Cuts<'a> {
        let spans: Vec<Vec<Span<'a>>> = columns.iter().map(|c| spans(*c)).collect();
        let mut ends: Vec<u64> = spans
            .iter()
            .flatten()
            .map(|s| s.first_row + s.rows)
            .chain(cuts.iter().copied())
            .filter(|&end| end > 0)
            .collect();
        ends.sort_unstable();
        ends.dedup();
        if ends.is_empty() {
            ends.push(0);
        }
        Cuts { spans, ends }
    }

    /// The pieces in row order: each its rows `start..end` and, per column in order, the rows
    /// of the chunk it lies in (the last chunk for a column of no rows).
    pub(super) fn pieces(&self) -> impl Iterator<Item = (u64, u64, Vec<ChunkPiece<'a>>)> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(start, &end)| {
            let pieces = self
                .spans
                .iter()
                .filter_map(|chunks| {
                    let span = chunks
                        .iter()
                        .find(|s| s.first_row + s.rows > start)
                        .or(chunks.last())?;
                    Some(ChunkPiece {
                        data: span.data,
                        first: start - span.first_row,
                        rows: end - start,
                    })
                })
                .collect();
            (start, end, pieces)
        })
    }
}

/// Runs `operation` on every piece of `inputs` (one [`ChunkPiece`] per input, in order) and
/// collects its outputs, in row order, as the chunks of a new column named `name`. Where the
/// operation fails with an error `halve` accepts (an output that does not fit one buffer) on a
/// piece of more than one row, it runs on each half of the piece instead. An error names the
/// rows it failed on; the outputs made before it are freed.
pub(super) fn collect<C: Chunked, E>(
    inputs: &[&C],
    name: &str,
    mut operation: impl FnMut(&[ChunkPiece<'_>]) -> Result<GpuData, E>,
    halve: impl Fn(&E) -> bool,
) -> Result<C, C::Error<E>> {
    check(inputs)?;
    let cuts = Cuts::new(inputs, &[]);
    let mut outputs = Vec::new();
    for (start, _, pieces) in cuts.pieces() {
        if let Err((first_row, rows, source)) =
            run_fitting(&pieces, start, &mut operation, &halve, &mut outputs)
        {
            outputs.into_iter().for_each(GpuData::destroy);
            return Err(C::piece_error(name, first_row, first_row + rows, source));
        }
    }
    C::from_chunks(name, outputs)
}

/// Runs `operation` on one piece (its first row `first_row` among the columns'), pushing the
/// output; where `halve` accepts its error, on each half of the piece instead. The error names
/// the rows it failed on.
fn run_fitting<E>(
    pieces: &[ChunkPiece<'_>],
    first_row: u64,
    operation: &mut impl FnMut(&[ChunkPiece<'_>]) -> Result<GpuData, E>,
    halve: &impl Fn(&E) -> bool,
    outputs: &mut Vec<GpuData>,
) -> Result<(), (u64, u64, E)> {
    let rows = pieces.first().map_or(0, |p| p.rows);
    match operation(pieces) {
        Ok(output) => {
            outputs.push(output);
            Ok(())
        }
        Err(error) if rows > 1 && halve(&error) => {
            let half = rows / 2;
            let part = |skip: u64, rows: u64| -> Vec<ChunkPiece<'_>> {
                pieces.iter().map(|p| p.part(skip, rows)).collect()
            };
            run_fitting(&part(0, half), first_row, operation, halve, outputs)?;
            let rest = part(half, rows - half);
            run_fitting(&rest, first_row + half, operation, halve, outputs)
        }
        Err(source) => Err((first_row, rows, source)),
    }
}

/// The piece's rows of `column` as a view: refused for chunks that are not one fixed-format
/// column (struct rows, data without a format) with [`OpError::WrongData`], as the operations
/// refuse such data.
pub(super) fn piece_view<'a, C: Chunked>(
    op: &'static str,
    column: &C,
    piece: &ChunkPiece<'a>,
) -> Result<GpuDataView<'a>, OpError> {
    piece.view().ok_or_else(|| OpError::WrongData {
        op,
        expected: "a column of one vertex format",
        found: column.describe(piece.data.format()),
    })
}

/// The vertex format and the chunks as views, for an operation `op` over one whole column; an
/// error names the column and the rows of the chunk (or of the column) it is about.
pub(super) fn column_views<'a, C: Chunked>(
    op: &'static str,
    column: &'a C,
) -> Result<(VertexFormat, Vec<GpuDataView<'a>>), C::Error<OpError>> {
    column.check_rows()?;
    let Some(GpuVectorFormat::Fixed(format)) = column.format().and_then(GpuDataFormat::as_vector)
    else {
        let source = OpError::WrongData {
            op,
            expected: "a column of one vertex format",
            found: column.describe(column.format()),
        };
        return Err(C::piece_error(column.name(), 0, column.length(), source));
    };
    let views = spans(column)
        .iter()
        .map(|span| {
            let piece = ChunkPiece {
                data: span.data,
                first: 0,
                rows: span.rows,
            };
            piece_view(op, column, &piece).map_err(|source| {
                let end = span.first_row + span.rows;
                C::piece_error(column.name(), span.first_row, end, source)
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((format, views))
}

/// Runs `operation` on every piece of rows that lies in one chunk of each input and collects
/// its outputs, in row order, as the chunks of a new column named `name`: any operation whose
/// row `i` depends on row `i` of the inputs only, on columns larger than one buffer. The
/// pieces end wherever any input's chunk ends, so inputs chunked differently work too (each
/// piece hands the operation one [`ChunkPiece`] per input, in the inputs' order). The inputs
/// of a column with no rows give one empty piece.
///
/// # Errors
/// The column type's refusals ([`Chunked::check_rows`], [`Chunked::length_error`] for inputs
/// of different lengths, [`Chunked::from_chunks`] of the outputs); the piece error
/// ([`Chunked::piece_error`]) with the operation's error (outputs made before it are freed).
pub fn map<C: Chunked, E>(
    inputs: &[&C],
    name: &str,
    operation: impl FnMut(&[ChunkPiece<'_>]) -> Result<GpuData, E>,
) -> Result<C, C::Error<E>> {
    collect(inputs, name, operation, |_| false)
}
