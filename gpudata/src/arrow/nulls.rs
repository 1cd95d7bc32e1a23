//! The null policy: what happens to Arrow validity on the way to the GPU and back.
//!
//! A GPU buffer has no validity bitmap, and a shader reads every row. So nulls are never
//! dropped silently, and values under null slots are never invented; per type:
//!
//! | Arrow type | null rows | nulls inside a row |
//! |---|---|---|
//! | primitive, `FixedSizeList<primitive, n>`, `Dictionary` keys, `FixedSizeBinary` rows | [`NullPolicy::Keep`] (default): the validity is kept as readback metadata and restored on readback; the GPU sees the bytes the Arrow values buffer holds under null slots (arrow-rs builders write zeros there, but Arrow does not promise it, so a shader that must tell nulls apart needs its own validity column). [`NullPolicy::Reject`]: an error naming the column | `FixedSizeList` child nulls inside a valid row: an error (a fixed-width row has no per-component validity); child nulls under a null row are ignored (arrow-rs builders and pyarrow mark them null with the row) |
//! | `Utf8`, `LargeUtf8`, `Binary`, `LargeBinary` | as above: kept (luma.gl keeps a UTF-8 null bitmap) or rejected | — |
//! | `List`, `LargeList` | always an error naming the column (luma.gl's rule: variable-length vertex rows are drawn whole, so a null row has no meaning to the GPU) | element nulls among the slice's elements: an error (nulls of the child outside the slice belong to other slices and do not count) |
//!
//! A `Dictionary`'s values stay on the host whole (with their own validity) and come back as
//! they were.

use arrow_buffer::NullBuffer;
use arrow_schema::DataType as ArrowType;

use super::ArrowInteropError;

/// What to do with null rows of columns that can carry them (see the [module docs](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NullPolicy {
    /// Upload the values buffer as it is and keep the validity for readback.
    #[default]
    Keep,
    /// Refuse columns with null rows.
    Reject,
}

/// Applies `policy` to a column's row validity: the validity to keep, or the error.
pub(crate) fn row_validity(
    column: &str,
    data_type: &ArrowType,
    nulls: Option<&NullBuffer>,
    policy: NullPolicy,
) -> Result<Option<NullBuffer>, ArrowInteropError> {
    match nulls.filter(|n| n.null_count() > 0) {
        None => Ok(None),
        Some(nulls) => match policy {
            NullPolicy::Keep => Ok(Some(nulls.clone())),
            NullPolicy::Reject => Err(ArrowInteropError::Nulls {
                column: column.to_owned(),
                data_type: data_type.clone(),
                null_count: nulls.null_count(),
                what: "row",
                reason: "the null policy rejects nulls",
            }),
        },
    }
}

/// Refuses any null in `nulls` (list rows, list elements, fixed-size list components); `what`
/// names one of them, singular (`"row"`, `"nested value"`).
pub(crate) fn refuse(
    column: &str,
    data_type: &ArrowType,
    nulls: Option<&NullBuffer>,
    what: &'static str,
    reason: &'static str,
) -> Result<(), ArrowInteropError> {
    match nulls.map(NullBuffer::null_count).filter(|n| *n > 0) {
        None => Ok(()),
        Some(null_count) => Err(ArrowInteropError::Nulls {
            column: column.to_owned(),
            data_type: data_type.clone(),
            null_count,
            what,
            reason,
        }),
    }
}

/// Refuses any null among `len` slots of `nulls` from logical index `start`: the slots a slice
/// of a parent array uses (a `List` slice's elements), so that nulls outside the slice do not
/// count.
pub(crate) fn refuse_range(
    column: &str,
    data_type: &ArrowType,
    nulls: Option<&NullBuffer>,
    start: u64,
    len: u64,
    what: &'static str,
    reason: &'static str,
) -> Result<(), ArrowInteropError> {
    let Some(nulls) = nulls.filter(|n| n.null_count() > 0) else {
        return Ok(());
    };
    let range = usize::try_from(start)
        .ok()
        .zip(usize::try_from(len).ok())
        .filter(|(s, l)| s.checked_add(*l).is_some_and(|end| end <= nulls.len()));
    let Some((start, len)) = range else {
        return Err(ArrowInteropError::OutOfBounds {
            column: column.to_owned(),
            what: "nested value end",
            found: start.saturating_add(len),
            available: nulls.len() as u64,
        });
    };
    refuse(
        column,
        data_type,
        Some(&nulls.slice(start, len)),
        what,
        reason,
    )
}

/// Refuses nulls among the `components` child slots of each valid row of a fixed-size list:
/// row `r` (of `rows`, validity `row_nulls`) holds child slots `(first_row + r) * components ..`
/// of `child_nulls`. Child slots under a null row are ignored: arrays built the usual way
/// (arrow-rs's `FixedSizeListArray::from_iter_primitive`, pyarrow) mark them null too, and the
/// row's own validity already says that the row has no value.
pub(crate) fn refuse_in_valid_rows(
    column: &str,
    data_type: &ArrowType,
    row_nulls: Option<&NullBuffer>,
    rows: u64,
    child_nulls: Option<&NullBuffer>,
    first_row: u64,
    components: u32,
) -> Result<(), ArrowInteropError> {
    const WHAT: &str = "nested value";
    const REASON: &str = "a fixed-width gpu row has no per-component validity";
    let Some(child_nulls) = child_nulls.filter(|n| n.null_count() > 0) else {
        return Ok(());
    };
    let start = first_row.checked_mul(u64::from(components));
    let len = rows.checked_mul(u64::from(components));
    let (Some(start), Some(len)) = (start, len) else {
        return Err(ArrowInteropError::Overflow {
            column: column.to_owned(),
            what: "the nested value range",
        });
    };
    let Some(row_nulls) = row_nulls.filter(|n| n.null_count() > 0) else {
        return refuse_range(
            column,
            data_type,
            Some(child_nulls),
            start,
            len,
            WHAT,
            REASON,
        );
    };
    let end = start.saturating_add(len);
    if end > child_nulls.len() as u64 {
        return Err(ArrowInteropError::OutOfBounds {
            column: column.to_owned(),
            what: "nested value end",
            found: end,
            available: child_nulls.len() as u64,
        });
    }
    // In range: `end` fits the child's validity, whose length is a usize.
    let (start, components) = (start as usize, components as usize);
    let null_count: usize = row_nulls
        .valid_indices()
        .map(|row| {
            let first = start + row * components;
            (first..first + components)
                .filter(|&slot| child_nulls.is_null(slot))
                .count()
        })
        .sum();
    if null_count == 0 {
        return Ok(());
    }
    Err(ArrowInteropError::Nulls {
        column: column.to_owned(),
        data_type: data_type.clone(),
        null_count,
        what: WHAT,
        reason: REASON,
    })
}
