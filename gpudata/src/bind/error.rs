//! [`BindError`]: what can go wrong making a derived bind group's layout, its bind group, or a
//! pipeline layout of several groups.

use crate::device::GpuError;

/// A bind group layout, bind group or pipeline layout that could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BindError {
    /// The device refused (wgpu's validation or out-of-memory error, caught by an error scope),
    /// or a resource cannot be bound as its entry says (a missing usage, an unaligned offset).
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// A pipeline layout lists a bind group at another position than the `@group` it declares.
    #[error(
        "bind group `{bind_group}` declares @group({group}) but is listed at position {position} of the pipeline layout; list the groups in @group order"
    )]
    GroupOrder {
        /// The bind group struct.
        bind_group: &'static str,
        /// Its `group = N`.
        group: u32,
        /// Where the pipeline layout lists it.
        position: u32,
    },
}
