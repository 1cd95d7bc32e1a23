//! What every test binary shares: the device and limited devices (`device`), a deterministic
//! random number generator (`random`), shaders and pipelines that probe what the device sees
//! (`probe`), little-endian byte helpers (`bytes`), the glam camera fixture (`glam_camera`, feature `glam`), and the real data set fetched once (`vega`). Each `tests/<area>/main.rs` includes it as
//! `pub mod support` (a binary uses only part of it); the helpers are re-exported here, so a test
//! names them `support::gpu()`.

pub mod bytes;
pub mod device;
pub mod faults;
#[cfg(feature = "glam")]
pub mod glam_camera;
pub mod probe;
pub mod random;
pub mod vega;

pub use bytes::*;
pub use device::*;
pub use faults::*;
pub use probe::*;
pub use random::*;
pub use vega::*;
