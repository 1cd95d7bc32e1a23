//! The null policy: what happens to Arrow validity on the way to the GPU and back.
//!
//! A GPU buffer has no validity bitmap, and a shader reads every row. So nulls are never
//! dropped silently, and values under null slots are never invented; per type:
//!
//! | Arrow type | null rows | nulls inside a row |
//! |---|---|---|
//! | primitive, `FixedSizeList<primitive, n>`, `Dictionary` keys, `FixedSizeBinary` rows | [`NullPolicy::Keep`] (default): the validity is kept as readback metadata and restored on readback; the GPU sees the bytes the Arrow values buffer holds under null slots (arrow-rs builders write zeros there, but Arrow does not promise it, so a shader that must tell nulls apart needs its own validity column). [`NullPolicy::Reject`]: an error naming the column | `FixedSizeList` child nulls: always an error (a fixed-width row has no per-component validity) |
//! | `Utf8`, `LargeUtf8`, `Binary`, `LargeBinary` | as above: kept (luma.gl keeps a UTF-8 null bitmap) or rejected | — |
//! | `List`, `LargeList` | always an error naming the column (luma.gl's rule: variable-length vertex rows are drawn whole, so a null row has no meaning to the GPU) | element nulls: always an error |
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
