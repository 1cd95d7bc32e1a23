//! Conversion on several threads: each worker converts batches with the stream's resolved plan
//! and its own category dictionaries, and uploads them with its own category ids
//! ([`WorkerConverter::local_ids`]). The workers then merge their batches' labels into the
//! stream's dictionaries in stream order, one batch at a time
//! ([`WorkerConverter::merge_labels`], cheap: only labels new to the worker), and each rewrites
//! its own batches' ids to the stream's on the GPU in parallel ([`WorkerConverter::remaps`]),
//! so the ids are those a one-thread conversion gives. The thread that assembles the stream
//! only counts ([`ConversionPlan::account`]).

use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};

use super::ConversionError;
use super::categories::{Categories, local_labels};
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

/// What a worker keeps of a batch it converted once the batch is uploaded with the worker's
/// own category ids: per input column, its category column (if it is one) and what the stream
/// counts of the batch.
#[derive(Debug)]
pub(crate) struct LocalIds {
    columns: Vec<Option<LocalColumn>>,
    accounting: Accounting,
}

/// One category column of a batch a worker uploaded with its own ids.
#[derive(Debug)]
struct LocalColumn {
    /// The column's name in the batch.
    name: String,
    /// The worker's labels in its id order when it converted the batch.
    labels: StringArray,
    /// Whether the batch has null rows in the column (their ids: `u32::MAX`).
    nulls: bool,
}

/// How one uploaded category column's worker ids become the stream's
/// ([`WorkerConverter::remaps`]).
#[derive(Debug)]
pub(crate) struct Remap {
    /// The column's name in the batch.
    pub(crate) column: String,
    /// The stream id of each worker id, in worker id order (an id outside it, a null row's,
    /// becomes 0); `None` when the worker's ids are the stream's and no row is null.
    pub(crate) map: Option<Vec<u32>>,
    /// The stream's labels in id order once the batch was merged.
    pub(crate) labels: ArrayRef,
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
            resolved: for_worker(resolution.clone()),
            resolution: Some(resolution),
            maps: Vec::new(),
        })
    }

    /// This converter for another worker, with empty dictionaries of its own.
    pub(crate) fn fresh(&self) -> WorkerConverter {
        WorkerConverter {
            resolved: for_worker(
                self.resolution
                    .clone()
                    .unwrap_or_else(|| self.resolved.clone()),
            ),
            resolution: self.resolution.clone(),
            maps: Vec::new(),
        }
    }

    /// Whether the converted batches have category columns (uploaded with the worker's ids,
    /// rewritten on the GPU).
    pub(crate) fn has_categories(&self) -> bool {
        self.resolved
            .columns
            .iter()
            .any(|c| matches!(c.kind, Kind::Categories(_)))
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

    /// Splits `converted` into the batch to upload (its category ids this worker's own) and
    /// what merging its labels and rewriting its ids needs.
    ///
    /// # Errors
    /// [`ConversionError::Metadata`] for a category column that is not a worker's `uint32`
    /// dictionary of `utf8` labels.
    pub(crate) fn local_ids(
        &self,
        converted: Converted,
    ) -> Result<(RecordBatch, LocalIds), ConversionError> {
        let Converted {
            batch,
            rounded,
            resolution,
            input_bytes,
        } = converted;
        let schema = batch.schema();
        let mut columns = Vec::with_capacity(self.resolved.columns.len());
        let mut output = 0;
        for plan in &self.resolved.columns {
            let local = match (&plan.kind, batch.columns().get(output)) {
                (Kind::Categories(_), Some(array)) => Some(LocalColumn {
                    name: schema.field(output).name().clone(),
                    labels: local_labels(&plan.report.column, array.as_ref())?.1.clone(),
                    nulls: array.logical_null_count() > 0,
                }),
                _ => None,
            };
            columns.push(local);
            output += plan.outputs();
        }
        let accounting = Accounting {
            rows: batch.num_rows() as u64,
            rounded,
            resolution,
            input_bytes,
        };
        Ok((
            batch,
            LocalIds {
                columns,
                accounting,
            },
        ))
    }

    /// Merges the labels of `local` (this worker's next batch) into the stream's
    /// dictionaries: its labels new to this worker get stream ids, in the order they first
    /// occur in the batch. Batches must be merged in stream order, one at a time.
    ///
    /// # Errors
    /// [`ConversionError::TooManyCategories`] past `u32::MAX` labels.
    pub(crate) fn merge_labels(
        &mut self,
        local: &LocalIds,
        stream: &mut StreamCategories,
    ) -> Result<Merged, ConversionError> {
        let columns = self.resolved.columns.len();
        if stream.columns.len() < columns {
            stream.columns.resize_with(columns, || None);
        }
        self.maps.resize_with(columns, Vec::new);
        let mut labels = vec![None; columns];
        let planned = self.resolved.columns.iter().zip(&local.columns);
        for (i, (plan, column)) in planned.enumerate() {
            let Some(column) = column else {
                continue;
            };
            let (Some(slot), Some(map)) = (stream.columns.get_mut(i), self.maps.get_mut(i)) else {
                continue;
            };
            let categories = slot.get_or_insert_with(Categories::default);
            categories.extend_map(&plan.report.column, &column.labels, map)?;
            labels[i] = Some(categories.labels());
        }
        Ok(Merged(labels))
    }

    /// How the uploaded batch `local` (merged as `merged`) gets the stream's category ids:
    /// one [`Remap`] per category column; and what the stream counts of the batch.
    pub(crate) fn remaps(&self, local: LocalIds, merged: Merged) -> (Vec<Remap>, Accounting) {
        let LocalIds {
            columns,
            accounting,
        } = local;
        let remaps = columns
            .into_iter()
            .enumerate()
            .filter_map(|(i, column)| {
                let column = column?;
                let labels = merged.0.get(i).cloned().flatten()?;
                let map = self.maps.get(i).map_or(&[][..], Vec::as_slice);
                let map = &map[..column.labels.len().min(map.len())];
                let same = !column.nulls && map.iter().enumerate().all(|(k, &id)| id as usize == k);
                Some(Remap {
                    column: column.name,
                    map: (!same).then(|| map.to_vec()),
                    labels,
                })
            })
            .collect();
        (remaps, accounting)
    }
}

/// `resolved` with empty worker dictionaries ([`Categories::worker`]) for its category columns.
fn for_worker(mut resolved: Resolved) -> Resolved {
    for column in &mut resolved.columns {
        if let Kind::Categories(categories) = &mut column.kind {
            *categories = Categories::worker();
        }
    }
    resolved
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
