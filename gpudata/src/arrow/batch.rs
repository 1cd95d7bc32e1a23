//! Record batches: per-batch column selection and format choice (per column, from vertex
//! buffer layouts or from shader input types), upload of every column, and readback to an Arrow
//! `RecordBatch` with the original schema. Segmented single-buffer uploads are in
//! `segmented.rs`.

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{Schema, SchemaRef};

use super::gpu::{read_array, upload_source};
use super::source::{ArrowColumnSource, ColumnOptions};
use super::{ArrowInteropError, FormatChoice, NullPolicy};
use crate::data::{DEFAULT_USAGE, GpuData};
use crate::device::Gpu;
use crate::format::{GpuVectorFormat, ShaderType};
use crate::layout::BufferLayout;

/// How a column of a record batch is picked and formatted.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ColumnRule {
    name: String,
    options: ColumnOptions,
    /// Whether a missing column is an error (explicit rules) or skipped (layout-driven rules,
    /// as luma.gl skips shader attributes without a column).
    required: bool,
}

/// Options for uploading record batches.
///
/// By default every column is uploaded with its default format. Rules added with
/// [`column`](Self::column), [`format`](Self::format), [`from_buffer_layouts`](Self::from_buffer_layouts)
/// or [`from_shader_inputs`](Self::from_shader_inputs) set a column's format; with
/// [`only_listed`](Self::only_listed), only the columns named by rules are uploaded, in rule
/// order. With [`skip_unsupported`](Self::skip_unsupported), columns that cannot be carried are
/// left out and reported instead of failing the batch.
///
/// ```
/// use gpudata::arrow::BatchOptions;
/// use gpudata::ShaderType;
///
/// // A vertex shader's inputs choose the formats: a FixedSizeList<UInt8, 4> column `colors`
/// // becomes unorm8x4 for a vec4<f32> input.
/// let options = BatchOptions::from_shader_inputs([
///     ("positions", "vec2<f32>".parse::<ShaderType>()?),
///     ("colors", "vec4<f32>".parse::<ShaderType>()?),
/// ]);
/// # Ok::<(), gpudata::FormatError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BatchOptions {
    rules: Vec<ColumnRule>,
    only_listed: bool,
    /// Options of columns without a rule (null policy, webgl-only formats).
    pub defaults: ColumnOptions,
    /// Whether columns that cannot be carried are left out (and reported) instead of failing.
    pub skip_unsupported: bool,
    /// Buffer usages of the uploaded buffers ([`DEFAULT_USAGE`] when empty).
    pub usage: Option<wgpu::BufferUsages>,
    /// Where [`record_batches_to_gpu_table`](super::record_batches_to_gpu_table) cuts a batch
    /// into several GPU batches: by default only where a column would exceed the device's
    /// `max_buffer_size`.
    pub chunks: crate::table::ChunkOptions,
}

impl BatchOptions {
    /// Default formats for every column.
    #[must_use]
    pub fn new() -> BatchOptions {
        BatchOptions::default()
    }

    /// Sets `options` for column `name` (an error at upload if the batch has no such column).
    #[must_use]
    pub fn column(mut self, name: impl Into<String>, options: ColumnOptions) -> BatchOptions {
        let name = name.into();
        self.rules.retain(|r| r.name != name);
        self.rules.push(ColumnRule {
            name,
            options,
            required: true,
        });
        self
    }

    /// An explicit format for column `name`.
    #[must_use]
    pub fn format(self, name: impl Into<String>, format: GpuVectorFormat) -> BatchOptions {
        let defaults = self.defaults;
        self.column(
            name,
            ColumnOptions {
                format: FormatChoice::Format(format),
                ..defaults
            },
        )
    }

    /// Formats from vertex buffer layouts: each single-format layout names a column and its
    /// vertex format (`vertex-list<F>` when the column is a list); each attribute of an
    /// interleaved layout does the same. Only those columns are uploaded; layout entries without
    /// a column are skipped, as luma.gl skips shader attributes without one.
    #[must_use]
    pub fn from_buffer_layouts(layouts: &[BufferLayout]) -> BatchOptions {
        let mut options = BatchOptions {
            only_listed: true,
            ..BatchOptions::default()
        };
        for layout in layouts {
            for attribute in layout.resolved_attributes() {
                options
                    .push_layout_rule(attribute.attribute, FormatChoice::Vertex(attribute.format));
            }
        }
        options
    }

    /// Formats from vertex shader inputs (luma.gl's `getArrowVertexFormat`): `uint8` × 4 read
    /// as `vec4<f32>` becomes `unorm8x4`, and so on. Only those columns are uploaded; inputs
    /// without a column are skipped.
    #[must_use]
    pub fn from_shader_inputs<N: Into<String>>(
        inputs: impl IntoIterator<Item = (N, ShaderType)>,
    ) -> BatchOptions {
        let mut options = BatchOptions {
            only_listed: true,
            ..BatchOptions::default()
        };
        for (name, shader_type) in inputs {
            options.push_layout_rule(name.into(), FormatChoice::Shader(shader_type));
        }
        options
    }

    fn push_layout_rule(&mut self, name: String, format: FormatChoice) {
        self.rules.retain(|r| r.name != name);
        self.rules.push(ColumnRule {
            name,
            options: ColumnOptions {
                format,
                ..self.defaults
            },
            required: false,
        });
    }

    /// Uploads only the columns that rules name, in rule order.
    #[must_use]
    pub fn only_listed(mut self) -> BatchOptions {
        self.only_listed = true;
        self
    }

    /// Leaves out columns that cannot be carried, reporting them.
    #[must_use]
    pub fn skip_unsupported(mut self) -> BatchOptions {
        self.skip_unsupported = true;
        self
    }

    /// The null policy of columns without their own rule, and of rules added afterwards.
    #[must_use]
    pub fn null_policy(mut self, policy: NullPolicy) -> BatchOptions {
        self.defaults.null_policy = policy;
        for rule in &mut self.rules {
            rule.options.null_policy = policy;
        }
        self
    }

    /// Whether shader-driven selection may choose three-component `-webgl` formats.
    #[must_use]
    pub fn allow_webgl_only(mut self, allow: bool) -> BatchOptions {
        self.defaults.allow_webgl_only = allow;
        for rule in &mut self.rules {
            rule.options.allow_webgl_only = allow;
        }
        self
    }

    pub(crate) fn buffer_usage(&self) -> wgpu::BufferUsages {
        self.usage.unwrap_or(DEFAULT_USAGE)
    }
}

/// A column left out of an upload, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct SkippedColumn {
    /// The column.
    pub column: String,
    /// Why it cannot be carried.
    pub reason: ArrowInteropError,
}

/// The columns of one record batch, ready to upload: zero-copy sources in upload order, the
/// columns left out, and the batch's row count and schema.
#[derive(Clone, Debug)]
pub struct BatchSource {
    /// Column sources, in upload order.
    pub columns: Vec<ArrowColumnSource>,
    /// Columns left out under [`BatchOptions::skip_unsupported`].
    pub skipped: Vec<SkippedColumn>,
    /// Rows of the batch.
    pub num_rows: usize,
    /// The batch's Arrow schema.
    pub schema: SchemaRef,
}

/// A schema's column names, comma-separated (for "found [...]" in errors).
pub(super) fn names(schema: &Schema) -> String {
    schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A schema's fields as `name: type`, for [`ArrowInteropError::SchemaMismatch`].
pub(super) fn describe_schema(schema: &Schema) -> String {
    schema
        .fields()
        .iter()
        .map(|f| format!("{}: {}", f.name(), f.data_type()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A GPU row count as Arrow's `usize`.
pub(super) fn row_count(rows: u64) -> Result<usize, ArrowInteropError> {
    usize::try_from(rows).map_err(|_| ArrowInteropError::Overflow {
        column: "(record batch)".to_owned(),
        what: "the row count",
    })
}

impl BatchSource {
    /// Picks and prepares the columns of `batch`.
    ///
    /// # Errors
    /// [`ArrowInteropError::MissingColumn`] for an explicit rule naming no column; the first
    /// column error unless [`BatchOptions::skip_unsupported`].
    pub fn new(
        batch: &RecordBatch,
        options: &BatchOptions,
    ) -> Result<BatchSource, ArrowInteropError> {
        let schema = batch.schema();
        let mut picks: Vec<(usize, ColumnOptions)> = Vec::new();
        for rule in &options.rules {
            match schema.index_of(&rule.name) {
                Ok(index) => {
                    if options.only_listed {
                        picks.push((index, rule.options));
                    }
                }
                Err(_) if rule.required => {
                    return Err(ArrowInteropError::MissingColumn {
                        column: rule.name.clone(),
                        found: names(&schema),
                    });
                }
                Err(_) => {}
            }
        }
        if !options.only_listed {
            for (index, field) in schema.fields().iter().enumerate() {
                let rule = options.rules.iter().find(|r| r.name == *field.name());
                picks.push((index, rule.map_or(options.defaults, |r| r.options)));
            }
        }
        let mut columns = Vec::with_capacity(picks.len());
        let mut skipped = Vec::new();
        for (index, column_options) in picks {
            let field = schema.field(index);
            match ArrowColumnSource::new(field, batch.column(index).as_ref(), &column_options) {
                Ok(source) => columns.push(source),
                Err(reason) if options.skip_unsupported => skipped.push(SkippedColumn {
                    column: field.name().clone(),
                    reason,
                }),
                Err(e) => return Err(e),
            }
        }
        Ok(BatchSource {
            columns,
            skipped,
            num_rows: batch.num_rows(),
            schema,
        })
    }
}

/// Checks that every batch has the first batch's schema (names and types, in order).
///
/// # Errors
/// [`ArrowInteropError::SchemaMismatch`] naming the first batch that differs.
pub fn check_schemas(batches: &[RecordBatch]) -> Result<(), ArrowInteropError> {
    let Some(first) = batches.first() else {
        return Ok(());
    };
    let expected = first.schema();
    for (i, batch) in batches.iter().enumerate().skip(1) {
        let found = batch.schema();
        let same = found.fields().len() == expected.fields().len()
            && found
                .fields()
                .iter()
                .zip(expected.fields())
                .all(|(a, b)| a.name() == b.name() && a.data_type() == b.data_type());
        if !same {
            return Err(ArrowInteropError::SchemaMismatch {
                batch: i,
                expected: describe_schema(&expected),
                found: describe_schema(&found),
            });
        }
    }
    Ok(())
}

/// Named GPU columns, in order.
pub type GpuColumns = Vec<(String, GpuData)>;

/// Uploads the chosen columns of `batch`, one packed buffer each: `(name, GpuData)` in upload
/// order, and the columns left out.
///
/// # Errors
/// As [`BatchSource::new`] and [`upload_source`].
pub fn record_batch_to_gpu_columns(
    gpu: &Gpu,
    batch: &RecordBatch,
    options: &BatchOptions,
) -> Result<(GpuColumns, Vec<SkippedColumn>), ArrowInteropError> {
    let source = BatchSource::new(batch, options)?;
    let usage = options.buffer_usage();
    let columns = source
        .columns
        .iter()
        .map(|column| {
            upload_source(gpu, column, usage)
                .map(|data| (column.readback().column().to_owned(), data))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((columns, source.skipped))
}

/// Reads uploaded columns back as an Arrow `RecordBatch` with the original fields (names,
/// types, nullability, field metadata) and `schema_metadata`.
///
/// # Errors
/// [`ArrowInteropError::MissingMetadata`] for a column not uploaded from Arrow;
/// [`ArrowInteropError::Gpu`]; the errors of
/// [`ArrowReadback::to_array`](super::ArrowReadback::to_array); [`ArrowInteropError::Arrow`]
/// when the columns' lengths differ.
pub fn record_batch_from_gpu_columns<'a>(
    gpu: &Gpu,
    columns: impl IntoIterator<Item = (&'a str, &'a GpuData)>,
    num_rows: usize,
    schema_metadata: impl Into<arrow_schema::Metadata>,
) -> Result<RecordBatch, ArrowInteropError> {
    let mut fields = Vec::new();
    let mut arrays: Vec<ArrayRef> = Vec::new();
    for (_, data) in columns {
        let (readback, array) = read_array(gpu, data)?;
        arrays.push(array);
        fields.push(readback.field().clone());
    }
    let schema = Arc::new(Schema::new(fields).with_metadata(schema_metadata));
    RecordBatch::try_new_with_options(
        schema,
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(num_rows)),
    )
    .map_err(|e| ArrowInteropError::Arrow {
        column: "(record batch)".to_owned(),
        data_type: arrow_schema::DataType::Null,
        message: e.to_string(),
    })
}
