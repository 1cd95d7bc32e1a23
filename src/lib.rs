//! Workspace-level integration tests, examples and benchmarks of `gpudata` live in `tests/`,
//! `examples/` and `benches/`; this library holds the small pieces they share.

pub mod layout_cli;

pub mod render;
