//! [`OpsConfig`], the tuning of the generated kernels, and the planner context that carries it
//! with the device.

use crate::device::{Gpu, error_scope};
use crate::ops::OpError;

/// Tuning of the generated kernels (operations and table re-layouts). The default is what
/// BENCHMARKS.md measured; benchmarks and tests pass other values to the `plan_*` operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpsConfig {
    /// Invocations per workgroup (default 256; lowered to the device's limit).
    pub workgroup_size: u32,
    /// Rows per invocation to aim for (a power of two up to 16), or `None` to let each operation
    /// choose. Never fewer than alignment needs.
    pub rows_per_thread: Option<u32>,
    /// Whether invocations that write several `vec4<u32>`s of an output hand them to the
    /// workgroup, which stores them in consecutive elements (default `true`; limited by the
    /// device's workgroup storage). Without it such stores are strided and, measured on an H200,
    /// interleave into 32-byte rows ran at 64% of a copy instead of 93%. It also lets the
    /// compaction of packed one- and two-byte rows put each block's output together in
    /// workgroup memory; without it every output word is assembled by one invocation.
    pub stage_outputs: bool,
    /// The same for sources: the workgroup loads their rows in consecutive elements first
    /// (default `false`: on an H200 the L1 cache already coalesces strided loads, and staging
    /// them was slower).
    pub stage_sources: bool,
    /// Whether kernels use subgroup operations where the device has
    /// [`wgpu::Features::SUBGROUP`] (default `true`): the mask kernel then writes its bits with
    /// subgroup ballots instead of transposing them in workgroup memory, and the compaction of
    /// packed one- and two-byte rows counts each block's kept rows with subgroup prefix sums
    /// instead of a scan in workgroup memory. `false` keeps every kernel to core WGSL (for
    /// comparing both, as `gpubench` and the tests do).
    pub subgroups: bool,
}

impl Default for OpsConfig {
    fn default() -> Self {
        OpsConfig {
            workgroup_size: 256,
            rows_per_thread: None,
            stage_outputs: true,
            stage_sources: false,
            subgroups: true,
        }
    }
}

impl OpsConfig {
    /// Invocations per workgroup on `gpu`: [`workgroup_size`](Self::workgroup_size) lowered to
    /// the device's limits (at least 1).
    #[must_use]
    pub fn workgroup_size_on(&self, gpu: &Gpu) -> u32 {
        let limits = gpu.limits();
        self.workgroup_size
            .min(limits.max_compute_invocations_per_workgroup)
            .min(limits.max_compute_workgroup_size_x)
            .max(1)
    }
}

/// What planning needs: the device (its limits and pipeline cache) and the tuning.
pub(crate) struct Planner<'g> {
    gpu: &'g Gpu,
    config: OpsConfig,
    workgroup_size: u32,
}

impl<'g> Planner<'g> {
    pub(crate) fn new(gpu: &'g Gpu, config: &OpsConfig) -> Planner<'g> {
        Planner {
            gpu,
            config: *config,
            workgroup_size: config.workgroup_size_on(gpu),
        }
    }

    pub(crate) fn device(&self) -> &wgpu::Device {
        self.gpu.device()
    }

    pub(crate) fn gpu(&self) -> &'g Gpu {
        self.gpu
    }

    pub(crate) fn config(&self) -> OpsConfig {
        self.config
    }

    pub(crate) fn workgroup_size(&self) -> u32 {
        self.workgroup_size
    }

    /// Whether kernels may use subgroup operations: the configuration allows them
    /// ([`OpsConfig::subgroups`]) and the device has [`wgpu::Features::SUBGROUP`].
    pub(crate) fn subgroups(&self) -> bool {
        self.config.subgroups && self.device().features().contains(wgpu::Features::SUBGROUP)
    }

    /// The pipeline of `wgsl`'s `main`, from the device's cache.
    pub(crate) fn pipeline(
        &self,
        op: &'static str,
        wgsl: &str,
    ) -> Result<wgpu::ComputePipeline, OpError> {
        self.gpu
            .pipelines()
            .compute(self.gpu, op, wgsl, "main")
            .map_err(|source| OpError::Gpu { op, source })
    }

    /// Runs `f` (which does `what`) in an error scope; a captured error is an [`OpError::Gpu`]
    /// of `op`.
    pub(crate) fn scope<R>(
        &self,
        op: &'static str,
        what: &'static str,
        f: impl FnOnce() -> R,
    ) -> Result<R, OpError> {
        error_scope(self.gpu, what, f).map_err(|source| OpError::Gpu { op, source })
    }
}
