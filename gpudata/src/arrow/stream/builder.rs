//! [`TableBuilder`]: a GPU table grown batch by batch from converted record batches, the one
//! engine behind every ingest (readers, async streams, Parquet, Flight).

use std::time::Instant;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;

use super::{IngestError, IngestOptions, Progress};
use crate::arrow::convert::{Accounting, ColumnReport, ConversionPlan, StreamCategories};
use crate::arrow::{BatchOptions, record_batch_to_gpu, record_batches_to_gpu_table};
use crate::device::Gpu;
use crate::table::{GpuRecordBatch, GpuTable};

/// A GPU table and what went into it.
#[derive(Debug)]
pub struct Ingested {
    /// The table: one GPU batch per record batch (or per `batch_rows` rows), converted columns
    /// carrying their `gpudata.conversion` metadata.
    pub table: GpuTable,
    /// What each input column became, and why (skipped columns included).
    pub report: Vec<ColumnReport>,
    /// The host dictionaries of category columns (labels in id order).
    pub categories: Vec<(String, ArrayRef)>,
    /// The final progress: batches, rows, GPU and Arrow bytes, elapsed time.
    pub progress: Progress,
}

/// A GPU table being built from record batches of one schema: each [`push`](Self::push)ed batch
/// is converted by the policy, re-batched if asked, and uploaded as one more GPU batch.
/// [`finish`](Self::finish) hands the table over; dropping the builder (or
/// [`abort`](Self::abort)) destroys what was uploaded.
#[derive(Debug)]
pub struct TableBuilder<'g> {
    gpu: &'g Gpu,
    plan: ConversionPlan,
    batch_rows: Option<usize>,
    usage: Option<wgpu::BufferUsages>,
    table: Option<GpuTable>,
    pending: Vec<RecordBatch>,
    pending_rows: usize,
    progress: Progress,
    started: Instant,
    pacer: UploadPacer,
}

/// Paces one thread's batch uploads: a queue marker is submitted after each GPU batch's
/// uploads, and the next batch waits for it, so at most two batches' staging memory per
/// uploading thread is queued whatever the stream's length.
#[derive(Debug, Default)]
pub(crate) struct UploadPacer {
    previous: Option<(String, wgpu::SubmissionIndex)>,
}

impl UploadPacer {
    /// Waits until the GPU has taken the previous batch's uploads, then marks this batch's.
    /// An upload returns once its last staged chunk is handed to the queue; without this wait
    /// a fast reader would queue every batch's staging memory ahead of a slower GPU (a software
    /// adapter): here the queue holds at most this batch's and the previous one's.
    pub(crate) fn mark(&mut self, gpu: &Gpu, batch: &RecordBatch) -> Result<(), IngestError> {
        let column = batch
            .schema()
            .fields()
            .last()
            .map_or_else(String::new, |f| f.name().clone());
        let marker = gpu.queue().submit(std::iter::empty());
        let Some((column, previous)) = self.previous.replace((column, marker)) else {
            return Ok(());
        };
        gpu.device()
            .poll(wgpu::PollType::Wait {
                submission_index: Some(previous),
                timeout: None,
            })
            .map(|_| ())
            .map_err(|e| {
                IngestError::from(crate::arrow::ArrowInteropError::Gpu {
                    column,
                    source: crate::device::GpuError::Poll {
                        reason: e.to_string(),
                    },
                })
            })
    }
}

/// Uploads one converted batch (`options`: the plan's upload options with the ingest's
/// usages) as a GPU batch, paced by `pacer`.
///
/// # Errors
/// The upload's errors.
pub(crate) fn upload_converted(
    gpu: &Gpu,
    batch: &RecordBatch,
    options: &BatchOptions,
    pacer: &mut UploadPacer,
) -> Result<GpuRecordBatch, IngestError> {
    let (gpu_batch, _) = record_batch_to_gpu(gpu, batch, options)?;
    if let Err(e) = pacer.mark(gpu, batch) {
        gpu_batch.destroy();
        return Err(e);
    }
    Ok(gpu_batch)
}

impl<'g> TableBuilder<'g> {
    /// A builder for batches of `schema`.
    ///
    /// # Errors
    /// [`IngestError::Options`] for `in_flight` or `batch_rows` of 0; the policy errors of
    /// [`ConversionPlan::new`].
    pub fn new(
        gpu: &'g Gpu,
        schema: SchemaRef,
        options: &IngestOptions,
    ) -> Result<TableBuilder<'g>, IngestError> {
        if options.in_flight == 0 {
            return Err(IngestError::Options {
                option: "in_flight",
                found: 0,
                expected: "at least 1",
            });
        }
        if options.batch_rows == Some(0) {
            return Err(IngestError::Options {
                option: "batch_rows",
                found: 0,
                expected: "at least 1 (or None for one gpu batch per record batch)",
            });
        }
        Ok(TableBuilder {
            gpu,
            plan: ConversionPlan::new(schema, options.conversions.clone())?,
            batch_rows: options.batch_rows,
            usage: options.usage,
            table: None,
            pending: Vec::new(),
            pending_rows: 0,
            progress: Progress::default(),
            started: Instant::now(),
            pacer: UploadPacer::default(),
        })
    }

    fn batch_options(&self) -> BatchOptions {
        let mut options = self.plan.batch_options();
        options.usage = self.usage;
        options
    }

    /// Uploads one converted batch and adds it to the table.
    fn upload(&mut self, batch: &RecordBatch) -> Result<(), IngestError> {
        let options = self.batch_options();
        let gpu_batch = upload_converted(self.gpu, batch, &options, &mut self.pacer)?;
        self.append(gpu_batch)
    }

    /// Adds an uploaded batch to the table (destroyed when the table refuses it).
    fn append(&mut self, gpu_batch: GpuRecordBatch) -> Result<(), IngestError> {
        let bytes: u64 = gpu_batch.columns().map(|(_, d)| d.byte_length()).sum();
        let rows = gpu_batch.num_rows();
        match &mut self.table {
            Some(table) => table
                .add_batch(gpu_batch)
                .map_err(|source| crate::arrow::ArrowInteropError::Table { source })?,
            None => {
                let table = GpuTable::from_batches(
                    vec![gpu_batch],
                    Vec::<(String, crate::data::GpuConstant)>::new(),
                )
                .map_err(|source| crate::arrow::ArrowInteropError::Table { source })?;
                self.table = Some(table);
            }
        }
        self.progress.gpu_batches += 1;
        self.progress.rows += rows;
        self.progress.gpu_bytes += bytes;
        Ok(())
    }

    /// Converts `batch` and uploads it (or, under `batch_rows`, whatever whole GPU batches the
    /// rows so far make).
    ///
    /// # Errors
    /// The conversion's and the upload's errors; the builder is then best dropped (which
    /// destroys the partial table).
    pub fn push(&mut self, batch: &RecordBatch) -> Result<(), IngestError> {
        self.progress.batches_read += 1;
        self.progress.arrow_bytes += batch.get_array_memory_size() as u64;
        match self.batch_rows {
            None => {
                let converted = self.plan.convert(batch)?;
                self.upload(&converted)?;
            }
            Some(rows) => {
                // Re-batched before conversion, so that what a conversion derives per batch
                // (a value list's byte offsets from 0) is that of the GPU batch.
                self.plan
                    .check_schema(batch, self.progress.batches_read - 1)?;
                self.pending_rows += batch.num_rows();
                self.pending.push(batch.clone());
                while self.pending_rows >= rows {
                    self.flush(rows)?;
                }
            }
        }
        self.progress.elapsed = self.started.elapsed();
        Ok(())
    }

    /// Adds a batch a worker converted, merged into the stream's dictionaries and uploaded
    /// ([`WorkerConverter`](crate::arrow::convert::WorkerConverter)) as the stream's next
    /// batch. Batches must come in stream order; a builder that re-batches (`batch_rows`)
    /// converts on its own thread instead.
    ///
    /// # Errors
    /// As [`push`](Self::push).
    pub(crate) fn push_uploaded(
        &mut self,
        gpu_batch: GpuRecordBatch,
        accounting: Accounting,
    ) -> Result<(), IngestError> {
        self.progress.batches_read += 1;
        self.progress.arrow_bytes += accounting.input_bytes();
        if let Err(e) = self.plan.account(accounting) {
            gpu_batch.destroy();
            return Err(e.into());
        }
        self.append(gpu_batch)?;
        self.progress.elapsed = self.started.elapsed();
        Ok(())
    }

    /// Takes the stream's category dictionaries that workers merged their batches into
    /// (before [`finish`](Self::finish)).
    pub(crate) fn adopt_categories(&mut self, stream: StreamCategories) {
        self.plan.adopt_categories(stream);
    }

    /// Converts and uploads the first `rows` pending rows as one GPU batch.
    fn flush(&mut self, rows: usize) -> Result<(), IngestError> {
        let schema = match self.pending.first() {
            Some(first) => first.schema(),
            None => return Ok(()),
        };
        let joined = arrow_select::concat::concat_batches(&schema, &self.pending).map_err(|e| {
            IngestError::Read {
                batch: self.progress.batches_read.saturating_sub(1),
                source: e,
            }
        })?;
        let take = rows.min(joined.num_rows());
        let converted = self.plan.convert(&joined.slice(0, take))?;
        self.upload(&converted)?;
        let rest = joined.slice(take, joined.num_rows() - take);
        self.pending_rows = rest.num_rows();
        self.pending = if rest.num_rows() > 0 {
            vec![rest]
        } else {
            Vec::new()
        };
        Ok(())
    }

    /// Where the ingest stands.
    #[must_use]
    pub fn progress(&self) -> Progress {
        Progress {
            elapsed: self.started.elapsed(),
            ..self.progress
        }
    }

    /// The conversion plan (its report once the first batch arrived).
    #[must_use]
    pub fn plan(&self) -> &ConversionPlan {
        &self.plan
    }

    /// The conversion plan, to state what is known of the whole stream before the first batch
    /// ([`ConversionPlan::set_value_range`]).
    pub fn plan_mut(&mut self) -> &mut ConversionPlan {
        &mut self.plan
    }

    /// Uploads what is pending and hands the table over (an empty table with the converted
    /// schema when no rows came).
    ///
    /// # Errors
    /// The upload's errors; the conversion's when resolving a plan without data.
    pub fn finish(mut self) -> Result<Ingested, IngestError> {
        if self.pending_rows > 0 {
            self.flush(self.pending_rows)?;
        }
        let table = match self.table.take() {
            Some(table) => table,
            None => {
                self.plan.resolve_without_data()?;
                let schema = self
                    .plan
                    .output_schema()
                    .unwrap_or_else(|| self.plan.input_schema().clone());
                record_batches_to_gpu_table(self.gpu, &schema, &[], &self.batch_options())?.0
            }
        };
        let report = self.plan.report();
        let categories = report
            .iter()
            .filter_map(|r| Some((r.column.clone(), self.plan.categories(&r.column)?)))
            .collect();
        Ok(Ingested {
            table,
            report,
            categories,
            progress: self.progress(),
        })
    }

    /// Destroys what was uploaded (what dropping the builder does too).
    pub fn abort(mut self) {
        if let Some(table) = self.table.take() {
            table.destroy();
        }
    }
}

impl Drop for TableBuilder<'_> {
    fn drop(&mut self) {
        if let Some(table) = self.table.take() {
            table.destroy();
        }
    }
}
