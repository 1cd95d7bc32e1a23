//! Columns larger than one buffer: a [`GpuVector`] uploaded in chunks of whole rows, each at
//! most the device's `max_buffer_size` (or a smaller [`ChunkOptions`] limit), read back into
//! one host slice and bound chunk by chunk ([`ChunkSpan`]). Operations run over the chunks by
//! `ops`' piecewise driver (`chunked_ops.rs`).

use crate::data::{GpuData, GpuDataDescriptor, GpuDataFormat};
use crate::device::transfer::{WaitMode, read_into, zeroed_bytes};
use crate::device::{Gpu, GpuError};
use crate::format::GpuVectorFormat;
use crate::layout::strided_byte_length;
use crate::record::{GpuField, GpuStruct, fields_as_bytes};
use crate::table::TableError;

use super::chunk_options::ChunkOptions;
use super::vector::{DataVectorOptions, GpuVector, format_text};

/// Where one chunk of a [`GpuVector`] lies among the vector's rows: what a caller that binds
/// the chunks one by one needs (the chunk's own bindings come from [`GpuData`]'s
/// `storage_binding`, `vertex_buffer_slice` and `vertex_binding`; a draw or dispatch over the
/// chunk covers `rows` rows and adds `first_row` to its row index, as `first_instance` or a
/// uniform).
#[derive(Clone, Copy, Debug)]
pub struct ChunkSpan<'a> {
    /// The chunk's position in [`GpuVector::chunks`].
    pub index: usize,
    /// The vector's row index of the chunk's first row.
    pub first_row: u64,
    /// The chunk's rows.
    pub rows: u64,
    /// The vector's value index of the chunk's first value (equal to `first_row` for fixed
    /// formats; list elements for list formats).
    pub first_value: u64,
    /// The chunk.
    pub data: &'a GpuData,
}

impl GpuVector {
    /// A vector of `bytes`, described by `descriptor` (its format, rows, byte stride and row
    /// byte length, checked against `bytes.len()`), uploaded in as many chunks as the device's
    /// `max_buffer_size` needs: data of any size, rows never split across chunks. Each chunk is
    /// a new owned buffer of `usage` (plus `COPY_DST`) filled by the transfer engine.
    ///
    /// # Errors
    /// As [`upload_with`](Self::upload_with).
    pub fn upload(
        gpu: &Gpu,
        name: impl Into<String>,
        bytes: &[u8],
        descriptor: GpuDataDescriptor,
        usage: wgpu::BufferUsages,
    ) -> Result<GpuVector, TableError> {
        GpuVector::upload_with(gpu, name, bytes, descriptor, usage, ChunkOptions::default())
    }

    /// [`upload`](Self::upload) in chunks cut by `options`.
    ///
    /// # Errors
    /// [`TableError::Data`] for a descriptor that does not fit the bytes;
    /// [`TableError::ChunkedList`] for a list format (its rows' element counts are not known
    /// here); [`TableError::ChunkedByteOffset`] for a descriptor with a byte offset;
    /// [`TableError::ChunkRows`], [`TableError::RowExceedsChunk`]; [`TableError::Gpu`] when a
    /// chunk's buffer cannot be created or filled (a chunk already made is freed).
    pub fn upload_with(
        gpu: &Gpu,
        name: impl Into<String>,
        bytes: &[u8],
        descriptor: GpuDataDescriptor,
        usage: wgpu::BufferUsages,
        options: ChunkOptions,
    ) -> Result<GpuVector, TableError> {
        let name = name.into();
        let metrics = descriptor.resolve(bytes.len() as u64)?;
        let list = matches!(
            &descriptor.format,
            Some(GpuDataFormat::Vector(
                GpuVectorFormat::VertexList(_) | GpuVectorFormat::ValueList(_)
            ))
        );
        if list || metrics.value_length != metrics.length {
            return Err(TableError::ChunkedList {
                vector: name,
                format: format_text(descriptor.format.as_ref()),
            });
        }
        if metrics.byte_offset != 0 {
            return Err(TableError::ChunkedByteOffset {
                vector: name,
                byte_offset: metrics.byte_offset,
            });
        }
        let stride = metrics.byte_stride;
        let rows_per_chunk = options.rows_per_chunk_for(gpu, &name, stride)?;
        let mut chunks = Vec::new();
        let mut first = 0u64;
        loop {
            let rows = (metrics.length - first).min(rows_per_chunk);
            let last = first + rows == metrics.length;
            // In range: `first + rows` rows lie inside `bytes` (checked by `resolve`), and a
            // chunk's bytes end at its last row's stride, the last chunk's at the end.
            let start = (first * stride) as usize;
            let end = if last {
                bytes.len()
            } else {
                ((first + rows) * stride) as usize
            };
            let chunk_descriptor = GpuDataDescriptor {
                format: descriptor.format.clone(),
                length: rows,
                value_length: Some(rows),
                stride: Some(metrics.stride),
                byte_offset: 0,
                byte_stride: Some(stride),
                row_byte_length: Some(metrics.row_byte_length),
                readback_metadata: None,
                metrics: descriptor.metrics,
            };
            match GpuData::from_bytes(gpu, &bytes[start..end], chunk_descriptor, usage) {
                Ok(chunk) => chunks.push(chunk),
                Err(error) => {
                    chunks.into_iter().for_each(GpuData::destroy);
                    return Err(error.into());
                }
            }
            first += rows;
            if last {
                break;
            }
        }
        GpuVector::from_data_with(
            name,
            chunks,
            DataVectorOptions {
                format: descriptor.format,
                stride: Some(metrics.stride),
                byte_stride: Some(stride),
                row_byte_length: Some(metrics.row_byte_length),
                readback_metadata: descriptor.readback_metadata,
                ..DataVectorOptions::default()
            },
        )
    }

    /// A vector of packed `values` of a field type (`&[[f32; 3]]` → `float32x3`), the format
    /// taken from [`GpuField::FORMAT`], uploaded in chunks as [`upload`](Self::upload) does.
    ///
    /// # Errors
    /// As [`upload_with`](Self::upload_with).
    pub fn upload_values<V: GpuField>(
        gpu: &Gpu,
        name: impl Into<String>,
        values: &[V],
        usage: wgpu::BufferUsages,
        options: ChunkOptions,
    ) -> Result<GpuVector, TableError> {
        let descriptor =
            GpuDataDescriptor::new(GpuVectorFormat::Fixed(V::FORMAT), values.len() as u64);
        GpuVector::upload_with(
            gpu,
            name,
            fields_as_bytes(values),
            descriptor,
            usage,
            options,
        )
    }

    /// Rows of a `#[derive(GpuStruct)]` type in chunks of at most `rows_per_chunk` rows (each
    /// chunk a [`TypedGpuData`](crate::TypedGpuData)'s data, encoded when the host layout
    /// differs from the GPU layout).
    pub(super) fn upload_struct_rows<T: GpuStruct>(
        gpu: &Gpu,
        rows: &[T],
        rows_per_chunk: u64,
    ) -> Result<Vec<GpuData>, TableError> {
        let per_chunk = usize::try_from(rows_per_chunk).unwrap_or(usize::MAX).max(1);
        let mut chunks = Vec::new();
        let pieces: Vec<&[T]> = if rows.is_empty() {
            vec![rows]
        } else {
            rows.chunks(per_chunk).collect()
        };
        for piece in pieces {
            match crate::TypedGpuData::from_rows(gpu, piece, crate::data::DEFAULT_USAGE) {
                Ok(data) => chunks.push(data.into_data()),
                Err(error) => {
                    chunks.into_iter().for_each(GpuData::destroy);
                    return Err(error.into());
                }
            }
        }
        Ok(chunks)
    }

    /// The bytes of every chunk's values, one after another as one buffer would hold them:
    /// `(value_length - 1) * byte_stride + row_byte_length` bytes (0 for no values), padding
    /// between rows included (the padding after a chunk's last row comes from the chunk's
    /// buffer where it holds it, else it reads as zero). Blocks until the copies are done.
    ///
    /// # Errors
    /// As [`read_bytes_into`](Self::read_bytes_into).
    pub fn read_bytes(&self, gpu: &Gpu) -> Result<Vec<u8>, TableError> {
        let len = self.checked_byte_length()?;
        let len = usize::try_from(len).map_err(|_| TableError::Overflow {
            what: format!("the byte length of gpu vector `{}`", self.name),
        })?;
        let mut out = zeroed_bytes(len);
        self.read_bytes_into(gpu, &mut out)?;
        Ok(out)
    }

    /// [`read_bytes`](Self::read_bytes) into a slice the caller owns.
    ///
    /// # Errors
    /// [`TableError::ChunkMismatch`] for a chunk whose byte stride or row byte length differs
    /// from the vector's; [`TableError::Overflow`]; [`TableError::Gpu`] with
    /// [`GpuError::ReadbackLength`] when `out` has another length, else with the errors of
    /// [`GpuData::read_bytes`].
    pub fn read_bytes_into(&self, gpu: &Gpu, out: &mut [u8]) -> Result<(), TableError> {
        let expected = self.checked_byte_length()?;
        if out.len() as u64 != expected {
            return Err(GpuError::ReadbackLength {
                expected,
                found: out.len() as u64,
            }
            .into());
        }
        let stride = self.byte_stride;
        let spans = self.chunk_spans();
        for (i, span) in spans.iter().enumerate() {
            let chunk = span.data;
            let values = chunk.value_length();
            if values == 0 {
                continue;
            }
            // In range: the sum of the chunks' values is the vector's value length, so every
            // chunk's rows lie inside `out`.
            let at = span.first_value * stride;
            // Up to the next row's start (the padding after the chunk's last row), but never past
            // the vector's last payload byte.
            let wanted = if i + 1 == spans.len() {
                chunk.byte_length()
            } else {
                (values * stride).min(expected - at)
            };
            let held = chunk.buffer().size().saturating_sub(chunk.byte_offset());
            let span_len = wanted.min(held).max(chunk.byte_length());
            let out = &mut out[at as usize..(at + span_len) as usize];
            let buffer = chunk.buffer_on(gpu, "read back a gpu vector")?;
            pollster::block_on(read_into(
                gpu,
                buffer,
                chunk.byte_offset(),
                out,
                "read back a gpu vector",
                WaitMode::Block,
            ))?;
        }
        Ok(())
    }

    /// The vector's bytes as one buffer would hold them, after checking that every chunk lays
    /// its rows out as the vector does.
    fn checked_byte_length(&self) -> Result<u64, TableError> {
        for chunk in &self.chunks {
            self.check_chunk(chunk, "read_bytes", false)?;
        }
        strided_byte_length(self.value_length, self.byte_stride, self.row_byte_length).ok_or_else(
            || TableError::Overflow {
                what: format!("the byte length of gpu vector `{}`", self.name),
            },
        )
    }

    /// Where each chunk lies among the vector's rows, in order.
    #[must_use]
    pub fn chunk_spans(&self) -> Vec<ChunkSpan<'_>> {
        let mut first_row = 0u64;
        let mut first_value = 0u64;
        self.chunks
            .iter()
            .enumerate()
            .map(|(index, data)| {
                let span = ChunkSpan {
                    index,
                    first_row,
                    rows: data.length(),
                    first_value,
                    data,
                };
                // No overflow: the sums are the vector's length and value length, checked when
                // the chunks joined the vector.
                first_row += data.length();
                first_value += data.value_length();
                span
            })
            .collect()
    }
}
