//! Runtime-sized structs: [`RuntimeArray<T>`] marks the last field of a derived storage struct as
//! WGSL's runtime-sized `array<T>`, and [`GpuRuntimeStruct`] (implemented by the derive for such
//! a struct) says how a header value and a slice of elements become the struct's GPU bytes.
//! [`GpuStorage`](crate::data::GpuStorage) holds them in a storage buffer.

use core::fmt;
use core::marker::PhantomData;
use core::num::NonZeroU64;

use super::FieldCopy;
use super::gpu_type::GpuType;
use crate::layout::{GpuDataStructField, RuntimeTail, TypeLayout};

/// The runtime-sized tail of a derived storage struct: `items: RuntimeArray<Particle>` is WGSL's
/// `items: array<Particle>`, the struct's last member. It holds nothing (a zero-sized marker):
/// the struct's value is the header, and the elements travel beside it
/// ([`GpuStorage::new(gpu, &header, &elements)`](crate::data::GpuStorage::new)).
///
/// ```
/// use gpudata::GpuStruct;
/// use gpudata::record::{GpuRuntimeStruct, RuntimeArray};
///
/// #[derive(Clone, Copy, GpuStruct)]
/// struct Particle {
///     position: [f32; 3],
///     mass: f32,
/// }
///
/// #[derive(Clone, Copy, GpuStruct)]
/// struct Particles {
///     count: u32,
///     items: RuntimeArray<Particle>,
/// }
///
/// // `count` at 0, the elements from byte 16 (a `vec3<f32>` aligns to 16), 16 bytes apart.
/// assert_eq!(Particles::tail().offset, 16);
/// assert_eq!(Particles::tail().stride, 16);
/// // Header plus one element: what a bind group layout entry asks for.
/// assert_eq!(Particles::min_binding_size().get(), 32);
/// assert_eq!(Particles::byte_length(3), Some(64));
/// ```
pub struct RuntimeArray<T>(PhantomData<fn() -> T>);

impl<T> RuntimeArray<T> {
    /// The marker.
    #[must_use]
    pub const fn new() -> RuntimeArray<T> {
        RuntimeArray(PhantomData)
    }
}

impl<T> Clone for RuntimeArray<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for RuntimeArray<T> {}

impl<T> Default for RuntimeArray<T> {
    fn default() -> Self {
        RuntimeArray::new()
    }
}

impl<T> PartialEq for RuntimeArray<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Eq for RuntimeArray<T> {}

impl<T> core::hash::Hash for RuntimeArray<T> {
    fn hash<H: core::hash::Hasher>(&self, _: &mut H) {}
}

impl<T> fmt::Debug for RuntimeArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RuntimeArray")
    }
}

/// A derived storage struct whose last field is a [`RuntimeArray`]: a header (every other field)
/// followed by a runtime-sized array of [`Element`](Self::Element)s, laid out by WGSL's memory
/// model. Implemented by `#[derive(GpuStruct)]`; such a struct is not a row type (it has no
/// [`GpuStruct`](crate::GpuStruct) impl) and does not nest.
///
/// # Safety
/// Implementing this trait by hand is unsafe. The implementor promises that every field of
/// `Self` is plain data (an all-zero `Self` is valid, and so is any bit pattern in the bytes
/// [`HEADER_COPIES`](Self::HEADER_COPIES) names); that each `HEADER_COPIES` entry's host range
/// lies inside `Self` and its GPU range inside `LAYOUT.tail.offset` bytes; that each
/// [`ELEMENT_COPIES`](Self::ELEMENT_COPIES) entry's host range is bytes of an `Element` that
/// `Element`'s [`GpuType::HOST`] locates and its GPU range lies inside the tail's stride; that
/// [`LAYOUT`](Self::LAYOUT) has a tail; and that, when
/// [`ELEMENT_HOST_MATCHES`](Self::ELEMENT_HOST_MATCHES) is `true`, every byte of an `Element` is
/// initialized and `size_of::<Element>()` is the tail's stride, so a slice of elements is its
/// GPU bytes.
pub unsafe trait GpuRuntimeStruct: Copy + Send + Sync + 'static {
    /// The tail's element type.
    type Element: GpuType;
    /// The struct's layout in the storage address space: alignment, size with one element (the
    /// smallest binding a shader accepts) and the tail's offset and stride.
    const LAYOUT: TypeLayout;
    /// The header's leaves (every field before the tail, flattened with luma.gl's names), with
    /// their formats and GPU offsets.
    const HEADER_FIELDS: &'static [GpuDataStructField];
    /// How each header leaf's bytes move between `Self` and the GPU bytes.
    const HEADER_COPIES: &'static [FieldCopy];
    /// How each element leaf's bytes move between an `Element` and its GPU bytes (offsets from
    /// the element's start).
    const ELEMENT_COPIES: &'static [FieldCopy];
    /// Whether a slice of elements is its GPU bytes, so the tail uploads as one `memcpy`.
    const ELEMENT_HOST_MATCHES: bool;

    /// Where the tail starts and how far apart its elements are.
    #[must_use]
    fn tail() -> RuntimeTail {
        Self::LAYOUT.tail.unwrap_or(RuntimeTail {
            offset: Self::LAYOUT.size,
            stride: 0,
        })
    }

    /// The `min_binding_size` of a bind group layout entry for this struct: the header plus one
    /// element, rounded up to the struct's alignment (WGSL's `SizeOf` with one element, what naga
    /// and wgpu require of a binding).
    #[must_use]
    fn min_binding_size() -> NonZeroU64 {
        NonZeroU64::new(Self::LAYOUT.size).unwrap_or(NonZeroU64::MIN)
    }

    /// Bytes of a buffer holding the header and `elements` elements: the tail's end, at least
    /// [`min_binding_size`](Self::min_binding_size), rounded up to 4 (WebGPU's unit for storage
    /// bindings and copies). The tail's end is not rounded up to the struct's alignment, so
    /// `arrayLength` in a shader counts `elements` (where the minimum size or the rounding to 4
    /// leaves no room for another element). `None` on overflow.
    #[must_use]
    fn byte_length(elements: u64) -> Option<u64> {
        let tail = Self::tail();
        let end = tail
            .offset
            .checked_add(elements.checked_mul(tail.stride)?)?;
        end.max(Self::LAYOUT.size).checked_next_multiple_of(4)
    }
}

/// Copies the bytes `copies` names from `value` into `dst` (offsets into `dst` from 0).
///
/// # Safety
/// Each copy's host range lies inside `V` and is initialized bytes of every `V`; each GPU range
/// lies inside `dst` (checked: out-of-range copies panic).
#[inline]
pub(crate) unsafe fn write_copies<V>(value: &V, copies: &[FieldCopy], dst: &mut [u8]) {
    let host = core::ptr::from_ref(value).cast::<u8>();
    for copy in copies {
        assert!(copy.host + copy.len <= size_of::<V>());
        let out = &mut dst[copy.gpu..copy.gpu + copy.len];
        // SAFETY: the caller promises the host range is initialized bytes inside `V` (its end is
        // asserted above); `out` is exactly `copy.len` bytes of a distinct buffer.
        unsafe { core::ptr::copy_nonoverlapping(host.add(copy.host), out.as_mut_ptr(), copy.len) };
    }
}

/// A `V` built from all zeros with the bytes `copies` names copied in from `src`.
///
/// # Safety
/// An all-zero `V` is valid and stays valid with any bytes in the host ranges of `copies`; each
/// host range lies inside `V` (checked), each GPU range inside `src` (checked).
#[inline]
pub(crate) unsafe fn read_copies<V>(src: &[u8], copies: &[FieldCopy]) -> V {
    let mut out = core::mem::MaybeUninit::<V>::zeroed();
    let host = out.as_mut_ptr().cast::<u8>();
    for copy in copies {
        assert!(copy.host + copy.len <= size_of::<V>());
        let bytes = &src[copy.gpu..copy.gpu + copy.len];
        // SAFETY: the destination range is inside `out` (asserted above) and `bytes` is exactly
        // `copy.len` bytes of a distinct buffer.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), host.add(copy.host), copy.len) };
    }
    // SAFETY: the caller promises that the all-zero `V` with any bytes in these ranges is valid.
    unsafe { out.assume_init() }
}

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
