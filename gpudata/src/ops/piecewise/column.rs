//! What a column held in chunks gives the piecewise driver ([`Chunked`]), and the rows of one
//! chunk that one piece covers ([`ChunkPiece`]).

use crate::data::{GpuData, GpuDataFormat, GpuDataView};

/// A column held in chunks of whole rows, each chunk one [`GpuData`] (a column larger than one
/// buffer): what [`ops::piecewise`](super)' driver reads and writes. The driver cuts such
/// columns into pieces of rows that lie in one chunk of each, runs `ops`' kernels on every
/// piece as [`GpuDataView`]s, and collects the outputs as the chunks of a new column.
///
/// [`GpuVector`](crate::GpuVector) implements it; the refusals and errors the driver reports
/// are built by the implementation, so every operation over a chunked column reports in the
/// column type's own error (`ChunkMapError` for `GpuVector`).
pub trait Chunked: Sized {
    /// What an operation over such columns returns on failure, when the operation on one
    /// piece fails with `E`.
    type Error<E>;

    /// The column's name (what errors name; outputs take it where an operation keeps it).
    fn name(&self) -> &str;

    /// The number of rows.
    fn length(&self) -> u64;

    /// The column's format: one per column, every chunk's.
    fn format(&self) -> Option<&GpuDataFormat>;

    /// The chunks, in row order.
    fn chunks(&self) -> &[GpuData];

    /// Refuses a column whose chunks the driver cannot address row by row (rows of several
    /// values: a list format).
    ///
    /// # Errors
    /// The column type's refusal.
    fn check_rows<E>(&self) -> Result<(), Self::Error<E>>;

    /// The refusal of this column beside columns of `expected` rows: another row count, or no
    /// chunk at all.
    fn length_error<E>(&self, expected: u64) -> Self::Error<E>;

    /// The refusal of a mask of `found` rows beside columns of `expected` rows.
    fn mask_length_error<E>(expected: u64, found: u64) -> Self::Error<E>;

    /// The operation's error `source` on rows `start..end` of the column named `name`.
    fn piece_error<E>(name: &str, start: u64, end: u64, source: E) -> Self::Error<E>;

    /// How a chunk of `format` of this column reads in an error (`OpError::WrongData`'s
    /// `found`).
    fn describe(&self, format: Option<&GpuDataFormat>) -> String;

    /// A column named `name` of `chunks`, in row order: an operation's output.
    ///
    /// # Errors
    /// The column type's refusal of the chunks.
    fn from_chunks<E>(name: &str, chunks: Vec<GpuData>) -> Result<Self, Self::Error<E>>;
}

/// The rows of one input of [`map`](super::map) in one piece: `rows` rows of `data` from its
/// row `first`.
#[derive(Clone, Copy, Debug)]
pub struct ChunkPiece<'a> {
    /// The chunk the rows lie in.
    pub data: &'a GpuData,
    /// The piece's first row, counted inside `data`.
    pub first: u64,
    /// The piece's rows.
    pub rows: u64,
}

impl<'a> ChunkPiece<'a> {
    /// The piece as a view, for chunks of a fixed vector format; `None` otherwise.
    #[must_use]
    pub fn view(&self) -> Option<GpuDataView<'a>> {
        self.data.as_view()?.slice(self.first, self.rows)
    }

    /// Field `name` of the piece's rows, for struct-formatted chunks; `None` for an unknown
    /// field or a chunk without a struct format.
    #[must_use]
    pub fn child(&self, name: &str) -> Option<GpuDataView<'a>> {
        self.data.get_child(name)?.slice(self.first, self.rows)
    }

    /// `rows` rows of the same chunk from `skip` rows into the piece.
    pub(super) fn part(&self, skip: u64, rows: u64) -> ChunkPiece<'a> {
        ChunkPiece {
            data: self.data,
            first: self.first + skip,
            rows,
        }
    }
}
