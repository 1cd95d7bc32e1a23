//! [`GpuTable`]: record batches that share a schema and buffer layouts, plus constant columns
//! (luma.gl's `GPUTable`).

use std::fmt;
use std::ops::Range;

use crate::data::{GpuData, ReadbackMetadata};
use crate::layout::BufferLayout;
use crate::table::TableError;

use crate::table::column::batch::{
    GpuRecordBatch, Owner, RecordBatchOptions, check_given_fields, check_given_layouts,
    synthesize_layout,
};
use crate::table::column::constant::GpuConstant;
use crate::table::column::schema::{GpuSchema, GpuSchemaField, RESERVED_INDEX_COLUMN};
use crate::table::column::vector::{DataVectorOptions, GpuVector, checked_sum, format_text};

mod bind;
mod filter;
mod filter_nulls;
mod relayout;

/// A column given to [`GpuTable::from_columns`]: varying rows or one constant value.
#[derive(Debug)]
pub enum GpuColumn {
    /// A column of rows.
    Vector(GpuVector),
    /// One value for every row.
    Constant(GpuConstant),
}

impl From<GpuVector> for GpuColumn {
    fn from(vector: GpuVector) -> Self {
        GpuColumn::Vector(vector)
    }
}

impl From<GpuConstant> for GpuColumn {
    fn from(constant: GpuConstant) -> Self {
        GpuColumn::Constant(constant)
    }
}

/// A column of a [`GpuTable`], borrowed.
#[derive(Clone, Copy, Debug)]
pub enum GpuColumnRef<'a> {
    /// The aggregate vector of a varying column.
    Vector(&'a GpuVector),
    /// A constant column.
    Constant(&'a GpuConstant),
}

/// Record batches with one schema and one set of buffer layouts, plus constant columns: luma.gl's
/// `GPUTable`, with Rust ownership instead of runtime ownership flags.
///
/// The table owns its batches, and each batch owns its columns' [`GpuData`]. The per-column
/// [`vectors`](Self::vectors) are aggregate views over every batch's chunk of that column, rebuilt
/// after each change; their chunks [`share`](GpuData::share) the batches' buffers, so destroying
/// the table (not the vectors) frees memory. Detaching a vector or batches moves their data out:
/// the table no longer frees it, the returned value does.
///
/// # Construction
///
/// | luma.gl | Rust |
/// |---|---|
/// | `{batches, constants}` | [`from_batches`](Self::from_batches) |
/// | `{schema, bufferLayout}` | [`empty`](Self::empty) |
/// | `{columns, numRows, ...}` | [`from_columns`](Self::from_columns) |
/// | `{vectors, ...}` | [`from_vectors`](Self::from_vectors) |
pub struct GpuTable {
    pub(in crate::table) schema: GpuSchema,
    pub(in crate::table) buffer_layouts: Option<Vec<BufferLayout>>,
    pub(in crate::table) batches: Vec<GpuRecordBatch>,
    pub(in crate::table) constants: Vec<(String, GpuConstant)>,
    pub(in crate::table) vectors: Vec<GpuVector>,
    pub(in crate::table) data_types: Vec<(String, ReadbackMetadata)>,
    pub(in crate::table) num_rows: u64,
    pub(in crate::table) null_count: u64,
}

/// Checks constant names against the first batch's columns and the reserved name.
fn check_constants(
    constants: &[(String, GpuConstant)],
    first: Option<&GpuRecordBatch>,
) -> Result<(), TableError> {
    for (i, (name, _)) in constants.iter().enumerate() {
        if first.is_some_and(|b| b.column(name).is_some()) {
            return Err(TableError::ConstantConflicts {
                column: name.clone(),
            });
        }
        if name == RESERVED_INDEX_COLUMN {
            return Err(TableError::ReservedIndicesConstant);
        }
        if constants[..i].iter().any(|(n, _)| n == name) {
            return Err(TableError::DuplicateColumn {
                column: name.clone(),
            });
        }
    }
    Ok(())
}

fn constant_field(name: &str, constant: &GpuConstant) -> GpuSchemaField {
    GpuSchemaField::new(name, Some(constant.format().into()))
}

/// `layouts` for a message, each as its name and what it holds:
/// ``[`positions` (float32x2, stride 8), `points` (position: float32x3 at 0, color: unorm8x4 at
/// 12, stride 16, step mode instance)]``.
fn layouts_text(layouts: &[BufferLayout]) -> String {
    let described: Vec<String> = layouts.iter().map(layout_text).collect();
    format!("[{}]", described.join(", "))
}

/// One layout for a message: `` `name` (what it holds, stride, step mode) ``, leaving out what
/// the layout does not state.
fn layout_text(layout: &BufferLayout) -> String {
    let mut parts: Vec<String> = if layout.attributes.is_empty() {
        vec![match layout.format {
            Some(format) => format.to_string(),
            None => "no format".to_owned(),
        }]
    } else {
        layout
            .attributes
            .iter()
            .map(|a| format!("{}: {} at {}", a.attribute, a.format, a.byte_offset))
            .collect()
    };
    if let Some(stride) = layout.byte_stride {
        parts.push(format!("stride {stride}"));
    }
    if let Some(step_mode) = layout.step_mode {
        parts.push(format!("step mode {step_mode}"));
    }
    format!("`{}` ({})", layout.name, parts.join(", "))
}

impl GpuTable {
    /// A table of `batches` and `constants` (luma.gl's batches constructor): the schema is the
    /// first batch's, followed by one field per constant; the layouts are the first batch's.
    ///
    /// # Errors
    /// [`TableError::NoBatches`]; [`TableError::BatchLayoutsDiffer`] and
    /// [`TableError::BatchSchemaDiffers`] when a batch's layouts or schema (names and formats,
    /// in order) differ from the first batch's; [`TableError::ConstantConflicts`] for a constant
    /// named like a batch column; [`TableError::ReservedIndicesConstant`];
    /// [`TableError::DuplicateColumn`]; [`TableError::MissingBatchData`] and
    /// [`TableError::ChunkFormat`] when a batch lacks a column of the first or has another format;
    /// [`TableError::Overflow`].
    pub fn from_batches<N: Into<String>>(
        batches: Vec<GpuRecordBatch>,
        constants: impl IntoIterator<Item = (N, GpuConstant)>,
    ) -> Result<GpuTable, TableError> {
        let Some(first) = batches.first() else {
            return Err(TableError::NoBatches);
        };
        for (i, batch) in batches.iter().enumerate().skip(1) {
            if batch.buffer_layouts() != first.buffer_layouts() {
                return Err(TableError::BatchLayoutsDiffer {
                    operation: "from_batches",
                    batch: i,
                    expected: layouts_text(first.buffer_layouts()),
                    found: layouts_text(batch.buffer_layouts()),
                });
            }
            if !batch.schema().matches(first.schema()) {
                return Err(TableError::BatchSchemaDiffers {
                    operation: "from_batches",
                    batch: i,
                    expected: first.schema().to_string(),
                    found: batch.schema().to_string(),
                });
            }
        }
        let constants: Vec<(String, GpuConstant)> =
            constants.into_iter().map(|(n, c)| (n.into(), c)).collect();
        check_constants(&constants, Some(first))?;
        let mut schema = first.schema().clone();
        schema
            .fields
            .extend(constants.iter().map(|(n, c)| constant_field(n, c)));
        let mut table = GpuTable {
            schema,
            buffer_layouts: Some(first.buffer_layouts().to_vec()),
            batches,
            constants,
            vectors: Vec::new(),
            data_types: Vec::new(),
            num_rows: 0,
            null_count: 0,
        };
        table.refresh()?;
        Ok(table)
    }

    /// A table without rows: a schema and, when known, buffer layouts (luma.gl's schema
    /// constructor). [`add_batch`](Self::add_batch) fills it.
    #[must_use]
    pub fn empty(schema: GpuSchema, buffer_layouts: Option<Vec<BufferLayout>>) -> GpuTable {
        GpuTable {
            schema,
            buffer_layouts,
            batches: Vec::new(),
            constants: Vec::new(),
            vectors: Vec::new(),
            data_types: Vec::new(),
            num_rows: 0,
            null_count: 0,
        }
    }

    /// A table of named columns, vectors and constants, in order (luma.gl's columns
    /// constructor). Chunk `i` of every vector becomes batch `i`, so vectors need equal chunk
    /// counts and equal row counts per chunk. The vectors' chunks move into the batches with
    /// their ownership.
    ///
    /// - Buffer layouts: per vector but `indices`, the vector's own layout, else `{name,
    ///   byte_stride, format}` (a struct's interleaved layout for struct rows). List vectors get
    ///   none while no vector holds data.
    /// - Fields: one per column in order, with its format; a vector without a format needs a
    ///   layout.
    /// - Rows: the varying columns' rows; `options.num_rows` must agree, and is required when
    ///   every column is a constant (one batch without columns then carries the row count).
    /// - `options.buffer_layouts` and `options.fields`, when given, replace the synthesized
    ///   layouts and the vectors' fields (the schema is then the given fields, then the
    ///   constants'), checked as [`GpuRecordBatch::with_options`] checks them.
    ///
    /// # Errors
    /// In luma.gl's order: [`TableError::DuplicateColumn`], [`TableError::ColumnNameMismatch`]
    /// (a vector keyed by another name), [`TableError::ReservedIndicesConstant`];
    /// [`TableError::NoLayoutFormat`], [`TableError::ListLayout`]; [`TableError::NoFieldFormat`];
    /// [`TableError::IncompatibleChunks`], [`TableError::ChunkCountMismatch`],
    /// [`TableError::SourceInfoNeedsOneChunk`], [`TableError::BatchRowMismatch`];
    /// [`TableError::NumRowsRequired`], [`TableError::NumRowsMismatch`]; then the batch checks
    /// of [`GpuRecordBatch::with_options`].
    pub fn from_columns<N: Into<String>>(
        columns: impl IntoIterator<Item = (N, GpuColumn)>,
        options: RecordBatchOptions,
    ) -> Result<GpuTable, TableError> {
        let columns: Vec<(String, GpuColumn)> =
            columns.into_iter().map(|(n, c)| (n.into(), c)).collect();
        for (i, (key, column)) in columns.iter().enumerate() {
            if columns[..i].iter().any(|(k, _)| k == key) {
                return Err(TableError::DuplicateColumn {
                    column: key.clone(),
                });
            }
            match column {
                GpuColumn::Vector(v) if v.name() != key => {
                    return Err(TableError::ColumnNameMismatch {
                        key: key.clone(),
                        name: v.name().to_owned(),
                    });
                }
                GpuColumn::Constant(_) if key == RESERVED_INDEX_COLUMN => {
                    return Err(TableError::ReservedIndicesConstant);
                }
                _ => {}
            }
        }
        let vectors: Vec<&GpuVector> = columns
            .iter()
            .filter_map(|(_, c)| match c {
                GpuColumn::Vector(v) => Some(v),
                GpuColumn::Constant(_) => None,
            })
            .collect();

        // Layouts: the given ones, else synthesized.
        let has_data = vectors.iter().any(|v| !v.chunks().is_empty());
        let has = |name: &str| vectors.iter().any(|v| v.name() == name);
        if let Some(given) = &options.buffer_layouts {
            check_given_layouts(given, has)?;
        }
        let mut layouts = options.buffer_layouts.clone().unwrap_or_default();
        for v in vectors.iter().filter(|_| options.buffer_layouts.is_none()) {
            if v.name() == RESERVED_INDEX_COLUMN {
                continue;
            }
            if let Some(layout) = v.buffer_layout() {
                layouts.push(layout.clone());
                continue;
            }
            if let Some(layout) = synthesize_layout(
                Owner::Table,
                v.name(),
                v.format(),
                v.byte_stride(),
                !has_data,
            )? {
                layouts.push(layout);
            }
        }

        // Fields.
        let mut fields = Vec::with_capacity(columns.len());
        let mut varying_fields = Vec::with_capacity(vectors.len());
        for (key, column) in &columns {
            match column {
                GpuColumn::Vector(_) if options.fields.is_some() => {}
                GpuColumn::Vector(v) => {
                    if v.format().is_none() && v.buffer_layout().is_none() {
                        return Err(TableError::NoFieldFormat {
                            owner: Owner::Table.as_str(),
                            column: key.clone(),
                        });
                    }
                    let field = GpuSchemaField::new(key.clone(), v.format().cloned());
                    varying_fields.push(field.clone());
                    fields.push(field);
                }
                GpuColumn::Constant(c) => fields.push(constant_field(key, c)),
            }
        }

        if let Some(given) = &options.fields {
            check_given_fields(given, has)?;
            varying_fields.clone_from(given);
            fields.splice(0..0, given.iter().cloned());
        }

        // Batches.
        let chunk_count = vectors.first().map_or(0, |v| v.chunks().len());
        for v in &vectors {
            for (i, chunk) in v.chunks().iter().enumerate() {
                if !v.matches_chunk(chunk) {
                    return Err(TableError::IncompatibleChunks {
                        column: v.name().to_owned(),
                        chunk: i,
                        expected: describe_vector(v),
                        found: describe_chunk(chunk),
                    });
                }
            }
            if v.chunks().len() != chunk_count {
                return Err(TableError::ChunkCountMismatch {
                    column: v.name().to_owned(),
                    expected: chunk_count,
                    found: v.chunks().len(),
                });
            }
        }
        if (options.source_info.is_some() || options.null_count > 0) && chunk_count != 1 {
            return Err(TableError::SourceInfoNeedsOneChunk {
                chunks: chunk_count,
            });
        }
        let mut batch_rows = Vec::with_capacity(chunk_count);
        for b in 0..chunk_count {
            let expected = vectors[0].chunks()[b].length();
            for v in &vectors {
                let found = v.chunks()[b].length();
                if found != expected {
                    return Err(TableError::BatchRowMismatch {
                        batch: b,
                        column: v.name().to_owned(),
                        expected,
                        found,
                    });
                }
            }
            batch_rows.push(expected);
        }

        // Rows.
        let inferred =
            checked_sum(batch_rows.iter().copied()).ok_or_else(|| TableError::Overflow {
                what: "the row count of the table's columns".to_owned(),
            })?;
        let num_rows = if vectors.is_empty() {
            options.num_rows.ok_or(TableError::NumRowsRequired)?
        } else {
            if let Some(given) = options.num_rows
                && given != inferred
            {
                return Err(TableError::NumRowsMismatch {
                    expected: inferred,
                    found: given,
                });
            }
            inferred
        };

        // Every check passed: move the chunks into batches.
        let mut constants = Vec::new();
        let mut vector_chunks: Vec<(String, std::vec::IntoIter<GpuData>)> = Vec::new();
        let mut data_types = Vec::new();
        for (key, column) in columns {
            match column {
                GpuColumn::Vector(mut v) => {
                    if let Some(dt) = v.readback_metadata() {
                        data_types.push((key.clone(), dt.clone()));
                    }
                    vector_chunks.push((key, v.take_chunks().into_iter()));
                }
                GpuColumn::Constant(c) => constants.push((key, c)),
            }
        }
        let mut batches = Vec::with_capacity(chunk_count.max(1));
        for rows in batch_rows {
            let batch_columns: Vec<(String, GpuData)> = vector_chunks
                .iter_mut()
                .filter_map(|(name, chunks)| chunks.next().map(|c| (name.clone(), c)))
                .collect();
            batches.push(GpuRecordBatch::with_options(
                batch_columns,
                RecordBatchOptions {
                    buffer_layouts: Some(layouts.clone()),
                    fields: Some(varying_fields.clone()),
                    num_rows: Some(rows),
                    ..options.clone()
                },
            )?);
        }
        if batches.is_empty() && !constants.is_empty() {
            batches.push(GpuRecordBatch::empty(num_rows));
        }
        let mut table = GpuTable {
            schema: GpuSchema {
                fields,
                metadata: options.metadata,
            },
            buffer_layouts: Some(layouts),
            batches,
            constants,
            vectors: Vec::new(),
            data_types,
            num_rows,
            null_count: 0,
        };
        table.refresh()?;
        Ok(table)
    }

    /// A table of `vectors` (luma.gl's vectors constructor): [`from_columns`](Self::from_columns)
    /// with each vector keyed by its name.
    ///
    /// # Errors
    /// As [`from_columns`](Self::from_columns).
    pub fn from_vectors(
        vectors: impl IntoIterator<Item = GpuVector>,
        options: RecordBatchOptions,
    ) -> Result<GpuTable, TableError> {
        GpuTable::from_columns(
            vectors
                .into_iter()
                .map(|v| (v.name().to_owned(), GpuColumn::Vector(v))),
            options,
        )
    }

    /// Recomputes the row and null counts and rebuilds the aggregate vectors.
    pub(in crate::table) fn refresh(&mut self) -> Result<(), TableError> {
        let overflow = |what: &str| TableError::Overflow {
            what: format!("the {what} of the table's batches"),
        };
        let num_rows = checked_sum(self.batches.iter().map(GpuRecordBatch::num_rows))
            .ok_or_else(|| overflow("row count"))?;
        let null_count = checked_sum(self.batches.iter().map(GpuRecordBatch::null_count))
            .ok_or_else(|| overflow("null count"))?;
        let vectors = self.aggregate()?;
        self.num_rows = num_rows;
        self.null_count = null_count;
        self.vectors = vectors;
        Ok(())
    }

    fn aggregate(&self) -> Result<Vec<GpuVector>, TableError> {
        let Some(first) = self.batches.first() else {
            return Ok(Vec::new());
        };
        let mut vectors = Vec::with_capacity(first.columns().len());
        for (name, template) in first.columns() {
            vectors.push(GpuVector::from_parts(
                name.to_owned(),
                template,
                self.shared_chunks(name)?,
                self.column_layout(name),
                self.column_data_type(name),
            )?);
        }
        Ok(vectors)
    }

    /// Shared handles of column `name`'s chunk in every batch, in order.
    fn shared_chunks(&self, name: &str) -> Result<Vec<GpuData>, TableError> {
        self.batches
            .iter()
            .enumerate()
            .map(|(i, batch)| {
                batch
                    .column(name)
                    .map(GpuData::share)
                    .ok_or_else(|| TableError::MissingBatchData {
                        column: name.to_owned(),
                        batch: i,
                    })
            })
            .collect()
    }

    /// Column `name`'s interleaved layout, when it has one with attributes.
    fn column_layout(&self, name: &str) -> Option<BufferLayout> {
        self.buffer_layouts()
            .iter()
            .find(|l| l.name == name && !l.attributes.is_empty())
            .cloned()
    }

    /// Column `name`'s adapter data type, when one was stored.
    fn column_data_type(&self, name: &str) -> Option<ReadbackMetadata> {
        self.data_types
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| d.clone())
    }

    /// The schema: varying columns, then constants (columns order for column-built tables).
    #[must_use]
    pub fn schema(&self) -> &GpuSchema {
        &self.schema
    }

    /// The schema without the constant columns: what every batch has.
    #[must_use]
    pub fn varying_schema(&self) -> GpuSchema {
        GpuSchema {
            fields: self
                .schema
                .fields
                .iter()
                .filter(|f| !self.constants.iter().any(|(n, _)| *n == f.name))
                .cloned()
                .collect(),
            metadata: self.schema.metadata.clone(),
        }
    }

    /// Rows over all batches.
    #[must_use]
    pub const fn num_rows(&self) -> u64 {
        self.num_rows
    }

    /// Schema fields.
    #[must_use]
    pub fn num_cols(&self) -> usize {
        self.schema.fields.len()
    }

    /// Null rows over all batches.
    #[must_use]
    pub const fn null_count(&self) -> u64 {
        self.null_count
    }

    /// The vertex buffer layouts of the varying columns (empty when none is known yet).
    #[must_use]
    pub fn buffer_layouts(&self) -> &[BufferLayout] {
        self.buffer_layouts.as_deref().unwrap_or(&[])
    }

    /// The batches.
    #[must_use]
    pub fn batches(&self) -> &[GpuRecordBatch] {
        &self.batches
    }

    /// The aggregate vector of each varying column (the first batch's columns, `indices`
    /// included), each over that column's chunk in every batch.
    #[must_use]
    pub fn vectors(&self) -> &[GpuVector] {
        &self.vectors
    }

    /// The aggregate vector called `name`.
    #[must_use]
    pub fn vector(&self, name: &str) -> Option<&GpuVector> {
        self.vectors.iter().find(|v| v.name() == name)
    }

    /// The index column's aggregate vector, if any.
    #[must_use]
    pub fn indices(&self) -> Option<&GpuVector> {
        self.vector(RESERVED_INDEX_COLUMN)
    }

    /// The constant columns, in order.
    pub fn constants(&self) -> impl ExactSizeIterator<Item = (&str, &GpuConstant)> {
        self.constants.iter().map(|(n, c)| (n.as_str(), c))
    }

    /// The constant called `name`.
    #[must_use]
    pub fn constant(&self, name: &str) -> Option<&GpuConstant> {
        self.constants
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c)
    }

    /// Every column: aggregate vectors, then constants (luma.gl's `gpuColumns`).
    #[must_use]
    pub fn columns(&self) -> Vec<(&str, GpuColumnRef<'_>)> {
        self.vectors
            .iter()
            .map(|v| (v.name(), GpuColumnRef::Vector(v)))
            .chain(
                self.constants
                    .iter()
                    .map(|(n, c)| (n.as_str(), GpuColumnRef::Constant(c))),
            )
            .collect()
    }

    /// The column called `name`.
    #[must_use]
    pub fn column(&self, name: &str) -> Option<GpuColumnRef<'_>> {
        self.vector(name)
            .map(GpuColumnRef::Vector)
            .or_else(|| self.constant(name).map(GpuColumnRef::Constant))
    }

    /// Appends a batch (luma.gl's `addBatch`). An empty table checks the batch's schema against
    /// its varying schema and adopts the batch's layouts if it has none; a filled table checks
    /// the layouts, then the schema. On error the table is unchanged (the batch is dropped, not
    /// destroyed).
    ///
    /// # Errors
    /// [`TableError::BatchLayoutsDiffer`], [`TableError::BatchSchemaDiffers`],
    /// [`TableError::MissingBatchData`], [`TableError::ChunkFormat`], [`TableError::Overflow`].
    pub fn add_batch(&mut self, batch: GpuRecordBatch) -> Result<(), TableError> {
        let index = self.batches.len();
        let varying = self.varying_schema();
        let schema_error = || TableError::BatchSchemaDiffers {
            operation: "add_batch",
            batch: index,
            expected: varying.to_string(),
            found: batch.schema().to_string(),
        };
        let layouts_error = |expected: &[BufferLayout]| TableError::BatchLayoutsDiffer {
            operation: "add_batch",
            batch: index,
            expected: layouts_text(expected),
            found: layouts_text(batch.buffer_layouts()),
        };
        let adopt = if self.batches.is_empty() {
            if !varying.matches(batch.schema()) {
                return Err(schema_error());
            }
            match &self.buffer_layouts {
                None => true,
                Some(layouts) if layouts.as_slice() != batch.buffer_layouts() => {
                    return Err(layouts_error(layouts));
                }
                Some(_) => false,
            }
        } else {
            let layouts = self.buffer_layouts();
            if layouts != batch.buffer_layouts() {
                return Err(layouts_error(layouts));
            }
            if !varying.matches(batch.schema()) {
                return Err(schema_error());
            }
            false
        };
        let layouts = batch.buffer_layouts().to_vec();
        self.batches.push(batch);
        let previous = adopt.then(|| self.buffer_layouts.replace(layouts));
        if let Err(e) = self.refresh() {
            self.batches.pop();
            if let Some(previous) = previous {
                self.buffer_layouts = previous;
            }
            self.refresh()?;
            return Err(e);
        }
        Ok(())
    }

    /// Keeps only the columns `names` (first occurrence order; duplicates ignored), in that
    /// order, in the schema, the layouts, the constants and every batch. The chunks of dropped
    /// columns are destroyed. Selecting only constants leaves batches without columns.
    ///
    /// # Errors
    /// [`TableError::UnknownColumn`] for a name the schema does not have; the table is then
    /// unchanged.
    pub fn select(&mut self, names: &[&str]) -> Result<(), TableError> {
        let mut unique: Vec<&str> = Vec::with_capacity(names.len());
        for name in names {
            if !unique.contains(name) {
                unique.push(name);
            }
        }
        for name in &unique {
            if self.schema.field(name).is_none() {
                return Err(TableError::UnknownColumn {
                    column: (*name).to_owned(),
                });
            }
        }
        for batch in &mut self.batches {
            batch.select(&unique);
        }
        let pick = |name: &str| unique.iter().position(|n| *n == name);
        self.schema.fields.retain(|f| pick(&f.name).is_some());
        self.schema.fields.sort_by_key(|f| pick(&f.name));
        self.constants.retain(|(n, _)| pick(n).is_some());
        self.constants.sort_by_key(|(n, _)| pick(n));
        if let Some(layouts) = &mut self.buffer_layouts {
            layouts.retain(|l| pick(&l.name).is_some());
            layouts.sort_by_key(|l| pick(&l.name));
        }
        self.data_types.retain(|(n, _)| pick(n).is_some());
        self.refresh()
    }

    /// Removes the varying column `name` from the table and every batch and returns it as one
    /// vector over every batch's chunk, which it owns (luma.gl's `detachVector` with
    /// `ownsData: true`): destroying the table no longer frees those buffers; destroying the
    /// vector does. The vector keeps the column's interleaved layout, if it has one.
    ///
    /// # Errors
    /// [`TableError::UnknownColumn`]; [`TableError::DetachNoData`] when the first batch has no
    /// data for the column (a constant, or a table without batches);
    /// [`TableError::MissingBatchData`] or [`TableError::ChunkFormat`] when the batches disagree.
    /// The table is unchanged on error.
    pub fn detach_vector(&mut self, name: &str) -> Result<GpuVector, TableError> {
        if self.schema.field(name).is_none() {
            return Err(TableError::UnknownColumn {
                column: name.to_owned(),
            });
        }
        if self.batches.first().and_then(|b| b.column(name)).is_none() {
            return Err(TableError::DetachNoData {
                column: name.to_owned(),
            });
        }
        let layout = self.column_layout(name);
        let data_type = self.column_data_type(name);
        // Check on shared handles first, so a failure changes nothing.
        let shares = self.shared_chunks(name)?;
        let options = |layout, data_type| DataVectorOptions {
            buffer_layout: layout,
            readback_metadata: data_type,
            ..DataVectorOptions::default()
        };
        GpuVector::from_data_with(name, shares, options(layout.clone(), data_type.clone()))?;
        let chunks: Vec<GpuData> = self
            .batches
            .iter_mut()
            .filter_map(|b| b.remove_column(name))
            .collect();
        self.schema.fields.retain(|f| f.name != name);
        if let Some(layouts) = &mut self.buffer_layouts {
            layouts.retain(|l| l.name != name);
        }
        self.data_types.retain(|(n, _)| n != name);
        self.refresh()?;
        GpuVector::from_data_with(name, chunks, options(layout, data_type))
    }

    /// Removes batches `range` and returns them; the caller owns them (luma.gl's
    /// `detachBatches({first, last})`, half-open). An empty range returns nothing.
    ///
    /// # Errors
    /// [`TableError::BatchRange`] unless `range.start <= range.end <= batches`.
    pub fn detach_batches(
        &mut self,
        range: Range<usize>,
    ) -> Result<Vec<GpuRecordBatch>, TableError> {
        if range.start > range.end || range.end > self.batches.len() {
            return Err(TableError::BatchRange {
                first: range.start,
                last: range.end,
                batches: self.batches.len(),
            });
        }
        if range.is_empty() {
            return Ok(Vec::new());
        }
        let detached: Vec<GpuRecordBatch> = self.batches.drain(range).collect();
        self.refresh()?;
        Ok(detached)
    }

    /// The batches, taken out with their ownership.
    #[must_use]
    pub fn into_batches(self) -> Vec<GpuRecordBatch> {
        self.batches
    }

    /// Destroys every batch (freeing the buffers their columns own).
    pub fn destroy(self) {
        for batch in self.batches {
            batch.destroy();
        }
    }
}

fn describe_vector(v: &GpuVector) -> String {
    format!(
        "format {}, stride {}, byte stride {}, row byte length {}",
        format_text(v.format()),
        v.stride(),
        v.byte_stride(),
        v.row_byte_length()
    )
}

fn describe_chunk(c: &GpuData) -> String {
    format!(
        "format {}, stride {}, byte stride {}, row byte length {}",
        format_text(c.format()),
        c.stride(),
        c.byte_stride(),
        c.row_byte_length()
    )
}

impl fmt::Debug for GpuTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuTable")
            .field("schema", &self.schema.to_string())
            .field("num_rows", &self.num_rows)
            .field("null_count", &self.null_count)
            .field("buffer_layouts", &self.buffer_layouts)
            .field("batches", &self.batches)
            .field("constants", &self.constants)
            .finish_non_exhaustive()
    }
}
