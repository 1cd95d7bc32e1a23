//! `--fixed` and `--faults`: what a transfer costs besides moving its bytes. `--fixed` times
//! readbacks into a touched slice and uploads into existing data from 1 MiB to 1 GiB and fits
//! `time = fixed + bytes / rate` (the fixed part per call), counts the readback staging buffers
//! made, and times starting threads. `--faults` prints the transparent huge page settings and
//! the rates of first touches of fresh memory (the bound of readbacks into new memory).

use std::time::Instant;

use gpudata::data::DEFAULT_USAGE;
use gpudata::device::staging_buffers_made;
use gpudata::{Gpu, GpuData, GpuDataDescriptor, TypedGpuData, VertexFormat};

use crate::cases::fail;
use crate::probe::median_secs;
use crate::rows::packed_rows;

/// Least squares of `secs = fixed + bytes / rate`: (fixed ms, rate GB/s).
fn fit(points: &[(f64, f64)]) -> (f64, f64) {
    let n = points.len() as f64;
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let sxx: f64 = points.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    let sxy: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let slope = sxy / sxx;
    ((my - slope * mx) * 1e3, 1.0 / slope / 1e9)
}

const MIB: u64 = 1 << 20;

/// `--fixed`: the fixed cost per call of readbacks into a touched slice and of uploads into
/// existing data.
pub fn fixed_costs(gpu: &Gpu) {
    let sizes = [MIB, 4 * MIB, 16 * MIB, 64 * MIB, 256 * MIB, 1024 * MIB];
    let largest = *sizes.last().unwrap_or(&MIB);
    let src: Vec<u8> = (0..largest).map(|i| (i * 13 + 1) as u8).collect();
    let mut out = vec![1u8; largest as usize];
    println!(
        "fixed costs (median; read_bytes_into a touched slice, write_rows into existing data):"
    );
    println!("| size | read ms | read GB/s | staging made | write ms | write GB/s |");
    println!("|---:|---:|---:|---:|---:|---:|");
    let mut reads = Vec::new();
    let mut writes = Vec::new();
    for &size in &sizes {
        let n = ((4 * 1024 * MIB) / size).clamp(7, 41) as usize;
        let out = &mut out[..size as usize];
        let data = GpuData::from_bytes(
            gpu,
            &src[..size as usize],
            GpuDataDescriptor::new(VertexFormat::Uint32, size / 4),
            DEFAULT_USAGE,
        )
        .unwrap_or_else(|e| fail(e));
        let made = staging_buffers_made();
        let read = median_secs(n, || {
            data.read_bytes_into(gpu, out).unwrap_or_else(|e| fail(e))
        });
        let made = staging_buffers_made() - made;
        if out != &src[..size as usize] {
            fail("fixed-cost readback differs");
        }
        let rows = packed_rows(size as usize);
        let target = TypedGpuData::from_rows(gpu, &rows, DEFAULT_USAGE).unwrap_or_else(|e| fail(e));
        let bytes = target.as_data().byte_length() as f64;
        let write = median_secs(n, || {
            target.write_rows(gpu, 0, &rows).unwrap_or_else(|e| fail(e));
            gpu.wait_idle().unwrap_or_else(|e| fail(e));
        });
        println!(
            "| {} MiB | {:.3} | {:.2} | {made} | {:.3} | {:.2} |",
            size / MIB,
            read * 1e3,
            size as f64 / read / 1e9,
            write * 1e3,
            bytes / write / 1e9
        );
        if size >= 16 * MIB {
            reads.push((size as f64, read));
            writes.push((bytes, write));
        }
    }
    let (rf, rr) = fit(&reads);
    let (wf, wr) = fit(&writes);
    println!(
        "fit over 16 MiB-1 GiB: readback {rf:.3} ms + bytes at {rr:.2} GB/s; upload {wf:.3} ms + bytes at {wr:.2} GB/s"
    );
    // Creating a device buffer and destroying it, apart: what `from_*` uploads pay besides the
    // copy (they create their destination; the table's upload rows drop the previous one
    // untimed).
    println!("| device buffer | create ms | destroy ms |");
    println!("|---:|---:|---:|");
    let max = gpu.limits().max_buffer_size & !(MIB - 1);
    for size in [64 * MIB, 256 * MIB, 1024 * MIB, max] {
        let mut creates = Vec::new();
        let mut destroys = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
                label: Some("create probe"),
                size,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            });
            gpu.wait_idle().unwrap_or_else(|e| fail(e));
            creates.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            drop(buffer);
            gpu.wait_idle().unwrap_or_else(|e| fail(e));
            destroys.push(t.elapsed().as_secs_f64());
        }
        creates.sort_by(f64::total_cmp);
        destroys.sort_by(f64::total_cmp);
        println!(
            "| {} MiB | {:.3} | {:.3} |",
            size / MIB,
            creates[2] * 1e3,
            destroys[2] * 1e3
        );
    }
    // What starting threads per call costs (uploads start their workers per call).
    let spawn = median_secs(200, || {
        std::thread::scope(|s| {
            for _ in 0..7 {
                s.spawn(|| std::hint::black_box(0));
            }
        })
    });
    println!("7 scoped threads started and joined: {:.1} µs", spawn * 1e6);
}

/// The transparent huge page settings.
fn thp_settings() {
    for file in [
        "enabled",
        "defrag",
        "khugepaged/defrag",
        "hpage_pmd_size",
        "shmem_enabled",
    ] {
        let path = format!("/sys/kernel/mm/transparent_hugepage/{file}");
        println!(
            "THP {file}: {}",
            std::fs::read_to_string(&path)
                .unwrap_or_else(|e| e.to_string())
                .trim()
        );
    }
}

/// `AnonHugePages` of this process in KiB.
fn anon_huge_kib() -> u64 {
    std::fs::read_to_string("/proc/self/smaps_rollup")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("AnonHugePages:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Advises huge pages for the whole 2 MiB pages of `v`.
fn advise(v: &mut [u8]) {
    let p = v.as_mut_ptr() as usize;
    let start = p.next_multiple_of(2 << 20);
    let end = (p + v.len()) & !((2 << 20) - 1);
    if end > start {
        // SAFETY: advice on pages of this allocation only; contents do not change.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

/// Runs `f` on `threads` scoped threads over equal shares of `dst` (and `src`).
fn on_threads(dst: &mut [u8], src: Option<&[u8]>, threads: usize) {
    let share = dst.len().div_ceil(threads).next_multiple_of(4096);
    std::thread::scope(|scope| {
        for (i, d) in dst.chunks_mut(share).enumerate() {
            let s = src.map(|s| &s[i * share..i * share + d.len()]);
            scope.spawn(move || match s {
                Some(s) => d.copy_from_slice(s),
                // One write per 4 KiB page: the fault (and the kernel's zeroing) alone.
                None => d.iter_mut().step_by(4096).for_each(|b| *b = 1),
            });
        }
    });
}

/// `--faults`: first touches of fresh `calloc`'d memory (as readbacks into new memory get it)
/// on 8 and 16 threads, with and without `MADV_HUGEPAGE`: a page write per 4 KiB alone, and a
/// copy from touched memory; a copy into touched memory for reference. And readbacks into new
/// memory against a fresh vector pre-faulted on 16 threads and then read into.
pub fn faults(gpu: &Gpu) {
    thp_settings();
    let size = 1usize << 30;
    let src: Vec<u8> = (0..size).map(|i| (i * 5 + 1) as u8).collect();
    let mut touched = vec![1u8; size];
    println!("| case | huge pages advised | threads | GB/s | AnonHugePages MiB after |");
    println!("|---|---|---:|---:|---:|");
    for advised in [false, true] {
        for threads in [8usize, 16] {
            for copy in [false, true] {
                let mut secs = Vec::new();
                let mut huge = 0;
                for _ in 0..3 {
                    let mut v = vec![0u8; size];
                    if advised {
                        advise(&mut v);
                    }
                    let base = anon_huge_kib();
                    let t = Instant::now();
                    on_threads(&mut v, copy.then_some(src.as_slice()), threads);
                    secs.push(t.elapsed().as_secs_f64());
                    huge = anon_huge_kib().saturating_sub(base) >> 10;
                    std::hint::black_box(&v);
                }
                secs.sort_by(f64::total_cmp);
                println!(
                    "| fresh 1 GiB, {} | {advised} | {threads} | {:.2} | {huge} |",
                    if copy {
                        "copy in"
                    } else {
                        "one write per page"
                    },
                    size as f64 / secs[1] / 1e9
                );
            }
        }
    }
    for threads in [8usize, 16] {
        let secs = median_secs(3, || on_threads(&mut touched, Some(&src), threads));
        println!(
            "| touched 1 GiB, copy in | — | {threads} | {:.2} | — |",
            size as f64 / secs / 1e9
        );
    }
    drop(touched);
    let data = GpuData::from_bytes(
        gpu,
        &src,
        GpuDataDescriptor::new(VertexFormat::Uint32, size as u64 / 4),
        DEFAULT_USAGE,
    )
    .unwrap_or_else(|e| fail(e));
    let fresh = median_secs(5, || {
        let back = data.read_bytes(gpu).unwrap_or_else(|e| fail(e));
        std::hint::black_box(back);
    });
    let prefaulted = median_secs(5, || {
        let mut v = vec![0u8; size];
        advise(&mut v);
        on_threads(&mut v, None, 16);
        data.read_bytes_into(gpu, &mut v)
            .unwrap_or_else(|e| fail(e));
        std::hint::black_box(v);
    });
    println!(
        "1 GiB readback into new memory: read_bytes {:.2} GB/s; fresh Vec pre-faulted on 16 threads then read_bytes_into, together {:.2} GB/s",
        size as f64 / fresh / 1e9,
        size as f64 / prefaulted / 1e9
    );
}
