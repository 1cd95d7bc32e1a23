//! Readback of data and views: the device layer's [`read_range`] copies the bytes out; rows and
//! view values are unpacked and decoded from them. Blocking and async forms.

use super::decode::{HostValues, decode_values};
use super::{GpuData, GpuDataView};
use crate::data::DataError;
use crate::device::Gpu;
use crate::device::GpuError;
use crate::device::transfer::{WaitMode, read_into, read_range};
use crate::layout::{remove_stride, strided_byte_length};

/// `bytes` as packed rows: itself when the rows are packed already, else without their stride
/// (`bytes` holds the rows: the callers read exactly their strided span).
fn pack_rows(bytes: Vec<u8>, rows: usize, stride: usize, row_len: usize) -> Vec<u8> {
    if stride == row_len {
        bytes
    } else {
        remove_stride(&bytes, rows, stride, row_len)
    }
}

impl GpuData {
    /// The bytes of the data's rows as they lie in the buffer: from
    /// [`byte_offset`](Self::byte_offset), [`byte_length`](Self::byte_length) bytes, strides and
    /// padding included. Blocks until the copy is done.
    ///
    /// # Errors
    /// [`GpuError::MissingUsage`] without `COPY_SRC`; [`GpuError::UnalignedCopy`] when the rows
    /// end in the last, partial word of a buffer whose size is not a multiple of 4;
    /// [`GpuError::DeviceLost`] on a lost device; [`GpuError::Validation`] when wgpu refuses the
    /// copy (a destroyed buffer); [`GpuError::Map`], [`GpuError::Poll`].
    pub fn read_bytes(&self, gpu: &Gpu) -> Result<Vec<u8>, GpuError> {
        pollster::block_on(self.read_bytes_inner(gpu, WaitMode::Block))
    }

    /// The asynchronous form of [`read_bytes`](Self::read_bytes).
    ///
    /// # Errors
    /// As [`read_bytes`](Self::read_bytes).
    pub async fn read_bytes_async(&self, gpu: &Gpu) -> Result<Vec<u8>, GpuError> {
        self.read_bytes_inner(gpu, WaitMode::Async).await
    }

    /// [`read_bytes`](Self::read_bytes) into a slice the caller owns (memory already touched
    /// reads back faster than a new `Vec`, whose pages the first write faults in).
    ///
    /// # Errors
    /// [`GpuError::ReadbackLength`] when `out` is not [`byte_length`](Self::byte_length) bytes
    /// long, then as [`read_bytes`](Self::read_bytes).
    pub fn read_bytes_into(&self, gpu: &Gpu, out: &mut [u8]) -> Result<(), GpuError> {
        pollster::block_on(self.read_bytes_into_inner(gpu, out, WaitMode::Block))
    }

    /// The asynchronous form of [`read_bytes_into`](Self::read_bytes_into).
    ///
    /// # Errors
    /// As [`read_bytes_into`](Self::read_bytes_into).
    pub async fn read_bytes_into_async(&self, gpu: &Gpu, out: &mut [u8]) -> Result<(), GpuError> {
        self.read_bytes_into_inner(gpu, out, WaitMode::Async).await
    }

    async fn read_bytes_into_inner(
        &self,
        gpu: &Gpu,
        out: &mut [u8],
        mode: WaitMode,
    ) -> Result<(), GpuError> {
        if out.len() as u64 != self.byte_length() {
            return Err(GpuError::ReadbackLength {
                expected: self.byte_length(),
                found: out.len() as u64,
            });
        }
        read_into(
            gpu,
            self.buffer_on(gpu, "read back gpu data")?,
            self.byte_offset(),
            out,
            "read back gpu data",
            mode,
        )
        .await
    }

    async fn read_bytes_inner(&self, gpu: &Gpu, mode: WaitMode) -> Result<Vec<u8>, GpuError> {
        read_range(
            gpu,
            self.buffer_on(gpu, "read back gpu data")?,
            self.byte_offset(),
            self.byte_length(),
            "read back gpu data",
            mode,
        )
        .await
    }

    /// The bytes of rows `first..first + rows`, each row's
    /// [`row_byte_length`](Self::row_byte_length) bytes, packed one after another (strides
    /// removed). Blocks until the copy is done.
    ///
    /// # Errors
    /// [`DataError::RowsOutOfRange`], then [`DataError::Gpu`] with the errors of
    /// [`read_bytes`](Self::read_bytes).
    pub fn read_packed_rows(&self, gpu: &Gpu, first: u64, rows: u64) -> Result<Vec<u8>, DataError> {
        pollster::block_on(self.read_packed_rows_inner(gpu, first, rows, WaitMode::Block))
    }

    /// The asynchronous form of [`read_packed_rows`](Self::read_packed_rows).
    ///
    /// # Errors
    /// As [`read_packed_rows`](Self::read_packed_rows).
    pub async fn read_packed_rows_async(
        &self,
        gpu: &Gpu,
        first: u64,
        rows: u64,
    ) -> Result<Vec<u8>, DataError> {
        self.read_packed_rows_inner(gpu, first, rows, WaitMode::Async)
            .await
    }

    async fn read_packed_rows_inner(
        &self,
        gpu: &Gpu,
        first: u64,
        rows: u64,
        mode: WaitMode,
    ) -> Result<Vec<u8>, DataError> {
        if first
            .checked_add(rows)
            .is_none_or(|end| end > self.value_length())
        {
            return Err(DataError::RowsOutOfRange {
                row_offset: first,
                rows,
                length: self.value_length(),
            });
        }
        if rows == 0 {
            return Ok(Vec::new());
        }
        let stride = self.byte_stride();
        let row_len = self.row_byte_length();
        // Inside the checked range of the data.
        let offset = self.byte_offset() + first * stride;
        // Inside the checked range of the data, so it does not overflow.
        let span = strided_byte_length(rows, stride, row_len).unwrap_or(u64::MAX);
        let buffer = self.buffer_on(gpu, "read back gpu data")?;
        let bytes = read_range(gpu, buffer, offset, span, "read back gpu data", mode).await?;
        Ok(pack_rows(
            bytes,
            rows as usize,
            stride as usize,
            row_len as usize,
        ))
    }
}

impl GpuDataView<'_> {
    /// The view's values decoded as vertex fetch delivers them (normalized formats to `f32`,
    /// `float16` to `f32`, `unorm10-10-10-2` unpacked, `unorm8x4-bgra` swizzled to RGBA; see
    /// [`decode_values`]). Blocks until the copy is done.
    ///
    /// # Errors
    /// [`DataError::Gpu`] with the errors of [`read_packed_bytes`](Self::read_packed_bytes); a [`DataError`] when
    /// the bytes do not decode (see [`decode_values`]).
    pub fn read_values(&self, gpu: &Gpu) -> Result<HostValues, DataError> {
        pollster::block_on(self.read_values_inner(gpu, WaitMode::Block))
    }

    /// The asynchronous form of [`read_values`](Self::read_values).
    ///
    /// # Errors
    /// As [`read_values`](Self::read_values).
    pub async fn read_values_async(&self, gpu: &Gpu) -> Result<HostValues, DataError> {
        self.read_values_inner(gpu, WaitMode::Async).await
    }

    async fn read_values_inner(&self, gpu: &Gpu, mode: WaitMode) -> Result<HostValues, DataError> {
        let bytes = self.read_span(gpu, mode).await?;
        decode_values(
            self.format(),
            &bytes,
            self.length() as usize,
            self.byte_stride() as usize,
        )
    }

    /// The stored bytes of the view's values, packed one value after another (strides removed). Blocks
    /// until the copy is done.
    ///
    /// # Errors
    /// [`GpuError::MissingUsage`] without `COPY_SRC`, [`GpuError::UnalignedCopy`],
    /// [`GpuError::DeviceLost`], [`GpuError::Validation`], [`GpuError::Map`],
    /// [`GpuError::Poll`].
    pub fn read_packed_bytes(&self, gpu: &Gpu) -> Result<Vec<u8>, GpuError> {
        pollster::block_on(self.read_packed_bytes_inner(gpu, WaitMode::Block))
    }

    /// The asynchronous form of [`read_packed_bytes`](Self::read_packed_bytes).
    ///
    /// # Errors
    /// As [`read_packed_bytes`](Self::read_packed_bytes).
    pub async fn read_packed_bytes_async(&self, gpu: &Gpu) -> Result<Vec<u8>, GpuError> {
        self.read_packed_bytes_inner(gpu, WaitMode::Async).await
    }

    pub(super) async fn read_packed_bytes_inner(
        &self,
        gpu: &Gpu,
        mode: WaitMode,
    ) -> Result<Vec<u8>, GpuError> {
        let bytes = self.read_span(gpu, mode).await?;
        Ok(pack_rows(
            bytes,
            self.length() as usize,
            self.byte_stride() as usize,
            self.element_byte_length() as usize,
        ))
    }

    async fn read_span(&self, gpu: &Gpu, mode: WaitMode) -> Result<Vec<u8>, GpuError> {
        read_range(
            gpu,
            self.buffer_on(gpu, "read back a gpu data view")?,
            self.byte_offset(),
            self.byte_length(),
            "read back a gpu data view",
            mode,
        )
        .await
    }
}
