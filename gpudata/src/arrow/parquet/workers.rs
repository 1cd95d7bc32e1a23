//! The decoding workers of [`ingest_parquet`](super::ingest_parquet): each decodes its work
//! units, converts what it decodes (the plan resolved once, from the file's first batch, by
//! the worker that decodes it) and uploads each batch at once with category ids of its own;
//! when its unit's turn comes (units in file order, one at a time) it merges the batches'
//! labels into the stream's dictionaries and rewrites their ids to the stream's on the GPU,
//! all on its own thread. Where the workers leave cores free, upload threads upload the
//! converted batches while the workers go on decoding (`uploads.rs`). Uploaded batches of
//! units whose turn has not come wait on their worker, which goes on with its next unit; the
//! host holds none of their rows. A worker's
//! units that follow one another in file order (its range of the file) are merged one after
//! the other, passing the turn on at once, and then rewritten in one submission.

use std::sync::mpsc::{Receiver, SendError, Sender};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};

use arrow_array::RecordBatch;

use super::ParquetSource;
use crate::arrow::BatchOptions;
use crate::arrow::convert::{
    Accounting, ConversionPlan, Converted, LocalIds, Remap, StreamCategories, WorkerConverter,
};
use crate::arrow::gpu::remap_category_ids;
use crate::arrow::stream::{CancelToken, IngestError, UploadPacer, upload_converted};
use crate::device::Gpu;
use crate::table::GpuRecordBatch;

use super::units::Unit;
use super::uploads::{JobSender, Ticket};

/// What a decoding worker sends: a batch as decoded (when the builder re-batches) with the
/// bytes it holds, a batch converted and uploaded, a failure, or the end of a work unit.
pub(super) enum Decoded {
    Batch(RecordBatch, u64),
    Uploaded(GpuRecordBatch, Accounting),
    Failed(IngestError),
    UnitDone,
}

/// A worker's channel as the consumer holds it: batches left in it when the consumer stops
/// are destroyed with it.
pub(super) struct Inbox(pub(super) Receiver<Decoded>);

impl Drop for Inbox {
    fn drop(&mut self) {
        for message in self.0.try_iter() {
            if let Decoded::Uploaded(batch, _) = message {
                batch.destroy();
            }
        }
    }
}

/// Sends `message`; `false` when the consumer stopped (an uploaded batch is then destroyed).
fn send(sender: &Sender<Decoded>, message: Decoded) -> bool {
    match sender.send(message) {
        Ok(()) => true,
        Err(SendError(message)) => {
            if let Decoded::Uploaded(batch, _) = message {
                batch.destroy();
            }
            false
        }
    }
}

/// Whether a converting worker's unit has its turn ([`ReadAhead::turn`]).
enum Turn {
    /// Its turn: merge its batches now.
    Now,
    /// Not yet: keep its uploaded batches until then.
    Later,
    /// The consumer stopped.
    Closed,
}

/// Batches of a work unit a worker uploaded (or handed to an upload thread) with its own
/// category ids, waiting for the unit's turn; those not sent when the worker stops are
/// destroyed with their tickets.
struct Pending(Vec<(Ticket, LocalIds)>);

/// A worker's decoded units whose turn has not come, in file order, with their batches.
type Waiting = std::collections::VecDeque<(usize, Pending)>;

/// The stream's first batch's resolution of the conversion plan, published by the worker that
/// decodes it (the owner of the first row group with rows) for the others, which wait for it.
pub(super) type Resolution = OnceLock<Result<WorkerConverter, ()>>;

/// What the workers hold ahead of the consumer, the rule that bounds it, and the turn of the
/// work unit whose batches are merged into the stream's category dictionaries.
///
/// When the consumer converts (it re-batches), batches of the work unit being consumed may be
/// held up to `in_flight` per worker, batches of later units up to `budget` bytes in all (at
/// least one batch), so the worker everything waits for never waits for memory, the others
/// decode ahead while memory allows, and host memory stays below the budget plus `in_flight`
/// batches whatever the file's size; the consumer moves the current unit on
/// ([`advance`](Self::advance)). When the workers convert, they upload each batch as it comes
/// and keep only its labels on the host, so nothing is counted; the current unit is the one
/// whose labels are merged, and its worker passes the turn on at the unit's end
/// ([`merge`](Self::merge)).
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
    /// The stream's category dictionaries, merged into by the current unit's worker.
    categories: StreamCategories,
}

impl ReadAhead {
    pub(super) fn new(workers: usize, budget: u64, in_flight: usize) -> ReadAhead {
        ReadAhead {
            state: Mutex::new(Held {
                bytes: 0,
                batches: vec![0; workers],
                current: 0,
                closed: false,
                categories: StreamCategories::default(),
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

    /// Whether work unit `unit` has its turn, without waiting.
    fn turn(&self, unit: usize) -> Turn {
        let held = self.lock();
        if held.closed {
            Turn::Closed
        } else if unit == held.current {
            Turn::Now
        } else {
            Turn::Later
        }
    }

    /// Waits for work unit `unit`'s turn, then runs `merge` on the stream's dictionaries and,
    /// when the unit is `done`, passes the turn on to the next unit; `None` when the consumer
    /// stopped.
    fn merge<T>(
        &self,
        unit: usize,
        done: bool,
        merge: impl FnOnce(&mut StreamCategories) -> T,
    ) -> Option<T> {
        let mut held = self.lock();
        loop {
            if held.closed {
                return None;
            }
            if unit == held.current {
                break;
            }
            held = self
                .changed
                .wait(held)
                .unwrap_or_else(PoisonError::into_inner);
        }
        let value = merge(&mut held.categories);
        if done {
            held.current = unit + 1;
        }
        drop(held);
        self.changed.notify_all();
        Some(value)
    }

    /// The stream's category dictionaries, once the workers are done.
    pub(super) fn take_categories(&self) -> StreamCategories {
        std::mem::take(&mut self.lock().categories)
    }
}

/// Where a decoding worker converts: its converter once the plan is resolved, and how it
/// uploads.
pub(super) struct WorkerConversion<'a> {
    pub(super) worker: usize,
    /// The work units (each names its worker).
    pub(super) units: &'a [Unit],
    /// The plan before resolution (a copy of the builder's).
    pub(super) template: &'a ConversionPlan,
    pub(super) resolution: &'a Resolution,
    /// The first work unit with rows: its worker resolves the plan.
    pub(super) first_unit: Option<usize>,
    pub(super) converter: Option<WorkerConverter>,
    pub(super) gpu: &'a Gpu,
    /// The ingest's buffer usages.
    pub(super) usage: Option<wgpu::BufferUsages>,
    /// The upload options, once the plan is resolved.
    pub(super) options: Option<Arc<BatchOptions>>,
    /// This worker's end of the upload threads' queue, where there are upload threads;
    /// otherwise the worker uploads, paced by `pacer`.
    pub(super) uploads: Option<JobSender<'a>>,
    pub(super) pacer: UploadPacer,
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
            .and_then(|u| self.units.get(u))
            .is_some_and(|u| u.worker == self.worker)
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
                    Ok(converter) => converter.fresh(),
                    Err(()) => return None,
                }
            };
            let mut options = converter.batch_options();
            options.usage = self.usage;
            // The category ids are rewritten by a kernel that reads them as storage.
            if converter.has_categories() {
                options.usage = Some(options.buffer_usage() | wgpu::BufferUsages::STORAGE);
            }
            self.options = Some(Arc::new(options));
            self.converter = Some(converter);
        }
        let converter = self.converter.as_mut()?;
        Some(
            converter
                .convert(batch, first_row)
                .map_err(IngestError::from),
        )
    }

    /// Sends the units at the front of `waiting` whose turn has come (merged, the turn passed
    /// on, rewritten together), waiting for none; `false` when the worker should stop.
    fn send_ready(
        &mut self,
        read_ahead: &ReadAhead,
        waiting: &mut Waiting,
        sender: &Sender<Decoded>,
    ) -> bool {
        let mut ready = Ready::default();
        if !self.merge_ready(read_ahead, waiting, &mut ready) {
            return false;
        }
        self.send(ready, sender)
    }

    /// Sends every unit of `waiting`, each in its turn; `false` when the worker should stop.
    /// The units that follow one another in file order are merged one after the other before
    /// any is rewritten, so the turn passes on at once to the next worker's.
    fn send_all(
        &mut self,
        read_ahead: &ReadAhead,
        waiting: &mut Waiting,
        sender: &Sender<Decoded>,
    ) -> bool {
        while let Some((index, mut pending)) = waiting.pop_front() {
            let mut ready = Ready::default();
            let count = pending.0.len();
            if !self.merge(read_ahead, index, &mut pending, count, true, &mut ready) {
                return false;
            }
            ready.messages.push(Message::UnitDone);
            if !self.merge_ready(read_ahead, waiting, &mut ready) || !self.send(ready, sender) {
                return false;
            }
        }
        true
    }

    /// Merges the units at the front of `waiting` whose turn has come into `ready`, waiting
    /// for none; `false` when the consumer stopped.
    fn merge_ready(
        &mut self,
        read_ahead: &ReadAhead,
        waiting: &mut Waiting,
        ready: &mut Ready,
    ) -> bool {
        while let Some(&(index, _)) = waiting.front() {
            if ready.failed() {
                return true;
            }
            match read_ahead.turn(index) {
                Turn::Closed => return false,
                Turn::Later => return true,
                Turn::Now => {
                    let Some((index, mut pending)) = waiting.pop_front() else {
                        return true;
                    };
                    let count = pending.0.len();
                    if !self.merge(read_ahead, index, &mut pending, count, true, ready) {
                        return false;
                    }
                    ready.messages.push(Message::UnitDone);
                }
            }
        }
        true
    }

    /// `converted` uploaded (or handed to an upload thread) with this worker's own category
    /// ids, and what merging its labels and rewriting its ids needs.
    fn upload(&mut self, converted: Converted) -> Result<(Ticket, LocalIds), IngestError> {
        let (Some(converter), Some(options)) = (&self.converter, &self.options) else {
            // `convert` made both before it returned a batch.
            return Err(IngestError::from(
                crate::arrow::convert::ConversionError::Metadata {
                    column: "(record batch)".to_owned(),
                    reason: "a batch was uploaded before the plan was resolved".to_owned(),
                },
            ));
        };
        let (batch, local) = converter.local_ids(converted)?;
        let ticket = match &self.uploads {
            Some(jobs) => Ticket::queue(jobs, batch, options.clone()),
            None => Ticket::done(Ok(upload_converted(
                self.gpu,
                &batch,
                options,
                &mut self.pacer,
            )?)),
        };
        Ok((ticket, local))
    }

    /// How many of a current unit's `pending` batches to send now: all of them when this
    /// worker uploads, all but the newest when an upload thread may still be uploading it
    /// (sending waits for each batch's upload).
    fn sendable(&self, pending: &Pending) -> usize {
        match self.uploads {
            Some(_) => pending.0.len().saturating_sub(1),
            None => pending.0.len(),
        }
    }

    /// Merges the labels of the first `count` batches of `pending` (uploaded batches of work
    /// unit `unit`, in order) into the stream's dictionaries when the unit's turn comes
    /// (passing the turn on when the unit is `done`: then `count` is all of them), adding
    /// each batch with its rewrites to `ready` (or, past a failed merge, the failure; the
    /// batches after it stay in `pending`, destroyed with it). `false` when the consumer
    /// stopped.
    fn merge(
        &mut self,
        read_ahead: &ReadAhead,
        unit: usize,
        pending: &mut Pending,
        count: usize,
        done: bool,
        ready: &mut Ready,
    ) -> bool {
        let converter = &mut self.converter;
        let merged = read_ahead.merge(unit, done, |stream| {
            let mut merged = Vec::with_capacity(count);
            let Some(converter) = converter.as_mut() else {
                return merged;
            };
            for (_, local) in pending.0.iter().take(count) {
                let result = converter.merge_labels(local, stream);
                let failed = result.is_err();
                merged.push(result);
                if failed {
                    break;
                }
            }
            merged
        });
        let Some(merged) = merged else {
            return false;
        };
        let Some(converter) = &self.converter else {
            return true;
        };
        for ((ticket, local), merged) in pending.0.drain(..merged.len()).zip(merged) {
            match merged {
                Ok(merged) => {
                    let (remaps, accounting) = converter.remaps(local, merged);
                    ready.batches.push((ticket, remaps));
                    ready.messages.push(Message::Batch(accounting));
                }
                // Dropping the ticket destroys its batch.
                Err(e) => ready.messages.push(Message::Failed(e.into())),
            }
        }
        true
    }

    /// Merges the first `count` of `pending` (the current unit's batches so far) and sends
    /// them; `false` when the worker should stop.
    fn flush(
        &mut self,
        read_ahead: &ReadAhead,
        unit: usize,
        pending: &mut Pending,
        count: usize,
        sender: &Sender<Decoded>,
    ) -> bool {
        if count == 0 {
            return true;
        }
        let mut ready = Ready::default();
        self.merge(read_ahead, unit, pending, count, false, &mut ready) && self.send(ready, sender)
    }

    /// Waits for the uploads of `ready`'s batches, rewrites their category ids to the
    /// stream's (one submission), then sends what it holds in order; `false` when the worker
    /// should stop (the consumer stopped, the ingest was cancelled, or a failure was sent).
    fn send(&self, mut ready: Ready, sender: &Sender<Decoded>) -> bool {
        let mut uploaded = Uploads(Vec::with_capacity(ready.batches.len()));
        for (ticket, remaps) in std::mem::take(&mut ready.batches) {
            match ticket.redeem() {
                Some(Ok(batch)) => uploaded.0.push((batch, remaps)),
                // The batches merged before the failure go with it: the ingest fails.
                Some(Err(e)) => {
                    send(sender, Decoded::Failed(e));
                    return false;
                }
                None => return false,
            }
        }
        if let Err(e) = remap_category_ids(self.gpu, &mut uploaded.0) {
            // Dropping `uploaded` destroys its batches.
            send(sender, Decoded::Failed(e.into()));
            return false;
        }
        // Taken from the back in message order; those not sent are destroyed with `uploaded`.
        uploaded.0.reverse();
        for message in std::mem::take(&mut ready.messages) {
            let message = match message {
                Message::Batch(accounting) => match uploaded.0.pop() {
                    Some((batch, _)) => Decoded::Uploaded(batch, accounting),
                    None => return false,
                },
                Message::UnitDone => Decoded::UnitDone,
                Message::Failed(e) => Decoded::Failed(e),
            };
            let failed = matches!(message, Decoded::Failed(_));
            if !send(sender, message) || failed {
                return false;
            }
        }
        true
    }
}

/// What a worker sends once merged, in order: batches (each with its category rewrites, in
/// `batches` in the order of their `Batch` messages), unit ends and a failure.
#[derive(Default)]
struct Ready {
    batches: Vec<(Ticket, Vec<Remap>)>,
    messages: Vec<Message>,
}

/// [`Ready`]'s batches once uploaded; those not sent are destroyed.
struct Uploads(Vec<(GpuRecordBatch, Vec<Remap>)>);

impl Drop for Uploads {
    fn drop(&mut self) {
        for (batch, _) in self.0.drain(..) {
            batch.destroy();
        }
    }
}

/// One message of [`Ready`].
enum Message {
    /// The next batch of `Ready::batches`.
    Batch(Accounting),
    UnitDone,
    Failed(IngestError),
}

impl Ready {
    fn failed(&self) -> bool {
        matches!(self.messages.last(), Some(Message::Failed(_)))
    }
}

/// One decoding worker: its work units of `source` (those naming it) decoded in `batch_size`
/// rows (converted and uploaded when `conversion` is given), sent in order to the consumer.
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
    pub(super) fn run(mut self, worker: usize, sender: &Sender<Decoded>) {
        let units = self.units;
        let mut waiting = Waiting::new();
        for (index, unit) in units.iter().enumerate().filter(|(_, u)| u.worker == worker) {
            let done = match self.conversion.is_some() {
                true => self.convert_unit(index, unit, &mut waiting, sender),
                false => {
                    self.decode_unit(worker, index, unit, sender) && send(sender, Decoded::UnitDone)
                }
            };
            if !done {
                return;
            }
        }
        let read_ahead = self.read_ahead;
        if let Some(conversion) = self.conversion.as_mut() {
            conversion.send_all(read_ahead, &mut waiting, sender);
        }
    }

    /// A reader of work unit `unit`, or the failure sent.
    fn reader(
        &self,
        unit: &Unit,
        sender: &Sender<Decoded>,
    ) -> Option<parquet::arrow::arrow_reader::ParquetRecordBatchReader> {
        match self
            .source
            .row_range_reader(unit.group, unit.first, unit.rows, self.batch_size)
        {
            Ok(reader) => Some(reader),
            Err(e) => {
                send(sender, Decoded::Failed(e));
                None
            }
        }
    }

    /// Sends the decoded batches of work unit `unit` (number `index`) as they are, for the
    /// consumer to convert; `false` when the worker should stop.
    fn decode_unit(
        &self,
        worker: usize,
        index: usize,
        unit: &Unit,
        sender: &Sender<Decoded>,
    ) -> bool {
        let Some(reader) = self.reader(unit, sender) else {
            return false;
        };
        for item in reader {
            if self.cancel.is_cancelled() {
                return false;
            }
            let message = match item {
                Ok(batch) => {
                    let bytes = batch.get_array_memory_size() as u64;
                    if !self.read_ahead.acquire(worker, index, bytes) {
                        return false;
                    }
                    Decoded::Batch(batch, bytes)
                }
                Err(source) => Decoded::Failed(IngestError::Read {
                    batch: unit.group as u64,
                    source,
                }),
            };
            let failed = matches!(message, Decoded::Failed(_));
            if !send(sender, message) || failed {
                return false;
            }
        }
        true
    }

    /// Converts and uploads the batches of work unit `unit` (number `index`), sending them
    /// as they come while it is the unit's turn, else adding the unit to `waiting` when it is
    /// decoded (the worker goes on with its next unit); units of `waiting` whose turn came are
    /// sent meanwhile. `false` when the worker should stop.
    fn convert_unit(
        &mut self,
        index: usize,
        unit: &Unit,
        waiting: &mut Waiting,
        sender: &Sender<Decoded>,
    ) -> bool {
        let read_ahead = self.read_ahead;
        let Some(conversion) = self.conversion.as_mut() else {
            return false;
        };
        let mut pending = Pending(Vec::new());
        // Batches before a failure go first, in their turn.
        let fail = |conversion: &mut WorkerConversion<'_>,
                    waiting: &mut Waiting,
                    pending: &mut Pending,
                    e: IngestError| {
            let count = pending.0.len();
            if conversion.send_all(read_ahead, waiting, sender)
                && conversion.flush(read_ahead, index, pending, count, sender)
            {
                send(sender, Decoded::Failed(e));
            }
            false
        };
        // Not `reader`, which sends its failure at once: here it goes after the units waiting.
        let reader =
            match self
                .source
                .row_range_reader(unit.group, unit.first, unit.rows, self.batch_size)
            {
                Ok(reader) => reader,
                Err(e) => return fail(conversion, waiting, &mut pending, e),
            };
        let mut first_row = unit.start;
        for item in reader {
            if self.cancel.is_cancelled() {
                return false;
            }
            let uploaded = match item {
                Ok(batch) => {
                    let rows = batch.num_rows() as u64;
                    let uploaded = match conversion.convert(index, &batch, first_row) {
                        Some(Ok(converted)) => conversion.upload(converted),
                        Some(Err(e)) => Err(e),
                        // The resolving worker failed and says why.
                        None => return false,
                    };
                    first_row += rows;
                    uploaded
                }
                Err(source) => Err(IngestError::Read {
                    batch: unit.group as u64,
                    source,
                }),
            };
            match uploaded {
                Ok(uploaded) => pending.0.push(uploaded),
                Err(e) => return fail(conversion, waiting, &mut pending, e),
            }
            if !conversion.send_ready(read_ahead, waiting, sender) {
                return false;
            }
            // This unit's turn comes only after every unit before it, `waiting`'s included.
            if waiting.is_empty() {
                match read_ahead.turn(index) {
                    Turn::Closed => return false,
                    Turn::Later => {}
                    Turn::Now => {
                        let count = conversion.sendable(&pending);
                        if !conversion.flush(read_ahead, index, &mut pending, count, sender) {
                            return false;
                        }
                    }
                }
            }
        }
        waiting.push_back((index, pending));
        conversion.send_ready(read_ahead, waiting, sender)
    }
}
