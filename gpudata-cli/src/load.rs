//! `gpudata load FILE`: streams a Parquet or Arrow IPC file onto the best adapter under a
//! conversion policy, with a progress bar, and prints rows, GPU bytes and throughput.

use std::fmt::Write as _;

use gpudata::arrow::convert::Conversion;
use gpudata::arrow::stream::{CancelToken, IngestOptions};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::file::Opened;
use crate::policy::FileArgs;

/// The `load` subcommand's options.
#[derive(Clone, Debug, clap::Args)]
pub struct LoadArgs {
    /// The file and its conversion policy.
    #[command(flatten)]
    pub file: FileArgs,
    /// Rows per GPU batch (default: one GPU batch per record batch the file yields).
    #[arg(long)]
    pub batch_rows: Option<usize>,
    /// Record batches read ahead of the upload, at most.
    #[arg(long, default_value_t = 2)]
    pub in_flight: usize,
    /// Draw no progress bar (it is drawn on stderr only when stderr is a terminal).
    #[arg(long)]
    pub quiet: bool,
}

fn megabytes(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// Loads the file and renders the summary.
///
/// # Errors
/// No adapter, or the ingest's error, as one line.
pub fn run(args: &LoadArgs) -> Result<String, String> {
    let opened = Opened::new(&args.file.file, args.file.columns.as_deref())?;
    let gpu = gpudata::Gpu::headless().map_err(|e| format!("no gpu adapter: {e}"))?;
    let options = IngestOptions {
        conversions: args.file.conversions(),
        batch_rows: args.batch_rows,
        in_flight: args.in_flight,
        usage: None,
    };
    let target = if args.quiet {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    };
    let bar = match opened.rows {
        Some(rows) => ProgressBar::with_draw_target(Some(rows), target).with_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} rows {per_sec} {elapsed_precise} eta {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        None => ProgressBar::with_draw_target(None, target),
    };
    let cancel = CancelToken::new();
    let ingested = opened.ingest(
        &gpu,
        &options,
        |progress| bar.set_position(progress.rows),
        &cancel,
    );
    bar.finish_and_clear();
    let ingested = ingested?;
    let p = ingested.progress;
    let seconds = p.elapsed.as_secs_f64().max(1e-9);
    let carried = ingested
        .report
        .iter()
        .filter(|r| r.conversion != Conversion::Skip)
        .count();
    let skipped: Vec<String> = ingested
        .report
        .iter()
        .filter(|r| r.conversion == Conversion::Skip)
        .map(|r| format!("{} ({})", r.column, r.reason))
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "file: {} ({})",
        opened.path.display(),
        opened.kind.name()
    );
    let _ = writeln!(out, "rows: {}", p.rows);
    let _ = writeln!(
        out,
        "columns: {carried} carried, {} left out",
        skipped.len()
    );
    for s in &skipped {
        let _ = writeln!(out, "left out: {s}");
    }
    let _ = writeln!(out, "gpu batches: {}", p.gpu_batches);
    let _ = writeln!(
        out,
        "gpu bytes: {} ({:.1} MB)",
        p.gpu_bytes,
        megabytes(p.gpu_bytes)
    );
    let _ = writeln!(out, "time: {seconds:.3} s");
    let _ = writeln!(
        out,
        "throughput: {:.1} MB/s of gpu data, {:.2} M rows/s",
        megabytes(p.gpu_bytes) / seconds,
        p.rows as f64 / seconds / 1e6
    );
    let _ = writeln!(out, "adapter: {}", gpu.adapter_summary());
    ingested.table.destroy();
    Ok(out)
}

/// The whole subcommand: the summary on `stdout`, or one error line on `stderr` and status 1.
pub fn main_with(
    args: &LoadArgs,
    stdout: &mut dyn std::io::Write,
    stderr: &mut dyn std::io::Write,
) -> u8 {
    crate::output::finish(run(args), stdout, stderr)
}
