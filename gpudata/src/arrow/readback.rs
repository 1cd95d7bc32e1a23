//! Bytes read back from the GPU plus [`ArrowReadback`] metadata → an Arrow array of the original
//! type, with offsets, validity and dictionaries restored.

use arrow_array::{ArrayRef, make_array};
use arrow_buffer::{Buffer, NullBuffer};
use arrow_data::{ArrayData, ArrayDataBuilder};
use arrow_schema::DataType as ArrowType;

use super::ArrowInteropError;
use super::format::ArrowShape;
use super::source::ArrowReadback;
use crate::data::{ReadbackMetadata, RowMetadata};
use crate::layout::{remove_stride, strided_byte_length};

impl ArrowReadback {
    /// Bytes of one fixed row, list element, string byte, dictionary key or interleaved row, as
    /// read back.
    #[must_use]
    pub fn element_byte_length(&self) -> u64 {
        match self.shape {
            // fround turns each float64 into two f32.
            ArrowShape::Fixed { components, .. } if self.fround => 8 * u64::from(components),
            ArrowShape::Fixed { scalar, components }
            | ArrowShape::List {
                scalar, components, ..
            } => scalar.byte_width() * u64::from(components),
            ArrowShape::Dictionary { key } => key.byte_width(),
            ArrowShape::Bytes(_) => 1,
            ArrowShape::Rows { width } => width,
        }
    }

    /// Values read back: rows, or list elements / bytes for variable-length columns.
    #[must_use]
    pub fn value_length(&self) -> u64 {
        match &self.offsets {
            Some(offsets) => offsets.last(),
            None => self.length as u64,
        }
    }

    /// The exact number of bytes [`to_array`](Self::to_array) expects: values × element bytes,
    /// or `None` when that overflows `u64`.
    #[must_use]
    pub fn value_byte_length(&self) -> Option<u64> {
        self.value_length().checked_mul(self.element_byte_length())
    }

    /// Rebuilds the Arrow array from the compact value bytes read back (as uploaded: no padding
    /// between rows; use [`compact_rows`] first for strided data).
    ///
    /// The result has the original type, offsets and validity; a dictionary gets its values back;
    /// fround data comes back as Float64 `hi + lo`. Passing a `Vec<u8>` moves it into the array
    /// without a copy (a misaligned allocation is realigned).
    ///
    /// # Errors
    /// [`ArrowInteropError::ReadbackLength`] when `bytes` is not exactly
    /// [`value_byte_length`](Self::value_byte_length) long; [`ArrowInteropError::Arrow`] when
    /// Arrow's validation refuses the rebuilt array (for example invalid UTF-8 or a dictionary
    /// key out of range).
    pub fn to_array(&self, bytes: impl Into<Buffer>) -> Result<ArrayRef, ArrowInteropError> {
        let bytes: Buffer = bytes.into();
        let expected = self
            .value_byte_length()
            .ok_or_else(|| ArrowInteropError::Overflow {
                column: self.column.clone(),
                what: "the readback byte length",
            })?;
        if bytes.len() as u64 != expected {
            return Err(ArrowInteropError::ReadbackLength {
                column: self.column.clone(),
                data_type: self.data_type.clone(),
                expected,
                found: bytes.len() as u64,
            });
        }
        let n = self.length;
        let built = match (&self.data_type, self.shape) {
            (_, ArrowShape::Fixed { components, .. }) if self.fround => {
                let values = fround_join(&bytes, components as usize);
                self.fixed(Buffer::from_vec(values))
            }
            (_, ArrowShape::Fixed { .. }) => self.fixed(bytes),
            (ArrowType::Dictionary(..), ArrowShape::Dictionary { .. }) => {
                let values = self.dictionary.as_ref().map(|d| d.to_data());
                ArrayDataBuilder::new(self.data_type.clone())
                    .len(n)
                    .add_buffer(bytes)
                    .nulls(self.nulls.clone())
                    .child_data(values.into_iter().collect())
                    .align_buffers(true)
                    .build()
            }
            (_, ArrowShape::Bytes(_)) => ArrayDataBuilder::new(self.data_type.clone())
                .len(n)
                .add_buffer(self.offsets_buffer())
                .add_buffer(bytes)
                .nulls(self.nulls.clone())
                .align_buffers(true)
                .build(),
            (ArrowType::List(child) | ArrowType::LargeList(child), ArrowShape::List { .. }) => {
                let elements = usize::try_from(self.value_length()).map_err(|_| {
                    ArrowInteropError::Overflow {
                        column: self.column.clone(),
                        what: "the list element count",
                    }
                })?;
                let child = fixed_data(child.data_type(), elements, bytes, None)
                    .map_err(|e| self.arrow_error(e))?;
                ArrayDataBuilder::new(self.data_type.clone())
                    .len(n)
                    .add_buffer(self.offsets_buffer())
                    .child_data(vec![child])
                    .align_buffers(true)
                    .build()
            }
            (_, ArrowShape::Rows { .. }) => ArrayDataBuilder::new(self.data_type.clone())
                .len(n)
                .add_buffer(bytes)
                .nulls(self.nulls.clone())
                .align_buffers(true)
                .build(),
            _ => {
                return Err(ArrowInteropError::UnsupportedType {
                    column: self.column.clone(),
                    data_type: self.data_type.clone(),
                });
            }
        };
        built.map(make_array).map_err(|e| self.arrow_error(e))
    }

    fn fixed(&self, values: Buffer) -> Result<ArrayData, arrow_schema::ArrowError> {
        fixed_data(&self.data_type, self.length, values, self.nulls.clone())
    }

    fn offsets_buffer(&self) -> Buffer {
        self.offsets
            .as_ref()
            .map(|o| o.buffer())
            .unwrap_or_else(|| Buffer::from_vec(vec![0_i32]))
    }

    fn arrow_error(&self, e: arrow_schema::ArrowError) -> ArrowInteropError {
        ArrowInteropError::Arrow {
            column: self.column.clone(),
            data_type: self.data_type.clone(),
            message: e.to_string(),
        }
    }
}

/// A primitive or fixed-size-list array of `len` rows over `values`.
fn fixed_data(
    data_type: &ArrowType,
    len: usize,
    values: Buffer,
    nulls: Option<NullBuffer>,
) -> Result<ArrayData, arrow_schema::ArrowError> {
    if let ArrowType::FixedSizeList(child, size) = data_type {
        let size = usize::try_from(*size).unwrap_or(0);
        let child = ArrayDataBuilder::new(child.data_type().clone())
            .len(len.saturating_mul(size))
            .add_buffer(values)
            .align_buffers(true)
            .build()?;
        return ArrayDataBuilder::new(data_type.clone())
            .len(len)
            .nulls(nulls)
            .child_data(vec![child])
            .build();
    }
    ArrayDataBuilder::new(data_type.clone())
        .len(len)
        .add_buffer(values)
        .nulls(nulls)
        .align_buffers(true)
        .build()
}

/// Float64 values from fround rows `[hi_0..hi_n, lo_0..lo_n]` of `f32` words: `hi + lo`.
fn fround_join(bytes: &Buffer, components: usize) -> Vec<f64> {
    let words: Vec<f32> = bytes
        .as_slice()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let row = 2 * components.max(1);
    let mut out = Vec::with_capacity(words.len() / 2);
    for chunk in words.chunks_exact(row) {
        let (hi, lo) = chunk.split_at(components);
        for (h, l) in hi.iter().zip(lo) {
            // Infinite high parts (overflow, ±Inf) carry a NaN or opposite-infinity low part;
            // a zero low part adds nothing, and adding it would turn −0 (split [−0, 0]) into +0.
            let value = if h.is_infinite() || *l == 0.0 {
                f64::from(*h)
            } else {
                f64::from(*h) + f64::from(*l)
            };
            out.push(value);
        }
    }
    out
}

/// Copies `length` rows of `row_byte_length` bytes spaced `byte_stride` apart into compact rows
/// (for strided data such as one attribute of interleaved rows).
///
/// # Errors
/// [`ArrowInteropError::ReadbackLength`] (naming `column`) when `bytes` is shorter than the
/// rows, or `row_byte_length` exceeds `byte_stride`.
pub fn compact_rows(
    column: &str,
    bytes: &[u8],
    length: u64,
    byte_stride: u64,
    row_byte_length: u64,
) -> Result<Vec<u8>, ArrowInteropError> {
    let overflow = || ArrowInteropError::Overflow {
        column: column.to_owned(),
        what: "the strided byte range",
    };
    let needed = strided_byte_length(length, byte_stride, row_byte_length).ok_or_else(overflow)?;
    if row_byte_length > byte_stride || (bytes.len() as u64) < needed {
        return Err(ArrowInteropError::ReadbackLength {
            column: column.to_owned(),
            data_type: ArrowType::FixedSizeBinary(
                i32::try_from(row_byte_length).unwrap_or(i32::MAX),
            ),
            expected: needed,
            found: bytes.len() as u64,
        });
    }
    let stride = usize::try_from(byte_stride).map_err(|_| overflow())?;
    let row = usize::try_from(row_byte_length).map_err(|_| overflow())?;
    let rows = usize::try_from(length).map_err(|_| overflow())?;
    // `bytes` holds the rows (checked above), so their packed length fits in memory too.
    Ok(remove_stride(bytes, rows, stride, row))
}

/// Arrow's readback follows a row filter: the kept rows' validity, the kept row count. A column
/// with offsets (lists, strings) does not follow (filtering refuses such columns before).
impl RowMetadata for ArrowReadback {
    fn null_count(&self) -> u64 {
        self.nulls.as_ref().map_or(0, |n| n.null_count() as u64)
    }

    fn keep_rows(&self, kept: u64, keep: Option<&[bool]>) -> Option<ReadbackMetadata> {
        let length = usize::try_from(kept).ok()?;
        if self.offsets.is_some() {
            return None;
        }
        let nulls = match (&self.nulls, keep) {
            (None, _) => None,
            (Some(nulls), Some(keep)) => {
                let valid: arrow_buffer::BooleanBuffer = keep
                    .iter()
                    .enumerate()
                    .filter(|(_, k)| **k)
                    .map(|(row, _)| nulls.is_valid(row))
                    .collect();
                Some(NullBuffer::new(valid)).filter(|n| n.null_count() > 0)
            }
            // Nulls, yet the mask was not read: not reached (the filter reads it for any null).
            (Some(_), None) => return None,
        };
        Some(ReadbackMetadata::with_rows(ArrowReadback {
            length,
            nulls,
            ..self.clone()
        }))
    }

    fn validity(&self) -> Option<Vec<bool>> {
        let nulls = self.nulls.as_ref()?;
        Some((0..self.length).map(|row| nulls.is_valid(row)).collect())
    }

    /// Follows when every source is Arrow's readback of a column without offsets and with the
    /// same dictionary (or none): the ids of the rows then mean the same values in every batch.
    fn take_rows(
        &self,
        sources: &[&dyn RowMetadata],
        rows: &[(usize, u64)],
    ) -> Option<ReadbackMetadata> {
        let sources: Vec<&ArrowReadback> = sources
            .iter()
            .map(|s| (*s as &dyn std::any::Any).downcast_ref::<ArrowReadback>())
            .collect::<Option<_>>()?;
        let same_dictionary = |s: &&ArrowReadback| match (&s.dictionary, &self.dictionary) {
            (None, None) => true,
            (Some(a), Some(b)) => a.to_data() == b.to_data(),
            _ => false,
        };
        if self.offsets.is_some()
            || sources
                .iter()
                .any(|s| s.offsets.is_some() || !same_dictionary(s))
        {
            return None;
        }
        let nulls = if sources.iter().any(|s| s.nulls.is_some()) {
            let valid: arrow_buffer::BooleanBuffer = rows
                .iter()
                .map(|&(source, row)| {
                    let s = sources.get(source)?;
                    let row = usize::try_from(row).ok().filter(|&r| r < s.length)?;
                    Some(s.nulls.as_ref().is_none_or(|n| n.is_valid(row)))
                })
                .collect::<Option<Vec<bool>>>()?
                .into_iter()
                .collect();
            Some(NullBuffer::new(valid)).filter(|n| n.null_count() > 0)
        } else {
            None
        };
        Some(ReadbackMetadata::with_rows(ArrowReadback {
            length: rows.len(),
            nulls,
            ..self.clone()
        }))
    }
}
