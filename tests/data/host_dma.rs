//! Host memory as a DMA source and target (feature `host-dma`, lavapipe offers
//! `VK_EXT_external_memory_host`): byte uploads and readbacks through imported pages compared
//! byte for byte with their source, at page-aligned, word-aligned and unaligned (staged) host
//! addresses, sizes 0, 1, a page ± 1 and several MiB in several pieces; Arrow's 64-byte-aligned
//! buffers; and the staged fallback where the device or the handle has no host DMA. (The
//! default mode, the pinned staging ring, is tested in `pinned_staging.rs`.)

use std::alloc::{Layout, alloc_zeroed, dealloc};

use gpudata::device::{HostDmaError, HostDmaMode, TransferConfig};
use gpudata::{GpuData, GpuDataDescriptor, VertexFormat};

use crate::support::{Rng, USAGE, fresh_gpu, limited_gpu};

const PAGE: usize = 4096;

/// Host memory from one page-aligned allocation of its own, freed on drop.
struct Pages {
    ptr: *mut u8,
    layout: Layout,
}

impl Pages {
    fn new(len: usize) -> Pages {
        let layout = Layout::from_size_align(len.max(1), PAGE).unwrap();
        // SAFETY: a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        assert!(!ptr.is_null(), "allocation of {len} bytes failed");
        Pages { ptr, layout }
    }

    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: `layout.size()` zeroed bytes owned by `self`, borrowed through `&mut self`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }
}

impl Drop for Pages {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `new`.
        unsafe { dealloc(self.ptr, self.layout) };
    }
}

/// A device of its own (so its DMA count is this test's) with host DMA on for every size by
/// importing the caller's pages (not the default ring, `pinned_staging.rs`), in pieces of at
/// most 1 MiB (so several-MiB transfers take several), imported on `threads` threads.
fn dma_gpu(threads: usize) -> gpudata::Gpu {
    fresh_gpu().with_transfer_config(
        TransferConfig::new()
            .host_dma(true)
            .host_dma_mode(HostDmaMode::ImportCallerPages)
            .host_dma_min_bytes(0)
            .chunk_bytes(1 << 20)
            .threads(threads),
    )
}

pub(crate) fn upload(gpu: &gpudata::Gpu, bytes: &[u8]) -> GpuData {
    let descriptor = GpuDataDescriptor::new(VertexFormat::Uint8, bytes.len() as u64);
    GpuData::from_bytes(gpu, bytes, descriptor, USAGE).unwrap_or_else(|e| panic!("{e}"))
}

/// Uploads `len` random bytes from `at` bytes into a page-aligned allocation, reads them back
/// into `back_at` bytes into another (and into a new vector), compares both, and returns how
/// many of the three transfers moved by DMA (`pinned_staging.rs` too).
pub(crate) fn round_trip(
    gpu: &gpudata::Gpu,
    rng: &mut Rng,
    len: usize,
    at: usize,
    back_at: usize,
) -> u64 {
    let before = gpu.host_dma_transfers();
    let mut source = Pages::new(at + len);
    let values = rng.bytes(len);
    source.bytes()[at..at + len].copy_from_slice(&values);
    let data = upload(gpu, &source.bytes()[at..at + len]);
    let mut target = Pages::new(back_at + len);
    target.bytes()[..back_at].fill(0xa5);
    data.read_bytes_into(gpu, &mut target.bytes()[back_at..back_at + len])
        .unwrap_or_else(|e| panic!("{e}"));
    let context = format!("{len} bytes from offset {at}, back into offset {back_at}");
    assert!(
        target.bytes()[back_at..back_at + len] == values[..],
        "read_bytes_into differs: {context}"
    );
    assert!(
        target.bytes()[..back_at].iter().all(|&b| b == 0xa5),
        "bytes before the destination changed: {context}"
    );
    let whole = data.read_bytes(gpu).unwrap_or_else(|e| panic!("{e}"));
    assert!(whole == values, "read_bytes differs: {context}");
    gpu.host_dma_transfers() - before
}

#[test]
fn lavapipe_offers_host_dma_and_headless_devices_enable_it() {
    let gpu = fresh_gpu();
    let support = gpu.host_dma().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        support.import_alignment.is_power_of_two() && support.import_alignment >= 4,
        "import alignment {}",
        support.import_alignment
    );
}

#[test]
fn page_aligned_word_aligned_and_unaligned_ranges_round_trip() {
    for threads in [1, 3] {
        aligned_and_unaligned_round_trips(&dma_gpu(threads));
    }
}

fn aligned_and_unaligned_round_trips(gpu: &gpudata::Gpu) {
    let mut rng = Rng::new(29);
    let sizes = [
        0,
        1,
        3,
        4,
        5,
        PAGE - 1,
        PAGE,
        PAGE + 1,
        2 * PAGE + 4,
        (3 << 20) + 12,
        (5 << 20) + 3,
    ];
    for len in sizes {
        for (at, back_at) in [(0, 0), (4, 64), (64, 4), (PAGE - 4, 8), (1, 0), (0, 3)] {
            let moved = round_trip(gpu, &mut rng, len, at, back_at);
            // Uploads and readbacks of at least one whole word from a 4-byte-aligned address go
            // by DMA; other ones are staged.
            let expected = if len < 4 {
                0
            } else {
                u64::from(at % 4 == 0) + u64::from(back_at % 4 == 0) + 1
            };
            assert_eq!(
                moved, expected,
                "transfers by dma for {len} bytes from offset {at}, back into offset {back_at}"
            );
        }
    }
}

#[test]
fn ordinary_vectors_and_arrow_buffers_round_trip_by_dma() {
    let gpu = dma_gpu(2);
    let mut rng = Rng::new(64);
    // A vector from the global allocator: not page-aligned; its enclosing pages are imported.
    let values = rng.bytes((2 << 20) + 36);
    let before = gpu.host_dma_transfers();
    let data = upload(&gpu, &values);
    let mut back = vec![0u8; values.len()];
    data.read_bytes_into(&gpu, &mut back)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(back == values, "a vector's round trip differs");
    assert_eq!(gpu.host_dma_transfers() - before, 2);
    // Awaited: the copies are waited for by the future, one piece after another.
    let mut again = vec![0u8; values.len()];
    pollster::block_on(data.read_bytes_into_async(&gpu, &mut again))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(again == values, "an awaited round trip differs");
    assert_eq!(gpu.host_dma_transfers() - before, 3);
    #[cfg(feature = "arrow")]
    {
        use arrow_array::{Array, Float32Array};
        use arrow_schema::{DataType, Field};
        // Arrow's buffers are 64-byte aligned inside their allocation.
        let mut values = arrow_buffer::MutableBuffer::new(((1 << 19) + 7) * 4);
        for i in 0..(1 << 19) + 7 {
            values.push(i as f32 * 0.5 - 3.0);
        }
        let array = Float32Array::new(arrow_buffer::Buffer::from(values).into(), None);
        assert!((array.values().as_ptr() as usize).is_multiple_of(64));
        let before = gpu.host_dma_transfers();
        let field = Field::new("x", DataType::Float32, false);
        let options = gpudata::arrow::ColumnOptions::default();
        let column = gpudata::arrow::array_to_gpu(&gpu, &field, &array, &options)
            .unwrap_or_else(|e| panic!("{e}"));
        let back = gpudata::arrow::array_from_gpu(&gpu, &column).unwrap_or_else(|e| panic!("{e}"));
        let back = back.as_any().downcast_ref::<Float32Array>().unwrap();
        assert_eq!(back.values(), array.values());
        assert_eq!(
            gpu.host_dma_transfers() - before,
            2,
            "arrow transfers by dma"
        );
    }
}

#[test]
fn devices_and_handles_without_host_dma_stage_instead() {
    let mut rng = Rng::new(7);
    // A device the application opened without the extension.
    let plain = limited_gpu("no host dma", |_| {})
        .with_transfer_config(TransferConfig::new().host_dma(true).host_dma_min_bytes(0));
    assert!(
        matches!(plain.host_dma(), Err(HostDmaError::NotEnabled { .. })),
        "{:?}",
        plain.host_dma()
    );
    assert_eq!(round_trip(&plain, &mut rng, (1 << 20) + 8, 0, 0), 0);
    // Host DMA off on the handle (the default), and a range under the threshold.
    let device = fresh_gpu();
    assert!(device.host_dma().is_ok());
    assert_eq!(round_trip(&device, &mut rng, (1 << 20) + 8, 0, 0), 0);
    let above = device.with_transfer_config(TransferConfig::new().host_dma(true));
    assert_eq!(round_trip(&above, &mut rng, 4096, 0, 0), 0);
    // At the threshold the upload goes by DMA (through the ring, the default mode, whose
    // readbacks are staged).
    assert_eq!(round_trip(&above, &mut rng, 1 << 20, 0, 0), 1);
}

#[test]
fn host_dma_errors_say_what_is_missing() {
    let cases = [
        (
            HostDmaError::FeatureOff,
            "host dma needs gpudata's `host-dma` feature",
        ),
        (
            HostDmaError::NotVulkan {
                adapter: "a".into(),
                backend: "gl".into(),
            },
            "host dma needs a vulkan device; adapter `a` runs on gl",
        ),
        (
            HostDmaError::Unsupported {
                adapter: "a".into(),
            },
            "adapter `a` does not offer VK_EXT_external_memory_host on vulkan 1.1 or later",
        ),
        (
            HostDmaError::NotEnabled {
                adapter: "a".into(),
            },
            "the device on adapter `a` was opened without VK_EXT_external_memory_host; open it with `Gpu::headless` or enable the extension",
        ),
    ];
    for (error, message) in cases {
        assert_eq!(error.to_string(), message);
    }
}
