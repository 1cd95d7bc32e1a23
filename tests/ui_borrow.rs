//! Compile-time proofs of decision 4 (ownership by the borrow checker): views and children
//! borrow their data or buffer, so they cannot outlive it, survive its `destroy`, or watch an
//! ownership transfer; typed children take only their own struct's markers. Each case in
//! `tests/ui/fail/borrow/` fails with the error pinned in its `.stderr` (Rust 1.95).

#[test]
fn borrows() {
    trybuild::TestCases::new().compile_fail("tests/ui/fail/borrow/*.rs");
}
