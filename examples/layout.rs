//! The layout CLI: see a struct format's offsets, padding and stride before writing code.
//!
//! ```text
//! cargo run --example layout -- [--layout packed|wgsl-storage] [--json] NAME:FORMAT...
//! cargo run --example layout -- --layout packed tag:uint8 color:unorm8x4 position:float32x3
//! ```
//!
//! Prints a table by default and luma.gl's `GPUDataStructFormat` JSON with `--json`. Invalid input
//! exits with status 1 and the error on stderr, as does output that cannot be written (a full
//! disk); a closed pipe (`| head -c0`) ends it quietly with status 0.

use std::process::ExitCode;

use gpudata_suite::layout_cli::main_with;

fn main() -> ExitCode {
    let code = main_with(
        std::env::args().skip(1),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    ExitCode::from(code)
}
