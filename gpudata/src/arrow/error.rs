//! [`ArrowInteropError`]: everything that can go wrong between Arrow and GPU data.

use arrow_schema::DataType as ArrowType;

use crate::count::Count;
use crate::format::{GpuVectorFormat, ShaderType};

/// An Arrow column, record batch or table that cannot go to the GPU, or GPU data that cannot
/// come back as Arrow.
///
/// Every variant names the column involved; type and format mismatches state what was expected
/// and what was found.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ArrowInteropError {
    /// A scalar type with no GPU data type (luma.gl's "Unsupported GPUVector logical type").
    #[error(
        "column `{column}`: unsupported gpu vector logical type {data_type}: expected Int8/16/32, UInt8/16/32, Float16 or Float32 values (Float64 needs an explicit `uint32x2` format or fround; 64-bit integers need `uint32x2`/`sint32x2`)"
    )]
    UnsupportedLogicalType {
        /// The column.
        column: String,
        /// The scalar type found.
        data_type: ArrowType,
    },
    /// An Arrow type that no GPU vector format describes.
    #[error(
        "column `{column}`: gpu vector does not support arrow type {data_type}: expected a primitive, FixedSizeList<primitive, 1..=4>, List of those, Utf8, Binary, Dictionary<_, integer> or FixedSizeBinary with buffer-layout metadata"
    )]
    UnsupportedType {
        /// The column.
        column: String,
        /// The type found.
        data_type: ArrowType,
    },
    /// A fixed-size list whose size is not 1 to 4 (luma.gl's "Cannot synthesize a GPUVector
    /// format for Arrow type").
    #[error(
        "column `{column}`: cannot synthesize a gpu vector format for arrow type {data_type}: expected 1 to 4 components, found {components}"
    )]
    ComponentCount {
        /// The column.
        column: String,
        /// The type found.
        data_type: ArrowType,
        /// The fixed-size list's size.
        components: i64,
    },
    /// Three float16 components, which no vertex format holds.
    #[error(
        "column `{column}`: cannot synthesize a float16x3 gpu vector format for {data_type}: expected 1, 2 or 4 float16 components"
    )]
    Float16x3 {
        /// The column.
        column: String,
        /// The type found.
        data_type: ArrowType,
    },
    /// An explicit format whose bytes do not match the Arrow values.
    #[error(
        "column `{column}`: format {format} cannot carry arrow type {data_type}: expected {expected}"
    )]
    FormatMismatch {
        /// The column.
        column: String,
        /// The type found.
        data_type: ArrowType,
        /// The format asked for.
        format: GpuVectorFormat,
        /// What would fit (`"a fixed format storing 4 x uint8, such as uint8x4 or unorm8x4"`).
        expected: String,
    },
    /// A column whose component count differs from the shader input's.
    #[error(
        "column `{column}` has {components} but shader attribute {shader_type} expects {expected}",
        components = Count(*.components, "component")
    )]
    ShaderComponents {
        /// The column.
        column: String,
        /// Components per row (or list element) of the column.
        components: u32,
        /// The shader input type.
        shader_type: ShaderType,
        /// The shader type's components.
        expected: u32,
    },
    /// A 32-bit integer column bound to a float shader input.
    #[error(
        "column `{column}`: arrow {data_type} cannot be used with {shader_type}: webgpu has no normalized 32-bit integer vertex format"
    )]
    NoNormalized32 {
        /// The column.
        column: String,
        /// The column's GPU data type (`uint32`, `sint32`).
        data_type: crate::format::DataType,
        /// The shader input type.
        shader_type: ShaderType,
    },
    /// A column whose values the shader input cannot read.
    #[error("column `{column}`: arrow {data_type} columns cannot be used with {shader_type}")]
    ShaderTypeMismatch {
        /// The column.
        column: String,
        /// The column's GPU data type.
        data_type: crate::format::DataType,
        /// The shader input type.
        shader_type: ShaderType,
    },
    /// An integer column whose signedness differs from the shader input's.
    #[error(
        "column `{column}`: arrow {data_type} signedness does not match {shader_type}: expected {expected} integers"
    )]
    Signedness {
        /// The column.
        column: String,
        /// The column's GPU data type.
        data_type: crate::format::DataType,
        /// The shader input type.
        shader_type: ShaderType,
        /// `"signed"` or `"unsigned"`.
        expected: &'static str,
    },
    /// A three-component 8/16-bit column that only WebGL can fetch.
    #[error(
        "column `{column}`: arrow {data_type}x3 cannot be used with {shader_type} in portable webgpu layouts: expected 1, 2 or 4 components (or allow webgl-only formats)"
    )]
    NotPortable {
        /// The column.
        column: String,
        /// The column's GPU data type.
        data_type: crate::format::DataType,
        /// The shader input type.
        shader_type: ShaderType,
    },
    /// Nulls in a column whose policy refuses them.
    #[error(
        "column `{column}` ({data_type}) has {null_count} null {what}{s}: {reason}",
        s = if *null_count == 1 { "" } else { "s" }
    )]
    Nulls {
        /// The column.
        column: String,
        /// The column's type.
        data_type: ArrowType,
        /// How many nulls.
        null_count: usize,
        /// What is null, singular: `"row"` or `"nested value"` (the message adds the plural
        /// `s` unless `null_count` is 1).
        what: &'static str,
        /// Why they cannot be carried.
        reason: &'static str,
    },
    /// Sizes or offsets that do not fit the arithmetic (u64, or the Arrow offset type).
    #[error("column `{column}`: {what} overflows")]
    Overflow {
        /// The column.
        column: String,
        /// Which quantity.
        what: &'static str,
    },
    /// Arrow offsets or lengths that point outside the column's values.
    #[error(
        "column `{column}`: {what} {found} is outside the {available_values} the arrow buffers hold",
        available_values = Count(*.available, "value")
    )]
    OutOfBounds {
        /// The column.
        column: String,
        /// Which quantity.
        what: &'static str,
        /// The offending value.
        found: u64,
        /// What the buffers hold.
        available: u64,
    },
    /// Arrow offsets that start below zero (a corrupt or hand-built array).
    #[error(
        "column `{column}`: arrow offsets start at {offset}: expected a first offset of 0 or more"
    )]
    NegativeOffset {
        /// The column.
        column: String,
        /// The first offset.
        offset: i64,
    },
    /// A FixedSizeBinary column without (or with invalid) buffer-layout metadata.
    #[error("column `{column}`: interleaved rows metadata is invalid: {reason}")]
    InterleavedMetadata {
        /// The column.
        column: String,
        /// What is wrong.
        reason: String,
    },
    /// Bytes read back that do not match the column's metadata.
    #[error(
        "column `{column}`: readback of {data_type} needs {expected_bytes}, found {found}",
        expected_bytes = Count(*.expected, "byte")
    )]
    ReadbackLength {
        /// The column.
        column: String,
        /// The Arrow type being rebuilt.
        data_type: ArrowType,
        /// Bytes the metadata describes.
        expected: u64,
        /// Bytes given.
        found: u64,
    },
    /// A column that is larger than the device can hold in one buffer or binding.
    #[error(
        "column `{column}` needs {bytes}, beyond the device's {limit} of {max_bytes}",
        bytes = Count(*.bytes, "byte"),
        max_bytes = Count(*.max, "byte")
    )]
    DeviceLimit {
        /// The column.
        column: String,
        /// Bytes needed.
        bytes: u64,
        /// Which limit (`"max_buffer_size"`).
        limit: &'static str,
        /// The limit's value.
        max: u64,
    },
    /// Record batches whose schemas differ.
    #[error(
        "record batch {batch} schema does not match batch 0: expected fields [{expected}], found [{found}]"
    )]
    SchemaMismatch {
        /// Index of the offending batch.
        batch: usize,
        /// The first batch's fields (`name: type`).
        expected: String,
        /// The offending batch's fields.
        found: String,
    },
    /// A per-column option naming a column the batch does not have.
    #[error("no column `{column}` in the record batch: found [{found}]")]
    MissingColumn {
        /// The name asked for.
        column: String,
        /// The batch's column names.
        found: String,
    },
    /// Arrow refused to build an array.
    #[error("column `{column}`: arrow rejected the rebuilt {data_type} array: {message}")]
    Arrow {
        /// The column.
        column: String,
        /// The type being built.
        data_type: ArrowType,
        /// Arrow's message.
        message: String,
    },
    /// The GPU side failed.
    #[error("column `{column}`: {source}")]
    Gpu {
        /// The column.
        column: String,
        /// What the GPU layer said.
        #[source]
        source: crate::device::GpuError,
    },
    /// GPU data the adapter built for a column was refused by the data layer (a descriptor that
    /// does not fit its bytes). Device errors the data layer passes on arrive as
    /// [`ArrowInteropError::Gpu`] instead.
    #[error("column `{column}`: {source}")]
    Data {
        /// The column.
        column: String,
        /// What the data layer said.
        #[source]
        source: crate::data::DataError,
    },
    /// A GPU operation (fround) failed.
    #[error("column `{column}`: {source}")]
    Op {
        /// The column.
        column: String,
        /// What the operation said.
        #[source]
        source: crate::ops::OpError,
    },
    /// The table layer refused a batch or table.
    #[error(transparent)]
    Table {
        /// What the table layer said.
        #[from]
        source: crate::table::TableError,
    },
    /// A column a segmented table cannot hold as one segment of its single buffer.
    #[error("column `{column}` ({data_type}) cannot be a segment of a segmented table: {reason}")]
    NotSegmentable {
        /// The column.
        column: String,
        /// Its Arrow type.
        data_type: ArrowType,
        /// Why, and what to do instead.
        reason: &'static str,
    },
    /// GPU data that was not uploaded by the Arrow adapter (luma.gl's "Arrow GPUData requires
    /// adapter dataType metadata").
    #[error(
        "arrow readback requires the adapter's readback metadata: expected gpu data uploaded from arrow, found data without it"
    )]
    MissingMetadata,
    /// An Arrow IPC file or stream arrow-ipc refused: an I/O error, bytes that are not IPC,
    /// flatbuffers that do not verify, arrays that do not validate.
    #[error("cannot read the arrow ipc data at {part}: {message}")]
    Ipc {
        /// Where reading failed.
        part: IpcPart,
        /// arrow-ipc's message.
        message: String,
    },
    /// An Arrow IPC file or stream on which arrow-ipc panicked (caught by
    /// [`read_ipc_file`](crate::arrow::read_ipc_file) and
    /// [`read_ipc_stream`](crate::arrow::read_ipc_stream)): a corrupted file whose buffers or
    /// blocks lie outside the bytes arrow-ipc slices them from.
    #[error(
        "cannot read the arrow ipc data at {part}: the data is corrupted (arrow-ipc panicked: {message})"
    )]
    IpcPanic {
        /// Where reading failed.
        part: IpcPart,
        /// The panic's message.
        message: String,
    },
}

/// The part of an IPC file or stream being read when it failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IpcPart {
    /// The schema, the file footer and the dictionaries before the first record batch.
    Header,
    /// The record batch at this index (0-based).
    Batch(usize),
}

impl std::fmt::Display for IpcPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IpcPart::Header => f.write_str("its header (schema, footer or dictionaries)"),
            IpcPart::Batch(index) => write!(f, "record batch {index}"),
        }
    }
}

impl ArrowInteropError {
    /// [`ArrowInteropError::Gpu`] for `column`.
    pub(crate) fn gpu(column: &str, source: crate::device::GpuError) -> ArrowInteropError {
        ArrowInteropError::Gpu {
            column: column.to_owned(),
            source,
        }
    }

    /// [`ArrowInteropError::Op`] for `column`, or [`ArrowInteropError::Gpu`] for a device error
    /// the operation passed on (one path for a [`GpuError`](crate::device::GpuError)).
    pub(crate) fn op(column: &str, source: crate::ops::OpError) -> ArrowInteropError {
        match source {
            crate::ops::OpError::Gpu { source, .. } => ArrowInteropError::gpu(column, source),
            source => ArrowInteropError::Op {
                column: column.to_owned(),
                source,
            },
        }
    }

    /// [`ArrowInteropError::Data`] for `column`, or [`ArrowInteropError::Gpu`] for a device
    /// error the data layer passed on (one path for a [`GpuError`](crate::device::GpuError)).
    pub(crate) fn data(column: &str, source: crate::data::DataError) -> ArrowInteropError {
        match source.into_device_error() {
            Ok(gpu) => ArrowInteropError::gpu(column, gpu),
            Err(source) => ArrowInteropError::Data {
                column: column.to_owned(),
                source,
            },
        }
    }
}
