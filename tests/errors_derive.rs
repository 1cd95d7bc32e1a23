//! The error catalogue (`docs/ERRORS.md`): `#[derive(GpuStruct)]` compile errors that the
//! `tests/ui/fail/` suite does not pin, each case failing with the message in its `.stderr`
//! (Rust 1.95).

#[test]
fn derive_errors() {
    trybuild::TestCases::new().compile_fail("tests/ui/errors/*.rs");
}
