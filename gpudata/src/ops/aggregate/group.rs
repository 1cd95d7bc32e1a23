//! `group_by`: count, sum, minimum, maximum and mean per group of a key column (luma.gl's
//! `GPUGroupAggregation`), for dense ids and sparse keys (a hash table).

use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::format::VertexFormat;
use crate::format::codec::ShaderScalar;
use crate::ops::kernels::Planner;
use crate::ops::kernels::aggregate::atomics::{self, Job, Keys, Piece, Table};
use crate::ops::kernels::aggregate::{Kind, Lane, hash};
use crate::ops::kernels::select::rows;
use crate::ops::mask::read_u32;
use crate::ops::output::view_of;
use crate::ops::{GpuMask, OpError, OpPlan, OpsConfig};

use super::{bytes_read, column, data_words, lane_of, one_buffer_pieces};

const OP: &str = "group_by";

/// How [`group_by`] finds a row's group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupKeys {
    /// Keys are group ids below `groups` (row ids, category ids of a dictionary column): group
    /// `i` is key `i`; rows with a negative key or one of at least `groups` are dropped.
    Dense {
        /// The number of groups.
        groups: u32,
    },
    /// Keys are any 32-bit values, numbered by a hash table of at least twice `max_groups`
    /// slots in an order fixed by the set of keys (not sorted); more distinct keys than
    /// `max_groups` are refused.
    Sparse {
        /// The most distinct keys expected.
        max_groups: u32,
    },
}

/// The output of [`group_by`]: one row per group in each column.
#[derive(Debug)]
pub struct GpuGroups {
    /// Each group's key (`Sparse` keys: `uint32`, or `sint32` for signed keys); `None` for
    /// dense keys (group `i` is key `i`).
    pub keys: Option<GpuData>,
    /// Rows per group (with values: rows whose value is not NaN), `uint32`.
    pub count: GpuData,
    /// Per-group sums, `float32` (with values).
    pub sum: Option<GpuData>,
    /// Per-group minima, in the values' 32-bit type (`float32`, `sint32`, `uint32`; NaN or 0
    /// for a group without values).
    pub min: Option<GpuData>,
    /// Per-group maxima, as `min`.
    pub max: Option<GpuData>,
    /// Per-group means `sum / count`, `float32` (NaN for a group without values).
    pub mean: Option<GpuData>,
    /// Four `uint32` words: rows whose key is no group (dense keys out of range), 0, 0, 0.
    pub dropped: GpuData,
    value: Option<Kind>,
}

/// Per-group results read back.
#[derive(Clone, Debug, PartialEq)]
pub struct Groups {
    /// Each group's key, as its 32 bits (signed keys two's complement); `None` for dense keys.
    pub keys: Option<Vec<u32>>,
    /// Rows per group (with values: rows whose value is not NaN).
    pub count: Vec<u32>,
    /// Per-group sums.
    pub sum: Option<Vec<f32>>,
    /// Per-group minima (NaN or 0 for a group without values).
    pub min: Option<Vec<ShaderScalar>>,
    /// Per-group maxima.
    pub max: Option<Vec<ShaderScalar>>,
    /// Per-group means (NaN for a group without values).
    pub mean: Option<Vec<f32>>,
    /// Rows whose key is no group.
    pub dropped: u32,
}

/// A per-group column as a view (each is packed data of one format).
fn view(data: &GpuData) -> Result<GpuDataView<'_>, OpError> {
    view_of(OP, data, "a per-group column of one vertex format")
}

impl GpuGroups {
    /// The number of groups.
    #[must_use]
    pub fn groups(&self) -> u64 {
        self.count.length()
    }

    /// The same groups in ascending key order: sparse groups sorted by key on the GPU (their
    /// keys argsorted, in [`sort`](crate::ops::sort())'s order of their format, and every
    /// per-group column gathered in that order); dense groups, already in key order, as they
    /// are.
    ///
    /// # Errors
    /// As [`argsort`](crate::ops::argsort()) and [`gather`](crate::ops::gather()).
    pub fn sorted_by_key(self, gpu: &Gpu) -> Result<GpuGroups, OpError> {
        let Some(keys) = &self.keys else {
            return Ok(self);
        };
        let order = crate::ops::argsort(gpu, view(keys)?, &crate::ops::SortOptions::ascending())?;
        let ids = view(&order)?;
        let take = |d: &GpuData| crate::ops::gather(gpu, ids, view(d)?);
        let some = |d: &Option<GpuData>| d.as_ref().map(take).transpose();
        Ok(GpuGroups {
            keys: Some(take(keys)?),
            count: take(&self.count)?,
            sum: some(&self.sum)?,
            min: some(&self.min)?,
            max: some(&self.max)?,
            mean: some(&self.mean)?,
            dropped: self.dropped,
            value: self.value,
        })
    }

    /// The groups read back. Blocks until the GPU is done.
    ///
    /// # Errors
    /// [`OpError::Gpu`] when a readback fails.
    pub fn read(&self, gpu: &Gpu) -> Result<Groups, OpError> {
        let words = |d: &Option<GpuData>| d.as_ref().map(|d| data_words(gpu, OP, d)).transpose();
        let floats = |d: &Option<GpuData>| -> Result<Option<Vec<f32>>, OpError> {
            Ok(words(d)?.map(|w| w.into_iter().map(f32::from_bits).collect()))
        };
        let scalars = |d: &Option<GpuData>| -> Result<Option<Vec<ShaderScalar>>, OpError> {
            let kind = self.value.unwrap_or(Kind::Float);
            Ok(words(d)?.map(|w| w.into_iter().map(|b| scalar(kind, b)).collect()))
        };
        Ok(Groups {
            keys: words(&self.keys)?,
            count: data_words(gpu, OP, &self.count)?,
            sum: floats(&self.sum)?,
            min: scalars(&self.min)?,
            max: scalars(&self.max)?,
            mean: floats(&self.mean)?,
            dropped: data_words(gpu, OP, &self.dropped)?[0],
        })
    }
}

/// The 32 bits of a widened value as a scalar of `kind`.
pub(crate) fn scalar(kind: Kind, bits: u32) -> ShaderScalar {
    match kind {
        Kind::Float => ShaderScalar::F32(f32::from_bits(bits)),
        Kind::Signed => ShaderScalar::I32(bits as i32),
        Kind::Unsigned => ShaderScalar::U32(bits),
    }
}

/// The 32-bit format of widened values of `kind`.
pub(crate) fn wide_format(kind: Kind) -> VertexFormat {
    match kind {
        Kind::Float => VertexFormat::Float32,
        Kind::Signed => VertexFormat::Sint32,
        Kind::Unsigned => VertexFormat::Uint32,
    }
}

/// The lane of a key column: a one-component integer format.
pub(crate) fn key_lane(op: &'static str, format: VertexFormat) -> Result<Lane, OpError> {
    Lane::of(format)
        .filter(|l| l.kind != Kind::Float)
        .ok_or(OpError::UnsupportedFormat {
            op,
            input: 0,
            format,
            expected: "a one-component 8, 16 or 32-bit integer format",
        })
}

/// Plans a group-by of the pieces' `key` views (of `formats.0`) with their `value` views (of
/// `formats.1`); sparse keys build their table now and read the group count back.
pub(crate) fn plan_group_by_pieces(
    gpu: &Gpu,
    pieces: &[Piece<'_>],
    formats: (VertexFormat, Option<VertexFormat>),
    keys: GroupKeys,
    config: &OpsConfig,
) -> Result<OpPlan<GpuGroups>, OpError> {
    let key = key_lane(OP, formats.0)?;
    let value = formats.1.map(|f| lane_of(OP, 1, f)).transpose()?;
    let planner = Planner::new(gpu, config);
    let mut dispatches = Vec::new();
    let (job_keys, groups, built) = match keys {
        GroupKeys::Dense { groups } => (Keys::Ids(key), u64::from(groups), None),
        GroupKeys::Sparse { max_groups } => {
            let capacity = hash::capacity_for(u64::from(max_groups));
            let (build, built) = hash::build(&planner, OP, pieces, key, capacity)?;
            OpPlan::from_dispatches(gpu, OP, build, 0, ()).run(gpu)?;
            let count = read_u32(gpu, OP, &built.ranks, capacity + 1)?;
            let overflow = read_u32(gpu, OP, &built.slots, capacity + 1)?;
            if overflow != 0 || count > u64::from(max_groups) {
                return Err(OpError::InvalidArgument {
                    op: OP,
                    argument: "the number of distinct keys",
                    expected: "at most max_groups",
                    found: if overflow != 0 {
                        format!("more than {capacity} (max_groups {max_groups})")
                    } else {
                        format!("{count} (max_groups {max_groups})")
                    },
                });
            }
            (
                Keys::Hashed {
                    lane: key,
                    capacity,
                },
                count,
                Some(built),
            )
        }
    };
    let job = Job {
        keys: job_keys,
        groups,
        value,
        pieces,
        table: built.as_ref().map(|b| Table {
            slots: &b.slots,
            ranks: &b.ranks,
        }),
        float_extremes: false,
    };
    let (passes, acc) = atomics::plan(&planner, OP, &job)?;
    let key_column = match &built {
        Some(built) => {
            let out = rows::output_buffer(&planner, OP, groups * 4)?;
            dispatches.push(hash::keys(&planner, OP, built, &out)?);
            let format = if key.kind == Kind::Signed {
                VertexFormat::Sint32
            } else {
                VertexFormat::Uint32
            };
            Some(column(gpu, OP, &out, format, groups)?)
        }
        None => None,
    };
    dispatches.extend(passes);
    let moved = bytes_read(pieces);
    let f32_column = |b: &wgpu::Buffer| column(gpu, OP, b, VertexFormat::Float32, groups);
    let output = match (&acc.columns, value) {
        (Some([count, sum, min, max, mean]), Some(lane)) => GpuGroups {
            keys: key_column,
            count: column(gpu, OP, count, VertexFormat::Uint32, groups)?,
            sum: Some(f32_column(sum)?),
            min: Some(column(gpu, OP, min, wide_format(lane.kind), groups)?),
            max: Some(column(gpu, OP, max, wide_format(lane.kind), groups)?),
            mean: Some(f32_column(mean)?),
            dropped: column(gpu, OP, &acc.dropped, VertexFormat::Uint32, 4)?,
            value: Some(lane.kind),
        },
        _ => GpuGroups {
            keys: key_column,
            count: column(gpu, OP, &acc.counts, VertexFormat::Uint32, groups)?,
            sum: None,
            min: None,
            max: None,
            mean: None,
            dropped: column(gpu, OP, &acc.dropped, VertexFormat::Uint32, 4)?,
            value: None,
        },
    };
    Ok(OpPlan::from_dispatches(gpu, OP, dispatches, moved, output))
}

/// Plans [`group_by`]. `config.rows_per_thread` sets the rows each invocation handles (by
/// default 64, or a quarter of the group count up to 256 where the groups fit workgroup
/// memory). Sparse keys build their hash table while planning and read the group count back
/// (the plan then aggregates into that table every time it runs).
///
/// # Errors
/// As [`group_by`].
pub fn plan_group_by(
    gpu: &Gpu,
    keys: GpuDataView<'_>,
    values: Option<GpuDataView<'_>>,
    mask: Option<&GpuMask>,
    groups: GroupKeys,
    config: &OpsConfig,
) -> Result<OpPlan<GpuGroups>, OpError> {
    let formats = (keys.format(), values.map(|v| v.format()));
    key_lane(OP, formats.0)?;
    let pieces = one_buffer_pieces(gpu, OP, keys, values, mask)?;
    plan_group_by_pieces(gpu, &pieces, formats, groups, config)
}

/// Rows grouped by a one-lane integer key column (`uint32` ids, or the `sint32` ids of a
/// dictionary column), over all rows or those `mask` keeps: the rows of each group, and with
/// `values` (a one-lane column of the same rows) each group's count of values, sum, minimum,
/// maximum and mean.
///
/// - **Keys**: [`GroupKeys::Dense`] numbers groups by key; [`GroupKeys::Sparse`] by a hash
///   table, whose group order depends only on the set of keys (the same every run), with each
///   group's key in [`GpuGroups::keys`].
/// - **Values**: NaN values are skipped (their rows not counted); `±inf` make a group's sum,
///   minimum and maximum infinite (both signs: a NaN sum). Minima and maxima compare floats by
///   value, `-0` below `+0`.
/// - **Sums** are exact fixed-point sums rounded once: each finite value is scaled by its
///   group's `2^(52 − ⌊log₂ max|x|⌋)` and rounded to an integer (`|q| < 2⁵³`), the integers
///   added in 96-bit integer atomics (WGSL has no float atomics) and the total rounded to the
///   nearest `f32`. The sum's error is at most `count · 2⁻⁵³ · max|x|` plus half an ulp, and
///   it is the same bits whatever the order of the rows, their chunking or the device
///   (deterministic, and equal to the CPU reference); integer values are summed exactly before
///   the rounding. Sums below `f32`'s normal range flush to 0. The mean is `sum / count` in
///   WGSL's division (within 2.5 ulp).
/// - **Groups without values** have count 0, sum 0, NaN mean, and NaN (floats) or 0
///   (integers) extremes.
///
/// Where all groups' accumulators fit workgroup memory (up to 4096 groups: 4 bytes a group to
/// count, 12 for the extremes, 28 for the sums), each workgroup accumulates its rows there and
/// merges them once; larger group counts accumulate in storage directly. Counts are `uint32`.
///
/// # Errors
/// [`OpError::UnsupportedFormat`] for keys not of one integer component or values not of one
/// float32, float16 or integer component; [`OpError::InvalidArgument`] for more distinct keys
/// than `max_groups`; [`OpError::LengthMismatch`] for values (input 1) or a mask (input 2) of
/// another row count; the input checks of every operation; [`OpError::TooManyRows`] past 2³¹
/// rows; [`OpError::TooLarge`] for accumulators past a binding; [`OpError::Gpu`].
pub fn group_by(
    gpu: &Gpu,
    keys: GpuDataView<'_>,
    values: Option<GpuDataView<'_>>,
    mask: Option<&GpuMask>,
    groups: GroupKeys,
) -> Result<GpuGroups, OpError> {
    plan_group_by(gpu, keys, values, mask, groups, &OpsConfig::default())?.run(gpu)
}
