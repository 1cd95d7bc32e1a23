//! [`GpuDynamicVector`]: one column in one buffer that grows as rows are appended, reallocating
//! with a GPU copy (luma.gl's `DynamicBuffer` role).

use std::fmt;

use crate::data::{BufferHandle, DEFAULT_USAGE, GpuData, GpuDataDescriptor, GpuDataFormat};
use crate::device::Gpu;
use crate::record::{GpuStruct, encode_rows_to_vec};
use crate::table::TableError;

use super::vector::{GpuVector, rows_in};
use crate::data::create_buffer;

/// Options of [`GpuDynamicVector::new`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DynamicOptions {
    /// Rows the first buffer holds (at least 1).
    pub initial_capacity_rows: u64,
    /// How much the capacity grows when rows no longer fit: the new capacity is the larger of
    /// `capacity × growth_factor` and the rows needed (at least 1.0; default 2.0).
    pub growth_factor: f64,
    /// The buffer's usage (`COPY_SRC` and `COPY_DST` are always added, for the copies).
    pub usage: wgpu::BufferUsages,
}

impl Default for DynamicOptions {
    fn default() -> Self {
        DynamicOptions {
            initial_capacity_rows: 64,
            growth_factor: 2.0,
            usage: DEFAULT_USAGE,
        }
    }
}

/// One column of rows in a single owned buffer that grows: [`append_bytes`](Self::append_bytes)
/// and [`append_rows`](Self::append_rows) write the new rows after the old ones, and when they do
/// not fit, a larger buffer is allocated, the old rows are copied into it on the GPU
/// (`copy_buffer_to_buffer`, no host round trip) and the old buffer is destroyed.
///
/// Because the buffer can be replaced, the rows are only lent out: [`data`](Self::data) borrows
/// them, so no handle to an old buffer can outlive an append. [`into_vector`](Self::into_vector)
/// ends the growth and hands the buffer to a [`GpuVector`].
///
/// Writes that start inside a 4-byte word (rows shorter than 4 bytes) rewrite the word's earlier
/// bytes from a host copy of the last partial word this vector wrote; bytes written there by a
/// shader in between would be overwritten.
pub struct GpuDynamicVector {
    name: String,
    gpu: Gpu,
    data: GpuData,
    capacity_rows: u64,
    growth_factor: f64,
    usage: wgpu::BufferUsages,
    /// The bytes of the last partial word written, and how many there are.
    tail: ([u8; 4], usize),
    reallocations: u64,
}

impl GpuDynamicVector {
    /// An empty column of `format` (a fixed vector format or a struct), packed at its byte
    /// stride.
    ///
    /// # Errors
    /// [`TableError::ListAppend`] for list formats; [`TableError::Gpu`] when the buffer cannot be
    /// created.
    pub fn new(
        gpu: &Gpu,
        name: impl Into<String>,
        format: impl Into<GpuDataFormat>,
        options: DynamicOptions,
    ) -> Result<GpuDynamicVector, TableError> {
        let name = name.into();
        let format = format.into();
        if let GpuDataFormat::Vector(v) = &format
            && v.is_list()
        {
            return Err(TableError::ListAppend {
                vector: name,
                format: v.to_string(),
            });
        }
        let usage = options.usage | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let capacity_rows = options.initial_capacity_rows.max(1);
        let descriptor = GpuDataDescriptor::new(format, 0);
        let byte_stride = descriptor.resolve(u64::MAX)?.byte_stride;
        let size = capacity_rows
            .checked_mul(byte_stride)
            .ok_or_else(|| TableError::Overflow {
                what: format!("the capacity of dynamic vector `{name}`"),
            })?;
        let buffer = create_buffer(gpu, size, usage, "gpudata dynamic vector")?;
        let data = GpuData::new(BufferHandle::Owned(buffer), descriptor)?;
        Ok(GpuDynamicVector {
            name,
            gpu: gpu.clone(),
            data,
            capacity_rows,
            growth_factor: if options.growth_factor.is_finite() {
                options.growth_factor.max(1.0)
            } else {
                2.0
            },
            usage,
            tail: ([0; 4], 0),
            reallocations: 0,
        })
    }

    /// The column name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Rows held.
    #[must_use]
    pub const fn length(&self) -> u64 {
        self.data.length()
    }

    /// Rows the current buffer can hold.
    #[must_use]
    pub const fn capacity_rows(&self) -> u64 {
        self.capacity_rows
    }

    /// How many times the buffer was replaced by a larger one.
    #[must_use]
    pub const fn reallocations(&self) -> u64 {
        self.reallocations
    }

    /// The rows, borrowed: they cannot be held across an append, which may replace the buffer.
    #[must_use]
    pub fn data(&self) -> &GpuData {
        &self.data
    }

    /// Appends rows given as bytes: whole rows at the column's byte stride (the last may omit its
    /// trailing padding).
    ///
    /// # Errors
    /// [`TableError::PartialRows`]; [`TableError::Overflow`]; [`TableError::Gpu`] when a larger
    /// buffer cannot be created.
    pub fn append_bytes(&mut self, bytes: &[u8]) -> Result<(), TableError> {
        let stride = self.data.byte_stride();
        let len = bytes.len() as u64;
        let rows = rows_in(len, stride, self.data.row_byte_length()).ok_or_else(|| {
            TableError::PartialRows {
                vector: self.name.clone(),
                byte_length: len,
                byte_stride: stride,
                row_byte_length: self.data.row_byte_length(),
            }
        })?;
        if rows == 0 {
            return Ok(());
        }
        let name = self.name.clone();
        let overflow = || TableError::Overflow {
            what: format!("the rows of dynamic vector `{name}`"),
        };
        let old_rows = self.data.length();
        let new_rows = old_rows.checked_add(rows).ok_or_else(overflow)?;
        if new_rows > self.capacity_rows {
            self.grow(new_rows)?;
        }
        // Bytes of the old rows, and where the new ones start.
        let start = old_rows.checked_mul(stride).ok_or_else(overflow)?;
        let aligned = start - start % 4;
        let lead = (start - aligned) as usize;
        let mut staged = Vec::with_capacity(lead + bytes.len() + 3);
        if lead > 0 {
            staged.extend_from_slice(&self.tail.0[..lead]);
        }
        staged.extend_from_slice(bytes);
        // Rows without trailing padding: pad the bytes to whole strides, then to a word.
        staged.resize(lead + (rows * stride) as usize, 0);
        let end = aligned + staged.len() as u64;
        let partial = (end % 4) as usize;
        let mut tail = [0u8; 4];
        tail[..partial].copy_from_slice(&staged[staged.len() - partial..]);
        staged.resize(staged.len().next_multiple_of(4), 0);
        self.gpu
            .queue()
            .write_buffer(self.data.buffer(), aligned, &staged);
        self.tail = (tail, partial);
        self.data = GpuData::new(
            self.data.buffer_handle().clone(),
            GpuDataDescriptor {
                format: self.data.format().cloned(),
                length: new_rows,
                byte_stride: Some(stride),
                row_byte_length: Some(self.data.row_byte_length()),
                ..GpuDataDescriptor::default()
            },
        )?;
        Ok(())
    }

    /// Appends rows of a `#[derive(GpuStruct)]` type (encoded to GPU bytes first).
    ///
    /// # Errors
    /// [`TableError::FormatMismatch`] when the column's format is not `T::FORMAT`; as
    /// [`append_bytes`](Self::append_bytes).
    pub fn append_rows<T: GpuStruct>(&mut self, rows: &[T]) -> Result<(), TableError> {
        let expected = GpuDataFormat::Struct(T::FORMAT);
        if self.data.format() != Some(&expected) {
            return Err(TableError::FormatMismatch {
                column: self.name.clone(),
                expected: expected.to_string(),
                found: super::vector::format_text(self.data.format()),
            });
        }
        self.append_bytes(&encode_rows_to_vec(rows))
    }

    /// Appends values given as plain data (`&[[f32; 2]]` for `float32x2`).
    ///
    /// # Errors
    /// As [`append_bytes`](Self::append_bytes).
    pub fn append_values<P: bytemuck::Pod>(&mut self, values: &[P]) -> Result<(), TableError> {
        self.append_bytes(bytemuck::cast_slice(values))
    }

    /// Replaces the buffer with one of at least `rows` rows, copying the old rows on the GPU.
    fn grow(&mut self, rows: u64) -> Result<(), TableError> {
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss,
            reason = "a float capacity estimate, clamped to u64 and to the rows needed"
        )]
        let grown = (self.capacity_rows as f64 * self.growth_factor).min(u64::MAX as f64) as u64;
        let capacity = grown.max(rows);
        let stride = self.data.byte_stride();
        let size = capacity
            .checked_mul(stride)
            .ok_or_else(|| TableError::Overflow {
                what: format!("the capacity of dynamic vector `{}`", self.name),
            })?;
        let buffer = create_buffer(&self.gpu, size, self.usage, "gpudata dynamic vector")?;
        let used = self.data.length() * stride;
        let copy = used.next_multiple_of(4).min(self.data.buffer().size());
        if copy > 0 {
            let mut encoder =
                self.gpu
                    .device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("gpudata dynamic vector grow"),
                    });
            encoder.copy_buffer_to_buffer(self.data.buffer(), 0, &buffer, 0, Some(copy));
            self.gpu.queue().submit([encoder.finish()]);
        }
        let grown = GpuData::new(
            BufferHandle::Owned(buffer),
            GpuDataDescriptor {
                format: self.data.format().cloned(),
                length: self.data.length(),
                byte_stride: Some(stride),
                row_byte_length: Some(self.data.row_byte_length()),
                ..GpuDataDescriptor::default()
            },
        )?;
        let old = std::mem::replace(&mut self.data, grown);
        old.destroy();
        self.capacity_rows = capacity;
        self.reallocations += 1;
        Ok(())
    }

    /// Ends the growth: a vector of one chunk over the rows, owning the buffer (whose capacity
    /// may exceed the rows).
    ///
    /// # Errors
    /// None in practice; the vector constructor's checks.
    pub fn into_vector(self) -> Result<GpuVector, TableError> {
        GpuVector::from_data(self.name, vec![self.data])
    }

    /// Frees the buffer now.
    pub fn destroy(self) {
        self.data.destroy();
    }
}

impl fmt::Debug for GpuDynamicVector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuDynamicVector")
            .field("name", &self.name)
            .field("data", &self.data)
            .field("capacity_rows", &self.capacity_rows)
            .field("growth_factor", &self.growth_factor)
            .field("reallocations", &self.reallocations)
            .finish_non_exhaustive()
    }
}
