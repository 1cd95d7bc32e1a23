//! Appending to a [`GpuVector`]: luma.gl's `appendable` vector, growing by chunks or, with
//! [`Growth::Reallocate`], in one buffer that is replaced by a larger one with a GPU copy when
//! rows no longer fit (luma.gl's `DynamicBuffer` role).

use crate::data::{BufferHandle, GpuData, GpuDataDescriptor, GpuDataFormat};
use crate::device::Gpu;
use crate::device::buffers::{copy_prefix, fits_one_buffer, grown_capacity};
use crate::device::transfer::{WaitMode, write_bytes};
use crate::record::{GpuStruct, encode_rows_to_vec};
use crate::table::TableError;

use super::vector::{Appendable, GpuVector, GrowingBuffer, format_text, rows_in};

/// How an appendable [`GpuVector`] grows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Growth {
    /// Every append adds a chunk (luma.gl's `appendable` vector); a table over the vector gets
    /// one batch per chunk.
    #[default]
    Chunks,
    /// One owned buffer that appends write into, after the rows already there; when the rows no
    /// longer fit, a larger buffer replaces it, the old rows copied on the GPU
    /// (`copy_buffer_to_buffer`, no host round trip), and the old buffer is destroyed. The
    /// vector always has exactly one chunk.
    Reallocate {
        /// Rows the first buffer holds (at least 1).
        initial_capacity_rows: u64,
        /// How much the capacity grows when rows no longer fit: the new capacity is the larger
        /// of `capacity × growth_factor` and the rows needed (at least 1.0; 2.0 when not finite),
        /// or exactly the rows needed when that many rows' bytes overflow or pass the device's
        /// `max_buffer_size` (the rule `GpuStorage::reserve` grows by).
        growth_factor: f64,
    },
}

/// Options of [`GpuVector::appendable`]. Unset numbers are resolved by
/// [`MetricsPolicy::Vector`](crate::data::MetricsPolicy::Vector), luma.gl's vector rule.
#[derive(Clone, Debug)]
pub struct AppendableOptions {
    /// Scalar components per row.
    pub stride: Option<u64>,
    /// Bytes between rows.
    pub byte_stride: Option<u64>,
    /// Bytes of one row's payload.
    pub row_byte_length: Option<u64>,
    /// Usage of the buffers appends create (default [`DEFAULT_USAGE`](crate::data::DEFAULT_USAGE));
    /// [`Growth::Reallocate`] adds `COPY_SRC` and `COPY_DST` for its copies.
    pub usage: wgpu::BufferUsages,
    /// Chunk by chunk (the default), or in one reallocated buffer.
    pub growth: Growth,
}

impl Default for AppendableOptions {
    fn default() -> Self {
        AppendableOptions {
            stride: None,
            byte_stride: None,
            row_byte_length: None,
            usage: crate::data::DEFAULT_USAGE,
            growth: Growth::Chunks,
        }
    }
}

impl AppendableOptions {
    /// The default options with [`Growth::Reallocate`]: one buffer of 64 rows at first,
    /// doubling when rows no longer fit.
    #[must_use]
    pub fn reallocating() -> AppendableOptions {
        AppendableOptions {
            growth: Growth::Reallocate {
                initial_capacity_rows: 64,
                growth_factor: 2.0,
            },
            ..AppendableOptions::default()
        }
    }
}

impl GpuVector {
    /// An empty vector of `format` that grows by appends (luma.gl's `appendable` mode), chunk by
    /// chunk or in one reallocated buffer ([`AppendableOptions::growth`]): rows come from
    /// [`append_bytes`](Self::append_bytes), [`append_values`](Self::append_values) and
    /// [`append_rows`](Self::append_rows) (uploaded on `gpu`), chunks from
    /// [`append_chunk`](Self::append_chunk) (chunk growth only), and
    /// [`reset_appended`](Self::reset_appended) drops the rows.
    ///
    /// A [`Growth::Reallocate`] vector's buffer can be replaced by an append, so its rows are
    /// only lent out ([`chunks`](Self::chunks) borrows them); bytes written by a shader into the
    /// last partial 4-byte word between appends are overwritten by the next append.
    ///
    /// # Errors
    /// [`TableError::ListAppend`] for list formats with [`Growth::Reallocate`];
    /// [`TableError::Data`] when the options describe impossible rows; [`TableError::Overflow`]
    /// and [`TableError::Gpu`] when the first buffer cannot be created.
    pub fn appendable(
        name: impl Into<String>,
        gpu: &Gpu,
        format: impl Into<GpuDataFormat>,
        options: AppendableOptions,
    ) -> Result<GpuVector, TableError> {
        let name = name.into();
        let format = format.into();
        let descriptor = GpuDataDescriptor {
            stride: options.stride,
            byte_stride: options.byte_stride,
            row_byte_length: options.row_byte_length,
            ..GpuDataDescriptor::vector(format.clone(), 0)
        };
        let metrics = descriptor.resolve(u64::MAX)?;
        let mut vector = GpuVector::empty(name, Some(format), metrics);
        let (chunks, buffer, usage) = match options.growth {
            Growth::Chunks => (Vec::new(), None, options.usage),
            Growth::Reallocate {
                initial_capacity_rows,
                growth_factor,
            } => {
                if let Some(GpuDataFormat::Vector(v)) = vector.format()
                    && v.is_list()
                {
                    return Err(TableError::ListAppend {
                        vector: vector.name().to_owned(),
                        format: v.to_string(),
                    });
                }
                let usage =
                    options.usage | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
                let capacity_rows = initial_capacity_rows.max(1);
                let data = vector.growing_chunk(gpu, capacity_rows, usage, 0)?;
                let growth_factor = if growth_factor.is_finite() {
                    growth_factor.max(1.0)
                } else {
                    2.0
                };
                let buffer = GrowingBuffer {
                    capacity_rows,
                    growth_factor,
                    tail: ([0; 4], 0),
                    reallocations: 0,
                };
                (vec![data], Some(buffer), usage)
            }
        };
        vector.chunks = chunks;
        vector.appendable = Some(Box::new(Appendable {
            gpu: gpu.clone(),
            usage,
            appended_byte_length: 0,
            buffer,
        }));
        Ok(vector)
    }

    /// Whether the vector grows by appends.
    #[must_use]
    pub const fn is_appendable(&self) -> bool {
        self.appendable.is_some()
    }

    /// For appendable vectors (`None` otherwise), the rows they hold without growing: with
    /// chunk growth the rows held (luma.gl's `capacityRows`), in one reallocated buffer the rows
    /// the current buffer can hold.
    #[must_use]
    pub fn capacity_rows(&self) -> Option<u64> {
        let state = self.appendable.as_ref()?;
        Some(state.buffer.map_or(self.length, |b| b.capacity_rows))
    }

    /// Bytes appended so far, for appendable vectors (`None` otherwise): with chunk growth the
    /// sizes of the appended chunks' buffers, in one reallocated buffer the bytes of the rows
    /// held.
    #[must_use]
    pub fn appended_byte_length(&self) -> Option<u64> {
        self.appendable.as_ref().map(|a| a.appended_byte_length)
    }

    /// How many times an append replaced the buffer of a [`Growth::Reallocate`] vector by a
    /// larger one (0 for other vectors).
    #[must_use]
    pub fn reallocations(&self) -> u64 {
        self.growing().map_or(0, |b| b.reallocations)
    }

    /// The buffer state of a [`Growth::Reallocate`] vector.
    fn growing(&self) -> Option<GrowingBuffer> {
        self.appendable.as_ref().and_then(|a| a.buffer)
    }

    /// Refuses a new chunk on a vector that grows in one buffer.
    pub(super) fn check_chunk_growth(&self, operation: &'static str) -> Result<(), TableError> {
        if self.growing().is_some() {
            return Err(TableError::SingleBufferChunk {
                vector: self.name.clone(),
                operation,
            });
        }
        Ok(())
    }

    /// Appends a chunk to a vector with chunk growth (luma.gl's `appendDataChunk`); the
    /// appended byte length grows by the chunk's buffer size.
    ///
    /// # Errors
    /// [`TableError::NotAppendable`] for other vectors; [`TableError::SingleBufferChunk`] for
    /// [`Growth::Reallocate`]; [`TableError::ChunkMismatch`] for another format or byte layout;
    /// [`TableError::Overflow`].
    pub fn append_chunk(&mut self, data: GpuData) -> Result<(), TableError> {
        let state = self.appended_state("append_chunk")?;
        let size = data.buffer_on(&state.gpu, "append a chunk")?.size();
        let current = state.appended_byte_length;
        let total = current
            .checked_add(size)
            .ok_or_else(|| TableError::Overflow {
                what: format!("the appended byte length of gpu vector `{}`", self.name),
            })?;
        self.append_chunk_with_byte_length(data, total)
    }

    /// [`append_chunk`](Self::append_chunk), setting the appended byte length to
    /// `appended_byte_length`.
    ///
    /// # Errors
    /// As [`append_chunk`](Self::append_chunk).
    pub fn append_chunk_with_byte_length(
        &mut self,
        data: GpuData,
        appended_byte_length: u64,
    ) -> Result<(), TableError> {
        self.appended_state("append_chunk")?;
        self.check_chunk_growth("append_chunk")?;
        self.check_chunk(&data, "append_chunk", true)?;
        self.push_chunk(data)?;
        if let Some(state) = &mut self.appendable {
            state.appended_byte_length = appended_byte_length;
        }
        Ok(())
    }

    fn appended_state(&self, operation: &'static str) -> Result<&Appendable, TableError> {
        self.appendable
            .as_deref()
            .ok_or_else(|| TableError::NotAppendable {
                vector: self.name.clone(),
                operation,
            })
    }

    /// Appends rows given as bytes: whole rows at the vector's byte stride (the last row may
    /// omit its trailing padding), uploaded as a new chunk or written after the rows of the one
    /// buffer.
    ///
    /// # Errors
    /// [`TableError::NotAppendable`]; [`TableError::ListAppend`] for list formats, whose element
    /// counts bytes cannot tell; [`TableError::PartialRows`] when the bytes are not whole rows;
    /// [`TableError::Overflow`]; [`TableError::Gpu`] when the upload or a larger buffer fails.
    pub fn append_bytes(&mut self, bytes: &[u8]) -> Result<(), TableError> {
        let state = self.appended_state("append_bytes")?.clone();
        if let Some(GpuDataFormat::Vector(v)) = &self.format
            && v.is_list()
        {
            return Err(TableError::ListAppend {
                vector: self.name.clone(),
                format: v.to_string(),
            });
        }
        let len = bytes.len() as u64;
        let rows = rows_in(len, self.byte_stride, self.row_byte_length).ok_or_else(|| {
            TableError::PartialRows {
                vector: self.name.clone(),
                byte_length: len,
                byte_stride: self.byte_stride,
                row_byte_length: self.row_byte_length,
            }
        })?;
        if let Some(buffer) = state.buffer {
            return self.write_rows(&state, buffer, bytes, rows);
        }
        let data =
            GpuData::from_bytes(&state.gpu, bytes, self.chunk_descriptor(rows), state.usage)?;
        self.append_chunk(data)
    }

    /// Appends values given as plain data (`&[[f32; 2]]` for `float32x2`).
    ///
    /// # Errors
    /// As [`append_bytes`](Self::append_bytes).
    pub fn append_values<P: bytemuck::Pod>(&mut self, values: &[P]) -> Result<(), TableError> {
        self.append_bytes(bytemuck::cast_slice(values))
    }

    /// Appends `rows` of a `#[derive(GpuStruct)]` type to a vector whose format is `T::FORMAT`.
    ///
    /// # Errors
    /// [`TableError::NotAppendable`]; [`TableError::FormatMismatch`] when the vector's format
    /// is not `T::FORMAT`; [`TableError::ChunkMismatch`] when its byte layout is not the rows';
    /// as [`append_bytes`](Self::append_bytes).
    pub fn append_rows<T: GpuStruct>(&mut self, rows: &[T]) -> Result<(), TableError> {
        let state = self.appended_state("append_rows")?.clone();
        let expected = GpuDataFormat::Struct(T::FORMAT.clone());
        if self.format.as_ref() != Some(&expected) {
            return Err(TableError::FormatMismatch {
                column: self.name.clone(),
                expected: expected.to_string(),
                found: format_text(self.format.as_ref()),
            });
        }
        if state.buffer.is_none() {
            let data = crate::TypedGpuData::from_rows(&state.gpu, rows, state.usage)?;
            return self.append_chunk(data.into_data());
        }
        let row_stride = T::FORMAT.byte_stride();
        if row_stride != self.byte_stride {
            return Err(TableError::ChunkMismatch {
                vector: self.name.clone(),
                operation: "append_rows",
                what: "byte stride",
                expected: format!("byte stride {}", self.byte_stride),
                found: format!("byte stride {row_stride}"),
            });
        }
        self.append_bytes(&encode_rows_to_vec(rows))
    }

    /// Drops every appended row (luma.gl's `resetLastBatch`): with chunk growth the chunks go,
    /// destroying the buffers they own; a reallocated buffer stays, with its capacity, and holds
    /// no rows. The length, value length and appended byte length become 0.
    ///
    /// # Errors
    /// [`TableError::NotAppendable`] for other vectors; [`TableError::Data`] in theory, when the
    /// empty chunk cannot be described.
    pub fn reset_appended(&mut self) -> Result<(), TableError> {
        let gpu = self.appended_state("reset_appended")?.gpu.clone();
        if let Some(buffer) = self.growing() {
            let chunk = self.take_chunks().pop();
            if let Some(chunk) = chunk {
                self.chunks = vec![self.rows_over(&gpu, chunk.buffer_handle().clone(), 0)?];
            }
            self.set_growing(GrowingBuffer {
                tail: ([0; 4], 0),
                ..buffer
            });
        } else {
            for chunk in self.chunks.drain(..) {
                chunk.destroy();
            }
        }
        self.length = 0;
        self.value_length = 0;
        self.byte_offset = 0;
        if let Some(state) = &mut self.appendable {
            state.appended_byte_length = 0;
        }
        Ok(())
    }

    fn set_growing(&mut self, buffer: GrowingBuffer) {
        if let Some(state) = &mut self.appendable {
            state.buffer = Some(buffer);
        }
    }

    /// A chunk of the vector's format and byte layout: `rows` rows at the start of `buffer`.
    fn rows_over(&self, gpu: &Gpu, buffer: BufferHandle, rows: u64) -> Result<GpuData, TableError> {
        Ok(GpuData::new(buffer, self.chunk_descriptor(rows))?.on_device(gpu))
    }

    /// The descriptor of `rows` rows of the vector's format and byte layout, from byte 0.
    fn chunk_descriptor(&self, rows: u64) -> GpuDataDescriptor {
        GpuDataDescriptor {
            format: self.format.clone(),
            length: rows,
            stride: Some(self.stride),
            byte_stride: Some(self.byte_stride),
            row_byte_length: Some(self.row_byte_length),
            ..GpuDataDescriptor::default()
        }
    }

    /// A new owned buffer of `capacity_rows` rows, as a chunk of its first `rows` rows.
    fn growing_chunk(
        &self,
        gpu: &Gpu,
        capacity_rows: u64,
        usage: wgpu::BufferUsages,
        rows: u64,
    ) -> Result<GpuData, TableError> {
        let size =
            capacity_rows
                .checked_mul(self.byte_stride)
                .ok_or_else(|| TableError::Overflow {
                    what: format!("the capacity of gpu vector `{}`", self.name),
                })?;
        let buffer =
            crate::device::buffers::create_buffer(gpu, size, usage, "gpudata growing vector")?;
        self.rows_over(gpu, BufferHandle::Owned(buffer), rows)
    }

    /// Writes `rows` rows (`bytes`) after the rows of a [`Growth::Reallocate`] vector's buffer,
    /// growing it first when they do not fit.
    fn write_rows(
        &mut self,
        state: &Appendable,
        mut buffer: GrowingBuffer,
        bytes: &[u8],
        rows: u64,
    ) -> Result<(), TableError> {
        if rows == 0 {
            return Ok(());
        }
        let name = self.name.clone();
        let overflow = || TableError::Overflow {
            what: format!("the rows of gpu vector `{name}`"),
        };
        let stride = self.byte_stride;
        let old_rows = self.length;
        let new_rows = old_rows.checked_add(rows).ok_or_else(overflow)?;
        if new_rows > buffer.capacity_rows {
            buffer = self.grow(state, buffer, new_rows)?;
        }
        let padded = rows.checked_mul(stride).ok_or_else(overflow)?;
        let padded = usize::try_from(padded).map_err(|_| overflow())?;
        let start = old_rows.checked_mul(stride).ok_or_else(overflow)?;
        let aligned = start - start % 4;
        #[allow(clippy::cast_possible_truncation, reason = "a remainder of 4")]
        let lead = (start - aligned) as usize;
        let mut staged = Vec::with_capacity(lead + padded + 3);
        staged.extend_from_slice(&buffer.tail.0[..lead]);
        staged.extend_from_slice(bytes);
        // Rows without trailing padding: pad the bytes to whole strides, then to a word.
        staged.resize(lead + padded, 0);
        let partial = staged.len() % 4;
        let mut tail = [0u8; 4];
        tail[..partial].copy_from_slice(&staged[staged.len() - partial..]);
        staged.resize(staged.len().next_multiple_of(4), 0);
        let handle = self.single_chunk()?.buffer_handle().clone();
        // Through the transfer engine like every other write: bounded staging, error scopes, a
        // destroyed buffer or a lost device returned as `TableError::Gpu`.
        pollster::block_on(write_bytes(
            &state.gpu,
            handle.buffer(),
            aligned,
            &staged,
            WaitMode::Block,
        ))?;
        buffer.tail = (tail, partial);
        let chunk = self.rows_over(&state.gpu, handle, new_rows)?;
        self.chunks = vec![chunk];
        self.length = new_rows;
        self.value_length = new_rows;
        self.set_growing(buffer);
        if let Some(appendable) = &mut self.appendable {
            appendable.appended_byte_length = new_rows.checked_mul(stride).ok_or_else(overflow)?;
        }
        Ok(())
    }

    /// Replaces the buffer with one of at least `rows` rows, copying the old rows on the GPU.
    fn grow(
        &mut self,
        state: &Appendable,
        mut buffer: GrowingBuffer,
        rows: u64,
    ) -> Result<GrowingBuffer, TableError> {
        // The rows needed when the grown capacity's bytes overflow or pass the device's
        // largest buffer.
        let stride = self.byte_stride;
        let capacity = grown_capacity(buffer.capacity_rows, buffer.growth_factor, rows, |n| {
            n.checked_mul(stride)
                .is_some_and(|size| fits_one_buffer(&state.gpu, size))
        });
        let grown = self.growing_chunk(&state.gpu, capacity, state.usage, self.length)?;
        let old = self.take_chunks().pop();
        if let Some(old) = old {
            let used = self.length * self.byte_stride;
            let copy = used.next_multiple_of(4).min(old.buffer().size());
            copy_prefix(
                &state.gpu,
                old.buffer(),
                grown.buffer(),
                copy,
                "gpudata growing vector",
            )?;
            old.destroy();
        }
        self.chunks = vec![grown];
        buffer.capacity_rows = capacity;
        buffer.reallocations += 1;
        self.set_growing(buffer);
        Ok(buffer)
    }
}
