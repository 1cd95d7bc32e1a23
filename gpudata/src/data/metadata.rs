//! [`ReadbackMetadata`]: what an adapter keeps beside GPU data to read it back as its own type,
//! and [`RowMetadata`], the part of it that follows the data's rows through a row filter.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// Producer-owned metadata kept for adapter-level readback (luma.gl's `readbackMetadata`):
/// Arrow offsets, null bitmaps, logical types. gpudata stores and returns it untouched; metadata
/// made with [`with_rows`](Self::with_rows) also follows the data's rows through a row filter
/// (`GpuTable::filter`), as Arrow's readback does with its validity.
///
/// ```
/// use gpudata::data::ReadbackMetadata;
///
/// let metadata = ReadbackMetadata::new("utf8".to_owned());
/// assert_eq!(metadata.downcast_ref::<String>().map(String::as_str), Some("utf8"));
/// assert!(metadata.rows().is_none());
/// ```
#[derive(Clone)]
pub struct ReadbackMetadata(Value);

#[derive(Clone)]
enum Value {
    Plain(Arc<dyn Any + Send + Sync>),
    Rows(Arc<dyn RowMetadata>),
}

impl ReadbackMetadata {
    /// Metadata holding `value`, which a row filter does not carry over.
    #[must_use]
    pub fn new<T: Any + Send + Sync>(value: T) -> ReadbackMetadata {
        ReadbackMetadata(Value::Plain(Arc::new(value)))
    }

    /// Metadata holding `value`, which follows its data's rows through a row filter.
    #[must_use]
    pub fn with_rows<T: RowMetadata>(value: T) -> ReadbackMetadata {
        ReadbackMetadata(Value::Rows(Arc::new(value)))
    }

    /// The value, if it is a `T`.
    #[must_use]
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        let any: &dyn Any = match &self.0 {
            Value::Plain(value) => &**value,
            Value::Rows(value) => &**value,
        };
        any.downcast_ref()
    }

    /// What the value knows of its data's rows, when it was made with
    /// [`with_rows`](Self::with_rows).
    #[must_use]
    pub fn rows(&self) -> Option<&dyn RowMetadata> {
        match &self.0 {
            Value::Plain(_) => None,
            Value::Rows(value) => Some(&**value),
        }
    }
}

impl fmt::Debug for ReadbackMetadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadbackMetadata")
            .field("rows", &self.rows().is_some())
            .finish_non_exhaustive()
    }
}

/// Readback metadata that describes its data row by row, so that it survives a row filter:
/// Arrow's readback (its validity) implements it.
pub trait RowMetadata: Any + Send + Sync {
    /// Rows of the data that are null.
    fn null_count(&self) -> u64;

    /// The metadata of the `kept` rows a row filter keeps of this metadata's data, in order:
    /// the rows where `keep` is `true` (one entry per row). `keep` is given whenever some
    /// column filtered with this one has null rows, so always when
    /// [`null_count`](Self::null_count) is not 0. `None` when the metadata cannot follow (an
    /// Arrow list column's offsets, say): the filtered data then has no readback metadata.
    fn keep_rows(&self, kept: u64, keep: Option<&[bool]>) -> Option<ReadbackMetadata>;

    /// Which rows are valid, one `bool` per row (`true` a valid row); `None` when every row is
    /// (the default).
    fn validity(&self) -> Option<Vec<bool>> {
        None
    }

    /// The metadata of rows taken in order from the data of `sources` (this metadata's own
    /// kind: the same column in several batches, this one among them): row `i` is row
    /// `rows[i].1` of `sources[rows[i].0]`, as a sort of a table moves them. `None` (the
    /// default) when the metadata cannot follow: the sort then refuses the column rather than
    /// drop what its readback needs.
    fn take_rows(
        &self,
        sources: &[&dyn RowMetadata],
        rows: &[(usize, u64)],
    ) -> Option<ReadbackMetadata> {
        let _ = (sources, rows);
        None
    }
}
