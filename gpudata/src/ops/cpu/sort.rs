//! The CPU reference of sorting: Rust's stable sort by the same key words as the kernels
//! (the order [`ops::sort`](crate::ops::sort) documents), with the same checks and errors.

use super::host::{HostColumn, HostInput};
use crate::format::VertexFormat;
use crate::format::codec::decode_unit;
use crate::ops::OpError;
use crate::ops::gather::integer;
use crate::ops::kernels::sort::wgsl::KeyOrder;
use crate::ops::sort::{SortOptions, check_ids, check_offsets, check_values, key_order};
use crate::ops::sort_by::wide_key_format;
use crate::ops::{NullOrder, SortOrder};

/// Where the segments of a [`segmented_sort`] are: the twin of
/// [`Segments`](crate::ops::Segments).
#[derive(Clone, Copy, Debug)]
pub enum HostSegments<'a> {
    /// `S + 1` offsets (Arrow's list offsets), a one-lane integer format.
    Offsets(HostInput<'a>),
    /// One `uint32` segment id per row.
    Ids(HostInput<'a>),
}

/// Keys and what they carried, sorted: the twin of [`Sorted`](crate::ops::Sorted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostSorted {
    /// The keys.
    pub keys: HostColumn,
    /// The values, or `uint32` row ids.
    pub values: HostColumn,
}

/// The 4 bytes of row `row` of a column of 4-byte rows, as a word.
fn word(input: &HostInput<'_>, row: u64) -> u32 {
    let bytes = input.row(row);
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// The rows of `keys` in sorted order (by segment first, when `segments` gives each row's),
/// after the key checks.
fn order(
    op: &'static str,
    keys: &HostInput<'_>,
    segments: Option<&[u32]>,
    options: &SortOptions,
) -> Result<Vec<u64>, OpError> {
    let key = key_order(op, keys.format(), options)?;
    keys.check(op, 0)?;
    let n = keys.length();
    let mut rows: Vec<u64> = (0..n).collect();
    match segments {
        Some(ids) => rows.sort_by_key(|&r| (ids[r as usize], key.sort_word(word(keys, r)))),
        None => rows.sort_by_key(|&r| key.sort_word(word(keys, r))),
    }
    Ok(rows)
}

/// The rows `order` of a column of 4-byte rows, packed.
fn gather(input: &HostInput<'_>, order: &[u64]) -> HostColumn {
    HostColumn {
        format: input.format(),
        length: order.len() as u64,
        bytes: order.iter().flat_map(|&r| input.row(r).to_vec()).collect(),
    }
}

fn row_ids(order: &[u64]) -> HostColumn {
    HostColumn {
        format: VertexFormat::Uint32,
        length: order.len() as u64,
        bytes: order
            .iter()
            .flat_map(|&r| (r as u32).to_le_bytes())
            .collect(),
    }
}

/// [`ops::sort`](crate::ops::sort) on the host.
///
/// # Errors
/// As [`ops::sort`](crate::ops::sort)'s format and input checks.
pub fn sort(keys: HostInput<'_>, options: &SortOptions) -> Result<HostColumn, OpError> {
    let order = order("sort", &keys, None, options)?;
    Ok(gather(&keys, &order))
}

/// [`ops::argsort`](crate::ops::argsort) on the host.
///
/// # Errors
/// As [`sort`].
pub fn argsort(keys: HostInput<'_>, options: &SortOptions) -> Result<HostColumn, OpError> {
    Ok(row_ids(&order("argsort", &keys, None, options)?))
}

/// [`ops::sort_pairs`](crate::ops::sort_pairs) on the host.
///
/// # Errors
/// As [`ops::sort_pairs`](crate::ops::sort_pairs)'s checks.
pub fn sort_pairs(
    keys: HostInput<'_>,
    values: HostInput<'_>,
    options: &SortOptions,
) -> Result<HostSorted, OpError> {
    const OP: &str = "sort_pairs";
    let order = order(OP, &keys, None, options)?;
    check_values(OP, 1, values.format(), values.length(), keys.length())?;
    values.check(OP, 1)?;
    Ok(HostSorted {
        keys: gather(&keys, &order),
        values: gather(&values, &order),
    })
}

/// [`ops::top_k`](crate::ops::top_k) on the host.
///
/// # Errors
/// As [`ops::top_k`](crate::ops::top_k)'s checks.
pub fn top_k(keys: HostInput<'_>, k: u64, options: &SortOptions) -> Result<HostSorted, OpError> {
    const OP: &str = "top_k";
    let mut order = order(OP, &keys, None, options)?;
    if k > keys.length() {
        return Err(OpError::TopKTooLarge {
            op: OP,
            k,
            rows: keys.length(),
        });
    }
    order.truncate(k as usize);
    Ok(HostSorted {
        keys: gather(&keys, &order),
        values: row_ids(&order),
    })
}

/// [`ops::segmented_sort`](crate::ops::segmented_sort) (no `values`) and
/// [`ops::segmented_sort_pairs`](crate::ops::segmented_sort_pairs) on the host: the sorted
/// keys, and the values in their order.
///
/// # Errors
/// As those functions' checks.
pub fn segmented_sort(
    keys: HostInput<'_>,
    values: Option<HostInput<'_>>,
    segments: HostSegments<'_>,
    options: &SortOptions,
) -> Result<(HostColumn, Option<HostColumn>), OpError> {
    const OP: &str = "segmented_sort";
    key_order(OP, keys.format(), options)?;
    keys.check(OP, 0)?;
    let n = keys.length();
    let mut input = 1;
    if let Some(values) = &values {
        check_values(OP, input, values.format(), values.length(), n)?;
        values.check(OP, input)?;
        input += 1;
    }
    let ids: Vec<u32> = match segments {
        HostSegments::Offsets(offsets) => {
            let format = offsets.format();
            let integers = format.components() == 1 && format.data_type().is_integer();
            let starts: Vec<i64> = if integers {
                offsets.check(OP, input)?;
                (0..offsets.length())
                    .map(|r| integer(crate::format::codec::decode_lane(format, offsets.row(r), 0)))
                    .collect()
            } else {
                Vec::new()
            };
            check_offsets(OP, input, format, &starts, n)?;
            let mut ids = vec![0u32; n as usize];
            for (s, pair) in starts.windows(2).enumerate() {
                ids[pair[0] as usize..pair[1] as usize].fill(s as u32);
            }
            ids
        }
        HostSegments::Ids(ids) => {
            check_ids(OP, input, ids.format(), ids.length(), n)?;
            ids.check(OP, input)?;
            (0..n).map(|r| word(&ids, r)).collect()
        }
    };
    let order = order(OP, &keys, Some(&ids), options)?;
    Ok((gather(&keys, &order), values.map(|v| gather(&v, &order))))
}

/// The bits of row `row`'s value as its 32-bit key format reads it ([`wide_key_format`]): the
/// value a shader reads (`decode_unit`), as `u32`, `i32` or `f32` bits.
fn wide_word(input: &HostInput<'_>, row: u64) -> u32 {
    let bytes = input.row(row);
    let mut unit = [0u8; 4];
    let n = bytes.len().min(4);
    unit[..n].copy_from_slice(&bytes[..n]);
    decode_unit(input.format(), 0, u32::from_le_bytes(unit)).to_bits()
}

/// One key of [`argsort_by`]: the twin of [`SortKey`](crate::ops::SortKey), its validity one
/// `bool` per row (`true` a valid row).
#[derive(Clone, Copy, Debug)]
pub struct HostSortKey<'a> {
    /// The key column: one lane of an integer, normalized or float format.
    pub column: HostInput<'a>,
    /// Ascending or descending.
    pub order: SortOrder,
    /// Which rows are valid; `None`: every row.
    pub validity: Option<&'a [bool]>,
    /// Where the null rows go.
    pub nulls: NullOrder,
}

/// [`ops::argsort_by`](crate::ops::argsort_by) on the host: Rust's stable sort comparing the
/// keys in turn.
///
/// # Errors
/// As [`ops::argsort_by`](crate::ops::argsort_by)'s format and length checks.
pub fn argsort_by(keys: &[HostSortKey<'_>]) -> Result<HostColumn, OpError> {
    const OP: &str = "argsort_by";
    let Some(first) = keys.first() else {
        return Err(OpError::NoInputs { op: OP });
    };
    let n = first.column.length();
    let mut orders = Vec::with_capacity(keys.len());
    for (input, key) in keys.iter().enumerate() {
        let options = SortOptions {
            order: key.order,
            ..SortOptions::default()
        };
        let format = key.column.format();
        let wide = wide_key_format(format).ok_or(OpError::UnsupportedFormat {
            op: OP,
            input,
            format,
            expected: "a one-lane key format (integer, normalized or float)",
        })?;
        orders.push(key_order(OP, wide, &options)?);
        key.column.check(OP, input)?;
        OpError::check_length(OP, input, n, key.column.length())?;
        if let Some(valid) = key.validity {
            OpError::check_length(OP, keys.len() + input, n, valid.len() as u64)?;
        }
    }
    // Per row and key: (0 valid / 1 null, or the reverse for nulls first; the sort word).
    let rank = |key: &HostSortKey<'_>, order: &KeyOrder, row: u64| {
        let valid = key.validity.is_none_or(|v| v[row as usize]);
        let null_rank = match (valid, key.nulls) {
            (true, NullOrder::Last) | (false, NullOrder::First) => 0u8,
            _ => 1,
        };
        let word = if valid {
            order.sort_word(wide_word(&key.column, row))
        } else {
            0
        };
        (null_rank, word)
    };
    let mut rows: Vec<u64> = (0..n).collect();
    rows.sort_by(|&a, &b| {
        keys.iter()
            .zip(&orders)
            .map(|(key, order)| rank(key, order, a).cmp(&rank(key, order, b)))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    Ok(row_ids(&rows))
}
