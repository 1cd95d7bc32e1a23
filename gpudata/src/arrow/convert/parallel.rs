//! Conversion on several threads: each worker converts batches with the stream's resolved plan
//! and its own category dictionaries. The workers then merge their batches' labels into the
//! stream's dictionaries in stream order, one batch at a time ([`WorkerConverter::merge_labels`],
//! cheap: only labels new to the worker), and each rewrites its own batches' ids to the
//! stream's in parallel ([`WorkerConverter::finish`]), so the ids are those a one-thread
//! conversion gives. The thread that assembles the stream only counts
//! ([`ConversionPlan::account`]).

use arrow_array::{ArrayRef, RecordBatch};

use super::ConversionError;
use super::categories::{Categories, apply_map};
use super::plan::{ConversionPlan, Kind, Resolved};
use crate::arrow::BatchOptions;

/// Converts batches on one worker thread: the stream's resolved plan, with the worker's own
/// category dictionaries and their maps onto the stream's.
#[derive(Clone, Debug)]
pub(crate) struct WorkerConverter {
    resolved: Resolved,
    /// The resolution as the stream adopts it, sent with the worker's first batch.
    resolution: Option<Resolved>,
    /// The worker's local → stream category id map, per input column.
    maps: Vec<Vec<u32>>,
}

/// One batch a worker converted, its category ids still the worker's own.
#[derive(Debug)]
pub(crate) struct Converted {
    batch: RecordBatch,
    /// Values each input column rounded in this batch.
    rounded: Vec<u64>,
    resolution: Option<Box<Resolved>>,
    /// Arrow memory of the batch before conversion.
    input_bytes: u64,
}

impl Converted {
    /// Memory the converted batch holds.
    pub(crate) fn held_bytes(&self) -> u64 {
        self.batch.get_array_memory_size() as u64
    }
}

/// The stream's category dictionaries while workers convert it, per input column (`None` for
/// the others), merged into in stream order.
#[derive(Debug, Default)]
pub(crate) struct StreamCategories {
    columns: Vec<Option<Categories>>,
}

/// A batch's place in the stream's dictionaries: per input column, the stream's labels once
/// the batch was merged (`None` for columns that are not categories).
#[derive(Debug)]
pub(crate) struct Merged(Vec<Option<ArrayRef>>);

/// What the stream counts of a worker's batch ([`ConversionPlan::account`]).
#[derive(Debug)]
pub(crate) struct Accounting {
    rows: u64,
    rounded: Vec<u64>,
    resolution: Option<Box<Resolved>>,
    input_bytes: u64,
}

impl Accounting {
    /// Arrow memory of the batch before conversion.
    pub(crate) fn input_bytes(&self) -> u64 {
        self.input_bytes
    }
}

impl WorkerConverter {
    /// A converter resolving `plan` against `first`, the stream's first batch, as
    /// [`ConversionPlan::convert`] would (for the worker that decodes it;
    /// [`fresh`](Self::fresh) for the others).
    pub(crate) fn resolve(
        plan: &ConversionPlan,
        first: &RecordBatch,
    ) -> Result<WorkerConverter, ConversionError> {
        let mut resolution = plan.resolve_from(first)?;
        for column in &mut resolution.columns {
            column.report.rounded = 0;
            if let Kind::Categories(categories) = &mut column.kind {
                *categories = Categories::default();
            }
        }
        Ok(WorkerConverter {
            resolved: resolution.clone(),
            resolution: Some(resolution),
            maps: Vec::new(),
        })
    }

    /// This converter for another worker, with empty dictionaries of its own.
    pub(crate) fn fresh(&self) -> WorkerConverter {
        WorkerConverter {
            resolved: self
                .resolution
                .clone()
                .unwrap_or_else(|| self.resolved.clone()),
            resolution: self.resolution.clone(),
            maps: Vec::new(),
        }
    }

    /// The upload options the converted batches need.
    pub(crate) fn batch_options(&self) -> BatchOptions {
        self.resolved.options.clone()
    }

    /// Converts `batch`, whose first row is row `first_row` of the stream (for errors).
    pub(crate) fn convert(
        &mut self,
        batch: &RecordBatch,
        first_row: u64,
    ) -> Result<Converted, ConversionError> {
        let before: Vec<u64> = self
            .resolved
            .columns
            .iter()
            .map(|c| c.report.rounded)
            .collect();
        let input_bytes = batch.get_array_memory_size() as u64;
        let batch = self.resolved.convert(batch, first_row)?;
        let rounded = self
            .resolved
            .columns
            .iter()
            .zip(before)
            .map(|(c, b)| c.report.rounded.saturating_sub(b))
            .collect();
        Ok(Converted {
            batch,
            rounded,
            resolution: self.resolution.take().map(Box::new),
            input_bytes,
        })
    }

    /// Merges the labels of `converted` (this worker's next batch) into the stream's
    /// dictionaries: its labels new to this worker get stream ids, in the order they first
    /// occur in the batch. Batches must be merged in stream order, one at a time.
    ///
    /// # Errors
    /// [`ConversionError::TooManyCategories`] past `u32::MAX` labels;
    /// [`ConversionError::Metadata`] for a batch that is not this converter's.
    pub(crate) fn merge_labels(
        &mut self,
        converted: &Converted,
        stream: &mut StreamCategories,
    ) -> Result<Merged, ConversionError> {
        let columns = self.resolved.columns.len();
        if stream.columns.len() < columns {
            stream.columns.resize_with(columns, || None);
        }
        self.maps.resize_with(columns, Vec::new);
        let mut labels = vec![None; columns];
        let mut output = 0;
        for (i, plan) in self.resolved.columns.iter().enumerate() {
            if let (Kind::Categories(_), Some(array)) =
                (&plan.kind, converted.batch.columns().get(output))
            {
                let categories = stream.columns[i].get_or_insert_with(Categories::default);
                categories.extend_map(&plan.report.column, array.as_ref(), &mut self.maps[i])?;
                labels[i] = Some(categories.labels());
            }
            output += plan.outputs();
        }
        Ok(Merged(labels))
    }

    /// `converted` with the stream's category ids (`merged`: its
    /// [`merge_labels`](Self::merge_labels)), and what the stream counts of it.
    ///
    /// # Errors
    /// [`ConversionError::Metadata`] for a batch that is not this converter's.
    pub(crate) fn finish(
        &self,
        converted: Converted,
        merged: Merged,
    ) -> Result<(RecordBatch, Accounting), ConversionError> {
        let Converted {
            batch,
            rounded,
            resolution,
            input_bytes,
        } = converted;
        let rows = batch.num_rows();
        let mut arrays: Vec<ArrayRef> = batch.columns().to_vec();
        let mut output = 0;
        for (i, plan) in self.resolved.columns.iter().enumerate() {
            if let (Some(Some(labels)), Some(array)) = (merged.0.get(i), arrays.get_mut(output)) {
                let map = self.maps.get(i).map_or(&[][..], Vec::as_slice);
                *array = apply_map(&plan.report.column, array.as_ref(), map, labels.clone())?;
            }
            output += plan.outputs();
        }
        let batch = self.resolved.batch(arrays, rows)?;
        let accounting = Accounting {
            rows: rows as u64,
            rounded,
            resolution,
            input_bytes,
        };
        Ok((batch, accounting))
    }
}

impl ConversionPlan {
    /// Counts a worker's batch as the stream's next one (adopting the resolution it brings,
    /// adding what it rounded to the report). Batches must be counted in stream order.
    ///
    /// # Errors
    /// [`ConversionError::Metadata`] for a batch that came before the plan was resolved.
    pub(crate) fn account(&mut self, accounting: Accounting) -> Result<(), ConversionError> {
        let Accounting {
            rows,
            rounded,
            resolution,
            ..
        } = accounting;
        if let Some(resolution) = resolution {
            self.adopt(*resolution);
        }
        let Some((resolved, total_rows, batches)) = self.resolved_mut() else {
            return Err(ConversionError::Metadata {
                column: "(record batch)".to_owned(),
                reason: "a worker's batch came before the plan was resolved".to_owned(),
            });
        };
        for (plan, rounded) in resolved.columns.iter_mut().zip(rounded) {
            plan.report.rounded += rounded;
        }
        *total_rows += rows;
        *batches += 1;
        Ok(())
    }

    /// Takes the stream's dictionaries the workers merged their batches into.
    pub(crate) fn adopt_categories(&mut self, stream: StreamCategories) {
        let Some((resolved, ..)) = self.resolved_mut() else {
            return;
        };
        for (plan, merged) in resolved.columns.iter_mut().zip(stream.columns) {
            if let (Kind::Categories(categories), Some(merged)) = (&mut plan.kind, merged) {
                *categories = merged;
            }
        }
    }
}
