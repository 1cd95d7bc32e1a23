//! The transfer engine: host bytes staged into a buffer range ([`write_bytes`], [`Stager`] for
//! callers that encode in place), a buffer range read back into a `Vec` ([`read_range`]), and
//! waiting for submissions and mappings, blocking or async ([`WaitMode`]).

mod readback;
mod upload;
mod wait;

pub(crate) use readback::read_range;
pub use upload::STAGING_CHUNK_BYTES;
pub(crate) use upload::{Stager, write_bytes};
pub(crate) use wait::WaitMode;
