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

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { gcd(b, a % b) }
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
    let mut g: u128 = 0;
    for (i, v) in values.iter().enumerate() {
        if nulls.is_none_or(|n| n.is_valid(i)) {
            g = gcd(g, (i128::from(*v) - i128::from(origin)).unsigned_abs());
            if g == 1 {
                break;
            }
        }
    }
    for step in TimeStep::ALL {
        if step.nanos() < base || step.nanos() % base != 0 {
            continue;
        }
        let per_step = u128::from((step.nanos() / base).unsigned_abs());
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

/// `float32` offsets `(v - origin) / per_step`, with the count of values that are not exact.
pub(crate) fn to_offsets(
    values: &[i64],
    nulls: Option<&NullBuffer>,
    origin: i64,
    per_step: i64,
) -> (Float32Array, u64) {
    let mut rounded = 0_u64;
    let out: Vec<f32> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            if nulls.is_some_and(|n| n.is_null(i)) {
                return 0.0;
            }
            // 64-bit arithmetic where the offset fits (every real timestamp), 128-bit beyond.
            let (whole, quotient) = match v.checked_sub(origin) {
                Some(delta) => (
                    delta % per_step == 0 && (delta / per_step).unsigned_abs() <= F32_EXACT as u64,
                    delta as f64 / per_step as f64,
                ),
                None => {
                    let delta = i128::from(*v) - i128::from(origin);
                    let step = i128::from(per_step);
                    (
                        delta % step == 0 && (delta / step).abs() <= F32_EXACT,
                        delta as f64 / per_step as f64,
                    )
                }
            };
            if !whole {
                rounded += 1;
            }
            // f64 holds the quotient to 53 bits; f32 rounds it once more.
            quotient as f32
        })
        .collect();
    (
        PrimitiveArray::<Float32Type>::new(ScalarBuffer::from(out), nulls.cloned()),
        rounded,
    )
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
