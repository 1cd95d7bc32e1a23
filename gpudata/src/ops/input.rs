//! What operations read: [`OpInput`] (one fixed-width column or strided view on the GPU),
//! [`RowsInput`] (struct rows on the GPU), [`Operand`] / [`Constant`] for arithmetic, and the
//! checks every input goes through.

use crate::format::VertexFormat;
use crate::layout::GpuDataStructFormat;
use crate::ops::OpError;

/// The size of the pieces a format's bytes are moved and decoded in: the component size, except
/// `unorm10-10-10-2`, whose bit fields share one 32-bit word.
#[must_use]
pub(crate) const fn unit_size(format: VertexFormat) -> u64 {
    format.signed_data_type().byte_length()
}

/// How many units one value of `format` has.
#[must_use]
pub(crate) const fn unit_count(format: VertexFormat) -> u64 {
    format.byte_length() / unit_size(format)
}

/// Placement of one input's rows, without the storage they live in; the part of an input that
/// the GPU path and the CPU reference check in the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ViewShape {
    pub format: VertexFormat,
    pub length: u64,
    pub byte_offset: u64,
    pub byte_stride: u64,
}

impl ViewShape {
    /// `length` values of `format` packed from byte 0.
    pub(crate) const fn packed(format: VertexFormat, length: u64) -> ViewShape {
        ViewShape {
            format,
            length,
            byte_offset: 0,
            byte_stride: format.byte_length(),
        }
    }

    /// One past the last byte the rows use (`byte_offset` when there are no rows).
    pub(crate) fn end(&self, op: &'static str, input: usize) -> Result<u64, OpError> {
        if self.length == 0 {
            return Ok(self.byte_offset);
        }
        (self.length - 1)
            .checked_mul(self.byte_stride)
            .and_then(|v| v.checked_add(self.byte_offset))
            .and_then(|v| v.checked_add(self.format.byte_length()))
            .ok_or(OpError::Overflow { op, input })
    }

    /// The checks every input goes through: offset and stride aligned to the format's unit, a
    /// stride that holds one value, rows inside `available` bytes (`word_padded`: rounded up to
    /// a whole 32-bit word, as a GPU storage binding reads).
    pub(crate) fn check(
        &self,
        op: &'static str,
        input: usize,
        available: u64,
        word_padded: bool,
    ) -> Result<(), OpError> {
        let alignment = unit_size(self.format);
        if !self.byte_offset.is_multiple_of(alignment)
            || !self.byte_stride.is_multiple_of(alignment)
        {
            return Err(OpError::Misaligned {
                op,
                input,
                format: self.format,
                byte_offset: self.byte_offset,
                byte_stride: self.byte_stride,
                alignment,
            });
        }
        if self.length > 1 && self.byte_stride < self.format.byte_length() {
            return Err(OpError::StrideTooSmall {
                op,
                input,
                format: self.format,
                byte_stride: self.byte_stride,
                byte_length: self.format.byte_length(),
            });
        }
        if self.length == 0 {
            return Ok(());
        }
        let end = self.end(op, input)?;
        let needed = if word_padded {
            end.checked_next_multiple_of(4)
                .ok_or(OpError::Overflow { op, input })?
        } else {
            end
        };
        if needed > available {
            return Err(OpError::OutOfBounds {
                op,
                input,
                needed,
                available,
            });
        }
        Ok(())
    }
}

/// One fixed-width column on the GPU: `length` values of `format`, the first at `byte_offset`,
/// each `byte_stride` bytes after the previous one.
///
/// This is what every operation reads: a packed column (`byte_stride` = the format's byte
/// length), one field of interleaved rows (a strided child view), or one segment of a segmented
/// table (a packed column at an offset into a shared buffer). `GpuData` and `GpuDataView`
/// convert into it.
///
/// The description is checked when an operation takes it: offset and stride must be multiples
/// of the format's component size (4 for `unorm10-10-10-2`), the stride must hold one value, and
/// the rows, rounded up to a whole 32-bit word, must lie inside the buffer.
///
/// ```no_run
/// # fn f(buffer: &wgpu::Buffer) {
/// use gpudata::VertexFormat;
/// use gpudata::ops::OpInput;
///
/// // `uv` of 100 interleaved 32-byte rows, 24 bytes into each row.
/// let uv = OpInput::new(buffer, VertexFormat::Float32x2, 100)
///     .with_byte_offset(24)
///     .with_byte_stride(32);
/// assert_eq!(uv.byte_stride(), 32);
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct OpInput<'a> {
    buffer: &'a wgpu::Buffer,
    shape: ViewShape,
}

impl<'a> OpInput<'a> {
    /// A packed column of `length` values of `format` at the start of `buffer`.
    #[must_use]
    pub fn new(buffer: &'a wgpu::Buffer, format: VertexFormat, length: u64) -> OpInput<'a> {
        OpInput {
            buffer,
            shape: ViewShape::packed(format, length),
        }
    }

    /// The same column starting `byte_offset` bytes into the buffer.
    #[must_use]
    pub fn with_byte_offset(mut self, byte_offset: u64) -> OpInput<'a> {
        self.shape.byte_offset = byte_offset;
        self
    }

    /// The same column with `byte_stride` bytes from one value to the next.
    #[must_use]
    pub fn with_byte_stride(mut self, byte_stride: u64) -> OpInput<'a> {
        self.shape.byte_stride = byte_stride;
        self
    }

    /// The buffer the values live in.
    #[must_use]
    pub fn buffer(&self) -> &'a wgpu::Buffer {
        self.buffer
    }

    /// The format of each value.
    #[must_use]
    pub fn format(&self) -> VertexFormat {
        self.shape.format
    }

    /// The number of values (rows).
    #[must_use]
    pub fn length(&self) -> u64 {
        self.shape.length
    }

    /// Byte offset of the first value in the buffer.
    #[must_use]
    pub fn byte_offset(&self) -> u64 {
        self.shape.byte_offset
    }

    /// Bytes from one value to the next.
    #[must_use]
    pub fn byte_stride(&self) -> u64 {
        self.shape.byte_stride
    }

    pub(crate) fn shape(&self) -> ViewShape {
        self.shape
    }
}

/// Rows of a [`GpuDataStructFormat`] on the GPU: `length` rows, the first at `byte_offset`,
/// `byte_stride` bytes apart (usually the format's own stride). What
/// [`GpuOps::deinterleave`](super::GpuOps::deinterleave) reads.
#[derive(Clone, Copy, Debug)]
pub struct RowsInput<'a> {
    buffer: &'a wgpu::Buffer,
    format: &'a GpuDataStructFormat,
    length: u64,
    byte_offset: u64,
    byte_stride: u64,
}

impl<'a> RowsInput<'a> {
    /// `length` rows of `format` packed at the start of `buffer` (stride = the format's stride).
    #[must_use]
    pub fn new(
        buffer: &'a wgpu::Buffer,
        format: &'a GpuDataStructFormat,
        length: u64,
    ) -> RowsInput<'a> {
        RowsInput {
            buffer,
            format,
            length,
            byte_offset: 0,
            byte_stride: format.byte_stride(),
        }
    }

    /// The same rows starting `byte_offset` bytes into the buffer.
    #[must_use]
    pub fn with_byte_offset(mut self, byte_offset: u64) -> RowsInput<'a> {
        self.byte_offset = byte_offset;
        self
    }

    /// The same rows `byte_stride` bytes apart.
    #[must_use]
    pub fn with_byte_stride(mut self, byte_stride: u64) -> RowsInput<'a> {
        self.byte_stride = byte_stride;
        self
    }

    /// The buffer the rows live in.
    #[must_use]
    pub fn buffer(&self) -> &'a wgpu::Buffer {
        self.buffer
    }

    /// The row format.
    #[must_use]
    pub fn format(&self) -> &'a GpuDataStructFormat {
        self.format
    }

    /// The number of rows.
    #[must_use]
    pub fn length(&self) -> u64 {
        self.length
    }

    /// Byte offset of the first row.
    #[must_use]
    pub fn byte_offset(&self) -> u64 {
        self.byte_offset
    }

    /// Bytes from one row to the next.
    #[must_use]
    pub fn byte_stride(&self) -> u64 {
        self.byte_stride
    }

    /// The strided view of field `index`, or `None` past the last field (or when the field's
    /// offset overflows `u64`).
    #[must_use]
    pub fn field_at(&self, index: usize) -> Option<OpInput<'a>> {
        let field = self.format.fields().get(index)?;
        let byte_offset = self.byte_offset.checked_add(field.byte_offset())?;
        Some(
            OpInput::new(self.buffer, field.format(), self.length)
                .with_byte_offset(byte_offset)
                .with_byte_stride(self.byte_stride),
        )
    }

    /// The strided view of the field called `name`.
    #[must_use]
    pub fn field(&self, name: &str) -> Option<OpInput<'a>> {
        let (index, _) = self.format.field(name)?;
        self.field_at(index)
    }
}

/// A constant operand of arithmetic: one to four `f32` lanes, the same for every row
/// (luma.gl's `fromConstant`, type `float32`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Constant {
    lanes: [f32; 4],
    len: usize,
}

impl Constant {
    /// A scalar, broadcast to every lane.
    #[must_use]
    pub const fn scalar(value: f32) -> Constant {
        Constant {
            lanes: [value, 0.0, 0.0, 0.0],
            len: 1,
        }
    }

    /// A vector of one to four lanes; lanes past its length read as 0.
    ///
    /// # Errors
    /// [`OpError::ConstantLanes`] for no lanes or more than four.
    pub fn vector(values: &[f32]) -> Result<Constant, OpError> {
        if values.is_empty() || values.len() > 4 {
            return Err(OpError::ConstantLanes {
                op: "constant",
                input: 0,
                lanes: values.len(),
            });
        }
        let mut lanes = [0.0; 4];
        lanes[..values.len()].copy_from_slice(values);
        Ok(Constant {
            lanes,
            len: values.len(),
        })
    }

    /// The lanes.
    #[must_use]
    pub fn lanes(&self) -> &[f32] {
        &self.lanes[..self.len]
    }

    /// The lanes as `f32` bit patterns, padded with zeros to four.
    pub(crate) fn bits(&self) -> [u32; 4] {
        self.lanes.map(f32::to_bits)
    }
}

/// One argument of an arithmetic operation: a GPU column or a constant.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    /// Values read from the GPU, one per row.
    Data(OpInput<'a>),
    /// The same value for every row.
    Constant(Constant),
}

impl<'a> From<OpInput<'a>> for Operand<'a> {
    fn from(input: OpInput<'a>) -> Self {
        Operand::Data(input)
    }
}

impl From<Constant> for Operand<'_> {
    fn from(constant: Constant) -> Self {
        Operand::Constant(constant)
    }
}

impl From<f32> for Operand<'_> {
    fn from(value: f32) -> Self {
        Operand::Constant(Constant::scalar(value))
    }
}

impl<'a> From<crate::data::GpuDataView<'a>> for OpInput<'a> {
    fn from(view: crate::data::GpuDataView<'a>) -> Self {
        OpInput::new(view.buffer(), view.format(), view.length())
            .with_byte_offset(view.byte_offset())
            .with_byte_stride(view.byte_stride())
    }
}

impl<'a> From<&crate::data::GpuDataView<'a>> for OpInput<'a> {
    fn from(view: &crate::data::GpuDataView<'a>) -> Self {
        OpInput::from(*view)
    }
}

impl<'a> From<crate::data::GpuDataView<'a>> for Operand<'a> {
    fn from(view: crate::data::GpuDataView<'a>) -> Self {
        Operand::Data(view.into())
    }
}

fn describe(data: &crate::data::GpuData) -> String {
    data.format()
        .map_or_else(|| "no format".to_owned(), |f| format!("format `{f}`"))
}

impl<'a> TryFrom<&'a crate::data::GpuData> for OpInput<'a> {
    type Error = OpError;

    /// The rows of data of one fixed vertex format, as a column.
    ///
    /// # Errors
    /// [`OpError::WrongData`] for struct, list or format-less data (take a child view of struct
    /// data with `get_child` instead).
    fn try_from(data: &'a crate::data::GpuData) -> Result<Self, Self::Error> {
        data.as_view()
            .map(OpInput::from)
            .ok_or_else(|| OpError::WrongData {
                op: "input",
                expected: "gpu data of one fixed vertex format",
                found: describe(data),
            })
    }
}

impl<'a> TryFrom<&'a crate::data::GpuData> for Operand<'a> {
    type Error = OpError;

    /// As [`OpInput`]'s conversion.
    fn try_from(data: &'a crate::data::GpuData) -> Result<Self, Self::Error> {
        OpInput::try_from(data).map(Operand::Data)
    }
}

impl<'a> TryFrom<&'a crate::data::GpuData> for RowsInput<'a> {
    type Error = OpError;

    /// The rows of struct-formatted data, with the data's offset and stride.
    ///
    /// # Errors
    /// [`OpError::WrongData`] for data without a struct format.
    fn try_from(data: &'a crate::data::GpuData) -> Result<Self, Self::Error> {
        let format = data.struct_format().ok_or_else(|| OpError::WrongData {
            op: "input",
            expected: "gpu data of a struct format",
            found: describe(data),
        })?;
        Ok(RowsInput::new(data.buffer(), format, data.length())
            .with_byte_offset(data.byte_offset())
            .with_byte_stride(data.byte_stride()))
    }
}
