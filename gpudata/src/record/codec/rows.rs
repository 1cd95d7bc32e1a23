//! Slices of [`GpuStruct`] rows to and from GPU bytes.

use super::plan::Runs;
use crate::count::Count;
use crate::record::GpuStruct;

/// A byte buffer whose length does not hold a whole number of rows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RowBytesError {
    /// The destination of [`encode_rows`] is not `rows × byte stride` long.
    #[error(
        "destination holds {found_bytes}, but encoding {rows} of byte stride {byte_stride} needs {expected}",
        found_bytes = Count(*.found, "byte"),
        rows = Count(*.rows, "row")
    )]
    DestinationLength {
        /// Rows to encode.
        rows: usize,
        /// The struct's byte stride.
        byte_stride: u64,
        /// Bytes needed.
        expected: u64,
        /// Bytes given.
        found: u64,
    },
    /// The source of [`decode_rows`] is not a multiple of the byte stride.
    #[error(
        "source holds {found_bytes}, which is not a multiple of the byte stride {byte_stride}",
        found_bytes = Count(*.found, "byte")
    )]
    SourceLength {
        /// The struct's byte stride.
        byte_stride: u64,
        /// Bytes given.
        found: u64,
    },
}

/// The bytes of `rows`, borrowed, when they are already GPU rows
/// ([`GpuStruct::HOST_LAYOUT_MATCHES`]); `None` otherwise, in which case use [`encode_rows`].
///
/// ```
/// use gpudata::GpuStruct;
///
/// #[derive(Clone, Copy, GpuStruct)]
/// #[repr(C)]
/// #[gpu(layout = "packed")]
/// struct Vertex {
///     position: [f32; 3],
///     color: gpudata::Unorm8x4,
/// }
///
/// let rows = [Vertex { position: [1.0, 2.0, 3.0], color: gpudata::Unorm8x4([1, 2, 3, 4]) }];
/// let bytes = gpudata::record::rows_as_bytes(&rows).expect("the host layout is the gpu layout");
/// assert_eq!(bytes.len(), 16);
/// assert_eq!(&bytes[12..], &[1, 2, 3, 4]);
/// ```
#[must_use]
pub fn rows_as_bytes<T: GpuStruct>(rows: &[T]) -> Option<&[u8]> {
    if !T::HOST_LAYOUT_MATCHES {
        return None;
    }
    debug_assert_eq!(size_of::<T>() as u64, T::FORMAT.byte_stride());
    // SAFETY: `HOST_LAYOUT_MATCHES` is the `unsafe trait GpuStruct` implementor's promise (the
    // derive sets it only after checking, at compile time, `#[repr(C)]`, plain-data field types,
    // no implicit padding, every field at its format offset and `size_of::<T>()` equal to the
    // byte stride) that every byte of a `T` is initialized. The pointer and length come from a
    // live slice, `u8` has alignment 1, and the returned slice borrows `rows`.
    let bytes =
        unsafe { core::slice::from_raw_parts(rows.as_ptr().cast::<u8>(), size_of_val(rows)) };
    Some(bytes)
}

/// [`rows_as_bytes`] for writing: the bytes of `rows` when `T`'s host layout is its GPU layout,
/// so readbacks can copy GPU rows straight into a `Vec<T>`.
pub(crate) fn rows_as_bytes_mut<T: GpuStruct>(rows: &mut [T]) -> Option<&mut [u8]> {
    if !T::HOST_LAYOUT_MATCHES {
        return None;
    }
    let len = size_of_val(rows);
    // SAFETY: as in `rows_as_bytes`, every byte of a `T` is initialized; and by the
    // `unsafe trait GpuStruct` contract every field is plain data valid for any bit pattern, so
    // any bytes written through the slice leave valid `T`s. The slice borrows `rows` mutably.
    Some(unsafe { core::slice::from_raw_parts_mut(rows.as_mut_ptr().cast::<u8>(), len) })
}

/// `count` all-zero rows, allocated zeroed (a large allocation gets fresh pages that the
/// first write faults in, not a host pass of its own); `None` when the size overflows.
pub(crate) fn zeroed_rows<T: GpuStruct>(count: usize) -> Option<Vec<T>> {
    let layout = std::alloc::Layout::array::<T>(count).ok()?;
    if count == 0 || layout.size() == 0 {
        return Some(Vec::new());
    }
    // SAFETY: the layout has a non-zero size.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<T>();
    if ptr.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `[T; count]`, and
    // an all-zero `T` is valid by the `unsafe trait GpuStruct` contract, so all `count`
    // elements are initialized.
    Some(unsafe { Vec::from_raw_parts(ptr, count, count) })
}

fn stride_usize<T: GpuStruct>() -> usize {
    usize::try_from(T::FORMAT.byte_stride()).unwrap_or(usize::MAX)
}

/// Outputs from this size up are encoded on several threads by [`encode_rows`] and
/// [`encode_rows_to_vec`] (see [`encode_rows_on`]).
pub const THREADED_ENCODE_BYTES: usize = 4 << 20;
/// The least output one thread of a threaded encode writes.
const MIN_PART_BYTES: usize = 2 << 20;

/// The threads [`encode_rows`] uses for `bytes` of output: one below
/// [`THREADED_ENCODE_BYTES`], else the machine's available parallelism, at most 8.
fn encode_threads(bytes: usize) -> usize {
    if bytes < THREADED_ENCODE_BYTES {
        1
    } else {
        super::split::default_threads()
    }
}

/// Writes `rows` as GPU rows into `dst`: one `memcpy` when the host layout is the GPU layout,
/// the derive's per-field encoder otherwise (padding bytes zeroed).
///
/// The encoder builds each 16-byte piece of a row in a register from the host row (x86_64 with
/// SSSE3, rows whose stride is a multiple of 16 bytes, at most 256), writes outputs of 4 MiB and
/// more with streaming stores, and splits outputs of [`THREADED_ENCODE_BYTES`] (4 MiB) and more
/// over the machine's available parallelism (at most 8 threads, each writing at least 2 MiB).
/// [`encode_rows_on`] takes the number of threads.
///
/// # Errors
/// [`RowBytesError::DestinationLength`] when `dst.len() != rows.len() × byte stride`.
pub fn encode_rows<T: GpuStruct>(rows: &[T], dst: &mut [u8]) -> Result<(), RowBytesError> {
    encode_rows_on(rows, dst, encode_threads(dst.len()))
}

/// [`encode_rows`] on at most `threads` threads (`0` and `1`: the calling thread only), each
/// writing at least 2 MiB of output: the calling thread encodes the first part, scoped threads
/// the others. The zero-copy path stays one `memcpy` on the calling thread.
///
/// ```
/// use gpudata::GpuStruct;
/// use gpudata::record::{encode_rows, encode_rows_on};
///
/// #[derive(Clone, Copy, GpuStruct)]
/// struct Particle {
///     mass: f32,
///     position: [f32; 3],
/// }
///
/// let rows: Vec<Particle> = (0..200_000)
///     .map(|i| Particle { mass: 1.0, position: [i as f32, 0.0, 0.0] })
///     .collect();
/// let mut one = vec![0u8; rows.len() * 32];
/// let mut four = vec![0u8; rows.len() * 32];
/// encode_rows_on(&rows, &mut one, 1).unwrap();
/// encode_rows_on(&rows, &mut four, 4).unwrap();
/// assert!(one == four);
/// ```
///
/// # Errors
/// [`RowBytesError::DestinationLength`] when `dst.len() != rows.len() × byte stride`.
pub fn encode_rows_on<T: GpuStruct>(
    rows: &[T],
    dst: &mut [u8],
    threads: usize,
) -> Result<(), RowBytesError> {
    let stride = stride_usize::<T>();
    let expected = rows.len().checked_mul(stride);
    if expected != Some(dst.len()) {
        return Err(RowBytesError::DestinationLength {
            rows: rows.len(),
            byte_stride: T::FORMAT.byte_stride(),
            expected: (rows.len() as u64).saturating_mul(T::FORMAT.byte_stride()),
            found: dst.len() as u64,
        });
    }
    if let Some(bytes) = rows_as_bytes(rows) {
        dst.copy_from_slice(bytes);
    } else {
        encode_checked(rows, dst, stride, threads);
    }
    Ok(())
}

/// The encoder (not the zero-copy path) over `rows` into `dst`, which holds exactly
/// `rows.len() × stride` bytes, on at most `threads` threads.
fn encode_checked<T: GpuStruct>(rows: &[T], dst: &mut [u8], stride: usize, threads: usize) {
    if stride == 0 {
        return;
    }
    let stream = stream::worth_streaming(dst.len());
    let per_part =
        super::split::rows_per_part(rows.len(), threads, MIN_PART_BYTES.div_ceil(stride));
    super::split::run_parts(dst, stride, per_part, |first, part| {
        let count = part.len() / stride;
        encode_part(&rows[first..first + count], part, stride, stream);
    });
}

/// One thread's share of an encode: the chunk plan in registers where it applies, else rows
/// built in a buffer and streamed (`stream`), else row by row.
fn encode_part<T: GpuStruct>(rows: &[T], dst: &mut [u8], stride: usize, stream: bool) {
    if simd::encode_rows_in_registers(rows, dst, stream) {
        return;
    }
    if stream && stream::encode_rows_streaming(rows, dst, stride) {
        return;
    }
    for (row, out) in rows.iter().zip(dst.chunks_exact_mut(stride)) {
        row.encode_row(out);
    }
}

/// The encoder in registers (x86_64, SSSE3): each 16-byte chunk of a GPU row is one or more
/// 16-byte loads from the host row, each shuffled into place (`pshufb`, zeroing padding lanes)
/// and OR-ed, then stored, streaming or not, following [`Chunks`](super::plan::Chunks).
#[cfg(target_arch = "x86_64")]
mod simd {
    use super::super::plan::{CHUNK, Chunks};
    use super::GpuStruct;

    /// Encodes `rows` into `dst` (exactly `rows.len()` GPU rows long, checked by the caller) and
    /// returns `true`; or returns `false` having written nothing, when `T` has no chunk plan or
    /// the CPU lacks SSSE3. Streams when `stream` and `dst` is 16-byte aligned.
    pub(super) fn encode_rows_in_registers<T: GpuStruct>(
        rows: &[T],
        dst: &mut [u8],
        stream: bool,
    ) -> bool {
        if Chunks::<T>::TABLE.chunks().is_none() || !std::arch::is_x86_feature_detected!("ssse3") {
            return false;
        }
        if stream && dst.as_ptr().align_offset(CHUNK) == 0 {
            // SAFETY: SSSE3 is available (detected above); `dst` is 16-byte aligned.
            unsafe { encode::<T, true>(rows, dst) };
            // SAFETY: SSE is part of the x86_64 baseline; the fence orders the streaming stores
            // before any later store, as plain stores would be.
            unsafe { core::arch::x86_64::_mm_sfence() };
        } else {
            // SAFETY: SSSE3 is available (detected above).
            unsafe { encode::<T, false>(rows, dst) };
        }
        true
    }

    /// The loop of [`encode_rows_in_registers`]. With `STREAM`, `dst` must be 16-byte aligned.
    #[target_feature(enable = "ssse3")]
    fn encode<T: GpuStruct, const STREAM: bool>(rows: &[T], dst: &mut [u8]) {
        use core::arch::x86_64::{
            __m128i, _mm_loadu_si128, _mm_or_si128, _mm_setzero_si128, _mm_shuffle_epi8,
            _mm_storeu_si128, _mm_stream_si128,
        };

        let table = Chunks::<T>::TABLE;
        let Some(chunks) = table.chunks() else {
            return;
        };
        let stride = chunks.len() * CHUNK;
        for (row, out) in rows.iter().zip(dst.chunks_exact_mut(stride)) {
            let host = core::ptr::from_ref(row).cast::<u8>();
            for (chunk, target) in chunks.iter().zip(out.chunks_exact_mut(CHUNK)) {
                let mut value = _mm_setzero_si128();
                for load in table.loads(chunk) {
                    debug_assert!(load.host + CHUNK <= size_of::<T>());
                    // SAFETY: the plan only loads 16 bytes at `load.host` with `load.host + 16
                    // <= size_of::<T>()`, all inside one span of host bytes that field copies
                    // cover, which the `unsafe trait GpuStruct` contract makes initialized; the
                    // load is unaligned.
                    let mut bytes =
                        unsafe { _mm_loadu_si128(host.add(load.host).cast::<__m128i>()) };
                    if load.shuffle {
                        // SAFETY: `control` is 16 readable bytes (unaligned load).
                        let control =
                            unsafe { _mm_loadu_si128(load.control.as_ptr().cast::<__m128i>()) };
                        bytes = _mm_shuffle_epi8(bytes, control);
                    }
                    value = _mm_or_si128(value, bytes);
                }
                let target = target.as_mut_ptr().cast::<__m128i>();
                if STREAM {
                    // SAFETY: `target` is 16 writable bytes at a 16-byte aligned address: `dst`
                    // is 16-byte aligned (the caller's promise) and every row and chunk offset
                    // is a multiple of 16.
                    unsafe { _mm_stream_si128(target, value) };
                } else {
                    // SAFETY: `target` is 16 writable bytes (unaligned store).
                    unsafe { _mm_storeu_si128(target, value) };
                }
            }
        }
    }
}

/// The encoder in registers is only implemented for x86_64.
#[cfg(not(target_arch = "x86_64"))]
mod simd {
    use super::GpuStruct;

    pub(super) fn encode_rows_in_registers<T: GpuStruct>(
        _rows: &[T],
        _dst: &mut [u8],
        _stream: bool,
    ) -> bool {
        false
    }
}

/// Large encodes with non-temporal stores: each row is encoded into a small buffer that stays in
/// L1, then streamed to the destination without first reading the destination's cache lines
/// (which a plain store must do), cutting memory traffic by a third or more when the output is
/// far larger than the caches. Used for rows the encoder in registers does not take.
mod stream {
    use super::GpuStruct;

    /// Outputs smaller than this stay with plain stores: they fit in the caches, where streaming
    /// only adds latency.
    const MIN_BYTES: usize = 4 << 20;
    /// The largest row streamed (the on-stack row buffer's size).
    #[cfg(target_arch = "x86_64")]
    const MAX_STRIDE: usize = 256;

    /// Whether an encode of `bytes` in all (on however many threads) streams its stores.
    pub(super) fn worth_streaming(bytes: usize) -> bool {
        cfg!(target_arch = "x86_64") && bytes >= MIN_BYTES
    }

    /// Encodes `rows` into `dst` with streaming stores and returns `true`, or returns `false`
    /// having written nothing when streaming does not apply (another architecture, a stride
    /// that is not a multiple of 16 or above 256 bytes, or `dst` not 16-byte aligned).
    /// `dst.len() == rows.len() * stride` is checked by the caller.
    #[cfg(target_arch = "x86_64")]
    pub(super) fn encode_rows_streaming<T: GpuStruct>(
        rows: &[T],
        dst: &mut [u8],
        stride: usize,
    ) -> bool {
        use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};

        if stride > MAX_STRIDE || !stride.is_multiple_of(16) || dst.as_ptr().align_offset(16) != 0 {
            return false;
        }
        let mut row_buffer = [0u8; MAX_STRIDE];
        let row_bytes = &mut row_buffer[..stride];
        for (row, out) in rows.iter().zip(dst.chunks_exact_mut(stride)) {
            row.encode_row(row_bytes);
            for (chunk, target) in row_bytes.chunks_exact(16).zip(out.chunks_exact_mut(16)) {
                // SAFETY: SSE2 is part of the x86_64 baseline. `chunk` is 16 readable bytes
                // (unaligned load); `target` is 16 writable bytes at a 16-byte aligned address:
                // `dst` is 16-byte aligned and every row and chunk offset is a multiple of 16.
                unsafe {
                    let value = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
                    _mm_stream_si128(target.as_mut_ptr().cast::<__m128i>(), value);
                }
            }
        }
        // SAFETY: SSE is part of the x86_64 baseline; the fence orders the streaming stores
        // before any later store, as plain stores would be.
        unsafe { _mm_sfence() };
        true
    }

    /// Streaming is only implemented for x86_64.
    #[cfg(not(target_arch = "x86_64"))]
    pub(super) fn encode_rows_streaming<T: GpuStruct>(
        _rows: &[T],
        _dst: &mut [u8],
        _stride: usize,
    ) -> bool {
        false
    }
}

/// `rows` as a new vector of GPU rows (see [`encode_rows`]: outputs of 4 MiB and more are
/// encoded on several threads).
#[must_use]
pub fn encode_rows_to_vec<T: GpuStruct>(rows: &[T]) -> Vec<u8> {
    if let Some(bytes) = rows_as_bytes(rows) {
        return bytes.to_vec();
    }
    let stride = stride_usize::<T>();
    let mut out = vec![0u8; rows.len() * stride];
    let threads = encode_threads(out.len());
    encode_checked(rows, &mut out, stride, threads);
    out
}

/// Reads GPU rows back into host rows: one `memcpy` when the host layout is the GPU layout, the
/// derive's per-field decoder otherwise (host-only `#[gpu(padding)]` fields come back zeroed).
///
/// Sources of [`THREADED_ENCODE_BYTES`] (4 MiB) and more are decoded by the per-field decoder on
/// the machine's available parallelism (at most 8 threads, each reading at least 2 MiB), split
/// as [`encode_rows`] splits its output; [`decode_rows_on`] takes the number of threads.
///
/// # Errors
/// [`RowBytesError::SourceLength`] when `src.len()` is not a multiple of the byte stride.
pub fn decode_rows<T: GpuStruct>(src: &[u8]) -> Result<Vec<T>, RowBytesError> {
    decode_rows_on(src, encode_threads(src.len()))
}

/// [`decode_rows`] on at most `threads` threads (`0` and `1`: the calling thread only), each
/// reading at least 2 MiB of `src`: the calling thread decodes the first rows, scoped threads
/// the others, each into its own part of the result. The zero-copy path stays one `memcpy` on
/// the calling thread.
///
/// ```
/// use gpudata::GpuStruct;
/// use gpudata::record::{decode_rows_on, encode_rows_to_vec};
///
/// #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
/// struct Particle {
///     mass: f32,
///     position: [f32; 3],
/// }
///
/// let rows: Vec<Particle> = (0..200_000)
///     .map(|i| Particle { mass: 1.0, position: [i as f32, 0.0, 0.0] })
///     .collect();
/// let bytes = encode_rows_to_vec(&rows);
/// assert_eq!(decode_rows_on::<Particle>(&bytes, 1).unwrap(), rows);
/// assert_eq!(decode_rows_on::<Particle>(&bytes, 4).unwrap(), rows);
/// ```
///
/// # Errors
/// [`RowBytesError::SourceLength`] when `src.len()` is not a multiple of the byte stride.
pub fn decode_rows_on<T: GpuStruct>(src: &[u8], threads: usize) -> Result<Vec<T>, RowBytesError> {
    let stride = stride_usize::<T>();
    if stride == 0 || !src.len().is_multiple_of(stride) {
        return Err(RowBytesError::SourceLength {
            byte_stride: T::FORMAT.byte_stride(),
            found: src.len() as u64,
        });
    }
    let len = src.len() / stride;
    if T::HOST_LAYOUT_MATCHES {
        let mut rows = Vec::<T>::with_capacity(len);
        // SAFETY: with `HOST_LAYOUT_MATCHES` (the implementor's promise, checked at compile time by
        // the derive) `T` is `size_of::<T>() == stride` bytes of plain-data fields with no padding,
        // so every bit pattern is a valid `T`. The capacity holds `len` values, the regions do not
        // overlap, and all `len × stride` bytes are written before `set_len`.
        unsafe {
            core::ptr::copy_nonoverlapping(src.as_ptr(), rows.as_mut_ptr().cast::<u8>(), src.len());
            rows.set_len(len);
        }
        return Ok(rows);
    }
    Ok(decode_rows_strided(
        src,
        stride,
        len,
        threads,
        MIN_PART_BYTES.div_ceil(stride),
    ))
}

/// `count` rows decoded with [`GpuStruct::decode_row`] from `src` (row `i` at `i × stride`, the
/// last one at least `T::FORMAT.row_byte_length()` bytes) on at most `threads` threads, each
/// decoding a contiguous share of at least `min_rows` rows into its part of the result (split
/// by [`split`](super::split), the rule of the threaded encoder): [`decode_rows_on`]'s decoder
/// and the readback decode of [`TypedGpuData::read_rows`](crate::data::TypedGpuData::read_rows).
///
/// # Panics
/// When `src` is shorter than `count` rows (the callers check it).
pub(crate) fn decode_rows_strided<T: GpuStruct>(
    src: &[u8],
    stride: usize,
    count: usize,
    threads: usize,
    min_rows: usize,
) -> Vec<T> {
    let Some(mut rows) = zeroed_rows::<T>(count) else {
        return (0..count)
            .map(|i| T::decode_row(&src[i * stride..]))
            .collect();
    };
    let per_part = super::split::rows_per_part(count, threads, min_rows);
    super::split::run_parts(&mut rows, 1, per_part, |first, part| {
        for (j, row) in part.iter_mut().enumerate() {
            *row = T::decode_row(&src[(first + j) * stride..]);
        }
    });
    rows
}

/// The bytes of GPU field `index` inside the host row (`FIELD_COPIES[index]`'s host range),
/// which are its GPU bytes; `None` when there is no such field.
pub(crate) fn host_field_bytes<T: GpuStruct>(row: &T, index: usize) -> Option<&[u8]> {
    let copy = T::FIELD_COPIES.get(index)?;
    if copy.host.checked_add(copy.len)? > size_of::<T>() {
        return None;
    }
    // SAFETY: by the `unsafe trait GpuStruct` contract (checked at compile time by the derive),
    // `copy.host..copy.host + copy.len` is one plain-data field of `row`, so its bytes are
    // initialized; the range lies inside `T` (checked above) and the slice borrows `row`.
    let bytes = unsafe {
        core::slice::from_raw_parts(
            core::ptr::from_ref(row).cast::<u8>().add(copy.host),
            copy.len,
        )
    };
    Some(bytes)
}

/// [`GpuStruct::encode_row`]: copies each field's bytes from the host row to its GPU offset,
/// following [`GpuStruct::FIELD_COPIES`] merged into runs (see [`Runs`]), and zeroes the gaps
/// between them.
#[inline]
pub(crate) fn encode_row_by_table<T: GpuStruct>(row: &T, dst: &mut [u8]) {
    let stride = stride_usize::<T>();
    assert!(
        dst.len() == stride,
        "encode_row needs exactly {stride} bytes (one gpu row), got {}",
        dst.len()
    );
    let Some(runs) = Runs::<T>::TABLE.runs() else {
        dst.fill(0);
        // SAFETY: by the `unsafe trait GpuStruct` contract (which the derive checks at compile
        // time), each `FIELD_COPIES` host range is one plain-data field of `row`, so its bytes
        // are initialized; `write_copies` checks the ranges against `T` and `dst`.
        unsafe { super::copy::write_copies(row, T::FIELD_COPIES, dst) };
        return;
    };
    // Each run (field copies merged where adjacent on both sides) after zeroing the gap before
    // it; then the row's tail.
    let mut end = 0;
    for run in runs {
        dst[end..run.gpu].fill(0);
        // SAFETY: a run is the union of `FIELD_COPIES` entries adjacent on both sides, so its
        // host range is plain-data fields of `row` (the `unsafe trait GpuStruct` contract), all
        // initialized; `write_copies` checks the range against `T` and `dst`.
        unsafe { super::copy::write_copies(row, core::slice::from_ref(run), dst) };
        end = run.gpu + run.len;
    }
    dst[end..].fill(0);
}

/// [`GpuStruct::decode_row`]: starts from an all-zero row and copies each field's bytes from its
/// GPU offset to its place in the host row, following [`GpuStruct::FIELD_COPIES`] merged into
/// runs (see [`Runs`]).
#[inline]
pub(crate) fn decode_row_by_table<T: GpuStruct>(src: &[u8]) -> T {
    let row_len = usize::try_from(T::FORMAT.row_byte_length()).unwrap_or(usize::MAX);
    assert!(
        src.len() >= row_len,
        "decode_row needs at least {row_len} bytes (one gpu row), got {}",
        src.len()
    );
    // SAFETY: by the `unsafe trait GpuStruct` contract (checked at compile time by the derive),
    // every field of `T` is plain data, valid for any bit pattern, so the all-zero row with
    // field bytes copied in is a valid `T` (a run is the union of `FIELD_COPIES` entries);
    // `read_copies` checks the ranges against `T` and `src`.
    let copies = Runs::<T>::TABLE.runs().unwrap_or(T::FIELD_COPIES);
    unsafe { super::copy::read_copies(src, copies) }
}
