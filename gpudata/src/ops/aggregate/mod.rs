//! Aggregations: whole-column reductions ([`reduce`](crate::ops::reduce())), histograms
//! ([`histogram`](crate::ops::histogram())), group-by ([`group_by`](crate::ops::group_by()))
//! and grid aggregation ([`grid_aggregate`](crate::ops::grid_aggregate())), over one buffer
//! here and over chunked columns in [`piecewise`](crate::ops::piecewise).
//!
//! Each takes its columns as pieces of rows (a column's chunks, cut where a mask's pieces end)
//! and reads them in one pass per accumulator into one result, so a chunked column gives the
//! one-buffer result: exactly for everything but the float sum of `reduce`, whose pairwise tree
//! follows the pieces (within the same bound).

pub(crate) mod fixed;
pub(crate) mod grid;
pub(crate) mod group;
pub(crate) mod histogram;
pub(crate) mod reduce;

use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::device::transfer::{WaitMode, read_range};
use crate::format::VertexFormat;
use crate::ops::kernels::aggregate::Lane;
use crate::ops::kernels::aggregate::atomics::Piece;
use crate::ops::kernels::aggregate::tree::Source;
use crate::ops::kernels::select::rows;
use crate::ops::{GpuMask, OpError};

/// What the aggregations take as values: one-component numbers.
pub(crate) const ONE_LANE: &str =
    "a one-component float32, float16 or 8, 16 or 32-bit integer format";

/// The lane of input `input` of `op`, or the refusal of its format.
pub(crate) fn lane_of(
    op: &'static str,
    input: usize,
    format: VertexFormat,
) -> Result<Lane, OpError> {
    Lane::of(format).ok_or(OpError::UnsupportedFormat {
        op,
        input,
        format,
        expected: ONE_LANE,
    })
}

/// The pieces of one-buffer columns: `key` and `value` (same rows, checked) cut where the
/// pieces of `mask` (its rows checked against the columns', as input `mask_input`) end.
pub(crate) fn one_buffer_pieces<'a>(
    gpu: &Gpu,
    op: &'static str,
    key: GpuDataView<'a>,
    value: Option<GpuDataView<'a>>,
    mask: Option<&'a GpuMask>,
) -> Result<Vec<Piece<'a>>, OpError> {
    rows::check_view(gpu, op, 0, &key)?;
    let length = key.length();
    if let Some(value) = &value {
        rows::check_view(gpu, op, 1, value)?;
        OpError::check_length(op, 1, length, value.length())?;
    }
    let Some(mask) = mask else {
        return Ok(vec![Piece {
            key,
            value,
            mask: None,
        }]);
    };
    OpError::check_length(op, 2, length, mask.len())?;
    let mut pieces = Vec::new();
    let mut first = 0u64;
    for (words, rows) in mask.pieces() {
        let cut = |v: &GpuDataView<'a>| {
            v.slice(first, rows).ok_or(OpError::LengthMismatch {
                op,
                input: 2,
                expected: length,
                found: mask.len(),
            })
        };
        pieces.push(Piece {
            key: cut(&key)?,
            value: value.as_ref().map(cut).transpose()?,
            mask: Some(words.buffer()),
        });
        first += rows;
    }
    Ok(pieces)
}

/// The first `words` words of `buffer`, read back.
pub(crate) fn read_words(
    gpu: &Gpu,
    op: &'static str,
    buffer: &wgpu::Buffer,
    words: u64,
) -> Result<Vec<u32>, OpError> {
    if words == 0 {
        return Ok(Vec::new());
    }
    let raw = pollster::block_on(read_range(
        gpu,
        buffer,
        0,
        words * 4,
        "read back an aggregation",
        WaitMode::Block,
    ))
    .map_err(|source| OpError::Gpu { op, source })?;
    Ok(raw
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// `length` rows of `format` from byte 0 of `buffer`, as data (an aggregation's output).
pub(crate) fn column(
    gpu: &Gpu,
    op: &'static str,
    buffer: &wgpu::Buffer,
    format: VertexFormat,
    length: u64,
) -> Result<GpuData, OpError> {
    crate::ops::output::output_data(gpu, op, buffer, format, length)
}

/// The words of `data` (a `uint32`-sized column an aggregation wrote), read back.
pub(crate) fn data_words(gpu: &Gpu, op: &'static str, data: &GpuData) -> Result<Vec<u32>, OpError> {
    read_words(gpu, op, data.buffer(), data.length())
}

/// The key views of `pieces` with their masks: what a reduction of the key column reads.
pub(crate) fn sources<'a>(pieces: &[Piece<'a>]) -> Vec<Source<'a>> {
    pieces
        .iter()
        .map(|p| Source {
            view: p.key,
            mask: p.mask,
        })
        .collect()
}

/// The bytes one run of an aggregation over `pieces` reads at least: every key and value once.
pub(crate) fn bytes_read(pieces: &[Piece<'_>]) -> u64 {
    let bytes = |v: &GpuDataView<'_>| v.length().saturating_mul(v.format().byte_length());
    pieces.iter().fold(0u64, |m, p| {
        m.saturating_add(bytes(&p.key))
            .saturating_add(p.value.as_ref().map_or(0, bytes))
    })
}

/// The range of kept values a reduction found: `[min, max]` as `f32`, `[0, 0]` without values.
pub(crate) fn data_range(
    min: Option<crate::ops::ShaderScalar>,
    max: Option<crate::ops::ShaderScalar>,
) -> (f32, f32) {
    match (min, max) {
        (Some(lo), Some(hi)) => (lo.to_f32(), hi.to_f32()),
        _ => (0.0, 0.0),
    }
}
