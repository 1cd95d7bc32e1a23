//! Conversion on several threads: each worker converts batches with the stream's resolved plan
//! and its own category dictionaries; the thread that assembles the stream merges each batch in
//! stream order ([`ConversionPlan::merge`]), mapping the worker's category ids onto the
//! stream's, so the ids are those a one-thread conversion gives.

use arrow_array::{ArrayRef, RecordBatch};

use super::ConversionError;
use super::categories::Categories;
use super::plan::{ConversionPlan, Kind, Resolved};

/// Converts batches on one worker thread: the stream's resolved plan, with the worker's own
/// category dictionaries.
#[derive(Clone, Debug)]
pub(crate) struct WorkerConverter {
    worker: usize,
    resolved: Resolved,
    /// The resolution as the stream adopts it, sent with the worker's first batch.
    resolution: Option<Resolved>,
}

/// One batch a worker converted, merged in stream order by [`ConversionPlan::merge`].
#[derive(Debug)]
pub(crate) struct Converted {
    worker: usize,
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

    /// Arrow memory of the batch before conversion.
    pub(crate) fn input_bytes(&self) -> u64 {
        self.input_bytes
    }
}

/// Each worker's local → stream category id map, per input column.
#[derive(Debug, Default)]
pub(crate) struct WorkerIds {
    maps: Vec<Vec<Vec<u32>>>,
}

impl WorkerConverter {
    /// A converter resolving `plan` against `first`, the stream's first batch, as
    /// [`ConversionPlan::convert`] would (for worker 0; [`for_worker`](Self::for_worker) for the
    /// others).
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
            worker: 0,
            resolved: resolution.clone(),
            resolution: Some(resolution),
        })
    }

    /// This converter for worker `worker`, with empty dictionaries of its own.
    pub(crate) fn for_worker(&self, worker: usize) -> WorkerConverter {
        WorkerConverter {
            worker,
            resolved: self
                .resolution
                .clone()
                .unwrap_or_else(|| self.resolved.clone()),
            resolution: self.resolution.clone(),
        }
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
            worker: self.worker,
            batch,
            rounded,
            resolution: self.resolution.take().map(Box::new),
            input_bytes,
        })
    }
}

impl ConversionPlan {
    /// A worker's converted batch as the stream's next batch: its category ids mapped onto the
    /// stream's (`ids` holds each worker's maps), its rounded values counted in the report.
    /// Batches must be merged in stream order.
    ///
    /// # Errors
    /// [`ConversionError::TooManyCategories`] past `u32::MAX` labels;
    /// [`ConversionError::Metadata`] for a batch that is not a worker's conversion of this plan.
    pub(crate) fn merge(
        &mut self,
        converted: Converted,
        ids: &mut WorkerIds,
    ) -> Result<RecordBatch, ConversionError> {
        let Converted {
            worker,
            batch,
            rounded,
            resolution,
            ..
        } = converted;
        if let Some(resolution) = resolution {
            self.adopt(*resolution);
        }
        let rows = batch.num_rows();
        let Some((resolved, total_rows, batches)) = self.resolved_mut() else {
            return Err(ConversionError::Metadata {
                column: "(record batch)".to_owned(),
                reason: "a worker's batch came before the plan was resolved".to_owned(),
            });
        };
        if ids.maps.len() <= worker {
            ids.maps.resize_with(worker + 1, Vec::new);
        }
        let maps = &mut ids.maps[worker];
        maps.resize_with(resolved.columns.len(), Vec::new);
        let mut arrays: Vec<ArrayRef> = batch.columns().to_vec();
        let mut output = 0;
        for (i, plan) in resolved.columns.iter_mut().enumerate() {
            plan.report.rounded += rounded.get(i).copied().unwrap_or(0);
            if let (Kind::Categories(categories), Some(array)) =
                (&mut plan.kind, arrays.get_mut(output))
            {
                *array = categories.remap(&plan.report.column, array.as_ref(), &mut maps[i])?;
            }
            output += plan.outputs();
        }
        *total_rows += rows as u64;
        *batches += 1;
        resolved.batch(arrays, rows)
    }
}
