//! [`TableError`]: columns, record batches, tables and segmented layouts that cannot be built.

use crate::count::Count;
use crate::data::DataError;
use crate::device::GpuError;
use crate::format::VertexFormat;
use crate::layout::{LayoutError, WgslError};

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
    /// A chunk added or appended to a vector that grows in one reallocated buffer.
    #[error(
        "gpu vector `{vector}` grows in one reallocated buffer: {operation} cannot add a chunk; append bytes, values or rows instead"
    )]
    SingleBufferChunk {
        /// The vector.
        vector: String,
        /// `add_data` or `append_chunk`.
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
    /// not an error: the re-layout kernels run over them in several dispatches.
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
    /// A chunked upload or a chunk-by-chunk operation over a list column, whose rows' element
    /// counts the chunks cannot see.
    #[error(
        "gpu vector `{vector}`: chunks need one value per row, found format {format} (list rows cannot be cut into chunks)"
    )]
    ChunkedList {
        /// The vector.
        vector: String,
        /// Its format.
        format: String,
    },
    /// A chunked upload whose rows do not start at the first byte.
    #[error(
        "gpu vector `{vector}`: a chunked upload needs rows from byte 0, found byte offset {byte_offset}"
    )]
    ChunkedByteOffset {
        /// The vector.
        vector: String,
        /// The descriptor's byte offset.
        byte_offset: u64,
    },
    /// [`ChunkOptions::rows_per_chunk`](crate::table::ChunkOptions::rows_per_chunk) of zero.
    #[error("gpu vector `{vector}`: rows per chunk must be at least 1, found 0")]
    ChunkRows {
        /// The vector.
        vector: String,
    },
    /// One row larger than a chunk may be.
    #[error(
        "gpu vector `{vector}`: a row of byte stride {byte_stride} does not fit a chunk of at most {max_chunk_bytes}",
        max_chunk_bytes = Count(*.max_chunk_bytes, "byte")
    )]
    RowExceedsChunk {
        /// The vector.
        vector: String,
        /// Bytes between its rows.
        byte_stride: u64,
        /// The most bytes a chunk may hold.
        max_chunk_bytes: u64,
    },
    /// An input of [`GpuVector::map_chunks`](crate::GpuVector::map_chunks) with another row
    /// count than the first input, or without chunks.
    #[error(
        "map_chunks: gpu vector `{vector}` has {found_rows} in {chunks}, expected {expected_rows} in at least one chunk",
        found_rows = Count(*.found, "row"),
        chunks = Count(*.chunks, "chunk"),
        expected_rows = Count(*.expected, "row")
    )]
    MapLength {
        /// The input.
        vector: String,
        /// The first input's rows.
        expected: u64,
        /// This input's rows.
        found: u64,
        /// This input's chunks.
        chunks: usize,
    },
    /// Invalid data metadata. (A [`DataError::Gpu`] converts to [`TableError::Gpu`] instead, so
    /// a device error reaches a table error one way.)
    #[error(transparent)]
    Data(DataError),
    /// A device error (buffer creation, usage, binding limits).
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// [`GpuTable::filter`](crate::GpuTable::filter) with a mask of another length than the
    /// table.
    #[error("filter: the mask has {found} rows, expected the table's {expected}")]
    MaskLength {
        /// The table's rows.
        expected: u64,
        /// The mask's rows.
        found: u64,
    },
    /// [`GpuVector::mask`](crate::GpuVector::mask) or
    /// [`GpuVector::filter`](crate::GpuVector::filter) with a [`GpuMask`](crate::ops::GpuMask)
    /// of another length than the vectors (or than the predicate's first mask).
    #[error("filter: the chunked mask has {found} rows, expected the vectors' {expected}")]
    ChunkedMaskLength {
        /// The vectors' rows.
        expected: u64,
        /// The mask's rows.
        found: u64,
    },
    /// [`GpuTable::filter`](crate::GpuTable::filter) of a table with an index column, whose
    /// indices name rows that filtering moves: which primitives to keep depends on the
    /// topology, which [`filter_primitives`](crate::GpuTable::filter_primitives) takes.
    #[error(
        "filter: the table has an `indices` column, whose indices name rows that filtering \
         moves; filter_primitives with the table's primitive topology keeps whole primitives"
    )]
    FilterIndexed,
    /// [`GpuTable::filter_primitives`](crate::GpuTable::filter_primitives) with a strip
    /// topology, whose primitives share vertices with their neighbours.
    #[error(
        "filter: `{name}` primitives share vertices with their neighbours, so no list of whole \
         primitives can be kept; expected point-list, line-list or triangle-list",
        name = topology_name(*topology)
    )]
    FilterStrip {
        /// The topology given.
        topology: wgpu::PrimitiveTopology,
    },
    /// [`GpuTable::filter`](crate::GpuTable::filter) of a table with a list column (other
    /// than `indices`): its rows have no fixed place in the buffer to compact.
    #[error(
        "filter: column `{column}` has list rows ({format}), which filtering cannot compact; \
         expected fixed-size rows"
    )]
    FilterList {
        /// The column.
        column: String,
        /// Its format.
        format: String,
    },
    /// The compaction behind [`GpuTable::filter`](crate::GpuTable::filter) refused the table's
    /// data (device errors arrive as [`TableError::Gpu`]).
    #[error("filter: {source}")]
    Filter {
        /// What the operation reported.
        source: crate::ops::OpError,
    },
    /// [`GpuTable::sort_by`](crate::GpuTable::sort_by) of a column whose rows it cannot move
    /// (list rows, struct rows of another size than 4, 8, 12 or 16 bytes): it gathers one
    /// vertex format per row.
    #[error(
        "sort_by: column `{column}` has {format} rows, which sorting cannot move; expected one \
         vertex format per row, or struct rows of 4, 8, 12 or 16 bytes"
    )]
    SortColumn {
        /// The column.
        column: String,
        /// Its format.
        format: String,
    },
    /// [`GpuTable::sort_by`](crate::GpuTable::sort_by) of a column whose readback metadata
    /// cannot follow its rows (batches with different Arrow dictionaries, say).
    #[error(
        "sort_by: column `{column}` carries readback metadata that cannot follow its sorted \
         rows; expected metadata that moves with rows (the same dictionary in every batch)"
    )]
    SortMetadata {
        /// The column.
        column: String,
    },
    /// [`GpuTable::sort_by`](crate::GpuTable::sort_by) of a table with an index column:
    /// moving the rows would leave its indices pointing at other rows.
    #[error("sort_by: the table has an index column `indices`; expected a table without one")]
    SortIndexed,
    /// The sort or gather behind [`GpuTable::sort_by`](crate::GpuTable::sort_by) refused the
    /// table's data (device errors arrive as [`TableError::Gpu`]).
    #[error("sort_by: {source}")]
    Sort {
        /// What the operation reported.
        source: crate::ops::OpError,
    },
    /// A layout that cannot be built or lowered.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// A column or field name that cannot prefix the generated WGSL bindings and accessors.
    #[error(transparent)]
    Wgsl(#[from] WgslError),
}

impl From<crate::ops::kernels::transform::relayout::RelayoutError> for TableError {
    /// A re-layout copy's failure: its rows as a [`TableError::CopyRange`], or the device's error.
    fn from(error: crate::ops::kernels::transform::relayout::RelayoutError) -> Self {
        use crate::ops::kernels::transform::relayout::RelayoutError;
        match error {
            RelayoutError::Range {
                src_offset,
                dst_offset,
                rows,
                row_bytes,
            } => TableError::CopyRange {
                src_offset,
                dst_offset,
                rows,
                row_bytes,
            },
            RelayoutError::Gpu(error) => TableError::Gpu(error),
        }
    }
}

impl From<DataError> for TableError {
    /// [`TableError::Data`], except that a device error the data layer passed on
    /// ([`DataError::Gpu`]) becomes [`TableError::Gpu`]: one path for a [`GpuError`].
    fn from(error: DataError) -> TableError {
        error
            .into_device_error()
            .map_or_else(TableError::Data, TableError::Gpu)
    }
}

impl TableError {
    /// [`TableError::Filter`], or [`TableError::Gpu`] for a device error: one path for a
    /// [`GpuError`].
    pub(crate) fn from_op(error: crate::ops::OpError) -> TableError {
        match error {
            crate::ops::OpError::Gpu { source, .. } => TableError::Gpu(source),
            source => TableError::Filter { source },
        }
    }
}

/// A failure of [`GpuVector::map_chunks`](crate::GpuVector::map_chunks) and the operations on
/// chunked columns (`GpuVector::arithmetic`, `mask`, `filter`, `extent`, `prefix_sum`,
/// `gather`, …): the inputs could not be split, or the operation failed on one piece (for
/// `extent`, `prefix_sum` and `gather`, on the whole column).
#[derive(Debug, thiserror::Error)]
pub enum ChunkMapError<E> {
    /// The inputs cannot be split into pieces (see
    /// [`GpuVector::map_chunks`](crate::GpuVector::map_chunks)), or the outputs cannot form one
    /// vector.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The operation failed on the piece of rows `first_row..first_row + rows`.
    #[error(
        "gpu vector `{vector}`: the operation failed on {piece_rows} from row {first_row}: {source}",
        piece_rows = Count(*.rows, "row")
    )]
    Piece {
        /// The output vector's name (for `extent`, `prefix_sum` and `gather`, the name of the
        /// vector they ran over).
        vector: String,
        /// The piece's first row among the vectors' rows.
        first_row: u64,
        /// The piece's rows.
        rows: u64,
        /// The operation's error.
        #[source]
        source: E,
    },
}

impl<E> ChunkMapError<E> {
    /// The operation's error `source` on the piece of rows `start..end` of output `vector`.
    pub(crate) fn piece(vector: &str, start: u64, end: u64, source: E) -> Self {
        ChunkMapError::Piece {
            vector: vector.to_owned(),
            first_row: start,
            rows: end - start,
            source,
        }
    }
}

/// WebGPU's name of a primitive topology, for messages.
fn topology_name(topology: wgpu::PrimitiveTopology) -> &'static str {
    match topology {
        wgpu::PrimitiveTopology::PointList => "point-list",
        wgpu::PrimitiveTopology::LineList => "line-list",
        wgpu::PrimitiveTopology::LineStrip => "line-strip",
        wgpu::PrimitiveTopology::TriangleList => "triangle-list",
        wgpu::PrimitiveTopology::TriangleStrip => "triangle-strip",
    }
}
