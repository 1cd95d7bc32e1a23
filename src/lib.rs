//! Workspace-level integration tests, examples and benchmarks of `gpudata` live in `tests/`,
//! `examples/` and `benches/`; this library holds the small pieces they share.

#[cfg(feature = "parquet")]
pub mod flights;
pub mod render;

/// The README's Rust examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The "from wgpu" guide's Rust examples (`docs/from-wgpu.md`), compiled and run as doctests.
#[doc = include_str!("../docs/from-wgpu.md")]
#[cfg(doctest)]
pub struct FromWgpuGuideDoctests;
