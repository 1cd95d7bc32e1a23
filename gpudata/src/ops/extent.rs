//! `extent` (luma.gl's `extent`): the minimum and maximum of every lane over all rows.

use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::format::VertexFormat;
use crate::ops::kernels::Planner;
use crate::ops::kernels::select::reduce::{self, Order};
use crate::ops::kernels::select::rows;
use crate::ops::output::output_data;
use crate::ops::{OpError, OpPlan, OpsConfig};

const OP: &str = "extent";

/// The output format of `extent` over `format` (its data type with two components) and the
/// lane order, or the error for a format it does not take.
pub(crate) fn extent_output(format: VertexFormat) -> Result<(VertexFormat, Order), OpError> {
    let unsupported = || OpError::UnsupportedFormat {
        op: OP,
        input: 0,
        format,
        expected: "a format of 8, 16 or 32-bit components",
    };
    let order = reduce::order(format).ok_or_else(unsupported)?;
    let output =
        VertexFormat::from_parts(format.data_type(), 2, false).map_err(|_| unsupported())?;
    Ok((output, order))
}

/// Plans [`extent`]. `config.rows_per_thread` sets the rows each invocation reduces (default
/// 32, at most 1024); the workgroup size is fixed at 256.
///
/// # Errors
/// As [`extent`].
pub fn plan_extent(
    gpu: &Gpu,
    column: GpuDataView<'_>,
    config: &OpsConfig,
) -> Result<OpPlan<GpuData>, OpError> {
    plan_extent_pieces(gpu, &[column], config)
}

/// Plans the extent of one column held in `pieces` (consecutive row ranges, in order, of one
/// vertex format: the chunks of a column larger than one buffer): the one-buffer result of
/// their rows, all reduced into one accumulator, the NaN rule's first row the first row of the
/// first piece that has rows. Each piece has at most `u32::MAX` rows (any number of pieces).
///
/// # Errors
/// As [`extent`] (`input` in an error is the piece's position), with
/// [`OpError::UnsupportedFormat`] for a piece of another format than the first.
pub(crate) fn plan_extent_pieces(
    gpu: &Gpu,
    pieces: &[GpuDataView<'_>],
    config: &OpsConfig,
) -> Result<OpPlan<GpuData>, OpError> {
    let Some(head) = pieces.first() else {
        return Err(OpError::Empty { op: OP });
    };
    let (format, order) = extent_output(head.format())?;
    let mut moved = 0u64;
    for (i, piece) in pieces.iter().enumerate() {
        rows::check_view(gpu, OP, i, piece)?;
        if piece.format() != head.format() {
            return Err(OpError::UnsupportedFormat {
                op: OP,
                input: i,
                format: piece.format(),
                expected: "the format of the column",
            });
        }
        moved = moved.saturating_add(piece.length() * piece.format().byte_length());
    }
    let pieces: Vec<GpuDataView<'_>> = pieces.iter().filter(|p| p.length() > 0).copied().collect();
    if pieces.is_empty() {
        return Err(OpError::Empty { op: OP });
    }
    if let Some(piece) = pieces.iter().find(|p| p.length() > u64::from(u32::MAX)) {
        return Err(OpError::TooManyRows {
            op: OP,
            length: piece.length(),
            max: u64::from(u32::MAX),
        });
    }
    let planner = Planner::new(gpu, config);
    let lanes = u64::from(head.format().components());
    let output = rows::output_buffer(&planner, OP, lanes * format.byte_length())?;
    let dispatches = reduce::plan(&planner, OP, &pieces, order, &output)?;
    let data = output_data(gpu, OP, &output, format, lanes)?;
    Ok(OpPlan::from_dispatches(gpu, OP, dispatches, moved, data))
}

/// The extent of every lane of `column`: one row per lane, `[minimum, maximum]`, in the
/// column's data type with two components (`float32x3` → three `float32x2` rows, `unorm8x4` →
/// four `unorm8x2` rows holding the stored integers), as luma.gl's `extent`.
///
/// NaN follows luma.gl's CPU backend: a NaN in the first row is the lane's minimum and
/// maximum; NaNs in later rows are skipped. Unlike luma.gl, whose result for `-0` and `+0`
/// depends on which comes first, `-0` is below `+0` (the minimum of both is `-0`, the maximum
/// `+0`), so the result does not depend on the order rows are reduced in; `float16` is compared
/// by value (luma.gl compares its bit patterns). Normalized formats are compared by their stored
/// integers (the order of their values) and the result holds stored integers in the input's
/// normalized type; luma.gl 9.4.2's CPU backend stores the decoded values truncated into the
/// integer type instead (0 or 1 for `unorm8`), a bug gpudata does not copy.
///
/// A column larger than one buffer (a chunked [`GpuVector`](crate::GpuVector)) has the same
/// extent through [`piecewise::extent`](super::piecewise::extent).
///
/// # Errors
/// [`OpError::UnsupportedFormat`] for `unorm10-10-10-2`; [`OpError::Empty`] for no rows; the
/// input checks of every operation; [`OpError::TooLarge`], [`OpError::Gpu`].
pub fn extent(gpu: &Gpu, column: GpuDataView<'_>) -> Result<GpuData, OpError> {
    plan_extent(gpu, column, &OpsConfig::default())?.run(gpu)
}
