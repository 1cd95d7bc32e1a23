//! The row transform: the one WGSL generator ([`wgsl_gen`]) that operations and table
//! re-layouts are generated in, from a kernel's layout ([`kernel_layout`]) and the operation's
//! row code ([`body`]); its planner ([`plan`]), which groups the views into sources
//! ([`grouping`]), lays out and splits their rows ([`geometry`]), stages wide rows through
//! workgroup memory ([`staging`]) and generates and binds each dispatch ([`kernel`]); the
//! byte-moving row code ([`moves`]) and the table re-layouts recorded as placed plans of it
//! ([`relayout`]), their whole-block copies ([`block`], [`block_wgsl`]) and their outputs made without wgpu's
//! zero-fill ([`fresh`]), recorded as commands ([`recording`]).

mod block;
mod block_wgsl;
pub(crate) mod body;
mod fresh;
mod geometry;
mod grouping;
mod kernel;
mod kernel_layout;
pub(crate) mod moves;
pub(crate) mod plan;
mod recording;
pub(crate) mod relayout;
mod staging;
mod wgsl_gen;
