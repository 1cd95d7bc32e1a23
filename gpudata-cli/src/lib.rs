//! The `gpudata` command-line tool's subcommands, as library functions that take their arguments
//! and output streams, so tests can call them as well as run the binary.
//!
//! - [`layout`]: `gpudata layout [--layout packed|wgsl-storage] [--json] NAME:FORMAT...`, a runtime
//!   struct declaration laid out (offsets, lengths, padding, stride, or luma.gl's JSON), or with
//!   `--check SHADER.wgsl STRUCT` side by side with a WGSL struct;
//! - [`check`]: `gpudata check SHADER.wgsl STRUCT NAME:FORMAT...`, the same check as `layout
//!   --check`, as a subcommand of its own;
//! - [`inspect`]: `gpudata inspect FILE`, what a Parquet or Arrow IPC file's columns become on the
//!   GPU under a conversion policy, and why;
//! - [`load`]: `gpudata load FILE`, the file streamed onto the best adapter with a progress bar,
//!   and its rows, GPU bytes and throughput.

pub mod check;
pub mod file;
pub mod inspect;
pub mod layout;
pub mod load;
mod output;
pub mod policy;
