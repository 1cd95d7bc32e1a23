//! `oomprobe`: fills a real GPU with buffers until the device refuses one, and checks that the
//! refusal is a typed error and that the same `Gpu` still uploads and reads back afterwards.
//!
//! ```text
//! oomprobe [--buffer-mib N] [--max-buffers N]
//! ```
//!
//! Each buffer is `GpuData::zeroed` of `uint32` rows (default 4 GiB, or the device's
//! `max_buffer_size` if smaller), kept alive until the first error. The report (one JSON object
//! on standard output) names the adapter, the number of buffers made, the error's variant and
//! message, and whether a 1 MiB round trip on the same device afterwards came back byte for byte
//! (with the buffers still held, then after dropping them). The exit status is 0 only when the
//! error was `GpuError::OutOfMemory` or `GpuError::BufferTooLarge` and both round trips matched.
//! The lavapipe counterpart is `tests/data/faults.rs::out_of_memory_in_a_child_process`.

use gpudata::data::{DEFAULT_USAGE, DataError, GpuData};
use gpudata::{Gpu, GpuError, VertexFormat};

fn arg(name: &str, default: u64) -> Result<u64, String> {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == name) {
        None => Ok(default),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{name} needs a number")),
    }
}

/// Uploads 1 MiB of a pattern and reads it back; whether the bytes match.
fn round_trip(gpu: &Gpu) -> Result<bool, DataError> {
    let values: Vec<u32> = (0..262_144u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let data = GpuData::from_values(gpu, &values, DEFAULT_USAGE)?;
    let back = data.read_bytes(gpu)?;
    Ok(back == bytemuck::cast_slice::<u32, u8>(&values))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::headless()?;
    let max = gpu.limits().max_buffer_size;
    let wanted = arg("--buffer-mib", 4096)?.saturating_mul(1 << 20);
    let max_buffers = arg("--max-buffers", 1024)?;
    let bytes = wanted.min(max) / 4 * 4;
    let rows = bytes / 4;
    let mut held = Vec::new();
    let mut failure = None;
    for _ in 0..max_buffers {
        match GpuData::zeroed(&gpu, VertexFormat::Uint32, rows, DEFAULT_USAGE) {
            Ok(data) => held.push(data),
            Err(error) => {
                failure = Some(error);
                break;
            }
        }
    }
    let made = held.len();
    let (variant, message, typed) = match &failure {
        Some(DataError::Gpu(e @ GpuError::OutOfMemory { .. })) => {
            ("OutOfMemory", e.to_string(), true)
        }
        Some(DataError::Gpu(e @ GpuError::BufferTooLarge { .. })) => {
            ("BufferTooLarge", e.to_string(), true)
        }
        Some(other) => ("other", other.to_string(), false),
        None => ("none", String::new(), false),
    };
    let while_full = round_trip(&gpu);
    held.into_iter().for_each(GpuData::destroy);
    let after_drop = round_trip(&gpu);
    let ok = |r: &Result<bool, DataError>| match r {
        Ok(matched) => matched.to_string(),
        Err(e) => format!("{:?}", e.to_string()),
    };
    println!(
        "{{\"adapter\": {:?}, \"buffer_bytes\": {bytes}, \"buffers_made\": {made}, \"gib_made\": {:.1}, \"error_variant\": {variant:?}, \"error\": {message:?}, \"round_trip_while_full\": {}, \"round_trip_after_drop\": {}}}",
        gpu.adapter_info().name,
        (made as f64) * (bytes as f64) / f64::from(1u32 << 30),
        ok(&while_full),
        ok(&after_drop),
    );
    let passed = typed && matches!(while_full, Ok(true) | Err(_)) && matches!(after_drop, Ok(true));
    if passed {
        Ok(())
    } else {
        Err("the device did not refuse with a typed out-of-memory error, or a later round trip failed".into())
    }
}
