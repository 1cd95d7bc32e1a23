//! `gpudata`: see what gpudata will do before writing code.
//!
//! ```text
//! gpudata layout [--layout packed|wgsl-storage] [--json] [--check SHADER.wgsl STRUCT] NAME:FORMAT...
//! gpudata check [--layout packed|wgsl-storage|wgsl-uniform] SHADER.wgsl STRUCT NAME:FORMAT...
//! gpudata inspect [--columns A,B] [--convert COLUMN=CONVERSION]... [--masks POLICY] FILE
//! gpudata load [--columns A,B] [--convert COLUMN=CONVERSION]... [--batch-rows N] FILE
//! ```
//!
//! Every subcommand prints its result on stdout; an error is one line on stderr and exit status 1.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// gpudata's command-line tool.
#[derive(Debug, Parser)]
#[command(name = "gpudata", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Lays out a runtime struct declaration: offsets, lengths, padding and stride (`--json` for
    /// luma.gl's `GPUDataStructFormat` JSON; `--check SHADER.wgsl STRUCT` beside a WGSL struct,
    /// exit status 1 when they disagree).
    ///
    /// The arguments go to the layout parser as they are (it owns their error messages).
    #[command(
        disable_help_flag = true,
        override_usage = "gpudata layout [--layout packed|wgsl-storage] [--json] [--check SHADER.wgsl STRUCT] NAME:FORMAT..."
    )]
    Layout {
        /// `--layout packed|wgsl-storage` (default `wgsl-storage`), `--json`, then `NAME:FORMAT`
        /// fields in order, for example `tag:uint8 color:unorm8x4 position:float32x3`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<String>,
    },
    /// Checks runtime rows against a WGSL struct: the two layouts side by side, exit status 1
    /// (with every mismatch) when they disagree; the same check as `layout --check`.
    #[command(
        disable_help_flag = true,
        override_usage = "gpudata check [--layout packed|wgsl-storage|wgsl-uniform] SHADER.wgsl STRUCT NAME:FORMAT..."
    )]
    Check {
        /// `--layout L` (default `wgsl-storage`), the WGSL file, the struct's name, then
        /// `NAME:FORMAT` fields in order.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<String>,
    },
    /// Shows what a Parquet or Arrow IPC file's columns become on the GPU under a conversion
    /// policy (`auto` unless `--convert` says otherwise), bytes per row, and what cannot be
    /// carried and why.
    Inspect(gpudata_cli::inspect::InspectArgs),
    /// Streams a Parquet or Arrow IPC file onto the best adapter with a progress bar, and prints
    /// rows, GPU bytes and throughput.
    Load(gpudata_cli::load::LoadArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    let code = match cli.command {
        Command::Layout { args } => gpudata_cli::layout::main_with(
            args,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        ),
        Command::Check { args } => gpudata_cli::check::main_with(
            args,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        ),
        Command::Inspect(args) => gpudata_cli::inspect::main_with(
            &args,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        ),
        Command::Load(args) => gpudata_cli::load::main_with(
            &args,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        ),
    };
    ExitCode::from(code)
}

/// `--help` and `--version` print and succeed; any other command-line error is one line on stderr
/// (clap's first line, without its usage block) and status 1, like every other error of the tool.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            // Nothing more can be done when stdout is gone.
            let _ = e.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            eprintln!("error: no subcommand given (see `gpudata --help`)");
            ExitCode::from(1)
        }
        _ => {
            let rendered = e.render().to_string();
            let line = rendered
                .lines()
                .next()
                .unwrap_or("error: invalid arguments");
            eprintln!("{line} (see `gpudata --help`)");
            ExitCode::from(1)
        }
    }
}
