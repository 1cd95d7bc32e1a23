//! The binding and dispatch rules every kernel of the crate is split by: the largest storage
//! binding, storage-aligned binding starts, runs of rows of about equal size when one binding
//! cannot hold them all, and two-dimensional dispatch shapes. The row-transform planner
//! ([`plan`](super::transform::plan): operations and table re-layouts) and the selection kernels
//! ([`rows`](super::select::rows)) use these.

use crate::ops::OpError;

/// The largest storage binding a dispatch may use: the device's limit, capped below 4 GiB so
/// that every byte and element index the kernels compute fits a `u32`.
pub(crate) fn max_binding_size(limits: &wgpu::Limits) -> u64 {
    limits
        .max_storage_buffer_binding_size
        .min(u64::from(u32::MAX))
}

/// Checks that a kernel of `storage` storage bindings (and its uniform) fits `limits`.
///
/// # Errors
/// [`OpError::TooManyBindings`] naming the limit it exceeds.
pub(crate) fn check_binding_count(
    op: &'static str,
    limits: &wgpu::Limits,
    storage: u64,
) -> Result<(), OpError> {
    let per_stage = u64::from(limits.max_storage_buffers_per_shader_stage);
    if storage > per_stage {
        return Err(OpError::TooManyBindings {
            op,
            what: "storage buffers per shader stage",
            needed: storage,
            limit: per_stage,
        });
    }
    let per_group = u64::from(limits.max_bindings_per_bind_group);
    if storage + 1 > per_group {
        return Err(OpError::TooManyBindings {
            op,
            what: "bindings per bind group",
            needed: storage + 1,
            limit: per_group,
        });
    }
    Ok(())
}

/// The storage-bindable start at or before byte `offset` (`alignment` is the device's
/// `min_storage_buffer_offset_alignment`, or a multiple of it).
pub(crate) const fn binding_start(offset: u64, alignment: u64) -> u64 {
    offset / alignment * alignment
}

/// Rows `from..to` as `(first row, rows)` runs of at most `most` rows: as few runs as that
/// allows, of about equal size (whole `step`s each, the last one the rest) so that no dispatch
/// is a sliver. `most` is a multiple of `step` (at least one `step`).
pub(crate) fn even_runs(from: u64, to: u64, most: u64, step: u64) -> Vec<(u64, u64)> {
    let rows = to.saturating_sub(from);
    let runs = rows.div_ceil(most.max(1)).max(1);
    let step = step.max(1);
    let per = rows
        .div_ceil(runs)
        .div_ceil(step)
        .saturating_mul(step)
        .min(most)
        .max(1);
    let mut chunks = Vec::with_capacity(usize::try_from(rows.div_ceil(per)).unwrap_or(0));
    let mut first = from;
    while first < to {
        let n = per.min(to - first);
        chunks.push((first, n));
        first += n;
    }
    chunks
}

/// `workgroups` as a two-dimensional dispatch `(x, y)` with at most `max_dim` per dimension,
/// or `None` when they do not fit.
pub(crate) fn dispatch_shape(workgroups: u64, max_dim: u32) -> Option<(u32, u32)> {
    let x = workgroups.min(u64::from(max_dim));
    let y = workgroups.div_ceil(x.max(1));
    if y > u64::from(max_dim) {
        return None;
    }
    // Both at most `max_dim`, a u32.
    Some((x as u32, y as u32))
}

#[cfg(test)]
mod tests {
    use super::{dispatch_shape, even_runs};

    #[test]
    fn runs_are_even_and_cover_the_rows() {
        assert_eq!(even_runs(0, 10, 100, 1), [(0, 10)]);
        assert_eq!(even_runs(0, 10, 4, 1), [(0, 4), (4, 4), (8, 2)]);
        assert_eq!(even_runs(0, 9, 5, 1), [(0, 5), (5, 4)]);
        assert_eq!(even_runs(16, 80, 32, 16), [(16, 32), (48, 32)]);
        assert_eq!(even_runs(0, 100, 48, 16), [(0, 48), (48, 48), (96, 4)]);
    }

    #[test]
    fn dispatches_fold_into_two_dimensions() {
        assert_eq!(dispatch_shape(10, 16), Some((10, 1)));
        assert_eq!(dispatch_shape(17, 16), Some((16, 2)));
        assert_eq!(dispatch_shape(256, 16), Some((16, 16)));
        assert_eq!(dispatch_shape(257, 16), None);
    }
}
