//! [`PickError`]: picking targets, offsets and row ids that cannot be made, drawn or resolved.

use crate::count::Count;
use crate::device::GpuError;
use crate::format::VertexFormat;
use crate::ops::OpError;
use crate::table::TableError;

/// A picking target, per-batch offsets uniform, point pipeline or row id that cannot be made,
/// drawn, read or resolved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PickError {
    /// A device failure (validation, out of memory, lost device, another device's handle) while
    /// making, drawing or reading back.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// A table draw refused (more rows than a draw counts).
    #[error(transparent)]
    Table(#[from] TableError),
    /// A target of no pixels, or wider or taller than the device's 2D textures.
    #[error(
        "a picking target of {width}x{height} pixels: expected 1 to {max} pixels per side (the device's max_texture_dimension_2d)"
    )]
    TargetSize {
        /// Pixels per row asked for.
        width: u32,
        /// Rows of pixels asked for.
        height: u32,
        /// The device's largest 2D texture side.
        max: u32,
    },
    /// A pixel outside the target.
    #[error("pixel ({x}, {y}) lies outside the {width}x{height} picking target")]
    PixelOutOfRange {
        /// Column of the pixel (0 at the left).
        x: u32,
        /// Row of the pixel (0 at the top).
        y: u32,
        /// The target's width.
        width: u32,
        /// The target's height.
        height: u32,
    },
    /// A rectangle of no pixels, or reaching outside the target.
    #[error(
        "rectangle of {rect_width}x{rect_height} pixels at ({x}, {y}) does not lie inside the {width}x{height} picking target (expected at least one pixel, all inside)"
    )]
    RectOutOfRange {
        /// Left column.
        x: u32,
        /// Top row.
        y: u32,
        /// Columns asked for.
        rect_width: u32,
        /// Rows asked for.
        rect_height: u32,
        /// The target's width.
        width: u32,
        /// The target's height.
        height: u32,
    },
    /// A table whose row ids do not fit the target's `u32` texels with 0 kept for no row.
    #[error(
        "a table of {rows} cannot be picked: a texel holds the row id plus one in 32 bits (0 is no row), so at most 4294967295 rows",
        rows = Count(*.rows, "row")
    )]
    TooManyRows {
        /// The table's rows.
        rows: u64,
    },
    /// A row id read from a target that is not a row of the resolver's table (a target drawn
    /// from another table, or by a shader that wrote its own values).
    #[error("row id {row} is beyond the table's {rows}", rows = Count(*.rows, "row"))]
    RowBeyondTable {
        /// The row id read.
        row: u64,
        /// The table's rows.
        rows: u64,
    },
    /// A batch index past the table's batches.
    #[error("batch {batch} does not exist: the table has {batches}", batches = Count(*.batches, "batch"))]
    BatchOutOfRange {
        /// The batch asked for.
        batch: usize,
        /// The table's batches.
        batches: usize,
    },
    /// A row past its batch's rows.
    #[error("row {row} does not exist in batch {batch} of {rows}", rows = Count(*.rows, "row"))]
    RowBeyondBatch {
        /// The batch.
        batch: usize,
        /// The row asked for.
        row: u64,
        /// The batch's rows.
        rows: u64,
    },
    /// More batches than the `u32` dynamic offsets of one uniform buffer reach.
    #[error(
        "uniform slots for {batches}, {stride} bytes apart, reach past u32::MAX, the largest dynamic offset",
        batches = Count(*.batches, "batch")
    )]
    OffsetOverflow {
        /// The table's batches.
        batches: usize,
        /// Bytes between slots.
        stride: u64,
    },
    /// A position column that the table's render bindings do not have.
    #[error("no vertex attribute `{column}` in the table's render bindings")]
    NoSuchColumn {
        /// The column asked for.
        column: String,
    },
    /// A position column of a format the point pipeline cannot place.
    #[error("position column `{column}` has format {format}: expected {expected}")]
    PositionFormat {
        /// The column.
        column: String,
        /// Its format.
        format: VertexFormat,
        /// What the pipeline reads.
        expected: &'static str,
    },
    /// The row mask of a rectangle ([`PickingTarget::rect_mask`](super::PickingTarget::rect_mask))
    /// would not fit one storage binding of the device.
    #[error(
        "a row mask of {rows} needs {bytes} bytes, over the device's storage binding limit of {limit} bytes",
        rows = Count(*.rows, "row")
    )]
    MaskTooLarge {
        /// The table's rows.
        rows: u64,
        /// The mask's bytes.
        bytes: u64,
        /// The device's limit on one storage binding (or one buffer, if lower).
        limit: u64,
    },
    /// The row mask could not be made from the reduced words.
    #[error(transparent)]
    Mask(#[from] OpError),
}
