//! [`OpError`]: operations that cannot run on their inputs. The kernels under `ops/kernels/`
//! raise most of its variants (input checks, device limits, the device's refusals), the
//! operations theirs (formats, fields, constants); `gpudata::ops::OpError` and `gpudata::OpError`
//! name it.

use crate::count::Count;
use crate::data::DataError;
use crate::device::GpuError;
use crate::format::VertexFormat;

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
    /// A literal operand with no lanes or more than four.
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
    /// An operation given another number of operands than it takes.
    #[error(
        "{op}: expected {expected_operands}, found {found}",
        expected_operands = Count(*.expected, "operand")
    )]
    Arity {
        /// The operation.
        op: &'static str,
        /// The operands it takes.
        expected: usize,
        /// The operands given.
        found: usize,
    },
    /// A swizzle column past the input's lanes.
    #[error(
        "{op}: column {column} is out of range: expected 0 to {last} for an input of {lanes} lanes",
        last = .lanes.saturating_sub(1)
    )]
    LaneOutOfRange {
        /// The operation.
        op: &'static str,
        /// The column asked for.
        column: u32,
        /// The input's lane count.
        lanes: u32,
    },
    /// An output of no lanes or of more than a vertex format holds.
    #[error(
        "{op}: the output would have {output_lanes}: expected 1 to 4",
        output_lanes = Count(*.lanes, "lane")
    )]
    OutputLanes {
        /// The operation.
        op: &'static str,
        /// The lane count asked for.
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
        "{op}: needs {what} of {size_bytes}, exceeding the device limit {limit}",
        size_bytes = Count(*.size, "byte")
    )]
    TooLarge {
        /// The operation.
        op: &'static str,
        /// What is too large, with its article (`a storage binding`, `an output buffer`).
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
    /// An operand whose lane count the operation cannot combine with the others: comparisons of
    /// a mask predicate, `select` (1 or the output's lanes), `dot` and `equalAll` (equal lanes).
    #[error(
        "{op}: operand {input} has {found_lanes}, expected {expected}",
        found_lanes = Count(u64::from(*.found), "lane")
    )]
    LaneMismatch {
        /// The operation.
        op: &'static str,
        /// The operand's position (its column's index in the predicate).
        input: usize,
        /// The lanes needed: those of the column it is compared with or of the other operand
        /// (`dot`, `equalAll`), or the output's (`select`, which also takes one lane).
        expected: u32,
        /// Its lanes.
        found: u32,
    },
    /// An operation that needs at least one row (`extent`) given none.
    #[error("{op}: expected at least one row, found none")]
    Empty {
        /// The operation.
        op: &'static str,
    },
    /// `top_k` asked for more rows than the keys have.
    #[error("{op}: expected k at most the row count {rows}, found {k}")]
    TopKTooLarge {
        /// The operation.
        op: &'static str,
        /// The rows asked for.
        k: u64,
        /// The rows of the keys.
        rows: u64,
    },
    /// `sequence` with a step of 0.
    #[error("{op}: expected a step other than 0")]
    ZeroStep {
        /// The operation.
        op: &'static str,
    },
    /// Rows past the end of a mask (or column) asked for.
    #[error("{op}: rows {first}..{first} + {rows} reach past the {length} rows")]
    RowsOutOfRange {
        /// The operation.
        op: &'static str,
        /// The first row asked for.
        first: u64,
        /// The rows asked for.
        rows: u64,
        /// The rows there are.
        length: u64,
    },
    /// Segment starts that do not begin at 0.
    #[error("{op}: segment starts must begin at 0, found {value}")]
    FirstSegment {
        /// The operation.
        op: &'static str,
        /// The first start.
        value: i64,
    },
    /// A segment start below the one before it.
    #[error(
        "{op}: segment start {row} is {value}, expected at least {previous} (starts never decrease)"
    )]
    DecreasingSegment {
        /// The operation.
        op: &'static str,
        /// The start's row.
        row: u64,
        /// Its value.
        value: i64,
        /// The start before it.
        previous: i64,
    },
    /// A last segment start past the vertex count.
    #[error(
        "{op}: the last segment starts at {start}, expected at most the vertex count {vertex_count}"
    )]
    SegmentPastEnd {
        /// The operation.
        op: &'static str,
        /// The last start.
        start: i64,
        /// The vertex count.
        vertex_count: u64,
    },
    /// An argument of an aggregation out of its range: a histogram of no bins or over a range
    /// that is not finite, a grid of no cells, more distinct group keys than expected.
    #[error("{op}: {argument} is {found}, expected {expected}")]
    InvalidArgument {
        /// The operation.
        op: &'static str,
        /// The argument, with its article (`the bin count`, `the range`).
        argument: &'static str,
        /// What it may be.
        expected: &'static str,
        /// What it is.
        found: String,
    },
    /// A node of a fused expression ([`Expr`](super::Expr)) that cannot be computed: `node` is
    /// the sub-expression as it reads (`(c0 * c1)`), `source` its operation's error.
    #[error("evaluate: in `{node}`: {source}")]
    Expression {
        /// The node, written out.
        node: String,
        /// Why it cannot be computed.
        source: Box<OpError>,
    },
    /// The device refused the operation's work: a kernel it cannot compile, buffers or
    /// bindings it rejects, a submission that uses a destroyed buffer, or no memory left.
    #[error("{op}: {source}")]
    Gpu {
        /// The operation.
        op: &'static str,
        /// What the device layer reported.
        source: GpuError,
    },
    /// The data layer refused the data an operation uploads or builds (a descriptor that does not
    /// fit its buffer). Device errors the data layer passes on arrive as [`OpError::Gpu`].
    #[error("{op}: {source}")]
    Data {
        /// The operation.
        op: &'static str,
        /// What the data layer reported.
        source: DataError,
    },
}

impl OpError {
    /// `Ok` when input `input` of `op` holds the `expected` rows, else
    /// [`OpError::LengthMismatch`]: the one equal-length rule of every operation's inputs, on the
    /// GPU and in the CPU reference.
    pub(crate) fn check_length(
        op: &'static str,
        input: usize,
        expected: u64,
        found: u64,
    ) -> Result<(), OpError> {
        if found == expected {
            Ok(())
        } else {
            Err(OpError::LengthMismatch {
                op,
                input,
                expected,
                found,
            })
        }
    }

    /// [`OpError::Data`], or [`OpError::Gpu`] for a device error the data layer passed on
    /// ([`DataError::Gpu`]): one path for a [`GpuError`].
    pub(crate) fn data(op: &'static str, source: DataError) -> OpError {
        match source.into_device_error() {
            Ok(source) => OpError::Gpu { op, source },
            Err(source) => OpError::Data { op, source },
        }
    }
}
