//! The timed cases: every upload and readback path at each size, the `--sweep` over threads and
//! chunk sizes, and the peak-memory bookkeeping.

use std::sync::Arc;
use std::time::Instant;

use arrow_array::{Array, Float32Array, Int32Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use gpudata::arrow::{
    BatchOptions, ColumnOptions, array_from_gpu, array_from_gpu_vector, array_to_gpu,
    array_to_gpu_vector, record_batch_from_gpu, record_batch_to_gpu,
};
use gpudata::data::DEFAULT_USAGE;
use gpudata::device::{HostDmaMode, TransferConfig};
use gpudata::table::ChunkOptions;
use gpudata::table::GpuVector;
use gpudata::{Gpu, GpuData, GpuDataDescriptor, GpuStruct, TypedGpuData, VertexFormat};

use crate::Args;
use crate::rows::{Packed, packed_rows, storage_rows};

/// A field of `/proc/self/status` in KiB.
pub fn vm_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Resets `VmHWM` to the current resident set and returns that.
fn reset_peak() -> u64 {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    vm_kib("VmRSS")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Prints `e` and exits with status 1.
pub fn fail(e: impl std::fmt::Display) -> ! {
    eprintln!("transferbench: {e}");
    std::process::exit(1)
}

/// One row of the table: GB/s and the peak memory added (MiB) per direction.
pub struct Row {
    pub up: Option<(f64, u64)>,
    pub down: Option<(f64, u64)>,
}

/// Times `iters` runs of `f` (seconds each) and the peak memory they added in MiB.
pub fn measure(iters: u32, bytes: u64, mut f: impl FnMut() -> f64) -> (f64, u64) {
    f(); // warm-up: pipelines, allocator blocks
    let base = reset_peak();
    let times: Vec<f64> = (0..iters).map(|_| f()).collect();
    let added = vm_kib("VmHWM").saturating_sub(base) >> 10;
    (bytes as f64 / median(times) / 1e9, added)
}

pub fn timed(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

pub fn bytes_source(size: u64) -> Vec<u8> {
    (0..size)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect()
}

/// [`bytes_source`]'s pattern in 8-byte words, written by every core (a 20 GiB source in a
/// second or two instead of a minute).
fn parallel_source(size: u64) -> Vec<u8> {
    let mut out = vec![0u8; size as usize];
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per = (out.len() / threads).next_multiple_of(8).max(8);
    std::thread::scope(|scope| {
        for (t, part) in out.chunks_mut(per).enumerate() {
            scope.spawn(move || {
                let base = (t * per / 8) as u64;
                for (i, word) in part.chunks_mut(8).enumerate() {
                    let v = (base + i as u64)
                        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                        .to_le_bytes();
                    word.copy_from_slice(&v[..word.len()]);
                }
            });
        }
    });
    out
}

const PATHS: [&str; 18] = [
    "alloc",
    "write_buffer",
    "write_rows",
    "bytes",
    "bytes_into",
    "rows_zero_copy",
    "rows_encoded",
    "arrow_f32",
    "table",
    "whole_buffer_map",
    "chunked",
    "arrow_vector",
    "write_rows_dma",
    "bytes_dma",
    "bytes_into_dma",
    "write_rows_ring",
    "memcpy",
    "ring_dma",
];

/// `gpu` with host DMA on in `mode` for transfers of at least 1 MiB (the default threshold),
/// the rest of its configuration kept.
fn dma_gpu(gpu: &Gpu, mode: HostDmaMode) -> Gpu {
    gpu.with_transfer_config(
        gpu.transfer_config()
            .clone()
            .host_dma(true)
            .host_dma_mode(mode),
    )
}

/// Runs path `path` at `size` bytes; a path named `<path>_dma` runs `<path>` with host DMA on
/// by importing the caller's pages, `<path>_ring` with its uploads through the pinned staging
/// ring (feature `host-dma`; its readbacks staged), and says when none of its transfers moved
/// by DMA.
fn run(gpu: &Gpu, path: &str, size: u64, iters: u32) -> Row {
    let (staged, mode) = match (path.strip_suffix("_dma"), path.strip_suffix("_ring")) {
        _ if path == "ring_dma" => return crate::ring::ring_dma(gpu, size, iters),
        (Some(staged), _) => (staged, HostDmaMode::ImportCallerPages),
        (_, Some(staged)) => (staged, HostDmaMode::PinnedStaging),
        _ => return run_path(gpu, path, size, iters),
    };
    let dma = dma_gpu(gpu, mode);
    let before = dma.host_dma_transfers();
    let row = run_path(&dma, staged, size, iters);
    if dma.host_dma_transfers() == before {
        let why = match dma.host_dma() {
            Ok(_) if mode == HostDmaMode::PinnedStaging => {
                "the ring moves uploads only (readbacks are staged), and none qualified".to_string()
            }
            Ok(_) => "the ranges did not qualify or the driver refused them".to_string(),
            Err(e) => e.to_string(),
        };
        println!("note: {path} at {size} bytes moved nothing by host dma: {why}");
    }
    row
}

/// Runs path `path` at `size` bytes.
fn run_path(gpu: &Gpu, path: &str, size: u64, iters: u32) -> Row {
    match path {
        "write_buffer" => {
            let src = bytes_source(size);
            let dst = GpuData::zeroed(gpu, VertexFormat::Uint32, size / 4, DEFAULT_USAGE)
                .unwrap_or_else(|e| fail(e));
            let up = measure(iters, size, || {
                timed(|| {
                    gpu.queue().write_buffer(dst.buffer(), 0, &src);
                    gpu.queue().submit([]);
                    gpu.wait_idle().unwrap_or_else(|e| fail(e));
                })
            });
            Row {
                up: Some(up),
                down: None,
            }
        }
        "alloc" => {
            // Creating the device buffer alone (every `from_*` upload pays it): size / time.
            let up = measure(iters, size, || {
                timed(|| {
                    let data = GpuData::zeroed(gpu, VertexFormat::Uint32, size / 4, DEFAULT_USAGE)
                        .unwrap_or_else(|e| fail(e));
                    gpu.wait_idle().unwrap_or_else(|e| fail(e));
                    data.destroy();
                })
            });
            Row {
                up: Some(up),
                down: None,
            }
        }
        "write_rows" => {
            // Zero-copy rows into existing data (no buffer creation): the rate of the bus path.
            let rows = packed_rows(size as usize);
            let data =
                TypedGpuData::from_rows(gpu, &rows, DEFAULT_USAGE).unwrap_or_else(|e| fail(e));
            let bytes = rows.len() as u64 * Packed::FORMAT.byte_stride();
            let up = measure(iters, bytes, || {
                timed(|| {
                    data.write_rows(gpu, 0, &rows).unwrap_or_else(|e| fail(e));
                    gpu.wait_idle().unwrap_or_else(|e| fail(e));
                })
            });
            if data.read_rows(gpu).unwrap_or_else(|e| fail(e)) != rows {
                fail("rows written differ");
            }
            Row {
                up: Some(up),
                down: None,
            }
        }
        "whole_buffer_map" => {
            // The readback before this issue: one MAP_READ buffer of the whole size, one thread.
            let src = bytes_source(size);
            let data = GpuData::from_bytes(
                gpu,
                &src,
                GpuDataDescriptor::new(VertexFormat::Uint32, size / 4),
                DEFAULT_USAGE,
            )
            .unwrap_or_else(|e| fail(e));
            let down = measure(iters, size, || {
                timed(|| {
                    let staging = gpu.device().create_buffer(&wgpu::BufferDescriptor {
                        label: Some("whole"),
                        size,
                        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    });
                    let mut encoder = gpu.device().create_command_encoder(&Default::default());
                    encoder.copy_buffer_to_buffer(data.buffer(), 0, &staging, 0, None);
                    gpu.queue().submit([encoder.finish()]);
                    staging.map_async(wgpu::MapMode::Read, .., |r| r.unwrap());
                    gpu.wait_idle().unwrap_or_else(|e| fail(e));
                    let out = staging.get_mapped_range(..).unwrap().to_vec();
                    assert_eq!(out.len() as u64, size);
                })
            });
            Row {
                up: None,
                down: Some(down),
            }
        }
        "bytes" => {
            let src = bytes_source(size);
            let descriptor = GpuDataDescriptor::new(VertexFormat::Uint32, size / 4);
            let mut data = None;
            let up = measure(iters, size, || {
                data = None; // the previous buffer goes first, untimed
                timed(|| {
                    data = Some(
                        GpuData::from_bytes(gpu, &src, descriptor.clone(), DEFAULT_USAGE)
                            .unwrap_or_else(|e| fail(e)),
                    );
                    gpu.wait_idle().unwrap_or_else(|e| fail(e));
                })
            });
            let data = data.unwrap_or_else(|| fail("no data"));
            let down = measure(iters, size, || {
                let mut out = Vec::new();
                let t = timed(|| out = data.read_bytes(gpu).unwrap_or_else(|e| fail(e)));
                if out != src {
                    fail("bytes read back differ");
                }
                t
            });
            Row {
                up: Some(up),
                down: Some(down),
            }
        }
        "bytes_into" => {
            // Readback into a slice the caller has touched already (no page faults).
            let src = bytes_source(size);
            let descriptor = GpuDataDescriptor::new(VertexFormat::Uint32, size / 4);
            let data = GpuData::from_bytes(gpu, &src, descriptor, DEFAULT_USAGE)
                .unwrap_or_else(|e| fail(e));
            let mut out = vec![1u8; size as usize];
            let down = measure(iters, size, || {
                let t = timed(|| {
                    data.read_bytes_into(gpu, &mut out)
                        .unwrap_or_else(|e| fail(e))
                });
                if out != src {
                    fail("bytes read back differ");
                }
                t
            });
            Row {
                up: None,
                down: Some(down),
            }
        }
        "rows_zero_copy" => rows(gpu, &packed_rows(size as usize), iters),
        "rows_encoded" => rows(gpu, &storage_rows(size as usize), iters),
        "arrow_f32" => {
            let values = Float32Array::from_iter_values((0..size / 4).map(|i| i as f32));
            let field = Field::new("values", DataType::Float32, false);
            let mut data = None;
            let up = measure(iters, size, || {
                data = None;
                timed(|| {
                    data = Some(
                        array_to_gpu(gpu, &field, &values, &ColumnOptions::default())
                            .unwrap_or_else(|e| fail(e)),
                    );
                    gpu.wait_idle().unwrap_or_else(|e| fail(e));
                })
            });
            let data = data.unwrap_or_else(|| fail("no data"));
            let down = measure(iters, size, || {
                let mut back = None;
                let t =
                    timed(|| back = Some(array_from_gpu(gpu, &data).unwrap_or_else(|e| fail(e))));
                if back.as_deref().map(|a| a.to_data()) != Some(values.to_data()) {
                    fail("arrow column read back differs");
                }
                t
            });
            Row {
                up: Some(up),
                down: Some(down),
            }
        }
        "table" => {
            let n = size / 8;
            let schema = Arc::new(Schema::new(vec![
                Field::new("x", DataType::Float32, false),
                Field::new("id", DataType::Int32, false),
            ]));
            let x = Arc::new(Float32Array::from_iter_values((0..n).map(|i| i as f32)));
            let id = Arc::new(Int32Array::from_iter_values((0..n).map(|i| i as i32)));
            let batch = RecordBatch::try_new(schema, vec![x, id]).unwrap_or_else(|e| fail(e));
            let mut gpu_batch = None;
            let up = measure(iters, size, || {
                gpu_batch = None;
                timed(|| {
                    gpu_batch = Some(
                        record_batch_to_gpu(gpu, &batch, &BatchOptions::new())
                            .unwrap_or_else(|e| fail(e))
                            .0,
                    );
                    gpu.wait_idle().unwrap_or_else(|e| fail(e));
                })
            });
            let gpu_batch = gpu_batch.unwrap_or_else(|| fail("no batch"));
            let down = measure(iters, size, || {
                let mut back = None;
                let t = timed(|| {
                    back = Some(record_batch_from_gpu(gpu, &gpu_batch).unwrap_or_else(|e| fail(e)));
                });
                if back.as_ref().map(|b| b.columns().to_vec()) != Some(batch.columns().to_vec()) {
                    fail("table read back differs");
                }
                t
            });
            Row {
                up: Some(up),
                down: Some(down),
            }
        }
        "chunked" => {
            // A column of any size (issue 17): chunks of at most max_buffer_size, uploaded one
            // after another, read back into one touched slice.
            let src = parallel_source(size);
            let descriptor = GpuDataDescriptor::new(VertexFormat::Uint32, size / 4);
            let mut vector = None;
            let up = measure(iters, size, || {
                vector = None; // the previous column's buffers go first, untimed
                timed(|| {
                    vector = Some(
                        GpuVector::upload(gpu, "chunked", &src, descriptor.clone(), DEFAULT_USAGE)
                            .unwrap_or_else(|e| fail(e)),
                    );
                    gpu.wait_idle().unwrap_or_else(|e| fail(e));
                })
            });
            let vector = vector.unwrap_or_else(|| fail("no column"));
            println!(
                "chunked {}: {} chunks of at most {} bytes",
                size_name(size),
                vector.chunks().len(),
                gpu.limits().max_buffer_size
            );
            let mut out = vec![1u8; size as usize];
            let down = measure(iters, size, || {
                let t = timed(|| {
                    vector
                        .read_bytes_into(gpu, &mut out)
                        .unwrap_or_else(|e| fail(e));
                });
                if out != src {
                    fail("chunked column read back differs");
                }
                t
            });
            Row {
                up: Some(up),
                down: Some(down),
            }
        }
        "arrow_vector" => {
            // An Arrow Float32 column of any size (issue 17): `array_to_gpu_vector` in chunks of
            // at most max_buffer_size, read back by `array_from_gpu_vector` into one Arrow
            // buffer.
            let values = Float32Array::new(
                arrow_buffer::ScalarBuffer::from(arrow_buffer::Buffer::from_vec(parallel_source(
                    size & !3,
                ))),
                None,
            );
            let field = Field::new("values", DataType::Float32, false);
            let mut vector = None;
            let up = measure(iters, size, || {
                vector = None;
                timed(|| {
                    vector = Some(
                        array_to_gpu_vector(
                            gpu,
                            &field,
                            &values,
                            &ColumnOptions::default(),
                            ChunkOptions::default(),
                        )
                        .unwrap_or_else(|e| fail(e)),
                    );
                    gpu.wait_idle().unwrap_or_else(|e| fail(e));
                })
            });
            let vector = vector.unwrap_or_else(|| fail("no column"));
            let down = measure(iters, size, || {
                let mut back = None;
                let t = timed(|| {
                    back = Some(array_from_gpu_vector(gpu, &vector).unwrap_or_else(|e| fail(e)))
                });
                if back.as_deref().map(|a| a.to_data()) != Some(values.to_data()) {
                    fail("arrow vector read back differs");
                }
                t
            });
            Row {
                up: Some(up),
                down: Some(down),
            }
        }
        "memcpy" => crate::ring::memcpy(gpu, size, iters),
        other => fail(format!("unknown path {other}")),
    }
}

fn rows<T: GpuStruct + PartialEq + std::fmt::Debug>(gpu: &Gpu, rows: &[T], iters: u32) -> Row {
    let size = rows.len() as u64 * T::FORMAT.byte_stride();
    let mut data = None;
    let up = measure(iters, size, || {
        data = None;
        timed(|| {
            data =
                Some(TypedGpuData::from_rows(gpu, rows, DEFAULT_USAGE).unwrap_or_else(|e| fail(e)));
            gpu.wait_idle().unwrap_or_else(|e| fail(e));
        })
    });
    let data = data.unwrap_or_else(|| fail("no data"));
    let down = measure(iters, size, || {
        let mut back = Vec::new();
        let t = timed(|| back = data.read_rows(gpu).unwrap_or_else(|e| fail(e)));
        if back != rows {
            fail("rows read back differ");
        }
        t
    });
    Row {
        up: Some(up),
        down: Some(down),
    }
}

fn iters_for(args: &Args, size: u64) -> u32 {
    args.iters
        .unwrap_or_else(|| ((2u64 << 30) / size.max(1)).clamp(3, 40) as u32)
}

fn size_name(size: u64) -> String {
    match size {
        s if s >= 1 << 30 && s.is_multiple_of(1 << 30) => format!("{} GiB", s >> 30),
        s if s >= 1 << 20 && s.is_multiple_of(1 << 20) => format!("{} MiB", s >> 20),
        s if s.is_multiple_of(1 << 10) => format!("{} KiB", s >> 10),
        s => format!("{s} B"),
    }
}

/// The table: every path, both directions, every size.
pub fn table(gpu: &Gpu, args: &Args) {
    println!("| path | size | H2D GB/s | H2D peak +MiB | D2H GB/s | D2H peak +MiB |");
    println!("|---|---:|---:|---:|---:|---:|");
    let paths: Vec<&str> = match &args.paths {
        Some(p) => p.iter().map(String::as_str).collect(),
        None => PATHS.to_vec(),
    };
    for path in paths {
        for &size in &args.sizes {
            if path == "whole_buffer_map" && size > gpu.limits().max_buffer_size {
                continue;
            }
            let row = run(gpu, path, size, iters_for(args, size));
            let cell = |c: Option<(f64, u64)>| match c {
                Some((rate, mib)) => (format!("{rate:.2}"), mib.to_string()),
                None => ("—".into(), "—".into()),
            };
            let (ur, um) = cell(row.up);
            let (dr, dm) = cell(row.down);
            println!(
                "| {path} | {} | {ur} | {um} | {dr} | {dm} |",
                size_name(size)
            );
        }
    }
}

/// 1 GiB up (zero-copy `write_rows` into existing data) and down (`read_bytes` into a new
/// `Vec`, `read_bytes_into` a touched one) over thread counts and chunk sizes (budget: two
/// chunks per thread).
pub fn sweep(gpu: &Gpu) {
    let rows = packed_rows(1 << 30);
    let data = TypedGpuData::from_rows(gpu, &rows, DEFAULT_USAGE).unwrap_or_else(|e| fail(e));
    let size = data.as_data().byte_length();
    let expected = data.as_data().read_bytes(gpu).unwrap_or_else(|e| fail(e));
    let mut into = vec![1u8; size as usize];
    println!("sweep, {size} bytes (median of 3), GB/s:");
    println!("| threads | chunk MiB | write_rows | read_bytes | read_bytes_into |");
    println!("|---:|---:|---:|---:|---:|");
    for threads in [4, 8, 16] {
        for chunk_mib in [1u64, 4, 16] {
            let config = TransferConfig::new()
                .threads(threads)
                .chunk_bytes(chunk_mib << 20)
                .budget_bytes(2 * threads as u64 * (chunk_mib << 20));
            let g = gpu.with_transfer_config(config);
            let (up, _) = measure(3, size, || {
                timed(|| {
                    data.write_rows(&g, 0, &rows).unwrap_or_else(|e| fail(e));
                    g.wait_idle().unwrap_or_else(|e| fail(e));
                })
            });
            let (down, _) = measure(3, size, || {
                let mut out = Vec::new();
                let t = timed(|| out = data.as_data().read_bytes(&g).unwrap_or_else(|e| fail(e)));
                if out != expected {
                    fail("sweep bytes differ");
                }
                t
            });
            let (down_into, _) = measure(3, size, || {
                let t = timed(|| {
                    data.as_data()
                        .read_bytes_into(&g, &mut into)
                        .unwrap_or_else(|e| fail(e));
                });
                if into != expected {
                    fail("sweep bytes differ");
                }
                t
            });
            println!("| {threads} | {chunk_mib} | {up:.2} | {down:.2} | {down_into:.2} |");
        }
    }
}

/// Readbacks into a touched slice (`read_bytes_into`) at 256 MiB, 1 GiB and 4 GiB − 2 MiB over
/// pipeline configurations (drain threads, chunk size, budget), median of 5: what sets the
/// readback pipeline's rate.
pub fn readback_sweep(gpu: &Gpu) {
    let configs: [(usize, u64, u64); 7] = [
        (8, 4, 64),
        (16, 4, 64),
        (12, 4, 64),
        (16, 2, 64),
        (16, 4, 128),
        (8, 2, 64),
        (4, 4, 64),
    ];
    let sizes = [
        256u64 << 20,
        1 << 30,
        gpu.limits().max_buffer_size & !((1 << 20) - 1),
    ];
    println!(
        "readback sweep (read_bytes_into, median of 5; last column read_bytes into a new Vec), GB/s:"
    );
    println!(
        "| threads | chunk MiB | budget MiB | 256 MiB | 1 GiB | 4 GiB − 2 MiB | new Vec 1 GiB |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    let datas: Vec<(GpuData, Vec<u8>)> = sizes
        .iter()
        .map(|&size| {
            let src = parallel_source(size);
            let descriptor = GpuDataDescriptor::new(VertexFormat::Uint32, size / 4);
            let data = GpuData::from_bytes(gpu, &src, descriptor, DEFAULT_USAGE)
                .unwrap_or_else(|e| fail(e));
            (data, src)
        })
        .collect();
    let mut out = vec![1u8; *sizes.iter().max().unwrap_or(&0) as usize];
    for (threads, chunk_mib, budget_mib) in configs {
        let g = gpu.with_transfer_config(
            TransferConfig::new()
                .threads(threads)
                .chunk_bytes(chunk_mib << 20)
                .budget_bytes(budget_mib << 20),
        );
        let mut rates: Vec<String> = datas
            .iter()
            .map(|(data, src)| {
                let out = &mut out[..src.len()];
                let (rate, _) = measure(5, src.len() as u64, || {
                    timed(|| data.read_bytes_into(&g, out).unwrap_or_else(|e| fail(e)))
                });
                // Checked once per configuration (a 4 GiB comparison takes longer than the
                // readback).
                if out != src.as_slice() {
                    fail("readback sweep bytes differ");
                }
                format!("{rate:.2}")
            })
            .collect();
        let (data, src) = &datas[1];
        let (fresh, _) = measure(5, src.len() as u64, || {
            let mut back = Vec::new();
            let t = timed(|| back = data.read_bytes(&g).unwrap_or_else(|e| fail(e)));
            if back.len() != src.len() || back[back.len() / 2] != src[src.len() / 2] {
                fail("readback sweep bytes differ");
            }
            t
        });
        rates.push(format!("{fresh:.2}"));
        println!(
            "| {threads} | {chunk_mib} | {budget_mib} | {} |",
            rates.join(" | ")
        );
    }
}

/// Host DMA at 256 MiB and 1 GiB over piece sizes (`chunk_bytes`, which host DMA takes as its
/// piece): `write_rows` into existing data and `read_bytes_into` a touched slice, GB/s.
pub fn dma_sweep(gpu: &Gpu, args: &Args) {
    match gpu.host_dma() {
        Ok(support) => println!(
            "host dma: import alignment {} bytes",
            support.import_alignment
        ),
        Err(e) => println!("host dma: unavailable: {e}"),
    }
    // What the driver charges per import (pinning the pages), without a copy: touched memory,
    // one piece of the whole size, median of 5.
    for size in [64u64 << 20, 256 << 20, 1 << 30] {
        let src = bytes_source(size);
        let mut ok = true;
        let (rate, _) = measure(5, size, || {
            timed(|| ok &= gpudata::device::probe_import(gpu, &src))
        });
        println!(
            "import alone (no copy), {}: {rate:.2} GB/s{}",
            size_name(size),
            if ok { "" } else { " (refused)" }
        );
    }
    println!("| piece | size | write_rows H2D GB/s | read_bytes_into D2H GB/s | dma transfers |");
    println!("|---:|---:|---:|---:|---:|");
    for piece_mib in [8u64, 16, 32, 64, 256, 1024] {
        let config = gpu
            .transfer_config()
            .clone()
            .host_dma(true)
            .host_dma_mode(HostDmaMode::ImportCallerPages)
            .chunk_bytes(piece_mib << 20);
        let dma = gpu.with_transfer_config(config);
        for size in [256u64 << 20, 1 << 30] {
            let before = dma.host_dma_transfers();
            let iters = iters_for(args, size);
            let up = run_path(&dma, "write_rows", size, iters).up;
            let down = run_path(&dma, "bytes_into", size, iters).down;
            let rate = |c: Option<(f64, u64)>| c.map_or("—".into(), |(r, _)| format!("{r:.2}"));
            println!(
                "| {piece_mib} MiB | {} | {} | {} | {} |",
                size_name(size),
                rate(up),
                rate(down),
                dma.host_dma_transfers() - before
            );
        }
    }
}
