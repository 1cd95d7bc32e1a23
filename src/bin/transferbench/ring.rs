//! The pinned staging ring's parts measured alone, to tell what bounds a `*_ring` upload (the
//! ring moves uploads only: readbacks in its mode take the staged path, so both cases have an
//! H2D column only):
//!
//! - `memcpy`: the host copies a ring upload makes, without the GPU: the source's pieces (one
//!   ring slot each) copied into a ring-sized buffer slot after slot on the upload's threads,
//!   each thread taking every `threads`-th piece, as the ring's tasks do (in rounds of the
//!   ring's slots, the threads meeting between rounds).
//! - `ring_dma`: the copy engine alone from the device's ring (pinned host memory) into a
//!   device buffer, slot after slot, no host copy (feature `host-dma`).
//!
//! A `*_ring` path near `memcpy` is bound by the host's copies; near `ring_dma`, by the bus.

use std::time::Instant;

use gpudata::data::DEFAULT_USAGE;
use gpudata::{Gpu, GpuData, VertexFormat};

use crate::cases::{Row, bytes_source, fail, measure, timed};

/// The ring's slot size and slot count on this handle (the ring a `*_ring` path makes).
fn geometry(gpu: &Gpu) -> (usize, usize) {
    let (slot, slots) = gpu.transfer_config().pinned_ring(gpu.adapter_kind());
    (slot as usize, slots)
}

/// Copies `pieces` (pairs of destination and source) on `threads` threads, thread `t` taking
/// pieces `t`, `t + threads`, ...
fn copy_on_threads(threads: usize, pieces: Vec<(&mut [u8], &[u8])>) {
    let threads = threads.max(1);
    let mut dealt: Vec<Vec<(&mut [u8], &[u8])>> = (0..threads).map(|_| Vec::new()).collect();
    for (k, piece) in pieces.into_iter().enumerate() {
        dealt[k % threads].push(piece);
    }
    std::thread::scope(|scope| {
        for mine in dealt {
            scope.spawn(move || {
                for (dst, src) in mine {
                    dst.copy_from_slice(src);
                }
            });
        }
    });
}

/// The `memcpy` path (module docs).
pub fn memcpy(gpu: &Gpu, size: u64, iters: u32) -> Row {
    let (slot, slots) = geometry(gpu);
    let up_threads = gpu.transfer_config().threads_for(gpu.adapter_kind());
    println!(
        "memcpy: slots of {} KiB × {slots}, {up_threads} threads",
        slot >> 10
    );
    let size = size as usize;
    let source = bytes_source(size as u64);
    let mut ring = vec![1u8; slot * slots];
    let up = measure(iters, size as u64, || {
        timed(|| {
            // One round of the ring after another (the threads meet between rounds).
            for round in source.chunks(slot * slots) {
                let pieces: Vec<(&mut [u8], &[u8])> = ring
                    .chunks_mut(slot)
                    .zip(round.chunks(slot))
                    .map(|(dst, src)| (&mut dst[..src.len()], src))
                    .collect();
                copy_on_threads(up_threads, pieces);
            }
        })
    });
    Row {
        up: Some(up),
        down: None,
    }
}

/// The `ring_dma` path (module docs).
pub fn ring_dma(gpu: &Gpu, size: u64, iters: u32) -> Row {
    let data = GpuData::zeroed(gpu, VertexFormat::Uint32, size / 4, DEFAULT_USAGE)
        .unwrap_or_else(|e| fail(e));
    let up = measure(iters, size, || {
        let t = Instant::now();
        #[cfg(feature = "host-dma")]
        let ran =
            gpudata::device::probe_pinned_dma(gpu, data.buffer(), size).unwrap_or_else(|e| fail(e));
        #[cfg(not(feature = "host-dma"))]
        let ran = {
            let _ = &data;
            false
        };
        if !ran {
            fail("ring_dma needs the `host-dma` feature and a device with host dma");
        }
        t.elapsed().as_secs_f64()
    });
    if let Some((slot, slots)) = gpu.pinned_staging() {
        println!("ring_dma: slots of {} KiB × {slots}", slot >> 10);
    }
    Row {
        up: Some(up),
        down: None,
    }
}
