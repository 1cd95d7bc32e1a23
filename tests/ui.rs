//! Compile-time behaviour, one trybuild run over every case under `tests/ui` (Rust 1.95 pins the
//! `.stderr` files):
//! - `pass/` compiles;
//! - every `fail/<category>/` case fails with the message pinned in its `.stderr`; among them
//!   `fail/borrow/`, the proofs of decision 4 (ownership by the borrow checker): views and
//!   children borrow their data or buffer, so they cannot outlive it, survive its `destroy`, or
//!   watch an ownership transfer; typed children take only their own struct's markers;
//! - `errors/`: the `#[derive(GpuStruct)]` compile errors of the error catalogue
//!   (`docs/ERRORS.md`) that `fail/` does not pin; among them `uniform_layout_hand_impl.rs`, a
//!   post-monomorphization `const` assertion of `GpuUniform::new` that only `cargo build` reports:
//!   trybuild builds (not checks) because `pass/` cases are in the same run;
//! - `shader/`: the compile-time shader check (`#[gpu(shader = ...)]`) against
//!   `tests/ui/shader/*.wgsl`: a mismatch, missing members, nested types, globals, a missing
//!   struct, a WGSL parse error, a missing file, a vertex entry point mismatch, whole vertex
//!   states `check_vertex_set!` refuses (`vertex_set.rs`), attribute misuse,
//!   an `atomic<f32>` member (no WGSL atomic stores a float), and a shader past the bounds naga's
//!   reader is held to (`deep_expression.rs`, reading `tests/shaders/deep_sum.wgsl`).
//!   `bind_*.rs` are `#[derive(GpuBindGroup)]`'s compile-time check against `bind_group.wgsl`
//!   (a member moved, a wrong binding, address spaces and access, texture kinds, samplers, a
//!   used global no field binds), `filtering.wgsl` (wgpu's filtering rule over the texture and
//!   sampler pairs an entry point samples) and `examples/shadow/shadow.wgsl` (the shadow
//!   example's scene with three mistakes); `fail/bind/` its keys without a shader.
//!   Their WGSL paths name the files beside the cases: the crate trybuild generates has no such
//!   file, so the macro finds them relative to the case's source file, wherever the target
//!   directory is.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*/*.rs");
    t.compile_fail("tests/ui/errors/*.rs");
    t.compile_fail("tests/ui/shader/*.rs");
}
