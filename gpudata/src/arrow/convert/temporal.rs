//! Temporal columns (Timestamp, Date32/64, Time32/64, Duration) to `float32` offsets from an
//! origin in a step unit, or to an exact `[hi, lo]` float32 pair, and back.

use std::sync::Arc;

use arrow_array::types::{Float32Type, Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef, FixedSizeListArray, Float32Array, PrimitiveArray};
use arrow_buffer::{NullBuffer, ScalarBuffer};
use arrow_data::ArrayData;
use arrow_schema::{DataType as ArrowType, Field, TimeUnit};

use super::ConversionError;

/// The unit temporal offsets are counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeStep {
    /// 1 ns.
    Nanosecond,
    /// 1 µs.
    Microsecond,
    /// 1 ms.
    Millisecond,
    /// 1 s.
    Second,
    /// 60 s.
    Minute,
    /// 3600 s.
    Hour,
    /// 86400 s.
    Day,
}

impl TimeStep {
    /// Coarsest first.
    pub const ALL: [TimeStep; 7] = [
        TimeStep::Day,
        TimeStep::Hour,
        TimeStep::Minute,
        TimeStep::Second,
        TimeStep::Millisecond,
        TimeStep::Microsecond,
        TimeStep::Nanosecond,
    ];

    /// Nanoseconds in one step.
    #[must_use]
    pub const fn nanos(self) -> i64 {
        match self {
            TimeStep::Nanosecond => 1,
            TimeStep::Microsecond => 1_000,
            TimeStep::Millisecond => 1_000_000,
            TimeStep::Second => 1_000_000_000,
            TimeStep::Minute => 60_000_000_000,
            TimeStep::Hour => 3_600_000_000_000,
            TimeStep::Day => 86_400_000_000_000,
        }
    }

    /// The lowercase name (`"minute"`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            TimeStep::Nanosecond => "nanosecond",
            TimeStep::Microsecond => "microsecond",
            TimeStep::Millisecond => "millisecond",
            TimeStep::Second => "second",
            TimeStep::Minute => "minute",
            TimeStep::Hour => "hour",
            TimeStep::Day => "day",
        }
    }
}

fn unit_nanos(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    }
}

/// Nanoseconds in one unit of a temporal type's stored integers; `None` for other types.
pub(crate) fn base_nanos(data_type: &ArrowType) -> Option<i64> {
    match data_type {
        ArrowType::Timestamp(unit, _)
        | ArrowType::Duration(unit)
        | ArrowType::Time32(unit)
        | ArrowType::Time64(unit) => Some(unit_nanos(*unit)),
        ArrowType::Date32 => Some(TimeStep::Day.nanos()),
        ArrowType::Date64 => Some(TimeStep::Millisecond.nanos()),
        _ => None,
    }
}

/// Whether offsets of this type count from 0 by default (times of day, durations) rather than
/// from the first batch's smallest value.
pub(crate) fn zero_origin(data_type: &ArrowType) -> bool {
    matches!(
        data_type,
        ArrowType::Time32(_) | ArrowType::Time64(_) | ArrowType::Duration(_)
    )
}

/// The stored integers of a temporal array, widened to `i64` (32-bit types: Date32, Time32).
pub(crate) fn values(array: &dyn Array) -> Vec<i64> {
    let data = array.to_data();
    if data.data_type().primitive_width() == Some(4) {
        data.buffer::<i32>(0)
            .iter()
            .map(|v| i64::from(*v))
            .collect()
    } else {
        data.buffer::<i64>(0).to_vec()
    }
}

/// The smallest valid value, or `None` when every row is null (or there are none).
pub(crate) fn min_valid(values: &[i64], nulls: Option<&NullBuffer>) -> Option<i64> {
    values
        .iter()
        .enumerate()
        .filter(|(i, _)| nulls.is_none_or(|n| n.is_valid(*i)))
        .map(|(_, v)| *v)
        .min()
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The coarsest step, at least the type's own unit, that divides every valid offset from
/// `origin` (so the offsets are whole steps).
pub(crate) fn coarsest_step(
    data_type: &ArrowType,
    values: &[i64],
    nulls: Option<&NullBuffer>,
    origin: i64,
) -> TimeStep {
    let base = base_nanos(data_type).unwrap_or(1);
    let mut g: u64 = 0;
    for (i, &v) in values.iter().enumerate() {
        if nulls.is_none_or(|n| n.is_valid(i)) {
            // The distance of two i64 fits u64.
            let d = v.abs_diff(origin);
            // Most offsets are multiples of the gcd so far: one remainder, no Euclid.
            if g == 0 || !d.is_multiple_of(g) {
                g = gcd(g, d);
                if g == 1 {
                    break;
                }
            }
        }
    }
    for step in TimeStep::ALL {
        if step.nanos() < base || step.nanos() % base != 0 {
            continue;
        }
        let per_step = (step.nanos() / base).unsigned_abs();
        if g == 0 || g.is_multiple_of(per_step) {
            return step;
        }
    }
    // The type's own unit is always among the steps.
    TimeStep::ALL
        .into_iter()
        .find(|s| s.nanos() == base)
        .unwrap_or(TimeStep::Nanosecond)
}

/// Base units per step; `None` when the step is finer than the type's unit or not a multiple.
pub(crate) fn per_step(data_type: &ArrowType, step: TimeStep) -> Option<i64> {
    let base = base_nanos(data_type)?;
    (step.nanos() >= base && step.nanos() % base == 0).then(|| step.nanos() / base)
}

/// Largest integer every smaller one of which `f32` holds exactly.
const F32_EXACT: i128 = 1 << 24;

/// `float32` offsets `(v - origin) / per_step` (`per_step` > 0), with the count of values
/// that are not exact.
pub(crate) fn to_offsets(
    values: &[i64],
    nulls: Option<&NullBuffer>,
    origin: i64,
    per_step: i64,
) -> (Float32Array, u64) {
    let mut rounded = 0_u64;
    let inverse = 1.0 / per_step as f64;
    let out: Vec<f32> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            // Null rows hold 0 and count for nothing.
            if nulls.is_some_and(|n| n.is_null(i)) {
                return 0.0;
            }
            let (value, exact) = offset(v, origin, per_step, inverse);
            rounded += u64::from(!exact);
            value
        })
        .collect();
    (
        PrimitiveArray::<Float32Type>::new(ScalarBuffer::from(out), nulls.cloned()),
        rounded,
    )
}

/// `(v - origin) / per_step` as `float32` (`per_step` > 0), and whether it is exact: a whole
/// number of steps of at most 2^24. `inverse` is `1 / per_step` in f64.
#[inline]
fn offset(v: i64, origin: i64, per_step: i64, inverse: f64) -> (f32, bool) {
    /// Offsets below this are exact in f64, and so is their quotient's nearest integer.
    const F64_EXACT: u64 = 1 << 52;
    if let Some(delta) = v
        .checked_sub(origin)
        .filter(|d| d.unsigned_abs() < F64_EXACT)
    {
        // No division where the offset is whole steps (the common case): the quotient from
        // the reciprocal, truncated, is within one of the true one; multiplying back finds it.
        let guess = (delta as f64 * inverse) as i64;
        let rest = delta.wrapping_sub(guess.wrapping_mul(per_step));
        let whole = if rest == 0 {
            Some(guess)
        } else if rest == per_step {
            Some(guess + 1)
        } else if rest == -per_step {
            Some(guess - 1)
        } else {
            None
        };
        if let Some(whole) = whole {
            // An integer below 2^52 is exact in f64: rounding it to f32 once is what the
            // quotient through f64 gives.
            return (whole as f32, whole.unsigned_abs() <= F32_EXACT as u64);
        }
        // f64 holds the quotient to 53 bits; f32 rounds it once more.
        return ((delta as f64 / per_step as f64) as f32, false);
    }
    // 128-bit arithmetic beyond (no real timestamp).
    let delta = i128::from(v) - i128::from(origin);
    let step = i128::from(per_step);
    let exact = delta % step == 0 && (delta / step).abs() <= F32_EXACT;
    ((delta as f64 / per_step as f64) as f32, exact)
}

/// The exact `[hi, lo]` pairs of `(v - origin) / per_step` as a `FixedSizeList<Float32, 2>`:
/// `hi` the offset rounded to `f32`, `lo` the remainder, each exact.
///
/// # Errors
/// [`ConversionError::OutOfRange`] for the first offset that is not a whole step or needs more
/// than 48 bits.
pub(crate) fn to_split(
    column: &str,
    first_row: u64,
    values: &[i64],
    nulls: Option<&NullBuffer>,
    origin: i64,
    per_step: i64,
) -> Result<FixedSizeListArray, ConversionError> {
    let mut out = Vec::with_capacity(values.len() * 2);
    for (i, v) in values.iter().enumerate() {
        if nulls.is_some_and(|n| n.is_null(i)) {
            out.extend([0.0, 0.0]);
            continue;
        }
        let delta = i128::from(*v) - i128::from(origin);
        let step = i128::from(per_step);
        let q = delta / step;
        let hi = q as f32;
        let rest = q - hi as i128;
        let lo = rest as f32;
        if delta % step != 0 || lo as i128 != rest || !hi.is_finite() {
            return Err(ConversionError::OutOfRange {
                column: column.to_owned(),
                row: first_row + i as u64,
                value: v.to_string(),
                target: "an exact float32 hi/lo offset (whole steps below 2^48 from the origin)",
                instead: "time-offset (rounded float32) or an origin and step that fit",
            });
        }
        out.extend([hi, lo]);
    }
    let child = Arc::new(Field::new_list_field(ArrowType::Float32, false));
    FixedSizeListArray::try_new(child, 2, Arc::new(Float32Array::from(out)), nulls.cloned())
        .map_err(|e| ConversionError::Arrow {
            column: column.to_owned(),
            data_type: ArrowType::Float32,
            message: e.to_string(),
        })
}

/// The original temporal array from offsets (`offsets` per row, `hi + lo` for splits).
///
/// # Errors
/// [`ConversionError::OutOfRange`] when a restored value leaves `i64` (or `i32` for 32-bit
/// types); [`ConversionError::Arrow`] when Arrow refuses the array.
pub(crate) fn restore(
    column: &str,
    data_type: &ArrowType,
    offsets: impl Iterator<Item = f64>,
    nulls: Option<NullBuffer>,
    origin: i64,
    per_step: i64,
    len: usize,
) -> Result<ArrayRef, ConversionError> {
    let mut stored = Vec::with_capacity(len);
    for (row, offset) in offsets.enumerate() {
        if nulls.as_ref().is_some_and(|n| n.is_null(row)) {
            stored.push(0_i64);
            continue;
        }
        let value = (offset * per_step as f64).round() as i128 + i128::from(origin);
        let fits = i64::try_from(value).ok();
        stored.push(fits.ok_or_else(|| ConversionError::OutOfRange {
            column: column.to_owned(),
            row: row as u64,
            value: value.to_string(),
            target: "the column's temporal type",
            instead: "an origin inside the values' range",
        })?);
    }
    let narrow = data_type.primitive_width() == Some(4);
    let buffer = if narrow {
        let values: Result<Vec<i32>, _> = stored.iter().map(|v| i32::try_from(*v)).collect();
        let values = values.map_err(|_| ConversionError::OutOfRange {
            column: column.to_owned(),
            row: 0,
            value: stored.iter().max().copied().unwrap_or(0).to_string(),
            target: "the column's 32-bit temporal type",
            instead: "an origin inside the values' range",
        })?;
        PrimitiveArray::<Int32Type>::from(values).into_data()
    } else {
        PrimitiveArray::<Int64Type>::from(stored).into_data()
    };
    let data = ArrayData::builder(data_type.clone())
        .len(len)
        .add_buffer(buffer.buffers()[0].clone())
        .nulls(nulls)
        .build()
        .map_err(|e| ConversionError::Arrow {
            column: column.to_owned(),
            data_type: data_type.clone(),
            message: e.to_string(),
        })?;
    Ok(arrow_array::make_array(data))
}

#[cfg(test)]
mod tests {
    use arrow_buffer::NullBuffer;

    use super::{F32_EXACT, TimeStep, coarsest_step, to_offsets};

    /// `to_offsets` by the definition, in 128-bit integers: the value `(v - origin) / step`
    /// through f64, exact when whole and at most 2^24.
    fn reference(values: &[i64], valid: &[bool], origin: i64, step: i64) -> (Vec<f32>, u64) {
        let mut rounded = 0;
        let out = values
            .iter()
            .zip(valid)
            .map(|(&v, &ok)| {
                if !ok {
                    return 0.0;
                }
                let delta = i128::from(v) - i128::from(origin);
                let step = i128::from(step);
                if delta % step != 0 || (delta / step).abs() > F32_EXACT {
                    rounded += 1;
                }
                (delta as f64 / step as f64) as f32
            })
            .collect();
        (out, rounded)
    }

    #[test]
    fn offsets_agree_with_the_definition() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let steps: [i64; 5] = [1, 1_000, 60_000, 60_000_000, 86_400_000_000_000];
        let edges = [
            i64::MIN,
            i64::MAX,
            0,
            -1,
            1 << 52,
            -(1 << 52),
            (1 << 52) - 1,
        ];
        for round in 0..200 {
            let step = steps[round % steps.len()];
            let origin = match round % 4 {
                0 => 0,
                1 => 978_307_200_000_000,
                2 => next() as i64,
                _ => -(next() as i64 >> 12),
            };
            let values: Vec<i64> = (0..64)
                .map(|i| match i % 8 {
                    // Whole steps near the origin, some beyond 2^24 of them.
                    0..=3 => origin
                        .wrapping_add(step.wrapping_mul((next() % (1 << 26)) as i64 - (1 << 25))),
                    4 => origin.wrapping_add((next() % 1_000_000) as i64),
                    5 => edges[(next() % edges.len() as u64) as usize],
                    _ => next() as i64 >> (next() % 64),
                })
                .collect();
            let valid: Vec<bool> = (0..values.len()).map(|_| next() % 5 != 0).collect();
            let (want, want_rounded) = reference(&values, &valid, origin, step);
            let nulls = NullBuffer::from(valid.clone());
            let (got, got_rounded) = to_offsets(&values, Some(&nulls), origin, step);
            let got: Vec<f32> = got.values().to_vec();
            assert_eq!(
                (
                    got.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
                    got_rounded
                ),
                (
                    want.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
                    want_rounded
                ),
                "round {round}: step {step}, origin {origin}"
            );
            let all = vec![true; values.len()];
            let (want, want_rounded) = reference(&values, &all, origin, step);
            let (got, got_rounded) = to_offsets(&values, None, origin, step);
            assert_eq!(
                (got.values().to_vec(), got_rounded),
                (want, want_rounded),
                "round {round}: no nulls"
            );
        }
    }

    /// The coarsest step dividing every valid offset, by the definition in 128-bit integers.
    fn reference_step(values: &[i64], valid: &[bool], origin: i64) -> TimeStep {
        let divides = |step: TimeStep| {
            let per_step = i128::from(step.nanos() / 1_000);
            values
                .iter()
                .zip(valid)
                .all(|(&v, &ok)| !ok || (i128::from(v) - i128::from(origin)) % per_step == 0)
        };
        TimeStep::ALL
            .into_iter()
            .filter(|s| s.nanos() >= 1_000)
            .find(|&s| divides(s))
            .unwrap_or(TimeStep::Microsecond)
    }

    #[test]
    fn coarsest_steps_agree_with_the_definition() {
        let micro = arrow_schema::DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, None);
        let hour = 3_600_000_000_i64;
        let cases: [(Vec<i64>, i64); 6] = [
            (vec![0, 2 * hour, -24 * hour], 0),
            (vec![i64::MIN, i64::MAX], i64::MIN),
            (vec![i64::MAX, i64::MIN + 1], i64::MAX),
            (vec![60_000_000 * 7, 60_000_000 * 9, 1_000_000], 0),
            (
                vec![978_307_200_000_000 + 86_400_000_000, 978_307_200_000_000],
                978_307_200_000_000,
            ),
            (vec![5, 5, 5], 5),
        ];
        for (values, origin) in cases {
            for valid in [
                vec![true; values.len()],
                (0..values.len()).map(|i| i != 1).collect(),
            ] {
                let nulls = NullBuffer::from(valid.clone());
                assert_eq!(
                    coarsest_step(&micro, &values, Some(&nulls), origin),
                    reference_step(&values, &valid, origin),
                    "{values:?} from {origin}, valid {valid:?}"
                );
            }
        }
    }
}
