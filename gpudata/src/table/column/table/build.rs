//! [`GpuTable`]'s constructors: from batches, from columns, from vectors, empty; the checks of
//! constants and layouts they share.

use crate::data::GpuData;
use crate::layout::BufferLayout;
use crate::table::TableError;

use crate::data::GpuConstant;
use crate::table::column::batch::{
    GpuRecordBatch, Owner, RecordBatchOptions, check_given_fields, check_given_layouts,
    synthesize_layout,
};
use crate::table::column::schema::{GpuSchema, GpuSchemaField, RESERVED_INDEX_COLUMN};
use crate::table::column::uploads::ConstantUploads;
use crate::table::column::vector::{GpuVector, checked_sum};

use super::text::{describe_chunk, describe_vector, layouts_text};
use super::{GpuColumn, GpuTable};

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
            uploads: ConstantUploads::default(),
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
            uploads: ConstantUploads::default(),
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
            uploads: ConstantUploads::default(),
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
    /// A table of this table's schema, constants, adapter data types and uploads over new
    /// `batches` (a filter's or a sort's), with `buffer_layouts`, its counts and vectors
    /// computed from them.
    ///
    /// # Errors
    /// As [`refresh`](Self::refresh).
    pub(in crate::table) fn with_batches(
        &self,
        batches: Vec<GpuRecordBatch>,
        buffer_layouts: Option<Vec<BufferLayout>>,
    ) -> Result<GpuTable, TableError> {
        let mut table = GpuTable {
            schema: self.schema.clone(),
            buffer_layouts,
            batches,
            constants: self.constants.clone(),
            vectors: Vec::new(),
            data_types: self.data_types.clone(),
            num_rows: 0,
            null_count: 0,
            uploads: self.uploads.clone(),
        };
        table.refresh()?;
        Ok(table)
    }

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
}
