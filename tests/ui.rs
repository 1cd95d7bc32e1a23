//! Compile-time behaviour of `#[derive(GpuStruct)]`: `pass/` compiles, and every `fail/<category>/`
//! case fails with the message pinned in its `.stderr` (Rust 1.95).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*/*.rs");
}
