//! How a column is cut into chunks of whole rows ([`ChunkOptions`]): shared by the chunked
//! uploads (`chunked.rs`) and the row uploads of `vector.rs` that chunk past one buffer.

use crate::device::Gpu;
use crate::table::TableError;

/// How [`GpuVector::upload_with`](crate::table::GpuVector::upload_with) cuts a column into chunks. Rows are never split: a chunk
/// holds whole rows, at most `max_chunk_bytes` bytes (rounded down to whole 4-byte words, and
/// never more than the device's `max_buffer_size`) and at most `rows_per_chunk` rows.
///
/// Columns that go into one table together need the same chunk boundaries (chunk `i` of
/// every column becomes batch `i`): give them the same `rows_per_chunk`, for example the
/// smallest [`rows_per_chunk_for`](Self::rows_per_chunk_for) over their byte strides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChunkOptions {
    /// The most bytes one chunk's buffer holds; `None`: the device's `max_buffer_size`.
    pub max_chunk_bytes: Option<u64>,
    /// The most rows one chunk holds; `None`: as many as fit.
    pub rows_per_chunk: Option<u64>,
}

impl ChunkOptions {
    /// The most bytes one chunk's buffer holds on `gpu`: `max_chunk_bytes` (or the device's
    /// `max_buffer_size`), never more than `max_buffer_size`, rounded down to whole 4-byte words.
    #[must_use]
    pub fn chunk_bytes_for(&self, gpu: &Gpu) -> u64 {
        let device_max = gpu.limits().max_buffer_size;
        self.max_chunk_bytes.unwrap_or(device_max).min(device_max) & !3
    }

    /// The rows one chunk of rows `byte_stride` bytes apart holds on `gpu`.
    ///
    /// # Errors
    /// [`TableError::ChunkRows`] for `rows_per_chunk: Some(0)`; [`TableError::RowExceedsChunk`]
    /// when one row is larger than a chunk may be.
    pub fn rows_per_chunk_for(
        &self,
        gpu: &Gpu,
        vector: &str,
        byte_stride: u64,
    ) -> Result<u64, TableError> {
        let max_chunk_bytes = self.chunk_bytes_for(gpu);
        if self.rows_per_chunk == Some(0) {
            return Err(TableError::ChunkRows {
                vector: vector.to_owned(),
            });
        }
        let fit = match byte_stride {
            0 => u64::MAX,
            stride => max_chunk_bytes / stride,
        };
        if fit == 0 {
            return Err(TableError::RowExceedsChunk {
                vector: vector.to_owned(),
                byte_stride,
                max_chunk_bytes,
            });
        }
        Ok(self.rows_per_chunk.map_or(fit, |rows| rows.min(fit)))
    }
}
