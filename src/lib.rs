//! Workspace-level tests, examples and benchmarks of gpudata live in `tests/`, `examples/` and `benches/`.
