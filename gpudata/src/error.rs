//! Error types, one enum per area. Messages are lowercase, state what was expected and what was
//! found, and name the field, format or value involved.

use crate::format::{DataType, VertexFormat};
use crate::layout::LayoutRuleError;

mod count;
pub(crate) use count::Count;

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
    #[error(
        "no vertex format has {components} of {data_type}",
        components = Count(*.components, "component")
    )]
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
        "attribute `{attribute}` at byte offset {byte_offset}: vertex attributes must be aligned to {alignment_bytes}",
        alignment_bytes = Count(*.alignment, "byte")
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
    /// A buffer without a usage flag an operation needs. The message names the flags as wgpu
    /// spells them, joined by ` | ` (`COPY_DST | VERTEX`).
    #[error(
        "cannot {operation}: the buffer needs usage {required} but was created with {found}",
        required = UsageNames(*required),
        found = UsageNames(*found)
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
    #[error(
        "a buffer of {size_bytes} exceeds the device's max_buffer_size {max}",
        size_bytes = Count(*.size, "byte")
    )]
    BufferTooLarge {
        /// Bytes asked for.
        size: u64,
        /// `limits.max_buffer_size`.
        max: u64,
    },
    /// A storage binding at an offset the device cannot bind.
    #[error(
        "storage binding at byte offset {byte_offset}: the device requires storage buffer offsets to be multiples of {alignment_bytes} (limits.min_storage_buffer_offset_alignment); upload the data into its own buffer or place it at an aligned offset",
        alignment_bytes = Count(*.alignment, "byte")
    )]
    StorageOffsetAlignment {
        /// The data's byte offset.
        byte_offset: u64,
        /// `limits.min_storage_buffer_offset_alignment`.
        alignment: u32,
    },
    /// A storage binding whose size the device cannot bind.
    #[error(
        "storage binding of {size_bytes}: storage bindings must be non-empty multiples of 4 bytes, at most {max_bytes} (limits.max_storage_buffer_binding_size)",
        size_bytes = Count(*.size, "byte"),
        max_bytes = Count(*.max, "byte")
    )]
    StorageBindingSize {
        /// Bytes of the binding.
        size: u64,
        /// `limits.max_storage_buffer_binding_size`.
        max: u64,
    },
    /// A storage binding whose rows extend past the buffer.
    #[error(
        "storage binding of {rows} every {stride_bytes} at byte offset {byte_offset} needs {needed_bytes}, but the buffer holds {buffer_size}",
        rows = Count(*.rows, "row"),
        stride_bytes = Count(*.byte_stride, "byte"),
        needed_bytes = Count(*.needed, "byte")
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
        "vertex binding of {format} at byte offset {byte_offset}: vertex buffers bind at multiples of 4 bytes, and the {rebase_bytes} before the value plus its {format_bytes} exceed the byte stride {byte_stride}",
        rebase_bytes = Count(*.rebase, "byte"),
        format_bytes = Count(*.format_byte_length, "byte")
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
        "wgpu refused to stage {bytes} for byte offset {byte_offset} (out of memory, or a destroyed or mapped buffer)",
        bytes = Count(*.byte_length, "byte")
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
        "cannot write {bytes} at byte offset {byte_offset}: queue writes start at multiples of 4 bytes and cover whole 4-byte words",
        bytes = Count(*.byte_length, "byte")
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
}

/// Buffer usage flags as wgpu names them, joined by ` | ` (`COPY_DST | VERTEX`), or
/// `no usage flags` when empty.
struct UsageNames(wgpu::BufferUsages);

impl std::fmt::Display for UsageNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("no usage flags");
        }
        for (i, (name, _)) in self.0.iter_names().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
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
    #[error(
        "{op}: constant {input} has {lanes}: expected 1 to 4",
        lanes = Count(*.lanes, "lane")
    )]
    ConstantLanes {
        /// The operation.
        op: &'static str,
        /// The operand's position.
        input: usize,
        /// Its lane count.
        lanes: usize,
    },
    /// Inputs with different row counts.
    #[error(
        "{op}: input {input} has {found_rows}, expected {expected} like input 0",
        found_rows = Count(*.found, "row")
    )]
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
        "{op}: input {input} has byte stride {byte_stride}, smaller than the {value_bytes} of one `{format}` value",
        value_bytes = Count(*.byte_length, "byte")
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
        "{op}: input {input} needs bytes up to {needed}, but its buffer holds {available_bytes}",
        available_bytes = Count(*.available, "byte")
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
    #[error(
        "{op}: {rows}, expected at most {max}",
        rows = Count(*.length, "row")
    )]
    TooManyRows {
        /// The operation.
        op: &'static str,
        /// The row count.
        length: u64,
        /// The largest supported row count.
        max: u64,
    },
    /// A struct format whose field count differs from the input count.
    #[error(
        "{op}: struct format has {expected_fields}, found {found_inputs}",
        expected_fields = Count(*.expected, "field"),
        found_inputs = Count(*.found, "input")
    )]
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
    /// Something an operation cannot split that is larger than the device allows: an output
    /// buffer larger than `max_buffer_size`, or a storage binding larger than
    /// `max_storage_buffer_binding_size` for the smallest run of rows a dispatch can take (one
    /// row's values, or the few rows one invocation writes together, plus the bytes that align
    /// the binding's start). Inputs and outputs longer than one binding are not an error: their
    /// rows are split into several dispatches.
    #[error(
        "{op}: needs a {what} of {size_bytes}, exceeding the device limit {limit}",
        size_bytes = Count(*.size, "byte")
    )]
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
        "{op}: needs {workgroups}, exceeding {limit} per dimension in two dimensions",
        workgroups = Count(*.workgroups, "workgroup")
    )]
    DispatchTooLarge {
        /// The operation.
        op: &'static str,
        /// The workgroup count.
        workgroups: u64,
        /// The device's per-dimension limit.
        limit: u32,
    },
    /// Data that is not what the operation reads: a `GpuData` without one fixed vertex format
    /// where a column is expected, without a struct format where rows are expected, or an Arrow
    /// array with nulls (whose null slots hold no defined value).
    #[error("{op}: expected {expected}, found {found}")]
    WrongData {
        /// The operation (or `input` for a conversion).
        op: &'static str,
        /// What was expected.
        expected: &'static str,
        /// What the data has.
        found: String,
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

/// A column, record batch, table or segmented layout that cannot be built or changed (luma.gl's
/// `GPUVector`, `GPUConstant`, `GPURecordBatch` and `GPUTable` checks, plus the segmented
/// layout's), or GPU work on them that failed.
///
/// Every variant names the vector, column, batch or value involved and, where numbers disagree,
/// states what was expected before what was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// A `buffer` or `appendable` vector with nothing to derive its row byte length from.
    #[error(
        "gpu vector `{vector}` requires a format or an explicit row byte length (or byte stride)"
    )]
    VectorRequiresRowByteLength {
        /// The vector.
        vector: String,
    },
    /// A `data` vector with neither chunks, format nor byte layout options.
    #[error(
        "gpu vector `{vector}` requires a format or explicit byte layout metadata: it has no chunk, format, byte stride or row byte length"
    )]
    VectorRequiresByteLayout {
        /// The vector.
        vector: String,
    },
    /// A chunk of a `data` vector whose format is not the vector's.
    #[error(
        "gpu vector `{vector}` data chunks must share the declared format: expected {expected}, chunk {chunk} has {found}"
    )]
    ChunkFormat {
        /// The vector.
        vector: String,
        /// The chunk's position.
        chunk: usize,
        /// The vector's format.
        expected: String,
        /// The chunk's format.
        found: String,
    },
    /// A chunk added or appended to a vector that describes its rows differently.
    #[error(
        "gpu vector `{vector}`: {operation} requires matching {what}: expected {expected}, found {found}"
    )]
    ChunkMismatch {
        /// The vector.
        vector: String,
        /// `add_data` or `append_chunk`.
        operation: &'static str,
        /// `formats`, `byte stride`, `row byte length` or `byte layout metadata`.
        what: &'static str,
        /// The vector's value.
        expected: String,
        /// The chunk's value.
        found: String,
    },
    /// An append to a vector that is not appendable.
    #[error("gpu vector `{vector}`: {operation} requires appendable vector storage")]
    NotAppendable {
        /// The vector.
        vector: String,
        /// The operation.
        operation: &'static str,
    },
    /// Bytes appended to a list column, whose element counts bytes cannot give.
    #[error(
        "gpu vector `{vector}` of list format {format} cannot grow from bytes or rows: append gpu data chunks that carry their value lengths"
    )]
    ListAppend {
        /// The vector.
        vector: String,
        /// Its format.
        format: String,
    },
    /// Bytes that are not a whole number of rows.
    #[error(
        "gpu vector `{vector}`: byte length {byte_length} is not a whole number of rows of {byte_stride}-byte stride (the last row may omit padding after its {row_bytes})",
        row_bytes = Count(*.row_byte_length, "byte")
    )]
    PartialRows {
        /// The vector.
        vector: String,
        /// The bytes given.
        byte_length: u64,
        /// The row stride.
        byte_stride: u64,
        /// Bytes of one row.
        row_byte_length: u64,
    },
    /// A vector that should have exactly one chunk.
    #[error("gpu vector `{vector}` requires exactly one gpu data chunk, found {found}")]
    ExactlyOneChunk {
        /// The vector.
        vector: String,
        /// Its chunk count.
        found: usize,
    },
    /// Ownership transfer between vectors whose first chunks hold different buffers (or none).
    #[error(
        "gpu vector ownership can only be transferred to the same buffer: the first chunks of `{from_vector}` and `{to_vector}` do not share one"
    )]
    VectorDifferentBuffer {
        /// The vector giving ownership.
        from_vector: String,
        /// The vector receiving it.
        to_vector: String,
    },
    /// Interleaved rows asked of data without a struct format.
    #[error("gpu vector `{vector}` needs struct-formatted gpu data, found {found}")]
    NotStructData {
        /// The vector.
        vector: String,
        /// The data's format.
        found: String,
    },
    /// Rows of another format than the column's.
    #[error("column `{column}` has format {found}, expected {expected}")]
    FormatMismatch {
        /// The column.
        column: String,
        /// The format wanted.
        expected: String,
        /// The column's format.
        found: String,
    },
    /// Lengths, offsets or sizes that do not fit in `u64`.
    #[error("{what} overflows u64")]
    Overflow {
        /// What was being computed.
        what: String,
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
    /// A column name that cannot prefix generated WGSL identifiers.
    #[error(
        "column `{column}` cannot name WGSL bindings: expected an ASCII letter followed by ASCII letters, digits and `_`"
    )]
    WgslName {
        /// The column (or field).
        column: String,
    },
    /// Two columns (or segments, or split fields) with one name.
    #[error("column `{column}` appears twice")]
    DuplicateColumn {
        /// The name.
        column: String,
    },
    /// A batch column with another row count.
    #[error(
        "gpu record batch requires matching gpu data row counts: expected {expected_rows}, column `{column}` has {found}",
        expected_rows = Count(*.expected, "row")
    )]
    BatchRowCount {
        /// The column.
        column: String,
        /// The batch's row count.
        expected: u64,
        /// The column's.
        found: u64,
    },
    /// An explicit batch layout for the index column.
    #[error("gpu record batch buffer layout cannot include reserved index column `indices`")]
    BatchLayoutReservedIndices,
    /// An explicit batch layout naming no column.
    #[error("gpu record batch buffer layout references missing gpu data `{layout}`")]
    BatchLayoutMissingData {
        /// The layout's name.
        layout: String,
    },
    /// A layout to synthesize for a column without a format.
    #[error("{owner} cannot synthesize a buffer layout for `{column}` without a format")]
    NoLayoutFormat {
        /// `gpu record batch` or `gpu table`.
        owner: &'static str,
        /// The column.
        column: String,
    },
    /// A layout to synthesize for a list column.
    #[error(
        "{owner} cannot synthesize a generic buffer layout for {list} column `{column}`: give it an explicit layout"
    )]
    ListLayout {
        /// `gpu record batch` or `gpu table`.
        owner: &'static str,
        /// `vertex-list` or `value-list`.
        list: &'static str,
        /// The column.
        column: String,
    },
    /// An explicit batch field naming no column.
    #[error("gpu record batch schema references missing gpu data `{column}`")]
    SchemaMissingData {
        /// The field's name.
        column: String,
    },
    /// A field to synthesize for a column with neither format nor layout.
    #[error(
        "{owner} cannot synthesize a schema field for `{column}` without a format or buffer layout"
    )]
    NoFieldFormat {
        /// `gpu record batch` or `gpu table`.
        owner: &'static str,
        /// The column.
        column: String,
    },
    /// A table built from no batches.
    #[error("gpu table batches constructor requires at least one gpu record batch")]
    NoBatches,
    /// A batch whose buffer layouts differ from the table's.
    #[error(
        "gpu table {operation} requires matching buffer layouts: batch {batch} has {found}, expected {expected}"
    )]
    BatchLayoutsDiffer {
        /// `from_batches` or `add_batch`.
        operation: &'static str,
        /// The batch's position.
        batch: usize,
        /// The table's layouts, in order, each as its name and what it holds:
        /// ``[`positions` (float32x2, stride 8), `points` (position: float32x3 at 0, color:
        /// unorm8x4 at 12, stride 16, step mode instance)]``.
        expected: String,
        /// The batch's, in the same form.
        found: String,
    },
    /// A batch whose schema differs (names and formats, in order) from the table's.
    #[error(
        "gpu table {operation} requires matching selected schema fields: batch {batch} has {found}, expected {expected}"
    )]
    BatchSchemaDiffers {
        /// `from_batches` or `add_batch`.
        operation: &'static str,
        /// The batch's position.
        batch: usize,
        /// The table's (varying) schema.
        expected: String,
        /// The batch's.
        found: String,
    },
    /// A constant named like a batch column.
    #[error("gpu table constant column `{column}` conflicts with batch gpu data")]
    ConstantConflicts {
        /// The name.
        column: String,
    },
    /// A constant named `indices`.
    #[error("gpu table reserved index column `indices` cannot be constant")]
    ReservedIndicesConstant,
    /// A vector keyed by another name than its own.
    #[error("gpu table column name `{key}` does not match gpu vector name `{name}`")]
    ColumnNameMismatch {
        /// The key.
        key: String,
        /// The vector's name.
        name: String,
    },
    /// A vector chunk that describes its rows differently from the vector.
    #[error(
        "gpu table vectors constructor requires compatible gpu data chunks for `{column}`: chunk {chunk} has {found}, expected {expected}"
    )]
    IncompatibleChunks {
        /// The column.
        column: String,
        /// The chunk's position.
        chunk: usize,
        /// The vector's format and row numbers.
        expected: String,
        /// The chunk's.
        found: String,
    },
    /// Vectors with different chunk counts.
    #[error(
        "gpu table vectors constructor requires matching gpu data chunk counts: expected {expected}, `{column}` has {found}"
    )]
    ChunkCountMismatch {
        /// The column.
        column: String,
        /// The first vector's chunk count.
        expected: usize,
        /// The column's.
        found: usize,
    },
    /// Source info or a null count for several batches at once.
    #[error(
        "gpu table vectors constructor supports source info and null count only with one gpu data chunk, found {chunks}"
    )]
    SourceInfoNeedsOneChunk {
        /// The chunk count.
        chunks: usize,
    },
    /// Chunks of one batch index with different row counts.
    #[error(
        "gpu table vectors constructor requires matching row counts in batch {batch}: expected {expected}, `{column}` has {found}"
    )]
    BatchRowMismatch {
        /// The batch (chunk index).
        batch: usize,
        /// The column.
        column: String,
        /// The first vector's rows.
        expected: u64,
        /// The column's.
        found: u64,
    },
    /// A table of constants only, without a row count.
    #[error("gpu table columns constructor requires num_rows for an all-constant table")]
    NumRowsRequired,
    /// A row count that disagrees with the varying columns.
    #[error(
        "gpu table columns constructor num_rows must match varying columns: expected {expected}, found {found}"
    )]
    NumRowsMismatch {
        /// The varying columns' rows.
        expected: u64,
        /// The row count given.
        found: u64,
    },
    /// A batch without a column the first batch has.
    #[error("gpu table batch {batch} is missing gpu data `{column}`")]
    MissingBatchData {
        /// The column.
        column: String,
        /// The batch's position.
        batch: usize,
    },
    /// A column name the table does not have.
    #[error("gpu table column `{column}` does not exist")]
    UnknownColumn {
        /// The name.
        column: String,
    },
    /// A column without GPU data to detach.
    #[error("gpu table detach_vector: column `{column}` has no gpu data")]
    DetachNoData {
        /// The column.
        column: String,
    },
    /// A batch range that is not `first <= last <= batches`.
    #[error(
        "gpu table detach_batches requires a valid half-open batch range: got {first}..{last} of {batches}",
        batches = Count(*.batches, "batch")
    )]
    BatchRange {
        /// The range start.
        first: usize,
        /// The range end.
        last: usize,
        /// Batches the table holds.
        batches: usize,
    },
    /// Packing a table with an index column.
    #[error("gpu table pack_batches does not support indexed tables")]
    PackIndexed,
    /// A minimum batch size of zero.
    #[error("gpu table pack_batches min_batch_size must be a positive number, found {found}")]
    MinBatchSize {
        /// The size given.
        found: u64,
    },
    /// A group to pack whose first batch has no column.
    #[error("gpu table cannot pack an empty gpu record batch (batch {batch} has no columns)")]
    PackEmptyBatch {
        /// The batch's position.
        batch: usize,
    },
    /// Packing a list column.
    #[error("gpu table pack_batches does not support variable-length gpu data `{column}`")]
    PackVariableLength {
        /// The column.
        column: String,
    },
    /// A GPU copy whose ranges leave their buffers, or one of whose rows (with the bytes that
    /// align its binding) is larger than one storage binding. Copies longer than a binding are
    /// not an error: the strided copy kernel runs over them in several dispatches.
    #[error(
        "cannot copy {rows} of {row_bytes} from byte {src_offset} to byte {dst_offset}: the ranges leave their buffers, or one row exceeds what one storage binding can address",
        rows = Count(*.rows, "row"),
        row_bytes = Count(*.row_bytes, "byte")
    )]
    CopyRange {
        /// First source byte.
        src_offset: u64,
        /// First destination byte.
        dst_offset: u64,
        /// Rows.
        rows: u64,
        /// Bytes per row.
        row_bytes: u64,
    },
    /// A column that cannot be split into fixed-width fields.
    #[error(
        "column `{column}` has neither a format nor buffer layout attributes: its bytes cannot be split into segments or packed columns"
    )]
    UnsplittableColumn {
        /// The column.
        column: String,
    },
    /// A segment alignment that is not a power of two of at least 4.
    #[error("segment alignment {alignment} must be a power of two of at least 4")]
    SegmentAlignment {
        /// The alignment given.
        alignment: u64,
    },
    /// A segment stride shorter than one value.
    #[error(
        "segment `{column}` has byte stride {byte_stride}, smaller than one {format} value ({value_bytes})",
        value_bytes = Count(.format.byte_length(), "byte")
    )]
    SegmentStride {
        /// The column.
        column: String,
        /// The stride.
        byte_stride: u64,
        /// The format.
        format: VertexFormat,
    },
    /// Host bytes that are not the column's values.
    #[error(
        "column `{column}` of {format} needs the bytes of {values}, found {found_bytes}",
        values = Count(*.values, "value"),
        found_bytes = Count(*.found, "byte")
    )]
    HostBytes {
        /// The column.
        column: String,
        /// Its format.
        format: String,
        /// Values expected.
        values: u64,
        /// Bytes given.
        found: u64,
    },
    /// A list column asked to become struct rows.
    #[error("list column `{column}` cannot be interleaved into fixed rows")]
    InterleaveList {
        /// The column.
        column: String,
    },
    /// More rows or indices than one draw counts.
    #[error(
        "cannot draw {rows}: more than one draw can count (u32)",
        rows = Count(*.rows, "row")
    )]
    TooManyRows {
        /// Rows.
        rows: u64,
    },
    /// An `indices` column of a format index buffers cannot hold.
    #[error(
        "index column `indices` has format {found}: expected vertex-list<uint32>, vertex-list<uint16>, uint32 or uint16"
    )]
    IndexFormat {
        /// Its format.
        found: String,
    },
    /// An `indices` column whose indices are not packed at an aligned offset.
    #[error(
        "index column `indices` at byte offset {byte_offset} with byte stride {byte_stride}: index buffers need packed {index_bytes}-byte indices at an aligned offset"
    )]
    IndexLayout {
        /// Its byte offset.
        byte_offset: u64,
        /// Its byte stride.
        byte_stride: u64,
        /// Bytes per index.
        index_bytes: u64,
    },
    /// Values whose components straddle 32-bit words, which storage accessors cannot read.
    #[error(
        "column `{column}` field `{field}` at byte offset {byte_offset} with byte stride {byte_stride}: storage access needs both aligned to {alignment_bytes}",
        alignment_bytes = Count(*.alignment, "byte")
    )]
    StorageMisaligned {
        /// The column.
        column: String,
        /// The field (the column itself for vector formats).
        field: String,
        /// The field's first byte.
        byte_offset: u64,
        /// The row stride.
        byte_stride: u64,
        /// The component size.
        alignment: u64,
    },
    /// Batches whose columns lie at different places inside their storage bindings.
    #[error(
        "batch {batch} needs other WGSL than batch 0: its columns start elsewhere inside their storage bindings; pack or segment the table, or use each batch's own WGSL"
    )]
    StorageBasesDiffer {
        /// The batch.
        batch: usize,
    },
    /// Invalid data metadata.
    #[error(transparent)]
    Data(#[from] DataError),
    /// A device error (buffer creation, usage, binding limits).
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// A layout that cannot be built or lowered.
    #[error(transparent)]
    Layout(#[from] LayoutError),
}
