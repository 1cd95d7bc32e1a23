//! [`GpuVector`]: one logical column over [`GpuData`] chunks (luma.gl's `GPUVector`).

use std::fmt;

use crate::data::{BufferHandle, GpuData, GpuDataDescriptor, GpuDataFormat, ReadbackMetadata};
use crate::device::Gpu;
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::layout::{BufferAttribute, BufferLayout, StepMode};
use crate::record::GpuStruct;
use crate::table::TableError;

/// Text for a format in error messages.
pub(crate) fn format_text(format: Option<&GpuDataFormat>) -> String {
    format.map_or_else(|| "no format".to_owned(), ToString::to_string)
}

/// How a [`GpuVector`] in `buffer` mode describes its one chunk: luma.gl's `buffer` constructor
/// props.
///
/// Unset numbers are resolved as luma.gl's vector resolver does (which differs from
/// [`GpuDataDescriptor`]): `row_byte_length` = given, else `byte_stride`, else the format's byte
/// length (a struct's row byte length); `stride` = given, else the format's components, else 1;
/// `byte_stride` = given, else `row_byte_length` (a struct's byte stride for struct formats,
/// whose rows could not otherwise hold their padding).
#[derive(Clone, Default)]
pub struct VectorDescriptor {
    /// The row format.
    pub format: Option<GpuDataFormat>,
    /// Logical rows.
    pub length: u64,
    /// Fixed rows or flattened list elements; defaults to `length`.
    pub value_length: Option<u64>,
    /// Scalar components per row or element.
    pub stride: Option<u64>,
    /// Byte offset of the first row.
    pub byte_offset: u64,
    /// Bytes between rows.
    pub byte_stride: Option<u64>,
    /// Bytes of one row's payload.
    pub row_byte_length: Option<u64>,
    /// The adapter's logical type (an Arrow `DataType`, say), kept untouched.
    pub data_type: Option<ReadbackMetadata>,
}

impl VectorDescriptor {
    /// `length` rows of `format`, everything else resolved.
    #[must_use]
    pub fn new(format: impl Into<GpuDataFormat>, length: u64) -> VectorDescriptor {
        VectorDescriptor {
            format: Some(format.into()),
            length,
            ..VectorDescriptor::default()
        }
    }

    /// The same descriptor with `byte_stride`.
    #[must_use]
    pub fn with_byte_stride(self, byte_stride: u64) -> VectorDescriptor {
        VectorDescriptor {
            byte_stride: Some(byte_stride),
            ..self
        }
    }

    /// The same descriptor with `byte_offset`.
    #[must_use]
    pub fn with_byte_offset(self, byte_offset: u64) -> VectorDescriptor {
        VectorDescriptor {
            byte_offset,
            ..self
        }
    }

    /// The same descriptor with `value_length`.
    #[must_use]
    pub fn with_value_length(self, value_length: u64) -> VectorDescriptor {
        VectorDescriptor {
            value_length: Some(value_length),
            ..self
        }
    }
}

impl fmt::Debug for VectorDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VectorDescriptor")
            .field("format", &self.format.as_ref().map(ToString::to_string))
            .field("length", &self.length)
            .field("value_length", &self.value_length)
            .field("stride", &self.stride)
            .field("byte_offset", &self.byte_offset)
            .field("byte_stride", &self.byte_stride)
            .field("row_byte_length", &self.row_byte_length)
            .field("data_type", &self.data_type.is_some())
            .finish()
    }
}

/// The resolved row numbers of a vector: `(stride, byte_stride, row_byte_length)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ByteLayout {
    stride: u64,
    byte_stride: u64,
    row_byte_length: u64,
}

/// luma.gl's shared resolver of the `buffer` and `appendable` modes.
fn resolve_byte_layout(
    name: &str,
    format: Option<&GpuDataFormat>,
    stride: Option<u64>,
    byte_stride: Option<u64>,
    row_byte_length: Option<u64>,
) -> Result<ByteLayout, TableError> {
    let row_byte_length = row_byte_length
        .or(byte_stride)
        .or_else(|| format.map(GpuDataFormat::row_byte_length))
        .ok_or_else(|| TableError::VectorRequiresRowByteLength {
            vector: name.to_owned(),
        })?;
    let stride = stride
        .or_else(|| format.map(|f| u64::from(f.components())))
        .unwrap_or(1);
    let struct_stride = format
        .and_then(GpuDataFormat::as_struct)
        .map(|s| s.byte_stride());
    let byte_stride = byte_stride.or(struct_stride).unwrap_or(row_byte_length);
    Ok(ByteLayout {
        stride,
        byte_stride,
        row_byte_length,
    })
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
    /// The adapter's logical type, kept untouched.
    pub data_type: Option<ReadbackMetadata>,
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
            .field("data_type", &self.data_type.is_some())
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

/// Options of [`GpuVector::appendable`].
#[derive(Clone, Debug)]
pub struct AppendableOptions {
    /// Scalar components per row.
    pub stride: Option<u64>,
    /// Bytes between rows.
    pub byte_stride: Option<u64>,
    /// Bytes of one row's payload.
    pub row_byte_length: Option<u64>,
    /// Usage of the chunks [`GpuVector::append_bytes`] and [`GpuVector::append_rows`] create.
    pub usage: wgpu::BufferUsages,
}

impl Default for AppendableOptions {
    fn default() -> Self {
        AppendableOptions {
            stride: None,
            byte_stride: None,
            row_byte_length: None,
            usage: crate::data::DEFAULT_USAGE,
        }
    }
}

/// The state of an appendable vector.
#[derive(Clone)]
struct Appendable {
    gpu: Gpu,
    usage: wgpu::BufferUsages,
    appended_byte_length: u64,
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
/// | `appendable` | [`appendable`](Self::appendable) |
pub struct GpuVector {
    name: String,
    format: Option<GpuDataFormat>,
    length: u64,
    value_length: u64,
    stride: u64,
    byte_offset: u64,
    byte_stride: u64,
    row_byte_length: u64,
    buffer_layout: Option<BufferLayout>,
    data_type: Option<ReadbackMetadata>,
    chunks: Vec<GpuData>,
    appendable: Option<Appendable>,
}

impl GpuVector {
    /// A vector of one chunk over `buffer` (luma.gl's `buffer` mode). The chunk owns the buffer
    /// exactly when `buffer` is [`BufferHandle::Owned`].
    ///
    /// # Errors
    /// [`TableError::VectorRequiresRowByteLength`] without a format, byte stride or row byte
    /// length; [`TableError::Data`] when the rows do not fit the buffer (see [`GpuData::new`]).
    pub fn from_buffer(
        name: impl Into<String>,
        buffer: BufferHandle,
        descriptor: VectorDescriptor,
    ) -> Result<GpuVector, TableError> {
        let name = name.into();
        let layout = resolve_byte_layout(
            &name,
            descriptor.format.as_ref(),
            descriptor.stride,
            descriptor.byte_stride,
            descriptor.row_byte_length,
        )?;
        let value_length = descriptor.value_length.unwrap_or(descriptor.length);
        let chunk = GpuData::new(
            buffer,
            GpuDataDescriptor {
                format: descriptor.format.clone(),
                length: descriptor.length,
                value_length: Some(value_length),
                stride: Some(layout.stride),
                byte_offset: descriptor.byte_offset,
                byte_stride: Some(layout.byte_stride),
                row_byte_length: Some(layout.row_byte_length),
                readback_metadata: None,
            },
        )?;
        Ok(GpuVector {
            name,
            format: descriptor.format,
            length: descriptor.length,
            value_length,
            stride: layout.stride,
            byte_offset: descriptor.byte_offset,
            byte_stride: layout.byte_stride,
            row_byte_length: layout.row_byte_length,
            buffer_layout: None,
            data_type: descriptor.data_type,
            chunks: vec![chunk],
            appendable: None,
        })
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
            data_type: None,
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

    /// An interleaved vector of `rows`, uploaded into a new owned buffer: the rows of a
    /// `#[derive(GpuStruct)]` type become one column whose layout feeds one attribute per field.
    ///
    /// # Errors
    /// [`TableError::Gpu`] when the upload fails.
    pub fn from_rows<T: GpuStruct>(
        gpu: &Gpu,
        name: impl Into<String>,
        rows: &[T],
        step_mode: Option<StepMode>,
    ) -> Result<GpuVector, TableError> {
        let data = crate::TypedGpuData::from_rows(gpu, rows, crate::data::DEFAULT_USAGE)?;
        GpuVector::from_struct_data(name, data.into_data(), step_mode)
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
            data_type: options.data_type,
            chunks,
            appendable: None,
        })
    }

    /// An empty vector that grows by chunks (luma.gl's `appendable` mode): chunks come from
    /// [`append_chunk`](Self::append_chunk), or are uploaded on `gpu` by
    /// [`append_bytes`](Self::append_bytes) and [`append_rows`](Self::append_rows), and
    /// [`reset_appended`](Self::reset_appended) drops them all. For a single buffer that
    /// reallocates as rows are appended, see [`GpuDynamicVector`](crate::table::GpuDynamicVector).
    ///
    /// # Errors
    /// None today; the signature leaves room for the resolver's checks.
    pub fn appendable(
        name: impl Into<String>,
        gpu: &Gpu,
        format: impl Into<GpuDataFormat>,
        options: AppendableOptions,
    ) -> Result<GpuVector, TableError> {
        let name = name.into();
        let format = format.into();
        let layout = resolve_byte_layout(
            &name,
            Some(&format),
            options.stride,
            options.byte_stride,
            options.row_byte_length,
        )?;
        Ok(GpuVector {
            name,
            format: Some(format),
            length: 0,
            value_length: 0,
            stride: layout.stride,
            byte_offset: 0,
            byte_stride: layout.byte_stride,
            row_byte_length: layout.row_byte_length,
            buffer_layout: None,
            data_type: None,
            chunks: Vec::new(),
            appendable: Some(Appendable {
                gpu: gpu.clone(),
                usage: options.usage,
                appended_byte_length: 0,
            }),
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

    /// The adapter's logical type (an Arrow `DataType`, say), if one was stored.
    #[must_use]
    pub fn data_type(&self) -> Option<&ReadbackMetadata> {
        self.data_type.as_ref()
    }

    /// The adapter's logical type, if it is an `M`.
    #[must_use]
    pub fn data_type_as<M: std::any::Any>(&self) -> Option<&M> {
        self.data_type.as_deref()?.downcast_ref()
    }

    /// Stores the adapter's logical type.
    pub fn set_data_type(&mut self, data_type: Option<ReadbackMetadata>) {
        self.data_type = data_type;
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

    /// Whether the vector grows by [`append_chunk`](Self::append_chunk).
    #[must_use]
    pub const fn is_appendable(&self) -> bool {
        self.appendable.is_some()
    }

    /// Rows held, for appendable vectors (luma.gl's `capacityRows`); `None` otherwise.
    #[must_use]
    pub fn capacity_rows(&self) -> Option<u64> {
        self.appendable.as_ref().map(|_| self.length)
    }

    /// Bytes appended so far, for appendable vectors; `None` otherwise.
    #[must_use]
    pub fn appended_byte_length(&self) -> Option<u64> {
        self.appendable.as_ref().map(|a| a.appended_byte_length)
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
            data_type: self.data_type.clone(),
            chunks: self.chunks.iter().map(GpuData::share).collect(),
            appendable: None,
        }
    }

    /// Checks that `data` can join this vector; `what` names the operation in errors.
    fn check_chunk(
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

    fn push_chunk(&mut self, data: GpuData) -> Result<(), TableError> {
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
    /// [`TableError::ChunkMismatch`] when the vector has a format and the chunk another one, or
    /// when the byte stride or row byte length differ; [`TableError::Overflow`].
    pub fn add_data(&mut self, data: GpuData) -> Result<(), TableError> {
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

    /// Appends a chunk to an appendable vector (luma.gl's `appendDataChunk`); the appended byte
    /// length grows by the chunk's buffer size.
    ///
    /// # Errors
    /// [`TableError::NotAppendable`] for other vectors; [`TableError::ChunkMismatch`] for
    /// another format or byte layout; [`TableError::Overflow`].
    pub fn append_chunk(&mut self, data: GpuData) -> Result<(), TableError> {
        let size = data.buffer().size();
        let current = self.appended_state("append_chunk")?.appended_byte_length;
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
        self.check_chunk(&data, "append_chunk", true)?;
        self.push_chunk(data)?;
        if let Some(state) = &mut self.appendable {
            state.appended_byte_length = appended_byte_length;
        }
        Ok(())
    }

    fn appended_state(&self, operation: &'static str) -> Result<&Appendable, TableError> {
        self.appendable
            .as_ref()
            .ok_or_else(|| TableError::NotAppendable {
                vector: self.name.clone(),
                operation,
            })
    }

    /// Uploads `bytes` (whole rows at the vector's byte stride; the last row may omit its
    /// trailing padding) as a new chunk of an appendable vector.
    ///
    /// # Errors
    /// [`TableError::NotAppendable`]; [`TableError::ListAppend`] for list formats, whose element
    /// counts bytes cannot tell; [`TableError::PartialRows`] when the bytes are not whole rows;
    /// [`TableError::Gpu`] when the upload fails.
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
        let descriptor = GpuDataDescriptor {
            format: self.format.clone(),
            length: rows,
            value_length: None,
            stride: Some(self.stride),
            byte_offset: 0,
            byte_stride: Some(self.byte_stride),
            row_byte_length: Some(self.row_byte_length),
            readback_metadata: None,
        };
        let data = GpuData::from_bytes(&state.gpu, bytes, descriptor, state.usage)?;
        self.append_chunk(data)
    }

    /// Uploads `rows` of a `#[derive(GpuStruct)]` type as a new chunk of an appendable vector
    /// whose format is `T::FORMAT`.
    ///
    /// # Errors
    /// [`TableError::NotAppendable`]; [`TableError::ChunkMismatch`] when the vector has another
    /// format; [`TableError::Gpu`] when the upload fails.
    pub fn append_rows<T: GpuStruct>(&mut self, rows: &[T]) -> Result<(), TableError> {
        let state = self.appended_state("append_rows")?.clone();
        let data = crate::TypedGpuData::from_rows(&state.gpu, rows, state.usage)?;
        self.append_chunk(data.into_data())
    }

    /// Drops every appended chunk, destroying the buffers they own, and sets the length, value
    /// length and appended byte length to 0 (luma.gl's `resetLastBatch`).
    ///
    /// # Errors
    /// [`TableError::NotAppendable`] for other vectors.
    pub fn reset_appended(&mut self) -> Result<(), TableError> {
        self.appended_state("reset_appended")?;
        for chunk in self.chunks.drain(..) {
            chunk.destroy();
        }
        self.length = 0;
        self.value_length = 0;
        self.byte_offset = 0;
        if let Some(state) = &mut self.appendable {
            state.appended_byte_length = 0;
        }
        Ok(())
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
        data_type: Option<ReadbackMetadata>,
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
                data_type,
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
