//! Upload throughput and peak memory: `TypedGpuData::from_rows` (memcpy path and per-field
//! encoder path) against plain `queue.write_buffer`.
//!
//! ```text
//! cargo bench --bench upload
//! ```
//!
//! Throughput is measured by criterion (buffer creation + staging + the copy on the device, until
//! the device is idle). Peak resident memory is measured first, each method in a fresh child
//! process: the rows are allocated and touched, `VmHWM` is reset (`/proc/self/clear_refs`), the
//! upload runs to completion, and the peak above the process's resident set before the rows
//! existed is reported as a multiple of the row bytes (so the caller's rows count as 1×).

use std::hint::black_box;
use std::process::Command;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use gpudata::{Gpu, GpuStruct, TypedGpuData};

#[path = "support/rows.rs"]
mod rows;

use rows::{Packed, Storage, packed_rows, storage_rows};

const USAGE: wgpu::BufferUsages = wgpu::BufferUsages::VERTEX
    .union(wgpu::BufferUsages::STORAGE)
    .union(wgpu::BufferUsages::COPY_DST);

/// The baseline: one buffer, one `write_buffer` of the row bytes (which copies all of them into
/// one staging allocation), one submit.
fn write_buffer(gpu: &Gpu, bytes: &[u8]) -> wgpu::Buffer {
    let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("baseline"),
        size: bytes.len() as u64,
        usage: USAGE,
        mapped_at_creation: false,
    });
    gpu.queue().write_buffer(&buffer, 0, bytes);
    gpu.queue().submit([]);
    buffer
}

fn run(gpu: &Gpu, method: &str, packed: &[Packed], storage: &[Storage]) {
    match method {
        "gpudata-memcpy" => {
            let data = TypedGpuData::from_rows(gpu, packed, USAGE).expect("upload");
            gpu.wait_idle().expect("idle");
            data.destroy();
        }
        "gpudata-encoded" => {
            let data = TypedGpuData::from_rows(gpu, storage, USAGE).expect("upload");
            gpu.wait_idle().expect("idle");
            data.destroy();
        }
        "write_buffer" => {
            let bytes = gpudata::record::rows_as_bytes(packed).expect("packed rows are bytes");
            let buffer = write_buffer(gpu, bytes);
            gpu.wait_idle().expect("idle");
            buffer.destroy();
        }
        "encode+write_buffer" => {
            let bytes = gpudata::record::encode_rows_to_vec(storage);
            let buffer = write_buffer(gpu, &bytes);
            gpu.wait_idle().expect("idle");
            buffer.destroy();
        }
        other => panic!("unknown method {other}"),
    }
}

const METHODS: [&str; 4] = [
    "gpudata-memcpy",
    "gpudata-encoded",
    "write_buffer",
    "encode+write_buffer",
];

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Child process: one method, one size; prints
/// `method host_row_bytes gpu_row_bytes peak_above_rows_bytes`.
fn measure_rss(method: &str, bytes: usize) {
    let gpu = Gpu::headless().expect("adapter");
    // Warm the device (allocator pools, staging) so one-time memory is not counted.
    run(&gpu, method, &packed_rows(1 << 20), &storage_rows(1 << 20));
    gpu.wait_idle().expect("idle");
    let (packed, storage) = if method.contains("encode") {
        (Vec::new(), storage_rows(bytes))
    } else {
        (packed_rows(bytes), Vec::new())
    };
    black_box((&packed, &storage));
    let host_bytes = size_of_val(packed.as_slice()) + size_of_val(storage.as_slice());
    let gpu_bytes = if packed.is_empty() {
        storage.len() * Storage::FORMAT.byte_stride() as usize
    } else {
        host_bytes
    };
    let with_rows = status_kib("VmRSS:") * 1024;
    // Reset the high-water mark to the current resident set (Linux 4.0+).
    std::fs::write("/proc/self/clear_refs", "5").expect("reset VmHWM");
    run(&gpu, method, black_box(&packed), black_box(&storage));
    let peak = status_kib("VmHWM:") * 1024;
    println!(
        "{method} {host_bytes} {gpu_bytes} {}",
        peak.saturating_sub(with_rows)
    );
}

fn report_rss() {
    let exe = std::env::current_exe().expect("bench executable");
    let bytes = 256 << 20;
    println!(
        "\npeak resident memory while uploading {} MiB of GPU rows (× = (caller's rows + peak above them) / GPU row bytes)",
        bytes >> 20
    );
    println!(
        "{:<22} {:>14} {:>12} {:>16} {:>7}",
        "method", "host rows MiB", "GPU rows MiB", "peak above MiB", "×"
    );
    for method in METHODS {
        let out = Command::new(&exe)
            .env("GPUDATA_UPLOAD_RSS", format!("{method}:{bytes}"))
            .output()
            .expect("child bench process");
        let text = String::from_utf8_lossy(&out.stdout);
        let Some(line) = text.lines().find(|l| l.starts_with(method)) else {
            println!(
                "{method}: no measurement ({})",
                String::from_utf8_lossy(&out.stderr)
            );
            continue;
        };
        let numbers: Vec<f64> = line
            .split_whitespace()
            .skip(1)
            .filter_map(|v| v.parse().ok())
            .collect();
        let [host, gpu, above] = numbers[..] else {
            println!("{method}: unreadable measurement `{line}`");
            continue;
        };
        let mib = 1048576.0;
        println!(
            "{method:<22} {:>14.1} {:>12.1} {:>16.1} {:>7.2}",
            host / mib,
            gpu / mib,
            above / mib,
            (host + above) / gpu
        );
    }
    println!();
}

fn bench_upload(c: &mut Criterion) {
    let gpu = Gpu::headless().expect("adapter");
    eprintln!("adapter: {}", gpu.adapter_summary());
    let mut group = c.benchmark_group("upload");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for bytes in [4 << 20, 64 << 20] {
        let packed = packed_rows(bytes);
        let storage = storage_rows(bytes);
        group.throughput(Throughput::Bytes(bytes as u64));
        for method in METHODS {
            group.bench_with_input(BenchmarkId::new(method, bytes >> 20), &bytes, |b, _| {
                b.iter(|| run(&gpu, method, &packed, &storage));
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_upload);

fn main() {
    if let Ok(spec) = std::env::var("GPUDATA_UPLOAD_RSS") {
        let (method, bytes) = spec.split_once(':').expect("method:bytes");
        measure_rss(method, bytes.parse().expect("byte count"));
        return;
    }
    report_rss();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
