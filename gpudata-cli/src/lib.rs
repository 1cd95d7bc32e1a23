//! The `gpudata` command-line tool's subcommands, as library functions that take their arguments
//! and output streams, so tests can call them as well as run the binary.
//!
//! - [`layout`]: `gpudata layout [--layout packed|wgsl-storage] [--json] NAME:FORMAT...`, a runtime
//!   struct declaration laid out (offsets, lengths, padding, stride, or luma.gl's JSON), or with
//!   `--check SHADER.wgsl STRUCT` side by side with a WGSL struct.

pub mod layout;
