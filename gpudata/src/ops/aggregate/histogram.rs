//! `histogram`: rows counted (and weights summed) in equal bins over a range (luma.gl's
//! `GPUHistogram`).

use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::format::VertexFormat;
use crate::ops::kernels::Planner;
use crate::ops::kernels::aggregate::atomics::{self, Job, Keys, Piece};
use crate::ops::kernels::aggregate::tree::Source;
use crate::ops::{GpuMask, OpError, OpPlan, OpsConfig};

use super::reduce::plan_reduce_sources;
use super::{bytes_read, column, data_range, data_words, lane_of, one_buffer_pieces, sources};

const OP: &str = "histogram";

/// A histogram on the GPU ([`histogram`]'s result): `bins` rows of counts (`uint32`), of
/// weight sums (`float32`, with weights), and the rows that fell in no bin.
#[derive(Debug)]
pub struct GpuHistogram {
    /// Rows per bin (with weights: rows whose weight is not NaN), `uint32`.
    pub counts: GpuData,
    /// The sum of the weights in each bin, `float32` (with weights).
    pub weights: Option<GpuData>,
    /// Four `uint32` words: rows below the range, above it, with a NaN value, and 0.
    pub outside: GpuData,
    /// The range binned, `[lo, hi]`.
    pub range: (f32, f32),
}

/// A histogram read back.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    /// Rows per bin (with weights: rows whose weight is not NaN).
    pub counts: Vec<u32>,
    /// The sum of the weights in each bin.
    pub weights: Option<Vec<f32>>,
    /// Rows whose value is below the range (`-inf` included).
    pub below: u32,
    /// Rows whose value is above the range (`+inf` included).
    pub above: u32,
    /// Rows whose value is NaN.
    pub nan: u32,
    /// The range binned.
    pub range: (f32, f32),
}

impl GpuHistogram {
    /// The histogram read back. Blocks until the GPU is done.
    ///
    /// # Errors
    /// [`OpError::Gpu`] when a readback fails.
    pub fn read(&self, gpu: &Gpu) -> Result<Histogram, OpError> {
        let outside = data_words(gpu, OP, &self.outside)?;
        let weights = match &self.weights {
            Some(w) => Some(
                data_words(gpu, OP, w)?
                    .into_iter()
                    .map(f32::from_bits)
                    .collect(),
            ),
            None => None,
        };
        Ok(Histogram {
            counts: data_words(gpu, OP, &self.counts)?,
            weights,
            below: outside[0],
            above: outside[1],
            nan: outside[2],
            range: self.range,
        })
    }
}

/// The scale of `bins` bins over `[lo, hi]`: `bins / (hi − lo)` in `f32` (0 for `lo == hi`).
pub(crate) fn bin_scale(bins: u32, lo: f32, hi: f32) -> f32 {
    if hi > lo {
        bins as f32 / (hi - lo)
    } else {
        0.0
    }
}

/// The bin of `x` over `[lo, hi]` (`Err(0)` below, `Err(1)` above, `Err(2)` NaN): what the
/// kernel computes, `min(⌊(x − lo) · scale⌋, bins − 1)`.
pub(crate) fn bin_of(x: f32, bins: u32, lo: f32, hi: f32, scale: f32) -> Result<u32, u8> {
    if x.is_nan() {
        Err(2)
    } else if x < lo {
        Err(0)
    } else if x > hi {
        Err(1)
    } else {
        Ok((((x - lo) * scale).floor() as u32).min(bins - 1))
    }
}

/// Checks a histogram's bins and range: at least one bin, `lo ≤ hi`, both finite, the scale
/// `bins / (hi − lo)` finite.
pub(crate) fn check_range(op: &'static str, bins: u32, lo: f32, hi: f32) -> Result<(), OpError> {
    if bins == 0 {
        return Err(OpError::InvalidArgument {
            op,
            argument: "the bin count",
            expected: "at least 1",
            found: "0".to_owned(),
        });
    }
    if !(lo.is_finite() && hi.is_finite() && lo <= hi && bin_scale(bins, lo, hi).is_finite()) {
        return Err(OpError::InvalidArgument {
            op,
            argument: "the range",
            expected: "finite bounds lo <= hi, bins / (hi - lo) finite",
            found: format!("[{lo}, {hi}]"),
        });
    }
    Ok(())
}

/// The range of a histogram: `range`, or the smallest and largest kept value of `sources`
/// (reduced on the GPU and read back; `[0, 0]` when no value is kept).
pub(crate) fn resolve_range(
    gpu: &Gpu,
    op: &'static str,
    sources: &[Source<'_>],
    format: VertexFormat,
    bins: u32,
    range: Option<(f32, f32)>,
) -> Result<(f32, f32), OpError> {
    let (lo, hi) = match range {
        Some(range) => range,
        None => {
            let r = plan_reduce_sources(gpu, sources, format, &OpsConfig::default())?
                .run(gpu)?
                .read(gpu)?;
            data_range(r.min, r.max)
        }
    };
    check_range(op, bins, lo, hi)?;
    Ok((lo, hi))
}

/// Plans a histogram of the pieces' `key` views (values, all of `format`) with the pieces'
/// `value` views as weights.
pub(crate) fn plan_histogram_pieces(
    gpu: &Gpu,
    pieces: &[Piece<'_>],
    formats: (VertexFormat, Option<VertexFormat>),
    bins: u32,
    range: Option<(f32, f32)>,
    config: &OpsConfig,
) -> Result<OpPlan<GpuHistogram>, OpError> {
    let lane = lane_of(OP, 0, formats.0)?;
    let weights = formats.1.map(|f| lane_of(OP, 1, f)).transpose()?;
    let (lo, hi) = resolve_range(gpu, OP, &sources(pieces), formats.0, bins, range)?;
    let planner = Planner::new(gpu, config);
    let job = Job {
        keys: Keys::Bins {
            lane,
            bins,
            lo,
            hi,
            scale: bin_scale(bins, lo, hi),
        },
        groups: u64::from(bins),
        value: weights,
        pieces,
        table: None,
        float_extremes: false,
    };
    let (dispatches, acc) = atomics::plan(&planner, OP, &job)?;
    let moved = bytes_read(pieces);
    let g = u64::from(bins);
    let (counts, weights) = match &acc.columns {
        None => (column(gpu, OP, &acc.counts, VertexFormat::Uint32, g)?, None),
        Some([count, sum, ..]) => (
            column(gpu, OP, count, VertexFormat::Uint32, g)?,
            Some(column(gpu, OP, sum, VertexFormat::Float32, g)?),
        ),
    };
    let output = GpuHistogram {
        counts,
        weights,
        outside: column(gpu, OP, &acc.dropped, VertexFormat::Uint32, 4)?,
        range: (lo, hi),
    };
    Ok(OpPlan::from_dispatches(gpu, OP, dispatches, moved, output))
}

/// Plans [`histogram`]. `config.rows_per_thread` sets the rows each invocation bins (by default
/// 64, or a quarter of the bin count up to 256 for more than 256 bins in workgroup memory). Without a range, planning reduces the values on the GPU and reads their extent
/// back; the plan then bins over that range every time it runs.
///
/// # Errors
/// As [`histogram`].
pub fn plan_histogram(
    gpu: &Gpu,
    values: GpuDataView<'_>,
    weights: Option<GpuDataView<'_>>,
    mask: Option<&GpuMask>,
    bins: u32,
    range: Option<(f32, f32)>,
    config: &OpsConfig,
) -> Result<OpPlan<GpuHistogram>, OpError> {
    let formats = (values.format(), weights.map(|w| w.format()));
    lane_of(OP, 0, formats.0)?;
    let pieces = one_buffer_pieces(gpu, OP, values, weights, mask)?;
    plan_histogram_pieces(gpu, &pieces, formats, bins, range, config)
}

/// The histogram of a one-lane column in `bins` equal bins over `range` (`[lo, hi]`), or over
/// the smallest and largest value the mask keeps: every kept row with `lo ≤ x ≤ hi` counts in
/// bin `min(⌊(x − lo) · scale⌋, bins − 1)`, `scale = bins / (hi − lo)` in `f32` (so `x = hi`
/// falls in the last bin; for `lo == hi` every such row falls in bin 0). Rows below or above
/// the range (`±inf` included) and NaN rows count apart ([`Histogram::below`], `above`, `nan`);
/// integers are binned as `f32`. With `weights` (a one-lane column of the same rows), each bin
/// also sums the weights of its rows, NaN weights skipped (and their rows not counted): as
/// [`group_by`](crate::ops::group_by())'s sums, in 96-bit fixed point per bin, so the sums are
/// the same bits on every run and device (error at most `count · 2⁻⁵³ · max|w| + ½ ulp`).
///
/// Each workgroup counts its rows in bins in workgroup memory (integer atomics) and adds the
/// non-zero bins to the output once; more bins than workgroup memory holds (about 4096) are
/// counted in storage directly. Counts are `uint32`: a bin wraps past 2³² − 1 rows.
///
/// # Errors
/// [`OpError::UnsupportedFormat`] for values or weights not of one float32, float16 or integer
/// component; [`OpError::InvalidArgument`] for no bins, a range not finite or `lo > hi`, or a
/// data range not finite (values with `±inf` need a range); [`OpError::LengthMismatch`] for
/// weights (input 1) or a mask (input 2) of another row count; the input checks of every
/// operation; [`OpError::TooManyRows`] past 2³¹ rows; [`OpError::Gpu`].
pub fn histogram(
    gpu: &Gpu,
    values: GpuDataView<'_>,
    weights: Option<GpuDataView<'_>>,
    mask: Option<&GpuMask>,
    bins: u32,
    range: Option<(f32, f32)>,
) -> Result<GpuHistogram, OpError> {
    plan_histogram(
        gpu,
        values,
        weights,
        mask,
        bins,
        range,
        &OpsConfig::default(),
    )?
    .run(gpu)
}
