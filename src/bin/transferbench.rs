//! `transferbench`: host ↔ GPU transfer rates of every gpudata path, both directions, next to
//! `queue.write_buffer`, measured in one run on one device, with the peak resident memory each
//! case added. `transferbench/pytorch_transfer.py` prints PyTorch's pinned and pageable rates
//! on the same machine; run both in one job to compare side by side.
//!
//! ```text
//! transferbench [--sizes 4k,1m,64m,256m,1g] [--paths a,b] [--iters N] [--probe] [--sweep] [--readback-sweep] [--small] [--levers] [--fixed] [--faults] [--dma-sweep] [--no-table]
//!               [--threads N] [--chunk-mib N] [--budget-mib N]
//! ```
//!
//! Paths named `<path>_dma` (`write_rows_dma`, `bytes_dma`, `bytes_into_dma`, or any path with
//! the suffix) run `<path>` with [`TransferConfig::host_dma`] on in
//! [`HostDmaMode::ImportCallerPages`] (feature `host-dma`: the caller's pages imported with
//! `VK_EXT_external_memory_host` and copied by the GPU's copy engine); `--dma-sweep` times them
//! over piece sizes. Paths named `<path>_ring` (`write_rows_ring`, `bytes_ring`, ...) run
//! `<path>` in [`HostDmaMode::PinnedStaging`]: uploads through the device's pinned staging ring
//! (slots and threads from `--chunk-mib`, `--budget-mib`, `--threads`; the first `_ring` path
//! of the run makes the ring, so one geometry per run), readbacks staged as without host DMA
//! (so a readback-only path such as `bytes_into_ring` measures the staged path). `memcpy` times
//! the ring's host copies alone at the same slot size and thread count, `ring_dma` the copy
//! engine alone from the ring into device memory (module `ring.rs`): what bounds a `_ring`
//! upload.
//!
//! `--probe` prints the adapter's Vulkan memory types (and which ones wgpu's allocator picks for
//! `MAP_WRITE` and `MAP_READ` staging), single-buffer mapped-memory copy rates by thread count
//! and the `copy_buffer_to_buffer` rate between staging and device memory. `--sweep` times
//! 1 GiB uploads and readbacks over thread counts and chunk sizes; `--readback-sweep` times
//! readbacks into a touched slice at 256 MiB, 1 GiB and 4 GiB over readback-pipeline
//! configurations. `--small` breaks a 4 KiB and
//! a 1 MiB upload down into what gpudata adds to `queue.write_buffer`; `--levers` measures
//! pinning the copy threads to cores; `--fixed` fits each call's fixed cost; `--faults` measures
//! first touches of fresh memory (it replaces `--probe`'s fresh-vector rates, which timed a
//! one-thread zeroing with the copy). The table times each path
//! (median of the iterations; uploads until the device is idle, readbacks until the bytes are in
//! a host `Vec`), checks the bytes of every readback against the source, and reports GB/s
//! (10⁹ bytes per second) and the peak resident memory the case added above the source
//! (`VmHWM` after `/proc/self/clear_refs`).

#[path = "transferbench/cases.rs"]
mod cases;
#[path = "transferbench/costs.rs"]
mod costs;
#[path = "transferbench/probe.rs"]
mod probe;
#[path = "transferbench/ring.rs"]
mod ring;
#[path = "../../benches/support/rows.rs"]
mod rows;

use std::time::Instant;

use gpudata::Gpu;
use gpudata::device::{HostDmaMode, TransferConfig};

/// Command-line options.
pub struct Args {
    sizes: Vec<u64>,
    paths: Option<Vec<String>>,
    iters: Option<u32>,
    probe: bool,
    sweep: bool,
    readback_sweep: bool,
    small: bool,
    levers: bool,
    fixed: bool,
    faults: bool,
    dma_sweep: bool,
    table: bool,
    threads: Option<usize>,
    chunk_mib: Option<u64>,
    budget_mib: Option<u64>,
}

fn parse_size(text: &str) -> Result<u64, String> {
    let lower = text.to_ascii_lowercase();
    let (digits, unit) = match lower.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => lower.split_at(i),
        None => (lower.as_str(), ""),
    };
    let n: u64 = digits.parse().map_err(|e| format!("size {text}: {e}"))?;
    let shift = match unit {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        _ => return Err(format!("size {text}: unknown unit {unit}")),
    };
    Ok(n << shift)
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        sizes: ["4k", "1m", "64m", "256m", "1g"]
            .iter()
            .map(|s| parse_size(s))
            .collect::<Result<_, _>>()?,
        paths: None,
        iters: None,
        probe: false,
        sweep: false,
        readback_sweep: false,
        small: false,
        levers: false,
        fixed: false,
        faults: false,
        dma_sweep: false,
        table: true,
        threads: None,
        chunk_mib: None,
        budget_mib: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        let number = |name: &str, v: String| v.parse::<u64>().map_err(|e| format!("{name}: {e}"));
        match arg.as_str() {
            "--sizes" => {
                args.sizes = value("--sizes")?
                    .split(',')
                    .map(parse_size)
                    .collect::<Result<_, _>>()?;
            }
            "--paths" => {
                args.paths = Some(value("--paths")?.split(',').map(str::to_owned).collect())
            }
            "--iters" => args.iters = Some(number("--iters", value("--iters")?)? as u32),
            "--probe" => args.probe = true,
            "--sweep" => args.sweep = true,
            "--readback-sweep" => args.readback_sweep = true,
            "--small" => args.small = true,
            "--levers" => args.levers = true,
            "--fixed" => args.fixed = true,
            "--faults" => args.faults = true,
            "--dma-sweep" => args.dma_sweep = true,
            "--no-table" => args.table = false,
            "--threads" => args.threads = Some(number("--threads", value("--threads")?)? as usize),
            "--chunk-mib" => args.chunk_mib = Some(number("--chunk-mib", value("--chunk-mib")?)?),
            "--budget-mib" => {
                args.budget_mib = Some(number("--budget-mib", value("--budget-mib")?)?);
            }
            "--help" | "-h" => {
                println!(
                    "transferbench [--sizes 4k,1m,64m,256m,1g] [--paths a,b] [--iters N] [--probe] [--sweep] [--readback-sweep] [--small] [--levers] [--fixed] [--faults] [--dma-sweep] [--no-table] [--threads N] [--chunk-mib N] [--budget-mib N]"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

/// The transfer configuration the options ask for (the default where they say nothing).
fn config(args: &Args) -> TransferConfig {
    let mut config = TransferConfig::new();
    if let Some(t) = args.threads {
        config = config.threads(t);
    }
    if let Some(c) = args.chunk_mib {
        config = config.chunk_bytes(c << 20);
    }
    if let Some(b) = args.budget_mib {
        config = config.budget_bytes(b << 20);
    }
    config
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!("transferbench: {e}");
        std::process::exit(2);
    });
    let start = Instant::now();
    let gpu = Gpu::headless().unwrap_or_else(|e| {
        eprintln!("transferbench: {e}");
        std::process::exit(1);
    });
    let gpu = gpu.with_transfer_config(config(&args));
    let plan_threads = gpu.transfer_config().threads_for(gpu.adapter_kind());
    println!(
        "adapter: {}; transfer threads {plan_threads}, budget {} MiB; host threads available {}",
        gpu.adapter_summary(),
        gpu.transfer_config().budget() >> 20,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!("max_buffer_size {} bytes", gpu.limits().max_buffer_size);
    match gpu.host_dma() {
        Ok(support) => println!(
            "host dma (the *_dma paths): available, import alignment {} bytes",
            support.import_alignment
        ),
        Err(e) => println!("host dma (the *_dma paths): unavailable: {e}"),
    }
    let (slot, slots) = gpu.transfer_config().pinned_ring(gpu.adapter_kind());
    println!(
        "pinned staging ring (the *_ring paths, {:?} by default with host dma on): {} slots of {} KiB",
        HostDmaMode::default(),
        slots,
        slot >> 10
    );
    if args.probe {
        probe::memory_types(&gpu);
        probe::mapped_copy_rates(&gpu);
        probe::dma_rates(&gpu);
        probe::upload_strategies(&gpu);
    }
    if args.small {
        probe::small_costs(&gpu);
    }
    if args.levers {
        probe::levers(&gpu);
    }
    if args.faults {
        costs::faults(&gpu);
    }
    if args.fixed {
        costs::fixed_costs(&gpu);
    }
    if args.sweep {
        cases::sweep(&gpu);
    }
    if args.readback_sweep {
        cases::readback_sweep(&gpu);
    }
    if args.dma_sweep {
        cases::dma_sweep(&gpu, &args);
    }
    if args.table {
        cases::table(&gpu, &args);
    }
    println!(
        "readback staging buffers made in the run: {}",
        gpudata::device::staging_buffers_made()
    );
    println!(
        "peak resident memory of the run: {} MiB; {:.1} s",
        cases::vm_kib("VmHWM") >> 10,
        start.elapsed().as_secs_f64()
    );
}
