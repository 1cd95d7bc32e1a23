//! The value conversions that need no state: 64-bit integers narrowed or rounded to 32 bits,
//! 0/1 integers back to booleans (booleans are unpacked on the GPU), Decimal128 to Float64, validity bitmaps to `uint32` masks; and
//! their inverses.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Float32Type, Float64Type, Int32Type, Int64Type, UInt8Type, UInt32Type,
    UInt64Type,
};
use arrow_array::{Array, ArrayRef, BooleanArray, PrimitiveArray};
use arrow_buffer::{NullBuffer, ScalarBuffer};
use arrow_schema::DataType as ArrowType;
use std::sync::Arc;

use super::ConversionError;

fn is_valid(nulls: Option<&NullBuffer>, i: usize) -> bool {
    nulls.is_none_or(|n| n.is_valid(i))
}

/// Int64 → Int32 or UInt64 → UInt32, every valid value checked (`target` names the rule in the
/// error).
pub(crate) fn narrow(
    column: &str,
    first_row: u64,
    array: &dyn Array,
    target: &'static str,
) -> Result<ArrayRef, ConversionError> {
    let nulls = array.nulls();
    let out_of_range = |i: usize, value: String| ConversionError::OutOfRange {
        column: column.to_owned(),
        row: first_row + i as u64,
        value,
        target,
        instead: "float32 (rounded beyond 2^24) or words (exact, two 32-bit words)",
    };
    if let ArrowType::Int64 = array.data_type() {
        let values = array.as_primitive::<Int64Type>().values();
        let out = narrow_values(values, nulls, |v| i32::try_from(v).ok(), |v| v as i32)
            .map_err(|i| out_of_range(i, values[i].to_string()))?;
        return Ok(Arc::new(PrimitiveArray::<Int32Type>::new(
            ScalarBuffer::from(out),
            nulls.cloned(),
        )));
    }
    let values = array.as_primitive::<UInt64Type>().values();
    let out = narrow_values(values, nulls, |v| u32::try_from(v).ok(), |v| v as u32)
        .map_err(|i| out_of_range(i, values[i].to_string()))?;
    Ok(Arc::new(PrimitiveArray::<UInt32Type>::new(
        ScalarBuffer::from(out),
        nulls.cloned(),
    )))
}

/// `values` narrowed by `fit` (null rows 0), or the first valid row that does not fit. Without
/// nulls, when the smallest and largest values fit, every value is narrowed by `cast` (which
/// must agree with `fit` where it fits) in passes the compiler vectorises (the common case);
/// otherwise row by row.
fn narrow_values<W, N>(
    values: &[W],
    nulls: Option<&NullBuffer>,
    fit: impl Fn(W) -> Option<N>,
    cast: impl Fn(W) -> N,
) -> Result<Vec<N>, usize>
where
    W: Copy + Ord,
    N: Copy + Default,
{
    if nulls.is_none()
        && let Some(&first) = values.first()
    {
        let (lo, hi) = values
            .iter()
            .fold((first, first), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        if fit(lo).is_some() && fit(hi).is_some() {
            // Every value lies between two that fit: each fits, and `cast` is exact.
            return Ok(values.iter().map(|&v| cast(v)).collect());
        }
    }
    let mut out = Vec::with_capacity(values.len());
    for (i, v) in values.iter().enumerate() {
        out.push(if is_valid(nulls, i) {
            fit(*v).ok_or(i)?
        } else {
            N::default()
        });
    }
    Ok(out)
}

/// Whether every valid Int64 / UInt64 value fits 32 bits (the `auto` test for narrowing).
pub(crate) fn fits_32(array: &dyn Array) -> bool {
    let nulls = array.nulls();
    match array.data_type() {
        ArrowType::Int64 => array
            .as_primitive::<Int64Type>()
            .values()
            .iter()
            .enumerate()
            .all(|(i, v)| !is_valid(nulls, i) || i32::try_from(*v).is_ok()),
        _ => array
            .as_primitive::<UInt64Type>()
            .values()
            .iter()
            .enumerate()
            .all(|(i, v)| !is_valid(nulls, i) || u32::try_from(*v).is_ok()),
    }
}

/// Whether every value of `min..=max` fits the 32-bit type an Int64 (`sint32`) or UInt64
/// (`uint32`) column narrows to.
pub(crate) fn range_fits_32(data_type: &ArrowType, min: i128, max: i128) -> bool {
    let (low, high) = match data_type {
        ArrowType::Int64 => (i128::from(i32::MIN), i128::from(i32::MAX)),
        _ => (0, i128::from(u32::MAX)),
    };
    min >= low && max <= high
}

/// Int64 / UInt64 → Float32, with the count of valid values that round.
pub(crate) fn to_float32(array: &dyn Array) -> (ArrayRef, u64) {
    let nulls = array.nulls();
    let mut rounded = 0_u64;
    let mut convert = |i: usize, v: i128| {
        let f = v as f32;
        if is_valid(nulls, i) && f as i128 != v {
            rounded += 1;
        }
        f
    };
    let out: Vec<f32> = match array.data_type() {
        ArrowType::Int64 => array
            .as_primitive::<Int64Type>()
            .values()
            .iter()
            .enumerate()
            .map(|(i, v)| convert(i, i128::from(*v)))
            .collect(),
        _ => array
            .as_primitive::<UInt64Type>()
            .values()
            .iter()
            .enumerate()
            .map(|(i, v)| convert(i, i128::from(*v)))
            .collect(),
    };
    let array = PrimitiveArray::<Float32Type>::new(ScalarBuffer::from(out), nulls.cloned());
    (Arc::new(array), rounded)
}

/// Int32 / UInt32 / Float32 back to Int64 or UInt64 (`Float32` values rounded to the nearest
/// integer, saturating).
pub(crate) fn widen(original: &ArrowType, array: &dyn Array) -> ArrayRef {
    let nulls = array.nulls().cloned();
    let as_i128: Vec<i128> = match array.data_type() {
        ArrowType::Int32 => array
            .as_primitive::<Int32Type>()
            .values()
            .iter()
            .map(|v| i128::from(*v))
            .collect(),
        ArrowType::UInt32 => array
            .as_primitive::<UInt32Type>()
            .values()
            .iter()
            .map(|v| i128::from(*v))
            .collect(),
        _ => array
            .as_primitive::<Float32Type>()
            .values()
            .iter()
            .map(|v| v.round() as i128)
            .collect(),
    };
    if original == &ArrowType::UInt64 {
        let values: Vec<u64> = as_i128
            .iter()
            .map(|v| (*v).clamp(0, i128::from(u64::MAX)) as u64)
            .collect();
        Arc::new(PrimitiveArray::<UInt64Type>::new(
            ScalarBuffer::from(values),
            nulls,
        ))
    } else {
        let values: Vec<i64> = as_i128
            .iter()
            .map(|v| (*v).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
            .collect();
        Arc::new(PrimitiveArray::<Int64Type>::new(
            ScalarBuffer::from(values),
            nulls,
        ))
    }
}

/// UInt8 / UInt32 back to Boolean (non-zero is true).
pub(crate) fn int_to_bool(array: &dyn Array) -> ArrayRef {
    let nulls = array.nulls().cloned();
    let bits: Vec<bool> = match array.data_type() {
        ArrowType::UInt8 => array
            .as_primitive::<UInt8Type>()
            .values()
            .iter()
            .map(|v| *v != 0)
            .collect(),
        _ => array
            .as_primitive::<UInt32Type>()
            .values()
            .iter()
            .map(|v| *v != 0)
            .collect(),
    };
    Arc::new(BooleanArray::new(bits.into(), nulls))
}

/// Decimal128 → Float64 (`value / 10^scale`, rounded to 53 bits), with the count of valid
/// values that do not come back exactly.
pub(crate) fn decimal_to_f64(array: &dyn Array, scale: i8) -> (ArrayRef, u64) {
    let decimals = array.as_primitive::<Decimal128Type>();
    let nulls = array.nulls();
    let factor = 10_f64.powi(i32::from(scale));
    let mut rounded = 0_u64;
    let values: Vec<f64> = decimals
        .values()
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let f = *v as f64 / factor;
            if is_valid(nulls, i) && (f * factor).round() as i128 != *v {
                rounded += 1;
            }
            f
        })
        .collect();
    (
        Arc::new(PrimitiveArray::<Float64Type>::new(
            ScalarBuffer::from(values),
            nulls.cloned(),
        )),
        rounded,
    )
}

/// Float64 back to Decimal128(precision, scale), rounding to the nearest unit of the scale.
pub(crate) fn f64_to_decimal(
    column: &str,
    array: &dyn Array,
    precision: u8,
    scale: i8,
) -> Result<ArrayRef, ConversionError> {
    let floats = array.as_primitive::<Float64Type>();
    let factor = 10_f64.powi(i32::from(scale));
    let values: Vec<i128> = floats
        .values()
        .iter()
        .map(|v| (v * factor).round() as i128)
        .collect();
    PrimitiveArray::<Decimal128Type>::new(ScalarBuffer::from(values), array.nulls().cloned())
        .with_precision_and_scale(precision, scale)
        .map(|a| Arc::new(a) as ArrayRef)
        .map_err(|e| ConversionError::Arrow {
            column: column.to_owned(),
            data_type: ArrowType::Decimal128(precision, scale),
            message: e.to_string(),
        })
}

/// A `uint32` mask of `array`'s rows: 1 valid, 0 null (no nulls of its own).
pub(crate) fn validity_mask(array: &dyn Array) -> ArrayRef {
    let len = array.len();
    let values: Vec<u32> = match array.logical_nulls() {
        Some(nulls) => (0..len).map(|i| u32::from(nulls.is_valid(i))).collect(),
        None => vec![1; len],
    };
    Arc::new(PrimitiveArray::<UInt32Type>::from(values))
}

/// The type of a value-list column's offsets: `FixedSizeList<UInt32, 2>` (`uint32x2`).
pub(crate) fn offset_pairs_type() -> ArrowType {
    ArrowType::FixedSizeList(
        Arc::new(arrow_schema::Field::new_list_field(
            ArrowType::UInt32,
            false,
        )),
        2,
    )
}

/// A Utf8 / LargeUtf8 / Utf8View column as a value list: the strings with their bytes in one
/// buffer (Utf8View gathered into Utf8; the others as they are), and each row's `[start, end)`
/// byte range in them from 0, as `uint32` pairs (checked: a batch of more than 4 GiB of text is
/// an error naming the row).
pub(crate) fn value_list(
    column: &str,
    first_row: u64,
    array: &ArrayRef,
) -> Result<(ArrayRef, ArrayRef), ConversionError> {
    let (strings, offsets): (ArrayRef, Vec<i64>) = match array.data_type() {
        ArrowType::Utf8 => (
            array.clone(),
            array
                .as_string::<i32>()
                .value_offsets()
                .iter()
                .map(|o| i64::from(*o))
                .collect(),
        ),
        ArrowType::LargeUtf8 => (
            array.clone(),
            array.as_string::<i64>().value_offsets().to_vec(),
        ),
        _ => {
            let gathered: arrow_array::StringArray = array.as_string_view().iter().collect();
            let offsets = gathered
                .value_offsets()
                .iter()
                .map(|o| i64::from(*o))
                .collect();
            (Arc::new(gathered), offsets)
        }
    };
    let base = offsets.first().copied().unwrap_or(0);
    let mut pairs = Vec::with_capacity(offsets.len().saturating_sub(1) * 2);
    for (i, o) in offsets.iter().enumerate().skip(1) {
        let end = o - base;
        let end = u32::try_from(end).map_err(|_| ConversionError::OutOfRange {
            column: column.to_owned(),
            row: first_row + i as u64 - 1,
            value: format!("byte offset {end}"),
            target: "32-bit byte offsets (a value-list column's text in one gpu batch)",
            instead: "smaller gpu batches (batch_rows) or categories",
        })?;
        let start = pairs.last().copied().unwrap_or(0);
        pairs.push(start);
        pairs.push(end);
    }
    let values = PrimitiveArray::<UInt32Type>::from(pairs);
    let field = Arc::new(arrow_schema::Field::new_list_field(
        ArrowType::UInt32,
        false,
    ));
    let list = arrow_array::FixedSizeListArray::try_new(field, 2, Arc::new(values), None).map_err(
        |e| ConversionError::Arrow {
            column: column.to_owned(),
            data_type: offset_pairs_type(),
            message: e.to_string(),
        },
    )?;
    Ok((strings, Arc::new(list)))
}

#[cfg(test)]
mod tests {
    use super::narrow_values;
    use arrow_buffer::NullBuffer;

    fn to_i32(values: &[i64], nulls: Option<&NullBuffer>) -> Result<Vec<i32>, usize> {
        narrow_values(values, nulls, |v| i32::try_from(v).ok(), |v| v as i32)
    }

    /// The one-pass cast without nulls, the row-by-row path with them: the same values, null
    /// rows 0, the first valid row that does not fit reported, one in a null row ignored.
    #[test]
    fn narrowing_checks_valid_rows_only() {
        let fits = [-5, i64::from(i32::MIN), 7, i64::from(i32::MAX)];
        assert_eq!(to_i32(&fits, None), Ok(vec![-5, i32::MIN, 7, i32::MAX]));
        assert_eq!(to_i32(&[], None), Ok(vec![]));
        assert_eq!(to_i32(&[1, 1 << 40, 2, -(1 << 40)], None), Err(1));
        assert_eq!(to_i32(&[1, 2, i64::from(i32::MIN) - 1], None), Err(2));
        let nulls = NullBuffer::from(vec![true, false, true, true]);
        assert_eq!(
            to_i32(&[3, 1 << 40, -4, 9], Some(&nulls)),
            Ok(vec![3, 0, -4, 9])
        );
        assert_eq!(to_i32(&[3, 1 << 40, 1 << 41, 9], Some(&nulls)), Err(2));
    }
}
