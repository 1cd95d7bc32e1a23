//! The CPU reference of the aggregations: `reduce` (its float sum in `f64`, rounded once: the
//! reference the GPU's pairwise sum is held to within its bound), and `histogram`, `group_by`
//! and `grid_aggregate` (bit for bit the GPU's results, fixed-point sums included; means within
//! WGSL's division accuracy).

use std::collections::HashMap;

use super::host::HostInput;
use crate::format::codec::ShaderScalar;
use crate::ops::OpError;
use crate::ops::aggregate::fixed::{Group, Sum};
use crate::ops::aggregate::grid::{Grid, GridSpec, check_positions};
use crate::ops::aggregate::group::{GroupKeys, Groups, key_lane, scalar};
use crate::ops::aggregate::histogram::{Histogram, bin_of, bin_scale, check_range};
use crate::ops::aggregate::reduce::{Reduction, Total};
use crate::ops::aggregate::{data_range, lane_of};
use crate::ops::kernels::aggregate::hash::{capacity_for, slot_order};
use crate::ops::kernels::aggregate::{Kind, Lane, is_nan, key, unkey, widen};

/// The rows an aggregation reads: `input`'s, kept by `mask` (checked: input 2).
fn kept<'a>(
    op: &'static str,
    input: &HostInput<'_>,
    mask: Option<&'a [bool]>,
) -> Result<impl Iterator<Item = u64> + 'a, OpError> {
    let length = input.length();
    if let Some(mask) = mask {
        OpError::check_length(op, 2, length, mask.len() as u64)?;
    }
    Ok((0..length).filter(move |&r| mask.is_none_or(|m| m[r as usize])))
}

/// Row `row`'s widened lane value.
fn value(input: &HostInput<'_>, lane: Lane, row: u64) -> u32 {
    widen(lane, input.unit(row, 0))
}

/// A widened value as `f32` (integers rounded to nearest).
fn as_f32(kind: Kind, w: u32) -> f32 {
    match kind {
        Kind::Float => f32::from_bits(w),
        Kind::Signed => w as i32 as f32,
        Kind::Unsigned => w as f32,
    }
}

/// The reference of [`ops::reduce`](crate::ops::reduce()): the float sum is the `f64` sum of
/// the `f32` values rounded once (the GPU's pairwise `f32` sum lies within
/// `(⌈log₂ n⌉ + 4) · 2⁻²⁴ · Σ|x|` of the `f64` sum); everything else is exact and equal.
///
/// # Errors
/// As [`ops::reduce`](crate::ops::reduce()) (without the device's).
pub fn reduce(column: HostInput<'_>, mask: Option<&[bool]>) -> Result<Reduction, OpError> {
    const OP: &str = "reduce";
    let lane = lane_of(OP, 0, column.format())?;
    column.check(OP, 0)?;
    let kind = lane.kind;
    let (mut count, mut valid) = (0u64, 0u64);
    let mut keys: Option<(u32, u32)> = None;
    let (mut float, mut int) = (-0.0f64, 0u64);
    for row in kept(OP, &column, mask)? {
        count += 1;
        let w = value(&column, lane, row);
        if is_nan(kind, w) {
            continue;
        }
        valid += 1;
        let k = key(kind, w);
        keys = Some(keys.map_or((k, k), |(lo, hi)| (lo.min(k), hi.max(k))));
        match kind {
            Kind::Float => float += f64::from(f32::from_bits(w)),
            Kind::Signed => int = int.wrapping_add(i64::from(w as i32) as u64),
            Kind::Unsigned => int = int.wrapping_add(u64::from(w)),
        }
    }
    let sum = match kind {
        Kind::Float => Total::Float(float as f32),
        Kind::Signed => Total::Signed(int as i64),
        Kind::Unsigned => Total::Unsigned(int),
    };
    let extreme = |k: u32| Some(scalar(kind, unkey(kind, k)));
    Ok(Reduction {
        count,
        valid_count: valid,
        sum,
        min: keys.and_then(|(lo, _)| extreme(lo)),
        max: keys.and_then(|(_, hi)| extreme(hi)),
    })
}

/// Per-group accumulation of rows given their group (`Ok`) or drop reason (`Err`: 0 below or
/// out of range, 1 above, 2 NaN), as the GPU's passes add them.
struct Accumulate {
    groups: Vec<Group>,
    sums: Vec<Sum>,
    dropped: [u32; 3],
    value: Option<Lane>,
}

impl Accumulate {
    fn new(groups: usize, value: Option<Lane>) -> Accumulate {
        Accumulate {
            groups: vec![Group::default(); groups],
            sums: vec![Sum::default(); groups],
            dropped: [0; 3],
            value,
        }
    }

    /// Runs both passes over `rows`: each its group and its widened value.
    fn run(&mut self, rows: &[(Result<usize, u8>, u32)]) {
        for &(group, w) in rows {
            match (group, self.value) {
                (Ok(g), Some(lane)) => self.groups[g].scan(lane.kind, w),
                (Ok(g), None) => self.groups[g].add_row(),
                (Err(reason), _) => {
                    let d = &mut self.dropped[usize::from(reason)];
                    *d = d.wrapping_add(1);
                }
            }
        }
        if let Some(lane) = self.value {
            for &(group, w) in rows {
                if let Ok(g) = group {
                    let shift = self.groups[g].shift(lane.kind);
                    self.sums[g].add(lane.kind, w, shift);
                }
            }
        }
    }

    fn counts(&self) -> Vec<u32> {
        self.groups.iter().map(|g| g.count).collect()
    }

    fn sums(&self) -> Option<Vec<f32>> {
        let lane = self.value?;
        Some(
            self.groups
                .iter()
                .zip(&self.sums)
                .map(|(g, s)| s.value(g, lane.kind))
                .collect(),
        )
    }

    fn means(&self) -> Option<Vec<f32>> {
        let sums = self.sums()?;
        Some(
            sums.iter()
                .zip(&self.groups)
                .map(|(s, g)| {
                    if g.count == 0 {
                        f32::NAN
                    } else {
                        s / g.count as f32
                    }
                })
                .collect(),
        )
    }

    fn extremes(&self, float: bool) -> Option<(Vec<u32>, Vec<u32>)> {
        let lane = self.value?;
        Some(
            self.groups
                .iter()
                .map(|g| g.extremes(lane.kind, float))
                .unzip(),
        )
    }
}

/// The widened values of `values`' row `row`, or 0 without values.
fn row_value(values: Option<(&HostInput<'_>, Lane)>, row: u64) -> u32 {
    values.map_or(0, |(v, lane)| value(v, lane, row))
}

/// The range a histogram bins (as the GPU resolves it: the kept values' extent when none is
/// given).
fn range_of(
    op: &'static str,
    values: HostInput<'_>,
    mask: Option<&[bool]>,
    bins: u32,
    range: Option<(f32, f32)>,
) -> Result<(f32, f32), OpError> {
    let (lo, hi) = match range {
        Some(range) => range,
        None => {
            let r = reduce(values, mask)?;
            data_range(r.min, r.max)
        }
    };
    check_range(op, bins, lo, hi)?;
    Ok((lo, hi))
}

/// Checks the value column of an aggregation: its lane, placement and length (input 1).
fn check_values<'a, 'b>(
    op: &'static str,
    values: Option<&'b HostInput<'a>>,
    length: u64,
) -> Result<Option<(&'b HostInput<'a>, Lane)>, OpError> {
    values
        .map(|v| {
            let lane = lane_of(op, 1, v.format())?;
            v.check(op, 1)?;
            OpError::check_length(op, 1, length, v.length())?;
            Ok((v, lane))
        })
        .transpose()
}

/// The reference of [`ops::histogram`](crate::ops::histogram()), bit for bit.
///
/// # Errors
/// As [`ops::histogram`](crate::ops::histogram()) (without the device's).
pub fn histogram(
    values: HostInput<'_>,
    weights: Option<HostInput<'_>>,
    mask: Option<&[bool]>,
    bins: u32,
    range: Option<(f32, f32)>,
) -> Result<Histogram, OpError> {
    const OP: &str = "histogram";
    let lane = lane_of(OP, 0, values.format())?;
    values.check(OP, 0)?;
    let weights = check_values(OP, weights.as_ref(), values.length())?;
    if let Some(mask) = mask {
        OpError::check_length(OP, 2, values.length(), mask.len() as u64)?;
    }
    let (lo, hi) = range_of(OP, values, mask, bins, range)?;
    let scale = bin_scale(bins, lo, hi);
    let rows: Vec<(Result<usize, u8>, u32)> = kept(OP, &values, mask)?
        .map(|row| {
            let x = as_f32(lane.kind, value(&values, lane, row));
            let bin = bin_of(x, bins, lo, hi, scale).map(|b| b as usize);
            (bin, row_value(weights, row))
        })
        .collect();
    let mut acc = Accumulate::new(bins as usize, weights.map(|(_, l)| l));
    acc.run(&rows);
    Ok(Histogram {
        counts: acc.counts(),
        weights: acc.sums(),
        below: acc.dropped[0],
        above: acc.dropped[1],
        nan: acc.dropped[2],
        range: (lo, hi),
    })
}

/// The reference of [`ops::group_by`](crate::ops::group_by()), bit for bit (the mean within
/// WGSL's division accuracy; sparse groups in the hash table's slot order).
///
/// # Errors
/// As [`ops::group_by`](crate::ops::group_by()) (without the device's).
pub fn group_by(
    keys: HostInput<'_>,
    values: Option<HostInput<'_>>,
    mask: Option<&[bool]>,
    groups: GroupKeys,
) -> Result<Groups, OpError> {
    const OP: &str = "group_by";
    let lane = key_lane(OP, keys.format())?;
    keys.check(OP, 0)?;
    let values = check_values(OP, values.as_ref(), keys.length())?;
    let rows_kept: Vec<u64> = kept(OP, &keys, mask)?.collect();
    let key_of = |row: u64| value(&keys, lane, row);
    let (count, ids, key_list): (usize, HashMap<u32, usize>, Option<Vec<u32>>) = match groups {
        GroupKeys::Dense { groups } => (groups as usize, HashMap::new(), None),
        GroupKeys::Sparse { max_groups } => {
            let mut distinct: Vec<u32> = rows_kept
                .iter()
                .map(|&r| key_of(r))
                .filter(|&k| k != u32::MAX)
                .collect();
            let special = rows_kept.iter().any(|&r| key_of(r) == u32::MAX);
            distinct.sort_unstable();
            distinct.dedup();
            let found = distinct.len() as u64 + u64::from(special);
            if found > u64::from(max_groups) {
                return Err(OpError::InvalidArgument {
                    op: OP,
                    argument: "the number of distinct keys",
                    expected: "at most max_groups",
                    found: format!("{found} (max_groups {max_groups})"),
                });
            }
            let mut order = slot_order(&mut distinct, capacity_for(u64::from(max_groups)));
            if special {
                order.push(u32::MAX);
            }
            let ids = order.iter().enumerate().map(|(i, &k)| (k, i)).collect();
            (order.len(), ids, Some(order))
        }
    };
    let rows: Vec<(Result<usize, u8>, u32)> = rows_kept
        .iter()
        .map(|&row| {
            let k = key_of(row);
            let group = match &key_list {
                Some(_) => ids.get(&k).copied().ok_or(0),
                None if lane.kind == Kind::Signed && k & 0x8000_0000 != 0 => Err(0),
                None => Some(k as usize).filter(|&g| g < count).ok_or(0),
            };
            (group, row_value(values, row))
        })
        .collect();
    let mut acc = Accumulate::new(count, values.map(|(_, l)| l));
    acc.run(&rows);
    let kind = values.map(|(_, l)| l.kind);
    let extremes = acc.extremes(false);
    let to_scalars = |v: Vec<u32>| -> Vec<ShaderScalar> {
        v.into_iter()
            .map(|b| scalar(kind.unwrap_or(Kind::Float), b))
            .collect()
    };
    let (min, max) = match extremes {
        Some((lo, hi)) => (Some(to_scalars(lo)), Some(to_scalars(hi))),
        None => (None, None),
    };
    Ok(Groups {
        keys: key_list,
        count: acc.counts(),
        sum: acc.sums(),
        min,
        max,
        mean: acc.means(),
        dropped: acc.dropped[0],
    })
}

/// The reference of [`ops::grid_aggregate`](crate::ops::grid_aggregate()), bit for bit (the
/// mean within WGSL's division accuracy).
///
/// # Errors
/// As [`ops::grid_aggregate`](crate::ops::grid_aggregate()) (without the device's).
pub fn grid_aggregate(
    positions: HostInput<'_>,
    values: Option<HostInput<'_>>,
    mask: Option<&[bool]>,
    spec: &GridSpec,
) -> Result<Grid, OpError> {
    const OP: &str = "grid_aggregate";
    check_positions(positions.format())?;
    positions.check(OP, 0)?;
    let values = check_values(OP, values.as_ref(), positions.length())?;
    if spec.width == 0 || spec.height == 0 {
        return Err(OpError::InvalidArgument {
            op: OP,
            argument: "the grid size",
            expected: "at least 1 x 1 cells",
            found: format!("{} x {}", spec.width, spec.height),
        });
    }
    let coordinate = |row: u64, axis: u64| f32::from_bits(positions.unit(row, axis));
    let mut range = [(0.0f32, 0.0f32); 2];
    for (axis, r) in range.iter_mut().enumerate() {
        let cells = if axis == 0 { spec.width } else { spec.height };
        let given = spec.bounds.map(|b| (b[axis], b[axis + 2]));
        *r = match given {
            Some(g) => {
                check_range(OP, cells, g.0, g.1)?;
                g
            }
            None => {
                let mut extent: Option<(u32, u32)> = None;
                for row in kept(OP, &positions, mask)? {
                    let w = positions.unit(row, axis as u64);
                    if is_nan(Kind::Float, w) {
                        continue;
                    }
                    let k = key(Kind::Float, w);
                    extent = Some(extent.map_or((k, k), |(lo, hi)| (lo.min(k), hi.max(k))));
                }
                let (lo, hi) = extent.map_or((0.0, 0.0), |(lo, hi)| {
                    (
                        f32::from_bits(unkey(Kind::Float, lo)),
                        f32::from_bits(unkey(Kind::Float, hi)),
                    )
                });
                check_range(OP, cells, lo, hi)?;
                (lo, hi)
            }
        };
    }
    let [(x0, x1), (y0, y1)] = range;
    let (sx, sy) = (
        bin_scale(spec.width, x0, x1),
        bin_scale(spec.height, y0, y1),
    );
    let rows: Vec<(Result<usize, u8>, u32)> = kept(OP, &positions, mask)?
        .map(|row| {
            let (x, y) = (coordinate(row, 0), coordinate(row, 1));
            let cell = if x.is_nan() || y.is_nan() {
                Err(2)
            } else {
                match (
                    bin_of(x, spec.width, x0, x1, sx),
                    bin_of(y, spec.height, y0, y1, sy),
                ) {
                    (Ok(cx), Ok(cy)) => Ok(cy as usize * spec.width as usize + cx as usize),
                    _ => Err(0),
                }
            };
            (cell, row_value(values, row))
        })
        .collect();
    let cells = spec.width as usize * spec.height as usize;
    let mut acc = Accumulate::new(cells, values.map(|(_, l)| l));
    acc.run(&rows);
    let floats = |v: Vec<u32>| v.into_iter().map(f32::from_bits).collect::<Vec<_>>();
    let (min, max) = match acc.extremes(true) {
        Some((lo, hi)) => (Some(floats(lo)), Some(floats(hi))),
        None => (None, None),
    };
    Ok(Grid {
        width: spec.width,
        height: spec.height,
        bounds: [x0, y0, x1, y1],
        count: acc.counts(),
        sum: acc.sums(),
        min,
        max,
        mean: acc.means(),
        outside: acc.dropped[0],
        nan: acc.dropped[2],
    })
}
