//! `gpubench`: bytes per second of gpudata's GPU operations next to the fastest WGSL copy kernel
//! and `copy_buffer_to_buffer`, measured in one run on one device.
//!
//! ```text
//! gpubench [--size-mib N] [--iters N] [--warmup N] [--ops a,b,...] [--variants]
//!          [--no-verify] [--json PATH] [--wgsl-dir DIR]
//! ```
//!
//! Every input is filled with random bits on the GPU. Each case runs `warmup` times, then
//! `iters` times, each in its own compute pass; with `TIMESTAMP_QUERY` the time of a case is the
//! median of the passes' GPU timestamps, otherwise the wall clock around one submission of all
//! iterations divided by their count. Bytes moved count every input value read once and every
//! output row written once. After timing, the first, middle and last 4096 rows of each
//! operation are read back and compared with the CPU reference (`--no-verify` skips that). The
//! case `add_f32_over_binding` ignores `--size-mib`: its inputs are twice the device's largest
//! storage binding, so the operation runs as several dispatches. The last group,
//! `decode_normalized`, ignores it too: one case per normalized format, decoding every 8- and
//! 16-bit pattern (every `unorm10-10-10-2` field value) through an operation kernel and
//! comparing every lane, not a sample, with the host codec. `big_sort_u32` runs only when
//! `--ops` names it: `--size-mib` of `uint32` keys larger than one storage binding, sorted.
//! `copy_3r1w` (a plain kernel reading three buffers and writing one), `fused_fma` (`a * b + c`
//! as one fused kernel) and `unfused_fma` (the same as `multiply` then `add`) count the same
//! bytes, three columns of `--size-mib` read and one written, so their bandwidths compare as
//! their times do.

#[path = "gpubench/aggregate.rs"]
mod aggregate;
#[path = "gpubench/cases.rs"]
mod cases;
#[path = "gpubench/fused.rs"]
mod fused;
#[path = "gpubench/kernels.rs"]
mod kernels;
#[path = "gpubench/relayout.rs"]
mod relayout;
#[path = "gpubench/select.rs"]
mod select;
#[path = "gpubench/sort.rs"]
mod sort;
#[path = "gpubench/timing.rs"]
mod timing;

use std::fmt::Write as _;
use std::time::Instant;

use cases::Case;
use timing::Timer;

/// Command-line options.
struct Args {
    size_mib: u64,
    iters: u32,
    warmup: u32,
    ops: Option<Vec<String>>,
    variants: bool,
    verify: bool,
    json: Option<String>,
    wgsl_dir: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        size_mib: 1024,
        iters: 20,
        warmup: 3,
        ops: None,
        variants: false,
        verify: true,
        json: None,
        wgsl_dir: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--size-mib" => {
                args.size_mib = value("--size-mib")?
                    .parse()
                    .map_err(|e| format!("--size-mib: {e}"))?;
            }
            "--iters" => {
                args.iters = value("--iters")?
                    .parse()
                    .map_err(|e| format!("--iters: {e}"))?;
            }
            "--warmup" => {
                args.warmup = value("--warmup")?
                    .parse()
                    .map_err(|e| format!("--warmup: {e}"))?;
            }
            "--ops" => {
                args.ops = Some(value("--ops")?.split(',').map(str::to_owned).collect());
            }
            "--variants" => args.variants = true,
            "--no-verify" => args.verify = false,
            "--json" => args.json = Some(value("--json")?),
            "--wgsl-dir" => args.wgsl_dir = Some(value("--wgsl-dir")?),
            "--help" | "-h" => {
                return Err(format!(
                    "usage: gpubench [--size-mib N] [--iters N] [--warmup N] [--ops a,b,...] \
                     [--variants] [--no-verify] [--json PATH] [--wgsl-dir DIR]\nops: {}",
                    cases::NAMES.join(" ")
                ));
            }
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    if args.iters == 0 {
        return Err("--iters must be at least 1".to_owned());
    }
    Ok(args)
}

/// One measured case.
struct Row {
    name: String,
    bytes_moved: u64,
    median_ms: f64,
    min_ms: f64,
    wall_ms: f64,
    detail: String,
    rows: Option<u64>,
    verified: Option<Result<(), String>>,
}

impl Row {
    fn tb_per_s(&self) -> f64 {
        self.bytes_moved as f64 / (self.median_ms * 1e-3) / 1e12
    }

    /// Rows per second in billions (`G rows/s`), where the case counts rows.
    fn g_rows_per_s(&self) -> Option<f64> {
        self.rows
            .map(|rows| rows as f64 / (self.median_ms * 1e-3) / 1e9)
    }
}

fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    if let Err(message) = run(&args) {
        eprintln!("gpubench: {message}");
        std::process::exit(1);
    }
}

fn run(args: &Args) -> Result<(), String> {
    let timer = Timer::new()?;
    let info = timer.gpu.adapter_info().clone();
    println!(
        "adapter: {} ({:?}, {:?}, driver {} {})",
        info.name, info.device_type, info.backend, info.driver, info.driver_info
    );
    println!(
        "timing: {}; size {} MiB; {} iterations after {} warm-up",
        if timer.timestamps() {
            "GPU timestamps (median of passes)"
        } else {
            "wall clock (no TIMESTAMP_QUERY)"
        },
        args.size_mib,
        args.iters,
        args.warmup
    );
    let size = args.size_mib * 1024 * 1024;
    let wanted = |name: &str| match &args.ops {
        None => !cases::ON_REQUEST.contains(&name),
        Some(ops) => ops.iter().any(|o| name.starts_with(o.as_str())),
    };
    let mut rows: Vec<Row> = Vec::new();
    let started = Instant::now();
    for name in cases::NAMES {
        if !wanted(name) {
            continue;
        }
        // Each case group allocates its own buffers and frees them before the next.
        let group = match cases::build(&timer.gpu, name, size, args.variants) {
            Ok(group) => group,
            Err(e) => {
                println!("  {name:<28} skipped: {e}");
                continue;
            }
        };
        for case in &group {
            let row = match measure(&timer, case, args) {
                Ok(row) => row,
                Err(e) => {
                    println!("  {:<28} failed: {e}", case.name);
                    continue;
                }
            };
            print_row(&row);
            if let Some(dir) = &args.wgsl_dir
                && let Some(wgsl) = case.wgsl()
            {
                let path = format!("{dir}/{}.wgsl", case.name);
                std::fs::write(&path, wgsl).map_err(|e| format!("{path}: {e}"))?;
            }
            rows.push(row);
        }
    }
    let best_copy = rows
        .iter()
        .filter(|r| r.name.starts_with("copy_") && r.name != "copy_buffer_to_buffer")
        .map(Row::tb_per_s)
        .fold(0.0, f64::max);
    let table = summary(&rows, best_copy);
    println!("\n{table}");
    println!("total wall time {:.1} s", started.elapsed().as_secs_f64());
    if let Some(path) = &args.json {
        let json = serde_json::json!({
            "adapter": info.name,
            "device_type": format!("{:?}", info.device_type),
            "backend": format!("{:?}", info.backend),
            "driver": info.driver,
            "driver_info": info.driver_info,
            "timestamps": timer.timestamps(),
            "size_mib": args.size_mib,
            "iters": args.iters,
            "warmup": args.warmup,
            "best_copy_tb_s": best_copy,
            "results": rows.iter().map(|r| serde_json::json!({
                "op": r.name,
                "bytes_moved": r.bytes_moved,
                "median_ms": r.median_ms,
                "min_ms": r.min_ms,
                "wall_ms": r.wall_ms,
                "tb_s": r.tb_per_s(),
                "pct_of_best_copy": if best_copy > 0.0 { 100.0 * r.tb_per_s() / best_copy } else { 0.0 },
                "detail": r.detail,
                "g_rows_s": r.g_rows_per_s(),
                "verified": match &r.verified {
                    None => serde_json::Value::Null,
                    Some(Ok(())) => serde_json::Value::Bool(true),
                    Some(Err(e)) => serde_json::Value::String(e.clone()),
                },
            })).collect::<Vec<_>>(),
        });
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))?;
    }
    if rows.iter().any(|r| matches!(r.verified, Some(Err(_)))) {
        return Err("a GPU result differed from the CPU reference (see the table)".to_owned());
    }
    Ok(())
}

fn measure(timer: &Timer, case: &Case, args: &Args) -> Result<Row, String> {
    let t = timing::time(timer, &case.work, args.warmup, args.iters)?;
    let verified = if args.verify {
        case.verify.as_ref().map(|v| v(&timer.gpu))
    } else {
        None
    };
    Ok(Row {
        name: case.name.clone(),
        bytes_moved: case.bytes_moved,
        median_ms: t.median_ms,
        min_ms: t.min_ms,
        wall_ms: t.wall_ms,
        detail: case.detail.clone(),
        rows: case.rows,
        verified,
    })
}

fn print_row(row: &Row) {
    println!(
        "  {:<28} {:>9.3} GiB {:>9.3} ms {:>7.3} TB/s  (min {:.3} ms, wall {:.3} ms) {}{}",
        row.name,
        row.bytes_moved as f64 / (1u64 << 30) as f64,
        row.median_ms,
        row.tb_per_s(),
        row.min_ms,
        row.wall_ms,
        match row.g_rows_per_s() {
            Some(rate) => format!("{:.2} G rows/s {}", rate, row.detail),
            None => row.detail.clone(),
        },
        match &row.verified {
            None => String::new(),
            Some(Ok(())) => " [matches CPU]".to_owned(),
            Some(Err(e)) => format!(" [MISMATCH: {e}]"),
        }
    );
}

fn summary(rows: &[Row], best_copy: f64) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| op | bytes moved | ms (median) | TB/s | % of best copy kernel | checked |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---|");
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {:.3} GiB | {:.3} | {:.3} | {:.0}% | {} |",
            r.name,
            r.bytes_moved as f64 / (1u64 << 30) as f64,
            r.median_ms,
            r.tb_per_s(),
            if best_copy > 0.0 {
                100.0 * r.tb_per_s() / best_copy
            } else {
                0.0
            },
            match &r.verified {
                None => "-",
                Some(Ok(())) => "yes",
                Some(Err(_)) => "MISMATCH",
            }
        );
    }
    s
}
