//! The decoding workers of [`ingest_parquet`](super::ingest_parquet): each decodes its row
//! groups and converts what it decodes (the plan resolved once, from the file's first batch, by
//! the worker that decodes it), bounded by a read-ahead budget shared by all workers.

use std::sync::mpsc::Sender;
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};

use arrow_array::RecordBatch;

use super::ParquetSource;
use crate::arrow::convert::{ConversionPlan, Converted, WorkerConverter};
use crate::arrow::stream::{CancelToken, IngestError};

/// One work unit: `rows` rows of row group `group` from its row `first` (a whole row group,
/// or one part of it under [`ParquetOptions::row_group_parts`](super::ParquetOptions)), the
/// file's row `start` its first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Unit {
    pub(super) group: usize,
    pub(super) first: u64,
    pub(super) rows: u64,
    pub(super) start: u64,
}

/// The work units of row groups of `group_rows` rows each, `parts` per row group (at least 1;
/// a row group of fewer rows than parts has as many units as rows, and an empty one one unit).
pub(super) fn units(group_rows: &[u64], parts: usize) -> Vec<Unit> {
    let parts = parts.max(1) as u64;
    let mut units = Vec::new();
    let mut start = 0u64;
    for (group, &rows) in group_rows.iter().enumerate() {
        let n = parts.min(rows).max(1);
        for k in 0..n {
            // Rows `k·r/n..(k+1)·r/n`, in u128 so that no product overflows.
            let at = |k: u64| (u128::from(k) * u128::from(rows) / u128::from(n)) as u64;
            let (first, end) = (at(k), at(k + 1));
            units.push(Unit {
                group,
                first,
                rows: end - first,
                start: start.saturating_add(first),
            });
        }
        start = start.saturating_add(rows);
    }
    units
}

/// What a decoding worker sends: a batch (converted on the worker, or as decoded when the
/// builder re-batches) with the bytes it holds, a failure, or the end of a work unit.
pub(super) enum Decoded {
    Batch(RecordBatch, u64),
    Converted(Converted, u64),
    Failed(IngestError),
    UnitDone,
}

/// The stream's first batch's resolution of the conversion plan, published by the worker that
/// decodes it (the owner of the first row group with rows) for the others, which wait for it.
pub(super) type Resolution = OnceLock<Result<WorkerConverter, ()>>;

/// What the workers hold ahead of the consumer, and the rule that bounds it.
///
/// Batches of the work unit being consumed may be held up to `in_flight` per worker; batches
/// of later units up to `budget` bytes in all (at least one batch). So the worker the
/// consumer waits for never waits for memory, the others decode ahead while memory allows, and
/// host memory stays below the budget plus `in_flight` batches whatever the file's size.
pub(super) struct ReadAhead {
    state: Mutex<Held>,
    changed: Condvar,
    budget: u64,
    in_flight: usize,
}

struct Held {
    bytes: u64,
    /// Batches sent and not yet taken, per worker.
    batches: Vec<usize>,
    /// The work unit being consumed.
    current: usize,
    /// The consumer stopped: workers stop too.
    closed: bool,
}

impl ReadAhead {
    pub(super) fn new(workers: usize, budget: u64, in_flight: usize) -> ReadAhead {
        ReadAhead {
            state: Mutex::new(Held {
                bytes: 0,
                batches: vec![0; workers],
                current: 0,
                closed: false,
            }),
            changed: Condvar::new(),
            budget,
            in_flight: in_flight.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        // A worker that panicked holding the lock panics the whole scope anyway.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until `worker` may hand over a batch of `bytes` for work unit `unit`, and counts
    /// it; `false` when the consumer stopped.
    fn acquire(&self, worker: usize, unit: usize, bytes: u64) -> bool {
        let mut held = self.lock();
        loop {
            if held.closed {
                return false;
            }
            let own = held.batches.get(worker).copied().unwrap_or(0);
            let may = if unit == held.current {
                own < self.in_flight
            } else {
                held.bytes == 0 || held.bytes.saturating_add(bytes) <= self.budget
            };
            if may {
                held.bytes = held.bytes.saturating_add(bytes);
                if let Some(count) = held.batches.get_mut(worker) {
                    *count += 1;
                }
                return true;
            }
            held = self
                .changed
                .wait(held)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// The consumer took a batch of `bytes` from `worker`.
    pub(super) fn release(&self, worker: usize, bytes: u64) {
        let mut held = self.lock();
        held.bytes = held.bytes.saturating_sub(bytes);
        if let Some(count) = held.batches.get_mut(worker) {
            *count = count.saturating_sub(1);
        }
        drop(held);
        self.changed.notify_all();
    }

    /// The consumer moved on to work unit `unit`.
    pub(super) fn advance(&self, unit: usize) {
        self.lock().current = unit;
        self.changed.notify_all();
    }

    /// The consumer stopped (done, failed or cancelled): waiting workers return.
    pub(super) fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }
}

/// Where a decoding worker converts: its converter once the plan is resolved.
pub(super) struct WorkerConversion<'a> {
    pub(super) worker: usize,
    /// Workers decoding (worker `w` decodes work units `w`, `w + threads`, ...).
    pub(super) threads: usize,
    /// The plan before resolution (a copy of the builder's).
    pub(super) template: &'a ConversionPlan,
    pub(super) resolution: &'a Resolution,
    /// The first work unit with rows: its worker resolves the plan.
    pub(super) first_unit: Option<usize>,
    pub(super) converter: Option<WorkerConverter>,
}

impl Drop for WorkerConversion<'_> {
    /// The resolving worker publishes a failure if it stops before resolving (an error, a
    /// cancellation), so that no worker waits for ever; a resolution made stays.
    fn drop(&mut self) {
        if self.resolves() {
            let _ = self.resolution.set(Err(()));
        }
    }
}

impl WorkerConversion<'_> {
    /// Whether this worker decodes the first work unit with rows, and so resolves the plan.
    fn resolves(&self) -> bool {
        self.first_unit
            .is_some_and(|u| u % self.threads == self.worker)
    }

    /// `batch` (row `first_row` of the file onward, from work unit `unit`) converted; `None`
    /// when the resolving worker failed (it reports the error itself).
    fn convert(
        &mut self,
        unit: usize,
        batch: &RecordBatch,
        first_row: u64,
    ) -> Option<Result<Converted, IngestError>> {
        if self.converter.is_none() {
            let converter = if Some(unit) == self.first_unit {
                // On failure, dropping this worker's conversion publishes it.
                let converter = match WorkerConverter::resolve(self.template, batch) {
                    Ok(converter) => converter,
                    Err(e) => return Some(Err(e.into())),
                };
                let _ = self.resolution.set(Ok(converter.clone()));
                converter
            } else {
                match self.resolution.wait() {
                    Ok(converter) => converter.for_worker(self.worker),
                    Err(()) => return None,
                }
            };
            self.converter = Some(converter);
        }
        let converter = self.converter.as_mut()?;
        Some(
            converter
                .convert(batch, first_row)
                .map_err(IngestError::from),
        )
    }
}

/// One decoding worker: work units `worker`, `worker + threads`, ... of `source` decoded in
/// `batch_size` rows (converted when `conversion` is given), sent in order to the consumer.
pub(super) struct Worker<'a> {
    pub(super) source: &'a ParquetSource,
    pub(super) units: &'a [Unit],
    pub(super) batch_size: usize,
    pub(super) read_ahead: &'a ReadAhead,
    pub(super) cancel: CancelToken,
    pub(super) conversion: Option<WorkerConversion<'a>>,
}

impl Worker<'_> {
    /// Decodes this worker's work units until done, failed or stopped.
    pub(super) fn run(mut self, worker: usize, threads: usize, sender: &Sender<Decoded>) {
        for (index, unit) in self
            .units
            .iter()
            .enumerate()
            .skip(worker)
            .step_by(threads.max(1))
        {
            let reader = match self.source.row_range_reader(
                unit.group,
                unit.first,
                unit.rows,
                self.batch_size,
            ) {
                Ok(reader) => reader,
                Err(e) => {
                    let _ = sender.send(Decoded::Failed(e));
                    return;
                }
            };
            let mut first_row = unit.start;
            for item in reader {
                if self.cancel.is_cancelled() {
                    return;
                }
                let message = match (item, self.conversion.as_mut()) {
                    (Ok(batch), None) => {
                        let bytes = batch.get_array_memory_size() as u64;
                        Decoded::Batch(batch, bytes)
                    }
                    (Ok(batch), Some(conversion)) => {
                        let rows = batch.num_rows() as u64;
                        match conversion.convert(index, &batch, first_row) {
                            Some(Ok(converted)) => {
                                first_row += rows;
                                let bytes = converted.held_bytes();
                                Decoded::Converted(converted, bytes)
                            }
                            Some(Err(e)) => Decoded::Failed(e),
                            // The resolving worker failed and says why.
                            None => return,
                        }
                    }
                    (Err(source), _) => Decoded::Failed(IngestError::Read {
                        batch: unit.group as u64,
                        source,
                    }),
                };
                let failed = matches!(message, Decoded::Failed(_));
                if let Decoded::Batch(_, bytes) | Decoded::Converted(_, bytes) = &message
                    && !self.read_ahead.acquire(worker, index, *bytes)
                {
                    return;
                }
                if sender.send(message).is_err() || failed {
                    return;
                }
            }
            if sender.send(Decoded::UnitDone).is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Unit, units};

    #[test]
    fn units_cut_row_groups_into_near_equal_parts() {
        let unit = |group, first, rows, start| Unit {
            group,
            first,
            rows,
            start,
        };
        assert_eq!(
            units(&[10, 0, 2], 3),
            [
                unit(0, 0, 3, 0),
                unit(0, 3, 3, 3),
                unit(0, 6, 4, 6),
                unit(1, 0, 0, 10),
                unit(2, 0, 1, 10),
                unit(2, 1, 1, 11),
            ]
        );
        assert_eq!(units(&[5, 7], 0), [unit(0, 0, 5, 0), unit(1, 0, 7, 5)]);
        assert_eq!(units(&[u64::MAX], 2)[1].rows, u64::MAX - u64::MAX / 2);
    }
}
