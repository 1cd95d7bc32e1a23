//! One dispatch of a row-transform plan: its source bindings and bases (from the plan's
//! [`RowGeometry`]), its outputs' store units, what goes through workgroup memory
//! ([`staging`](super::staging)), the generated kernel and its uniform, bound and dispatched
//! through the one binding/dispatch path ([`Kernel::dispatch`]).

use std::sync::Arc;

use super::body::Body;
use super::geometry::{OutputTarget, RowGeometry, SourceBindings, widest_unit};
use super::kernel_layout::{BindingDecl, KernelLayout, OutputDecl};
use super::staging::staging;
use super::wgsl_gen;
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::{Binding, Dispatch, Kernel};

/// One dispatch over rows `first_row..first_row + rows` of the sources (`span`, with `lo`, the
/// first row's place in its block for a placed dispatch), reading each source in `units[s]`
/// bytes and writing the outputs' ranges in `targets`.
pub(super) fn dispatch(
    ops: &Planner<'_>,
    geometry: &RowGeometry<'_, '_>,
    units: &[u64],
    span: (u64, u64, u64),
    targets: &[OutputTarget<'_>],
    constants: &[[u32; 4]],
    body: &dyn Body,
) -> Result<Dispatch, OpError> {
    let (first_row, rows, lo) = span;
    let op = geometry.op;
    let g64 = geometry.g64;
    // At most 16: see `rows_per_thread`.
    let g_rows = g64 as u32;
    // A placed dispatch covers its rows' blocks: `lo` rows of the first belong to others.
    let threads = (rows + lo).div_ceil(g64);
    let overflow = |input: usize| OpError::Overflow { op, input };

    let SourceBindings {
        bindings,
        sources,
        bases,
    } = geometry.source_bindings(units, first_row, rows, lo)?;
    let bases = bases
        .into_iter()
        .enumerate()
        .map(|(s, base)| {
            // A negative base (a placed first block before its source) wraps: the kernel's
            // unsigned index arithmetic brings every row of the range back into the binding.
            match u32::try_from(base) {
                Ok(base) => Ok(base),
                Err(_) if base < 0 && base > -(1 << 31) => Ok(base as i32 as u32),
                Err(_) => Err(overflow(s)),
            }
        })
        .collect::<Result<Vec<u32>, OpError>>()?;

    let outputs: Vec<OutputDecl> = targets
        .iter()
        .enumerate()
        .map(|(o, target)| OutputDecl {
            binding: bindings.len() + o,
            unit: widest_unit(g64 * target.stride) as u32,
            row_stride: target.stride,
        })
        .collect();
    let (staged_sources, staged_outputs, stage_len) =
        staging(ops, geometry.groups, &sources, &outputs, g64);
    let workgroup_size = ops.workgroup_size();
    let layout = KernelLayout {
        workgroup_size,
        rows_per_thread: g_rows,
        bindings: bindings
            .iter()
            .map(|b| b.decl.clone())
            .chain(outputs.iter().map(|o| BindingDecl {
                unit: o.unit,
                read_only: false,
            }))
            .collect(),
        sources,
        outputs,
        constants: constants.len(),
        staged_sources,
        staged_outputs,
        stage_len,
        placed: geometry.placed,
    };
    let wgsl: Arc<str> = Arc::from(wgsl_gen::generate(&layout, body));

    let mut params = vec![[0u32; 4]; layout.param_len()];
    // `rows`, `rows + lo` and `threads` fit in u32: the caller checked the length, and a
    // placed dispatch covers at most one more block.
    let end = u32::try_from(rows + lo).map_err(|_| overflow(0))?;
    params[0] = [end, threads as u32, lo as u32, 0];
    for (i, base) in bases.iter().enumerate() {
        params[1 + i / 4][i % 4] = *base;
    }
    if geometry.placed {
        for (o, target) in targets.iter().enumerate() {
            params[layout.output_base() + o / 4][o % 4] =
                u32::try_from(target.base).map_err(|_| overflow(o))?;
        }
    }
    for (j, c) in constants.iter().enumerate() {
        params[layout.constant_base() + j] = *c;
    }
    let params: Vec<u32> = params.into_iter().flatten().collect();

    let storage: Vec<Binding<'_>> = bindings
        .iter()
        .map(|b| Binding {
            buffer: b.buffer,
            start: b.start,
            size: b.size(),
        })
        .chain(targets.iter().map(|t| Binding {
            buffer: t.buffer,
            start: t.start,
            size: t.size,
        }))
        .collect();
    let kernel = Kernel {
        op,
        wgsl,
        workgroup_size,
        rows_per_thread: g_rows,
    };
    kernel.dispatch(
        ops,
        &params,
        &storage,
        threads.div_ceil(u64::from(workgroup_size)),
    )
}
