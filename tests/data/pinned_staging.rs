//! Host DMA through the device's pinned staging ring (feature `host-dma`,
//! `HostDmaMode::PinnedStaging`, the default mode; lavapipe offers
//! `VK_EXT_external_memory_host`): uploads through the ring and readbacks in its mode (which
//! take the staged path: through the ring they never beat it on the hosts measured) compared
//! byte for byte with their source (`host_dma::round_trip`) at sizes around the ring's slots
//! (more pieces than slots, so slots are reused within a transfer), odd tails (staged), any host
//! address, buffer offsets, transfers back to back on one ring, two threads sharing it, awaited
//! transfers, one thread against several, and readbacks leaving the ring untouched.

use gpudata::device::{HostDmaMode, TransferConfig};
use gpudata::{GpuData, GpuDataDescriptor, GpuStruct, TypedGpuData, VertexFormat};

use crate::host_dma::{round_trip, upload};
use crate::support::{Rng, USAGE, fresh_gpu};

const PAGE: usize = 4096;
const SLOT: usize = 1 << 20;

/// A device of its own (so its ring and DMA count are this test's) with the ring on for every
/// size: slots of 1 MiB, a 4 MiB budget (so 4 slots), on `threads` threads.
fn ring_gpu(threads: usize) -> gpudata::Gpu {
    fresh_gpu().with_transfer_config(ring_config(threads))
}

fn ring_config(threads: usize) -> TransferConfig {
    TransferConfig::new()
        .host_dma(true)
        .host_dma_mode(HostDmaMode::PinnedStaging)
        .host_dma_min_bytes(0)
        .chunk_bytes(SLOT as u64)
        .budget_bytes(4 * SLOT as u64)
        .threads(threads)
}

#[test]
fn sizes_around_the_slots_round_trip_through_the_ring_at_any_host_address() {
    for threads in [1, 3] {
        let gpu = ring_gpu(threads);
        let mut rng = Rng::new(11);
        let sizes = [
            0,
            1,
            3,
            4,
            5,
            PAGE + 1,
            SLOT - 4,
            SLOT,
            SLOT + 4,
            SLOT + 3,
            3 * SLOT + 12,
            4 * SLOT,
            9 * SLOT + 6,
        ];
        for len in sizes {
            for (at, back_at) in [(0, 0), (1, 3), (4, 64), (PAGE - 4, 2)] {
                let moved = round_trip(&gpu, &mut rng, len, at, back_at);
                // Every upload of at least one whole word goes through the ring, whatever its
                // host address; shorter ones are staged, and so are both readbacks (this mode's
                // readbacks take the staged path; their bytes are still compared).
                let expected = if len < 4 { 0 } else { 1 };
                assert_eq!(
                    moved, expected,
                    "transfers by dma for {len} bytes from offset {at}, back into offset {back_at} on {threads} threads"
                );
            }
        }
        // One ring for the device, made once, with the first transfer's configuration.
        assert_eq!(gpu.pinned_staging(), Some((SLOT as u64, 4)));
    }
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
struct Word {
    value: u32,
}

#[test]
fn writes_and_reads_at_buffer_offsets_keep_the_bytes_around_them() {
    for threads in [1, 4] {
        let gpu = ring_gpu(threads);
        let mut rng = Rng::new(5);
        let total = 3 * SLOT / 4 + 1000;
        let initial: Vec<Word> = (0..total as u32).map(|value| Word { value }).collect();
        let data = TypedGpuData::from_rows(&gpu, &initial, USAGE).unwrap_or_else(|e| panic!("{e}"));
        let mut expected = initial.clone();
        for (first, count) in [
            (1, SLOT / 4 + 3),
            (SLOT / 4 - 1, 2 * SLOT / 4 + 7),
            (777, 5),
        ] {
            let rows: Vec<Word> = rng
                .bytes(count * 4)
                .chunks(4)
                .map(|b| Word {
                    value: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                })
                .collect();
            let before = gpu.host_dma_transfers();
            data.write_rows(&gpu, first as u64, &rows)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(gpu.host_dma_transfers() - before, 1, "rows at {first}");
            expected[first..first + count].copy_from_slice(&rows);
            assert_eq!(
                data.read_rows(&gpu).unwrap_or_else(|e| panic!("{e}")),
                expected,
                "rows written at {first}, {count} rows, {threads} threads"
            );
        }
        // Byte ranges read back at any offset are staged in this mode (their bytes compared
        // with the source); the uploads of at least one word go through the ring.
        let bytes: Vec<u8> = expected
            .iter()
            .flat_map(|w| w.value.to_le_bytes())
            .collect();
        let whole = upload(&gpu, &bytes);
        for (first, count) in [
            (0, SLOT + 5),
            (4, 2 * SLOT),
            (SLOT - 8, SLOT + 16),
            (3, SLOT),
            (8, 3),
        ] {
            let before = gpu.host_dma_transfers();
            let read = whole
                .read_packed_rows(&gpu, first as u64, count as u64)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(
                read == bytes[first..first + count],
                "bytes {first}..+{count} differ"
            );
            let mut into = vec![0u8; count];
            let view = GpuData::from_bytes(
                &gpu,
                &bytes[first..first + count],
                GpuDataDescriptor::new(VertexFormat::Uint8, count as u64),
                USAGE,
            )
            .unwrap_or_else(|e| panic!("{e}"));
            view.read_bytes_into(&gpu, &mut into)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(
                into == bytes[first..first + count],
                "copy of {first}..+{count} differs"
            );
            assert_eq!(
                gpu.host_dma_transfers() - before,
                u64::from(count >= 4),
                "bytes {first}..+{count}"
            );
        }
    }
}

#[test]
fn uploads_back_to_back_reuse_slots_only_once_their_copies_are_done() {
    let gpu = ring_gpu(3);
    let mut rng = Rng::new(3);
    let len = 6 * SLOT + 8;
    let words = |rng: &mut Rng| -> Vec<Word> {
        (0..len / 4)
            .map(|_| Word {
                value: rng.next_u32(),
            })
            .collect()
    };
    let data =
        TypedGpuData::from_rows(&gpu, &words(&mut rng), USAGE).unwrap_or_else(|e| panic!("{e}"));
    // Each upload returns once its copies are submitted; the next one writes the same slots
    // only after those copies have read them, so the last upload's rows are the ones kept.
    let before = gpu.host_dma_transfers();
    let mut last = Vec::new();
    for _ in 0..4 {
        last = words(&mut rng);
        data.write_rows(&gpu, 0, &last)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(gpu.host_dma_transfers() - before, 4);
    assert!(data.read_rows(&gpu).unwrap_or_else(|e| panic!("{e}")) == last);
}

#[test]
fn two_threads_share_one_ring() {
    let gpu = ring_gpu(2);
    std::thread::scope(|scope| {
        for seed in [1, 2] {
            let gpu = gpu.clone();
            scope.spawn(move || {
                let mut rng = Rng::new(seed);
                for len in [5 * SLOT + 4, 2 * SLOT + 1, 7 * SLOT] {
                    // A transfer that finds every slot held by the other thread is staged; the
                    // bytes are the same either way.
                    round_trip(&gpu, &mut rng, len, seed as usize, 0);
                }
            });
        }
    });
}

#[test]
fn awaited_uploads_go_through_the_ring_and_awaited_readbacks_are_staged() {
    let gpu = ring_gpu(4);
    let mut rng = Rng::new(8);
    let values = rng.bytes(5 * SLOT + 2);
    let before = gpu.host_dma_transfers();
    let descriptor = GpuDataDescriptor::new(VertexFormat::Uint8, values.len() as u64);
    let data = pollster::block_on(GpuData::from_bytes_async(&gpu, &values, descriptor, USAGE))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut back = vec![0u8; values.len()];
    pollster::block_on(data.read_bytes_into_async(&gpu, &mut back))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(back == values, "an awaited round trip differs");
    let again = pollster::block_on(data.read_bytes_async(&gpu)).unwrap_or_else(|e| panic!("{e}"));
    assert!(again == values, "an awaited read_bytes differs");
    // The upload; both readbacks take the staged path in this mode.
    assert_eq!(gpu.host_dma_transfers() - before, 1);
}

#[test]
fn the_ring_is_the_default_and_readbacks_in_its_mode_leave_it_untouched() {
    assert_eq!(
        TransferConfig::new().host_dma(true).dma_mode(),
        HostDmaMode::PinnedStaging
    );
    let device = fresh_gpu();
    let mut rng = Rng::new(21);
    let values = rng.bytes(3 * SLOT + 4);
    let import =
        device.with_transfer_config(ring_config(2).host_dma_mode(HostDmaMode::ImportCallerPages));
    let data = upload(&import, &values);
    assert_eq!(
        device.pinned_staging(),
        None,
        "the import mode makes no ring"
    );
    // Readbacks in the ring's mode are staged (the ring's readbacks never beat the staged path
    // on the hosts measured): the bytes the import mode wrote come back, no ring is made, and
    // nothing moves by DMA.
    let ring = device.with_transfer_config(ring_config(2));
    let before = device.host_dma_transfers();
    let mut back = vec![0u8; values.len()];
    data.read_bytes_into(&ring, &mut back)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(back == values);
    let whole = data.read_bytes(&ring).unwrap_or_else(|e| panic!("{e}"));
    assert!(whole == values);
    assert_eq!(
        device.pinned_staging(),
        None,
        "a readback in the ring's mode makes no ring"
    );
    assert_eq!(device.host_dma_transfers(), before);
    // The first upload in the ring's mode makes it.
    upload(&ring, &values);
    assert_eq!(device.pinned_staging(), Some((SLOT as u64, 4)));
}

#[test]
fn a_lost_device_refuses_ring_transfers_and_lets_its_ring_go() {
    let gpu = ring_gpu(2);
    let mut rng = Rng::new(4);
    let values = rng.bytes(3 * SLOT);
    let data = upload(&gpu, &values);
    let mut back = vec![0u8; values.len()];
    data.read_bytes_into(&gpu, &mut back)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(back == values);
    assert!(gpu.pinned_staging().is_some());
    gpu.device().destroy();
    let error = data.read_bytes_into(&gpu, &mut back).unwrap_err();
    assert!(
        matches!(error, gpudata::GpuError::DeviceLost { .. }),
        "{error}"
    );
    let descriptor = GpuDataDescriptor::new(VertexFormat::Uint8, values.len() as u64);
    assert!(GpuData::from_bytes(&gpu, &values, descriptor, USAGE).is_err());
    // Dropping the last handle frees the ring (its drop waits for wgpu to let the import go).
    drop(data);
    drop(gpu);
}

#[test]
fn the_ring_s_size_follows_the_budget_threads_and_chunk_size() {
    use gpudata::device::AdapterKind::{Hardware, Software};
    let mib = 1u64 << 20;
    // The default 64 MiB budget: two slots per thread (at most 16 MiB each), as many as it holds.
    assert_eq!(TransferConfig::new().pinned_ring(Software), (16 * mib, 4));
    let eight = TransferConfig::new().threads(8);
    assert_eq!(eight.pinned_ring(Hardware), (4 * mib, 16));
    assert_eq!(
        eight.clone().budget_bytes(256 * mib).pinned_ring(Hardware),
        (16 * mib, 16)
    );
    // A chunk size sets the slot, at most half the budget; at least two slots, at most four
    // per thread.
    assert_eq!(ring_config(3).pinned_ring(Software), (mib, 4));
    assert_eq!(
        eight.clone().chunk_bytes(mib).pinned_ring(Hardware),
        (mib, 32)
    );
    assert_eq!(
        eight.chunk_bytes(64 * mib).pinned_ring(Hardware),
        (32 * mib, 2)
    );
    assert_eq!(
        TransferConfig::new().budget_bytes(1).pinned_ring(Software),
        (64 << 10, 2)
    );
}
