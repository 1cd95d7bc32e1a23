//! Placement of one input's rows ([`ViewShape`]) and the checks every input of a kernel goes
//! through, on the GPU and in the CPU reference alike.

use crate::data::GpuDataView;
use crate::format::{VertexFormat, codec};
use crate::layout::strided_byte_length;
use crate::ops::OpError;

/// The size of the pieces a format's bytes are moved and decoded in: the component size, except
/// `unorm10-10-10-2`, whose bit fields share one 32-bit word.
#[must_use]
pub(crate) const fn unit_size(format: VertexFormat) -> u64 {
    codec::unit_byte_length(format)
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

    /// The placement of `view`'s rows.
    pub(crate) const fn of(view: &GpuDataView<'_>) -> ViewShape {
        ViewShape {
            format: view.format(),
            length: view.length(),
            byte_offset: view.byte_offset(),
            byte_stride: view.byte_stride(),
        }
    }

    /// One past the last byte the rows use (`byte_offset` when there are no rows).
    pub(crate) fn end(&self, op: &'static str, input: usize) -> Result<u64, OpError> {
        strided_byte_length(self.length, self.byte_stride, self.format.byte_length())
            .and_then(|span| span.checked_add(self.byte_offset))
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
