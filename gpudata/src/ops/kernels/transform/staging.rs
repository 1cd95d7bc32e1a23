//! What of a row-transform dispatch goes through workgroup memory: the coalescing that makes
//! wide rows fast, within the device's workgroup storage.

use super::grouping::SourceGroup;
use super::kernel_layout::{OutputDecl, SourceDecl, StagedOutput, StagedSource, pitch};
use crate::ops::kernels::Planner;

/// Which sources and outputs go through workgroup memory, where, and the array's length.
///
/// An invocation that reads or writes more than one `vec4<u32>` of a source or output does so at
/// a stride of `G × row bytes` from its neighbours, so each of its wide loads and stores covers
/// only part of the memory segments a warp touches. Staging makes the global side fully
/// coalesced: the workgroup stores an output's rows from workgroup memory in consecutive
/// `vec4<u32>`s ([`OpsConfig::stage_outputs`](crate::ops::OpsConfig::stage_outputs)), and, if asked,
/// loads a source's rows the same way (only when the views use at least half of each row).
/// Sources and outputs share one array (outputs reuse it after a barrier); what does not fit the
/// device's workgroup storage stays direct, smallest staged first.
#[allow(clippy::type_complexity)] // Three results of one decision.
pub(super) fn staging(
    ops: &Planner<'_>,
    groups: &[SourceGroup<'_>],
    sources: &[SourceDecl],
    outputs: &[OutputDecl],
    g64: u64,
) -> (Vec<Option<StagedSource>>, Vec<Option<StagedOutput>>, u64) {
    let mut staged_sources = vec![None; sources.len()];
    let mut staged_outputs = vec![None; outputs.len()];
    let config = ops.config();
    let wg = u64::from(ops.workgroup_size());
    let budget = u64::from(ops.device().limits().max_compute_workgroup_storage_size) / 16;
    let mut candidates: Vec<(usize, u64, u64, u64)> = sources
        .iter()
        .zip(groups)
        .enumerate()
        .filter_map(|(s, (source, group))| {
            let chunks = g64 * source.stride / 16;
            let wanted = config.stage_sources && source.unit == 16 && chunks >= 2;
            (wanted && 2 * group.used >= source.stride).then(|| {
                let span = (source.phase + g64 * source.stride).div_ceil(16);
                let len = (wg - 1) * chunks + span;
                // Elements of the padded array the run occupies.
                let room = len.div_ceil(chunks) * pitch(chunks);
                (s, chunks, len, room)
            })
        })
        .collect();
    candidates.sort_by_key(|c| c.3);
    let mut used = 0;
    for (s, chunks, len, room) in candidates {
        if used + room <= budget {
            staged_sources[s] = Some(StagedSource {
                offset: used,
                chunks,
                len,
            });
            used += room;
        }
    }
    let mut candidates: Vec<(usize, u64)> = outputs
        .iter()
        .enumerate()
        .filter_map(|(o, output)| {
            let chunks = g64 * output.row_stride / 16;
            (config.stage_outputs && output.unit == 16 && chunks >= 2).then_some((o, chunks))
        })
        .collect();
    candidates.sort_by_key(|c| c.1);
    let mut used_out = 0;
    for (o, chunks) in candidates {
        let room = wg * pitch(chunks);
        if used_out + room <= budget {
            staged_outputs[o] = Some(StagedOutput {
                offset: used_out,
                chunks,
            });
            used_out += room;
        }
    }
    (staged_sources, staged_outputs, used.max(used_out))
}
