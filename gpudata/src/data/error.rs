//! [`DataError`]: GPU data and view metadata that describes no valid byte range.

use crate::count::Count;
use crate::device::GpuError;
use crate::format::VertexFormat;

/// GPU data or view metadata that describes no valid byte range (luma.gl's `GPUData` and
/// `GPUDataView` checks, plus the bounds and overflow checks a Rust caller expects).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// A struct-formatted data range whose row byte length is shorter than the struct's rows.
    #[error(
        "gpu data row byte length {row_byte_length} is smaller than struct format row byte length {struct_row_byte_length}"
    )]
    RowByteLengthBelowStruct {
        /// The row byte length given or derived.
        row_byte_length: u64,
        /// The struct format's row byte length.
        struct_row_byte_length: u64,
    },
    /// A struct-formatted data range whose byte stride is shorter than its rows.
    #[error(
        "gpu data byte stride {byte_stride} is smaller than its struct row layout: expected at least {required_bytes}",
        required_bytes = Count(*.required, "byte")
    )]
    ByteStrideBelowStruct {
        /// The byte stride given.
        byte_stride: u64,
        /// `max(struct byte stride, row byte length)`.
        required: u64,
    },
    /// A row byte length shorter than one value of the data's format.
    #[error(
        "gpu data row byte length {row_byte_length} is smaller than {format} byte length {format_byte_length}"
    )]
    RowByteLengthBelowFormat {
        /// The row byte length given.
        row_byte_length: u64,
        /// The data's format (the element format of list formats).
        format: VertexFormat,
        /// Bytes of one value of `format`.
        format_byte_length: u64,
    },
    /// Rows that would overlap: the byte stride is shorter than the row byte length.
    #[error(
        "gpu data byte stride {byte_stride} is smaller than its row byte length {row_byte_length}: rows would overlap"
    )]
    ByteStrideBelowRow {
        /// The byte stride.
        byte_stride: u64,
        /// The row byte length.
        row_byte_length: u64,
    },
    /// A fixed-format data range whose value length differs from its length.
    #[error(
        "gpu data of fixed format {format} has {rows} but value length {value_length}: fixed rows hold one value each",
        rows = Count(*.length, "row")
    )]
    ValueLengthMismatch {
        /// The data's format.
        format: String,
        /// Rows.
        length: u64,
        /// The value length given.
        value_length: u64,
    },
    /// Offsets and lengths whose byte range does not fit in a `u64`.
    #[error(
        "{what} byte range overflows u64: byte offset {byte_offset}, {values} every {stride_bytes} of {value_bytes}",
        values = Count(*.count, "value"),
        stride_bytes = Count(*.byte_stride, "byte"),
        value_bytes = Count(*.value_byte_length, "byte")
    )]
    RangeOverflow {
        /// `"gpu data"` or `"gpu data view"`.
        what: &'static str,
        /// The byte offset.
        byte_offset: u64,
        /// Values (rows or elements).
        count: u64,
        /// The byte stride.
        byte_stride: u64,
        /// Bytes of one value.
        value_byte_length: u64,
    },
    /// A byte range that ends past its buffer.
    #[error(
        "{what} exceeds its backing buffer: it covers bytes {byte_offset}..{byte_end} but the buffer holds {buffer_bytes}",
        buffer_bytes = Count(*.buffer_size, "byte")
    )]
    OutOfBuffer {
        /// `"gpu data"` or `"gpu data view"`.
        what: &'static str,
        /// First byte.
        byte_offset: u64,
        /// One past the last byte.
        byte_end: u64,
        /// The buffer's size.
        buffer_size: u64,
    },
    /// A view whose stride is shorter than one value of its format.
    #[error(
        "gpu data view byte stride {byte_stride} is smaller than {format} byte length {format_byte_length}"
    )]
    ViewByteStrideBelowFormat {
        /// The byte stride given.
        byte_stride: u64,
        /// The view's format.
        format: VertexFormat,
        /// Bytes of one value.
        format_byte_length: u64,
    },
    /// A buffer layout without the attribute asked for.
    #[error("buffer layout `{layout}` does not contain attribute `{attribute}`")]
    MissingAttribute {
        /// The layout's name.
        layout: String,
        /// The attribute asked for.
        attribute: String,
    },
    /// A buffer layout without a byte stride, asked for an attribute view.
    #[error("buffer layout `{layout}` requires a byte stride for attribute views")]
    LayoutWithoutByteStride {
        /// The layout's name.
        layout: String,
    },
    /// Ownership transfer between data over different buffers.
    #[error(
        "gpu data ownership can only be transferred to the same buffer: the source's {source_size}-byte buffer is not the target's {target_size}-byte buffer"
    )]
    DifferentBuffer {
        /// The source buffer's size.
        source_size: u64,
        /// The target buffer's size.
        target_size: u64,
    },
    /// Rows written or read past the end of the data.
    #[error(
        "rows {row_offset}..{row_offset}+{rows} are outside the gpu data's {data_rows}",
        data_rows = Count(*.length, "row")
    )]
    RowsOutOfRange {
        /// First row.
        row_offset: u64,
        /// Rows asked for.
        rows: u64,
        /// Rows the data holds.
        length: u64,
    },
    /// Host bytes that are not a whole number of values.
    #[error(
        "byte length {byte_length} is not a whole number of {format} values of {value_bytes}",
        value_bytes = Count(*.value_byte_length, "byte")
    )]
    PartialValue {
        /// The format.
        format: String,
        /// Bytes given.
        byte_length: u64,
        /// Bytes of one value.
        value_byte_length: u64,
    },
    /// Host bytes too short for the values they should hold.
    #[error(
        "decoding {values} of {format} needs {needed_bytes}, found {found}",
        values = Count(*.count, "value"),
        needed_bytes = Count(*.needed, "byte")
    )]
    ShortBytes {
        /// The format.
        format: VertexFormat,
        /// Values asked for.
        count: u64,
        /// Bytes needed.
        needed: u64,
        /// Bytes given.
        found: u64,
    },
    /// Data whose format is not the one a typed API expects.
    #[error("gpu data format mismatch: expected {expected}, found {found}")]
    FormatMismatch {
        /// The format expected.
        expected: String,
        /// The format found.
        found: String,
    },
    /// A marker naming a field its struct's format does not have.
    #[error(
        "field marker `{marker}` names field {index} `{name}` of a struct format whose field {index} is {found}"
    )]
    MarkerMismatch {
        /// The marker's field name.
        name: &'static str,
        /// The marker type.
        marker: &'static str,
        /// The marker's field index.
        index: usize,
        /// What the struct format has at that index.
        found: String,
    },
    /// Constant components of a Rust type that does not store the format's components.
    #[error("gpu constant format {format} requires {expected} components, received {found}")]
    ConstantScalarType {
        /// The format.
        format: VertexFormat,
        /// The Rust types that store its components.
        expected: &'static str,
        /// The Rust type given.
        found: &'static str,
    },
    /// Constant bytes that are not exactly one value.
    #[error(
        "gpu constant format {format} requires exactly {expected_bytes}, received {found}",
        expected_bytes = Count(*.expected, "byte")
    )]
    ConstantByteLength {
        /// The format.
        format: VertexFormat,
        /// Bytes of one value.
        expected: u64,
        /// Bytes given.
        found: u64,
    },
    /// The device could not do the upload or readback the data asked for (buffer creation,
    /// staging, mapping, a lost device). The one path by which a [`GpuError`] reaches data-level
    /// callers; tables flatten it into their own `TableError::Gpu`.
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

impl DataError {
    /// The device error this data error passes on ([`DataError::Gpu`]), or the data error itself:
    /// the one rule by which every area error nests a data-layer failure (`TableError::Gpu`,
    /// `OpError::Gpu`, `ArrowInteropError::Gpu` for a device error; their `Data` variant
    /// otherwise), so a [`GpuError`] reaches the caller on one path.
    ///
    /// # Errors
    /// The data error itself when it is not a device error.
    pub(crate) fn into_device_error(self) -> Result<GpuError, DataError> {
        match self {
            DataError::Gpu(gpu) => Ok(gpu),
            other => Err(other),
        }
    }
}
