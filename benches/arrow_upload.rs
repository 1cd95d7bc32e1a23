//! Upload throughput and peak host memory of Arrow columns going to the GPU through
//! `gpudata::arrow` (straight from the Arrow values buffer, through wgpu's staging memory in
//! bounded chunks), against `queue.write_buffer` on the same bytes, measured in the same run.
//!
//! ```console
//! $ cargo bench --bench arrow_upload --features arrow            # 100M Float32, 25M vec3
//! $ GPUDATA_BENCH_SCALE=0.1 cargo bench --bench arrow_upload --features arrow
//! ```
//!
//! Throughput: the best of several alternating runs of each method, each creating its buffer,
//! writing every byte and waiting until the GPU has them. Memory: each method runs once in its
//! own child process (so `VmHWM`, the peak resident set, is its own); the report gives how much
//! the peak grew over the resident set before the data was made (the process, the driver and
//! the device), as a multiple of the Arrow bytes (the Arrow data itself included), and the same
//! with the device buffer taken out, since a software adapter such as lavapipe keeps "device"
//! memory in the process's resident set where a real GPU keeps it in VRAM.

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{Array, ArrayRef, FixedSizeListArray, Float32Array};
use arrow_schema::{DataType, Field};
use gpudata::Gpu;
use gpudata::arrow::{ArrowColumnSource, ColumnOptions, upload_source};
use gpudata::data::DEFAULT_USAGE;

const RUNS: usize = 4;

/// `VmHWM` and `VmRSS` of this process, in bytes.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

fn scale() -> f64 {
    std::env::var("GPUDATA_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|s: &f64| *s > 0.0)
        .unwrap_or(1.0)
}

/// The column `name` (`float32`: 100M values, `vec3`: 25M `FixedSizeList<Float32, 3>` rows),
/// scaled.
fn column(name: &str) -> (Field, ArrayRef) {
    let s = scale();
    match name {
        "float32" => {
            let n = (100_000_000.0 * s) as usize;
            let values = Float32Array::from_iter_values((0..n).map(|i| i as f32));
            (
                Field::new("values", DataType::Float32, false),
                Arc::new(values),
            )
        }
        _ => {
            let n = (25_000_000.0 * s) as usize;
            let values = Float32Array::from_iter_values((0..3 * n).map(|i| i as f32));
            let list = FixedSizeListArray::try_new(
                Arc::new(Field::new_list_field(DataType::Float32, false)),
                3,
                Arc::new(values),
                None,
            )
            .unwrap_or_else(|e| panic!("{e}"));
            (
                Field::new("positions", list.data_type().clone(), false),
                Arc::new(list),
            )
        }
    }
}

fn upload_gpudata(gpu: &Gpu, source: &ArrowColumnSource) -> Duration {
    let start = Instant::now();
    let data = upload_source(gpu, source, DEFAULT_USAGE).unwrap_or_else(|e| panic!("{e}"));
    gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
    let elapsed = start.elapsed();
    data.destroy();
    elapsed
}

fn upload_write_buffer(gpu: &Gpu, bytes: &[u8]) -> Duration {
    let start = Instant::now();
    let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("write_buffer baseline"),
        size: (bytes.len() as u64).div_ceil(4) * 4,
        usage: DEFAULT_USAGE,
        mapped_at_creation: false,
    });
    gpu.queue().write_buffer(&buffer, 0, bytes);
    gpu.queue().submit([]);
    gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
    let elapsed = start.elapsed();
    buffer.destroy();
    elapsed
}

/// Child process: one upload of `name` by `method`; prints the memory facts.
fn child(name: &str, method: &str) {
    let gpu = Gpu::headless().unwrap_or_else(|e| panic!("{e}"));
    // Warm the device up so its fixed cost is in the baseline.
    let tiny = Float32Array::from(vec![0.0_f32; 1024]);
    let warm = ArrowColumnSource::from_array("warm", &tiny, &ColumnOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    upload_gpudata(&gpu, &warm);
    let (_, before) = memory();
    let (field, array) = column(name);
    let source = ArrowColumnSource::new(&field, array.as_ref(), &ColumnOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let arrow_bytes = source.bytes().len() as u64;
    let data = if method == "gpudata" {
        Some(upload_source(&gpu, &source, DEFAULT_USAGE).unwrap_or_else(|e| panic!("{e}")))
    } else {
        let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("write_buffer baseline"),
            size: arrow_bytes.div_ceil(4) * 4,
            usage: DEFAULT_USAGE,
            mapped_at_creation: false,
        });
        gpu.queue().write_buffer(&buffer, 0, source.bytes());
        gpu.queue().submit([]);
        gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
        drop(buffer);
        None
    };
    gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
    let (peak, _) = memory();
    drop(data);
    println!("before={before} peak={peak} arrow={arrow_bytes}");
}

fn parse(line: &str, key: &str) -> f64 {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        let name = args.get(i + 1).map_or("float32", String::as_str);
        let method = args.get(i + 2).map_or("gpudata", String::as_str);
        child(name, method);
        return;
    }
    let gpu = Gpu::headless().unwrap_or_else(|e| panic!("{e}"));
    println!(
        "arrow upload on {} (scale {})",
        gpu.adapter_summary(),
        scale()
    );
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
    for name in ["float32", "vec3"] {
        let (field, array) = column(name);
        let source = ArrowColumnSource::new(&field, array.as_ref(), &ColumnOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let bytes = source.bytes().len() as f64;
        let (mut best_ours, mut best_base) = (Duration::MAX, Duration::MAX);
        for _ in 0..RUNS {
            best_base = best_base.min(upload_write_buffer(&gpu, source.bytes()));
            best_ours = best_ours.min(upload_gpudata(&gpu, &source));
        }
        let gbps = |d: Duration| bytes / d.as_secs_f64() / 1e9;
        println!(
            "{name:<8} {} rows, {:.0} MB: gpudata {:.2} GB/s, write_buffer {:.2} GB/s, ratio {:.2}",
            array.len(),
            bytes / 1e6,
            gbps(best_ours),
            gbps(best_base),
            best_base.as_secs_f64() / best_ours.as_secs_f64(),
        );
        drop(source);
        drop(array);
        for method in ["gpudata", "write_buffer"] {
            let out = Command::new(&exe)
                .args(["--child", name, method])
                .output()
                .unwrap_or_else(|e| panic!("{e}"));
            let line = String::from_utf8_lossy(&out.stdout);
            let (peak, arrow, before) = (
                parse(&line, "peak"),
                parse(&line, "arrow"),
                parse(&line, "before"),
            );
            let grown = peak - before;
            println!(
                "{name:<8} {method:<12} peak RSS {:.0} MB ({:.0} MB before the data): the data added {:.2}x the Arrow bytes, {:.2}x not counting the device buffer (host-resident on a software adapter)",
                peak / 1e6,
                before / 1e6,
                grown / arrow,
                (grown - arrow) / arrow,
            );
        }
    }
}
