//! Uploads: buffers created from rows, bytes or typed slices, and rows written at a row offset.
//!
//! Every upload goes through the device layer's bounded staging (chunks on the workers of the
//! device's [`TransferConfig`](crate::device::TransferConfig)). Rows whose host layout equals
//! their GPU layout are copied straight from the caller's slice; other rows are encoded, each
//! chunk by its worker, into a small cache-resident scratch and copied into the staging mapping (wgpu 30 exposes mapped
//! memory only as a write-only [`wgpu::WriteOnly`] slice, which cannot be handed to
//! [`GpuStruct::encode_row`] as `&mut [u8]`). No host copy of the whole data is ever made.

use super::{BufferHandle, GpuData, GpuDataDescriptor, GpuDataFormat};
use crate::data::DataError;
use crate::device::Gpu;
use crate::device::buffers::{align4, create_buffer_async, require_usage};
use crate::device::transfer::{Stager, WaitMode, row_granule, upload, write_bytes};
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::layout::strided_byte_length;
use crate::record::{GpuField, GpuStruct, fields_as_bytes, rows_as_bytes};

/// Host scratch for encoding rows whose host layout differs from their GPU layout.
const ENCODE_SCRATCH_BYTES: usize = 64 << 10;

/// The usages data created by the upload functions gets unless told otherwise: vertex and
/// storage binding, and copies both ways (uploads need `COPY_DST`, readbacks `COPY_SRC`).
pub const DEFAULT_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::VERTEX
    .union(wgpu::BufferUsages::STORAGE)
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// Writes `rows` into `data` from row `row_offset` on.
pub(super) async fn write_rows_into<T: GpuStruct>(
    gpu: &Gpu,
    data: &GpuData,
    row_offset: u64,
    rows: &[T],
    mode: WaitMode,
) -> Result<(), DataError> {
    let buffer = data.buffer_on(gpu, "write rows")?;
    require_usage(buffer, wgpu::BufferUsages::COPY_DST, "write rows")?;
    let count = rows.len() as u64;
    if row_offset
        .checked_add(count)
        .is_none_or(|end| end > data.length())
    {
        return Err(DataError::RowsOutOfRange {
            row_offset,
            rows: count,
            length: data.length(),
        });
    }
    if rows.is_empty() {
        return Ok(());
    }
    let stride = T::FORMAT.byte_stride();
    let row_len = T::FORMAT.row_byte_length();
    let data_stride = data.byte_stride();
    // In range: rows row_offset..row_offset+count lie inside the data, checked at construction.
    let start = data.byte_offset() + row_offset * data_stride;
    if data_stride == stride {
        // One contiguous range: every row's full stride but the last row's trailing padding.
        let span = strided_byte_length(count, stride, row_len).unwrap_or(u64::MAX);
        let len = align4(span).unwrap_or(u64::MAX);
        if let Some(host) = rows_as_bytes(rows) {
            write_bytes(gpu, buffer, start, &host[..len as usize], mode).await?;
        } else {
            // Chunks start at whole rows and whole words; each worker encodes its own.
            let granule = row_granule(stride);
            let fill = |at: u64, dst: wgpu::WriteOnly<'_, [u8]>| {
                let first = (at / stride) as usize;
                let n = (dst.len() as u64).div_ceil(stride) as usize;
                let last = first.saturating_add(n).min(rows.len());
                encode_into(&rows[first.min(last)..last], stride as usize, dst);
            };
            upload(gpu, buffer, start, len, granule, &fill, mode).await?;
        }
        return Ok(());
    }
    // Rows interleaved with other bytes: write each row's payload alone.
    let mut stager = Stager::new(gpu, mode)?;
    let len = align4(row_len).unwrap_or(u64::MAX);
    let mut scratch = vec![0u8; stride as usize];
    for (i, row) in rows.iter().enumerate() {
        row.encode_row(&mut scratch);
        let at = start + i as u64 * data_stride;
        stager
            .write(buffer, at, len, |mut dst| {
                dst.copy_from_slice(&scratch[..len as usize]);
            })
            .await?;
    }
    Ok(stager.finish().await?)
}

/// Encodes `rows` into `dst` (at most `rows.len() * stride` bytes) through a small scratch.
fn encode_into<T: GpuStruct>(rows: &[T], stride: usize, mut dst: wgpu::WriteOnly<'_, [u8]>) {
    let per_batch = (ENCODE_SCRATCH_BYTES / stride).max(1);
    let mut scratch = vec![0u8; per_batch.min(rows.len()) * stride];
    let total = dst.len();
    let mut written = 0;
    for batch in rows.chunks(per_batch) {
        let n = batch.len() * stride;
        for (row, out) in batch.iter().zip(scratch.chunks_exact_mut(stride)) {
            row.encode_row(out);
        }
        let take = n.min(total - written);
        dst.slice(written..written + take)
            .copy_from_slice(&scratch[..take]);
        written += take;
    }
}

impl GpuData {
    /// A new owned buffer holding `bytes`, described by `descriptor` (whose byte range is
    /// checked against `bytes.len()`). `usage` gets `COPY_DST` added.
    ///
    /// # Errors
    /// A [`DataError`] for a descriptor that does not fit the bytes; [`DataError::Gpu`] with
    /// [`GpuError::BufferTooLarge`](crate::device::GpuError::BufferTooLarge),
    /// [`GpuError::DeviceLost`](crate::device::GpuError::DeviceLost) or what wgpu refused.
    pub fn from_bytes(
        gpu: &Gpu,
        bytes: &[u8],
        descriptor: GpuDataDescriptor,
        usage: wgpu::BufferUsages,
    ) -> Result<GpuData, DataError> {
        pollster::block_on(Self::from_bytes_inner(
            gpu,
            bytes,
            descriptor,
            usage,
            WaitMode::Block,
        ))
    }

    /// The asynchronous form of [`from_bytes`](Self::from_bytes): completes when the last
    /// staged chunk has been handed to the queue (earlier chunks are awaited, not blocked on).
    ///
    /// # Errors
    /// As [`from_bytes`](Self::from_bytes).
    pub async fn from_bytes_async(
        gpu: &Gpu,
        bytes: &[u8],
        descriptor: GpuDataDescriptor,
        usage: wgpu::BufferUsages,
    ) -> Result<GpuData, DataError> {
        Self::from_bytes_inner(gpu, bytes, descriptor, usage, WaitMode::Async).await
    }

    async fn from_bytes_inner(
        gpu: &Gpu,
        bytes: &[u8],
        descriptor: GpuDataDescriptor,
        usage: wgpu::BufferUsages,
        mode: WaitMode,
    ) -> Result<GpuData, DataError> {
        let len = bytes.len() as u64;
        let metrics = descriptor.resolve(len)?;
        let buffer =
            create_buffer_async(gpu, len, usage | wgpu::BufferUsages::COPY_DST, "gpudata").await?;
        write_bytes(gpu, &buffer, 0, bytes, mode).await?;
        Ok(GpuData::owned(gpu, buffer, descriptor, metrics))
    }

    /// Data owning `buffer` on `gpu`, described by `descriptor` (resolved to `metrics`).
    fn owned(
        gpu: &Gpu,
        buffer: wgpu::Buffer,
        descriptor: GpuDataDescriptor,
        metrics: super::RowMetrics,
    ) -> GpuData {
        GpuData {
            buffer: BufferHandle::Owned(buffer),
            format: descriptor.format,
            metrics,
            readback_metadata: descriptor.readback_metadata,
            device: Some(gpu.clone()),
        }
    }

    /// [`from_bytes`](Self::from_bytes) through `stager`, with the other writes of a batch of
    /// uploads: the bytes reach the queue at the stager's next submission (its
    /// [`finish`](Stager::finish) at the latest), not in one of their own. For bytes of at most
    /// one staging step ([`STAGING_CHUNK_BYTES`](crate::device::STAGING_CHUNK_BYTES)), which
    /// keeps the stager's bound.
    ///
    /// # Errors
    /// As [`from_bytes`](Self::from_bytes).
    #[cfg(feature = "arrow")]
    pub(crate) async fn from_bytes_staged(
        gpu: &Gpu,
        bytes: &[u8],
        descriptor: GpuDataDescriptor,
        usage: wgpu::BufferUsages,
        stager: &mut Stager<'_>,
    ) -> Result<GpuData, DataError> {
        let len = bytes.len() as u64;
        let metrics = descriptor.resolve(len)?;
        let buffer =
            create_buffer_async(gpu, len, usage | wgpu::BufferUsages::COPY_DST, "gpudata").await?;
        let padded = align4(len).unwrap_or(u64::MAX);
        if let Err(e) = stager
            .write(&buffer, 0, padded, |dst| {
                crate::device::transfer::copy_padded(bytes, 0, dst);
            })
            .await
        {
            buffer.destroy();
            return Err(e.into());
        }
        Ok(GpuData::owned(gpu, buffer, descriptor, metrics))
    }

    /// A new owned buffer of packed values of `format`, from any plain-old-data slice whose
    /// bytes are those values (`&[f32]` or `&[[f32; 3]]` for `float32x3`, `&[u8]` for
    /// `unorm8x4`, `&[u32]` for `unorm10-10-10-2`).
    ///
    /// # Errors
    /// [`DataError::PartialValue`] when the bytes are not a whole number of values, then as
    /// [`from_bytes`](Self::from_bytes).
    pub fn from_slice<P: bytemuck::Pod>(
        gpu: &Gpu,
        format: VertexFormat,
        values: &[P],
        usage: wgpu::BufferUsages,
    ) -> Result<GpuData, DataError> {
        GpuData::from_packed_values(gpu, format, bytemuck::cast_slice(values), usage)
    }

    /// `bytes` as packed values of `format`, checked to be a whole number of values.
    fn from_packed_values(
        gpu: &Gpu,
        format: VertexFormat,
        bytes: &[u8],
        usage: wgpu::BufferUsages,
    ) -> Result<GpuData, DataError> {
        let value_len = format.byte_length();
        let len = bytes.len() as u64;
        if !len.is_multiple_of(value_len) {
            return Err(DataError::PartialValue {
                format: format.to_string(),
                byte_length: len,
                value_byte_length: value_len,
            });
        }
        let descriptor = GpuDataDescriptor::new(GpuVectorFormat::Fixed(format), len / value_len);
        GpuData::from_bytes(gpu, bytes, descriptor, usage)
    }

    /// A new owned buffer of values of a field type (`&[[f32; 3]]` → `float32x3`,
    /// `&[Unorm8x4]` → `unorm8x4`), the format taken from [`GpuField::FORMAT`].
    ///
    /// # Errors
    /// As [`from_slice`](Self::from_slice).
    pub fn from_values<V: GpuField>(
        gpu: &Gpu,
        values: &[V],
        usage: wgpu::BufferUsages,
    ) -> Result<GpuData, DataError> {
        GpuData::from_packed_values(gpu, V::FORMAT, fields_as_bytes(values), usage)
    }

    /// A new owned, zeroed buffer for `length` rows of `format`, packed at the format's stride.
    ///
    /// # Errors
    /// [`DataError::RangeOverflow`] when the size overflows; [`DataError::Gpu`] with
    /// [`GpuError::BufferTooLarge`](crate::device::GpuError::BufferTooLarge) and the errors of
    /// buffer creation.
    pub fn zeroed(
        gpu: &Gpu,
        format: impl Into<GpuDataFormat>,
        length: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<GpuData, DataError> {
        pollster::block_on(allocate(gpu, format.into(), length, usage, "gpudata"))
    }
}

/// A new owned buffer labelled `label` for `length` rows of `format` at the format's stride,
/// with `COPY_DST` added to `usage`.
async fn allocate(
    gpu: &Gpu,
    format: GpuDataFormat,
    length: u64,
    usage: wgpu::BufferUsages,
    label: &str,
) -> Result<GpuData, DataError> {
    let descriptor = GpuDataDescriptor::new(format, length);
    let metrics = descriptor.resolve(u64::MAX)?;
    let size = length
        .checked_mul(metrics.byte_stride)
        .ok_or(DataError::RangeOverflow {
            what: "gpu data",
            byte_offset: 0,
            count: length,
            byte_stride: metrics.byte_stride,
            value_byte_length: metrics.row_byte_length,
        })?;
    let buffer =
        create_buffer_async(gpu, size, usage | wgpu::BufferUsages::COPY_DST, label).await?;
    Ok(GpuData::new(BufferHandle::Owned(buffer), descriptor)?.on_device(gpu))
}

pub(super) async fn upload_rows<T: GpuStruct>(
    gpu: &Gpu,
    rows: &[T],
    usage: wgpu::BufferUsages,
    mode: WaitMode,
) -> Result<GpuData, DataError> {
    let data = allocate(
        gpu,
        T::FORMAT.into(),
        rows.len() as u64,
        usage,
        "gpudata rows",
    )
    .await?;
    write_rows_into(gpu, &data, 0, rows, mode).await?;
    Ok(data)
}
