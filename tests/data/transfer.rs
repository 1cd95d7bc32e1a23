//! The transfer engine on lavapipe: byte-exact round trips at sizes around chunk and word
//! boundaries from eight threads at once on one `Gpu`, encoded and zero-copy rows across chunk
//! boundaries, progress reports, many threads uploading, reading back and running operations
//! on one `Gpu` with every result checked (issue 19, item 5), the staging budget holding for a
//! 2 GiB upload and readback and for a 512 MiB segmented table (peak resident memory in a child
//! process), and segmented tables uploaded in chunks with every value at its stride.

use std::process::Command;
use std::sync::{Arc, Mutex};

use gpudata::device::{MIN_CHUNK_BYTES, TransferConfig, TransferDirection, TransferProgress};
use gpudata::table::{SegmentStride, SegmentedTable, SegmentedTableBuilder};
use gpudata::{Gpu, GpuData, GpuDataDescriptor, GpuError, GpuStruct, TypedGpuData, VertexFormat};

use crate::support::{Rng, USAGE, gpu, limited_gpu};

/// Chunks of the smallest size, three workers, a budget of six chunks (two per worker).
fn chunked(gpu: &Gpu) -> Gpu {
    gpu.with_transfer_config(
        TransferConfig::new()
            .chunk_bytes(MIN_CHUNK_BYTES)
            .budget_bytes(6 * MIN_CHUNK_BYTES)
            .threads(3),
    )
}

/// Sizes at every boundary: empty, partial words, a chunk ± 1 and several chunks + 1 byte.
fn boundary_sizes() -> Vec<usize> {
    let c = MIN_CHUNK_BYTES as usize;
    vec![
        0,
        1,
        3,
        4,
        5,
        8,
        c - 4,
        c - 1,
        c,
        c + 1,
        c + 4,
        2 * c + 3,
        3 * c + 1,
        7 * c - 4,
    ]
}

fn bytes_data(gpu: &Gpu, bytes: &[u8]) -> GpuData {
    let descriptor = GpuDataDescriptor::new(VertexFormat::Uint8, bytes.len() as u64);
    GpuData::from_bytes(gpu, bytes, descriptor, USAGE).unwrap_or_else(|e| panic!("{e}"))
}

/// One thread's round trips: every boundary size up and back whole, into a slice, and from
/// unaligned first rows.
fn round_trips(gpu: &Gpu, seed: u64) {
    let mut rng = Rng::new(seed);
    for size in boundary_sizes() {
        let bytes = rng.bytes(size);
        let data = bytes_data(gpu, &bytes);
        let back = data.read_bytes(gpu).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            back == bytes,
            "read_bytes of {size} bytes differs (seed {seed})"
        );
        let mut into = vec![0xAA; size];
        data.read_bytes_into(gpu, &mut into)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            into == bytes,
            "read_bytes_into of {size} bytes differs (seed {seed})"
        );
        for first in [1usize, 3] {
            if size > first {
                let rows = (size - first) as u64;
                let part = data
                    .read_packed_rows(gpu, first as u64, rows)
                    .unwrap_or_else(|e| panic!("{e}"));
                assert!(
                    part == bytes[first..],
                    "bytes {first}.. of {size} differ (seed {seed})"
                );
            }
        }
    }
}

#[test]
fn round_trips_at_chunk_and_word_boundaries_from_eight_threads() {
    let gpu = gpu();
    let chunked = chunked(&gpu);
    std::thread::scope(|scope| {
        for t in 0..8u64 {
            // Half the threads move several chunks on three workers each, half one chunk.
            let g = if t % 2 == 0 {
                chunked.clone()
            } else {
                gpu.clone()
            };
            scope.spawn(move || round_trips(&g, 100 + t));
        }
    });
}

/// Issue 17: readbacks on the drain pool copy each mapped chunk in parts of at most 2 MiB on
/// several threads; sizes around a part and around chunks that are not a multiple of a part,
/// from eight threads, with offsets inside a word, come back byte-exact.
#[test]
fn round_trips_across_drain_parts_from_eight_threads() {
    const MIB: usize = 1 << 20;
    let chunk = 3 * MIB + 4096;
    let gpu = gpu().with_transfer_config(
        TransferConfig::new()
            .threads(4)
            .chunk_bytes(chunk as u64)
            .budget_bytes(4 * chunk as u64),
    );
    let sizes = [
        2 * MIB - 1,
        2 * MIB,
        2 * MIB + 1,
        chunk - 1,
        chunk,
        chunk + 3,
        2 * chunk + 5,
        5 * MIB + 7,
    ];
    std::thread::scope(|scope| {
        for t in 0..8u64 {
            let gpu = &gpu;
            scope.spawn(move || {
                let mut rng = Rng::new(900 + t);
                for &size in &sizes {
                    let bytes = rng.bytes(size);
                    let data = bytes_data(gpu, &bytes);
                    let back = data.read_bytes(gpu).unwrap_or_else(|e| panic!("{e}"));
                    assert!(back == bytes, "read_bytes of {size} bytes differs");
                    let mut into = vec![0xAA; size];
                    data.read_bytes_into(gpu, &mut into)
                        .unwrap_or_else(|e| panic!("{e}"));
                    assert!(into == bytes, "read_bytes_into of {size} bytes differs");
                    let first = 1 + (t as usize % 3);
                    let part = data
                        .read_packed_rows(gpu, first as u64, (size - first) as u64)
                        .unwrap_or_else(|e| panic!("{e}"));
                    assert!(part == bytes[first..], "bytes {first}.. of {size} differ");
                }
            });
        }
    });
}

/// Rows whose host layout is the GPU layout (12-byte stride: chunks cut at whole rows and
/// whole words, a multiple of 12).
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", zero_copy)]
struct Point {
    position: [f32; 3],
}

/// Rows the encoder lays out: wgsl-storage moves `position` to byte 16, stride 32.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
struct Particle {
    id: u32,
    position: [f32; 3],
    weight: f32,
}

fn point(rng: &mut Rng) -> Point {
    Point {
        position: [rng.f32(), rng.f32(), rng.f32()],
    }
}

fn particle(rng: &mut Rng) -> Particle {
    Particle {
        id: rng.next_u32(),
        position: [rng.f32(), rng.f32(), rng.f32()],
        weight: rng.f32(),
    }
}

/// Rows around chunk boundaries: `from_rows` and `read_rows`, and `write_rows` at a row offset
/// into existing data, for one row type.
fn row_round_trips<T: GpuStruct + PartialEq + std::fmt::Debug>(
    gpu: &Gpu,
    rng: &mut Rng,
    make: impl Fn(&mut Rng) -> T,
) {
    let stride = T::FORMAT.byte_stride() as usize;
    let per_chunk = MIN_CHUNK_BYTES as usize / stride;
    for count in [
        1,
        per_chunk - 1,
        per_chunk,
        per_chunk + 1,
        3 * per_chunk + 2,
    ] {
        let rows: Vec<T> = (0..count).map(|_| make(rng)).collect();
        let data = TypedGpuData::from_rows(gpu, &rows, USAGE).unwrap_or_else(|e| panic!("{e}"));
        let back = data.read_rows(gpu).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, rows, "{count} rows of stride {stride}");
        let update: Vec<T> = (0..count - 1).map(|_| make(rng)).collect();
        data.write_rows(gpu, 1, &update)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut expected = rows.clone();
        expected[1..].copy_from_slice(&update);
        let back = data.read_rows(gpu).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            back, expected,
            "{count} rows of stride {stride} after write_rows at 1"
        );
    }
}

#[test]
fn encoded_and_zero_copy_rows_across_chunk_boundaries_from_threads() {
    let gpu = chunked(&gpu());
    std::thread::scope(|scope| {
        for t in 0..4u64 {
            let g = gpu.clone();
            scope.spawn(move || {
                let mut rng = Rng::new(200 + t);
                row_round_trips(&g, &mut rng, point);
                row_round_trips(&g, &mut rng, particle);
            });
        }
    });
}

#[test]
fn progress_reports_every_chunk_in_both_directions() {
    let seen: Arc<Mutex<Vec<TransferProgress>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let gpu = gpu().with_transfer_config(
        TransferConfig::new()
            .chunk_bytes(MIN_CHUNK_BYTES)
            .threads(2)
            .on_progress(move |p| sink.lock().unwrap_or_else(|e| e.into_inner()).push(p)),
    );
    let size = 5 * MIN_CHUNK_BYTES as usize + 12;
    let bytes = Rng::new(7).bytes(size);
    let data = bytes_data(&gpu, &bytes);
    assert!(data.read_bytes(&gpu).unwrap_or_else(|e| panic!("{e}")) == bytes);
    let seen = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
    for direction in [TransferDirection::Upload, TransferDirection::Readback] {
        let reports: Vec<_> = seen.iter().filter(|p| p.direction == direction).collect();
        assert_eq!(reports.len(), 6, "{direction:?}: one report per chunk");
        assert!(reports.iter().all(|p| p.total_bytes == size as u64));
        let mut done: Vec<u64> = reports.iter().map(|p| p.done_bytes).collect();
        done.sort_unstable();
        done.dedup();
        assert_eq!(
            done.len(),
            6,
            "{direction:?}: each report counts more bytes"
        );
        assert_eq!(
            done.last(),
            Some(&(size as u64)),
            "{direction:?}: ends at the total"
        );
    }
}

#[test]
fn read_bytes_into_refuses_a_slice_of_another_length() {
    let gpu = gpu();
    let data = bytes_data(&gpu, &[1, 2, 3, 4, 5, 6, 7, 8]);
    let mut short = [0u8; 7];
    let error = data.read_bytes_into(&gpu, &mut short).unwrap_err();
    assert_eq!(
        error,
        GpuError::ReadbackLength {
            expected: 8,
            found: 7
        }
    );
    assert_eq!(
        error.to_string(),
        "cannot read back into a slice of 7 bytes: the data holds 8 bytes"
    );
}

/// One thread's share of the stress test: `iterations` rounds of two uploads, an operation on
/// them and two readbacks, every result compared with the host's.
fn stress(gpu: &Gpu, shared: &GpuData, seed: u64, iterations: usize) -> usize {
    let mut rng = Rng::new(seed);
    let mut calls = 0;
    let shared_bytes = shared_bytes();
    for i in 0..iterations {
        // Bursts of small readbacks of one buffer shared by every thread: where wgpu's callbacks
        // most often run on another thread than the one waiting for them.
        for _ in 0..4 {
            let back = shared
                .read_bytes(gpu)
                .unwrap_or_else(|e| panic!("read shared, thread {seed} round {i}: {e}"));
            assert!(back == shared_bytes, "shared, thread {seed} round {i}");
        }
        // Mostly small transfers, now and then several chunks.
        let n = if i % 25 == 0 {
            1 + rng.below(60_000) as usize
        } else {
            1 + rng.below(2_000) as usize
        };
        let a: Vec<f32> = (0..n).map(|_| rng.f32_in(1000.0)).collect();
        let b: Vec<f32> = (0..n).map(|_| rng.f32_in(1000.0)).collect();
        let ga = GpuData::from_slice(gpu, VertexFormat::Float32, &a, USAGE)
            .unwrap_or_else(|e| panic!("upload a, thread {seed} round {i}: {e}"));
        let gb = GpuData::from_slice(gpu, VertexFormat::Float32, &b, USAGE)
            .unwrap_or_else(|e| panic!("upload b, thread {seed} round {i}: {e}"));
        let sum = gpudata::ops::add(gpu, &ga, &gb)
            .unwrap_or_else(|e| panic!("add, thread {seed} round {i}: {e}"));
        let back = ga
            .read_bytes(gpu)
            .unwrap_or_else(|e| panic!("read a, thread {seed} round {i}: {e}"));
        assert!(
            back == bytemuck::cast_slice::<f32, u8>(&a),
            "a, thread {seed} round {i}"
        );
        let got = sum
            .read_bytes(gpu)
            .unwrap_or_else(|e| panic!("read sum, thread {seed} round {i}: {e}"));
        let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        assert!(
            got == bytemuck::cast_slice::<f32, u8>(&want),
            "a + b, thread {seed} round {i}"
        );
        calls += 9;
    }
    calls
}

/// The bytes of the stress test's shared buffer.
fn shared_bytes() -> Vec<u8> {
    (0..4096u32).map(|i| (i * 31 % 251) as u8).collect()
}

/// Issue 19, item 5: blocking uploads, readbacks and operations from many threads on clones of
/// one `Gpu` all succeed with the right bytes (before the fix, readbacks failed now and then
/// with `Map`: "the map callback did not run after the device went idle").
#[test]
fn many_threads_upload_read_back_and_operate_on_one_gpu() {
    let gpu = gpu();
    let chunked = chunked(&gpu);
    let shared = bytes_data(&gpu, &shared_bytes());
    let calls: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8u64)
            .map(|t| {
                let g = if t % 4 == 0 {
                    chunked.clone()
                } else {
                    gpu.clone()
                };
                let shared = &shared;
                scope.spawn(move || stress(&g, shared, 300 + t, 300))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .sum()
    });
    assert_eq!(calls, 8 * 300 * 9);
}

/// A field of `/proc/self/status`, in bytes.
fn status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_else(|e| panic!("{e}"));
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"));
    kib << 10
}

/// Resets `VmHWM` to the resident set and returns that, in bytes.
fn reset_peak() -> u64 {
    std::fs::write("/proc/self/clear_refs", "5").unwrap_or_else(|e| panic!("{e}"));
    status_bytes("VmRSS")
}

const BUDGET: u64 = 16 << 20;
/// What a one-thread transfer process adds besides its staging (allocator bookkeeping, command
/// buffers): measured 8 KiB on lavapipe (a 2 GiB readback added 16 MiB + 8 KiB under a 16 MiB
/// budget, every run).
const SLACK_ONE_THREAD: u64 = 1 << 20;
/// The same with eight threads transferring at once (their stacks and allocator arenas):
/// measured 0.6-1.3 MiB on lavapipe.
const SLACK_THREADS: u64 = 4 << 20;
const CHILD_ENV: &str = "GPUDATA_TRANSFER_MEMORY_CHILD";

/// The child's part: a 2 GiB upload and readback; prints the peak memory each added beyond the
/// source and the device's own copy of the buffer (lavapipe keeps it in host memory).
fn memory_child() {
    let gpu = gpu().with_transfer_config(TransferConfig::new().budget_bytes(BUDGET));
    // Warm up: pipelines, allocator blocks, the first staging buffers.
    let warm = bytes_data(&gpu, &[7; 4 << 20]);
    warm.read_bytes(&gpu).unwrap_or_else(|e| panic!("{e}"));
    warm.destroy();
    gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
    // Just under 2 GiB: lavapipe's max_buffer_size is 2^31 - 1.
    let size = (gpu.limits().max_buffer_size.min(2 << 30) & !((1 << 20) - 1)) as usize;
    let block = 1 << 20;
    let mut source = vec![0u8; size];
    for (i, b) in source.chunks_mut(block).enumerate() {
        b.fill(i as u8 ^ 0x5A);
    }
    let base = reset_peak();
    let data = bytes_data(&gpu, &source);
    gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
    let up = status_bytes("VmHWM").saturating_sub(base + size as u64);
    source.fill(0);
    let base = reset_peak();
    data.read_bytes_into(&gpu, &mut source)
        .unwrap_or_else(|e| panic!("{e}"));
    let down = status_bytes("VmHWM").saturating_sub(base);
    for (i, b) in source.chunks(block).enumerate() {
        assert!(
            b == vec![i as u8 ^ 0x5A; b.len()].as_slice(),
            "block {i} read back differs"
        );
    }
    println!("transfer-memory size={size} up={up} down={down}");
}

/// Runs test `test` of this binary in a child process with [`CHILD_ENV`] set (so its peak
/// resident memory is its own) and returns a reader of the `key=value` fields of the line it
/// prints after `transfer-memory `.
fn child_report(test: &str) -> (String, impl Fn(&str) -> u64) {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
    let output = Command::new(exe)
        .args([
            "--exact",
            &format!("transfer::{test}"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, "1")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| Some(l.split_once("transfer-memory ")?.1.to_owned()))
        .unwrap_or_else(|| panic!("no report from the child: {stdout}"));
    let fields = line.clone();
    let field = move |name: &str| -> u64 {
        fields
            .split(' ')
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {fields}"))
    };
    (line, field)
}

/// Issue 17: the staging budget bounds the host memory of a 2 GiB upload and readback. Run in
/// a child process (this test binary, filtered to this test) so its peak resident memory is
/// its own.
#[test]
fn a_two_gib_transfer_stays_within_the_staging_budget() {
    if std::env::var_os(CHILD_ENV).is_some() {
        memory_child();
        return;
    }
    let (line, field) = child_report("a_two_gib_transfer_stays_within_the_staging_budget");
    assert!(field("size") >= 2_000_000_000, "{line}");
    // The budget plus what the process adds besides staging (allocator bookkeeping, command
    // buffers): far below the 2 GiB a transfer staging the whole buffer at once would add.
    let allowed = BUDGET + SLACK_ONE_THREAD;
    assert!(
        field("up") <= allowed,
        "upload added {} bytes, allowed {allowed}: {line}",
        field("up")
    );
    assert!(
        field("down") <= allowed,
        "readback added {} bytes, allowed {allowed}: {line}",
        field("down")
    );
}

fn send<F: Future + Send>(future: F) -> F {
    future
}

#[test]
fn async_uploads_and_readbacks_are_send_futures_that_round_trip() {
    let gpu = chunked(&gpu());
    let bytes = Rng::new(9).bytes(3 * MIN_CHUNK_BYTES as usize + 5);
    let descriptor = GpuDataDescriptor::new(VertexFormat::Uint8, bytes.len() as u64);
    let data = pollster::block_on(send(GpuData::from_bytes_async(
        &gpu, &bytes, descriptor, USAGE,
    )))
    .unwrap_or_else(|e| panic!("{e}"));
    let back =
        pollster::block_on(send(data.read_bytes_async(&gpu))).unwrap_or_else(|e| panic!("{e}"));
    assert!(back == bytes);
    let mut into = vec![0; bytes.len()];
    pollster::block_on(send(data.read_bytes_into_async(&gpu, &mut into)))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(into == bytes);
}

#[test]
fn encoded_rows_decode_on_several_threads() {
    let gpu = gpu().with_transfer_config(TransferConfig::new().threads(4));
    let mut rng = Rng::new(11);
    // More than four shares of 64 Ki rows: the decode runs on four threads.
    let rows: Vec<Particle> = (0..4 * (64 << 10) + 7)
        .map(|_| particle(&mut rng))
        .collect();
    let data = TypedGpuData::from_rows(&gpu, &rows, USAGE).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(data.read_rows(&gpu).unwrap_or_else(|e| panic!("{e}")), rows);
}

/// The threaded decode at the row counts where its split changes (shares of at least 64 Ki
/// rows, one row more or fewer than whole shares) reads back what one thread does: the rows.
#[test]
fn threaded_decode_equals_one_thread_at_split_boundaries() {
    let many = gpu().with_transfer_config(TransferConfig::new().threads(3));
    let one = gpu().with_transfer_config(TransferConfig::new().threads(1));
    let mut rng = Rng::new(12);
    let share = 64 << 10;
    let all: Vec<Particle> = (0..3 * share + 1).map(|_| particle(&mut rng)).collect();
    for count in [
        share,
        share + 1,
        2 * share + 1,
        3 * share - 1,
        3 * share + 1,
    ] {
        let rows = &all[..count];
        let data = TypedGpuData::from_rows(&many, rows, USAGE).unwrap_or_else(|e| panic!("{e}"));
        let threaded = data.read_rows(&many).unwrap_or_else(|e| panic!("{e}"));
        let single = data.read_rows(&one).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            threaded == single,
            "{count} rows: three threads against one"
        );
        assert!(threaded == rows, "{count} rows read back");
    }
}

/// `values` (whole values of `element` bytes) every `stride` bytes, zeros between: what a
/// segment holds, from its first value to its last value's end.
fn strided(values: &[u8], element: usize, stride: usize) -> Vec<u8> {
    let n = values.len() / element;
    let mut out = vec![0u8; n.saturating_sub(1) * stride + if n > 0 { element } else { 0 }];
    for (i, v) in values.chunks_exact(element).enumerate() {
        out[i * stride..i * stride + element].copy_from_slice(v);
    }
    out
}

/// Checks every segment of `table` against its host bytes (values at the stride, padding
/// zero) and the bytes between segments against zero.
fn check_segments(gpu: &Gpu, table: &SegmentedTable, columns: &[(&str, VertexFormat, Vec<u8>)]) {
    let all = crate::support::read_buffer(gpu, table.buffer(), 0, table.buffer().size());
    let mut covered = vec![false; all.len()];
    for (name, format, bytes) in columns {
        let segment = table
            .segment(name)
            .unwrap_or_else(|| panic!("no segment {name}"));
        let element = format.byte_length() as usize;
        let want = strided(bytes, element, segment.byte_stride() as usize);
        let start = segment.byte_offset() as usize;
        assert!(
            all[start..start + want.len()] == want[..],
            "segment {name} (stride {}) differs",
            segment.byte_stride()
        );
        let reserved = segment.reserved_byte_length() as usize;
        covered[start..start + reserved].fill(true);
        assert!(
            all[start + want.len()..start + reserved]
                .iter()
                .all(|&b| b == 0),
            "segment {name}: the reserved tail is not zero"
        );
    }
    for (i, (&b, &c)) in all.iter().zip(&covered).enumerate() {
        assert!(c || b == 0, "byte {i} between segments is {b}");
    }
}

#[test]
fn segmented_tables_upload_in_budgeted_chunks_with_values_at_their_stride() {
    // Small chunks on three workers: every segment spans several chunks.
    let gpu = chunked(&gpu());
    let mut rng = Rng::new(17);
    let n = 100_003usize;
    let formats = [
        VertexFormat::Unorm8x2,
        VertexFormat::Uint8x3Webgl,
        VertexFormat::Uint16x3Webgl,
        VertexFormat::Float32x3,
        VertexFormat::Uint8,
    ];
    for stride in [SegmentStride::Vertex, SegmentStride::Packed] {
        let columns: Vec<(&str, VertexFormat, Vec<u8>)> = ["a", "b", "c", "d", "e"]
            .into_iter()
            .zip(formats)
            .map(|(name, format)| (name, format, rng.bytes(n * format.byte_length() as usize)))
            .collect();
        let mut builder = SegmentedTableBuilder::new().stride(stride);
        for (name, format, bytes) in &columns {
            builder = builder.column(*name, *format, bytes);
        }
        let table = builder.build(&gpu).unwrap_or_else(|e| panic!("{e}"));
        if stride == SegmentStride::Vertex {
            assert_eq!(table.segment("c").map(|s| s.byte_stride()), Some(8));
        }
        check_segments(&gpu, &table, &columns);
        table.destroy();
    }
}

/// The child's part: a segmented table of 512 MiB built under a 16 MiB budget; prints the
/// peak memory the build added beyond the sources and the device's copy of the buffer.
fn segmented_memory_child() {
    let gpu = gpu().with_transfer_config(TransferConfig::new().budget_bytes(BUDGET));
    let warm = SegmentedTableBuilder::new()
        .column("w", VertexFormat::Float32, &[0; 4 << 20])
        .build(&gpu)
        .unwrap_or_else(|e| panic!("{e}"));
    warm.destroy();
    gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
    let rows = 64usize << 20;
    let block = 1 << 20;
    let mut floats = vec![0u8; rows * 4];
    for (i, b) in floats.chunks_mut(block).enumerate() {
        b.fill(i as u8);
    }
    let mut pairs = vec![0u8; rows * 2];
    for (i, b) in pairs.chunks_mut(block).enumerate() {
        b.fill(i as u8 ^ 0x33);
    }
    let base = reset_peak();
    let table = SegmentedTableBuilder::new()
        .column("x", VertexFormat::Float32, &floats)
        .column("uv", VertexFormat::Unorm8x2, &pairs)
        .stride(SegmentStride::Vertex)
        .build(&gpu)
        .unwrap_or_else(|e| panic!("{e}"));
    gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
    let size = table.buffer().size();
    let up = status_bytes("VmHWM").saturating_sub(base + size);
    let x = table.segment_data("x").unwrap_or_else(|| panic!("no x"));
    assert!(x.read_bytes(&gpu).unwrap_or_else(|e| panic!("{e}")) == floats);
    let uv = table.segment_data("uv").unwrap_or_else(|| panic!("no uv"));
    assert!(uv.read_bytes(&gpu).unwrap_or_else(|e| panic!("{e}")) == strided(&pairs, 2, 4));
    println!("transfer-memory size={size} up={up}");
}

/// Issue 17: a segmented table's upload is bounded by the staging budget too (it was one
/// buffer of the table's size mapped at creation, whose staging wgpu allocates whole).
#[test]
fn a_segmented_table_upload_stays_within_the_staging_budget() {
    if std::env::var_os(CHILD_ENV).is_some() {
        segmented_memory_child();
        return;
    }
    let (line, field) = child_report("a_segmented_table_upload_stays_within_the_staging_budget");
    assert!(field("size") >= 512 << 20, "{line}");
    let allowed = BUDGET + SLACK_ONE_THREAD;
    assert!(
        field("up") <= allowed,
        "the build added {} bytes, allowed {allowed}: {line}",
        field("up")
    );
}

/// Threads of [`shared_budget_child`], the buffers of `SERIES_ROWS` rows (8 MiB) each writes.
const SERIES_THREADS: usize = 8;
const SERIES_UPLOADS: usize = 8;
const SERIES_ROWS: usize = (8 << 20) / 12;

/// The child's part: eight threads at once, each writing eight 8 MiB buffers one after another
/// (each write one chunk of the 16 MiB budget, returning before the GPU has copied it) and then
/// reading each back; prints the peak memory each phase added beyond the sources, the
/// destinations and the device's buffers (all made and touched before).
fn shared_budget_child() {
    let gpu = gpu().with_transfer_config(TransferConfig::new().budget_bytes(BUDGET));
    let rows: Vec<Vec<Point>> = (0..SERIES_THREADS)
        .map(|t| {
            let mut rng = Rng::new(500 + t as u64);
            (0..SERIES_ROWS).map(|_| point(&mut rng)).collect()
        })
        .collect();
    let zeros = vec![Point { position: [0.0; 3] }; SERIES_ROWS];
    let buffers: Vec<Vec<TypedGpuData<Point>>> = (0..SERIES_THREADS)
        .map(|_| {
            (0..SERIES_UPLOADS)
                .map(|_| {
                    TypedGpuData::from_rows(&gpu, &zeros, USAGE).unwrap_or_else(|e| panic!("{e}"))
                })
                .collect()
        })
        .collect();
    let mut outs: Vec<Vec<u8>> = (0..SERIES_THREADS)
        .map(|_| vec![0xAA; SERIES_ROWS * 12])
        .collect();
    let expected: Vec<Vec<u8>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .flat_map(|p| p.position)
                .flat_map(f32::to_le_bytes)
                .collect()
        })
        .collect();
    gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
    let base = reset_peak();
    std::thread::scope(|scope| {
        for (mine, rows) in buffers.iter().zip(&rows) {
            let gpu = &gpu;
            scope.spawn(move || {
                for data in mine {
                    data.write_rows(gpu, 0, rows)
                        .unwrap_or_else(|e| panic!("{e}"));
                }
            });
        }
    });
    gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
    let up = status_bytes("VmHWM").saturating_sub(base);
    let base = reset_peak();
    std::thread::scope(|scope| {
        for ((mine, out), expected) in buffers.iter().zip(&mut outs).zip(&expected) {
            let gpu = &gpu;
            scope.spawn(move || {
                for data in mine {
                    out.fill(0);
                    data.as_data()
                        .read_bytes_into(gpu, out)
                        .unwrap_or_else(|e| panic!("{e}"));
                    assert!(out == expected, "a buffer read back differs");
                }
            });
        }
    });
    let down = status_bytes("VmHWM").saturating_sub(base);
    gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
    let held = gpudata::device::staging_in_use();
    println!("transfer-memory up={up} down={down} held={held}");
}

/// Issue 17: the staging budget bounds the process, not one transfer: a series of writes (each
/// returning once its chunk is queued) and transfers on eight threads at once take their
/// staging from one shared budget, so together they stay within it (without it, each thread's
/// transfers held a budget of their own and queued writes piled up: 282-286 MB added here).
#[test]
fn a_series_of_transfers_from_eight_threads_shares_one_staging_budget() {
    if std::env::var_os(CHILD_ENV).is_some() {
        shared_budget_child();
        return;
    }
    let (line, field) =
        child_report("a_series_of_transfers_from_eight_threads_shares_one_staging_budget");
    let allowed = BUDGET + SLACK_THREADS;
    assert!(
        field("up") <= allowed,
        "the writes added {} bytes, allowed {allowed}: {line}",
        field("up")
    );
    assert!(
        field("down") <= allowed,
        "the readbacks added {} bytes, allowed {allowed}: {line}",
        field("down")
    );
    // Every permit came back once the device was idle.
    assert_eq!(field("held"), 0, "{line}");
}

const KEPT_THREADS: usize = 8;
const KEPT_READS: usize = 12;
const KEPT_BYTES: usize = 8 << 20;

/// The child's part of the kept-staging test; prints what it saw.
fn kept_staging_child() {
    use gpudata::device::{
        STAGING_IDLE_RELEASE, release_idle_staging, staging_buffers_made, staging_idle,
        staging_in_use,
    };
    // Four drain threads, 1 MiB chunks, a 16 MiB budget: a ring of 8 buffers per readback.
    let config = TransferConfig::new()
        .threads(4)
        .chunk_bytes(1 << 20)
        .budget_bytes(BUDGET);
    let gpu = gpu().with_transfer_config(config.clone());
    let mut rng = Rng::new(77);
    let bytes = rng.bytes(KEPT_BYTES + 3);
    let data = bytes_data(&gpu, &bytes);
    let mut out = vec![0u8; bytes.len()];
    data.read_bytes_into(&gpu, &mut out)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out == bytes, "the first readback differs");
    let ring = staging_idle();
    let made = staging_buffers_made();
    // Many readbacks after it on one thread: every byte right, no buffer made.
    for i in 0..40 {
        out.fill(0);
        data.read_bytes_into(&gpu, &mut out)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(out == bytes, "readback {i} differs");
        assert_eq!(staging_in_use(), 0, "readback {i} left staging held");
    }
    let made_serial = staging_buffers_made() - made;
    let idle_serial = staging_idle();
    // Eight threads at once, each reading its own buffer again and again: peak memory within
    // the budget, every byte right.
    let sources: Vec<Vec<u8>> = (0..KEPT_THREADS).map(|_| rng.bytes(KEPT_BYTES)).collect();
    let datas: Vec<GpuData> = sources.iter().map(|s| bytes_data(&gpu, s)).collect();
    let mut outs: Vec<Vec<u8>> = (0..KEPT_THREADS).map(|_| vec![1u8; KEPT_BYTES]).collect();
    gpu.wait_idle().unwrap_or_else(|e| panic!("{e}"));
    let base = reset_peak();
    std::thread::scope(|scope| {
        for ((data, out), source) in datas.iter().zip(&mut outs).zip(&sources) {
            let gpu = &gpu;
            scope.spawn(move || {
                for _ in 0..KEPT_READS {
                    out.fill(0);
                    data.read_bytes_into(gpu, out)
                        .unwrap_or_else(|e| panic!("{e}"));
                    assert!(out == source, "a concurrent readback differs");
                }
            });
        }
    });
    let down = status_bytes("VmHWM").saturating_sub(base);
    let idle_threads = staging_idle();
    let held_threads = staging_in_use();
    // A second device: its readbacks take the budget's bytes from the first device's kept
    // buffers and keep their own.
    let second = limited_gpu("second device", |_| {}).with_transfer_config(config);
    let second_data = bytes_data(&second, &bytes);
    out.fill(0);
    second_data
        .read_bytes_into(&second, &mut out)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out == bytes, "the second device's readback differs");
    let idle_two = staging_idle();
    // Dropping the second device's last handle drops its kept buffers (once its upload's
    // permit, which holds a handle until the GPU is done, has come back).
    second.wait_idle().unwrap_or_else(|e| panic!("{e}"));
    drop(second_data);
    drop(second);
    let idle_dropped = staging_idle();
    // A readback on the first device again, then the memory-pressure call.
    data.read_bytes_into(&gpu, &mut out)
        .unwrap_or_else(|e| panic!("{e}"));
    let released = release_idle_staging();
    let idle_released = staging_idle();
    // Kept again, then released after the idle time by the reaper.
    data.read_bytes_into(&gpu, &mut out)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out == bytes, "the last readback differs");
    let idle_kept = staging_idle();
    let deadline = std::time::Instant::now() + STAGING_IDLE_RELEASE * 10;
    while staging_idle() > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(STAGING_IDLE_RELEASE / 4);
    }
    let idle_reaped = staging_idle();
    println!(
        "transfer-memory ring={ring} made_serial={made_serial} idle_serial={idle_serial} \
         down={down} idle_threads={idle_threads} held_threads={held_threads} \
         idle_two={idle_two} idle_dropped={idle_dropped} released={released} \
         idle_released={idle_released} idle_kept={idle_kept} idle_reaped={idle_reaped}"
    );
}

/// Issue 17: readbacks keep their staging ring for the next readback on the same device
/// (40 readbacks after the first make no staging buffer), within the process's budget from
/// eight threads at once (peak memory and kept bytes), yield it to another device's readbacks,
/// drop a device's buffers with its last handle, on `release_idle_staging` and after
/// `STAGING_IDLE_RELEASE` unused. In a child process: the counters are the process's.
#[test]
fn readback_staging_is_kept_reused_bounded_and_released() {
    if std::env::var_os(CHILD_ENV).is_some() {
        kept_staging_child();
        return;
    }
    let (line, field) = child_report("readback_staging_is_kept_reused_bounded_and_released");
    // The ring: 8 chunks of 1 MiB (the readback has 9; two per drain thread).
    assert_eq!(field("ring"), 8 << 20, "{line}");
    assert_eq!(field("made_serial"), 0, "{line}");
    assert_eq!(field("idle_serial"), 8 << 20, "{line}");
    let allowed = BUDGET + SLACK_THREADS;
    assert!(field("down") <= allowed, "{line}");
    assert!(field("idle_threads") <= BUDGET, "{line}");
    assert!(field("idle_threads") > 0, "{line}");
    assert_eq!(field("held_threads"), 0, "{line}");
    assert!(field("idle_two") <= BUDGET, "{line}");
    // The second device kept its ring (8 MiB) beside what was left of the first's.
    assert!(field("idle_two") >= 8 << 20, "{line}");
    assert!(field("idle_dropped") < field("idle_two"), "{line}");
    assert!(field("released") > 0, "{line}");
    assert_eq!(field("idle_released"), 0, "{line}");
    assert_eq!(field("idle_kept"), 8 << 20, "{line}");
    assert_eq!(field("idle_reaped"), 0, "{line}");
}

/// Compiles only when `T` may move to another thread and be shared between threads.
fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn the_device_data_and_table_types_are_send_and_sync() {
    // Transfers and operations from several threads at once need every public handle to cross
    // threads; this pins it at compile time (a non-`Sync` field added to any of them breaks
    // the build here).
    assert_send_sync::<Gpu>();
    assert_send_sync::<TransferConfig>();
    assert_send_sync::<GpuData>();
    assert_send_sync::<gpudata::GpuDataView<'static>>();
    assert_send_sync::<TypedGpuData<Particle>>();
    assert_send_sync::<gpudata::data::TypedGpuDataView<'static, [f32; 3]>>();
    assert_send_sync::<gpudata::GpuVector>();
    assert_send_sync::<gpudata::GpuConstant>();
    assert_send_sync::<gpudata::GpuRecordBatch>();
    assert_send_sync::<gpudata::GpuTable>();
    assert_send_sync::<SegmentedTable>();
    assert_send_sync::<gpudata::ops::GpuMask>();
    assert_send_sync::<gpudata::ops::OpPlan<GpuData>>();
    assert_send_sync::<gpudata::data::GpuUniform<Particle>>();
    assert_send_sync::<gpudata::data::GpuUniformArray<Particle>>();
}
