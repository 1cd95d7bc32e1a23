//! `gpudata inspect FILE`: a Parquet or Arrow IPC file's columns, what each becomes on the GPU
//! under a conversion policy and why, bytes per row, and what cannot be carried.

use std::fmt::Write as _;

use gpudata::arrow::convert::{ColumnReport, Conversion, ConversionPlan};

use crate::file::Opened;
use crate::policy::FileArgs;

/// The `inspect` subcommand's options.
#[derive(Clone, Debug, clap::Args)]
pub struct InspectArgs {
    /// The file and its conversion policy.
    #[command(flatten)]
    pub file: FileArgs,
}

fn cell(report: &ColumnReport) -> [String; 6] {
    let format = report
        .gpu_format
        .map_or_else(|| "-".to_owned(), |f| f.to_string());
    let bytes = match (report.conversion, report.bytes_per_row) {
        (Conversion::Skip, _) => "-".to_owned(),
        (_, Some(b)) => b.to_string(),
        (_, None) => "variable".to_owned(),
    };
    let mut note = if report.conversion == Conversion::Skip {
        format!("cannot be carried: {}", report.reason)
    } else {
        report.reason.clone()
    };
    if let Some(offsets) = &report.offsets {
        let _ = write!(
            note,
            "; byte ranges `{offsets}` (uint32x2, 8 bytes per row)"
        );
    }
    if let Some(mask) = &report.mask {
        let _ = write!(note, "; validity mask `{mask}` (uint32, 4 bytes per row)");
    }
    [
        report.column.clone(),
        report.arrow_type.to_string(),
        report.conversion.to_string(),
        format,
        bytes,
        note,
    ]
}

/// Renders the inspection of an opened file: a header line, one row per column, a total line.
///
/// # Errors
/// The policy's or the first batch's conversion error, as one line.
pub fn render(opened: &Opened, args: &InspectArgs) -> Result<String, String> {
    let mut plan = ConversionPlan::new(opened.schema.clone(), args.file.conversions())
        .map_err(|e| e.to_string())?;
    // `auto` narrows 64-bit integers by the whole file's range, as `gpudata load` does.
    for (column, min, max) in opened.integer_ranges() {
        plan.set_value_range(&column, min, max);
    }
    match opened.first_batch()? {
        Some(batch) => {
            plan.convert(&batch).map_err(|e| e.to_string())?;
        }
        None => plan.resolve_without_data().map_err(|e| e.to_string())?,
    }
    let report = plan.report();
    let mut out = String::new();
    let rows = opened.rows.map_or_else(
        || "rows unknown until read".to_owned(),
        |r| format!("{r} rows"),
    );
    let parts = match (opened.kind, opened.parts) {
        (crate::file::FileKind::Parquet, Some(n)) => format!(", {n} row groups"),
        (_, Some(n)) => format!(", {n} record batches"),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "{}: {}, {rows}{parts}, {} columns",
        opened.path.display(),
        opened.kind.name(),
        report.len()
    );
    let header = [
        "column",
        "arrow type",
        "conversion",
        "gpu format",
        "bytes/row",
        "note",
    ]
    .map(str::to_owned);
    let rows_cells: Vec<[String; 6]> = report.iter().map(cell).collect();
    let mut widths = [0_usize; 5];
    for row in std::iter::once(&header).chain(&rows_cells) {
        for (w, c) in widths.iter_mut().zip(row.iter()) {
            *w = (*w).max(c.chars().count());
        }
    }
    for row in std::iter::once(&header).chain(&rows_cells) {
        let mut line = String::new();
        for (i, c) in row.iter().enumerate() {
            if i < 5 {
                let pad = widths[i] - c.chars().count();
                let _ = write!(line, "{c}{}  ", " ".repeat(pad));
            } else {
                line.push_str(c);
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let carried: Vec<&ColumnReport> = report
        .iter()
        .filter(|r| r.conversion != Conversion::Skip)
        .collect();
    let skipped = report.len() - carried.len();
    let fixed: u64 = carried
        .iter()
        .map(|r| {
            r.bytes_per_row.unwrap_or(0)
                + if r.mask.is_some() { 4 } else { 0 }
                + if r.offsets.is_some() { 8 } else { 0 }
        })
        .sum();
    let variable = carried.iter().any(|r| r.bytes_per_row.is_none());
    let _ = write!(
        out,
        "total: {} carried, {skipped} cannot be carried, {fixed} bytes per row{}",
        carried.len(),
        if variable {
            " plus variable-length values"
        } else {
            ""
        }
    );
    if let Some(rows) = opened.rows {
        let _ = write!(
            out,
            ", {} gpu bytes for {rows} rows",
            fixed.saturating_mul(rows)
        );
    }
    out.push('\n');
    Ok(out)
}

/// The whole subcommand: the inspection on `stdout`, or one error line on `stderr` and status 1.
pub fn main_with(
    args: &InspectArgs,
    stdout: &mut dyn std::io::Write,
    stderr: &mut dyn std::io::Write,
) -> u8 {
    let result = Opened::new(&args.file.file, args.file.columns.as_deref())
        .and_then(|opened| render(&opened, args));
    crate::output::finish(result, stdout, stderr)
}
