//! [`GpuRecordBatch`]: named [`GpuData`] columns of equal row count, with buffer layouts and a
//! schema (luma.gl's `GPURecordBatch`).

use std::fmt;

use crate::data::{GpuData, GpuDataFormat, rows_layout};
use crate::format::GpuVectorFormat;
use crate::layout::BufferLayout;
use crate::table::TableError;

use super::schema::{GpuSchema, GpuSchemaField, Metadata, RESERVED_INDEX_COLUMN};

/// Where a batch's rows came from in a source table (luma.gl's `sourceInfo`), set by adapters
/// such as the Arrow one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SourceInfo {
    /// The source batch.
    pub source_batch_index: u64,
    /// The source row of the batch's first row.
    pub source_row_index_offset: u64,
    /// Rows taken from the source.
    pub source_row_count: u64,
}

/// Options of [`GpuRecordBatch::with_options`], and of
/// [`GpuTable::from_columns`](crate::table::GpuTable::from_columns) and
/// [`GpuTable::from_vectors`](crate::table::GpuTable::from_vectors), which give them to every batch
/// they build. Unset parts are synthesized from the columns.
#[derive(Clone, Debug, Default)]
pub struct RecordBatchOptions {
    /// Explicit buffer layouts; each names an existing column other than `indices`.
    pub buffer_layouts: Option<Vec<BufferLayout>>,
    /// Explicit schema fields; each names an existing column.
    pub fields: Option<Vec<GpuSchemaField>>,
    /// The row count; every column must have it.
    pub num_rows: Option<u64>,
    /// Schema metadata.
    pub metadata: Metadata,
    /// Where the rows came from.
    pub source_info: Option<SourceInfo>,
    /// Null rows (informational).
    pub null_count: u64,
}

/// Checks given buffer layouts against the columns (`has` tells which exist): none names
/// `indices` or a missing column.
pub(crate) fn check_given_layouts(
    layouts: &[BufferLayout],
    has: impl Fn(&str) -> bool,
) -> Result<(), TableError> {
    for layout in layouts {
        if layout.name == RESERVED_INDEX_COLUMN {
            return Err(TableError::BatchLayoutReservedIndices);
        }
        if !has(&layout.name) {
            return Err(TableError::BatchLayoutMissingData {
                layout: layout.name.clone(),
            });
        }
    }
    Ok(())
}

/// Checks given schema fields against the columns (`has` tells which exist): each names one.
pub(crate) fn check_given_fields(
    fields: &[GpuSchemaField],
    has: impl Fn(&str) -> bool,
) -> Result<(), TableError> {
    for field in fields {
        if !has(&field.name) {
            return Err(TableError::SchemaMissingData {
                column: field.name.clone(),
            });
        }
    }
    Ok(())
}

/// Who synthesizes a layout or field, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    Batch,
    Table,
}

impl Owner {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Owner::Batch => "gpu record batch",
            Owner::Table => "gpu table",
        }
    }
}

/// The buffer layout luma.gl synthesizes for a column: one attribute of the column's format at
/// its byte stride; for struct rows (an extension), the struct's interleaved layout. `Ok(None)`
/// for list columns when `skip_lists` is set.
pub(crate) fn synthesize_layout(
    owner: Owner,
    name: &str,
    format: Option<&GpuDataFormat>,
    byte_stride: u64,
    skip_lists: bool,
) -> Result<Option<BufferLayout>, TableError> {
    let list = |list: &'static str| {
        if skip_lists {
            Ok(None)
        } else {
            Err(TableError::ListLayout {
                owner: owner.as_str(),
                list,
                column: name.to_owned(),
            })
        }
    };
    match format {
        None => Err(TableError::NoLayoutFormat {
            owner: owner.as_str(),
            column: name.to_owned(),
        }),
        Some(GpuDataFormat::Vector(GpuVectorFormat::VertexList(_))) => list("vertex-list"),
        Some(GpuDataFormat::Vector(GpuVectorFormat::ValueList(_))) => list("value-list"),
        Some(fixed_or_struct) => Ok(Some(rows_layout(name, Some(fixed_or_struct), byte_stride)?)),
    }
}

/// Named [`GpuData`] columns with one row count, their vertex buffer layouts and a schema:
/// luma.gl's `GPURecordBatch`.
///
/// The batch owns its columns: [`destroy`](Self::destroy) destroys each (freeing the buffers
/// they own). A column named [`RESERVED_INDEX_COLUMN`] is the index buffer of indexed draws and
/// never gets a buffer layout.
pub struct GpuRecordBatch {
    columns: Vec<(String, GpuData)>,
    buffer_layouts: Vec<BufferLayout>,
    schema: GpuSchema,
    num_rows: u64,
    source_info: Option<SourceInfo>,
    null_count: u64,
}

impl GpuRecordBatch {
    /// A batch of `columns`, in order, with synthesized layouts and fields.
    ///
    /// # Errors
    /// As [`with_options`](Self::with_options).
    pub fn new<N: Into<String>>(
        columns: impl IntoIterator<Item = (N, GpuData)>,
    ) -> Result<GpuRecordBatch, TableError> {
        GpuRecordBatch::with_options(columns, RecordBatchOptions::default())
    }

    /// A batch of `columns`, in order (luma.gl's constructor):
    ///
    /// - `num_rows`: the given count, else the first column's length, else 0; every column must
    ///   have it.
    /// - buffer layouts: the given ones (none may name `indices` or a missing column), else one
    ///   per column but `indices`: `{name, byte_stride, format}` for fixed formats, the struct's
    ///   interleaved layout for struct rows.
    /// - fields: the given ones (each naming a column), else one per column in order, with its
    ///   format; a column without a format needs a layout of its name.
    ///
    /// # Errors
    /// [`TableError::DuplicateColumn`]; [`TableError::BatchRowCount`];
    /// [`TableError::BatchLayoutReservedIndices`]; [`TableError::BatchLayoutMissingData`];
    /// [`TableError::NoLayoutFormat`] and [`TableError::ListLayout`] when a layout cannot be
    /// synthesized; [`TableError::SchemaMissingData`]; [`TableError::NoFieldFormat`].
    pub fn with_options<N: Into<String>>(
        columns: impl IntoIterator<Item = (N, GpuData)>,
        options: RecordBatchOptions,
    ) -> Result<GpuRecordBatch, TableError> {
        let columns: Vec<(String, GpuData)> =
            columns.into_iter().map(|(n, d)| (n.into(), d)).collect();
        for (i, (name, _)) in columns.iter().enumerate() {
            if columns[..i].iter().any(|(n, _)| n == name) {
                return Err(TableError::DuplicateColumn {
                    column: name.clone(),
                });
            }
        }
        let num_rows = match columns.first() {
            None => options.num_rows.unwrap_or(0),
            Some((_, first)) => {
                let expected = options.num_rows.unwrap_or(first.length());
                for (name, data) in &columns {
                    if data.length() != expected {
                        return Err(TableError::BatchRowCount {
                            column: name.clone(),
                            expected,
                            found: data.length(),
                        });
                    }
                }
                expected
            }
        };
        let has = |name: &str| columns.iter().any(|(n, _)| n == name);
        let buffer_layouts = match options.buffer_layouts {
            Some(layouts) => {
                check_given_layouts(&layouts, has)?;
                layouts
            }
            None => {
                let mut layouts = Vec::new();
                for (name, data) in &columns {
                    if name == RESERVED_INDEX_COLUMN {
                        continue;
                    }
                    if let Some(layout) = synthesize_layout(
                        Owner::Batch,
                        name,
                        data.format(),
                        data.byte_stride(),
                        false,
                    )? {
                        layouts.push(layout);
                    }
                }
                layouts
            }
        };
        let fields = match options.fields {
            Some(fields) => {
                check_given_fields(&fields, has)?;
                fields
            }
            None => synthesize_fields(Owner::Batch, &columns, &buffer_layouts)?,
        };
        Ok(GpuRecordBatch {
            columns,
            buffer_layouts,
            schema: GpuSchema {
                fields,
                metadata: options.metadata,
            },
            num_rows,
            source_info: options.source_info,
            null_count: options.null_count,
        })
    }

    /// A batch of no columns and `num_rows` rows (a table of constants only).
    #[must_use]
    pub fn empty(num_rows: u64) -> GpuRecordBatch {
        GpuRecordBatch {
            columns: Vec::new(),
            buffer_layouts: Vec::new(),
            schema: GpuSchema::default(),
            num_rows,
            source_info: None,
            null_count: 0,
        }
    }

    /// Rows.
    #[must_use]
    pub const fn num_rows(&self) -> u64 {
        self.num_rows
    }

    /// Schema fields.
    #[must_use]
    pub fn num_cols(&self) -> usize {
        self.schema.fields.len()
    }

    /// The schema.
    #[must_use]
    pub fn schema(&self) -> &GpuSchema {
        &self.schema
    }

    /// The vertex buffer layouts.
    #[must_use]
    pub fn buffer_layouts(&self) -> &[BufferLayout] {
        &self.buffer_layouts
    }

    /// The columns, in order.
    pub fn columns(&self) -> impl ExactSizeIterator<Item = (&str, &GpuData)> {
        self.columns.iter().map(|(n, d)| (n.as_str(), d))
    }

    /// Column names, in order.
    pub fn column_names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.columns.iter().map(|(n, _)| n.as_str())
    }

    /// The column called `name`.
    #[must_use]
    pub fn column(&self, name: &str) -> Option<&GpuData> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, d)| d)
    }

    /// Whether the batch has no columns.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// The index column, if any.
    #[must_use]
    pub fn indices(&self) -> Option<&GpuData> {
        self.column(RESERVED_INDEX_COLUMN)
    }

    /// Where the rows came from.
    #[must_use]
    pub const fn source_info(&self) -> Option<SourceInfo> {
        self.source_info
    }

    /// Null rows.
    #[must_use]
    pub const fn null_count(&self) -> u64 {
        self.null_count
    }

    /// Whether some column owns its buffer.
    #[must_use]
    pub fn owns_buffer(&self) -> bool {
        self.columns.iter().any(|(_, d)| d.owns_buffer())
    }

    /// The columns, taken out with their ownership.
    #[must_use]
    pub fn into_columns(self) -> Vec<(String, GpuData)> {
        self.columns
    }

    /// Destroys every column (freeing the buffers they own).
    pub fn destroy(self) {
        for (_, data) in self.columns {
            data.destroy();
        }
    }

    /// The data of column `name`, to replace its buffer with one of the same format and rows.
    #[cfg(feature = "parquet")]
    pub(crate) fn column_mut(&mut self, name: &str) -> Option<&mut GpuData> {
        self.columns
            .iter_mut()
            .find(|(n, _)| n == name)
            .map(|(_, data)| data)
    }

    /// Removes a column with its field and layout.
    pub(crate) fn remove_column(&mut self, name: &str) -> Option<GpuData> {
        let at = self.columns.iter().position(|(n, _)| n == name)?;
        let (_, data) = self.columns.remove(at);
        self.schema.fields.retain(|f| f.name != name);
        self.buffer_layouts.retain(|l| l.name != name);
        Some(data)
    }

    /// Keeps the columns in `names` (unique), in that order; destroys the others.
    pub(crate) fn select(&mut self, names: &[&str]) {
        let mut columns = std::mem::take(&mut self.columns);
        let mut kept = Vec::with_capacity(names.len());
        for name in names {
            if let Some(at) = columns.iter().position(|(n, _)| n == name) {
                kept.push(columns.remove(at));
            }
        }
        for (_, data) in columns {
            data.destroy();
        }
        self.columns = kept;
        let pick = |name: &str| names.iter().position(|n| *n == name);
        let mut fields = std::mem::take(&mut self.schema.fields);
        fields.retain(|f| pick(&f.name).is_some());
        fields.sort_by_key(|f| pick(&f.name));
        self.schema.fields = fields;
        let mut layouts = std::mem::take(&mut self.buffer_layouts);
        layouts.retain(|l| pick(&l.name).is_some());
        layouts.sort_by_key(|l| pick(&l.name));
        self.buffer_layouts = layouts;
    }
}

/// luma.gl's field synthesis: one field per column in order; a column without a format needs a
/// layout of its name (the field then has no format).
pub(crate) fn synthesize_fields(
    owner: Owner,
    columns: &[(String, GpuData)],
    layouts: &[BufferLayout],
) -> Result<Vec<GpuSchemaField>, TableError> {
    columns
        .iter()
        .map(|(name, data)| {
            if data.format().is_none() && !layouts.iter().any(|l| &l.name == name) {
                return Err(TableError::NoFieldFormat {
                    owner: owner.as_str(),
                    column: name.clone(),
                });
            }
            Ok(GpuSchemaField::new(name.clone(), data.format().cloned()))
        })
        .collect()
}

impl fmt::Debug for GpuRecordBatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuRecordBatch")
            .field("num_rows", &self.num_rows)
            .field("schema", &self.schema.to_string())
            .field("columns", &self.columns)
            .field("buffer_layouts", &self.buffer_layouts)
            .field("source_info", &self.source_info)
            .field("null_count", &self.null_count)
            .finish()
    }
}
