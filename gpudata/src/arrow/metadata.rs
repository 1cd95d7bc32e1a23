//! Arrow field metadata for interleaved rows: a `FixedSizeBinary(byte_stride)` column whose
//! field carries the rows' [`BufferLayout`] as an Arrow extension type.
//!
//! The field's `ARROW:extension:name` is [`INTERLEAVED_ROWS_EXTENSION`] and its
//! `ARROW:extension:metadata` is the buffer layout in luma.gl's JSON shape
//! (`{"name":…,"byteStride":…,"attributes":[{"attribute":…,"format":…,"byteOffset":…}]}`), so
//! tools that do not know gpudata still see plain fixed-size binary rows, and luma.gl can read
//! the layout.

use arrow_schema::extension::{EXTENSION_TYPE_METADATA_KEY, EXTENSION_TYPE_NAME_KEY};
use arrow_schema::{DataType as ArrowType, Field};

use super::ArrowInteropError;
use crate::layout::BufferLayout;

/// The Arrow extension type name of interleaved GPU rows.
pub const INTERLEAVED_ROWS_EXTENSION: &str = "gpudata.interleaved_rows";

fn invalid(column: &str, reason: impl Into<String>) -> ArrowInteropError {
    ArrowInteropError::InterleavedMetadata {
        column: column.to_owned(),
        reason: reason.into(),
    }
}

/// Checks that `layout` describes rows of `width` bytes: a byte stride equal to the width and at
/// least one attribute, every attribute inside the row.
fn check_layout(column: &str, layout: &BufferLayout, width: u64) -> Result<(), ArrowInteropError> {
    let stride = layout
        .byte_stride
        .ok_or_else(|| invalid(column, "the buffer layout has no byteStride"))?;
    if stride != width {
        return Err(invalid(
            column,
            format!("the buffer layout's byteStride is {stride} but the rows are {width} bytes"),
        ));
    }
    let attributes = layout.resolved_attributes();
    if attributes.is_empty() {
        return Err(invalid(column, "the buffer layout has no attributes"));
    }
    for attribute in &attributes {
        let end = attribute
            .byte_offset
            .checked_add(attribute.format.byte_length());
        if end.is_none_or(|end| end > width) {
            return Err(invalid(
                column,
                format!(
                    "attribute `{}` ({} at byte offset {}) ends past the {width}-byte row",
                    attribute.attribute, attribute.format, attribute.byte_offset
                ),
            ));
        }
    }
    Ok(())
}

/// A `FixedSizeBinary(byte_stride)` field named `name` whose metadata carries `layout`.
///
/// # Errors
/// [`ArrowInteropError::InterleavedMetadata`] when the layout has no byte stride, a stride of 0
/// or beyond `i32::MAX`, no attributes, or an attribute past the stride.
///
/// ```
/// use gpudata::arrow::{interleaved_field, interleaved_layout};
/// use gpudata::{GpuDataStructFormat, StructLayout};
///
/// let rows = GpuDataStructFormat::parse(
///     StructLayout::Packed,
///     [("position", "float32x3"), ("color", "unorm8x4")],
/// )?;
/// let layout = rows.buffer_layout("instances", None);
/// let field = interleaved_field("instances", &layout, false)?;
/// assert_eq!(field.data_type(), &arrow_schema::DataType::FixedSizeBinary(16));
/// assert_eq!(interleaved_layout(&field)?, Some(layout));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn interleaved_field(
    name: &str,
    layout: &BufferLayout,
    nullable: bool,
) -> Result<Field, ArrowInteropError> {
    let stride = layout
        .byte_stride
        .ok_or_else(|| invalid(name, "the buffer layout has no byteStride"))?;
    let width = i32::try_from(stride)
        .ok()
        .filter(|w| *w > 0)
        .ok_or_else(|| {
            invalid(
                name,
                format!("byteStride {stride} is not a FixedSizeBinary width (1..=i32::MAX)"),
            )
        })?;
    check_layout(name, layout, stride)?;
    let json = serde_json::to_string(layout).map_err(|e| {
        invalid(
            name,
            format!("the buffer layout cannot be written as JSON: {e}"),
        )
    })?;
    Ok(
        Field::new(name, ArrowType::FixedSizeBinary(width), nullable).with_metadata([
            (
                EXTENSION_TYPE_NAME_KEY,
                INTERLEAVED_ROWS_EXTENSION.to_owned(),
            ),
            (EXTENSION_TYPE_METADATA_KEY, json),
        ]),
    )
}

/// The buffer layout of an interleaved-rows field, `None` when the field is not tagged with
/// [`INTERLEAVED_ROWS_EXTENSION`].
///
/// # Errors
/// [`ArrowInteropError::InterleavedMetadata`] when the field is tagged but is not
/// `FixedSizeBinary`, has no or unreadable layout JSON, or a layout that does not describe its
/// rows.
pub fn interleaved_layout(field: &Field) -> Result<Option<BufferLayout>, ArrowInteropError> {
    let column = field.name();
    if field
        .metadata()
        .get(EXTENSION_TYPE_NAME_KEY)
        .map(String::as_str)
        != Some(INTERLEAVED_ROWS_EXTENSION)
    {
        return Ok(None);
    }
    let ArrowType::FixedSizeBinary(width) = field.data_type() else {
        return Err(invalid(
            column,
            format!(
                "{INTERLEAVED_ROWS_EXTENSION} fields must be FixedSizeBinary, found {}",
                field.data_type()
            ),
        ));
    };
    let width = u64::try_from(*width)
        .map_err(|_| invalid(column, format!("negative FixedSizeBinary width {width}")))?;
    let json = field
        .metadata()
        .get(EXTENSION_TYPE_METADATA_KEY)
        .ok_or_else(|| invalid(column, format!("missing `{EXTENSION_TYPE_METADATA_KEY}`")))?;
    let layout: BufferLayout = serde_json::from_str(json)
        .map_err(|e| invalid(column, format!("the buffer layout JSON is invalid: {e}")))?;
    check_layout(column, &layout, width)?;
    Ok(Some(layout))
}
