//! [`ArrowColumnSource`]: one Arrow column as the exact bytes to upload (a zero-copy slice of the
//! Arrow values buffer, slicing honoured) plus the [`ArrowReadback`] metadata that turns those
//! bytes back into the same Arrow array.

use arrow_array::{Array, ArrayRef, make_array};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_data::ArrayData;
use std::sync::Arc;

use arrow_schema::{DataType as ArrowType, Field, FieldRef};

use super::ArrowInteropError;
use super::format::{ArrowScalar, ArrowShape, FormatChoice, resolve_format};
use super::metadata::interleaved_layout;
use super::nulls::{NullPolicy, refuse, refuse_in_valid_rows, refuse_range, row_validity};
use crate::format::GpuVectorFormat;
use crate::layout::BufferLayout;

/// How one column is to be uploaded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ColumnOptions {
    /// How the GPU format is chosen.
    pub format: FormatChoice,
    /// What to do with null rows (see [`nulls`](super::nulls)).
    pub null_policy: NullPolicy,
    /// Whether shader-driven selection may pick the three-component `-webgl` formats.
    pub allow_webgl_only: bool,
}

impl ColumnOptions {
    /// Options with an explicit format.
    #[must_use]
    pub fn with_format(format: GpuVectorFormat) -> ColumnOptions {
        ColumnOptions {
            format: FormatChoice::Format(format),
            ..ColumnOptions::default()
        }
    }
}

/// What the uploaded bytes are: values of one vector format, or interleaved rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceFormat {
    /// Values of one [`GpuVectorFormat`].
    Vector(GpuVectorFormat),
    /// Interleaved rows described by a [`BufferLayout`] (a `FixedSizeBinary` column with
    /// buffer-layout metadata).
    Interleaved(BufferLayout),
}

/// List or byte offsets rebased to start at 0, in the Arrow offset width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueOffsets {
    /// 32-bit offsets (`List`, `Utf8`, `Binary`).
    Small(OffsetBuffer<i32>),
    /// 64-bit offsets (`LargeList`, `LargeUtf8`, `LargeBinary`).
    Large(OffsetBuffer<i64>),
}

impl ValueOffsets {
    /// The last offset: how many values (list elements or bytes) the rows hold.
    #[must_use]
    pub fn last(&self) -> u64 {
        // Rebased offsets are non-negative.
        match self {
            ValueOffsets::Small(o) => u64::try_from(o.last()).unwrap_or(0),
            ValueOffsets::Large(o) => u64::try_from(o.last()).unwrap_or(0),
        }
    }

    /// The offsets as `u64` (one more than the rows).
    #[must_use]
    pub fn to_u64(&self) -> Vec<u64> {
        match self {
            ValueOffsets::Small(o) => o.iter().map(|v| u64::try_from(*v).unwrap_or(0)).collect(),
            ValueOffsets::Large(o) => o.iter().map(|v| u64::try_from(*v).unwrap_or(0)).collect(),
        }
    }

    pub(crate) fn buffer(&self) -> Buffer {
        match self {
            ValueOffsets::Small(o) => o.inner().inner().clone(),
            ValueOffsets::Large(o) => o.inner().inner().clone(),
        }
    }
}

/// What turns uploaded bytes back into the original Arrow array: the original type, the row
/// count, the validity, rebased offsets and dictionary values.
///
/// Kept beside GPU data as its readback metadata; rebuild the array with
/// [`to_array`](Self::to_array).
#[derive(Clone, Debug)]
pub struct ArrowReadback {
    pub(crate) column: String,
    pub(crate) field: FieldRef,
    pub(crate) data_type: ArrowType,
    pub(crate) shape: ArrowShape,
    pub(crate) length: usize,
    pub(crate) nulls: Option<NullBuffer>,
    pub(crate) offsets: Option<ValueOffsets>,
    pub(crate) dictionary: Option<ArrayRef>,
    pub(crate) fround: bool,
}

impl ArrowReadback {
    /// The column name.
    #[must_use]
    pub fn column(&self) -> &str {
        &self.column
    }

    /// The original Arrow field (name, type, nullability, metadata).
    #[must_use]
    pub fn field(&self) -> &FieldRef {
        &self.field
    }

    /// The original Arrow type.
    #[must_use]
    pub fn data_type(&self) -> &ArrowType {
        &self.data_type
    }

    /// Rows.
    #[must_use]
    pub fn len(&self) -> usize {
        self.length
    }

    /// Whether there are no rows.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.length == 0
    }

    /// The row validity kept under [`NullPolicy::Keep`], rebased to the slice.
    #[must_use]
    pub fn nulls(&self) -> Option<&NullBuffer> {
        self.nulls.as_ref()
    }

    /// List or byte offsets rebased to start at 0.
    #[must_use]
    pub fn value_offsets(&self) -> Option<&ValueOffsets> {
        self.offsets.as_ref()
    }

    /// A dictionary column's values (kept on the host).
    #[must_use]
    pub fn dictionary(&self) -> Option<&ArrayRef> {
        self.dictionary.as_ref()
    }

    /// Whether the bytes read back are fround's `f32` high/low parts rather than the uploaded
    /// float64 words.
    #[must_use]
    pub fn is_fround(&self) -> bool {
        self.fround
    }

    /// The same metadata for data that fround converted: readback then expects `f32` rows
    /// `[hi.., lo..]` and rebuilds Float64 values as `hi + lo` (within about 2⁻⁴⁸ relative of the
    /// original).
    #[must_use]
    pub fn after_fround(mut self) -> ArrowReadback {
        self.fround = matches!(
            self.shape,
            ArrowShape::Fixed {
                scalar: ArrowScalar::Float64,
                ..
            }
        );
        self
    }
}

/// One Arrow column, ready to upload.
///
/// The bytes are a zero-copy slice of the Arrow values buffer (shared, reference counted),
/// covering exactly the column's rows: a sliced array uploads only its slice, a list only the
/// elements between its first and last offset, a string column only its value bytes.
///
/// ```
/// use arrow_array::{Array, Float32Array};
/// use gpudata::arrow::{ArrowColumnSource, ColumnOptions};
///
/// let column = Float32Array::from(vec![1.0, 2.0, 3.0, 4.0]).slice(1, 2);
/// let source = ArrowColumnSource::from_array("x", &column, &ColumnOptions::default())?;
/// assert_eq!(source.bytes(), bytemuck::cast_slice::<f32, u8>(&[2.0, 3.0]));
/// assert_eq!((source.length(), source.byte_stride()), (2, 4));
/// # Ok::<(), gpudata::arrow::ArrowInteropError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ArrowColumnSource {
    values: Buffer,
    format: SourceFormat,
    value_length: u64,
    byte_stride: u64,
    fround: bool,
    unpack_bits: bool,
    readback: ArrowReadback,
}

/// Validates and slices `count` values of `width` bytes starting at value `first` of `buffer`.
fn slice_values(
    column: &str,
    buffer: &Buffer,
    first: u64,
    count: u64,
    width: u64,
) -> Result<Buffer, ArrowInteropError> {
    let overflow = || ArrowInteropError::Overflow {
        column: column.to_owned(),
        what: "the byte range of the values",
    };
    let start = first.checked_mul(width).ok_or_else(overflow)?;
    let len = count.checked_mul(width).ok_or_else(overflow)?;
    let end = start.checked_add(len).ok_or_else(overflow)?;
    let available = buffer.len() as u64;
    if end > available {
        return Err(ArrowInteropError::OutOfBounds {
            column: column.to_owned(),
            what: "values end at byte",
            found: end,
            available,
        });
    }
    let start = usize::try_from(start).map_err(|_| overflow())?;
    let len = usize::try_from(len).map_err(|_| overflow())?;
    Ok(buffer.slice_with_length(start, len))
}

fn buffer_at<'d>(
    column: &str,
    data: &'d ArrayData,
    index: usize,
) -> Result<&'d Buffer, ArrowInteropError> {
    data.buffers()
        .get(index)
        .ok_or_else(|| ArrowInteropError::OutOfBounds {
            column: column.to_owned(),
            what: "buffer index",
            found: index as u64,
            available: data.buffers().len() as u64,
        })
}

fn child_at<'d>(column: &str, data: &'d ArrayData) -> Result<&'d ArrayData, ArrowInteropError> {
    data.child_data()
        .first()
        .ok_or_else(|| ArrowInteropError::OutOfBounds {
            column: column.to_owned(),
            what: "child index",
            found: 0,
            available: 0,
        })
}

/// Reads `len + 1` offsets starting at entry `offset`, checks they do not decrease, and returns
/// them rebased to 0 together with the first one.
fn rebased_offsets<O>(
    column: &str,
    buffer: &Buffer,
    offset: usize,
    len: usize,
) -> Result<(OffsetBuffer<O>, u64), ArrowInteropError>
where
    O: bytemuck::Pod
        + arrow_buffer::ArrowNativeType
        + Ord
        + core::ops::Sub<Output = O>
        + TryInto<u64>,
{
    let width = size_of::<O>() as u64;
    let count = (len as u64)
        .checked_add(1)
        .ok_or_else(|| ArrowInteropError::Overflow {
            column: column.to_owned(),
            what: "the offset count",
        })?;
    let bytes = slice_values(column, buffer, offset as u64, count, width)?;
    let offsets: &[O] =
        bytemuck::try_cast_slice(bytes.as_slice()).map_err(|_| ArrowInteropError::Arrow {
            column: column.to_owned(),
            data_type: ArrowType::Int32,
            message: "the offsets buffer is not aligned to its offset type".to_owned(),
        })?;
    let first = offsets.first().copied().unwrap_or_else(|| O::usize_as(0));
    let mut rebased = Vec::with_capacity(offsets.len());
    let mut previous = first;
    for &value in offsets {
        if value < previous {
            return Err(ArrowInteropError::OutOfBounds {
                column: column.to_owned(),
                what: "decreasing offset",
                found: value.try_into().unwrap_or(0),
                available: previous.try_into().unwrap_or(0),
            });
        }
        rebased.push(value - first);
        previous = value;
    }
    let first_u64 = first
        .try_into()
        .map_err(|_| ArrowInteropError::NegativeOffset {
            column: column.to_owned(),
            offset: first.to_i64().unwrap_or(i64::MIN),
        })?;
    // Non-negative (first ≥ 0 checked above) and monotonic, as OffsetBuffer requires.
    Ok((OffsetBuffer::new(ScalarBuffer::from(rebased)), first_u64))
}

impl ArrowColumnSource {
    /// The column of `field` holding `array` (the field gives the name and, for
    /// `FixedSizeBinary` interleaved rows, the buffer-layout metadata).
    ///
    /// # Errors
    /// The format errors of [`resolve_format`], the null errors of [`NullPolicy`] (see
    /// [`nulls`](super::nulls)), [`ArrowInteropError::UnsupportedType`] when the array's type
    /// differs from the field's, [`ArrowInteropError::InterleavedMetadata`] for
    /// `FixedSizeBinary` without a layout, and [`ArrowInteropError::OutOfBounds`] /
    /// [`ArrowInteropError::Overflow`] for arrays whose buffers do not hold what they claim.
    pub fn new(
        field: &Field,
        array: &dyn Array,
        options: &ColumnOptions,
    ) -> Result<ArrowColumnSource, ArrowInteropError> {
        let column = field.name().as_str();
        let data_type = array.data_type();
        if data_type != field.data_type() {
            return Err(ArrowInteropError::UnsupportedType {
                column: column.to_owned(),
                data_type: data_type.clone(),
            });
        }
        if data_type == &ArrowType::Boolean
            && let Some(format) = super::format::boolean_format(options.format)
        {
            return ArrowColumnSource::booleans(field, array, options, format);
        }
        let shape = ArrowShape::of(column, data_type)?;
        let data = array.to_data();
        let length = data.len();
        let rows = length as u64;
        let mut readback = ArrowReadback {
            column: column.to_owned(),
            field: Arc::new(field.clone()),
            data_type: data_type.clone(),
            shape,
            length,
            nulls: None,
            offsets: None,
            dictionary: None,
            fround: false,
        };
        if let ArrowShape::Rows { width } = shape {
            let layout = interleaved_layout(field)?.ok_or_else(|| {
                ArrowInteropError::InterleavedMetadata {
                    column: column.to_owned(),
                    reason: format!(
                        "FixedSizeBinary columns need the `{}` extension type with a buffer layout",
                        super::metadata::INTERLEAVED_ROWS_EXTENSION
                    ),
                }
            })?;
            if options.format != FormatChoice::Default {
                return Err(ArrowInteropError::InterleavedMetadata {
                    column: column.to_owned(),
                    reason: "interleaved rows take their formats from their buffer layout, not a column format".to_owned(),
                });
            }
            readback.nulls = row_validity(column, data_type, data.nulls(), options.null_policy)?;
            let values = slice_values(
                column,
                buffer_at(column, &data, 0)?,
                data.offset() as u64,
                rows,
                width,
            )?;
            return Ok(ArrowColumnSource {
                values,
                format: SourceFormat::Interleaved(layout),
                value_length: rows,
                byte_stride: width,
                fround: false,
                unpack_bits: false,
                readback,
            });
        }
        let resolved = resolve_format(column, data_type, options.format, options.allow_webgl_only)?;
        let element_bytes = resolved.format.element_format().byte_length();
        let (values, value_length) = match shape {
            ArrowShape::Fixed { scalar, components } => {
                readback.nulls =
                    row_validity(column, data_type, data.nulls(), options.null_policy)?;
                let (values_data, first) = fixed_values(column, data_type, &data, components)?;
                let count = rows.checked_mul(u64::from(components)).ok_or_else(|| {
                    ArrowInteropError::Overflow {
                        column: column.to_owned(),
                        what: "the value count",
                    }
                })?;
                let values = slice_values(
                    column,
                    buffer_at(column, values_data, 0)?,
                    first,
                    count,
                    scalar.byte_width(),
                )?;
                (values, rows)
            }
            ArrowShape::Dictionary { key } => {
                readback.nulls =
                    row_validity(column, data_type, data.nulls(), options.null_policy)?;
                readback.dictionary = Some(make_array(child_at(column, &data)?.clone()));
                let values = slice_values(
                    column,
                    buffer_at(column, &data, 0)?,
                    data.offset() as u64,
                    rows,
                    key.byte_width(),
                )?;
                (values, rows)
            }
            ArrowShape::Bytes(_) => {
                readback.nulls =
                    row_validity(column, data_type, data.nulls(), options.null_policy)?;
                let offsets_buffer = buffer_at(column, &data, 0)?;
                let (offsets, first) = if matches!(data_type, ArrowType::Utf8 | ArrowType::Binary) {
                    let (o, first) =
                        rebased_offsets::<i32>(column, offsets_buffer, data.offset(), length)?;
                    (ValueOffsets::Small(o), first)
                } else {
                    let (o, first) =
                        rebased_offsets::<i64>(column, offsets_buffer, data.offset(), length)?;
                    (ValueOffsets::Large(o), first)
                };
                let count = offsets.last();
                let values = slice_values(column, buffer_at(column, &data, 1)?, first, count, 1)?;
                readback.offsets = Some(offsets);
                (values, count)
            }
            ArrowShape::List {
                large,
                scalar,
                components,
                fixed_size_elements,
            } => {
                refuse(
                    column,
                    data_type,
                    data.nulls(),
                    "row",
                    "gpu vectors do not support nullable data",
                )?;
                let child = child_at(column, &data)?;
                let (offsets, first) = if large {
                    let (o, first) = rebased_offsets::<i64>(
                        column,
                        buffer_at(column, &data, 0)?,
                        data.offset(),
                        length,
                    )?;
                    (ValueOffsets::Large(o), first)
                } else {
                    let (o, first) = rebased_offsets::<i32>(
                        column,
                        buffer_at(column, &data, 0)?,
                        data.offset(),
                        length,
                    )?;
                    (ValueOffsets::Small(o), first)
                };
                let elements = offsets.last();
                // Only the elements of this slice's rows: nulls elsewhere in the child belong to
                // other slices.
                refuse_range(
                    column,
                    data_type,
                    child.nulls(),
                    first,
                    elements,
                    "nested value",
                    "gpu vectors do not support nullable nested list data",
                )?;
                let overflow = || ArrowInteropError::Overflow {
                    column: column.to_owned(),
                    what: "the list element range",
                };
                let child_first = first
                    .checked_add(child.offset() as u64)
                    .ok_or_else(overflow)?;
                let (values_data, first_value) = if fixed_size_elements {
                    let grandchild = child_at(column, child)?;
                    let grandchild_first = (child.offset() as u64)
                        .checked_add(first)
                        .and_then(|v| v.checked_mul(u64::from(components)))
                        .ok_or_else(overflow)?;
                    let grandchild_len = elements
                        .checked_mul(u64::from(components))
                        .ok_or_else(overflow)?;
                    refuse_range(
                        column,
                        data_type,
                        grandchild.nulls(),
                        grandchild_first,
                        grandchild_len,
                        "nested value",
                        "gpu vectors do not support nullable nested list data",
                    )?;
                    let first_value = child_first
                        .checked_mul(u64::from(components))
                        .and_then(|v| v.checked_add(grandchild.offset() as u64))
                        .ok_or_else(overflow)?;
                    (grandchild, first_value)
                } else {
                    (child, child_first)
                };
                let count = elements
                    .checked_mul(u64::from(components))
                    .ok_or_else(overflow)?;
                let values = slice_values(
                    column,
                    buffer_at(column, values_data, 0)?,
                    first_value,
                    count,
                    scalar.byte_width(),
                )?;
                readback.offsets = Some(offsets);
                (values, elements)
            }
            // Handled above; kept as an error rather than a panic.
            ArrowShape::Rows { .. } => {
                return Err(ArrowInteropError::UnsupportedType {
                    column: column.to_owned(),
                    data_type: data_type.clone(),
                });
            }
        };
        Ok(ArrowColumnSource {
            values,
            format: SourceFormat::Vector(resolved.format),
            value_length,
            byte_stride: element_bytes,
            fround: resolved.fround,
            unpack_bits: false,
            readback,
        })
    }

    /// A Boolean column to unpack on the GPU into `format` (`uint8` / `uint32`): the bytes are
    /// its bitmap from bit 0 (a slice not starting at a whole byte is shifted on the host, the
    /// bitmap's size), the readback that of the unpacked integers (field and type `UInt8` /
    /// `UInt32`, the column's validity), so that the data reads back as 0/1 integers.
    fn booleans(
        field: &Field,
        array: &dyn Array,
        options: &ColumnOptions,
        format: crate::format::VertexFormat,
    ) -> Result<ArrowColumnSource, ArrowInteropError> {
        let column = field.name().as_str();
        let bools = array
            .as_any()
            .downcast_ref::<arrow_array::BooleanArray>()
            .ok_or_else(|| ArrowInteropError::UnsupportedType {
                column: column.to_owned(),
                data_type: array.data_type().clone(),
            })?;
        let (scalar, int_type) = if format == crate::format::VertexFormat::Uint8 {
            (ArrowScalar::UInt8, ArrowType::UInt8)
        } else {
            (ArrowScalar::UInt32, ArrowType::UInt32)
        };
        let length = bools.len();
        let readback = ArrowReadback {
            column: column.to_owned(),
            field: Arc::new(
                Field::new(column, int_type.clone(), field.is_nullable())
                    .with_metadata(field.metadata().clone()),
            ),
            data_type: int_type,
            shape: ArrowShape::Fixed {
                scalar,
                components: 1,
            },
            length,
            nulls: row_validity(
                column,
                &ArrowType::Boolean,
                bools.nulls(),
                options.null_policy,
            )?,
            offsets: None,
            dictionary: None,
            fround: false,
        };
        Ok(ArrowColumnSource {
            values: bools.values().sliced(),
            format: SourceFormat::Vector(GpuVectorFormat::Fixed(format)),
            value_length: length as u64,
            byte_stride: format.byte_length(),
            fround: false,
            unpack_bits: true,
            readback,
        })
    }

    /// A column named `name` holding `array` (not for interleaved rows, whose layout lives in
    /// field metadata: use [`new`](Self::new)).
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn from_array(
        name: &str,
        array: &dyn Array,
        options: &ColumnOptions,
    ) -> Result<ArrowColumnSource, ArrowInteropError> {
        let field = Field::new(name, array.data_type().clone(), array.null_count() > 0);
        ArrowColumnSource::new(&field, array, options)
    }

    /// The bytes to upload: a zero-copy slice of the Arrow values buffer (for a Boolean column
    /// asked as `uint8` / `uint32`, its bitmap, which [`upload_source`](super::upload_source)
    /// unpacks on the GPU: see [`unpacks_bits`](Self::unpacks_bits)).
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        self.values.as_slice()
    }

    /// The same bytes as a shared Arrow [`Buffer`].
    #[must_use]
    pub fn buffer(&self) -> &Buffer {
        &self.values
    }

    /// The format of the uploaded bytes.
    #[must_use]
    pub fn format(&self) -> &SourceFormat {
        &self.format
    }

    /// The vector format, or `None` for interleaved rows.
    #[must_use]
    pub fn vector_format(&self) -> Option<GpuVectorFormat> {
        match &self.format {
            SourceFormat::Vector(format) => Some(*format),
            SourceFormat::Interleaved(_) => None,
        }
    }

    /// Rows.
    #[must_use]
    pub fn length(&self) -> u64 {
        self.readback.length as u64
    }

    /// Values: rows for fixed formats, list elements for `vertex-list<F>`, bytes for
    /// `value-list<uint8>`.
    #[must_use]
    pub fn value_length(&self) -> u64 {
        self.value_length
    }

    /// Bytes of one fixed row or list element.
    #[must_use]
    pub fn byte_stride(&self) -> u64 {
        self.byte_stride
    }

    /// Whether the uploaded words are float64 values that fround should split into `f32` parts.
    #[must_use]
    pub fn needs_fround(&self) -> bool {
        self.fround
    }

    /// Whether the bytes are a Boolean column's bitmap (one bit per row from bit 0) that the
    /// upload unpacks on the GPU into the [`vector_format`](Self::vector_format)'s `uint8` /
    /// `uint32` 0/1 values, [`byte_stride`](Self::byte_stride) bytes per row.
    #[must_use]
    pub fn unpacks_bits(&self) -> bool {
        self.unpack_bits
    }

    /// The readback metadata.
    #[must_use]
    pub fn readback(&self) -> &ArrowReadback {
        &self.readback
    }

    /// The readback metadata, dropping the borrowed bytes.
    #[must_use]
    pub fn into_readback(self) -> ArrowReadback {
        self.readback
    }
}

/// The values data and first value index of a fixed column: the array itself for primitives,
/// the child for fixed-size lists (whose slots must be valid under every valid row).
fn fixed_values<'d>(
    column: &str,
    data_type: &ArrowType,
    data: &'d ArrayData,
    components: u32,
) -> Result<(&'d ArrayData, u64), ArrowInteropError> {
    if !matches!(data_type, ArrowType::FixedSizeList(..)) {
        return Ok((data, data.offset() as u64));
    }
    let child = child_at(column, data)?;
    refuse_in_valid_rows(
        column,
        data_type,
        data.nulls(),
        data.len() as u64,
        child.nulls(),
        data.offset() as u64,
        components,
    )?;
    let first = (data.offset() as u64)
        .checked_mul(u64::from(components))
        .and_then(|v| v.checked_add(child.offset() as u64))
        .ok_or_else(|| ArrowInteropError::Overflow {
            column: column.to_owned(),
            what: "the first value index",
        })?;
    Ok((child, first))
}
