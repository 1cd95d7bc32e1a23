//! Error types, one enum per area. Messages are lowercase, state what was expected and what was
//! found, and name the field, format or value involved.

use crate::format::{DataType, VertexFormat};
use crate::layout::LayoutRuleError;

/// A format string or format combination that does not exist.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// The string names no vertex format.
    #[error(
        "unsupported vertex format `{format}`: expected a WebGPU vertex format such as `float32x3`, `unorm8x4` or `uint16x3-webgl`"
    )]
    UnknownVertexFormat {
        /// The string given.
        format: String,
    },
    /// The string is neither a vertex format nor `vertex-list<F>` / `value-list<F>`.
    #[error(
        "unsupported gpu vector format `{format}`: expected a vertex format, `vertex-list<F>` or `value-list<F>`"
    )]
    UnknownVectorFormat {
        /// The string given.
        format: String,
    },
    /// The string names no shader attribute type.
    #[error(
        "unsupported attribute shader type `{shader_type}`: expected `f32`, `f16`, `i32`, `u32`, `vecN<T>` or an alias such as `vec3f`"
    )]
    UnknownShaderType {
        /// The string given.
        shader_type: String,
    },
    /// A `-webgl` format has no wgpu equivalent.
    #[error(
        "vertex format `{format}` is WebGL-only: wgpu cannot fetch it; use a 4-component format"
    )]
    WebglOnly {
        /// The format.
        format: VertexFormat,
    },
    /// No format has this data type and component count.
    #[error("no vertex format has {components} components of {data_type}")]
    NoSuchFormat {
        /// The data type asked for.
        data_type: DataType,
        /// The component count asked for.
        components: u32,
    },
}

/// A struct format or buffer layout that cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// The layout string is not `wgsl-storage` or `packed`.
    #[error("unknown struct layout `{layout}`: expected `wgsl-storage` or `packed`")]
    UnknownLayout {
        /// The string given.
        layout: String,
    },
    /// The step mode string is not `vertex` or `instance`.
    #[error("unknown step mode `{step_mode}`: expected `vertex` or `instance`")]
    UnknownStepMode {
        /// The string given.
        step_mode: String,
    },
    /// A field's format string names no vertex format.
    #[error("field `{field}` has unsupported vertex format `{format}`")]
    UnknownFormat {
        /// The field.
        field: String,
        /// The string given.
        format: String,
    },
    /// The struct declares no field.
    #[error("a gpu struct format must declare at least one field")]
    NoFields,
    /// Two fields share a name.
    #[error("duplicate field `{field}`: fields {first} and {second} share the name")]
    DuplicateField {
        /// The name.
        field: String,
        /// Position of the first.
        first: usize,
        /// Position of the second.
        second: usize,
    },
    /// A packed struct holds a `-webgl` format.
    #[error(
        "packed struct field `{field}` uses WebGL-only format `{format}`: the packed layout follows WebGPU vertex rules; use a 4-component format or the wgsl-storage layout"
    )]
    WebglOnlyInPacked {
        /// The field.
        field: String,
        /// Its format.
        format: VertexFormat,
    },
    /// Offsets overflow `u64`.
    #[error("struct offsets overflow at field `{field}`")]
    Overflow {
        /// The field being placed.
        field: String,
    },
    /// A buffer layout has neither attributes nor a format.
    #[error("buffer layout `{layout}` has no attributes and no format")]
    NoAttributes {
        /// The layout name.
        layout: String,
    },
    /// An interleaved buffer layout has no byte stride.
    #[error("buffer layout `{layout}` requires a byte stride for interleaved attributes")]
    NoByteStride {
        /// The layout name.
        layout: String,
    },
    /// A vertex buffer stride that is not a multiple of 4.
    #[error(
        "buffer layout `{layout}` has byte stride {byte_stride}: wgpu vertex strides must be a multiple of 4"
    )]
    MisalignedStride {
        /// The layout name.
        layout: String,
        /// The stride.
        byte_stride: u64,
    },
    /// An attribute offset not aligned to `min(4, byte length)`.
    #[error(
        "attribute `{attribute}` at byte offset {byte_offset}: vertex attributes must be aligned to {alignment} bytes"
    )]
    MisalignedAttribute {
        /// The attribute.
        attribute: String,
        /// Its offset.
        byte_offset: u64,
        /// The required alignment.
        alignment: u64,
    },
    /// An attribute that ends past the stride.
    #[error(
        "attribute `{attribute}` spans bytes {byte_offset}..{byte_offset}+{byte_length}, past the byte stride {byte_stride}"
    )]
    AttributeOutsideStride {
        /// The attribute.
        attribute: String,
        /// Its offset.
        byte_offset: u64,
        /// Its length.
        byte_length: u64,
        /// The stride.
        byte_stride: u64,
    },
    /// A `-webgl` format in a wgpu vertex layout.
    #[error(
        "attribute `{attribute}` uses WebGL-only format `{format}`, which wgpu cannot fetch as a vertex attribute"
    )]
    WebglOnlyVertexAttribute {
        /// The attribute.
        attribute: String,
        /// Its format.
        format: VertexFormat,
    },
    /// Shader locations past `u32::MAX`.
    #[error("shader locations starting at {base_location} overflow u32")]
    LocationOverflow {
        /// The first location.
        base_location: u32,
    },
    /// A serialized struct format whose stated numbers disagree with its fields.
    #[error("serialized struct format states {what} {found}, but its fields give {expected}")]
    Inconsistent {
        /// Which number (`byteOffset of field "a"`, `byteStride`, ...).
        what: String,
        /// What the fields give.
        expected: u64,
        /// What was stated.
        found: u64,
    },
}

impl LayoutError {
    /// Names the fields of a [`LayoutRuleError`] found by the `const fn` engine.
    pub(crate) fn from_rule(error: LayoutRuleError, name_of: impl Fn(usize) -> String) -> Self {
        match error {
            LayoutRuleError::NoFields => LayoutError::NoFields,
            LayoutRuleError::WebglOnlyInPacked { index, format } => {
                LayoutError::WebglOnlyInPacked {
                    field: name_of(index),
                    format,
                }
            }
            LayoutRuleError::Overflow { index } => LayoutError::Overflow {
                field: name_of(index),
            },
            LayoutRuleError::DuplicateName { first, second } => LayoutError::DuplicateField {
                field: name_of(second),
                first,
                second,
            },
        }
    }
}

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
        "gpu data byte stride {byte_stride} is smaller than its struct row layout: expected at least {required} bytes"
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
        "gpu data of fixed format {format} has {length} rows but value length {value_length}: fixed rows hold one value each"
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
        "{what} byte range overflows u64: byte offset {byte_offset}, {count} values every {byte_stride} bytes of {value_byte_length} bytes"
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
        "{what} exceeds its backing buffer: it covers bytes {byte_offset}..{byte_end} but the buffer holds {buffer_size} bytes"
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
    #[error("rows {row_offset}..{row_offset}+{rows} are outside the gpu data's {length} rows")]
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
        "{byte_length} bytes are not a whole number of {format} values of {value_byte_length} bytes"
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
    #[error("decoding {count} {format} values needs {needed} bytes, found {found}")]
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
}

/// A device, buffer or binding operation that cannot run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// No adapter could be found.
    #[error(
        "no gpu adapter found ({reason}); to run without a GPU install a software Vulkan driver: `sudo apt-get install mesa-vulkan-drivers` on Debian or Ubuntu (lavapipe), `mesa-vulkan-drivers` on Fedora"
    )]
    NoAdapter {
        /// What wgpu said.
        reason: String,
    },
    /// The adapter refused to create a device.
    #[error("adapter `{adapter}` refused to create a device: {reason}")]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// What wgpu said.
        reason: String,
    },
    /// Waiting for the device failed.
    #[error("waiting for the gpu failed: {reason}")]
    Poll {
        /// What wgpu said.
        reason: String,
    },
    /// Mapping a buffer for reading failed.
    #[error("mapping the readback buffer failed: {reason}")]
    Map {
        /// What wgpu said.
        reason: String,
    },
    /// A buffer without a usage flag an operation needs.
    #[error(
        "cannot {operation}: the buffer needs usage {required:?} but was created with {found:?}"
    )]
    MissingUsage {
        /// What was attempted (`"read back gpu data"`, `"write rows"`, ...).
        operation: &'static str,
        /// The flags needed.
        required: wgpu::BufferUsages,
        /// The buffer's flags.
        found: wgpu::BufferUsages,
    },
    /// A buffer larger than the device allows.
    #[error("a buffer of {size} bytes exceeds the device's max_buffer_size {max}")]
    BufferTooLarge {
        /// Bytes asked for.
        size: u64,
        /// `limits.max_buffer_size`.
        max: u64,
    },
    /// A storage binding at an offset the device cannot bind.
    #[error(
        "storage binding at byte offset {byte_offset}: the device requires storage buffer offsets to be multiples of {alignment} bytes (limits.min_storage_buffer_offset_alignment); upload the data into its own buffer or place it at an aligned offset"
    )]
    StorageOffsetAlignment {
        /// The data's byte offset.
        byte_offset: u64,
        /// `limits.min_storage_buffer_offset_alignment`.
        alignment: u32,
    },
    /// A storage binding whose size the device cannot bind.
    #[error(
        "storage binding of {size} bytes: storage bindings must be non-empty multiples of 4 bytes, at most {max} bytes (limits.max_storage_buffer_binding_size)"
    )]
    StorageBindingSize {
        /// Bytes of the binding.
        size: u64,
        /// `limits.max_storage_buffer_binding_size`.
        max: u64,
    },
    /// A storage binding whose rows extend past the buffer.
    #[error(
        "storage binding of {rows} rows every {byte_stride} bytes at byte offset {byte_offset} needs {needed} bytes, but the buffer holds {buffer_size}"
    )]
    StorageOutOfBuffer {
        /// Rows.
        rows: u64,
        /// Row stride.
        byte_stride: u64,
        /// First byte.
        byte_offset: u64,
        /// One past the last byte bound.
        needed: u64,
        /// The buffer's size.
        buffer_size: u64,
    },
    /// A vertex binding with a stride wgpu cannot fetch.
    #[error(
        "vertex binding with byte stride {byte_stride}: vertex strides must be multiples of 4 bytes, at most {max} (limits.max_vertex_buffer_array_stride)"
    )]
    VertexStride {
        /// The stride.
        byte_stride: u64,
        /// `limits.max_vertex_buffer_array_stride`.
        max: u32,
    },
    /// A vertex binding whose first value cannot be reached from a 4-byte aligned offset.
    #[error(
        "vertex binding of {format} at byte offset {byte_offset}: vertex buffers bind at multiples of 4 bytes, and the {rebase} bytes before the value plus its {format_byte_length} bytes exceed the byte stride {byte_stride}"
    )]
    VertexOffset {
        /// The view's format.
        format: VertexFormat,
        /// The view's byte offset.
        byte_offset: u64,
        /// `byte_offset % 4`.
        rebase: u64,
        /// Bytes of one value.
        format_byte_length: u64,
        /// The stride.
        byte_stride: u64,
    },
    /// A data range that starts where vertex buffers cannot bind.
    #[error(
        "gpu data at byte offset {byte_offset} cannot be bound as a vertex buffer: vertex buffers bind at multiples of 4 bytes; bind its child views, which rebase their attributes, or move the rows"
    )]
    VertexDataOffset {
        /// The data's byte offset.
        byte_offset: u64,
    },
    /// A binding of no bytes.
    #[error("cannot bind an empty range as a {binding}: the data has no rows")]
    EmptyBinding {
        /// `"vertex buffer"`.
        binding: &'static str,
    },
    /// wgpu could not provide staging memory for an upload.
    #[error(
        "wgpu refused to stage {byte_length} bytes for byte offset {byte_offset} (out of memory, or a destroyed or mapped buffer)"
    )]
    Staging {
        /// First byte.
        byte_offset: u64,
        /// Bytes to stage.
        byte_length: u64,
    },
    /// A vertex binding of a format wgpu cannot fetch.
    #[error("vertex binding of {format}: WebGL-only formats cannot be fetched by wgpu")]
    VertexFormat {
        /// The format.
        format: VertexFormat,
    },
    /// A copy that wgpu cannot express (offsets and sizes of copies are multiples of 4).
    #[error(
        "cannot copy bytes {byte_offset}..{byte_end} of a {buffer_size}-byte buffer: copies move whole 4-byte words and the buffer size is not a multiple of 4"
    )]
    UnalignedCopy {
        /// First byte wanted.
        byte_offset: u64,
        /// One past the last byte wanted.
        byte_end: u64,
        /// The buffer's size.
        buffer_size: u64,
    },
    /// A queue write that does not start and end on 4-byte boundaries.
    #[error(
        "cannot write {byte_length} bytes at byte offset {byte_offset}: queue writes start at multiples of 4 bytes and cover whole 4-byte words"
    )]
    UnalignedWrite {
        /// First byte.
        byte_offset: u64,
        /// Bytes to write.
        byte_length: u64,
    },
    /// Invalid data metadata.
    #[error(transparent)]
    Data(#[from] DataError),
    /// A layout that cannot be lowered.
    #[error(transparent)]
    Layout(#[from] LayoutError),
}

/// A struct format that WGSL cannot declare as a storage struct.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WgslError {
    /// A struct or field name that is not a WGSL identifier.
    #[error(
        "`{name}` is not a valid WGSL identifier: expected ASCII letters, digits and `_`, not starting with a digit or `__`, and not a WGSL keyword"
    )]
    InvalidName {
        /// The name.
        name: String,
    },
    /// A field whose offset is not a multiple of its carrier's alignment.
    #[error(
        "field `{field}` at byte offset {byte_offset} cannot be a WGSL storage member: its carrier `{carrier}` needs {alignment}-byte alignment"
    )]
    Misaligned {
        /// The field.
        field: String,
        /// Its offset.
        byte_offset: u64,
        /// Its WGSL carrier type.
        carrier: String,
        /// The carrier's alignment.
        alignment: u64,
    },
    /// A field at an offset WGSL's member placement cannot give it.
    #[error(
        "field `{field}` at byte offset {byte_offset} cannot be a WGSL storage member: WGSL places it at byte {wgsl_offset} or later, after the previous member's carrier"
    )]
    Unreachable {
        /// The field.
        field: String,
        /// Its offset.
        byte_offset: u64,
        /// The first offset WGSL can give it.
        wgsl_offset: u64,
    },
    /// A byte stride WGSL cannot give the struct.
    #[error(
        "byte stride {byte_stride} cannot be a WGSL struct size: expected a multiple of the struct alignment {alignment} of at least {minimum}"
    )]
    Stride {
        /// The format's byte stride.
        byte_stride: u64,
        /// The struct's WGSL alignment.
        alignment: u64,
        /// The smallest size its members allow.
        minimum: u64,
    },
}

/// An operation (`add`, `interleave`, `deinterleave`, `fround`, ...) that cannot run on its
/// inputs, or a device that refused it.
///
/// Every variant names the operation (`op`) and, where one is involved, the input's position,
/// its format and the numbers that disagree, expected before found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OpError {
    /// The operation was given no input.
    #[error("{op}: expected at least one input, found none")]
    NoInputs {
        /// The operation.
        op: &'static str,
    },
    /// Arithmetic over constants only: there is nothing to run on the GPU.
    #[error("{op}: expected at least one GPU input, found only constants")]
    NoGpuInput {
        /// The operation.
        op: &'static str,
    },
    /// A constant operand with no lanes or more than four.
    #[error("{op}: constant {input} has {lanes} lanes: expected 1 to 4")]
    ConstantLanes {
        /// The operation.
        op: &'static str,
        /// The operand's position.
        input: usize,
        /// Its lane count.
        lanes: usize,
    },
    /// Inputs with different row counts.
    #[error("{op}: input {input} has {found} rows, expected {expected} like input 0")]
    LengthMismatch {
        /// The operation.
        op: &'static str,
        /// The input's position.
        input: usize,
        /// The row count of the first input.
        expected: u64,
        /// The row count found.
        found: u64,
    },
    /// A format the operation cannot take.
    #[error("{op}: input {input} has format `{format}`, expected {expected}")]
    UnsupportedFormat {
        /// The operation.
        op: &'static str,
        /// The input's position.
        input: usize,
        /// The format found.
        format: VertexFormat,
        /// What the operation takes.
        expected: &'static str,
    },
    /// A byte offset or stride that is not a multiple of the format's component size.
    #[error(
        "{op}: input {input} (`{format}`) has byte offset {byte_offset} and byte stride {byte_stride}: both must be multiples of {alignment}"
    )]
    Misaligned {
        /// The operation.
        op: &'static str,
        /// The input's position.
        input: usize,
        /// Its format.
        format: VertexFormat,
        /// Its byte offset.
        byte_offset: u64,
        /// Its byte stride.
        byte_stride: u64,
        /// The required alignment.
        alignment: u64,
    },
    /// A byte stride smaller than one value.
    #[error(
        "{op}: input {input} has byte stride {byte_stride}, smaller than the {byte_length} bytes of one `{format}` value"
    )]
    StrideTooSmall {
        /// The operation.
        op: &'static str,
        /// The input's position.
        input: usize,
        /// Its format.
        format: VertexFormat,
        /// Its byte stride.
        byte_stride: u64,
        /// The format's byte length.
        byte_length: u64,
    },
    /// An input whose rows reach past the end of its buffer.
    #[error(
        "{op}: input {input} needs bytes up to {needed}, but its buffer holds {available} bytes"
    )]
    OutOfBounds {
        /// The operation.
        op: &'static str,
        /// The input's position.
        input: usize,
        /// One past the last byte the rows need (rounded up to a whole 32-bit word on the GPU).
        needed: u64,
        /// The buffer's size.
        available: u64,
    },
    /// Offset and length arithmetic that does not fit in `u64`.
    #[error("{op}: byte range of input {input} overflows u64")]
    Overflow {
        /// The operation.
        op: &'static str,
        /// The input's position.
        input: usize,
    },
    /// More rows than one dispatch can index with 32-bit row numbers.
    #[error("{op}: {length} rows, expected at most {max}")]
    TooManyRows {
        /// The operation.
        op: &'static str,
        /// The row count.
        length: u64,
        /// The largest supported row count.
        max: u64,
    },
    /// A struct format whose field count differs from the input count.
    #[error("{op}: struct format has {expected} fields, but {found} inputs were given")]
    FieldCountMismatch {
        /// The operation.
        op: &'static str,
        /// The struct's field count.
        expected: usize,
        /// The input count.
        found: usize,
    },
    /// An input whose bytes cannot be moved into (or out of) a struct field as they are.
    #[error(
        "{op}: field `{field}` has format `{expected}`, but input {input} has `{found}`: interleave and deinterleave move bytes, so formats need the same components and component size"
    )]
    FieldFormatMismatch {
        /// The operation.
        op: &'static str,
        /// The field.
        field: String,
        /// The input's position.
        input: usize,
        /// The field's format.
        expected: VertexFormat,
        /// The input's format.
        found: VertexFormat,
    },
    /// A field name the struct format does not have.
    #[error("{op}: the struct format has no field `{field}`")]
    UnknownField {
        /// The operation.
        op: &'static str,
        /// The name asked for.
        field: String,
    },
    /// The output buffer aliases an input buffer.
    #[error("{op}: output {output} is bound to the same buffer as an input")]
    OutputAliasesInput {
        /// The operation.
        op: &'static str,
        /// The output's position.
        output: usize,
    },
    /// More bindings than the device allows in one shader stage or bind group.
    #[error("{op}: needs {needed} {what}, exceeding the device limit {limit}")]
    TooManyBindings {
        /// The operation.
        op: &'static str,
        /// What is counted (`storage buffers per shader stage`, `bindings per bind group`).
        what: &'static str,
        /// How many the operation needs.
        needed: u64,
        /// The device limit.
        limit: u64,
    },
    /// A binding or buffer larger than the device allows.
    #[error("{op}: needs a {what} of {size} bytes, exceeding the device limit {limit}")]
    TooLarge {
        /// The operation.
        op: &'static str,
        /// What is too large (`storage binding`, `output buffer`).
        what: &'static str,
        /// The size needed.
        size: u64,
        /// The device limit.
        limit: u64,
    },
    /// More workgroups than a two-dimensional dispatch can hold.
    #[error(
        "{op}: needs {workgroups} workgroups, exceeding {limit} per dimension in two dimensions"
    )]
    DispatchTooLarge {
        /// The operation.
        op: &'static str,
        /// The workgroup count.
        workgroups: u64,
        /// The device's per-dimension limit.
        limit: u32,
    },
    /// The device reported an error (validation, out of memory, lost device, failed mapping).
    #[error("{op}: the device reported an error: {message}")]
    Device {
        /// The operation.
        op: &'static str,
        /// The device's message.
        message: String,
    },
}
