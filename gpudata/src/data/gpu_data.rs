//! [`GpuData`]: one buffer plus typed row metadata, with luma.gl's derivation chain and checks.

use std::any::Any;
use std::fmt;

use super::{BufferHandle, GpuDataView, ReadbackMetadata};
use crate::data::DataError;
use crate::device::{Gpu, GpuError};
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::layout::GpuDataStructFormat;
use crate::layout::strided_byte_length;

/// What the bytes of one row are: a vector format (a fixed vertex format or a list of one) or a
/// struct of named fixed-width fields (luma.gl's `GPUDataFormat`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GpuDataFormat {
    /// One value (or, for list formats, one element) per row.
    Vector(GpuVectorFormat),
    /// Several named fields per row.
    Struct(GpuDataStructFormat),
}

impl GpuDataFormat {
    /// Scalar components of one row or list element.
    #[must_use]
    pub fn components(&self) -> u32 {
        match self {
            GpuDataFormat::Vector(format) => format.element_format().components(),
            GpuDataFormat::Struct(format) => format.components(),
        }
    }

    /// Bytes of one row's payload (one element for list formats).
    #[must_use]
    pub fn row_byte_length(&self) -> u64 {
        match self {
            GpuDataFormat::Vector(format) => format.element_format().byte_length(),
            GpuDataFormat::Struct(format) => format.row_byte_length(),
        }
    }

    /// The struct format, if this is one.
    #[must_use]
    pub fn as_struct(&self) -> Option<&GpuDataStructFormat> {
        match self {
            GpuDataFormat::Struct(format) => Some(format),
            GpuDataFormat::Vector(_) => None,
        }
    }

    /// The vector format, if this is one.
    #[must_use]
    pub fn as_vector(&self) -> Option<GpuVectorFormat> {
        match self {
            GpuDataFormat::Vector(format) => Some(*format),
            GpuDataFormat::Struct(_) => None,
        }
    }
}

impl From<VertexFormat> for GpuDataFormat {
    fn from(format: VertexFormat) -> Self {
        GpuDataFormat::Vector(GpuVectorFormat::Fixed(format))
    }
}

impl From<GpuVectorFormat> for GpuDataFormat {
    fn from(format: GpuVectorFormat) -> Self {
        GpuDataFormat::Vector(format)
    }
}

impl From<GpuDataStructFormat> for GpuDataFormat {
    fn from(format: GpuDataStructFormat) -> Self {
        GpuDataFormat::Struct(format)
    }
}

/// A copy of a borrowed struct format, such as a derived struct's `T::FORMAT`.
impl From<&GpuDataStructFormat> for GpuDataFormat {
    fn from(format: &GpuDataStructFormat) -> Self {
        GpuDataFormat::Struct(format.clone())
    }
}

impl fmt::Display for GpuDataFormat {
    /// Vector formats print their luma.gl string; struct formats print
    /// `struct<packed>{tag: uint8, value: float32}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuDataFormat::Vector(format) => write!(f, "{format}"),
            GpuDataFormat::Struct(format) => {
                write!(f, "struct<{}>{{", format.layout())?;
                for (i, field) in format.fields().iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}: {}", field.name(), field.format())?;
                }
                f.write_str("}")
            }
        }
    }
}

/// Which of luma.gl's two rules derives the row numbers a [`GpuDataDescriptor`] leaves unset
/// (JavaScript `??`: only `None` falls through; an explicit `0` is kept). Both take
/// `value_length` = given, else `length`. They differ when a byte stride is given without a row
/// byte length: `float32x2` at byte stride 12 has 8-byte rows as data, 12-byte rows as a vector.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MetricsPolicy {
    /// luma.gl's `GPUData` rule, the default:
    ///
    /// - `stride` (scalar components per row) = given, else the format's components, else
    ///   `byte_stride`, else `row_byte_length`, else 1;
    /// - `row_byte_length` = given, else the struct's row byte length or the vector format's
    ///   (element) byte length, else `byte_stride`, else the derived `stride`;
    /// - `byte_stride` = given, else the struct's byte stride, else the derived `row_byte_length`.
    #[default]
    Data,
    /// luma.gl's `GPUVector` rule (its `buffer` and `appendable` modes):
    ///
    /// - `row_byte_length` = given, else `byte_stride`, else the format's (a struct's row byte
    ///   length, a vector format's element byte length), else the derived `stride`;
    /// - `stride` = given, else the format's components, else 1;
    /// - `byte_stride` = given, else the struct's byte stride (whose rows could not otherwise
    ///   hold their padding), else the derived `row_byte_length`.
    ///
    /// [`GpuVector::from_buffer`](crate::table::GpuVector::from_buffer) refuses a descriptor with
    /// this rule and neither format, byte stride nor row byte length.
    Vector,
}

/// What a [`GpuData`] or a vector's chunk is made from, before derivation (luma.gl's `GPUData`
/// props, and its `GPUVector` `buffer` props): the numbers left `None` are derived by
/// [`metrics`](Self::metrics), luma.gl's data rule unless the descriptor says otherwise (see
/// [`MetricsPolicy`]).
#[derive(Clone, Default)]
pub struct GpuDataDescriptor {
    /// The row format; `None` describes untyped bytes.
    pub format: Option<GpuDataFormat>,
    /// Logical rows.
    pub length: u64,
    /// Fixed rows or flattened list elements; defaults to `length`.
    pub value_length: Option<u64>,
    /// Scalar components per row or element.
    pub stride: Option<u64>,
    /// Byte offset of the first row in the buffer.
    pub byte_offset: u64,
    /// Bytes between adjacent rows or elements.
    pub byte_stride: Option<u64>,
    /// Bytes of one row's or element's payload.
    pub row_byte_length: Option<u64>,
    /// Producer-owned metadata for readback (the adapter's logical type of a vector, say).
    pub readback_metadata: Option<ReadbackMetadata>,
    /// The rule that derives the numbers left `None`.
    pub metrics: MetricsPolicy,
}

impl GpuDataDescriptor {
    /// `length` rows of `format`, every other number derived by luma.gl's data rule
    /// ([`MetricsPolicy::Data`]).
    #[must_use]
    pub fn new(format: impl Into<GpuDataFormat>, length: u64) -> GpuDataDescriptor {
        GpuDataDescriptor {
            format: Some(format.into()),
            length,
            ..GpuDataDescriptor::default()
        }
    }

    /// `length` rows of `format`, every other number derived by luma.gl's vector rule
    /// ([`MetricsPolicy::Vector`]).
    #[must_use]
    pub fn vector(format: impl Into<GpuDataFormat>, length: u64) -> GpuDataDescriptor {
        GpuDataDescriptor {
            metrics: MetricsPolicy::Vector,
            ..GpuDataDescriptor::new(format, length)
        }
    }

    /// The same descriptor with `value_length`.
    #[must_use]
    pub fn with_value_length(self, value_length: u64) -> GpuDataDescriptor {
        GpuDataDescriptor {
            value_length: Some(value_length),
            ..self
        }
    }

    /// The same descriptor with `byte_offset`.
    #[must_use]
    pub fn with_byte_offset(self, byte_offset: u64) -> GpuDataDescriptor {
        GpuDataDescriptor {
            byte_offset,
            ..self
        }
    }

    /// The same descriptor with `byte_stride`.
    #[must_use]
    pub fn with_byte_stride(self, byte_stride: u64) -> GpuDataDescriptor {
        GpuDataDescriptor {
            byte_stride: Some(byte_stride),
            ..self
        }
    }

    /// The same descriptor with `row_byte_length`.
    #[must_use]
    pub fn with_row_byte_length(self, row_byte_length: u64) -> GpuDataDescriptor {
        GpuDataDescriptor {
            row_byte_length: Some(row_byte_length),
            ..self
        }
    }

    /// Derives and checks the row numbers against a buffer of `buffer_size` bytes.
    ///
    /// # Errors
    /// luma.gl's checks for struct formats ([`DataError::RowByteLengthBelowStruct`],
    /// [`DataError::ByteStrideBelowStruct`]), then the Rust-side ones:
    /// [`DataError::RowByteLengthBelowFormat`] (a row shorter than one value of a vector
    /// format), [`DataError::ByteStrideBelowRow`] (overlapping rows),
    /// [`DataError::ValueLengthMismatch`] (fixed rows with another value length),
    /// [`DataError::RangeOverflow`] and [`DataError::OutOfBuffer`].
    pub fn resolve(&self, buffer_size: u64) -> Result<RowMetrics, DataError> {
        let (format_components, format_row, format_stride) = match &self.format {
            None => (None, None, None),
            Some(GpuDataFormat::Vector(v)) => (
                Some(u64::from(v.element_format().components())),
                Some(v.element_format().byte_length()),
                None,
            ),
            Some(GpuDataFormat::Struct(s)) => (
                Some(u64::from(s.components())),
                Some(s.row_byte_length()),
                Some(s.byte_stride()),
            ),
        };
        let value_length = self.value_length.unwrap_or(self.length);
        let (stride, row_byte_length) = match self.metrics {
            MetricsPolicy::Data => {
                let stride = self
                    .stride
                    .or(format_components)
                    .or(self.byte_stride)
                    .or(self.row_byte_length)
                    .unwrap_or(1);
                let row_byte_length = self
                    .row_byte_length
                    .or(format_row)
                    .or(self.byte_stride)
                    .unwrap_or(stride);
                (stride, row_byte_length)
            }
            MetricsPolicy::Vector => {
                let stride = self.stride.or(format_components).unwrap_or(1);
                let row_byte_length = self
                    .row_byte_length
                    .or(self.byte_stride)
                    .or(format_row)
                    .unwrap_or(stride);
                (stride, row_byte_length)
            }
        };
        let byte_stride = self
            .byte_stride
            .or(format_stride)
            .unwrap_or(row_byte_length);

        match &self.format {
            Some(GpuDataFormat::Struct(s)) => {
                if row_byte_length < s.row_byte_length() {
                    return Err(DataError::RowByteLengthBelowStruct {
                        row_byte_length,
                        struct_row_byte_length: s.row_byte_length(),
                    });
                }
                let required = s.byte_stride().max(row_byte_length);
                if byte_stride < required {
                    return Err(DataError::ByteStrideBelowStruct {
                        byte_stride,
                        required,
                    });
                }
            }
            Some(GpuDataFormat::Vector(v)) => {
                let element = v.element_format();
                if row_byte_length < element.byte_length() {
                    return Err(DataError::RowByteLengthBelowFormat {
                        row_byte_length,
                        format: element,
                        format_byte_length: element.byte_length(),
                    });
                }
            }
            None => {}
        }
        if byte_stride < row_byte_length {
            return Err(DataError::ByteStrideBelowRow {
                byte_stride,
                row_byte_length,
            });
        }
        let fixed_rows = match &self.format {
            Some(GpuDataFormat::Vector(v)) => !v.is_list(),
            Some(GpuDataFormat::Struct(_)) => true,
            None => false,
        };
        if fixed_rows && value_length != self.length {
            return Err(DataError::ValueLengthMismatch {
                format: self
                    .format
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                length: self.length,
                value_length,
            });
        }
        let metrics = RowMetrics {
            length: self.length,
            value_length,
            stride,
            byte_offset: self.byte_offset,
            byte_stride,
            row_byte_length,
        };
        let overflow = || DataError::RangeOverflow {
            what: "gpu data",
            byte_offset: self.byte_offset,
            count: value_length,
            byte_stride,
            value_byte_length: row_byte_length,
        };
        let byte_length = metrics.checked_byte_length().ok_or_else(overflow)?;
        let byte_end = self
            .byte_offset
            .checked_add(byte_length)
            .ok_or_else(overflow)?;
        if byte_end > buffer_size {
            return Err(DataError::OutOfBuffer {
                what: "gpu data",
                byte_offset: self.byte_offset,
                byte_end,
                buffer_size,
            });
        }
        Ok(metrics)
    }
}

impl fmt::Debug for GpuDataDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuDataDescriptor")
            .field("format", &self.format)
            .field("length", &self.length)
            .field("value_length", &self.value_length)
            .field("stride", &self.stride)
            .field("byte_offset", &self.byte_offset)
            .field("byte_stride", &self.byte_stride)
            .field("row_byte_length", &self.row_byte_length)
            .field("readback_metadata", &self.readback_metadata.is_some())
            .field("metrics", &self.metrics)
            .finish()
    }
}

/// The derived row numbers of a [`GpuData`], all checked: the bytes they describe lie inside
/// the buffer and every product and sum fits in a `u64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RowMetrics {
    /// Logical rows.
    pub length: u64,
    /// Fixed rows or flattened list elements.
    pub value_length: u64,
    /// Scalar components per row or element.
    pub stride: u64,
    /// Byte offset of the first row.
    pub byte_offset: u64,
    /// Bytes between adjacent rows or elements.
    pub byte_stride: u64,
    /// Bytes of one row's or element's payload.
    pub row_byte_length: u64,
}

impl RowMetrics {
    /// Bytes from the first row's start to the last row's payload end: 0 for no rows, else
    /// `(value_length - 1) * byte_stride + row_byte_length`; `None` on overflow.
    #[must_use]
    pub const fn checked_byte_length(&self) -> Option<u64> {
        strided_byte_length(self.value_length, self.byte_stride, self.row_byte_length)
    }
}

/// One GPU buffer plus typed row metadata: luma.gl's `GPUData`.
///
/// A `GpuData` owns its [`wgpu::Buffer`] or shares someone else's ([`BufferHandle`]); only an
/// owner's [`destroy`](Self::destroy) frees the memory. Its rows start at
/// [`byte_offset`](Self::byte_offset) and repeat every [`byte_stride`](Self::byte_stride) bytes;
/// [`new`](Self::new) checks that they lie inside the buffer. Struct-formatted data hands out
/// borrowed child views of single fields with [`get_child`](Self::get_child) and
/// [`get_child_at`](Self::get_child_at), which copy nothing and allocate nothing.
///
/// For rows of a `#[derive(GpuStruct)]` type use [`TypedGpuData`](super::TypedGpuData), whose
/// [`as_data`](super::TypedGpuData::as_data) and [`into_data`](super::TypedGpuData::into_data)
/// give this type.
pub struct GpuData {
    pub(super) buffer: BufferHandle,
    pub(super) format: Option<GpuDataFormat>,
    pub(super) metrics: RowMetrics,
    pub(super) readback_metadata: Option<ReadbackMetadata>,
    /// The device the buffer belongs to, when gpudata made it or the caller said so.
    pub(super) device: Option<Gpu>,
}

impl GpuData {
    /// Describes rows in `buffer`.
    ///
    /// The data does not know which device `buffer` belongs to (wgpu cannot say); say it with
    /// [`on_device`](Self::on_device), so that using the data with another device's `Gpu` is
    /// refused with [`GpuError::OtherDevice`] instead of reading an unrelated buffer.
    ///
    /// # Errors
    /// As [`GpuDataDescriptor::resolve`] against the buffer's size.
    pub fn new(buffer: BufferHandle, descriptor: GpuDataDescriptor) -> Result<GpuData, DataError> {
        let metrics = descriptor.resolve(buffer.buffer().size())?;
        Ok(GpuData {
            buffer,
            format: descriptor.format,
            metrics,
            readback_metadata: descriptor.readback_metadata,
            device: None,
        })
    }

    /// The same data, recorded as living on `gpu`'s device: every upload, readback, binding,
    /// operation and table build given another device's `Gpu` then returns
    /// [`GpuError::OtherDevice`]. Data made by gpudata (uploads, `zeroed`, operations, tables,
    /// Arrow) already knows its device; this is for data over a buffer you created.
    #[must_use]
    pub fn on_device(self, gpu: &Gpu) -> GpuData {
        GpuData {
            device: Some(gpu.clone()),
            ..self
        }
    }

    /// The `Gpu` the data was made on, when known (see [`on_device`](Self::on_device)).
    #[must_use]
    pub fn device(&self) -> Option<&Gpu> {
        self.device.as_ref()
    }

    /// The buffer, for work on `gpu` named `operation`: the one check every entry point makes
    /// before handing the buffer to wgpu ([`Gpu::check_same_device`]).
    pub(crate) fn buffer_on(
        &self,
        gpu: &Gpu,
        operation: &'static str,
    ) -> Result<&wgpu::Buffer, GpuError> {
        gpu.check_same_device(self.device.as_ref(), operation)?;
        Ok(self.buffer())
    }

    /// The buffer.
    #[must_use]
    pub fn buffer(&self) -> &wgpu::Buffer {
        self.buffer.buffer()
    }

    /// The row format, if any.
    #[must_use]
    pub fn format(&self) -> Option<&GpuDataFormat> {
        self.format.as_ref()
    }

    /// The struct format, for struct-formatted data.
    #[must_use]
    pub fn struct_format(&self) -> Option<&GpuDataStructFormat> {
        self.format.as_ref().and_then(GpuDataFormat::as_struct)
    }

    /// The derived row numbers.
    #[must_use]
    pub const fn metrics(&self) -> RowMetrics {
        self.metrics
    }

    /// Logical rows.
    #[must_use]
    pub const fn length(&self) -> u64 {
        self.metrics.length
    }

    /// Fixed rows or flattened list elements.
    #[must_use]
    pub const fn value_length(&self) -> u64 {
        self.metrics.value_length
    }

    /// Scalar components per row or element.
    #[must_use]
    pub const fn stride(&self) -> u64 {
        self.metrics.stride
    }

    /// Byte offset of the first row in the buffer.
    #[must_use]
    pub const fn byte_offset(&self) -> u64 {
        self.metrics.byte_offset
    }

    /// Bytes between adjacent rows or elements.
    #[must_use]
    pub const fn byte_stride(&self) -> u64 {
        self.metrics.byte_stride
    }

    /// Bytes of one row's or element's payload.
    #[must_use]
    pub const fn row_byte_length(&self) -> u64 {
        self.metrics.row_byte_length
    }

    /// Bytes from the first row's start to the last row's payload end (checked at construction).
    #[must_use]
    pub const fn byte_length(&self) -> u64 {
        match self.metrics.checked_byte_length() {
            Some(length) => length,
            None => 0,
        }
    }

    /// The producer-owned readback metadata.
    #[must_use]
    pub fn readback_metadata(&self) -> Option<&ReadbackMetadata> {
        self.readback_metadata.as_ref()
    }

    /// The readback metadata, if it is an `M`.
    #[must_use]
    pub fn readback_metadata_as<M: Any>(&self) -> Option<&M> {
        self.readback_metadata.as_ref()?.downcast_ref()
    }

    /// Replaces the readback metadata.
    pub fn set_readback_metadata(&mut self, metadata: Option<ReadbackMetadata>) {
        self.readback_metadata = metadata;
    }

    /// A borrowed view of field `name` of struct-formatted data: the field's format, the parent's
    /// length and byte stride, at the parent's byte offset plus the field's. `None` for an
    /// unknown field or data without a struct format.
    #[must_use]
    pub fn get_child(&self, name: &str) -> Option<GpuDataView<'_>> {
        let (index, _) = self.struct_format()?.field(name)?;
        self.get_child_at(index)
    }

    /// A borrowed view of the field at `index` in declaration order; `None` when out of range or
    /// the data has no struct format.
    #[must_use]
    pub fn get_child_at(&self, index: usize) -> Option<GpuDataView<'_>> {
        let field = self.struct_format()?.fields().get(index)?;
        Some(self.child_view(field.format(), field.byte_offset()))
    }

    /// The child view of a field known to be in the struct: its bytes lie inside the data's rows,
    /// which were checked against the buffer at construction.
    pub(super) fn child_view(&self, format: VertexFormat, field_offset: u64) -> GpuDataView<'_> {
        GpuDataView::trusted(
            self.buffer(),
            format,
            self.metrics.length,
            self.metrics.byte_offset + field_offset,
            self.metrics.byte_stride,
        )
        .with_device(self.device.as_ref())
    }

    /// A view of the whole rows as one fixed vertex format, for data of a fixed vector format.
    #[must_use]
    pub fn as_view(&self) -> Option<GpuDataView<'_>> {
        match self.format.as_ref()? {
            GpuDataFormat::Vector(GpuVectorFormat::Fixed(format)) => {
                Some(self.child_view(*format, 0))
            }
            _ => None,
        }
    }
}

impl fmt::Debug for GpuData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuData")
            .field("buffer_size", &self.buffer().size())
            .field("owns_buffer", &self.owns_buffer())
            .field("format", &self.format.as_ref().map(ToString::to_string))
            .field("metrics", &self.metrics)
            .field("readback_metadata", &self.readback_metadata.is_some())
            .finish()
    }
}
