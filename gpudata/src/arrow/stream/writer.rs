//! GPU tables back out: each GPU batch read back, restored to its original Arrow types, and
//! written to any [`RecordBatchWriter`] (IPC file or stream, Parquet, CSV).

use arrow_array::{RecordBatch, RecordBatchWriter};

use super::IngestError;
use crate::arrow::convert::restore_batch;
use crate::arrow::record_batch_from_gpu;
use crate::device::Gpu;
use crate::table::GpuTable;

/// Reads every GPU batch of `table` back, restores the converted columns' original types
/// ([`restore_batch`]) and writes it to `writer`, one record batch per GPU batch, holding one
/// batch on the host at a time. Returns the rows written; the writer is left open (close it to
/// write an IPC footer or Parquet metadata).
///
/// # Errors
/// [`IngestError::Upload`] when a readback fails, [`IngestError::Convert`] when a restore
/// fails, [`IngestError::Write`] when the writer refuses a batch.
pub fn write_table<W: RecordBatchWriter + ?Sized>(
    gpu: &Gpu,
    table: &GpuTable,
    writer: &mut W,
) -> Result<u64, IngestError> {
    let mut rows = 0_u64;
    for (index, batch) in table.batches().iter().enumerate() {
        let restored = restore_batch(&record_batch_from_gpu(gpu, batch)?)?;
        writer
            .write(&restored)
            .map_err(|source| IngestError::Write {
                batch: index as u64,
                source,
            })?;
        rows += restored.num_rows() as u64;
    }
    Ok(rows)
}

/// Every GPU batch of `table` read back with its original Arrow types (all in memory; use
/// [`write_table`] to stream).
///
/// # Errors
/// As [`write_table`].
pub fn read_table(gpu: &Gpu, table: &GpuTable) -> Result<Vec<RecordBatch>, IngestError> {
    table
        .batches()
        .iter()
        .map(|batch| Ok(restore_batch(&record_batch_from_gpu(gpu, batch)?)?))
        .collect()
}
