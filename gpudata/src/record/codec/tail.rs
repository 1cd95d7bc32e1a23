//! A runtime-sized struct's GPU bytes: its header followed by its elements (see
//! [`GpuRuntimeStruct`]), encoded and decoded through the copy tables the derive wrote.

use super::copy::{read_copies, write_copies};
use crate::record::GpuRuntimeStruct;

/// The GPU bytes of `header` followed by `elements`: [`GpuRuntimeStruct::byte_length`] bytes,
/// every padding byte zero. `None` when the length overflows `usize`.
///
/// ```
/// use gpudata::GpuStruct;
/// use gpudata::record::{RuntimeArray, encode_runtime};
///
/// #[derive(Clone, Copy, GpuStruct)]
/// struct Samples {
///     scale: f32,
///     values: RuntimeArray<[f32; 2]>,
/// }
///
/// let header = Samples { scale: 2.0, values: RuntimeArray::new() };
/// let bytes = encode_runtime(&header, &[[1.0, 2.0], [3.0, 4.0]]).unwrap();
/// let floats: Vec<f32> = bytes.chunks(4).map(|w| f32::from_le_bytes(w.try_into().unwrap())).collect();
/// assert_eq!(floats, [2.0, 0.0, 1.0, 2.0, 3.0, 4.0]);
/// ```
#[must_use]
pub fn encode_runtime<T: GpuRuntimeStruct>(header: &T, elements: &[T::Element]) -> Option<Vec<u8>> {
    let len = usize::try_from(T::byte_length(elements.len() as u64)?).ok()?;
    let mut bytes = vec![0u8; len];
    // SAFETY: the `unsafe trait GpuRuntimeStruct` contract: the header copies' host ranges are
    // plain-data bytes of `T`, their GPU ranges lie before the tail (inside `bytes`).
    unsafe { write_copies(header, T::HEADER_COPIES, &mut bytes) };
    encode_elements::<T>(elements, &mut bytes[T::tail().offset as usize..]);
    Some(bytes)
}

/// Writes `elements` as GPU elements at the start of `dst` (at least `elements.len() × stride`
/// bytes, padding bytes between leaves left as they are: zero in a fresh buffer).
pub(crate) fn encode_elements<T: GpuRuntimeStruct>(elements: &[T::Element], dst: &mut [u8]) {
    let stride = T::tail().stride as usize;
    if T::ELEMENT_HOST_MATCHES {
        // SAFETY: with `ELEMENT_HOST_MATCHES` the contract makes every byte of an element
        // initialized; the pointer and length come from a live slice and `u8` has alignment 1.
        let src = unsafe {
            core::slice::from_raw_parts(elements.as_ptr().cast::<u8>(), size_of_val(elements))
        };
        dst[..src.len()].copy_from_slice(src);
        return;
    }
    if stride == 0 {
        return;
    }
    for (element, out) in elements.iter().zip(dst.chunks_exact_mut(stride)) {
        // SAFETY: the contract: the element copies' host ranges are plain-data bytes of an
        // `Element` (those its `GpuType::HOST` locates), their GPU ranges lie inside the stride.
        unsafe { write_copies(element, T::ELEMENT_COPIES, out) };
    }
}

/// The header and `count` elements read back from the struct's GPU bytes (`bytes` holds at
/// least [`GpuRuntimeStruct::byte_length`]`(count)` of them, else `None`).
#[must_use]
pub fn decode_runtime<T: GpuRuntimeStruct>(
    bytes: &[u8],
    count: usize,
) -> Option<(T, Vec<T::Element>)> {
    let len = usize::try_from(T::byte_length(count as u64)?).ok()?;
    if bytes.len() < len {
        return None;
    }
    // SAFETY: the contract: an all-zero `T` is valid with any bytes in the header copies' host
    // ranges, which lie inside `T`; their GPU ranges lie before the tail, inside `bytes`.
    let header = unsafe { read_copies::<T>(bytes, T::HEADER_COPIES) };
    let elements = decode_elements::<T>(&bytes[T::tail().offset as usize..], count);
    Some((header, elements))
}

/// `count` elements read from GPU elements at the start of `src` (at least `count × stride`
/// bytes: the caller checks).
pub(crate) fn decode_elements<T: GpuRuntimeStruct>(src: &[u8], count: usize) -> Vec<T::Element> {
    let stride = T::tail().stride as usize;
    if stride == 0 {
        return Vec::new();
    }
    src.chunks_exact(stride)
        .take(count)
        // SAFETY: `GpuType`'s contract makes an all-zero element valid, and valid with any bit
        // pattern in the bytes its `HOST` locates, which are the element copies' host ranges.
        .map(|chunk| unsafe { read_copies::<T::Element>(chunk, T::ELEMENT_COPIES) })
        .collect()
}
