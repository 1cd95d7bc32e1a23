//! [`IngestError`]: what stops a stream of record batches on its way to a GPU table, or a GPU
//! table on its way to a writer.

use crate::arrow::ArrowInteropError;
use crate::arrow::convert::ConversionError;

/// A stream ingest or table readback that failed; the partly built GPU table is destroyed
/// before this is returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IngestError {
    /// The record batch reader or stream failed (a corrupt file, a closed connection).
    #[error("reading record batch {batch} failed: {source}")]
    Read {
        /// The batch being read, counted from 0.
        batch: u64,
        /// What the reader said.
        #[source]
        source: arrow_schema::ArrowError,
    },
    /// The record batch reader or stream panicked (arrow-ipc 60 panics on some corrupted
    /// messages; so may a reader of the caller's own). The panic is caught at the ingest
    /// boundary, the reader dropped, and the partial table destroyed.
    #[error("reading record batch {batch} failed: the reader panicked ({message})")]
    ReaderPanicked {
        /// The batch being read, counted from 0.
        batch: u64,
        /// The panic's message.
        message: String,
    },
    /// A column conversion failed.
    #[error(transparent)]
    Convert {
        /// What the conversion said.
        #[from]
        source: ConversionError,
    },
    /// The upload or readback of a batch failed.
    #[error(transparent)]
    Upload {
        /// What the Arrow adapter said.
        #[from]
        source: ArrowInteropError,
    },
    /// The ingest was cancelled through its [`CancelToken`](super::CancelToken).
    #[error("ingest cancelled after {rows} rows: the partial gpu table was destroyed")]
    Cancelled {
        /// Rows uploaded before the cancellation.
        rows: u64,
    },
    /// The record batch writer refused a batch.
    #[error("writing record batch {batch} failed: {source}")]
    Write {
        /// The batch being written, counted from 0.
        batch: u64,
        /// What the writer said.
        #[source]
        source: arrow_schema::ArrowError,
    },
    /// A file that cannot be opened.
    #[error("cannot open `{path}`: {source}")]
    Io {
        /// The path.
        path: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// A Parquet file whose footer, schema or pages cannot be read.
    #[cfg(feature = "parquet")]
    #[error("parquet: {source}")]
    Parquet {
        /// What the Parquet reader said.
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// An Arrow Flight connection, `do_get` call or stream that failed.
    #[cfg(feature = "flight")]
    #[error("arrow flight: {source}")]
    Flight {
        /// What the Flight client said.
        #[source]
        source: arrow_flight::error::FlightError,
    },
    /// A projection naming a column the file does not have.
    #[error("no column `{column}` in the file: found [{found}]")]
    NoSuchColumn {
        /// The name asked for.
        column: String,
        /// The file's top-level columns.
        found: String,
    },
    /// Options that cannot work: zero batches in flight, a target batch of zero rows.
    #[error("invalid ingest options: {option} is {found}, expected {expected}")]
    Options {
        /// The option.
        option: &'static str,
        /// Its value.
        found: u64,
        /// What it must be.
        expected: &'static str,
    },
}
