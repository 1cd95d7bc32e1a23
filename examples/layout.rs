//! The layout CLI: see a struct format's offsets, padding and stride before writing code.
//!
//! ```text
//! cargo run --example layout -- [--layout packed|wgsl-storage] [--json] NAME:FORMAT...
//! cargo run --example layout -- --layout packed tag:uint8 color:unorm8x4 position:float32x3
//! ```
//!
//! Prints a table by default and luma.gl's `GPUDataStructFormat` JSON with `--json`. Invalid input
//! exits with status 1 and the error on stderr.

use std::process::ExitCode;

use gpudata_suite::layout_cli::{parse_args, run};

fn main() -> ExitCode {
    match parse_args(std::env::args().skip(1)).and_then(run) {
        Ok(text) => {
            println!("{}", text.trim_end());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
