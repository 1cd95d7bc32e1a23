//! The segmented layout: where each column of a segmented table lies in its one allocation
//! ([`SegmentedLayout`], [`Segment`], [`SegmentSpec`], [`SegmentStride`]).
//!
//! luma.gl describes this layout but leaves it as future work ("future table layout can map names
//! to segments"); this module is gpudata's design of it.

use crate::data::{GpuDataDescriptor, ReadbackMetadata};
use crate::device::Gpu;
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::table::TableError;
use std::fmt;
use std::fmt::Write as _;

/// The byte stride a conversion gives packed columns and segments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SegmentStride {
    /// Values back to back (`unorm8x2` every 2 bytes): the columnar layout storage shaders
    /// read.
    #[default]
    Packed,
    /// Values every multiple of 4 bytes (`unorm8x2` every 4), so each column also binds as a
    /// vertex buffer.
    Vertex,
}

impl SegmentStride {
    /// The stride of values of `format`.
    #[must_use]
    pub const fn byte_stride(self, format: VertexFormat) -> u64 {
        let length = format.byte_length();
        match self {
            SegmentStride::Packed => length,
            SegmentStride::Vertex => length.div_ceil(4) * 4,
        }
    }
}

/// One column to place in a [`SegmentedLayout`].
#[derive(Clone)]
pub struct SegmentSpec {
    /// The column name.
    pub name: String,
    /// Its format (`vertex-list<F>` segments hold the flattened elements).
    pub format: GpuVectorFormat,
    /// Logical rows.
    pub length: u64,
    /// Values held (list elements); defaults to `length`.
    pub value_length: Option<u64>,
    /// Bytes between values; defaults to the element's byte length (packed).
    pub byte_stride: Option<u64>,
    /// The adapter's logical type (an Arrow `DataType`, say), kept untouched.
    pub data_type: Option<ReadbackMetadata>,
    /// What the segment's [`GpuData`](crate::GpuData) carries as
    /// [readback metadata](crate::GpuData::readback_metadata) (the Arrow adapter's `ArrowReadback`,
    /// say), kept untouched.
    pub readback_metadata: Option<ReadbackMetadata>,
}

impl SegmentSpec {
    /// `length` packed rows of `format`.
    #[must_use]
    pub fn new(name: impl Into<String>, format: impl Into<GpuVectorFormat>, length: u64) -> Self {
        SegmentSpec {
            name: name.into(),
            format: format.into(),
            length,
            value_length: None,
            byte_stride: None,
            data_type: None,
            readback_metadata: None,
        }
    }
}

impl fmt::Debug for SegmentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SegmentSpec")
            .field("name", &self.name)
            .field("format", &self.format.to_string())
            .field("length", &self.length)
            .field("value_length", &self.value_length)
            .field("byte_stride", &self.byte_stride)
            .field("data_type", &self.data_type.is_some())
            .field("readback_metadata", &self.readback_metadata.is_some())
            .finish()
    }
}

/// Where one column lies in a segmented allocation: its byte offset (a multiple of the layout's
/// alignment), rows, values, stride, format and reserved bytes.
#[derive(Clone)]
pub struct Segment {
    name: String,
    format: GpuVectorFormat,
    byte_offset: u64,
    length: u64,
    value_length: u64,
    byte_stride: u64,
    reserved: u64,
    data_type: Option<ReadbackMetadata>,
    readback_metadata: Option<ReadbackMetadata>,
}

impl Segment {
    /// The column name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The format.
    #[must_use]
    pub const fn format(&self) -> GpuVectorFormat {
        self.format
    }

    /// The first byte, a multiple of the layout's alignment.
    #[must_use]
    pub const fn byte_offset(&self) -> u64 {
        self.byte_offset
    }

    /// Logical rows.
    #[must_use]
    pub const fn length(&self) -> u64 {
        self.length
    }

    /// Values held (list elements, else rows).
    #[must_use]
    pub const fn value_length(&self) -> u64 {
        self.value_length
    }

    /// Bytes between values.
    #[must_use]
    pub const fn byte_stride(&self) -> u64 {
        self.byte_stride
    }

    /// Bytes of one value.
    #[must_use]
    pub const fn row_byte_length(&self) -> u64 {
        self.format.element_format().byte_length()
    }

    /// Bytes reserved: `value_length × byte_stride` rounded up to 4, so the segment binds as a
    /// storage range of whole words.
    #[must_use]
    pub const fn reserved_byte_length(&self) -> u64 {
        self.reserved
    }

    /// The adapter's logical type, when known.
    #[must_use]
    pub fn data_type(&self) -> Option<&ReadbackMetadata> {
        self.data_type.as_ref()
    }

    /// The readback metadata the segment's [`GpuData`](crate::GpuData) carries, when given.
    #[must_use]
    pub fn readback_metadata(&self) -> Option<&ReadbackMetadata> {
        self.readback_metadata.as_ref()
    }

    pub(super) fn descriptor(&self) -> GpuDataDescriptor {
        GpuDataDescriptor {
            format: Some(self.format.into()),
            length: self.length,
            value_length: Some(self.value_length),
            stride: None,
            byte_offset: self.byte_offset,
            byte_stride: Some(self.byte_stride),
            row_byte_length: None,
            readback_metadata: self.readback_metadata.clone(),
            metrics: crate::data::MetricsPolicy::Data,
        }
    }
}

impl fmt::Debug for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Segment")
            .field("name", &self.name)
            .field("format", &self.format.to_string())
            .field("byte_offset", &self.byte_offset)
            .field("length", &self.length)
            .field("value_length", &self.value_length)
            .field("byte_stride", &self.byte_stride)
            .field("reserved", &self.reserved)
            .field("data_type", &self.data_type.is_some())
            .field("readback_metadata", &self.readback_metadata.is_some())
            .finish()
    }
}

/// The placement of columns as contiguous segments of one buffer: each segment starts at a
/// multiple of [`alignment`](Self::alignment), so it binds directly as a storage range (and,
/// being 4-byte aligned, as a vertex buffer when its stride is a multiple of 4).
#[derive(Clone, Debug)]
pub struct SegmentedLayout {
    segments: Vec<Segment>,
    byte_length: u64,
    alignment: u64,
}

impl SegmentedLayout {
    /// The alignment segments of `gpu` need: the device's
    /// `min_storage_buffer_offset_alignment`, at least 4.
    #[must_use]
    pub fn device_alignment(gpu: &Gpu) -> u64 {
        u64::from(gpu.limits().min_storage_buffer_offset_alignment).max(4)
    }

    /// Places `specs` in order, each at the next multiple of `alignment`.
    ///
    /// # Errors
    /// [`TableError::SegmentAlignment`] unless `alignment` is a power of two of at least 4;
    /// [`TableError::DuplicateColumn`]; [`TableError::SegmentStride`] for a stride shorter than
    /// one value; [`TableError::Data`] for a list length that does not fit its format (fixed
    /// formats hold one value per row); [`TableError::Overflow`].
    pub fn new(
        alignment: u64,
        specs: impl IntoIterator<Item = SegmentSpec>,
    ) -> Result<SegmentedLayout, TableError> {
        if alignment < 4 || !alignment.is_power_of_two() {
            return Err(TableError::SegmentAlignment { alignment });
        }
        let mut segments: Vec<Segment> = Vec::new();
        let mut end = 0u64;
        for spec in specs {
            if segments.iter().any(|s| s.name == spec.name) {
                return Err(TableError::DuplicateColumn { column: spec.name });
            }
            let element = spec.format.element_format().byte_length();
            let byte_stride = spec.byte_stride.unwrap_or(element);
            if byte_stride < element {
                return Err(TableError::SegmentStride {
                    column: spec.name,
                    byte_stride,
                    format: spec.format.element_format(),
                });
            }
            let value_length = spec.value_length.unwrap_or(spec.length);
            if !spec.format.is_list() && value_length != spec.length {
                return Err(crate::data::DataError::ValueLengthMismatch {
                    format: spec.format.to_string(),
                    length: spec.length,
                    value_length,
                }
                .into());
            }
            let overflow = || TableError::Overflow {
                what: format!("the segment of column `{}`", spec.name),
            };
            let byte_offset = end
                .checked_next_multiple_of(alignment)
                .ok_or_else(overflow)?;
            let reserved = value_length
                .checked_mul(byte_stride)
                .and_then(|b| b.checked_next_multiple_of(4))
                .ok_or_else(overflow)?;
            end = byte_offset.checked_add(reserved).ok_or_else(overflow)?;
            segments.push(Segment {
                name: spec.name,
                format: spec.format,
                byte_offset,
                length: spec.length,
                value_length,
                byte_stride,
                reserved,
                data_type: spec.data_type,
                readback_metadata: spec.readback_metadata,
            });
        }
        Ok(SegmentedLayout {
            segments,
            byte_length: end,
            alignment,
        })
    }

    /// The segments, in column order.
    #[must_use]
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The segment of column `name`.
    #[must_use]
    pub fn segment(&self, name: &str) -> Option<&Segment> {
        self.segments.iter().find(|s| s.name == name)
    }

    /// Bytes of the allocation (the end of the last segment's reservation).
    #[must_use]
    pub const fn byte_length(&self) -> u64 {
        self.byte_length
    }

    /// The alignment of every segment's offset.
    #[must_use]
    pub const fn alignment(&self) -> u64 {
        self.alignment
    }

    /// Human-readable segment metadata, one line per segment:
    /// `name: format, rows, bytes offset..end, stride`.
    #[must_use]
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for s in &self.segments {
            let _ = writeln!(
                out,
                "{}: {}, {} rows ({} values), bytes {}..{}, stride {}",
                s.name,
                s.format,
                s.length,
                s.value_length,
                s.byte_offset,
                s.byte_offset + s.reserved,
                s.byte_stride
            );
        }
        out
    }
}
