//! [`GpuMask`]: one bit per row on the GPU, what comparisons write and compaction reads.

use crate::data::{GpuData, GpuDataDescriptor};
use crate::device::Gpu;
use crate::device::transfer::{WaitMode, read_range};
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::ops::OpError;
use crate::ops::OpsConfig;
use crate::ops::kernels::Planner;
use crate::ops::kernels::select::{bits, predicate, scan};

/// A row mask on the GPU: bit `i % 32` of 32-bit word `i / 32` is row `i` (Arrow's bit order,
/// least significant first), bits past the last row zero. Written by [`mask`](super::mask)
/// (comparisons combined with and/or/not), read by [`compact`](super::compact) and
/// [`GpuTable::filter`](crate::GpuTable::filter), read back as `Vec<bool>` or, with feature
/// `arrow`, an Arrow `BooleanArray`.
#[derive(Debug)]
pub struct GpuMask {
    words: GpuData,
    length: u64,
}

impl GpuMask {
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
        Ok(GpuMask { words, length })
    }

    /// A mask uploaded from `rows` (`true`: keep the row).
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
        Ok(GpuMask { words, length })
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

    /// The mask's words as `uint32` data (for binding it in kernels of your own).
    #[must_use]
    pub fn words(&self) -> &GpuData {
        &self.words
    }

    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        self.words.buffer()
    }

    fn read_words(&self, gpu: &Gpu) -> Result<Vec<u32>, OpError> {
        let bytes = self.length.div_ceil(32) * 4;
        let raw = pollster::block_on(read_range(
            gpu,
            self.buffer(),
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
        let words = self.read_words(gpu)?;
        Ok((0..self.length)
            .map(|i| (words[(i / 32) as usize] >> (i % 32)) & 1 == 1)
            .collect())
    }

    /// The mask read back as an Arrow `BooleanArray` without nulls (its bits are the mask's
    /// words as they are). Blocks until the GPU is done.
    ///
    /// # Errors
    /// As [`read`](Self::read).
    #[cfg(feature = "arrow")]
    pub fn read_arrow(&self, gpu: &Gpu) -> Result<arrow_array::BooleanArray, OpError> {
        let words = self.read_words(gpu)?;
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let length = usize::try_from(self.length).map_err(|_| OpError::TooManyRows {
            op: "mask",
            length: self.length,
            max: usize::MAX as u64,
        })?;
        let bits =
            arrow_buffer::BooleanBuffer::new(arrow_buffer::Buffer::from_vec(bytes), 0, length);
        Ok(arrow_array::BooleanArray::new(bits, None))
    }

    /// Rows `first..first + rows` of the mask as a new mask (bit 0 of its word 0 is row
    /// `first`), shifted on the GPU.
    ///
    /// # Errors
    /// [`OpError::RowsOutOfRange`] past the mask's end; [`OpError::Gpu`] when a kernel fails.
    pub fn slice(&self, gpu: &Gpu, first: u64, rows: u64) -> Result<GpuMask, OpError> {
        const OP: &str = "mask slice";
        if first.checked_add(rows).is_none_or(|end| end > self.length) {
            return Err(OpError::RowsOutOfRange {
                op: OP,
                first,
                rows,
                length: self.length,
            });
        }
        let planner = Planner::new(gpu, &OpsConfig::default());
        let words = predicate::mask_words(rows).max(8);
        let output = crate::ops::kernels::select::rows::output_buffer(&planner, OP, words * 4)?;
        let dispatches = bits::slice(&planner, OP, self.buffer(), first, rows, &output)?;
        crate::ops::OpPlan::from_dispatches(gpu, OP, dispatches, 0, ()).run(gpu)?;
        GpuMask::from_buffer(gpu, output, rows)
    }

    /// How many rows the mask keeps, counted on the GPU. Blocks until it is done.
    ///
    /// # Errors
    /// [`OpError::Gpu`] when a kernel or the readback fails.
    pub fn count(&self, gpu: &Gpu) -> Result<u64, OpError> {
        let planner = Planner::new(gpu, &OpsConfig::default());
        let words = self.length.div_ceil(32);
        let (dispatches, offsets, blocks) =
            scan::mask_block_offsets(&planner, "count", self.buffer(), words)?;
        crate::ops::OpPlan::from_dispatches(gpu, "count", dispatches, 0, ()).run(gpu)?;
        read_u32(gpu, "count", &offsets, blocks)
    }
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
