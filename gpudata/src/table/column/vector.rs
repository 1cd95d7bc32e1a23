//! [`GpuVector`]: one logical column over [`GpuData`] chunks (luma.gl's `GPUVector`).

use std::fmt;

use crate::data::{
    BufferHandle, GpuData, GpuDataDescriptor, GpuDataFormat, MetricsPolicy, ReadbackMetadata,
    RowMetrics,
};
use crate::device::Gpu;
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::layout::{BufferAttribute, BufferLayout, StepMode};
use crate::record::GpuStruct;
use crate::table::TableError;
use crate::table::column::chunk_options::ChunkOptions;

/// Text for a format in error messages.
pub(crate) fn format_text(format: Option<&GpuDataFormat>) -> String {
    format.map_or_else(|| "no format".to_owned(), ToString::to_string)
}

/// Options of [`GpuVector::from_data_with`]: luma.gl's `data` constructor props besides the
/// name and the chunks. Unset numbers come from the first chunk, then from the format.
#[derive(Clone, Default)]
pub struct DataVectorOptions {
    /// The declared format; defaults to the first chunk's. Every chunk must have it.
    pub format: Option<GpuDataFormat>,
    /// Scalar components per row.
    pub stride: Option<u64>,
    /// Flattened values; defaults to the sum over the chunks.
    pub value_length: Option<u64>,
    /// Bytes between rows.
    pub byte_stride: Option<u64>,
    /// Bytes of one row's payload.
    pub row_byte_length: Option<u64>,
    /// An interleaved layout of the rows.
    pub buffer_layout: Option<BufferLayout>,
    /// The adapter's metadata (its logical type, say), kept untouched.
    pub readback_metadata: Option<ReadbackMetadata>,
}

impl fmt::Debug for DataVectorOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DataVectorOptions")
            .field("format", &self.format.as_ref().map(ToString::to_string))
            .field("stride", &self.stride)
            .field("value_length", &self.value_length)
            .field("byte_stride", &self.byte_stride)
            .field("row_byte_length", &self.row_byte_length)
            .field("buffer_layout", &self.buffer_layout)
            .field("readback_metadata", &self.readback_metadata.is_some())
            .finish()
    }
}

/// How an interleaved [`GpuVector`] describes rows of several attributes in one buffer:
/// luma.gl's `interleaved` constructor props.
#[derive(Clone, Debug, Default)]
pub struct InterleavedDescriptor {
    /// The row format, when known (a struct format for rows of a `GpuStruct`).
    pub format: Option<GpuDataFormat>,
    /// Rows.
    pub length: u64,
    /// Flattened values; defaults to `length`.
    pub value_length: Option<u64>,
    /// Byte offset of the first row.
    pub byte_offset: u64,
    /// Bytes between rows (required: interleaved rows have no format to derive it from).
    pub byte_stride: u64,
    /// The attributes of each row.
    pub attributes: Vec<BufferAttribute>,
    /// The layout's step mode, when stated.
    pub step_mode: Option<StepMode>,
}

/// One logical column over [`GpuData`] chunks: luma.gl's `GPUVector`.
///
/// A vector has a name, a format (a vector format, a struct format for interleaved rows, or none
/// for untyped bytes described by a [`BufferLayout`]), row numbers that every chunk shares, and
/// its chunks in order. [`length`](Self::length) counts logical rows and
/// [`value_length`](Self::value_length) flattened values, which differ for `vertex-list<F>` and
/// `value-list<F>` columns.
///
/// # Ownership
///
/// luma.gl's `ownsData` flag is Rust ownership here: a vector holds its chunks by value, and each
/// chunk owns its buffer or shares it ([`BufferHandle`]). A vector over chunks you moved in frees
/// their owned buffers on [`destroy`](Self::destroy); a vector over [`GpuData::share`]d chunks
/// (luma.gl's borrowed `ownsData: false` vector) never frees anything, and the original chunks
/// keep ownership.
///
/// # Modes
///
/// | luma.gl `type` | constructor |
/// |---|---|
/// | `buffer` | [`from_buffer`](Self::from_buffer) |
/// | `interleaved` | [`interleaved`](Self::interleaved), [`from_struct_data`](Self::from_struct_data), [`from_rows`](Self::from_rows) |
/// | `data` | [`from_data`](Self::from_data), [`from_data_with`](Self::from_data_with) |
/// | `appendable` | [`appendable`](Self::appendable), growing by chunks or in one reallocated buffer ([`Growth`](crate::table::Growth)) |
pub struct GpuVector {
    pub(super) name: String,
    pub(super) format: Option<GpuDataFormat>,
    pub(super) length: u64,
    pub(super) value_length: u64,
    pub(super) stride: u64,
    pub(super) byte_offset: u64,
    pub(super) byte_stride: u64,
    pub(super) row_byte_length: u64,
    pub(super) buffer_layout: Option<BufferLayout>,
    pub(super) readback_metadata: Option<ReadbackMetadata>,
    pub(super) chunks: Vec<GpuData>,
    pub(super) appendable: Option<Box<Appendable>>,
}

impl GpuVector {
    /// A vector of one chunk over `buffer`, described by `descriptor` (luma.gl's `buffer` mode
    /// with [`GpuDataDescriptor::vector`], whose [`MetricsPolicy::Vector`] derives the numbers
    /// left `None` as luma.gl's vector does; a [`MetricsPolicy::Data`] descriptor derives them as
    /// [`GpuData`] does). The descriptor's readback metadata is the vector's. The chunk owns the
    /// buffer exactly when `buffer` is [`BufferHandle::Owned`].
    ///
    /// # Errors
    /// [`TableError::VectorRequiresRowByteLength`] for a [`MetricsPolicy::Vector`] descriptor
    /// without a format, byte stride or row byte length; [`TableError::Data`] when the rows do
    /// not fit the buffer (see [`GpuData::new`]).
    pub fn from_buffer(
        name: impl Into<String>,
        buffer: BufferHandle,
        descriptor: GpuDataDescriptor,
    ) -> Result<GpuVector, TableError> {
        let name = name.into();
        if descriptor.metrics == MetricsPolicy::Vector
            && descriptor.format.is_none()
            && descriptor.byte_stride.is_none()
            && descriptor.row_byte_length.is_none()
        {
            return Err(TableError::VectorRequiresRowByteLength { vector: name });
        }
        let readback_metadata = descriptor.readback_metadata.clone();
        let chunk = GpuData::new(
            buffer,
            GpuDataDescriptor {
                readback_metadata: None,
                ..descriptor
            },
        )?;
        let mut vector = GpuVector::empty(name, chunk.format().cloned(), chunk.metrics());
        vector.readback_metadata = readback_metadata;
        vector.chunks = vec![chunk];
        Ok(vector)
    }

    /// A vector without chunks and with `metrics`' row numbers.
    pub(super) fn empty(
        name: String,
        format: Option<GpuDataFormat>,
        metrics: RowMetrics,
    ) -> GpuVector {
        GpuVector {
            name,
            format,
            length: metrics.length,
            value_length: metrics.value_length,
            stride: metrics.stride,
            byte_offset: metrics.byte_offset,
            byte_stride: metrics.byte_stride,
            row_byte_length: metrics.row_byte_length,
            buffer_layout: None,
            readback_metadata: None,
            chunks: Vec::new(),
            appendable: None,
        }
    }

    /// A vector of interleaved rows in one buffer (luma.gl's `interleaved` mode): its stride,
    /// row byte length and byte stride are all `descriptor.byte_stride`, and its buffer layout is
    /// `{name, byte_stride, attributes}`.
    ///
    /// # Errors
    /// [`TableError::Data`] when the rows do not fit the buffer.
    pub fn interleaved(
        name: impl Into<String>,
        buffer: BufferHandle,
        descriptor: InterleavedDescriptor,
    ) -> Result<GpuVector, TableError> {
        let name = name.into();
        let byte_stride = descriptor.byte_stride;
        let value_length = descriptor.value_length.unwrap_or(descriptor.length);
        let chunk = GpuData::new(
            buffer,
            GpuDataDescriptor {
                format: descriptor.format.clone(),
                length: descriptor.length,
                value_length: Some(value_length),
                stride: Some(byte_stride),
                byte_offset: descriptor.byte_offset,
                byte_stride: Some(byte_stride),
                row_byte_length: Some(byte_stride),
                readback_metadata: None,
                metrics: MetricsPolicy::Data,
            },
        )?;
        let buffer_layout = BufferLayout {
            name: name.clone(),
            format: None,
            byte_stride: Some(byte_stride),
            step_mode: descriptor.step_mode,
            attributes: descriptor.attributes,
        };
        Ok(GpuVector {
            name,
            format: descriptor.format,
            length: descriptor.length,
            value_length,
            stride: byte_stride,
            byte_offset: descriptor.byte_offset,
            byte_stride,
            row_byte_length: byte_stride,
            buffer_layout: Some(buffer_layout),
            readback_metadata: None,
            chunks: vec![chunk],
            appendable: None,
        })
    }

    /// An interleaved vector over one chunk of struct-formatted rows (for example the
    /// [`GpuData`] of a [`TypedGpuData<T>`](crate::TypedGpuData)): the buffer layout is the
    /// struct's ([`GpuDataStructFormat::buffer_layout`](crate::GpuDataStructFormat::buffer_layout)),
    /// each field one attribute, with `step_mode` when given.
    ///
    /// # Errors
    /// [`TableError::NotStructData`] when the data has no struct format.
    pub fn from_struct_data(
        name: impl Into<String>,
        data: GpuData,
        step_mode: Option<StepMode>,
    ) -> Result<GpuVector, TableError> {
        let name = name.into();
        let Some(format) = data.struct_format() else {
            return Err(TableError::NotStructData {
                vector: name,
                found: format_text(data.format()),
            });
        };
        let layout = BufferLayout {
            byte_stride: Some(data.byte_stride()),
            ..format.buffer_layout(name.clone(), step_mode)
        };
        GpuVector::from_data_with(
            name,
            vec![data],
            DataVectorOptions {
                buffer_layout: Some(layout),
                ..DataVectorOptions::default()
            },
        )
    }

    /// An interleaved vector of `rows`, uploaded into new owned buffers: the rows of a
    /// `#[derive(GpuStruct)]` type become one column whose layout feeds one attribute per field.
    /// Rows that do not fit one buffer (the device's `max_buffer_size`) go into as many chunks
    /// as they need, whole rows each (see [`ChunkOptions`](crate::table::ChunkOptions)).
    ///
    /// # Errors
    /// [`TableError::RowExceedsChunk`] for a row larger than a buffer; [`TableError::Gpu`] when
    /// the upload fails.
    pub fn from_rows<T: GpuStruct>(
        gpu: &Gpu,
        name: impl Into<String>,
        rows: &[T],
        step_mode: Option<StepMode>,
    ) -> Result<GpuVector, TableError> {
        GpuVector::from_rows_with(gpu, name, rows, step_mode, ChunkOptions::default())
    }

    /// [`from_rows`](Self::from_rows) in chunks cut by `options`.
    ///
    /// # Errors
    /// As [`from_rows`](Self::from_rows), and [`TableError::ChunkRows`].
    pub fn from_rows_with<T: GpuStruct>(
        gpu: &Gpu,
        name: impl Into<String>,
        rows: &[T],
        step_mode: Option<StepMode>,
        options: ChunkOptions,
    ) -> Result<GpuVector, TableError> {
        let name = name.into();
        let per_chunk = options.rows_per_chunk_for(gpu, &name, T::FORMAT.byte_stride())?;
        let chunks = GpuVector::upload_struct_rows(gpu, rows, per_chunk)?;
        let format = T::FORMAT;
        let layout = BufferLayout {
            byte_stride: Some(format.byte_stride()),
            ..format.buffer_layout(name.clone(), step_mode)
        };
        GpuVector::from_data_with(
            name,
            chunks,
            DataVectorOptions {
                buffer_layout: Some(layout),
                ..DataVectorOptions::default()
            },
        )
    }

    /// A vector over `chunks` (luma.gl's `data` mode), every number taken from the first chunk.
    ///
    /// # Errors
    /// As [`from_data_with`](Self::from_data_with).
    pub fn from_data(
        name: impl Into<String>,
        chunks: Vec<GpuData>,
    ) -> Result<GpuVector, TableError> {
        GpuVector::from_data_with(name, chunks, DataVectorOptions::default())
    }

    /// A vector over `chunks` (luma.gl's `data` mode): the format is the declared one or the
    /// first chunk's; `stride`, `byte_stride` and `row_byte_length` are the given ones, else the
    /// first chunk's, else the format's; `length` and `value_length` sum over the chunks.
    ///
    /// As in luma.gl, chunks are checked for the format only; chunks that differ in byte stride
    /// or row byte length are refused later by [`add_data`](Self::add_data) and by tables.
    ///
    /// # Errors
    /// [`TableError::VectorRequiresByteLayout`] when no chunk, format or option gives the byte
    /// stride and row byte length; [`TableError::ChunkFormat`] when a chunk's format differs from
    /// the vector's (a chunk without a format differs too); [`TableError::Overflow`] when the
    /// lengths overflow.
    pub fn from_data_with(
        name: impl Into<String>,
        chunks: Vec<GpuData>,
        options: DataVectorOptions,
    ) -> Result<GpuVector, TableError> {
        let name = name.into();
        let first = chunks.first();
        let format = options
            .format
            .or_else(|| first.and_then(|c| c.format().cloned()));
        let stride = options
            .stride
            .or_else(|| first.map(GpuData::stride))
            .or_else(|| format.as_ref().map(|f| u64::from(f.components())))
            .unwrap_or(1);
        let byte_stride = options
            .byte_stride
            .or_else(|| first.map(GpuData::byte_stride))
            .or_else(|| format.as_ref().map(GpuDataFormat::row_byte_length));
        let row_byte_length = options
            .row_byte_length
            .or_else(|| first.map(GpuData::row_byte_length))
            .or_else(|| format.as_ref().map(GpuDataFormat::row_byte_length));
        let (Some(byte_stride), Some(row_byte_length)) = (byte_stride, row_byte_length) else {
            return Err(TableError::VectorRequiresByteLayout { vector: name });
        };
        if let Some(format) = &format {
            for (i, chunk) in chunks.iter().enumerate() {
                if chunk.format() != Some(format) {
                    return Err(TableError::ChunkFormat {
                        vector: name,
                        chunk: i,
                        expected: format.to_string(),
                        found: format_text(chunk.format()),
                    });
                }
            }
        }
        let overflow = || TableError::Overflow {
            what: format!("the row count of gpu vector `{name}`"),
        };
        let length = checked_sum(chunks.iter().map(GpuData::length)).ok_or_else(overflow)?;
        let value_length = match options.value_length {
            Some(v) => v,
            None => checked_sum(chunks.iter().map(GpuData::value_length)).ok_or_else(overflow)?,
        };
        let byte_offset = match chunks.as_slice() {
            [only] => only.byte_offset(),
            _ => 0,
        };
        Ok(GpuVector {
            name,
            format,
            length,
            value_length,
            stride,
            byte_offset,
            byte_stride,
            row_byte_length,
            buffer_layout: options.buffer_layout,
            readback_metadata: options.readback_metadata,
            chunks,
            appendable: None,
        })
    }

    /// The column name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Renames the vector (its buffer layout, if any, follows).
    pub fn set_name(&mut self, name: impl Into<String>) {
        self.name = name.into();
        if let Some(layout) = &mut self.buffer_layout {
            layout.name.clone_from(&self.name);
        }
    }

    /// The format, if any.
    #[must_use]
    pub fn format(&self) -> Option<&GpuDataFormat> {
        self.format.as_ref()
    }

    /// The vector format, for columns of one (not struct rows).
    #[must_use]
    pub fn vector_format(&self) -> Option<GpuVectorFormat> {
        self.format.as_ref().and_then(GpuDataFormat::as_vector)
    }

    /// The format of one fixed row or list element, for vector formats.
    #[must_use]
    pub fn element_format(&self) -> Option<VertexFormat> {
        self.vector_format().map(GpuVectorFormat::element_format)
    }

    /// Logical rows over all chunks.
    #[must_use]
    pub const fn length(&self) -> u64 {
        self.length
    }

    /// Fixed rows or flattened list elements over all chunks.
    #[must_use]
    pub const fn value_length(&self) -> u64 {
        self.value_length
    }

    /// Scalar components per row or element.
    #[must_use]
    pub const fn stride(&self) -> u64 {
        self.stride
    }

    /// The byte offset of the only chunk, else 0.
    #[must_use]
    pub const fn byte_offset(&self) -> u64 {
        self.byte_offset
    }

    /// Bytes between rows.
    #[must_use]
    pub const fn byte_stride(&self) -> u64 {
        self.byte_stride
    }

    /// Bytes of one row's payload.
    #[must_use]
    pub const fn row_byte_length(&self) -> u64 {
        self.row_byte_length
    }

    /// The interleaved layout of the rows, when the vector has one.
    #[must_use]
    pub fn buffer_layout(&self) -> Option<&BufferLayout> {
        self.buffer_layout.as_ref()
    }

    /// Sets the interleaved layout of the rows.
    pub fn set_buffer_layout(&mut self, layout: Option<BufferLayout>) {
        self.buffer_layout = layout;
    }

    /// The adapter's metadata (an Arrow `DataType`, say), if one was stored (luma.gl's
    /// `dataType`).
    #[must_use]
    pub fn readback_metadata(&self) -> Option<&ReadbackMetadata> {
        self.readback_metadata.as_ref()
    }

    /// The adapter's metadata, if it is an `M`.
    #[must_use]
    pub fn readback_metadata_as<M: std::any::Any>(&self) -> Option<&M> {
        self.readback_metadata.as_ref()?.downcast_ref()
    }

    /// Stores the adapter's metadata.
    pub fn set_readback_metadata(&mut self, metadata: Option<ReadbackMetadata>) {
        self.readback_metadata = metadata;
    }

    /// The chunks, in row order.
    #[must_use]
    pub fn chunks(&self) -> &[GpuData] {
        &self.chunks
    }

    /// The vector's only chunk (luma.gl's `getGPUVectorData`).
    ///
    /// # Errors
    /// [`TableError::ExactlyOneChunk`] for a vector of zero or several chunks.
    pub fn single_chunk(&self) -> Result<&GpuData, TableError> {
        match self.chunks.as_slice() {
            [only] => Ok(only),
            chunks => Err(TableError::ExactlyOneChunk {
                vector: self.name.clone(),
                found: chunks.len(),
            }),
        }
    }

    /// The chunks, taken out of the vector with their ownership.
    #[must_use]
    pub fn into_chunks(self) -> Vec<GpuData> {
        self.chunks
    }

    /// Whether some chunk owns its buffer (luma.gl's `ownsBuffer`).
    #[must_use]
    pub fn owns_buffer(&self) -> bool {
        self.chunks.iter().any(GpuData::owns_buffer)
    }

    /// A vector over [`share`](GpuData::share)d handles of this vector's chunks, with the same
    /// metadata: luma.gl's borrowed (`ownsData: false`) vector. Destroying it frees nothing.
    #[must_use]
    pub fn share(&self) -> GpuVector {
        GpuVector {
            name: self.name.clone(),
            format: self.format.clone(),
            length: self.length,
            value_length: self.value_length,
            stride: self.stride,
            byte_offset: self.byte_offset,
            byte_stride: self.byte_stride,
            row_byte_length: self.row_byte_length,
            buffer_layout: self.buffer_layout.clone(),
            readback_metadata: self.readback_metadata.clone(),
            chunks: self.chunks.iter().map(GpuData::share).collect(),
            appendable: None,
        }
    }

    /// Checks that `data` can join this vector; `what` names the operation in errors.
    pub(super) fn check_chunk(
        &self,
        data: &GpuData,
        operation: &'static str,
        merge_layout: bool,
    ) -> Result<(), TableError> {
        let mismatch =
            |what: &'static str, expected: String, found: String| TableError::ChunkMismatch {
                vector: self.name.clone(),
                operation,
                what,
                expected,
                found,
            };
        if let Some(format) = &self.format
            && data.format() != Some(format)
        {
            return Err(mismatch(
                "formats",
                format.to_string(),
                format_text(data.format()),
            ));
        }
        let (stride_what, row_what) = if merge_layout {
            ("byte layout metadata", "byte layout metadata")
        } else {
            ("byte stride", "row byte length")
        };
        if data.byte_stride() != self.byte_stride {
            return Err(mismatch(
                stride_what,
                format!("byte stride {}", self.byte_stride),
                format!("byte stride {}", data.byte_stride()),
            ));
        }
        if data.row_byte_length() != self.row_byte_length {
            return Err(mismatch(
                row_what,
                format!("row byte length {}", self.row_byte_length),
                format!("row byte length {}", data.row_byte_length()),
            ));
        }
        Ok(())
    }

    pub(super) fn push_chunk(&mut self, data: GpuData) -> Result<(), TableError> {
        let overflow = || TableError::Overflow {
            what: format!("the row count of gpu vector `{}`", self.name),
        };
        let length = self
            .length
            .checked_add(data.length())
            .ok_or_else(overflow)?;
        let value_length = self
            .value_length
            .checked_add(data.value_length())
            .ok_or_else(overflow)?;
        self.length = length;
        self.value_length = value_length;
        self.chunks.push(data);
        if self.chunks.len() > 1 {
            self.byte_offset = 0;
        }
        Ok(())
    }

    /// Appends a chunk to any vector (luma.gl's `addData`). On error the vector is unchanged and
    /// the chunk is dropped (not destroyed); [`check_data`](Self::check_data) asks first.
    ///
    /// # Errors
    /// [`TableError::SingleBufferChunk`] for a vector that grows in one reallocated buffer;
    /// [`TableError::ChunkMismatch`] when the vector has a format and the chunk another one, or
    /// when the byte stride or row byte length differ; [`TableError::Overflow`].
    pub fn add_data(&mut self, data: GpuData) -> Result<(), TableError> {
        self.check_chunk_growth("add_data")?;
        self.check_data(&data)?;
        self.push_chunk(data)
    }

    /// Whether [`add_data`](Self::add_data) would accept `data`.
    ///
    /// # Errors
    /// As [`add_data`](Self::add_data), without the overflow check.
    pub fn check_data(&self, data: &GpuData) -> Result<(), TableError> {
        self.check_chunk(data, "add_data", false)
    }

    /// Gives the ownership of this vector's first chunk's buffer to `target`'s first chunk,
    /// which must hold the same buffer (luma.gl's `transferBufferOwnership`).
    ///
    /// # Errors
    /// [`TableError::VectorDifferentBuffer`] when either vector has no chunk or the first chunks
    /// hold different buffers.
    pub fn transfer_ownership_to(&mut self, target: &mut GpuVector) -> Result<(), TableError> {
        let error = || TableError::VectorDifferentBuffer {
            from_vector: self.name.clone(),
            to_vector: target.name.clone(),
        };
        let (Some(source_chunk), Some(target_chunk)) =
            (self.chunks.first_mut(), target.chunks.first_mut())
        else {
            return Err(error());
        };
        if source_chunk.buffer() != target_chunk.buffer() {
            return Err(error());
        }
        source_chunk.transfer_ownership_to(target_chunk)?;
        Ok(())
    }

    /// Destroys every chunk: buffers the chunks own are freed now, shared ones are left alive.
    pub fn destroy(self) {
        for chunk in self.chunks {
            chunk.destroy();
        }
    }

    /// Builds a vector from parts the table code already checked.
    pub(crate) fn from_parts(
        name: String,
        template: &GpuData,
        chunks: Vec<GpuData>,
        buffer_layout: Option<BufferLayout>,
        readback_metadata: Option<ReadbackMetadata>,
    ) -> Result<GpuVector, TableError> {
        GpuVector::from_data_with(
            name,
            chunks,
            DataVectorOptions {
                format: template.format().cloned(),
                stride: Some(template.stride()),
                value_length: None,
                byte_stride: Some(template.byte_stride()),
                row_byte_length: Some(template.row_byte_length()),
                buffer_layout,
                readback_metadata,
            },
        )
    }

    /// Whether `data` has this vector's format and row numbers (the table's chunk check).
    pub(crate) fn matches_chunk(&self, data: &GpuData) -> bool {
        data.format() == self.format.as_ref()
            && data.stride() == self.stride
            && data.byte_stride() == self.byte_stride
            && data.row_byte_length() == self.row_byte_length
    }

    /// Moves the chunks out, leaving the vector's metadata.
    pub(crate) fn take_chunks(&mut self) -> Vec<GpuData> {
        std::mem::take(&mut self.chunks)
    }
}

impl fmt::Debug for GpuVector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuVector")
            .field("name", &self.name)
            .field("format", &self.format.as_ref().map(ToString::to_string))
            .field("length", &self.length)
            .field("value_length", &self.value_length)
            .field("stride", &self.stride)
            .field("byte_offset", &self.byte_offset)
            .field("byte_stride", &self.byte_stride)
            .field("row_byte_length", &self.row_byte_length)
            .field("buffer_layout", &self.buffer_layout)
            .field("chunks", &self.chunks.len())
            .field("owns_buffer", &self.owns_buffer())
            .field("appendable", &self.appendable.is_some())
            .finish()
    }
}

/// The sum of `values`, or `None` on overflow.
pub(crate) fn checked_sum(values: impl IntoIterator<Item = u64>) -> Option<u64> {
    values
        .into_iter()
        .try_fold(0u64, |acc, v| acc.checked_add(v))
}

/// Rows in `len` bytes: whole strides, or whole strides plus a last row without its trailing
/// padding. `None` when the bytes are not whole rows.
pub(crate) fn rows_in(len: u64, byte_stride: u64, row_byte_length: u64) -> Option<u64> {
    if len == 0 {
        return Some(0);
    }
    if byte_stride == 0 {
        return None;
    }
    if len.is_multiple_of(byte_stride) {
        return Some(len / byte_stride);
    }
    let rest = len.checked_sub(row_byte_length)?;
    rest.is_multiple_of(byte_stride)
        .then(|| rest / byte_stride + 1)
}

/// The state of an appendable vector.
#[derive(Clone)]
pub(super) struct Appendable {
    pub(super) gpu: Gpu,
    pub(super) usage: wgpu::BufferUsages,
    pub(super) appended_byte_length: u64,
    /// The one buffer of a [`Growth::Reallocate`](super::Growth::Reallocate) vector.
    pub(super) buffer: Option<GrowingBuffer>,
}

/// The capacity and write state of a [`Growth::Reallocate`](super::Growth::Reallocate) vector's buffer.
#[derive(Clone, Copy)]
pub(super) struct GrowingBuffer {
    pub(super) capacity_rows: u64,
    pub(super) growth_factor: f64,
    /// The bytes of the last partial 4-byte word written, and how many there are: a write that
    /// starts inside a word rewrites the word's earlier bytes from here.
    pub(super) tail: ([u8; 4], usize),
    pub(super) reallocations: u64,
}

#[cfg(test)]
mod tests {
    use super::rows_in;

    #[test]
    fn rows_in_whole_strides_or_a_short_last_row() {
        assert_eq!(rows_in(0, 8, 5), Some(0));
        assert_eq!(rows_in(16, 8, 5), Some(2));
        assert_eq!(rows_in(13, 8, 5), Some(2));
        assert_eq!(rows_in(12, 8, 5), None);
        assert_eq!(rows_in(3, 8, 5), None);
        assert_eq!(rows_in(4, 0, 0), None);
    }
}
