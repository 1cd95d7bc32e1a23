//! [`GpuTable`]: record batches that share a schema and buffer layouts, plus constant columns
//! (luma.gl's `GPUTable`).

use std::fmt;
use std::ops::Range;

use crate::data::{GpuConstant, GpuData, ReadbackMetadata};
use crate::layout::BufferLayout;
use crate::table::TableError;
use crate::table::column::uploads::ConstantUploads;

use crate::table::column::batch::GpuRecordBatch;
use crate::table::column::schema::{GpuSchema, RESERVED_INDEX_COLUMN};
use crate::table::column::vector::{DataVectorOptions, GpuVector};

mod bind;
mod build;
mod filter;
mod filter_nulls;
mod relayout;
mod sort;
mod text;

pub use sort::TableSortKey;
use text::layouts_text;

/// A column given to [`GpuTable::from_columns`]: varying rows or one constant value.
#[derive(Debug)]
// A column is made once and moved into its table; boxing the vector would only add a hop.
#[allow(clippy::large_enum_variant)]
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
    /// The constants' uploads, per device.
    pub(in crate::table) uploads: ConstantUploads,
}

impl GpuTable {
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
