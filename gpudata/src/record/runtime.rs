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
