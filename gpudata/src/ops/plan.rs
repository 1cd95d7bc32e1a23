//! [`OpPlan`]: an operation's dispatches and output, planned and ready to run or to record.

use crate::device::Gpu;
use crate::ops::OpError;
use crate::ops::kernels::dispatch::{Dispatch, record_pass, submit};
use crate::ops::kernels::transform::plan::Built;

/// One operation, ready to record: its pipeline, bindings and workgroup counts, and the output it
/// writes (allocated, not yet written).
///
/// [`run`](Self::run) records and submits it once; [`encode`](Self::encode) records it into a
/// compute pass of yours, as often as you like (benchmarks, per-frame work), writing the same
/// output each time.
pub struct OpPlan<T> {
    op: &'static str,
    gpu: Gpu,
    dispatches: Vec<Dispatch>,
    bytes_moved: u64,
    output: T,
}

impl<T> OpPlan<T> {
    pub(crate) fn new(op: &'static str, built: Built, output: T) -> OpPlan<T> {
        OpPlan {
            op,
            gpu: built.gpu,
            dispatches: built.dispatches,
            bytes_moved: built.bytes_moved,
            output,
        }
    }

    /// A plan of dispatches built outside the row-transform planner (the selection kernels).
    pub(crate) fn from_dispatches(
        gpu: &Gpu,
        op: &'static str,
        dispatches: Vec<Dispatch>,
        bytes_moved: u64,
        output: T,
    ) -> OpPlan<T> {
        OpPlan {
            op,
            gpu: gpu.clone(),
            dispatches,
            bytes_moved,
            output,
        }
    }

    /// The operation's name.
    #[must_use]
    pub fn op(&self) -> &'static str {
        self.op
    }

    /// Records the dispatches into `pass` (none for empty inputs).
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>) {
        for d in &self.dispatches {
            d.encode(pass);
        }
    }

    /// Records and submits the dispatches (inside an error scope) and returns the output. The
    /// GPU finishes the work in the background; reading the output back waits for it.
    ///
    /// # Errors
    /// [`OpError::Gpu`] when wgpu refuses the submission, for example because an input's buffer
    /// was destroyed after planning; with [`GpuError::OtherDevice`](crate::GpuError::OtherDevice)
    /// when `gpu` is not the device the plan was made on, and
    /// [`GpuError::DeviceLost`](crate::GpuError::DeviceLost) when it is lost.
    pub fn run(self, gpu: &Gpu) -> Result<T, OpError> {
        submit_plans(gpu, &[&self])?;
        Ok(self.output)
    }

    /// Records and submits `plans` in one submission (each plan's dispatches in order, inside
    /// one error scope) and returns their outputs: many small operations without a submission
    /// each.
    ///
    /// # Errors
    /// As [`run`](Self::run).
    #[cfg(feature = "parquet")]
    pub(crate) fn run_together(gpu: &Gpu, plans: Vec<OpPlan<T>>) -> Result<Vec<T>, OpError> {
        submit_plans(gpu, &plans.iter().collect::<Vec<_>>())?;
        Ok(plans.into_iter().map(|p| p.output).collect())
    }

    /// The output the dispatch writes.
    #[must_use]
    pub fn output(&self) -> &T {
        &self.output
    }

    /// Bytes one run must move at least: every input value read once and every output row
    /// written once.
    #[must_use]
    pub fn bytes_moved(&self) -> u64 {
        self.bytes_moved
    }

    /// Workgroups in x and y of the main dispatch (`(0, 0)` for empty inputs).
    #[must_use]
    pub fn workgroups(&self) -> (u32, u32) {
        self.dispatches.first().map_or((0, 0), Dispatch::workgroups)
    }

    /// The number of dispatches: 0 for empty inputs, 1 usually, 2 when the last rows of a
    /// source read in wide units run as a separate tail, and more when a source or output range
    /// exceeds the device's `max_storage_buffer_binding_size`: the rows are then split into runs
    /// that each bind only their own bytes.
    #[must_use]
    pub fn dispatches(&self) -> usize {
        self.dispatches.len()
    }

    /// Rows each invocation handles (`0` for empty inputs).
    #[must_use]
    pub fn rows_per_invocation(&self) -> u32 {
        self.dispatches.first().map_or(0, Dispatch::rows_per_thread)
    }

    /// The generated WGSL of the main dispatch (`None` for empty inputs).
    #[must_use]
    pub fn wgsl(&self) -> Option<&str> {
        self.dispatches.first().map(Dispatch::wgsl)
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for OpPlan<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpPlan")
            .field("op", &self.op)
            .field("workgroups", &self.workgroups())
            .field("dispatches", &self.dispatches())
            .field("rows_per_invocation", &self.rows_per_invocation())
            .field("bytes_moved", &self.bytes_moved)
            .field("output", &self.output)
            .finish()
    }
}

/// Checks that every plan was made on `gpu`'s device and that it is not lost, then records
/// their dispatches, in order, into one submission (none when no plan has any): the one way
/// [`OpPlan::run`] and [`OpPlan::run_together`] submit.
fn submit_plans<T>(gpu: &Gpu, plans: &[&OpPlan<T>]) -> Result<(), OpError> {
    let Some(first) = plans.first() else {
        return Ok(());
    };
    for plan in plans {
        gpu.check_same_device(Some(&plan.gpu), "submit the kernels")
            .and_then(|()| gpu.check_lost("submit the kernels"))
            .map_err(|source| OpError::Gpu {
                op: plan.op,
                source,
            })?;
    }
    if plans.iter().all(|p| p.dispatches.is_empty()) {
        return Ok(());
    }
    let op = first.op;
    submit(gpu, op, "submit the kernels", |encoder| {
        for plan in plans {
            record_pass(encoder, plan.op, &plan.dispatches);
        }
    })
    .map_err(|source| OpError::Gpu { op, source })
}
