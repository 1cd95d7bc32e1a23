//! [`GpuDataView`]: a borrowed, strided view of one fixed-width format over a buffer.

use crate::data::DataError;
use crate::device::{Gpu, GpuError};
use crate::format::VertexFormat;
use crate::layout::{BufferLayout, strided_byte_length};

/// One fixed-width [`VertexFormat`], `length` values, starting at `byte_offset` and repeating
/// every `byte_stride` bytes, over a borrowed buffer: luma.gl's `GPUDataView`.
///
/// A view borrows its buffer (usually through the [`GpuData`](super::GpuData) it came from), so
/// it cannot outlive it, and it owns nothing: making one allocates nothing and copies nothing.
/// Every view's bytes lie inside its buffer.
#[derive(Clone, Copy, Debug)]
pub struct GpuDataView<'a> {
    buffer: &'a wgpu::Buffer,
    format: VertexFormat,
    length: u64,
    byte_offset: u64,
    byte_stride: u64,
    device: Option<&'a Gpu>,
}

impl<'a> GpuDataView<'a> {
    /// A view of `length` values of `format` in `buffer`, the first at `byte_offset`, the others
    /// every `byte_stride` bytes (default: the format's byte length, i.e. packed).
    ///
    /// # Errors
    /// In luma.gl's order: [`DataError::ViewByteStrideBelowFormat`] (so a stride of 0 is
    /// refused), [`DataError::RangeOverflow`], [`DataError::OutOfBuffer`] (an empty view exactly
    /// at the end of the buffer is valid).
    pub fn new(
        buffer: &'a wgpu::Buffer,
        format: VertexFormat,
        length: u64,
        byte_offset: u64,
        byte_stride: Option<u64>,
    ) -> Result<GpuDataView<'a>, DataError> {
        let byte_stride = byte_stride.unwrap_or(format.byte_length());
        check_view(buffer.size(), format, length, byte_offset, byte_stride)?;
        Ok(GpuDataView::trusted(
            buffer,
            format,
            length,
            byte_offset,
            byte_stride,
        ))
    }

    /// A view of attribute `attribute` of an interleaved `layout` over `buffer`, whose rows start
    /// at `byte_offset`: the attribute's format, at `byte_offset` plus the attribute's offset,
    /// every `layout.byte_stride` bytes (luma.gl's `makeGPUDataViewFromAttribute`). A
    /// single-format layout has one attribute named after the layout.
    ///
    /// # Errors
    /// [`DataError::MissingAttribute`], [`DataError::LayoutWithoutByteStride`], then as
    /// [`new`](Self::new); an attribute offset that overflows is a [`DataError::RangeOverflow`].
    pub fn from_attribute(
        buffer: &'a wgpu::Buffer,
        layout: &BufferLayout,
        attribute: &str,
        length: u64,
        byte_offset: u64,
    ) -> Result<GpuDataView<'a>, DataError> {
        let (format, attribute_offset) = match layout.attribute(attribute) {
            Some(a) => (a.format, a.byte_offset),
            None => match layout.format {
                Some(format) if layout.attributes.is_empty() && layout.name == attribute => {
                    (format, 0)
                }
                _ => {
                    return Err(DataError::MissingAttribute {
                        layout: layout.name.clone(),
                        attribute: attribute.to_owned(),
                    });
                }
            },
        };
        let byte_stride = layout
            .byte_stride
            .ok_or_else(|| DataError::LayoutWithoutByteStride {
                layout: layout.name.clone(),
            })?;
        let offset = byte_offset
            .checked_add(attribute_offset)
            .ok_or(DataError::RangeOverflow {
                what: "gpu data view",
                byte_offset,
                count: length,
                byte_stride,
                value_byte_length: format.byte_length(),
            })?;
        GpuDataView::new(buffer, format, length, offset, Some(byte_stride))
    }

    /// A view whose numbers the caller has already checked against the buffer.
    pub(super) const fn trusted(
        buffer: &'a wgpu::Buffer,
        format: VertexFormat,
        length: u64,
        byte_offset: u64,
        byte_stride: u64,
    ) -> GpuDataView<'a> {
        GpuDataView {
            buffer,
            format,
            length,
            byte_offset,
            byte_stride,
            device: None,
        }
    }

    /// The view with `device` as its buffer's device (its data's).
    pub(super) const fn with_device(self, device: Option<&'a Gpu>) -> GpuDataView<'a> {
        GpuDataView { device, ..self }
    }

    /// The same view, recorded as over a buffer of `gpu`'s device (see
    /// [`GpuData::on_device`](super::GpuData::on_device)); views of a [`GpuData`](super::GpuData)
    /// know their data's device already.
    #[must_use]
    pub const fn on_device(self, gpu: &'a Gpu) -> GpuDataView<'a> {
        self.with_device(Some(gpu))
    }

    /// The `Gpu` of the view's buffer, when known.
    #[must_use]
    pub const fn device(&self) -> Option<&'a Gpu> {
        self.device
    }

    /// The buffer, for work on `gpu` named `operation`, after the device check every entry
    /// point makes ([`Gpu::check_same_device`]).
    pub(crate) fn buffer_on(
        &self,
        gpu: &Gpu,
        operation: &'static str,
    ) -> Result<&'a wgpu::Buffer, GpuError> {
        gpu.check_same_device(self.device, operation)?;
        Ok(self.buffer)
    }

    /// The buffer.
    #[must_use]
    pub const fn buffer(&self) -> &'a wgpu::Buffer {
        self.buffer
    }

    /// The format of each value.
    #[must_use]
    pub const fn format(&self) -> VertexFormat {
        self.format
    }

    /// Values in the view.
    #[must_use]
    pub const fn length(&self) -> u64 {
        self.length
    }

    /// Byte offset of the first value in the buffer.
    #[must_use]
    pub const fn byte_offset(&self) -> u64 {
        self.byte_offset
    }

    /// Bytes between adjacent values.
    #[must_use]
    pub const fn byte_stride(&self) -> u64 {
        self.byte_stride
    }

    /// Bytes of one value (luma.gl's `elementByteLength`).
    #[must_use]
    pub const fn element_byte_length(&self) -> u64 {
        self.format.byte_length()
    }

    /// Bytes the view spans: 0 when empty, else `(length - 1) * byte_stride + element byte
    /// length` (checked at construction).
    #[must_use]
    pub const fn byte_length(&self) -> u64 {
        match strided_byte_length(self.length, self.byte_stride, self.format.byte_length()) {
            Some(length) => length,
            None => 0,
        }
    }

    /// The same values restricted to `rows` values starting at value `first`; `None` when that
    /// range leaves the view.
    #[must_use]
    pub fn slice(&self, first: u64, rows: u64) -> Option<GpuDataView<'a>> {
        let end = first.checked_add(rows)?;
        if end > self.length {
            return None;
        }
        // first < length here unless rows == 0, and first * stride lies inside the view.
        let byte_offset = if rows == 0 {
            self.byte_offset
        } else {
            self.byte_offset + first * self.byte_stride
        };
        Some(
            GpuDataView::trusted(
                self.buffer,
                self.format,
                rows,
                byte_offset,
                self.byte_stride,
            )
            .with_device(self.device),
        )
    }
}

/// luma.gl's view validation, in its order, against a buffer of `buffer_size` bytes.
pub(super) fn check_view(
    buffer_size: u64,
    format: VertexFormat,
    length: u64,
    byte_offset: u64,
    byte_stride: u64,
) -> Result<(), DataError> {
    let element = format.byte_length();
    if byte_stride < element {
        return Err(DataError::ViewByteStrideBelowFormat {
            byte_stride,
            format,
            format_byte_length: element,
        });
    }
    let overflow = DataError::RangeOverflow {
        what: "gpu data view",
        byte_offset,
        count: length,
        byte_stride,
        value_byte_length: element,
    };
    let byte_length = strided_byte_length(length, byte_stride, element).ok_or(overflow.clone())?;
    let byte_end = byte_offset.checked_add(byte_length).ok_or(overflow)?;
    if byte_end > buffer_size {
        return Err(DataError::OutOfBuffer {
            what: "gpu data view",
            byte_offset,
            byte_end,
            buffer_size,
        });
    }
    Ok(())
}
