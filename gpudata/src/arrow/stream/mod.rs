//! Streaming ingest (feature `arrow`): any `RecordBatchReader` — and with feature `async` any
//! `Stream` of record batches — into a [`GpuTable`](crate::table::GpuTable) that grows batch by
//! batch, with column conversions ([`convert`](super::convert)), a bounded number of batches in
//! flight, a progress callback and cancellation that leaves no half-made table; and GPU tables
//! back out into any `RecordBatchWriter`.
//!
//! [`TableBuilder`] is the engine: Parquet (feature `parquet`) and Arrow Flight (feature
//! `flight`) feed it too.

mod builder;
mod error;
#[cfg(feature = "async")]
mod futures;
mod options;
mod reader;
mod writer;

pub use builder::{Ingested, TableBuilder};
#[cfg(feature = "parquet")]
pub(crate) use builder::{UploadPacer, upload_converted};
pub use error::IngestError;
#[cfg(feature = "async")]
pub use futures::ingest_stream;
pub use options::{CancelToken, IngestOptions, Progress};
pub use reader::ingest_reader;
pub use writer::{read_table, write_table};
