//! Opening a data file: Parquet (by its `PAR1` magic), Arrow IPC file (`ARROW1`) or Arrow IPC
//! stream (anything else), as a schema, a row count when the file says it, and a reader.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::SchemaRef;
use gpudata::arrow::parquet::{ParquetOptions, ParquetSource};
use gpudata::arrow::stream::{CancelToken, IngestOptions, Ingested, Progress, ingest_reader};

/// The kinds of files the tool reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// Apache Parquet.
    Parquet,
    /// Arrow IPC file format (Feather v2).
    IpcFile,
    /// Arrow IPC stream format.
    IpcStream,
}

impl FileKind {
    /// The kind's name as the tool prints it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            FileKind::Parquet => "parquet",
            FileKind::IpcFile => "arrow ipc file",
            FileKind::IpcStream => "arrow ipc stream",
        }
    }
}

/// What the file's first bytes say it is.
///
/// # Errors
/// The file cannot be opened or read.
pub fn kind(path: &Path) -> Result<FileKind, String> {
    let mut file =
        File::open(path).map_err(|e| format!("cannot open `{}`: {e}", path.display()))?;
    let mut magic = [0_u8; 6];
    let mut read = 0;
    while read < magic.len() {
        match file.read(&mut magic[read..]) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(e) => return Err(format!("cannot read `{}`: {e}", path.display())),
        }
    }
    Ok(if magic.starts_with(b"PAR1") {
        FileKind::Parquet
    } else if magic.starts_with(b"ARROW1") {
        FileKind::IpcFile
    } else {
        FileKind::IpcStream
    })
}

/// An opened file.
pub struct Opened {
    /// The path.
    pub path: PathBuf,
    /// Its kind.
    pub kind: FileKind,
    /// The Arrow schema of the projected columns.
    pub schema: SchemaRef,
    /// Rows, when the file's metadata says (Parquet, IPC file).
    pub rows: Option<u64>,
    /// Parquet row groups or IPC file batches, when known.
    pub parts: Option<usize>,
    columns: Option<Vec<String>>,
    parquet: Option<ParquetSource>,
}

fn ipc_error(path: &Path, e: impl std::fmt::Display) -> String {
    format!("`{}` is not a readable arrow ipc file: {e}", path.display())
}

fn buffered(path: &Path) -> Result<BufReader<File>, String> {
    File::open(path)
        .map(BufReader::new)
        .map_err(|e| format!("cannot open `{}`: {e}", path.display()))
}

/// Column names to projection indices, in file order (`None` for all columns).
fn projection(
    path: &Path,
    columns: Option<&[String]>,
    schema: &SchemaRef,
) -> Result<Option<Vec<usize>>, String> {
    let Some(columns) = columns else {
        return Ok(None);
    };
    let mut indices = Vec::new();
    for name in columns {
        indices.push(schema.index_of(name).map_err(|_| {
            format!(
                "`{}` has no column `{name}`: found [{}]",
                path.display(),
                schema
                    .fields()
                    .iter()
                    .map(|f| f.name().as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?);
    }
    indices.sort_unstable();
    indices.dedup();
    Ok(Some(indices))
}

type BoxedReader = Box<dyn RecordBatchReader + Send>;

impl Opened {
    /// Opens `path`, reads its schema (and Parquet footer), and projects `columns`.
    ///
    /// # Errors
    /// A one-line message naming the file when it cannot be opened or parsed, or a projected
    /// column is missing.
    pub fn new(path: &Path, columns: Option<&[String]>) -> Result<Opened, String> {
        let kind = kind(path)?;
        let columns_owned = columns.map(<[String]>::to_vec);
        if kind == FileKind::Parquet {
            let source = ParquetSource::open(path, columns)
                .map_err(|e| format!("`{}`: {e}", path.display()))?;
            return Ok(Opened {
                path: path.to_owned(),
                kind,
                schema: source.schema().clone(),
                rows: Some(source.num_rows()),
                parts: Some(source.num_row_groups()),
                columns: columns_owned,
                parquet: Some(source),
            });
        }
        let mut opened = Opened {
            path: path.to_owned(),
            kind,
            schema: std::sync::Arc::new(arrow_schema::Schema::empty()),
            rows: None,
            parts: None,
            columns: columns_owned,
            parquet: None,
        };
        let full = opened.reader_with(None)?;
        let projection = projection(path, columns, &full.schema())?;
        drop(full);
        let reader = opened.reader_with(projection)?;
        opened.schema = reader.schema();
        if kind == FileKind::IpcFile {
            let file = arrow_ipc::reader::FileReader::try_new(buffered(path)?, None)
                .map_err(|e| ipc_error(path, e))?;
            opened.parts = Some(file.num_batches());
        }
        Ok(opened)
    }

    fn reader_with(&self, projection: Option<Vec<usize>>) -> Result<BoxedReader, String> {
        let path = &self.path;
        Ok(match self.kind {
            FileKind::IpcFile => Box::new(
                arrow_ipc::reader::FileReader::try_new(buffered(path)?, projection)
                    .map_err(|e| ipc_error(path, e))?,
            ),
            _ => Box::new(
                arrow_ipc::reader::StreamReader::try_new(buffered(path)?, projection)
                    .map_err(|e| ipc_error(path, e))?,
            ),
        })
    }

    /// The whole file's value ranges of its Int64 / UInt64 columns, where its metadata knows
    /// them (Parquet statistics; nothing for IPC files).
    pub fn integer_ranges(&self) -> Vec<(String, i128, i128)> {
        self.parquet
            .as_ref()
            .map(ParquetSource::integer_ranges)
            .unwrap_or_default()
    }

    /// The first record batch (for `auto` choices), `None` for a file without rows.
    ///
    /// # Errors
    /// A one-line message when the batch cannot be read.
    pub fn first_batch(&self) -> Result<Option<RecordBatch>, String> {
        let context = |e: &dyn std::fmt::Display| format!("`{}`: {e}", self.path.display());
        let mut reader: BoxedReader = match &self.parquet {
            Some(source) if source.num_row_groups() > 0 => Box::new(
                source
                    .row_group_reader(vec![0], 0)
                    .map_err(|e| context(&e))?,
            ),
            Some(_) => return Ok(None),
            None => {
                let projection =
                    projection(&self.path, self.columns.as_deref(), &self.full_schema()?)?;
                self.reader_with(projection)?
            }
        };
        reader.next().transpose().map_err(|e| context(&e))
    }

    fn full_schema(&self) -> Result<SchemaRef, String> {
        Ok(self.reader_with(None)?.schema())
    }

    /// Streams the file into a GPU table (Parquet row groups in parallel).
    ///
    /// # Errors
    /// The ingest's error, as one line naming the file.
    pub fn ingest(
        &self,
        gpu: &gpudata::Gpu,
        options: &IngestOptions,
        progress: impl FnMut(&Progress),
        cancel: &CancelToken,
    ) -> Result<Ingested, String> {
        let context = |e: &dyn std::fmt::Display| format!("`{}`: {e}", self.path.display());
        if self.parquet.is_some() {
            let parquet = ParquetOptions {
                columns: self.columns.clone(),
                ..ParquetOptions::default()
            };
            return gpudata::arrow::parquet::ingest_parquet(
                gpu, &self.path, options, &parquet, progress, cancel,
            )
            .map_err(|e| context(&e));
        }
        let projection = projection(&self.path, self.columns.as_deref(), &self.full_schema()?)?;
        let reader = self.reader_with(projection)?;
        ingest_reader(gpu, reader, options, progress, cancel).map_err(|e| context(&e))
    }
}
