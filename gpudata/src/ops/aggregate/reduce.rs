//! `reduce`: the count, valid count, sum, minimum, maximum and mean of a one-lane column in one
//! pass (luma.gl's `GPUReduction`: sum, min, max, extent, masked, over chunked vectors).

use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::format::VertexFormat;
use crate::format::codec::ShaderScalar;
use crate::ops::kernels::Planner;
use crate::ops::kernels::aggregate::tree::{self, RECORD_BYTES, Source};
use crate::ops::kernels::aggregate::{Kind, Lane};
use crate::ops::kernels::select::rows;
use crate::ops::{GpuMask, OpError, OpPlan, OpsConfig};

use super::{column, data_words, lane_of, one_buffer_pieces, sources};

const OP: &str = "reduce";

/// A sum: `f32` for float columns, exact 64-bit integers for integer columns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Total {
    /// The sum of a `float32` or `float16` column, in `f32`.
    Float(f32),
    /// The sum of a signed integer column, exact (wrapping modulo 2⁶⁴, past 2³² rows of
    /// `sint32` extremes only).
    Signed(i64),
    /// The sum of an unsigned integer column, exact (wrapping modulo 2⁶⁴, past 2³² rows of
    /// `uint32::MAX` only).
    Unsigned(u64),
}

impl Total {
    /// The sum as `f64`.
    #[must_use]
    pub fn as_f64(self) -> f64 {
        match self {
            Total::Float(v) => f64::from(v),
            Total::Signed(v) => v as f64,
            Total::Unsigned(v) => v as f64,
        }
    }
}

/// What [`reduce`] computes over one column, read back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reduction {
    /// Rows reduced: all of them, or those the mask keeps.
    pub count: u64,
    /// Of those, rows holding a value: all of them, but NaN rows of a float column.
    pub valid_count: u64,
    /// The sum of the valid values (`Total::Float(-0.0)` when there are none: the empty sum;
    /// a sum of only `-0` values is `-0`).
    pub sum: Total,
    /// The smallest valid value (`-0` below `+0`), `None` without valid values.
    pub min: Option<ShaderScalar>,
    /// The largest valid value (`+0` above `-0`), `None` without valid values.
    pub max: Option<ShaderScalar>,
}

impl Reduction {
    /// The mean of the valid values, `sum / valid_count` in `f64`; `None` without valid values.
    #[must_use]
    pub fn mean(&self) -> Option<f64> {
        (self.valid_count > 0).then(|| self.sum.as_f64() / self.valid_count as f64)
    }

    /// The reduction the output record (eight words) of a column of `kind` holds.
    pub(crate) fn from_record(kind: Kind, w: &[u32]) -> Reduction {
        let wide = |i: usize| u64::from(w[i]) | (u64::from(w[i + 1]) << 32);
        let valid_count = wide(2);
        let value = |bits: u32| match kind {
            Kind::Float => ShaderScalar::F32(f32::from_bits(bits)),
            Kind::Signed => ShaderScalar::I32(bits as i32),
            Kind::Unsigned => ShaderScalar::U32(bits),
        };
        let sum = match kind {
            Kind::Float => Total::Float(f32::from_bits(w[4])),
            Kind::Signed => Total::Signed(wide(4) as i64),
            Kind::Unsigned => Total::Unsigned(wide(4)),
        };
        Reduction {
            count: wide(0),
            valid_count,
            sum,
            min: (valid_count > 0).then(|| value(w[6])),
            max: (valid_count > 0).then(|| value(w[7])),
        }
    }
}

/// The GPU output of [`plan_reduce`]: one record of eight `uint32` words (rows, valid rows, the
/// sum, each in two words, low first; the minimum and the maximum as 32-bit values: `f32` bits
/// for float columns, `float16` widened), readable by kernels of yours or with
/// [`read`](Self::read).
#[derive(Debug)]
pub struct GpuReduction {
    record: GpuData,
    format: VertexFormat,
}

impl GpuReduction {
    /// The record, eight `uint32` rows.
    #[must_use]
    pub fn data(&self) -> &GpuData {
        &self.record
    }

    /// The reduced column's format.
    #[must_use]
    pub fn format(&self) -> VertexFormat {
        self.format
    }

    /// The record read back. Blocks until the GPU is done.
    ///
    /// # Errors
    /// [`OpError::Gpu`] when the readback fails.
    pub fn read(&self, gpu: &Gpu) -> Result<Reduction, OpError> {
        let words = data_words(gpu, OP, &self.record)?;
        let kind = Lane::of(self.format).map_or(Kind::Float, |l| l.kind);
        Ok(Reduction::from_record(kind, &words))
    }
}

/// Plans [`reduce`] over consecutive pieces of one column of `format` (each with its mask's
/// words, if any). `config.rows_per_thread` sets the rows each invocation reads (a power of two
/// from 8 to 128; 32 by default).
pub(crate) fn plan_reduce_sources(
    gpu: &Gpu,
    sources: &[Source<'_>],
    format: VertexFormat,
    config: &OpsConfig,
) -> Result<OpPlan<GpuReduction>, OpError> {
    let lane = lane_of(OP, 0, format)?;
    let mut moved = 0u64;
    for (i, source) in sources.iter().enumerate() {
        rows::check_view(gpu, OP, i, &source.view)?;
        if source.view.format() != format {
            return Err(OpError::UnsupportedFormat {
                op: OP,
                input: i,
                format: source.view.format(),
                expected: "the format of the column",
            });
        }
        moved = moved.saturating_add(source.view.length().saturating_mul(format.byte_length()));
    }
    let planner = Planner::new(gpu, config);
    let output = rows::output_buffer(&planner, OP, RECORD_BYTES)?;
    let dispatches = tree::plan(&planner, OP, sources, lane, &output)?;
    let record = column(gpu, OP, &output, VertexFormat::Uint32, 8)?;
    Ok(OpPlan::from_dispatches(
        gpu,
        OP,
        dispatches,
        moved,
        GpuReduction { record, format },
    ))
}

/// Plans [`reduce`]; `config.rows_per_thread` sets the rows each invocation reads (a power of
/// two from 8 to 128; 32 by default).
///
/// # Errors
/// As [`reduce`].
pub fn plan_reduce(
    gpu: &Gpu,
    column: GpuDataView<'_>,
    mask: Option<&GpuMask>,
    config: &OpsConfig,
) -> Result<OpPlan<GpuReduction>, OpError> {
    let format = column.format();
    lane_of(OP, 0, format)?;
    let pieces = one_buffer_pieces(gpu, OP, column, None, mask)?;
    plan_reduce_sources(gpu, &sources(&pieces), format, config)
}

/// The count, valid count, sum, minimum and maximum (and so the mean) of a one-lane column,
/// over all rows or those `mask` keeps (a validity mask, a filter, or both combined with
/// [`mask`](crate::ops::mask())), in one pass over the rows, read back.
///
/// - **Valid rows**: NaN rows of a float column count in `count` but not in `valid_count`, and
///   take no part in the sum, the minimum or the maximum (they are treated as nulls).
/// - **Float sums** are `f32` sums of a fixed binary tree (pairwise: eight rows per invocation
///   and step, or 32 for packed `float32` columns read as `vec4`s, then the steps' sums, the
///   workgroup's 256 partial sums, and every 1024 workgroup sums, level by level), so the result is deterministic for a column, chunking
///   and configuration, and its error is at most `(⌈log₂ n⌉ + 4) · 2⁻²⁴ · Σ|xᵢ|` (tested
///   against an `f64` sum). `±inf` values give `±inf` (both: NaN); the sum of no values is
///   `-0`, and a sum of only `-0` values is `-0`.
///   Subnormal values may be flushed to zero where the device's `f32` additions flush them.
/// - **Integer sums** (8, 16 and 32-bit, signed or not) are exact 64-bit sums.
/// - **Minimum and maximum** compare floats by value with `-0` below `+0`, and are the values as
///   stored (a `float16` column's as `f32`); `None` without valid rows.
/// - An **empty column** (or a mask keeping nothing) gives count 0, sum `-0` or 0, and no
///   minimum, maximum or mean.
///
/// A column larger than one buffer (a chunked [`GpuVector`](crate::GpuVector)) is reduced by
/// [`piecewise::reduce`](crate::ops::piecewise::reduce). Plan with [`plan_reduce`] to keep the
/// record on the GPU.
///
/// # Errors
/// [`OpError::UnsupportedFormat`] for a format of several components, normalized or packed;
/// [`OpError::LengthMismatch`] for a mask of another row count (input 2); the input checks of
/// every operation; [`OpError::TooManyRows`] past 2³¹ rows in one buffer; [`OpError::Gpu`].
pub fn reduce(
    gpu: &Gpu,
    column: GpuDataView<'_>,
    mask: Option<&GpuMask>,
) -> Result<Reduction, OpError> {
    plan_reduce(gpu, column, mask, &OpsConfig::default())?
        .run(gpu)?
        .read(gpu)
}
