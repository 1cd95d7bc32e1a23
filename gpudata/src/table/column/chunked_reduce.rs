//! Operations on chunked columns whose result depends on rows of several chunks: `extent`
//! (every chunk reduced into one accumulator), `prefix_sum` (the carry between chunks is the
//! scan's own block offsets, on the GPU) and `gather` (indices addressing the whole column's
//! rows, each chunk bound as parts of the source). A thin adapter over `ops`: the kernels,
//! rules and errors are `ops::extent`'s, `ops::prefix_sum`'s and `ops::gather`'s, which give
//! exactly the one-buffer result for the same rows.
//!
//! List columns (`vertex-list<F>`, `value-list<F>`) are refused with
//! [`TableError::ChunkedList`](crate::table::TableError::ChunkedList), as
//! [`GpuVector::map_chunks`] refuses them; columns that are not one vertex format (struct
//! rows, data without a format) with [`OpError::WrongData`], as the operations refuse them.

use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::ops;
use crate::ops::{OpError, OpsConfig};
use crate::table::ChunkMapError;

use super::chunked::{ChunkPiece, check_not_list, piece_view};
use super::vector::{GpuVector, format_text};

impl GpuVector {
    /// The vertex format and the chunks as views, for an operation `op` over one column; an
    /// error names the vector and the rows of the chunk (or of the vector) it is about.
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    fn column_views(
        &self,
        op: &'static str,
    ) -> Result<(VertexFormat, Vec<GpuDataView<'_>>), ChunkMapError<OpError>> {
        check_not_list(self)?;
        let Some(GpuVectorFormat::Fixed(format)) = self.vector_format() else {
            let source = OpError::WrongData {
                op,
                expected: "a column of one vertex format",
                found: format!(
                    "gpu vector `{}` of {}",
                    self.name(),
                    format_text(self.format())
                ),
            };
            return Err(ChunkMapError::piece(self.name(), 0, self.length(), source));
        };
        let views = self
            .chunk_spans()
            .iter()
            .map(|span| {
                let piece = ChunkPiece {
                    data: span.data,
                    first: 0,
                    rows: span.rows,
                };
                piece_view(op, self, &piece).map_err(|source| {
                    ChunkMapError::piece(
                        self.name(),
                        span.first_row,
                        span.first_row + span.rows,
                        source,
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((format, views))
    }

    /// The minimum and maximum of every lane over all rows of every chunk: exactly
    /// [`ops::extent`] of the same rows in one buffer (one row per lane, `[minimum, maximum]`,
    /// in the column's data type with two components; luma.gl's NaN rule with the column's
    /// first row: a NaN there is the lane's minimum and maximum, NaNs in any later row, the
    /// first rows of later chunks included, are skipped; `-0` below `+0`; normalized formats by
    /// their stored integers, `float16` by value).
    ///
    /// Every chunk's rows reduce into one accumulator, so a column of any number of chunks
    /// costs one pass over its rows and one final dispatch; nothing is read back. Each chunk
    /// may hold up to `u32::MAX` rows, the column any number.
    ///
    /// ```
    /// use gpudata::table::{ChunkOptions, GpuVector};
    ///
    /// let gpu = &gpudata::Gpu::headless()?;
    /// let usage = gpudata::data::DEFAULT_USAGE;
    /// let two = ChunkOptions { rows_per_chunk: Some(2), ..ChunkOptions::default() };
    /// let x = GpuVector::upload_values(gpu, "x", &[3.0f32, 5.0, f32::NAN, -1.0, 4.0], usage, two)?;
    /// let extent = x.extent(gpu)?;
    /// assert_eq!(extent.read_bytes(gpu)?, bytemuck::cast_slice::<f32, u8>(&[-1.0, 5.0]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ChunkMapError::Table`] with [`TableError::ChunkedList`](crate::table::TableError::ChunkedList)
    /// for a list format; [`ChunkMapError::Piece`] (named after this vector) with
    /// [`ops::extent`]'s error: [`OpError::Empty`] for no rows, [`OpError::UnsupportedFormat`],
    /// [`OpError::WrongData`] for a column that is not one vertex format, the input checks of
    /// every operation, [`OpError::TooManyRows`] for a chunk past `u32::MAX` rows,
    /// [`OpError::Gpu`].
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn extent(&self, gpu: &Gpu) -> Result<GpuData, ChunkMapError<OpError>> {
        const OP: &str = "extent";
        let (_, views) = self.column_views(OP)?;
        ops::plan_extent_pieces(gpu, &views, &OpsConfig::default())
            .and_then(|plan| plan.run(gpu))
            .map_err(|source| ChunkMapError::piece(self.name(), 0, self.length(), source))
    }

    /// The exclusive prefix sum of a one-lane integer column across all its chunks: exactly
    /// [`ops::prefix_sum`] of the same rows in one buffer (wrapping 32-bit sums, `n + 1`
    /// values, the last the total; `uint32` for unsigned input, `sint32` for signed), as a
    /// vector named `prefix_sum` whose chunks follow this vector's (cut further where an
    /// output chunk, four bytes a value, would not fit one buffer; the last chunk holds one
    /// value more, the total; a column of no rows gives one chunk holding 0).
    ///
    /// Every chunk's value `i` already includes the wrapping total of the chunks before it:
    /// the chunks' block sums are scanned together on the GPU, so the carries cost no readback
    /// and no extra pass over the values.
    ///
    /// ```
    /// use gpudata::table::{ChunkOptions, GpuVector};
    ///
    /// let gpu = &gpudata::Gpu::headless()?;
    /// let usage = gpudata::data::DEFAULT_USAGE;
    /// let two = ChunkOptions { rows_per_chunk: Some(2), ..ChunkOptions::default() };
    /// let counts = GpuVector::upload_values(gpu, "counts", &[3u32, 1, 4, 1, 5], usage, two)?;
    /// let offsets = counts.prefix_sum(gpu)?;
    /// assert_eq!(offsets.chunks().len(), 3);
    /// assert_eq!(offsets.read_bytes(gpu)?, bytemuck::cast_slice::<u32, u8>(&[0, 3, 4, 8, 9, 14]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ChunkMapError::Table`] with [`TableError::ChunkedList`](crate::table::TableError::ChunkedList)
    /// for a list format; [`ChunkMapError::Piece`] (named after this vector) with
    /// [`ops::prefix_sum`]'s error: [`OpError::UnsupportedFormat`] for another format than a
    /// one-lane integer one, [`OpError::WrongData`] for a column that is not one vertex format,
    /// the input checks of every operation, [`OpError::TooLarge`] when the column's block
    /// sums (four bytes per 256 rows) do not fit one buffer, [`OpError::Gpu`].
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn prefix_sum(&self, gpu: &Gpu) -> Result<GpuVector, ChunkMapError<OpError>> {
        const OP: &str = "prefix_sum";
        let (format, views) = self.column_views(OP)?;
        let chunks = ops::prefix_sum_pieces(gpu, &views, format)
            .map_err(|source| ChunkMapError::piece(self.name(), 0, self.length(), source))?;
        Ok(GpuVector::from_data(OP, chunks)?)
    }

    /// The rows of this vector at the row indices in `ids`, across all chunks of both: exactly
    /// [`ops::gather`] of the same rows in one buffer (an index that is not an integer in
    /// `0..self.length()`, negative, too large, fractional or NaN, gives a zero row; indices of
    /// any one-component integer or float format, `float16` by value). The output is a vector
    /// named after this one, of its format, chunked as `ids` is (cut further where an output
    /// chunk would not fit one buffer); indices of no rows give one empty chunk.
    ///
    /// Every chunk of this vector is bound as one or more parts of the source, each part one
    /// dispatch over a run of indices that writes the rows whose index falls into it (so the
    /// indices are read once per part); nothing is read back. A [`GpuData`] of indices becomes
    /// a vector with `GpuVector::from_data("ids", vec![data.share()])`.
    ///
    /// ```
    /// use gpudata::table::{ChunkOptions, GpuVector};
    ///
    /// let gpu = &gpudata::Gpu::headless()?;
    /// let usage = gpudata::data::DEFAULT_USAGE;
    /// let two = ChunkOptions { rows_per_chunk: Some(2), ..ChunkOptions::default() };
    /// let x = GpuVector::upload_values(gpu, "x", &[10.0f32, 11.0, 12.0, 13.0, 14.0], usage, two)?;
    /// let ids = GpuVector::upload_values(gpu, "ids", &[4i32, 0, -1, 2, 9], usage, ChunkOptions::default())?;
    /// let rows = x.gather(gpu, &ids)?;
    /// assert_eq!(rows.read_bytes(gpu)?, bytemuck::cast_slice::<f32, u8>(&[14.0, 10.0, 0.0, 12.0, 0.0]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ChunkMapError::Table`] with [`TableError::ChunkedList`](crate::table::TableError::ChunkedList)
    /// when this vector or `ids` has a list format; [`ChunkMapError::Piece`] (named after this
    /// vector, over the rows of `ids`) with [`ops::gather`]'s error:
    /// [`OpError::UnsupportedFormat`] for an index format it does not take,
    /// [`OpError::WrongData`] for a vector that is not one vertex format, the input checks of
    /// every operation, [`OpError::TooManyRows`] for a source of more than `u32::MAX` rows (the
    /// indices are 32-bit, as for one buffer), [`OpError::TooLarge`], [`OpError::Gpu`].
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn gather(&self, gpu: &Gpu, ids: &GpuVector) -> Result<GpuVector, ChunkMapError<OpError>> {
        const OP: &str = "gather";
        let (_, id_views) = ids.column_views(OP)?;
        let (format, views) = self.column_views(OP)?;
        let chunks = ops::gather_pieces(gpu, &id_views, &views, format)
            .map_err(|source| ChunkMapError::piece(self.name(), 0, ids.length(), source))?;
        Ok(GpuVector::from_data(self.name(), chunks)?)
    }
}
