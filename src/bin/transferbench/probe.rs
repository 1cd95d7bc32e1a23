//! `--probe`: where a transfer's time goes on this device. Vulkan memory types and the ones
//! wgpu's allocator (gpu-allocator) gives staging buffers, mapped-memory copy rates by thread
//! count, and `copy_buffer_to_buffer` rates between staging and device-local memory.

use std::time::Instant;

use gpudata::Gpu;

const PROBE_BYTES: usize = 256 << 20;

/// Prints the device's memory types and heaps, and the types gpu-allocator picks for wgpu's
/// `MAP_WRITE` buffers (`CpuToGpu`: host-visible + coherent, device-local preferred) and
/// `MAP_READ` buffers (`GpuToCpu`: host-visible + coherent, host-cached preferred).
pub fn memory_types(gpu: &Gpu) {
    // SAFETY: the raw device handle is only used to query properties, while `gpu` keeps the
    // device alive; nothing is created or destroyed through it.
    let Some(device) = (unsafe { gpu.device().as_hal::<wgpu::hal::api::Vulkan>() }) else {
        println!("memory types: not a Vulkan device");
        return;
    };
    let instance = device.shared_instance().raw_instance();
    // SAFETY: a valid physical device of this instance.
    let props =
        unsafe { instance.get_physical_device_memory_properties(device.raw_physical_device()) };
    println!("memory heaps:");
    for (i, heap) in props.memory_heaps_as_slice().iter().enumerate() {
        println!(
            "  heap {i}: {} MiB, flags {:?}",
            heap.size >> 20,
            heap.flags
        );
    }
    println!("memory types:");
    let types = props.memory_types_as_slice();
    for (i, ty) in types.iter().enumerate() {
        println!(
            "  type {i}: heap {}, {:?}",
            ty.heap_index, ty.property_flags
        );
    }
    // gpu-allocator 0.28's rule: the first type with the preferred flags, else the first with
    // HOST_VISIBLE | HOST_COHERENT (the buffer's allowed type bits aside).
    let pick = |preferred: u32| {
        let base = 0x2 | 0x4; // HOST_VISIBLE | HOST_COHERENT
        types
            .iter()
            .position(|t| t.property_flags.as_raw() & (base | preferred) == base | preferred)
            .or_else(|| {
                types
                    .iter()
                    .position(|t| t.property_flags.as_raw() & base == base)
            })
    };
    println!(
        "gpu-allocator picks: MAP_WRITE (CpuToGpu, prefers DEVICE_LOCAL) -> type {:?}; MAP_READ (GpuToCpu, prefers HOST_CACHED) -> type {:?}",
        pick(0x1),
        pick(0x8)
    );
}

/// Times `f` once, in GB/s for `bytes`.
fn rate(bytes: usize, f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    bytes as f64 / t.elapsed().as_secs_f64() / 1e9
}

/// Copies `src` into the mapped `buffer` on `threads` scoped threads, each through a view of
/// its own share (wgpu hands out disjoint mapped views at once).
fn parallel_copy_into(buffer: &wgpu::Buffer, src: &[u8], threads: usize) {
    let share = src.len().div_ceil(threads).next_multiple_of(256);
    std::thread::scope(|scope| {
        for (i, piece) in src.chunks(share).enumerate() {
            scope.spawn(move || {
                let at = (i * share) as u64;
                let mut view = buffer
                    .get_mapped_range_mut(at..at + piece.len() as u64)
                    .unwrap();
                view.slice(..).copy_from_slice(piece);
            });
        }
    });
}

fn parallel_copy_out(dst: &mut [u8], src: &[u8], threads: usize) {
    let share = src.len().div_ceil(threads);
    std::thread::scope(|scope| {
        for (d, s) in dst.chunks_mut(share).zip(src.chunks(share)) {
            scope.spawn(move || d.copy_from_slice(s));
        }
    });
}

/// Mapped-memory copy rates: the caller's memory into a mapped `MAP_WRITE` buffer, and a mapped
/// `MAP_READ` buffer into a fresh `Vec` (page faults included) and into a touched one, on 1 to
/// 16 threads; a host `memcpy` between ordinary buffers for reference.
pub fn mapped_copy_rates(gpu: &Gpu) {
    let src: Vec<u8> = (0..PROBE_BYTES).map(|i| (i * 7 + 3) as u8).collect();
    let mut host = vec![0u8; PROBE_BYTES];
    host.copy_from_slice(&src);
    println!("mapped copies of {} MiB, GB/s:", PROBE_BYTES >> 20);
    println!(
        "  threads | host->host | host->MAP_WRITE | MAP_READ->fresh Vec | MAP_READ->touched Vec"
    );
    let device = gpu.device();
    for threads in [1, 2, 4, 8, 16] {
        let hh = rate(PROBE_BYTES, || parallel_copy_out(&mut host, &src, threads));
        let write = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("probe map_write"),
            size: PROBE_BYTES as u64,
            usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: true,
        });
        // First touch of the mapping (wgpu zeroes it) then a timed second pass.
        parallel_copy_into(&write, &src, threads);
        let hw = rate(PROBE_BYTES, || parallel_copy_into(&write, &src, threads));
        write.unmap();
        let read = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("probe map_read"),
            size: PROBE_BYTES as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&write, 0, &read, 0, None);
        gpu.queue().submit([encoder.finish()]);
        read.map_async(wgpu::MapMode::Read, .., |r| r.unwrap());
        gpu.wait_idle().unwrap();
        let view = read.get_mapped_range(..).unwrap();
        let mut fresh = Vec::new();
        let rf = rate(PROBE_BYTES, || {
            fresh = vec![0u8; PROBE_BYTES];
            parallel_copy_out(&mut fresh, &view, threads);
        });
        let rt = rate(PROBE_BYTES, || parallel_copy_out(&mut host, &view, threads));
        assert!(fresh == src && host == src, "probe bytes differ");
        drop(view);
        read.unmap();
        println!("  {threads:>7} | {hh:>10.1} | {hw:>15.1} | {rf:>19.1} | {rt:>21.1}");
    }
}

/// `copy_buffer_to_buffer` of 256 MiB: `MAP_WRITE` staging to device-local memory and device
/// memory to `MAP_READ` staging, wall clock from submit to idle (median of 5).
pub fn dma_rates(gpu: &Gpu) {
    let device = gpu.device();
    let size = PROBE_BYTES as u64;
    let make = |usage, label| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    use wgpu::BufferUsages as U;
    let up = make(U::MAP_WRITE | U::COPY_SRC, "probe up");
    let dev = make(U::STORAGE | U::COPY_DST | U::COPY_SRC, "probe device");
    let down = make(U::MAP_READ | U::COPY_DST, "probe down");
    let dev2 = make(U::STORAGE | U::COPY_DST | U::COPY_SRC, "probe device 2");
    let time = |src: &wgpu::Buffer, dst: &wgpu::Buffer| {
        let mut rates: Vec<f64> = (0..5)
            .map(|_| {
                let t = Instant::now();
                let mut encoder = device.create_command_encoder(&Default::default());
                encoder.copy_buffer_to_buffer(src, 0, dst, 0, None);
                gpu.queue().submit([encoder.finish()]);
                gpu.wait_idle().unwrap();
                size as f64 / t.elapsed().as_secs_f64() / 1e9
            })
            .collect();
        rates.sort_by(f64::total_cmp);
        rates[2]
    };
    println!(
        "copy_buffer_to_buffer {} MiB: MAP_WRITE staging -> device {:.1} GB/s, device -> MAP_READ staging {:.1} GB/s, device -> device {:.1} GB/s",
        size >> 20,
        time(&up, &dev),
        time(&dev, &down),
        time(&dev, &dev2)
    );
}

/// Seconds of the median of `n` runs of `f` (after one warm-up run).
pub fn median_secs(n: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut v: Vec<f64> = (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[n / 2]
}

/// Upload strategies into one existing 1 GiB device buffer, 4 MiB chunks, at 4, 8 and 16
/// threads (each thread chunks `t`, `t + threads`, ...): `write_buffer_with` per chunk with at
/// most two of the thread's submissions in flight; a fresh `mapped_at_creation` `MAP_WRITE`
/// buffer per chunk; two `MAP_WRITE` buffers per thread re-mapped with `map_async` after each
/// copy. And the cost of creating a 1 GiB device buffer.
pub fn upload_strategies(gpu: &Gpu) {
    use wgpu::BufferUsages as U;
    let size: u64 = 1 << 30;
    let chunk: u64 = 4 << 20;
    let chunks = size / chunk;
    let src: Vec<u8> = (0..size).map(|i| (i * 13 + 1) as u8).collect();
    let device = gpu.device();
    let queue = gpu.queue();
    let dst = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("probe dst"),
        size,
        usage: U::STORAGE | U::COPY_DST | U::COPY_SRC,
        mapped_at_creation: false,
    });
    let create = median_secs(3, || {
        let b = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("probe create"),
            size,
            usage: U::STORAGE | U::COPY_DST | U::COPY_SRC | U::VERTEX,
            mapped_at_creation: false,
        });
        let mut e = device.create_command_encoder(&Default::default());
        e.clear_buffer(&b, 0, Some(4));
        queue.submit([e.finish()]);
        gpu.wait_idle().unwrap();
    });
    println!(
        "create a 1 GiB device buffer + first use: {:.1} ms",
        create * 1e3
    );
    let wait = |s: wgpu::SubmissionIndex| {
        device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(s),
                timeout: None,
            })
            .unwrap();
    };
    let piece = |k: u64| &src[(k * chunk) as usize..((k + 1) * chunk) as usize];
    let dst = &dst;
    let wait = &wait;
    let piece = &piece;
    println!("upload strategies, 1 GiB into an existing buffer, 4 MiB chunks, GB/s:");
    println!("  threads | write_buffer_with | fresh mapped staging | reused staging (map_async)");
    for threads in [4u64, 8, 16] {
        // Thread `t` stages chunks `t, t + threads, ...`, at most three in flight.
        let staged = |stage: &(dyn Fn(u64) -> wgpu::SubmissionIndex + Sync)| {
            median_secs(3, || {
                std::thread::scope(|s| {
                    for t in 0..threads {
                        s.spawn(move || {
                            let mut in_flight = std::collections::VecDeque::new();
                            let mut k = t;
                            while k < chunks {
                                in_flight.push_back(stage(k));
                                if in_flight.len() > 2 {
                                    wait(in_flight.pop_front().unwrap());
                                }
                                k += threads;
                            }
                        });
                    }
                });
                gpu.wait_idle().unwrap();
            })
        };
        let queue_path = staged(&|k| {
            let mut view = queue
                .write_buffer_with(dst, k * chunk, chunk.try_into().unwrap())
                .unwrap();
            view.slice(..).copy_from_slice(piece(k));
            drop(view);
            queue.submit([])
        });
        let fresh = staged(&|k| {
            let staging = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("probe fresh"),
                size: chunk,
                usage: U::MAP_WRITE | U::COPY_SRC,
                mapped_at_creation: true,
            });
            staging
                .get_mapped_range_mut(..)
                .unwrap()
                .slice(..)
                .copy_from_slice(piece(k));
            staging.unmap();
            let mut e = device.create_command_encoder(&Default::default());
            e.copy_buffer_to_buffer(&staging, 0, dst, k * chunk, Some(chunk));
            queue.submit([e.finish()])
        });
        let reused = median_secs(3, || {
            std::thread::scope(|s| {
                for t in 0..threads {
                    s.spawn(move || {
                        let ring: Vec<wgpu::Buffer> = (0..2)
                            .map(|_| {
                                device.create_buffer(&wgpu::BufferDescriptor {
                                    label: Some("probe ring"),
                                    size: chunk,
                                    usage: U::MAP_WRITE | U::COPY_SRC,
                                    mapped_at_creation: true,
                                })
                            })
                            .collect();
                        let flags: Vec<std::sync::Arc<std::sync::atomic::AtomicBool>> = (0..2)
                            .map(|_| std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true)))
                            .collect();
                        let mut subs: Vec<Option<wgpu::SubmissionIndex>> = vec![None, None];
                        let mut k = t;
                        let mut n = 0;
                        while k < chunks {
                            let i = n % 2;
                            if let Some(s) = subs[i].take() {
                                wait(s);
                                while !flags[i].load(std::sync::atomic::Ordering::Acquire) {
                                    let _ = device.poll(wgpu::PollType::Poll);
                                    std::thread::yield_now();
                                }
                            }
                            ring[i]
                                .get_mapped_range_mut(..)
                                .unwrap()
                                .slice(..)
                                .copy_from_slice(piece(k));
                            ring[i].unmap();
                            let mut e = device.create_command_encoder(&Default::default());
                            e.copy_buffer_to_buffer(&ring[i], 0, dst, k * chunk, Some(chunk));
                            let sub = queue.submit([e.finish()]);
                            flags[i].store(false, std::sync::atomic::Ordering::Release);
                            let flag = flags[i].clone();
                            ring[i].map_async(wgpu::MapMode::Write, .., move |r| {
                                r.unwrap();
                                flag.store(true, std::sync::atomic::Ordering::Release);
                            });
                            subs[i] = Some(sub);
                            k += threads;
                            n += 1;
                        }
                        for (i, s) in subs.into_iter().enumerate() {
                            if let Some(s) = s {
                                wait(s);
                                while !flags[i].load(std::sync::atomic::Ordering::Acquire) {
                                    let _ = device.poll(wgpu::PollType::Poll);
                                    std::thread::yield_now();
                                }
                            }
                        }
                    });
                }
            });
            gpu.wait_idle().unwrap();
        });
        let gbs = |s: f64| size as f64 / s / 1e9;
        println!(
            "  {threads:>7} | {:>17.2} | {:>20.2} | {:>26.2}",
            gbs(queue_path),
            gbs(fresh),
            gbs(reused)
        );
    }
}

/// `--small`: where a small upload's time goes, in microseconds per call (median of many):
/// `queue.write_buffer` (and `write_buffer_with`) + `submit` + `wait_idle` against gpudata's
/// `write_rows` + `wait_idle`
/// at 4 KiB and 1 MiB, and the pieces a gpudata upload adds: the full loss check
/// (`Gpu::is_lost`: a poll and a mapped probe buffer), a bare poll, three error scopes pushed
/// and popped, an empty submit, and `wait_idle` alone.
pub fn small_costs(gpu: &Gpu) {
    use gpudata::TypedGpuData;
    use gpudata::data::DEFAULT_USAGE;
    println!("small transfers, microseconds per call (median):");
    println!("| what | 4 KiB | 1 MiB |");
    println!("|---|---:|---:|");
    let us = |n: usize, f: &mut dyn FnMut()| median_secs(n, f) * 1e6;
    let sizes = [(4usize << 10, 2000usize), (1 << 20, 300)];
    let mut write_buffer = Vec::new();
    let mut write_buffer_with = Vec::new();
    let mut write_rows = Vec::new();
    for (size, n) in sizes {
        let rows = crate::rows::packed_rows(size);
        let data =
            TypedGpuData::from_rows(gpu, &rows, DEFAULT_USAGE).unwrap_or_else(|e| panic!("{e}"));
        let bytes: Vec<u8> = vec![7; data.as_data().byte_length() as usize];
        write_buffer.push(us(n, &mut || {
            gpu.queue().write_buffer(data.as_data().buffer(), 0, &bytes);
            gpu.queue().submit([]);
            gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
        }));
        write_buffer_with.push(us(n, &mut || {
            let size = wgpu::BufferSize::new(bytes.len() as u64).unwrap_or_else(|| panic!("empty"));
            let mut view = gpu
                .queue()
                .write_buffer_with(data.as_data().buffer(), 0, size)
                .unwrap_or_else(|| panic!("no staging"));
            view.slice(..).copy_from_slice(&bytes);
            drop(view);
            gpu.queue().submit([]);
            gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
        }));
        write_rows.push(us(n, &mut || {
            data.write_rows(gpu, 0, &rows)
                .unwrap_or_else(|e| panic!("{e}"));
            gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
        }));
    }
    println!(
        "| write_buffer + submit + wait_idle | {:.1} | {:.1} |",
        write_buffer[0], write_buffer[1]
    );
    println!(
        "| write_buffer_with + copy + submit + wait_idle | {:.1} | {:.1} |",
        write_buffer_with[0], write_buffer_with[1]
    );
    println!(
        "| write_rows + wait_idle | {:.1} | {:.1} |",
        write_rows[0], write_rows[1]
    );
    // The calls alone, the wait for the device after each untimed: CPU time of the call.
    let call_us = |n: usize, f: &mut dyn FnMut()| {
        let mut v: Vec<f64> = (0..n)
            .map(|_| {
                let t = Instant::now();
                f();
                let secs = t.elapsed().as_secs_f64();
                gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
                secs * 1e6
            })
            .collect();
        v.sort_by(f64::total_cmp);
        v[n / 2]
    };
    let mut calls = Vec::new();
    for (size, n) in sizes {
        let rows = crate::rows::packed_rows(size);
        let data =
            TypedGpuData::from_rows(gpu, &rows, DEFAULT_USAGE).unwrap_or_else(|e| panic!("{e}"));
        let bytes: Vec<u8> = vec![7; data.as_data().byte_length() as usize];
        let wb = call_us(n, &mut || {
            gpu.queue().write_buffer(data.as_data().buffer(), 0, &bytes);
            gpu.queue().submit([]);
        });
        let wr = call_us(n, &mut || {
            data.write_rows(gpu, 0, &rows)
                .unwrap_or_else(|e| panic!("{e}"));
        });
        calls.push((wb, wr));
    }
    println!(
        "| write_buffer + submit, call only | {:.1} | {:.1} |",
        calls[0].0, calls[1].0
    );
    println!(
        "| write_rows, call only | {:.1} | {:.1} |",
        calls[0].1, calls[1].1
    );
    let device = gpu.device();
    let one = |name: &str, f: &mut dyn FnMut()| println!("| {name} | {:.1} | |", us(2000, f));
    one("Gpu::is_lost (poll + mapped probe buffer)", &mut || {
        assert!(!gpu.is_lost());
    });
    one("device.poll(Poll)", &mut || {
        let _ = device.poll(wgpu::PollType::Poll);
    });
    one("3 error scopes pushed, popped, awaited", &mut || {
        let a = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let b = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let c = device.push_error_scope(wgpu::ErrorFilter::Internal);
        let (c, b, a) = (c.pop(), b.pop(), a.pop());
        assert!(pollster::block_on(c).is_none());
        assert!(pollster::block_on(b).is_none());
        assert!(pollster::block_on(a).is_none());
    });
    one("queue.submit([])", &mut || {
        gpu.queue().submit([]);
    });
    one("wait_idle", &mut || {
        gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
    });
}

/// Pins the calling thread to CPU `core` (Linux; elsewhere nothing).
fn pin(core: usize) {
    #[cfg(target_os = "linux")]
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET writes inside it; the call changes
    // only this thread's affinity.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = core;
}

/// `--levers`: what pinning the copy threads to one core each changes, on the two copies that
/// bound the transfers (the caller's memory into mapped `MAP_WRITE` memory for uploads, mapped
/// `MAP_READ` memory into touched memory for readbacks), 8 and 16 threads, median of 5 passes of
/// 256 MiB, GB/s.
pub fn levers(gpu: &Gpu) {
    let device = gpu.device();
    let src: Vec<u8> = (0..PROBE_BYTES).map(|i| (i * 7 + 3) as u8).collect();
    let mut host = vec![1u8; PROBE_BYTES];
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let write = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("lever map_write"),
        size: PROBE_BYTES as u64,
        usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: true,
    });
    let copy_into = |threads: usize, pinned: bool| {
        let share = src.len().div_ceil(threads).next_multiple_of(256);
        let write = &write;
        std::thread::scope(|scope| {
            for (i, piece) in src.chunks(share).enumerate() {
                scope.spawn(move || {
                    if pinned {
                        pin(i % cores);
                    }
                    let at = (i * share) as u64;
                    let mut view = write
                        .get_mapped_range_mut(at..at + piece.len() as u64)
                        .unwrap_or_else(|e| panic!("{e}"));
                    view.slice(..).copy_from_slice(piece);
                });
            }
        });
    };
    copy_into(16, false); // first touch
    let mut up = Vec::new();
    for threads in [8, 16] {
        for pinned in [false, true] {
            let secs = median_secs(5, || copy_into(threads, pinned));
            up.push((threads, pinned, PROBE_BYTES as f64 / secs / 1e9));
        }
    }
    write.unmap();
    let read = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("lever map_read"),
        size: PROBE_BYTES as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(&write, 0, &read, 0, None);
    gpu.queue().submit([encoder.finish()]);
    read.map_async(wgpu::MapMode::Read, .., |r| {
        r.unwrap_or_else(|e| panic!("{e}"))
    });
    gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
    let view = read.get_mapped_range(..).unwrap_or_else(|e| panic!("{e}"));
    let mut down = Vec::new();
    for threads in [8, 16] {
        for pinned in [false, true] {
            let secs = median_secs(5, || {
                let share = view.len().div_ceil(threads);
                std::thread::scope(|scope| {
                    for (i, (d, s)) in host.chunks_mut(share).zip(view.chunks(share)).enumerate() {
                        scope.spawn(move || {
                            if pinned {
                                pin(i % cores);
                            }
                            d.copy_from_slice(s);
                        });
                    }
                });
            });
            down.push((threads, pinned, PROBE_BYTES as f64 / secs / 1e9));
        }
    }
    assert!(host == src, "lever bytes differ");
    println!("levers, {} MiB, median of 5, GB/s:", PROBE_BYTES >> 20);
    println!("| copy | threads | unpinned | pinned |");
    println!("|---|---:|---:|---:|");
    for (name, rows) in [
        ("host -> MAP_WRITE (upload)", &up),
        ("MAP_READ -> touched host (readback)", &down),
    ] {
        for pair in rows.chunks(2) {
            println!(
                "| {name} | {} | {:.1} | {:.1} |",
                pair[0].0, pair[0].2, pair[1].2
            );
        }
    }
}
