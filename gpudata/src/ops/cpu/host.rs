//! The host-memory columns and rows the CPU reference reads and writes.

use crate::data::GpuDataFormat;
use crate::format::{GpuVectorFormat, VertexFormat};
use crate::layout::GpuDataStructFormat;
use crate::ops::OpError;
use crate::ops::kernels::shape::{ViewShape, unit_size};

/// One fixed-width column in host memory: the CPU twin of a [`GpuDataView`](crate::GpuDataView).
#[derive(Clone, Copy, Debug)]
pub struct HostInput<'a> {
    bytes: &'a [u8],
    shape: ViewShape,
}

impl<'a> HostInput<'a> {
    /// A packed column of `length` values of `format` at the start of `bytes`.
    #[must_use]
    pub fn new(bytes: &'a [u8], format: VertexFormat, length: u64) -> HostInput<'a> {
        HostInput {
            bytes,
            shape: ViewShape::packed(format, length),
        }
    }

    /// The same column starting `byte_offset` bytes in.
    #[must_use]
    pub fn with_byte_offset(mut self, byte_offset: u64) -> HostInput<'a> {
        self.shape.byte_offset = byte_offset;
        self
    }

    /// The same column with `byte_stride` bytes from one value to the next.
    #[must_use]
    pub fn with_byte_stride(mut self, byte_stride: u64) -> HostInput<'a> {
        self.shape.byte_stride = byte_stride;
        self
    }

    /// The format.
    #[must_use]
    pub fn format(&self) -> VertexFormat {
        self.shape.format
    }

    /// The number of values.
    #[must_use]
    pub fn length(&self) -> u64 {
        self.shape.length
    }

    /// The bytes of row `row`'s value (checked beforehand to be in range).
    pub(in crate::ops) fn row(&self, row: u64) -> &[u8] {
        let at = (self.shape.byte_offset + row * self.shape.byte_stride) as usize;
        &self.bytes[at..at + self.shape.format.byte_length() as usize]
    }

    /// The raw bits of unit `unit` of row `row` (checked beforehand to be in range).
    pub(in crate::ops) fn unit(&self, row: u64, unit: u64) -> u32 {
        let size = unit_size(self.shape.format);
        let at = (self.shape.byte_offset + row * self.shape.byte_stride + unit * size) as usize;
        let mut word = [0u8; 4];
        word[..size as usize].copy_from_slice(&self.bytes[at..at + size as usize]);
        u32::from_le_bytes(word)
    }

    pub(in crate::ops) fn check(&self, op: &'static str, input: usize) -> Result<(), OpError> {
        self.shape.check(op, input, self.bytes.len() as u64, false)
    }
}

/// A packed column the CPU reference wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostColumn {
    pub(in crate::ops) format: VertexFormat,
    pub(in crate::ops) length: u64,
    pub(in crate::ops) bytes: Vec<u8>,
}

impl HostColumn {
    /// The format.
    #[must_use]
    pub fn format(&self) -> VertexFormat {
        self.format
    }

    /// The number of values.
    #[must_use]
    pub fn length(&self) -> u64 {
        self.length
    }

    /// The packed bytes (`length × byte length`).
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The column as an input.
    #[must_use]
    pub fn as_input(&self) -> HostInput<'_> {
        HostInput::new(&self.bytes, self.format, self.length)
    }
}

/// Rows of a struct format in host memory, packed one stride apart from byte 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostRows {
    format: GpuDataStructFormat,
    length: u64,
    bytes: Vec<u8>,
}

impl HostRows {
    /// `length` rows of `format` in `bytes`.
    #[must_use]
    pub fn new(format: GpuDataStructFormat, length: u64, bytes: Vec<u8>) -> HostRows {
        HostRows {
            format,
            length,
            bytes,
        }
    }

    /// The row format.
    #[must_use]
    pub fn format(&self) -> &GpuDataStructFormat {
        &self.format
    }

    /// The number of rows.
    #[must_use]
    pub fn length(&self) -> u64 {
        self.length
    }

    /// The bytes (`length × byte stride`).
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The strided view of field `index`.
    #[must_use]
    pub fn field_at(&self, index: usize) -> Option<HostInput<'_>> {
        let field = self.format.fields().get(index)?;
        Some(
            HostInput::new(&self.bytes, field.format(), self.length)
                .with_byte_offset(field.byte_offset())
                .with_byte_stride(self.format.byte_stride()),
        )
    }

    /// The strided view of the field called `name`.
    #[must_use]
    pub fn field(&self, name: &str) -> Option<HostInput<'_>> {
        self.field_at(self.format.field(name)?.0)
    }
}

/// What a CPU lane operation wrote, the twin of a [`GpuData`](crate::GpuData)'s two formats: a
/// packed column, or struct rows (luma.gl's `interleave` of more than four lanes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostData {
    /// A packed column of a vertex format.
    Column(HostColumn),
    /// Rows of a struct format.
    Rows(HostRows),
}

impl HostData {
    /// The format, as the GPU operation's output describes it.
    #[must_use]
    pub fn format(&self) -> GpuDataFormat {
        match self {
            HostData::Column(c) => GpuDataFormat::Vector(GpuVectorFormat::Fixed(c.format())),
            HostData::Rows(r) => GpuDataFormat::Struct(r.format().clone()),
        }
    }

    /// Values per row.
    #[must_use]
    pub fn components(&self) -> u32 {
        self.format().components()
    }

    /// The number of rows.
    #[must_use]
    pub fn length(&self) -> u64 {
        match self {
            HostData::Column(c) => c.length(),
            HostData::Rows(r) => r.length(),
        }
    }

    /// The bytes: packed values, or rows one stride apart (padding included).
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        match self {
            HostData::Column(c) => c.bytes(),
            HostData::Rows(r) => r.bytes(),
        }
    }

    /// The column, when the result is one.
    #[must_use]
    pub fn into_column(self) -> Option<HostColumn> {
        match self {
            HostData::Column(c) => Some(c),
            HostData::Rows(_) => None,
        }
    }
}
