//! Parquet files (feature `parquet`, arrow-rs `parquet` 60) into GPU tables: read row group by
//! row group, several row groups decoded in parallel where the machine has cores, the columns
//! projected, straight into the streaming ingest.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, sync_channel};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::file::metadata::ParquetMetaData;

use super::stream::{CancelToken, IngestError, IngestOptions, Ingested, Progress, TableBuilder};
use crate::device::Gpu;

/// Rows per decoded record batch when [`ParquetOptions::batch_size`] is 0: large enough that a
/// GPU batch's buffers are worth their setup (arrow-rs's own default, 1024 rows, makes thousands
/// of tiny GPU batches of a large file), small enough to keep memory bounded.
pub const DEFAULT_PARQUET_BATCH_ROWS: usize = 65_536;

/// How a Parquet file is read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParquetOptions {
    /// The top-level columns to read, in file order (`None`: all of them).
    pub columns: Option<Vec<String>>,
    /// Row groups decoded at once (`0`: the machine's available parallelism, at most the row
    /// groups).
    pub threads: usize,
    /// Rows per record batch the decoder produces (`0`: [`DEFAULT_PARQUET_BATCH_ROWS`]); each
    /// is one GPU batch unless [`IngestOptions::batch_rows`] re-batches.
    pub batch_size: usize,
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
        let metadata = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new())
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
        let file = open(&self.path)?;
        let mut builder =
            ParquetRecordBatchReaderBuilder::new_with_metadata(file, self.metadata.clone())
                .with_row_groups(row_groups);
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

/// What a decoding thread sends: a batch, a failure, or the end of a row group.
enum Decoded {
    Batch(RecordBatch),
    Failed(IngestError),
    RowGroupDone,
}

/// Streams a Parquet file into a GPU table that grows batch by batch: row groups decoded in
/// parallel on `parquet.threads` scoped threads (each at most `options.in_flight` batches
/// ahead), uploaded in file order, projected to `parquet.columns`, converted by
/// `options.conversions`. Cancellation and errors destroy the partial table, as in
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
    let source = ParquetSource::open(path, parquet.columns.as_deref())?;
    let mut builder = TableBuilder::new(gpu, source.schema().clone(), options)?;
    // `auto` narrows 64-bit integers by the whole file's range, not the first batch's.
    for (column, min, max) in source.integer_ranges() {
        builder.plan_mut().set_value_range(&column, min, max);
    }
    let groups = source.num_row_groups();
    let threads = match parquet.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
    .clamp(1, groups.max(1));
    let in_flight = options.in_flight.max(1);
    let outcome = std::thread::scope(|scope| {
        let mut receivers: Vec<Receiver<Decoded>> = Vec::with_capacity(threads);
        for worker in 0..threads {
            let (sender, receiver) = sync_channel::<Decoded>(in_flight);
            receivers.push(receiver);
            let source = &source;
            let cancel = cancel.clone();
            let batch_size = parquet.batch_size;
            scope.spawn(move || {
                // Worker `w` decodes row groups w, w + threads, ...: the consumer takes them in
                // file order from each worker in turn.
                for group in (worker..groups).step_by(threads) {
                    let reader = match source.row_group_reader(vec![group], batch_size) {
                        Ok(reader) => reader,
                        Err(e) => {
                            let _ = sender.send(Decoded::Failed(e));
                            return;
                        }
                    };
                    for item in reader {
                        if cancel.is_cancelled() {
                            return;
                        }
                        let message = match item {
                            Ok(batch) => Decoded::Batch(batch),
                            Err(source) => Decoded::Failed(IngestError::Read {
                                batch: group as u64,
                                source,
                            }),
                        };
                        let failed = matches!(message, Decoded::Failed(_));
                        if sender.send(message).is_err() || failed {
                            return;
                        }
                    }
                    if sender.send(Decoded::RowGroupDone).is_err() {
                        return;
                    }
                }
            });
        }
        for group in 0..groups {
            let receiver = &receivers[group % threads];
            loop {
                if cancel.is_cancelled() {
                    return Ok(());
                }
                match receiver.recv() {
                    Ok(Decoded::Batch(batch)) => {
                        builder.push(&batch)?;
                        progress(&builder.progress());
                    }
                    Ok(Decoded::RowGroupDone) => break,
                    Ok(Decoded::Failed(e)) => return Err(e),
                    // A worker ended early: only on cancellation.
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
    builder.finish()
}
