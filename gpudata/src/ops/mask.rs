//! [`GpuMask`]: one bit per row on the GPU, in one or more pieces of rows: what comparisons write
//! and compaction reads.

use crate::data::{GpuData, GpuDataDescriptor};
use crate::device::Gpu;
use crate::device::transfer::{WaitMode, read_range};
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::ops::OpError;
use crate::ops::OpPlan;
use crate::ops::OpsConfig;
use crate::ops::kernels::Planner;
use crate::ops::kernels::select::rows::output_buffer;
use crate::ops::kernels::select::{bits, predicate, scan};
use crate::ops::output::output_data;

/// A row mask on the GPU, in one or more pieces of consecutive rows: in each piece, bit
/// `i % 32` of 32-bit word `i / 32` is the piece's row `i` (Arrow's bit order, least
/// significant first), bits past its last row zero. Written by [`mask`](super::mask) (one
/// piece: comparisons combined with and/or/not) and by
/// [`piecewise::mask`](super::piecewise::mask) (one piece per piece of rows of chunked
/// columns), joined by [`from_masks`](Self::from_masks); read by [`compact`](super::compact)
/// and [`GpuTable::filter`](crate::GpuTable::filter) (which need the rows they read in one
/// piece), by [`piecewise::compact`](super::piecewise::compact) (any pieces), read back as
/// `Vec<bool>` or, with feature `arrow`, an Arrow `BooleanArray`.
#[derive(Debug)]
pub struct GpuMask {
    pieces: Vec<Piece>,
    length: u64,
}

/// One buffer of a mask: its words and rows.
#[derive(Debug)]
struct Piece {
    words: GpuData,
    length: u64,
}

impl GpuMask {
    /// A mask of one piece.
    fn one(words: GpuData, length: u64) -> GpuMask {
        GpuMask {
            pieces: vec![Piece { words, length }],
            length,
        }
    }

    /// Wraps `words` (a buffer of at least [`predicate::mask_words`] words) as a mask of
    /// `length` rows.
    pub(crate) fn from_buffer(
        gpu: &Gpu,
        buffer: wgpu::Buffer,
        length: u64,
    ) -> Result<GpuMask, OpError> {
        let words = buffer.size() / 4;
        let descriptor =
            GpuDataDescriptor::new(GpuVectorFormat::Fixed(VertexFormat::Uint32), words);
        let words = GpuData::new(crate::data::BufferHandle::Owned(buffer), descriptor)
            .map_err(|e| OpError::data("mask", e))?
            .on_device(gpu);
        Ok(GpuMask::one(words, length))
    }

    /// A mask uploaded from `rows` (`true`: keep the row), in one piece.
    ///
    /// # Errors
    /// [`OpError::Gpu`] when the device refuses the buffer.
    pub fn from_bools(gpu: &Gpu, rows: &[bool]) -> Result<GpuMask, OpError> {
        let length = rows.len() as u64;
        let mut words = vec![0u32; usize::try_from(predicate::mask_words(length)).unwrap_or(0)];
        for (i, &keep) in rows.iter().enumerate() {
            if keep {
                words[i / 32] |= 1 << (i % 32);
            }
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let bytes = if bytes.is_empty() { vec![0; 32] } else { bytes };
        let descriptor = GpuDataDescriptor::new(
            GpuVectorFormat::Fixed(VertexFormat::Uint32),
            bytes.len() as u64 / 4,
        );
        let words = GpuData::from_bytes(gpu, &bytes, descriptor, usage())
            .map_err(|e| OpError::data("mask", e))?;
        Ok(GpuMask::one(words, length))
    }

    /// A mask uploaded from an Arrow `BooleanArray`; null rows are not kept.
    ///
    /// # Errors
    /// As [`from_bools`](Self::from_bools).
    #[cfg(feature = "arrow")]
    pub fn from_arrow(gpu: &Gpu, array: &arrow_array::BooleanArray) -> Result<GpuMask, OpError> {
        let rows: Vec<bool> = array.iter().map(|v| v.unwrap_or(false)).collect();
        GpuMask::from_bools(gpu, &rows)
    }

    /// The masks `masks` of consecutive row ranges, in order, as one mask over all their rows
    /// (their pieces, in order; nothing is copied). An empty list is a mask of no rows.
    #[must_use]
    pub fn from_masks(masks: Vec<GpuMask>) -> GpuMask {
        // No overflow: each piece's rows are at most 32 × its buffer's bytes, and the buffers
        // exist together in one process.
        let length = masks.iter().map(GpuMask::len).sum();
        let pieces = masks.into_iter().flat_map(|m| m.pieces).collect();
        GpuMask { pieces, length }
    }

    /// The row count.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.length
    }

    /// Whether the mask has no rows.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.length == 0
    }

    /// The pieces in row order, each its words as `uint32` data (for binding them in kernels
    /// of your own) and its row count. A mask written by [`mask`](super::mask) or
    /// [`from_bools`](Self::from_bools) has one.
    pub fn pieces(&self) -> impl ExactSizeIterator<Item = (&GpuData, u64)> {
        self.pieces.iter().map(|p| (&p.words, p.length))
    }

    /// The words of a mask in one piece, which `op` reads as one buffer.
    ///
    /// # Errors
    /// [`OpError::WrongData`] for a mask in several pieces.
    pub(crate) fn words(&self, op: &'static str) -> Result<&GpuData, OpError> {
        match self.pieces.as_slice() {
            [piece] => Ok(&piece.words),
            pieces => Err(OpError::WrongData {
                op,
                expected: "a mask in one piece",
                found: format!("a mask in {} pieces", pieces.len()),
            }),
        }
    }

    /// The buffer of a mask in one piece (as [`words`](Self::words)).
    pub(crate) fn buffer(&self, op: &'static str) -> Result<&wgpu::Buffer, OpError> {
        self.words(op).map(GpuData::buffer)
    }

    fn read_words(gpu: &Gpu, piece: &Piece) -> Result<Vec<u32>, OpError> {
        let bytes = piece.length.div_ceil(32) * 4;
        let raw = pollster::block_on(read_range(
            gpu,
            piece.words.buffer(),
            0,
            bytes,
            "read back a mask",
            WaitMode::Block,
        ))
        .map_err(|source| OpError::Gpu { op: "mask", source })?;
        Ok(raw
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// The mask read back, one `bool` per row. Blocks until the GPU is done.
    ///
    /// # Errors
    /// [`OpError::Gpu`] when the readback fails.
    pub fn read(&self, gpu: &Gpu) -> Result<Vec<bool>, OpError> {
        let mut rows = Vec::with_capacity(usize::try_from(self.length).unwrap_or(0));
        for piece in &self.pieces {
            let words = GpuMask::read_words(gpu, piece)?;
            rows.extend((0..piece.length).map(|i| (words[(i / 32) as usize] >> (i % 32)) & 1 == 1));
        }
        Ok(rows)
    }

    /// The mask read back as an Arrow `BooleanArray` without nulls (the bits of a mask in one
    /// piece are its words as they are). Blocks until the GPU is done.
    ///
    /// # Errors
    /// As [`read`](Self::read).
    #[cfg(feature = "arrow")]
    pub fn read_arrow(&self, gpu: &Gpu) -> Result<arrow_array::BooleanArray, OpError> {
        let length = usize::try_from(self.length).map_err(|_| OpError::TooManyRows {
            op: "mask",
            length: self.length,
            max: usize::MAX as u64,
        })?;
        let [piece] = self.pieces.as_slice() else {
            return Ok(arrow_array::BooleanArray::from(self.read(gpu)?));
        };
        let words = GpuMask::read_words(gpu, piece)?;
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let bits =
            arrow_buffer::BooleanBuffer::new(arrow_buffer::Buffer::from_vec(bytes), 0, length);
        Ok(arrow_array::BooleanArray::new(bits, None))
    }

    /// Rows `first..first + rows` of the mask as a new mask (bit 0 of its word 0 is row
    /// `first`): one piece for rows within one piece, else a piece for each piece they cross;
    /// a whole piece is shared as it is, part of one shifted on the GPU. The table filter cuts
    /// a mask per batch, and the piecewise driver per piece of rows, with it.
    ///
    /// # Errors
    /// [`OpError::RowsOutOfRange`] past the mask's end; [`OpError::Gpu`] when a kernel fails.
    pub fn slice(&self, gpu: &Gpu, first: u64, rows: u64) -> Result<GpuMask, OpError> {
        const OP: &str = "mask slice";
        let end = first
            .checked_add(rows)
            .filter(|&end| end <= self.length)
            .ok_or(OpError::RowsOutOfRange {
                op: OP,
                first,
                rows,
                length: self.length,
            })?;
        let mut start = 0u64;
        let mut parts = Vec::new();
        for piece in &self.pieces {
            let piece_end = start + piece.length;
            // The rows of this piece in range; an empty range is cut from the piece holding it.
            let (from, to) = (first.max(start), end.min(piece_end));
            if from < to || (rows == 0 && first >= start && first <= piece_end) {
                let (skip, count) = (from - start, to.max(from) - from);
                parts.push(if skip == 0 && count == piece.length {
                    GpuMask::one(piece.words.share(), piece.length)
                } else {
                    slice_piece(gpu, OP, piece, skip, count)?
                });
                if rows == 0 || to == end {
                    break;
                }
            }
            start = piece_end;
        }
        if parts.is_empty() {
            // A mask of no pieces: the empty slice is made from no rows.
            return GpuMask::from_bools(gpu, &[]);
        }
        Ok(GpuMask::from_masks(parts))
    }

    /// The mask as one `uint32` per row, 1 for a set bit and 0 otherwise: packed data, one per
    /// piece, unpacked on the GPU (what [`argsort_by`](super::argsort_by) sorts null rows by).
    ///
    /// # Errors
    /// [`OpError::TooLarge`] and [`OpError::Gpu`] when the device refuses a buffer or the kernel.
    pub(crate) fn flags(&self, gpu: &Gpu) -> Result<Vec<GpuData>, OpError> {
        const OP: &str = "mask flags";
        let planner = Planner::new(gpu, &OpsConfig::default());
        let mut flags = Vec::with_capacity(self.pieces.len());
        for piece in &self.pieces {
            let size = piece
                .length
                .checked_mul(4)
                .ok_or(OpError::Overflow { op: OP, input: 0 })?;
            let output = output_buffer(&planner, OP, size)?;
            let dispatches =
                bits::unpack(&planner, OP, piece.words.buffer(), piece.length, 4, &output)?;
            OpPlan::from_dispatches(gpu, OP, dispatches, size, ()).run(gpu)?;
            flags.push(output_data(
                gpu,
                OP,
                &output,
                GpuVectorFormat::Fixed(VertexFormat::Uint32),
                piece.length,
            )?);
        }
        Ok(flags)
    }

    /// The rows where each piece ends, in order (the pieces' cut points).
    pub(crate) fn ends(&self) -> Vec<u64> {
        self.pieces
            .iter()
            .scan(0u64, |end, p| {
                *end += p.length;
                Some(*end)
            })
            .collect()
    }

    /// How many rows the mask keeps, counted on the GPU piece by piece. Blocks until it is
    /// done.
    ///
    /// # Errors
    /// [`OpError::Gpu`] when a kernel or the readback fails.
    pub fn count(&self, gpu: &Gpu) -> Result<u64, OpError> {
        let planner = Planner::new(gpu, &OpsConfig::default());
        let mut sum = 0u64;
        for piece in &self.pieces {
            let words = piece.length.div_ceil(32);
            let (dispatches, offsets, blocks) =
                scan::mask_block_offsets(&planner, "count", piece.words.buffer(), words)?;
            OpPlan::from_dispatches(gpu, "count", dispatches, 0, ()).run(gpu)?;
            sum += read_u32(gpu, "count", &offsets, blocks)?;
        }
        Ok(sum)
    }
}

/// Rows `first..first + rows` of `piece` as a new mask of one piece, shifted on the GPU.
fn slice_piece(
    gpu: &Gpu,
    op: &'static str,
    piece: &Piece,
    first: u64,
    rows: u64,
) -> Result<GpuMask, OpError> {
    let planner = Planner::new(gpu, &OpsConfig::default());
    let words = predicate::mask_words(rows).max(8);
    let output = output_buffer(&planner, op, words * 4)?;
    let dispatches = bits::slice(&planner, op, piece.words.buffer(), first, rows, &output)?;
    OpPlan::from_dispatches(gpu, op, dispatches, 0, ()).run(gpu)?;
    GpuMask::from_buffer(gpu, output, rows)
}

/// Word `index` of `buffer`, read back.
pub(crate) fn read_u32(
    gpu: &Gpu,
    op: &'static str,
    buffer: &wgpu::Buffer,
    index: u64,
) -> Result<u64, OpError> {
    let raw = pollster::block_on(read_range(
        gpu,
        buffer,
        index * 4,
        4,
        "read back a count",
        WaitMode::Block,
    ))
    .map_err(|source| OpError::Gpu { op, source })?;
    Ok(u64::from(u32::from_le_bytes([
        raw[0], raw[1], raw[2], raw[3],
    ])))
}

fn usage() -> wgpu::BufferUsages {
    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST
}
