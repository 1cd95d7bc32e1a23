//! `ingestbench`: a Parquet file to a GPU table, end to end, against arrow-rs reading the same
//! file into memory alone (the floor), for `BENCHMARKS.md`.
//!
//! ```text
//! cargo build --release --bin ingestbench --features parquet
//! target/release/ingestbench [--iters N] [--batch-size ROWS] [--upload-threads N] [--only-ingest] FILE.parquet
//! ```
//!
//! Each case runs once to warm up, then `N` times (default 5); the table gives the median.
//! Cases: arrow-rs's reader alone, on one thread and with one thread per row group (up to the
//! cores); arrow-rs's reader plus gpudata's `auto` conversions on the host (no upload), on one
//! thread and on one thread per row group, with string columns read as Parquet dictionaries as
//! `ingest_parquet` reads them (the floor of decode plus conversion); gpudata's upload of the
//! converted batches alone (the upload's floor), on one thread and on as many as the
//! parallel readers (each uploading its share of the batches); gpudata's
//! `ingest_parquet` under the `auto` policy (decode, convert, upload, GPU
//! table) with whole row groups on 1, 2, 4 and 8 threads and on one thread per row group (up to
//! the cores), with the default options (all cores, each decoding one range of the file's rows
//! where the file has an offset index), then on all cores with each row group decoded in 2, 4 and 8 parts
//! (`ParquetOptions::row_group_parts`), and with the default parts on half, three quarters and
//! all but two of the cores. `--batch-size` sets the ingest's decoded batch rows
//! (`ParquetOptions::batch_size`; default `DEFAULT_PARQUET_BATCH_ROWS`), `--upload-threads` the
//! threads that upload for the decoding workers (`ParquetOptions::upload_threads`; default: the
//! cores the workers leave), `--only-ingest` runs
//! arrow-rs's parallel read (the anchor) and the ingests only.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arrow_array::RecordBatchReader;
use arrow_schema::DataType;
use gpudata::Gpu;
use gpudata::arrow::convert::{ConversionPlan, Conversions};
use gpudata::arrow::parquet::{
    DEFAULT_PARQUET_BATCH_ROWS, ParquetOptions, ParquetSource, ingest_parquet,
};
use gpudata::arrow::stream::{CancelToken, IngestOptions};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// arrow-rs decoding row groups `groups` of `path` into memory; returns rows and bytes.
fn arrow_read(path: &Path, groups: Vec<usize>) -> Result<(u64, u64)> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path)?)?
        .with_row_groups(groups)
        .with_batch_size(DEFAULT_PARQUET_BATCH_ROWS)
        .build()?;
    let mut rows = 0;
    let mut bytes = 0;
    for batch in reader {
        let batch = batch?;
        rows += batch.num_rows() as u64;
        bytes += batch.get_array_memory_size() as u64;
    }
    Ok((rows, bytes))
}

fn arrow_read_parallel(path: &Path, groups: usize, threads: usize) -> Result<(u64, u64)> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| scope.spawn(move || arrow_read(path, (t..groups).step_by(threads).collect())))
            .collect();
        let mut total = (0, 0);
        for h in handles {
            let (r, b) = h.join().map_err(|_| "a reader thread panicked")??;
            total = (total.0 + r, total.1 + b);
        }
        Ok(total)
    })
}

/// arrow-rs decoding row groups `groups` (strings as dictionaries, as `ingest_parquet` reads
/// them) and gpudata's `auto` conversions of each batch on the host, nothing uploaded: what
/// the ingest costs before the GPU.
fn convert_only(path: &Path, groups: Vec<usize>) -> Result<u64> {
    let mut source = ParquetSource::open(path, None)?;
    // Under `auto` every string column becomes category ids.
    let text: Vec<String> = source
        .schema()
        .fields()
        .iter()
        .filter(|f| matches!(f.data_type(), DataType::Utf8 | DataType::LargeUtf8))
        .map(|f| f.name().clone())
        .collect();
    let schema = source
        .read_text_as_dictionaries(&text)
        .unwrap_or_else(|| source.schema().clone());
    let reader = source.row_group_reader(groups, DEFAULT_PARQUET_BATCH_ROWS)?;
    let mut plan = ConversionPlan::new(schema, Conversions::auto())?;
    let mut rows = 0;
    for batch in reader {
        rows += plan.convert(&batch?)?.num_rows() as u64;
    }
    Ok(rows)
}

/// `convert_only` on `threads` threads, each decoding its row groups (`t`, `t + threads`, ...)
/// and converting them with a plan of its own: the parallel floor of decode plus conversion.
fn convert_parallel(path: &Path, groups: usize, threads: usize) -> Result<u64> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || convert_only(path, (t..groups).step_by(threads).collect()))
            })
            .collect();
        let mut rows = 0;
        for h in handles {
            rows += h.join().map_err(|_| "a converting thread panicked")??;
        }
        Ok(rows)
    })
}

/// Every batch of `path` decoded and converted under `auto`, kept in memory, with the plan's
/// upload options: what the upload alone takes.
fn converted_batches(
    path: &Path,
) -> Result<(Vec<arrow_array::RecordBatch>, gpudata::arrow::BatchOptions)> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path)?)?
        .with_batch_size(DEFAULT_PARQUET_BATCH_ROWS)
        .build()?;
    let mut plan = ConversionPlan::new(reader.schema(), Conversions::auto())?;
    let mut batches = Vec::new();
    for batch in reader {
        batches.push(plan.convert(&batch?)?);
    }
    Ok((batches, plan.batch_options()))
}

/// `batches` uploaded as GPU batches on `threads` threads (thread `t` uploading batches `t`,
/// `t + threads`, ...), then destroyed: the upload's parallel floor.
fn upload_parallel(
    gpu: &Gpu,
    batches: &[arrow_array::RecordBatch],
    options: &gpudata::arrow::BatchOptions,
    threads: usize,
) -> Result<u64> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || -> Result<Vec<gpudata::GpuRecordBatch>> {
                    let mut uploaded = Vec::new();
                    for batch in batches.iter().skip(t).step_by(threads) {
                        uploaded.push(gpudata::arrow::record_batch_to_gpu(gpu, batch, options)?.0);
                    }
                    Ok(uploaded)
                })
            })
            .collect();
        let mut uploaded = Vec::new();
        for h in handles {
            uploaded.extend(h.join().map_err(|_| "an uploading thread panicked")??);
        }
        let rows = uploaded.iter().map(gpudata::GpuRecordBatch::num_rows).sum();
        uploaded
            .into_iter()
            .for_each(gpudata::GpuRecordBatch::destroy);
        Ok(rows)
    })
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn time(iters: usize, mut f: impl FnMut() -> Result<u64>) -> Result<(Duration, u64)> {
    let rows = f()?;
    let mut times = Vec::with_capacity(iters);
    for _ in 0..iters {
        let start = Instant::now();
        f()?;
        times.push(start.elapsed());
    }
    Ok((median(times), rows))
}

/// The host floors: decode plus conversion on one thread and on `threads`, and the upload of
/// the converted batches alone on `threads` and on one.
fn host_floors(
    gpu: &Gpu,
    path: &Path,
    groups: usize,
    threads: usize,
    iters: usize,
    row: &mut impl FnMut(&str, usize, (Duration, u64)),
) -> Result<()> {
    row(
        "arrow-rs read + gpudata conversions (host, no upload)",
        1,
        time(iters, || convert_only(path, (0..groups).collect()))?,
    );
    row(
        "arrow-rs read + gpudata conversions (host, no upload)",
        threads,
        time(iters, || convert_parallel(path, groups, threads))?,
    );
    let (batches, batch_options) = converted_batches(path)?;
    if let Some(first) = batches.first() {
        let schema = first.schema();
        row(
            "gpudata upload of the converted batches alone (no decode, no conversion)",
            threads,
            time(iters, || {
                upload_parallel(gpu, &batches, &batch_options, threads)
            })?,
        );
        row(
            "gpudata upload of the converted batches alone (no decode, no conversion)",
            1,
            time(iters, || {
                let (table, _) = gpudata::arrow::record_batches_to_gpu_table(
                    gpu,
                    &schema,
                    &batches,
                    &batch_options,
                )?;
                let rows = table.num_rows();
                table.destroy();
                Ok(rows)
            })?,
        );
    }
    Ok(())
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let mut iters = 5;
    let mut path = None;
    let mut batch_size = 0;
    let mut only_ingest = false;
    let mut upload_threads = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--iters" => iters = args.next().ok_or("--iters needs a value")?.parse()?,
            "--batch-size" => {
                batch_size = args.next().ok_or("--batch-size needs a value")?.parse()?;
            }
            "--only-ingest" => only_ingest = true,
            "--upload-threads" => {
                let n = args.next().ok_or("--upload-threads needs a value")?;
                upload_threads = Some(n.parse()?);
            }
            _ => path = Some(PathBuf::from(arg)),
        }
    }
    let path = path
        .ok_or("usage: ingestbench [--iters N] [--batch-size ROWS] [--upload-threads N] [--only-ingest] FILE.parquet")?;
    let file_bytes = std::fs::metadata(&path)?.len();
    let groups = ParquetRecordBatchReaderBuilder::try_new(File::open(&path)?)?
        .metadata()
        .num_row_groups();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = cores.min(groups).max(1);
    let page_index = ParquetSource::open(&path, None)?.has_offset_index();
    let gpu = Gpu::headless()?;
    println!(
        "file: {} ({file_bytes} bytes, {groups} row groups, offset index: {})",
        path.display(),
        if page_index { "yes" } else { "no" }
    );
    println!("adapter: {}", gpu.adapter_summary());
    println!("cores: {cores}; iterations: {iters} (median)");
    println!();
    println!("| case | threads | median | rows/s | file MB/s | vs the first row |");
    println!("|---|---|---|---|---|---|");
    let mut floor = None;
    let mut row = |name: &str, t: usize, (d, rows): (Duration, u64)| {
        let s = d.as_secs_f64();
        let base = *floor.get_or_insert(s);
        println!(
            "| {name} | {t} | {:.1} ms | {:.1} M | {:.0} | {:.2}x |",
            s * 1e3,
            rows as f64 / s / 1e6,
            file_bytes as f64 / s / 1e6,
            s / base
        );
    };
    if !only_ingest {
        row(
            "arrow-rs read into memory",
            1,
            time(iters, || Ok(arrow_read(&path, (0..groups).collect())?.0))?,
        );
    }
    row(
        "arrow-rs read into memory",
        threads,
        time(iters, || Ok(arrow_read_parallel(&path, groups, threads)?.0))?,
    );
    if !only_ingest {
        host_floors(&gpu, &path, groups, threads, iters, &mut row)?;
    }
    let mut sweep: Vec<usize> = [1, 2, 4, 8, threads]
        .into_iter()
        .filter(|t| *t <= threads)
        .collect();
    sweep.dedup();
    // Whole row groups on 1, 2, 4, 8 and one thread per row group; then the defaults (all
    // cores, row groups cut so that every core has a unit); then all cores with row groups cut
    // into 2, 4 and 8 parts (finer work units).
    // Last, the default parts (one range of rows per thread) on fewer threads than cores.
    let ranges: Vec<(usize, usize)> = [cores / 2, cores * 3 / 4, cores.saturating_sub(2)]
        .into_iter()
        .filter(|&t| t > 0 && t < cores)
        .map(|t| (t, 0))
        .collect();
    let runs = sweep
        .into_iter()
        .map(|t| (t, 1))
        .chain([(0, 0)])
        .chain([2, 4, 8].map(|parts| (cores.max(1), parts)))
        .chain(ranges);
    for (t, parts) in runs {
        let parquet = ParquetOptions {
            threads: t,
            row_group_parts: parts,
            batch_size,
            upload_threads,
            ..ParquetOptions::default()
        };
        let mut gpu_bytes = 0;
        let measured = time(iters, || {
            let ingested = ingest_parquet(
                &gpu,
                &path,
                &IngestOptions::default(),
                &parquet,
                |_| {},
                &CancelToken::new(),
            )?;
            gpu_bytes = ingested.progress.gpu_bytes;
            let rows = ingested.progress.rows;
            ingested.table.destroy();
            Ok(rows)
        })?;
        let label = match (t, parts) {
            (0, 0) => format!(
                "gpudata ingest_parquet, auto, default threads and parts ({gpu_bytes} gpu bytes)"
            ),
            (_, 0) => "gpudata ingest_parquet, auto, default parts".to_owned(),
            (_, 1) => "gpudata ingest_parquet, auto, whole row groups".to_owned(),
            (_, n) => format!("gpudata ingest_parquet, auto, row groups in {n} parts"),
        };
        row(&label, if t == 0 { cores } else { t }, measured);
    }
    Ok(())
}
