//! `gather`, `sequence` and `segmented_map` (luma.gl's operations of the same names): rows at
//! indices, generated indices, and each vertex's segment; and, for the Parquet ingest, ids
//! rewritten in place through a map (`plan_remap_in_place`).

use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::device::transfer::{WaitMode, read_range};
use crate::format::VertexFormat;
use crate::format::codec::{self, ShaderScalar};
use crate::ops::kernels::Planner;
use crate::ops::kernels::select::{index, rows};
use crate::ops::output::{cut_views, output_data};
use crate::ops::{OpError, OpPlan, OpsConfig};

/// Checks a `gather` index column: one component, an integer or float format.
pub(crate) fn check_ids(op: &'static str, format: VertexFormat) -> Result<(), OpError> {
    let ok = format.components() == 1 && !format.is_normalized();
    if ok {
        Ok(())
    } else {
        Err(OpError::UnsupportedFormat {
            op,
            input: 0,
            format,
            expected: "a one-component integer or float index format",
        })
    }
}

/// Plans [`gather`].
///
/// # Errors
/// As [`gather`].
pub fn plan_gather(
    gpu: &Gpu,
    ids: GpuDataView<'_>,
    source: GpuDataView<'_>,
    config: &OpsConfig,
) -> Result<OpPlan<GpuData>, OpError> {
    const OP: &str = "gather";
    check_ids(OP, ids.format())?;
    rows::check_view(gpu, OP, 0, &ids)?;
    rows::check_view(gpu, OP, 1, &source)?;
    for length in [ids.length(), source.length()] {
        if length > u64::from(u32::MAX) {
            return Err(OpError::TooManyRows {
                op: OP,
                length,
                max: u64::from(u32::MAX),
            });
        }
    }
    let planner = Planner::new(gpu, config);
    let row = source.format().byte_length();
    let size = ids
        .length()
        .checked_mul(row)
        .ok_or(OpError::Overflow { op: OP, input: 0 })?;
    let output = rows::output_buffer(&planner, OP, size)?;
    let dispatches = if ids.length() == 0 {
        Vec::new()
    } else {
        index::gather(&planner, OP, &ids, &[source], &output)?
    };
    let data = output_data(gpu, OP, &output, source.format(), ids.length())?;
    Ok(OpPlan::from_dispatches(
        gpu,
        OP,
        dispatches,
        ids.length() * (ids.format().byte_length() + 2 * row),
        data,
    ))
}

/// Plans rewriting packed `uint32` `ids` in place through the packed `uint32` `map`: `ids[i] =
/// map[ids[i]]`, an id outside the map 0 (the category ids a Parquet ingest's worker uploaded,
/// made the stream's). The plan's output is nothing: the ids' buffer (with `STORAGE`) is
/// written.
///
/// # Errors
/// [`OpError::UnsupportedFormat`] for ids or a map of another format than `uint32`, packed;
/// the input checks of every operation; [`OpError::TooLarge`] for a map larger than one
/// binding.
#[cfg(feature = "parquet")]
pub(crate) fn plan_remap_in_place(
    gpu: &Gpu,
    ids: GpuDataView<'_>,
    map: GpuDataView<'_>,
) -> Result<OpPlan<()>, OpError> {
    const OP: &str = "remap";
    for (input, view) in [(0, &ids), (1, &map)] {
        if view.format() != VertexFormat::Uint32 || view.byte_stride() != 4 {
            return Err(OpError::UnsupportedFormat {
                op: OP,
                input,
                format: view.format(),
                expected: "packed uint32 ids",
            });
        }
        rows::check_view(gpu, OP, input, view)?;
    }
    let planner = Planner::new(gpu, &OpsConfig::default());
    let dispatches = if ids.length() == 0 {
        Vec::new()
    } else {
        index::remap_in_place(&planner, OP, &ids, &map)?
    };
    Ok(OpPlan::from_dispatches(
        gpu,
        OP,
        dispatches,
        ids.length() * 12,
        (),
    ))
}

/// The rows of `source` at the row indices in `ids`, as luma.gl's `gather`: one output row per
/// index, in `source`'s format (its stored bytes copied). An index that is not an integer in
/// `0..source.length()` (negative, too large, fractional, NaN) gives a zero row. Indices may be
/// any one-component integer or float format (`float16` by value); normalized formats are
/// refused (luma.gl would use their stored integers). Rows of a normalized source keep their
/// bytes and format; luma.gl 9.4.2's CPU backend stores their decoded values truncated into the
/// integer type instead (zeroing `unorm8` rows), a bug gpudata does not copy.
///
/// Inputs larger than one storage binding are split as in the other operations: the indices
/// and the output into runs, the source into parts, each part a dispatch that writes the rows
/// whose indices fall into it (so a source of `k` parts reads the indices `k` times). A source
/// larger than one buffer (a chunked [`GpuVector`](crate::GpuVector)) is gathered from by
/// [`piecewise::gather`](super::piecewise::gather), each chunk bound as such parts.
///
/// # Errors
/// [`OpError::UnsupportedFormat`] for an index format it does not take; the input checks of
/// every operation; [`OpError::TooManyRows`], [`OpError::TooLarge`], [`OpError::Gpu`].
pub fn gather(
    gpu: &Gpu,
    ids: GpuDataView<'_>,
    source: GpuDataView<'_>,
) -> Result<GpuData, OpError> {
    plan_gather(gpu, ids, source, &OpsConfig::default())?.run(gpu)
}

/// [`gather`] from a source held in `sources` (consecutive row ranges of `format`, in order:
/// the chunks of a column larger than one buffer; index `i` addresses row `i` of them all) at
/// the indices held in `ids` (consecutive ranges too): one output per range of indices, in
/// order, cut where an output would not fit one buffer. Indices of no rows give one empty
/// output. The rows equal [`gather`]'s over the same rows in one buffer.
///
/// # Errors
/// As [`gather`]: input `0` is the indices, `1` the source (with
/// [`OpError::UnsupportedFormat`] for a source range of another format than `format`);
/// [`OpError::TooManyRows`] for a source of more than `u32::MAX` rows (the indices are 32-bit).
pub(crate) fn gather_pieces(
    gpu: &Gpu,
    ids: &[GpuDataView<'_>],
    sources: &[GpuDataView<'_>],
    format: VertexFormat,
) -> Result<Vec<GpuData>, OpError> {
    const OP: &str = "gather";
    for piece in ids {
        check_ids(OP, piece.format())?;
        rows::check_view(gpu, OP, 0, piece)?;
    }
    let mut length = 0u64;
    for source in sources {
        rows::check_view(gpu, OP, 1, source)?;
        if source.format() != format {
            return Err(OpError::UnsupportedFormat {
                op: OP,
                input: 1,
                format: source.format(),
                expected: "the format of the source column",
            });
        }
        length = length
            .checked_add(source.length())
            .ok_or(OpError::Overflow { op: OP, input: 1 })?;
    }
    if length > u64::from(u32::MAX) {
        return Err(OpError::TooManyRows {
            op: OP,
            length,
            max: u64::from(u32::MAX),
        });
    }
    let sources: Vec<GpuDataView<'_>> =
        sources.iter().filter(|s| s.length() > 0).copied().collect();
    let planner = Planner::new(gpu, &OpsConfig::default());
    let row = format.byte_length();
    let limit = gpu.limits().max_buffer_size;
    let most = (limit / row.max(1)).min(u64::from(u32::MAX));
    if most == 0 {
        return Err(OpError::TooLarge {
            op: OP,
            what: "an output buffer",
            size: row,
            limit,
        });
    }
    let cut = cut_views(ids, most);
    if cut.is_empty() {
        let output = rows::output_buffer(&planner, OP, 0)?;
        return Ok(vec![output_data(gpu, OP, &output, format, 0)?]);
    }
    let mut outputs = Vec::with_capacity(cut.len());
    for piece in &cut {
        // In range: at most `most` rows of `row` bytes, which fit `max_buffer_size`.
        let run = || {
            let output = rows::output_buffer(&planner, OP, piece.length() * row)?;
            let dispatches = index::gather(&planner, OP, piece, &sources, &output)?;
            let data = output_data(gpu, OP, &output, format, piece.length())?;
            let moved = piece.length() * (piece.format().byte_length() + 2 * row);
            OpPlan::from_dispatches(gpu, OP, dispatches, moved, data).run(gpu)
        };
        match run() {
            Ok(data) => outputs.push(data),
            Err(error) => {
                outputs.into_iter().for_each(GpuData::destroy);
                return Err(error);
            }
        }
    }
    Ok(outputs)
}

/// `count` `sint32` values `start + i × step` in wrapping 32-bit arithmetic, as luma.gl's
/// `sequence(count, start, step)` stores them in an `Int32Array`.
///
/// # Errors
/// [`OpError::ZeroStep`] for a step of 0 (luma.gl's rule), [`OpError::TooLarge`],
/// [`OpError::Gpu`].
pub fn sequence(gpu: &Gpu, count: u32, start: i32, step: i32) -> Result<GpuData, OpError> {
    const OP: &str = "sequence";
    if step == 0 {
        return Err(OpError::ZeroStep { op: OP });
    }
    let planner = Planner::new(gpu, &OpsConfig::default());
    let length = u64::from(count);
    let output = rows::output_buffer(&planner, OP, length * 4)?;
    let dispatches = if count == 0 {
        Vec::new()
    } else {
        index::sequence(&planner, OP, length, start, step, &output)?
    };
    let data = output_data(gpu, OP, &output, VertexFormat::Sint32, length)?;
    OpPlan::from_dispatches(gpu, OP, dispatches, length * 4, data).run(gpu)
}

/// Checks segment starts as luma.gl does: at least one, a one-component integer format, the
/// first 0, never decreasing, the last at most `vertex_count`.
pub(crate) fn check_segments(
    op: &'static str,
    format: VertexFormat,
    starts: &[i64],
    vertex_count: u64,
) -> Result<(), OpError> {
    if format.components() != 1 || !format.data_type().is_integer() || format.is_normalized() {
        return Err(OpError::UnsupportedFormat {
            op,
            input: 0,
            format,
            expected: "a one-component integer format",
        });
    }
    let Some(&first) = starts.first() else {
        return Err(OpError::Empty { op });
    };
    if first != 0 {
        return Err(OpError::FirstSegment { op, value: first });
    }
    for (row, pair) in starts.windows(2).enumerate() {
        if pair[1] < pair[0] {
            return Err(OpError::DecreasingSegment {
                op,
                row: row as u64 + 1,
                value: pair[1],
                previous: pair[0],
            });
        }
    }
    let last = starts.last().copied().unwrap_or(0);
    if u64::try_from(last).map_or(true, |l| l > vertex_count) {
        return Err(OpError::SegmentPastEnd {
            op,
            start: last,
            vertex_count,
        });
    }
    Ok(())
}

/// The values of `view`, a one-lane integer column (segment starts or offsets), read back as
/// `i64` (this waits for the GPU).
///
/// # Errors
/// [`OpError::Gpu`] when the readback fails.
pub(crate) fn read_integers(
    gpu: &Gpu,
    op: &'static str,
    view: &GpuDataView<'_>,
) -> Result<Vec<i64>, OpError> {
    let bytes = pollster::block_on(read_range(
        gpu,
        view.buffer(),
        view.byte_offset(),
        view.byte_length(),
        "read back the segment starts",
        WaitMode::Block,
    ))
    .map_err(|source| OpError::Gpu { op, source })?;
    let stride = usize::try_from(view.byte_stride()).unwrap_or(usize::MAX);
    Ok((0..view.length() as usize)
        .map(|i| {
            integer(codec::decode_lane(
                view.format(),
                bytes.get(i * stride..).unwrap_or(&[]),
                0,
            ))
        })
        .collect())
}

/// A decoded integer as `i64`.
pub(crate) fn integer(value: Option<ShaderScalar>) -> i64 {
    match value {
        Some(ShaderScalar::I32(v)) => i64::from(v),
        Some(ShaderScalar::U32(v)) => i64::from(v),
        _ => 0,
    }
}

/// For each vertex `v` of `0..vertex_count`, `[segment, v - start of segment]` as `uint32x2`,
/// as luma.gl's `segmentedMap`: `segments` holds the segments' first vertices (the first 0,
/// never decreasing; repeated starts are empty segments, which no vertex maps to); vertex `v`
/// belongs to the last segment starting at or before it.
///
/// The starts are read back and checked first (luma.gl checks them on the CPU too), so this
/// waits for the GPU once.
///
/// # Errors
/// [`OpError::UnsupportedFormat`] for starts that are not one-component integers;
/// [`OpError::Empty`] for no starts; [`OpError::FirstSegment`],
/// [`OpError::DecreasingSegment`], [`OpError::SegmentPastEnd`]; [`OpError::TooManyRows`] past
/// `u32::MAX` vertices; the input checks of every operation; [`OpError::TooLarge`],
/// [`OpError::Gpu`].
pub fn segmented_map(
    gpu: &Gpu,
    segments: GpuDataView<'_>,
    vertex_count: u64,
) -> Result<GpuData, OpError> {
    const OP: &str = "segmented_map";
    let format = segments.format();
    rows::check_view(gpu, OP, 0, &segments)?;
    if vertex_count > u64::from(u32::MAX) {
        return Err(OpError::TooManyRows {
            op: OP,
            length: vertex_count,
            max: u64::from(u32::MAX),
        });
    }
    let starts = if format.components() == 1 && format.data_type().is_integer() {
        read_integers(gpu, OP, &segments)?
    } else {
        Vec::new()
    };
    check_segments(OP, format, &starts, vertex_count)?;
    let planner = Planner::new(gpu, &OpsConfig::default());
    let output = rows::output_buffer(&planner, OP, vertex_count * 8)?;
    let dispatches = if vertex_count == 0 {
        Vec::new()
    } else {
        index::segmented_map(&planner, OP, &segments, vertex_count, &output)?
    };
    let data = output_data(gpu, OP, &output, VertexFormat::Uint32x2, vertex_count)?;
    OpPlan::from_dispatches(gpu, OP, dispatches, vertex_count * 8, data).run(gpu)
}
