//! The device (with timestamp queries where the adapter has them) and the timing of one case.

use std::time::Instant;

use gpudata::Gpu;

/// What one case records, each iteration.
pub enum Work {
    /// Dispatches recorded into a compute pass.
    Pass(Box<dyn Fn(&mut wgpu::ComputePass<'_>)>),
    /// `copy_buffer_to_buffer` of `size` bytes.
    Copy {
        /// Source.
        src: wgpu::Buffer,
        /// Destination.
        dst: wgpu::Buffer,
        /// Bytes.
        size: u64,
    },
    /// A whole call that submits its own work (a table re-layout). With encoder timestamps its
    /// GPU time is the time between two timestamps submitted just before and just after the
    /// call, while the queue is kept busy with block copies across the call's host work (so
    /// the GPU never waits for the host in between); else the wall clock around the call and
    /// the wait for the device.
    Call(Box<dyn Fn() -> Result<(), String>>),
}

/// The device, and whether passes and encoders can carry timestamps.
pub struct Timer {
    /// The device.
    pub gpu: Gpu,
    pass_timestamps: bool,
    encoder_timestamps: bool,
}

impl Timer {
    /// The best adapter (discrete first), with its own limits and the timestamp features it has.
    pub fn new() -> Result<Timer, String> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let mut adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
        adapters.sort_by_key(|a| match a.get_info().device_type {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Other => 3,
            wgpu::DeviceType::Cpu => 4,
        });
        let adapter = adapters.into_iter().next().ok_or(
            "no adapter: install a Vulkan driver (`mesa-vulkan-drivers` for lavapipe) or set \
             VK_DRIVER_FILES",
        )?;
        let wanted =
            wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS;
        // Subgroups too, where the adapter has them (the mask kernel's ballots), as
        // `Gpu::headless` asks for them.
        let features = adapter.features() & (wanted | wgpu::Features::SUBGROUP);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("gpubench"),
            required_features: features,
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| format!("request_device: {e}"))?;
        Ok(Timer {
            gpu: Gpu::from_device_queue(device, queue),
            pass_timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            encoder_timestamps: features.contains(wanted),
        })
    }

    /// Whether compute passes are timed with GPU timestamps.
    pub fn timestamps(&self) -> bool {
        self.pass_timestamps
    }
}

/// The times of one case.
pub struct Times {
    /// Median of the iterations' GPU times (or the wall-clock mean without timestamps).
    pub median_ms: f64,
    /// The fastest iteration.
    pub min_ms: f64,
    /// Wall clock around one submission of all iterations, divided by their count.
    pub wall_ms: f64,
}

fn record(encoder: &mut wgpu::CommandEncoder, work: &Work, stamps: Option<(&wgpu::QuerySet, u32)>) {
    match work {
        Work::Pass(encode) => {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("gpubench"),
                timestamp_writes: stamps.map(|(set, i)| wgpu::ComputePassTimestampWrites {
                    query_set: set,
                    beginning_of_pass_write_index: Some(i),
                    end_of_pass_write_index: Some(i + 1),
                }),
            });
            encode(&mut pass);
        }
        Work::Call(_) => {}
        Work::Copy { src, dst, size } => {
            if let Some((set, i)) = stamps {
                encoder.write_timestamp(set, i);
            }
            encoder.copy_buffer_to_buffer(src, 0, dst, 0, *size);
            if let Some((set, i)) = stamps {
                encoder.write_timestamp(set, i + 1);
            }
        }
    }
}

fn submit_and_wait(gpu: &Gpu, encoder: wgpu::CommandEncoder) -> Result<(), String> {
    gpu.queue().submit([encoder.finish()]);
    gpu.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .map(|_| ())
        .map_err(|e| format!("poll: {e}"))
}

/// Times `work`: `warmup` untimed runs, then `iters` runs.
pub fn time(timer: &Timer, work: &Work, warmup: u32, iters: u32) -> Result<Times, String> {
    if let Work::Call(call) = work {
        return time_calls(timer, call, warmup, iters);
    }
    let gpu = &timer.gpu;
    let device = gpu.device();
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let mut encoder = device.create_command_encoder(&Default::default());
    for _ in 0..warmup {
        record(&mut encoder, work, None);
    }
    submit_and_wait(gpu, encoder)?;

    // Wall clock: all iterations in one submission.
    let mut encoder = device.create_command_encoder(&Default::default());
    for _ in 0..iters {
        record(&mut encoder, work, None);
    }
    let start = Instant::now();
    submit_and_wait(gpu, encoder)?;
    let wall_ms = start.elapsed().as_secs_f64() * 1e3 / f64::from(iters);

    let stamped = match work {
        Work::Pass(_) => timer.pass_timestamps,
        Work::Copy { .. } => timer.encoder_timestamps,
        Work::Call(_) => false,
    };
    let times = if stamped {
        let count = 2 * iters;
        let set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("gpubench"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let resolved = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpubench timestamps"),
            size: u64::from(count) * 8,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        for i in 0..iters {
            record(&mut encoder, work, Some((&set, 2 * i)));
        }
        encoder.resolve_query_set(&set, 0..count, &resolved, 0);
        submit_and_wait(gpu, encoder)?;
        let bytes = crate::cases::read_range(gpu, &resolved, 0, u64::from(count) * 8)?;
        let period = f64::from(gpu.queue().get_timestamp_period());
        let ticks: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        ticks
            .chunks_exact(2)
            .map(|p| p[1].saturating_sub(p[0]) as f64 * period * 1e-6)
            .collect::<Vec<f64>>()
    } else {
        vec![wall_ms]
    };
    if let Some(error) = pollster::block_on(scope.pop()) {
        return Err(format!("validation: {error}"));
    }
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let median_ms = sorted[sorted.len() / 2];
    Ok(Times {
        median_ms,
        min_ms: sorted[0],
        wall_ms,
    })
}

/// Block copies of 1 GiB (or the buffer's size) queued before each timed call: about 160 ms on
/// an H200, longer than a re-layout's host work (buffer creation, planning).
const BUSY_COPIES: u32 = 64;

/// Times a whole call: `warmup` untimed calls, then `iters` calls (see [`Work::Call`]).
fn time_calls(
    timer: &Timer,
    call: &dyn Fn() -> Result<(), String>,
    warmup: u32,
    iters: u32,
) -> Result<Times, String> {
    let gpu = &timer.gpu;
    let device = gpu.device();
    for _ in 0..warmup {
        call()?;
        submit_and_wait(gpu, device.create_command_encoder(&Default::default()))?;
    }
    let mut walls = Vec::with_capacity(iters as usize);
    for _ in 0..iters {
        let start = Instant::now();
        call()?;
        submit_and_wait(gpu, device.create_command_encoder(&Default::default()))?;
        walls.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let wall_ms = walls.iter().sum::<f64>() / f64::from(iters);
    let times = if timer.encoder_timestamps {
        let busy_size = gpu.limits().max_buffer_size.min(1 << 30) / 16 * 16;
        let busy = |usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpubench busy"),
                size: busy_size,
                usage,
                mapped_at_creation: false,
            })
        };
        let (src, dst) = (
            busy(wgpu::BufferUsages::COPY_SRC),
            busy(wgpu::BufferUsages::COPY_DST),
        );
        let count = 2 * iters;
        let set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("gpubench calls"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let resolved = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpubench call timestamps"),
            size: u64::from(count) * 8,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        for i in 0..iters {
            let mut before = device.create_command_encoder(&Default::default());
            for _ in 0..BUSY_COPIES {
                before.copy_buffer_to_buffer(&src, 0, &dst, 0, busy_size);
            }
            before.write_timestamp(&set, 2 * i);
            gpu.queue().submit([before.finish()]);
            call()?;
            let mut after = device.create_command_encoder(&Default::default());
            after.write_timestamp(&set, 2 * i + 1);
            gpu.queue().submit([after.finish()]);
            submit_and_wait(gpu, device.create_command_encoder(&Default::default()))?;
        }
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.resolve_query_set(&set, 0..count, &resolved, 0);
        submit_and_wait(gpu, encoder)?;
        let bytes = crate::cases::read_range(gpu, &resolved, 0, u64::from(count) * 8)?;
        let period = f64::from(gpu.queue().get_timestamp_period());
        let ticks: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        ticks
            .chunks_exact(2)
            .map(|p| p[1].saturating_sub(p[0]) as f64 * period * 1e-6)
            .collect::<Vec<f64>>()
    } else {
        walls
    };
    let mut sorted = times;
    sorted.sort_by(f64::total_cmp);
    Ok(Times {
        median_ms: sorted[sorted.len() / 2],
        min_ms: sorted[0],
        wall_ms,
    })
}
