//! The `gpudata` tool: each subcommand through its library function and through the binary
//! (`assert_cmd`), one module per subcommand.

mod layout;
mod layout_check;

/// The `gpudata` binary Cargo built for these tests.
pub fn gpudata() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("gpudata")
        .expect("cargo builds the gpudata binary for its tests")
}
