//! An Arrow IPC file through the GPU and back.
//!
//! ```console
//! $ cargo run --example arrow_roundtrip --features arrow -- IN.arrow OUT.arrow
//! ```
//!
//! Reads every record batch of `IN.arrow`, uploads every column it can carry to the GPU as one
//! `GpuTable` (one GPU batch per Arrow batch, one buffer per column), reads everything back into Arrow arrays
//! of the original types and writes them to `OUT.arrow`. Columns it cannot carry are listed with
//! the reason and left out. 64-bit columns travel as exact 32-bit word pairs. Exit code 0 when
//! every carried column comes back identical, 1 when one does not, 2 for usage or I/O errors and
//! for an input that is not a readable IPC file (a corrupted one included: `gpudata::arrow::
//! read_ipc_file` turns arrow-ipc's panics on corrupted files into errors).

use std::collections::BTreeMap;
use std::error::Error;
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_ipc::writer::FileWriter;
use arrow_schema::DataType;
use gpudata::Gpu;
use gpudata::arrow::{
    ArrowColumnSource, BatchOptions, ColumnOptions, IpcBatches, check_schemas, read_ipc_file,
    record_batches_from_gpu_table, record_batches_to_gpu_table,
};

/// What a run did.
#[derive(Debug, Default)]
pub struct Report {
    /// Record batches read.
    pub batches: usize,
    /// Rows read.
    pub rows: usize,
    /// Columns carried, with their GPU format.
    pub carried: Vec<(String, String)>,
    /// Columns left out, with the reason.
    pub left_out: Vec<(String, String)>,
    /// Carried columns that did not come back identical.
    pub mismatches: Vec<String>,
}

/// The exact 32-bit word format of 64-bit values, which have no default GPU format.
fn word_format(data_type: &DataType) -> Option<&'static str> {
    let (scalar, n) = match data_type {
        DataType::FixedSizeList(child, n) => (child.data_type(), *n),
        other => (other, 1),
    };
    match (scalar, n) {
        (DataType::Float64 | DataType::UInt64, 1) => Some("uint32x2"),
        (DataType::Float64 | DataType::UInt64, 2) => Some("uint32x4"),
        (DataType::Int64, 1) => Some("sint32x2"),
        (DataType::Int64, 2) => Some("sint32x4"),
        _ => None,
    }
}

/// Reads `input`, sends it through the GPU and writes `output`, logging to `log`.
///
/// # Errors
/// I/O and IPC errors, batches whose schemas differ, and GPU errors.
pub fn run(
    gpu: &Gpu,
    input: &Path,
    output: &Path,
    log: &mut dyn Write,
) -> Result<Report, Box<dyn Error>> {
    // gpudata's reader: a corrupted file is an error (exit code 2), also where arrow-ipc panics.
    let IpcBatches { schema, batches } = read_ipc_file(BufReader::new(File::open(input)?))?;
    check_schemas(&batches)?;

    // Column options: 64-bit values as exact words, everything else by default.
    let mut options = BatchOptions::new();
    for field in schema.fields() {
        if let Some(format) = word_format(field.data_type()) {
            options = options.column(field.name(), ColumnOptions::with_format(format.parse()?));
        }
    }
    // A column is carried only if every batch can carry it (a list column with nulls in one
    // batch is left out of all of them, so the output keeps one schema).
    let mut left_out: BTreeMap<String, String> = BTreeMap::new();
    for batch in &batches {
        for (index, field) in schema.fields().iter().enumerate() {
            let column_options = word_format(field.data_type())
                .map(|f| f.parse().map(ColumnOptions::with_format))
                .transpose()?
                .unwrap_or_default();
            if let Err(reason) =
                ArrowColumnSource::new(field, batch.column(index).as_ref(), &column_options)
            {
                left_out
                    .entry(field.name().clone())
                    .or_insert_with(|| reason.to_string());
            }
        }
    }
    let kept: Vec<usize> = (0..schema.fields().len())
        .filter(|i| !left_out.contains_key(schema.field(*i).name()))
        .collect();
    let kept_schema = Arc::new(schema.project(&kept)?);

    let mut report = Report {
        batches: batches.len(),
        rows: batches.iter().map(RecordBatch::num_rows).sum(),
        left_out: left_out.into_iter().collect(),
        ..Report::default()
    };
    let kept_batches = batches
        .iter()
        .map(|b| b.project(&kept))
        .collect::<Result<Vec<_>, _>>()?;
    // Every carried column of every batch to the GPU as one table (one GPU batch per Arrow
    // batch), then back.
    let (table, skipped) = record_batches_to_gpu_table(gpu, &kept_schema, &kept_batches, &options)?;
    if let Some(s) = skipped.first() {
        return Err(format!("column `{}` was left out: {}", s.column, s.reason).into());
    }
    report.carried = table
        .schema()
        .fields
        .iter()
        .map(|f| {
            let format = f
                .format
                .as_ref()
                .map_or_else(|| "rows".to_owned(), ToString::to_string);
            (f.name.clone(), format)
        })
        .collect();
    let back = record_batches_from_gpu_table(gpu, &table)?;
    let mut writer = FileWriter::try_new(File::create(output)?, &kept_schema)?;
    for (original, back) in kept_batches.iter().zip(&back) {
        for (index, field) in kept_schema.fields().iter().enumerate() {
            if back.column(index) != original.column(index)
                && !report.mismatches.contains(field.name())
            {
                report.mismatches.push(field.name().clone());
            }
        }
        writer.write(back)?;
    }
    if back.len() != kept_batches.len() {
        report.mismatches.push("(batch count)".to_owned());
    }
    writer.finish()?;
    table.destroy();

    writeln!(
        log,
        "{} batches, {} rows, on {}",
        report.batches,
        report.rows,
        gpu.adapter_summary()
    )?;
    for (name, format) in &report.carried {
        let verdict = if report.mismatches.contains(name) {
            "MISMATCH"
        } else {
            "ok"
        };
        writeln!(log, "carried  {name:<20} {format:<28} {verdict}")?;
    }
    for (name, reason) in &report.left_out {
        writeln!(log, "left out {name:<20} {reason}")?;
    }
    Ok(report)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        eprintln!("usage: arrow_roundtrip IN.arrow OUT.arrow");
        return ExitCode::from(2);
    };
    let gpu = match Gpu::headless() {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match run(
        &gpu,
        Path::new(input),
        Path::new(output),
        &mut std::io::stdout(),
    ) {
        Ok(report) if report.mismatches.is_empty() => ExitCode::SUCCESS,
        Ok(report) => {
            eprintln!(
                "columns that did not round-trip: {}",
                report.mismatches.join(", ")
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
