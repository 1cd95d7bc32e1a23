//! Parquet files (feature `parquet`, arrow-rs `parquet` 60) into GPU tables: read row group by
//! row group, several row groups decoded, converted and uploaded in parallel where the machine
//! has cores (`workers.rs`), the columns projected, added to the streaming ingest's table in
//! file order.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::mpsc::channel;

use arrow_schema::SchemaRef;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::file::metadata::ParquetMetaData;

use super::stream::{
    CancelToken, IngestError, IngestOptions, Ingested, Progress, TableBuilder, UploadPacer,
};
use crate::device::Gpu;

mod units;
mod uploads;
mod workers;

use units::{auto_parts, default_units, round_robin};
use workers::{Decoded, Inbox, ReadAhead, Resolution, Worker, WorkerConversion};

/// Closes the read-ahead budget when the consumer stops.
struct CloseOnDrop<'a>(&'a ReadAhead);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Rows per decoded record batch when [`ParquetOptions::batch_size`] is 0: large enough that a
/// GPU batch's buffers are worth their setup (arrow-rs's own default, 1024 rows, makes thousands
/// of tiny GPU batches of a large file), small enough to keep memory bounded.
pub const DEFAULT_PARQUET_BATCH_ROWS: usize = 65_536;

/// Bytes of decoded batches of later row groups the workers may hold ahead of the consumer
/// under [`IngestOptions::batch_rows`] when [`ParquetOptions::read_ahead_bytes`] is 0.
pub const DEFAULT_READ_AHEAD_BYTES: u64 = 256 << 20;

/// How a Parquet file is read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParquetOptions {
    /// The top-level columns to read, in file order (`None`: all of them).
    pub columns: Option<Vec<String>>,
    /// Decoding threads (`0`: the machine's available parallelism), at most one per work unit
    /// ([`row_group_parts`](Self::row_group_parts) says how the file is cut into units).
    pub threads: usize,
    /// Rows per record batch the decoder produces (`0`: [`DEFAULT_PARQUET_BATCH_ROWS`]); each
    /// is one GPU batch unless [`IngestOptions::batch_rows`] re-batches.
    pub batch_size: usize,
    /// Under [`IngestOptions::batch_rows`] (the consuming thread converts), bytes of decoded
    /// batches of later row groups the workers may hold ahead of the one being consumed, in
    /// all (`0`: [`DEFAULT_READ_AHEAD_BYTES`]); the row group being consumed is held to
    /// [`IngestOptions::in_flight`] batches, so host memory stays below this plus `in_flight`
    /// batches per worker whatever the file's size. Otherwise the workers convert and upload
    /// each batch as it comes (through at most two queued batches per
    /// [upload thread](Self::upload_threads)) and hold none on the host, and this is not
    /// used.
    pub read_ahead_bytes: u64,
    /// Parts each row group is decoded in, as work units of their own, dealt round-robin to
    /// the threads: part `k` of `n` holds rows `k·r/n..(k+1)·r/n` of the group's `r`, read
    /// through a row selection (with the file's page index, where it has one, so a part
    /// decodes only its own pages, and the group's dictionary pages each time). `1`: whole
    /// row groups. `0` (the default): where the file has an offset index
    /// ([`ParquetSource::has_offset_index`]) and the workers convert, each thread decodes one
    /// near-equal range of the file's rows (one work unit per row group the range meets), or
    /// one whole row group when there are fewer groups than threads but at least two thirds as
    /// many; under [`IngestOptions::batch_rows`], each group in `⌈threads / row groups⌉` parts
    /// when there are fewer groups than threads; without an offset index, whole row groups.
    /// On flights-3m.parquet (11 row groups, 16 cores, H100 hosts) 11 whole groups on 11
    /// threads took 5–10% less than 16 ranges, and 2 parts per group on 16 threads 10–25% more
    /// (BENCHMARKS.md, session 13).
    pub row_group_parts: usize,
    /// Threads that upload the batches the decoding workers convert, all taking from one
    /// queue, so that a worker goes on decoding while its last batch is uploaded (`None`: the
    /// cores the decoding threads leave; never more than one per decoding thread; `Some(0)`:
    /// each worker uploads its own batches). Not used under [`IngestOptions::batch_rows`],
    /// where the consuming thread uploads.
    pub upload_threads: Option<usize>,
}

/// An opened Parquet file: its metadata, Arrow schema and projection.
#[derive(Clone, Debug)]
pub struct ParquetSource {
    path: PathBuf,
    metadata: ArrowReaderMetadata,
    projection: Option<Vec<usize>>,
    schema: SchemaRef,
}

fn open(path: &Path) -> Result<File, IngestError> {
    File::open(path).map_err(|source| IngestError::Io {
        path: path.display().to_string(),
        source,
    })
}

impl ParquetSource {
    /// Opens `path` and reads its footer; `columns` projects the top-level columns.
    ///
    /// # Errors
    /// [`IngestError::Io`] when the file cannot be opened; [`IngestError::Parquet`] when its
    /// footer or schema cannot be read; [`IngestError::NoSuchColumn`] for a projected column
    /// the file does not have.
    pub fn open(path: &Path, columns: Option<&[String]>) -> Result<ParquetSource, IngestError> {
        let file = open(path)?;
        // With the offset index (where the file has one), a row selection reads only its pages.
        let options = ArrowReaderOptions::new()
            .with_offset_index_policy(parquet::file::metadata::PageIndexPolicy::Optional);
        let metadata = ArrowReaderMetadata::load(&file, options)
            .map_err(|source| IngestError::Parquet { source })?;
        let full = metadata.schema().clone();
        let (projection, schema) = match columns {
            None => (None, full),
            Some(names) => {
                let mut indices = Vec::with_capacity(names.len());
                for name in names {
                    let index = full.index_of(name).map_err(|_| IngestError::NoSuchColumn {
                        column: name.clone(),
                        found: super::batch::names(&full),
                    })?;
                    indices.push(index);
                }
                indices.sort_unstable();
                indices.dedup();
                let projected = full
                    .project(&indices)
                    .map_err(|source| IngestError::Read { batch: 0, source })?;
                (Some(indices), std::sync::Arc::new(projected))
            }
        };
        Ok(ParquetSource {
            path: path.to_owned(),
            metadata,
            projection,
            schema,
        })
    }

    /// Reads `columns` (top-level `Utf8` / `LargeUtf8` columns of the file) as
    /// `Dictionary<Int32, _>` of their type from now on: arrow-rs then keeps a dictionary-encoded
    /// column chunk's dictionary instead of building every row's string. Returns the projected
    /// schema the readers' batches then have; `None`, leaving the source as it was, when no
    /// column is such a column or arrow-rs refuses the schema. [`schema`](Self::schema) stays
    /// the file's. (Public for `ingestbench`, which reads as `ingest_parquet` does.)
    #[doc(hidden)]
    pub fn read_text_as_dictionaries(&mut self, columns: &[String]) -> Option<SchemaRef> {
        use arrow_schema::{DataType, Field, Schema};
        let full = self.metadata.schema().clone();
        let mut changed = false;
        let fields: Vec<Field> = full
            .fields()
            .iter()
            .map(|f| match f.data_type() {
                DataType::Utf8 | DataType::LargeUtf8 if columns.contains(f.name()) => {
                    changed = true;
                    let dictionary = DataType::Dictionary(
                        Box::new(DataType::Int32),
                        Box::new(f.data_type().clone()),
                    );
                    f.as_ref().clone().with_data_type(dictionary)
                }
                _ => f.as_ref().clone(),
            })
            .collect();
        if !changed {
            return None;
        }
        let hint = std::sync::Arc::new(Schema::new_with_metadata(fields, full.metadata().clone()));
        let options = ArrowReaderOptions::new()
            .with_schema(hint.clone())
            .with_offset_index_policy(parquet::file::metadata::PageIndexPolicy::Optional);
        let metadata =
            ArrowReaderMetadata::try_new(self.metadata.metadata().clone(), options).ok()?;
        let read = match &self.projection {
            None => hint,
            Some(indices) => std::sync::Arc::new(hint.project(indices).ok()?),
        };
        self.metadata = metadata;
        Some(read)
    }

    /// The Arrow schema of the projected columns.
    #[must_use]
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The file's Parquet metadata (row groups, sizes, statistics).
    #[must_use]
    pub fn metadata(&self) -> &ParquetMetaData {
        self.metadata.metadata()
    }

    /// Whether the file has an offset index (page locations), so that a part of a row group
    /// decodes only its own pages.
    #[must_use]
    pub fn has_offset_index(&self) -> bool {
        self.metadata()
            .page_index()
            .is_some_and(|index| index.has_offset_indexes())
    }

    /// Rows in the file.
    #[must_use]
    pub fn num_rows(&self) -> u64 {
        u64::try_from(self.metadata().file_metadata().num_rows()).unwrap_or(0)
    }

    /// Row groups in the file.
    #[must_use]
    pub fn num_row_groups(&self) -> usize {
        self.metadata().num_row_groups()
    }

    /// The smallest and largest value of each top-level Int64 / UInt64 column over every row
    /// group, from the file's column statistics (the whole file's range before a row is
    /// read). A column is left out when a row group has no min / max statistics for it.
    #[must_use]
    pub fn integer_ranges(&self) -> Vec<(String, i128, i128)> {
        use parquet::file::statistics::Statistics;
        let metadata = self.metadata();
        let leaves = metadata.file_metadata().schema_descr().columns();
        let mut ranges = Vec::new();
        for field in self.schema.fields() {
            let unsigned = match field.data_type() {
                arrow_schema::DataType::Int64 => false,
                arrow_schema::DataType::UInt64 => true,
                _ => continue,
            };
            let Some(leaf) = leaves
                .iter()
                .position(|c| c.path().parts() == [field.name().clone()])
            else {
                continue;
            };
            let widen = |v: i64| {
                if unsigned {
                    i128::from(v as u64)
                } else {
                    i128::from(v)
                }
            };
            let mut range: Option<(i128, i128)> = None;
            let mut known = true;
            for group in metadata.row_groups() {
                let Some(column) = group.columns().get(leaf) else {
                    known = false;
                    break;
                };
                if column.num_values() == 0 {
                    continue;
                }
                match column.statistics() {
                    Some(Statistics::Int64(stats)) => match (stats.min_opt(), stats.max_opt()) {
                        (Some(min), Some(max)) => {
                            let (min, max) = (widen(*min), widen(*max));
                            range =
                                Some(range.map_or((min, max), |(a, b)| (a.min(min), b.max(max))));
                        }
                        // Only nulls in this row group: nothing to narrow.
                        _ if stats.null_count_opt() == u64::try_from(column.num_values()).ok() => {}
                        _ => known = false,
                    },
                    _ => known = false,
                }
            }
            if let (true, Some((min, max))) = (known, range) {
                ranges.push((field.name().clone(), min, max));
            }
        }
        ranges
    }

    /// A reader of `rows` rows of row group `group` from its row `first` (a row selection;
    /// the whole group when they are all of it), the projected columns, `batch_size` rows per
    /// batch (0: [`DEFAULT_PARQUET_BATCH_ROWS`]).
    ///
    /// # Errors
    /// As [`row_group_reader`](Self::row_group_reader).
    pub fn row_range_reader(
        &self,
        group: usize,
        first: u64,
        rows: u64,
        batch_size: usize,
    ) -> Result<parquet::arrow::arrow_reader::ParquetRecordBatchReader, IngestError> {
        use parquet::arrow::arrow_reader::{RowSelection, RowSelector};
        let group_rows = self
            .metadata()
            .row_groups()
            .get(group)
            .map_or(0, |g| u64::try_from(g.num_rows()).unwrap_or(0));
        if first == 0 && rows >= group_rows {
            return self.row_group_reader(vec![group], batch_size);
        }
        let to_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let end = first.saturating_add(rows).min(group_rows);
        let selection = RowSelection::from(vec![
            RowSelector::skip(to_usize(first.min(group_rows))),
            RowSelector::select(to_usize(end.saturating_sub(first))),
            RowSelector::skip(to_usize(group_rows.saturating_sub(end))),
        ]);
        self.reader(vec![group], batch_size, Some(selection))
    }

    /// A reader of the projected columns of `row_groups` (`batch_size` 0:
    /// [`DEFAULT_PARQUET_BATCH_ROWS`]).
    ///
    /// # Errors
    /// [`IngestError::Io`] when the file cannot be opened again; [`IngestError::Parquet`] for a
    /// row group index out of range.
    pub fn row_group_reader(
        &self,
        row_groups: Vec<usize>,
        batch_size: usize,
    ) -> Result<parquet::arrow::arrow_reader::ParquetRecordBatchReader, IngestError> {
        self.reader(row_groups, batch_size, None)
    }

    /// The reader of [`row_group_reader`](Self::row_group_reader), with a row selection.
    fn reader(
        &self,
        row_groups: Vec<usize>,
        batch_size: usize,
        selection: Option<parquet::arrow::arrow_reader::RowSelection>,
    ) -> Result<parquet::arrow::arrow_reader::ParquetRecordBatchReader, IngestError> {
        let file = open(&self.path)?;
        let mut builder =
            ParquetRecordBatchReaderBuilder::new_with_metadata(file, self.metadata.clone())
                .with_row_groups(row_groups);
        if let Some(selection) = selection {
            builder = builder.with_row_selection(selection);
        }
        if let Some(indices) = &self.projection {
            let mask = ProjectionMask::roots(builder.parquet_schema(), indices.iter().copied());
            builder = builder.with_projection(mask);
        }
        builder = builder.with_batch_size(if batch_size == 0 {
            DEFAULT_PARQUET_BATCH_ROWS
        } else {
            batch_size
        });
        builder
            .build()
            .map_err(|source| IngestError::Parquet { source })
    }
}

/// Streams a Parquet file into a GPU table that grows batch by batch: row groups decoded,
/// converted (by `options.conversions`) and uploaded in parallel on `parquet.threads` scoped
/// threads, added to the table in file order, projected to `parquet.columns`. Each worker
/// converts with category dictionaries of its own and uploads each batch at once with its own
/// category ids (or hands it to one of [`ParquetOptions::upload_threads`] and decodes on);
/// when its row group's turn comes (row groups in file order) it merges the batches' labels
/// into the stream's and rewrites their ids on the GPU (in place, through the worker's map of
/// ids), so category ids are those of a one-thread ingest (null rows 0).
/// Category id columns then carry `STORAGE` besides `options.usage`, which the rewrite reads
/// and writes through. Under `options.batch_rows` the consuming thread converts and uploads
/// (it re-batches before converting), holding the row group it consumes to
/// `options.in_flight` batches and later ones to [`ParquetOptions::read_ahead_bytes`].
/// Cancellation and errors destroy the partial table, as in
/// [`ingest_reader`](super::stream::ingest_reader).
///
/// # Errors
/// As [`ParquetSource::open`]; [`IngestError::Parquet`] when a row group cannot be decoded;
/// then as [`ingest_reader`](super::stream::ingest_reader).
pub fn ingest_parquet(
    gpu: &Gpu,
    path: &Path,
    options: &IngestOptions,
    parquet: &ParquetOptions,
    mut progress: impl FnMut(&Progress),
    cancel: &CancelToken,
) -> Result<Ingested, IngestError> {
    let mut source = ParquetSource::open(path, parquet.columns.as_deref())?;
    let mut builder = TableBuilder::new(gpu, source.schema().clone(), options)?;
    // Strings that become category ids are read as dictionaries: the same ids, without a
    // string built and hashed per row.
    let text = builder.plan().category_text_columns();
    if let Some(read) = source.read_text_as_dictionaries(&text) {
        builder.plan_mut().read_text_as_dictionaries(read);
    }
    // `auto` narrows 64-bit integers by the whole file's range, not the first batch's.
    for (column, min, max) in source.integer_ranges() {
        builder.plan_mut().set_value_range(&column, min, max);
    }
    let group_rows: Vec<u64> = source
        .metadata()
        .row_groups()
        .iter()
        .map(|g| u64::try_from(g.num_rows()).unwrap_or(0))
        .collect();
    // The work units (whole row groups, or parts of them), with their first rows in the file
    // for the conversions' error messages.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = match parquet.threads {
        0 => cores,
        n => n,
    };
    // Re-batching joins record batches before converting them: then the one consumer thread
    // converts; otherwise each worker converts what it decodes (and uploads it at once).
    let convert_on_workers = options.batch_rows.is_none();
    let units = match parquet.row_group_parts {
        // Nothing waits on the host for its turn when workers convert: each decodes one range
        // (or one whole row group).
        0 if source.has_offset_index() && convert_on_workers => default_units(&group_rows, threads),
        0 if source.has_offset_index() => {
            round_robin(&group_rows, auto_parts(threads, group_rows.len()), threads)
        }
        0 => round_robin(&group_rows, 1, threads),
        n => round_robin(&group_rows, n, threads),
    };
    let threads = units.iter().map(|u| u.worker + 1).max().unwrap_or(1);
    let template = builder.plan().clone();
    let resolution = Resolution::new();
    let first_unit = units.iter().position(|unit| unit.rows > 0);
    let budget = match parquet.read_ahead_bytes {
        0 => DEFAULT_READ_AHEAD_BYTES,
        n => n,
    };
    let read_ahead = ReadAhead::new(threads, budget, options.in_flight);
    let uploaders = match convert_on_workers {
        true => uploads::upload_threads(parquet.upload_threads, threads, cores),
        false => 0,
    };
    let jobs = uploads::jobs(uploaders);
    // Every worker's end of the queue exists before an upload thread starts: the threads stop
    // when none is left.
    let senders: Vec<_> = (0..threads)
        .map(|_| (uploaders > 0).then(|| jobs.sender()))
        .collect();
    let outcome = std::thread::scope(|scope| {
        // Held by the scope's closure, so that the ends no worker took are dropped however
        // it ends (a failed spawn too) before the scope waits for the upload threads.
        let mut senders = senders;
        for _ in 0..uploaders {
            scope.spawn(|| uploads::run(gpu, &jobs, cancel));
        }
        let mut receivers: Vec<Inbox> = Vec::with_capacity(threads);
        for worker in 0..threads {
            let (sender, receiver) = channel::<Decoded>();
            receivers.push(Inbox(receiver));
            let job = Worker {
                source: &source,
                units: &units,
                batch_size: parquet.batch_size,
                read_ahead: &read_ahead,
                cancel: cancel.clone(),
                conversion: convert_on_workers.then(|| WorkerConversion {
                    worker,
                    units: &units,
                    template: &template,
                    resolution: &resolution,
                    first_unit,
                    converter: None,
                    gpu,
                    usage: options.usage,
                    options: None,
                    uploads: senders.get_mut(worker).and_then(Option::take),
                    pacer: UploadPacer::default(),
                }),
            };
            scope.spawn(move || job.run(worker, &sender));
        }
        // Waiting workers return once the consumer stops, however it stops.
        let _close = CloseOnDrop(&read_ahead);
        for unit in 0..units.len() {
            if !convert_on_workers {
                read_ahead.advance(unit);
            }
            let worker = units.get(unit).map_or(0, |u| u.worker);
            let Some(Inbox(receiver)) = receivers.get(worker) else {
                return Ok(());
            };
            loop {
                if cancel.is_cancelled() {
                    return Ok(());
                }
                match receiver.recv() {
                    Ok(Decoded::Batch(batch, bytes)) => {
                        read_ahead.release(worker, bytes);
                        builder.push(&batch)?;
                        progress(&builder.progress());
                    }
                    Ok(Decoded::Uploaded(batch, accounting)) => {
                        builder.push_uploaded(batch, accounting)?;
                        progress(&builder.progress());
                    }
                    Ok(Decoded::UnitDone) => break,
                    Ok(Decoded::Failed(e)) => return Err(e),
                    // A worker ended early: only on cancellation, or after the resolving
                    // worker's failure (which is in its own channel, read in file order first).
                    Err(_) => return Ok(()),
                }
            }
        }
        Ok(())
    });
    // Dropping the receivers (end of the scope) unblocked the workers.
    outcome?;
    if cancel.is_cancelled() {
        let rows = builder.progress().rows;
        builder.abort();
        return Err(IngestError::Cancelled { rows });
    }
    builder.adopt_categories(read_ahead.take_categories());
    builder.finish()
}
