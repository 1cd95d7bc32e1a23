//! The CPU reference of row masks, compaction and the prefix sum.

use super::host::{HostColumn, HostInput};
use crate::format::codec::{self, ShaderScalar};
use crate::ops::compact::prefix_sum_output;
use crate::ops::kernels::select::predicate::{Node, Side, comparison_lanes};
use crate::ops::predicate::{Comparand, PredicateOf, predicate_length};
use crate::ops::{Comparison, OpError};

/// A predicate over host columns and masks: the twin of [`Predicate`](crate::ops::Predicate).
pub type HostPredicate<'a> = PredicateOf<HostInput<'a>, &'a [bool]>;

impl<'a> From<HostInput<'a>> for Comparand<HostInput<'a>> {
    fn from(input: HostInput<'a>) -> Self {
        Comparand::Column(input)
    }
}

/// `a op b` with the kernel's rule: integers exactly, anything with a float in `f32`.
pub(super) fn compare(op: Comparison, a: ShaderScalar, b: ShaderScalar) -> bool {
    use std::cmp::Ordering;
    let ordering = match (a, b) {
        (ShaderScalar::F32(_), _) | (_, ShaderScalar::F32(_)) => {
            a.to_f32().partial_cmp(&b.to_f32())
        }
        (ShaderScalar::I32(x), ShaderScalar::I32(y)) => Some(x.cmp(&y)),
        (ShaderScalar::U32(x), ShaderScalar::U32(y)) => Some(x.cmp(&y)),
        (ShaderScalar::I32(x), ShaderScalar::U32(y)) => Some(i64::from(x).cmp(&i64::from(y))),
        (ShaderScalar::U32(x), ShaderScalar::I32(y)) => Some(i64::from(x).cmp(&i64::from(y))),
    };
    match (op, ordering) {
        (Comparison::NotEqual, o) => o != Some(Ordering::Equal),
        (_, None) => false,
        (Comparison::Less, Some(o)) => o == Ordering::Less,
        (Comparison::LessEqual, Some(o)) => o != Ordering::Greater,
        (Comparison::Greater, Some(o)) => o == Ordering::Greater,
        (Comparison::GreaterEqual, Some(o)) => o != Ordering::Less,
        (Comparison::Equal, Some(o)) => o == Ordering::Equal,
    }
}

fn value(side: Side, lane: u32, row: u64, columns: &[HostInput<'_>]) -> ShaderScalar {
    match side {
        Side::Column(i) => {
            let c = &columns[i];
            let lane = if c.format().components() == 1 {
                0
            } else {
                lane
            };
            codec::decode_lane(c.format(), c.row(row), lane).unwrap_or(ShaderScalar::U32(0))
        }
        Side::Value(v) => v,
    }
}

fn eval(
    op: &'static str,
    node: &Node,
    row: u64,
    columns: &[HostInput<'_>],
    masks: &[&[bool]],
) -> Result<bool, OpError> {
    Ok(match node {
        Node::Compare(cmp, a, b) => {
            let lanes = comparison_lanes(op, *a, *b, |i| columns[i].format().components())?;
            (0..lanes)
                .all(|l| compare(*cmp, value(*a, l, row, columns), value(*b, l, row, columns)))
        }
        Node::Mask(m) => masks[*m][row as usize],
        Node::And(nodes) => {
            let mut all = true;
            for n in nodes {
                all &= eval(op, n, row, columns, masks)?;
            }
            all
        }
        Node::Or(nodes) => {
            let mut any = false;
            for n in nodes {
                any |= eval(op, n, row, columns, masks)?;
            }
            any
        }
        Node::Not(inner) => !eval(op, inner, row, columns, masks)?,
    })
}

/// The reference of [`ops::mask`](crate::ops::mask): one `bool` per row.
///
/// # Errors
/// As [`ops::plan_mask`](crate::ops::plan_mask) (without the device's).
pub fn mask(predicate: &HostPredicate<'_>) -> Result<Vec<bool>, OpError> {
    const OP: &str = "mask";
    let mut columns = Vec::new();
    let mut masks: Vec<&[bool]> = Vec::new();
    let node = predicate.lower(&mut columns, &mut masks);
    for (i, c) in columns.iter().enumerate() {
        c.check(OP, i)?;
    }
    let lengths: Vec<u64> = columns.iter().map(HostInput::length).collect();
    let mask_lengths: Vec<u64> = masks.iter().map(|m| m.len() as u64).collect();
    let length = predicate_length(OP, &lengths, &mask_lengths)?;
    (0..length)
        .map(|row| eval(OP, &node, row, &columns, &masks))
        .collect()
}

/// The reference of [`ops::compact`](crate::ops::compact): the kept rows of each column,
/// packed, and their count.
///
/// # Errors
/// [`OpError::LengthMismatch`] and the input checks.
pub fn compact(
    mask: &[bool],
    columns: &[HostInput<'_>],
) -> Result<(Vec<HostColumn>, u64), OpError> {
    const OP: &str = "compact";
    let kept = mask.iter().filter(|&&k| k).count() as u64;
    let mut out = Vec::with_capacity(columns.len());
    for (i, c) in columns.iter().enumerate() {
        c.check(OP, i)?;
        OpError::check_length(OP, i, mask.len() as u64, c.length())?;
        let mut bytes = Vec::new();
        for (row, _) in mask.iter().enumerate().filter(|(_, k)| **k) {
            bytes.extend_from_slice(c.row(row as u64));
        }
        out.push(HostColumn {
            format: c.format(),
            length: kept,
            bytes,
        });
    }
    Ok((out, kept))
}

/// The reference of [`ops::prefix_sum`](crate::ops::prefix_sum).
///
/// # Errors
/// [`OpError::UnsupportedFormat`] for a format other than a one-lane integer, and the input
/// checks.
pub fn prefix_sum(column: HostInput<'_>) -> Result<HostColumn, OpError> {
    const OP: &str = "prefix_sum";
    let format = prefix_sum_output(OP, column.format())?;
    column.check(OP, 0)?;
    let bits = column.format().byte_length() as u32 * 8;
    let signed = column.format().is_signed();
    let mut sum = 0u32;
    let mut bytes = Vec::with_capacity((column.length() as usize + 1) * 4);
    for row in 0..column.length() {
        bytes.extend_from_slice(&sum.to_le_bytes());
        let raw = column.unit(row, 0);
        // Sign-extended for signed input (two's complement: the same wrapping sum).
        let value = if signed && bits < 32 {
            (((raw << (32 - bits)) as i32) >> (32 - bits)) as u32
        } else {
            raw
        };
        sum = sum.wrapping_add(value);
    }
    bytes.extend_from_slice(&sum.to_le_bytes());
    Ok(HostColumn {
        format,
        length: column.length() + 1,
        bytes,
    })
}
