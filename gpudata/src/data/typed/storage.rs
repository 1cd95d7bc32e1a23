//! Storage buffers of runtime-sized structs: [`GpuStorage<T>`] holds one value of a derived
//! struct whose last field is a [`RuntimeArray`](crate::record::RuntimeArray) (WGSL's
//! `struct Particles { count: u32, items: array<Particle> }`): the header and N elements, bound
//! as `var<storage> particles: Particles;`, where `arrayLength(&particles.items)` is N.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use gpudata::GpuStruct;
//! use gpudata::record::{GpuRuntimeStruct, RuntimeArray};
//! use gpudata::data::GpuStorage;
//!
//! #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
//! struct Particle {
//!     position: [f32; 3],
//!     mass: f32,
//! }
//!
//! #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
//! struct Particles {
//!     count: u32,
//!     items: RuntimeArray<Particle>,
//! }
//!
//! let gpu = gpudata::Gpu::headless()?;
//! let items = [Particle { position: [1.0, 2.0, 3.0], mass: 4.0 }; 3];
//! let header = Particles { count: 3, items: RuntimeArray::new() };
//! let storage = GpuStorage::new(&gpu, &header, &items)?;
//! assert_eq!(storage.byte_size(), 16 + 3 * 16);
//! storage.write_elements(&gpu, 1, &[Particle { position: [0.0; 3], mass: 9.0 }])?;
//! let (back, elements) = storage.read(&gpu)?;
//! assert_eq!((back, elements[1].mass, elements.len()), (header, 9.0, 3));
//! // For the bind group layout: the header plus one element.
//! assert_eq!(GpuStorage::<Particles>::min_binding_size().get(), 32);
//! # Ok(())
//! # }
//! ```

use std::marker::PhantomData;
use std::num::NonZeroU64;

use super::StorageError;
use super::bindings::storage_entry;

use crate::device::Gpu;
use crate::device::buffers::{copy_prefix, create_buffer, grown_capacity};
use crate::device::transfer::{WaitMode, read_range, write_bytes};
use crate::record::{
    GpuRuntimeStruct, decode_elements, decode_runtime, encode_elements, encode_runtime,
};

/// The usages of a runtime-sized struct's buffer: bound as storage, written and read back by
/// copies.
pub const STORAGE_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);

/// What a call that may grow a [`GpuStorage`] did to its buffer, which the caller must look at
/// (`#[must_use]`): bind groups hold a buffer, so one made before the value moved still reads
/// the old buffer, and nothing else would say so.
#[must_use = "when the storage moved to a new buffer, bind groups made from the old one still read the old value: make them again"]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Growth {
    /// The value stayed in its buffer: bind groups made before still bind it (with the length
    /// they were made with: make one again for `arrayLength` to count new elements).
    InPlace,
    /// The value moved into a new, larger buffer: bind groups made before read the old buffer,
    /// which they keep alive, and the old value. Make them again.
    Moved,
}

impl Growth {
    /// Whether the value moved into a new buffer.
    #[must_use]
    pub const fn moved(self) -> bool {
        matches!(self, Growth::Moved)
    }
}

/// One value of a runtime-sized struct `T` in a storage buffer: the header (`T`'s fields before
/// its [`RuntimeArray`](crate::record::RuntimeArray)) and [`len`](Self::len) elements, laid out by
/// WGSL's memory model, so `var<storage> v: T;` reads them with the WGSL declaration from `T`'s
/// type description.
///
/// The value takes [`byte_size`](Self::byte_size) bytes: the tail's end, at least
/// [`min_binding_size`](Self::min_binding_size), rounded up to 4 (see
/// [`GpuRuntimeStruct::byte_length`]); [`binding`](Self::binding) binds exactly those bytes.
/// `arrayLength` counts the binding, so it reads [`len`](Self::len), except where the binding's
/// minimum size (header plus one element) or the rounding to 4 leaves room for more (an empty
/// tail reads as one zeroed element): keep the count in the header when the tail may be that
/// short.
///
/// Like a `Vec`, the tail grows: the buffer holds [`capacity`](Self::capacity) elements
/// ([`with_capacity`](Self::with_capacity), [`reserve`](Self::reserve)), and
/// [`extend`](Self::extend) past it moves the value into a larger buffer (at least twice the
/// capacity, within the device's `max_storage_buffer_binding_size`) by a GPU copy. Bind groups
/// made from the old [`buffer`](Self::buffer) or [`binding`](Self::binding) keep the old buffer
/// alive and see the old value, so the move is never silent: `extend` and `reserve` return a
/// `#[must_use]` [`Growth`] saying whether the value moved, and
/// [`generation`](Self::generation) changes whenever [`binding`](Self::binding) does (the buffer
/// moved, or the length changed), for code that keeps bind groups and re-creates them when it
/// differs from the one they were made at. A bind group made after
/// [`truncate`](Self::truncate) or `extend` binds the new length.
#[derive(Debug)]
pub struct GpuStorage<T: GpuRuntimeStruct> {
    /// The device the buffer was made on: every call that takes a `Gpu` checks it is this one.
    device: Gpu,
    buffer: wgpu::Buffer,
    len: usize,
    capacity: usize,
    /// Changes whenever `binding()` does (see [`generation`](Self::generation)).
    generation: u64,
    _value: PhantomData<fn() -> T>,
}

impl<T: GpuRuntimeStruct> GpuStorage<T> {
    /// A storage buffer holding `header` and `elements`.
    ///
    /// # Errors
    /// [`StorageError::SizeOverflow`], [`StorageError::TooLarge`], [`StorageError::Gpu`].
    pub fn new(
        gpu: &Gpu,
        header: &T,
        elements: &[T::Element],
    ) -> Result<GpuStorage<T>, StorageError> {
        GpuStorage::with_capacity(gpu, header, elements, elements.len())
    }

    /// A storage buffer holding `header` and `elements`, with room for `capacity` elements (at
    /// least `elements.len()`) before [`extend`](Self::extend) reallocates.
    ///
    /// # Errors
    /// As [`new`](Self::new), for `capacity` elements.
    pub fn with_capacity(
        gpu: &Gpu,
        header: &T,
        elements: &[T::Element],
        capacity: usize,
    ) -> Result<GpuStorage<T>, StorageError> {
        let capacity = capacity.max(elements.len());
        let size = size_for::<T>(gpu, capacity)?;
        let overflow = StorageError::SizeOverflow {
            elements: elements.len() as u64,
            stride: T::tail().stride,
        };
        let bytes = encode_runtime(header, elements).ok_or(overflow)?;
        let buffer = create_buffer(gpu, size, STORAGE_USAGE, "gpudata runtime-sized storage")?;
        pollster::block_on(write_bytes(gpu, &buffer, 0, &bytes, WaitMode::Block))?;
        Ok(GpuStorage {
            device: gpu.clone(),
            buffer,
            len: elements.len(),
            capacity,
            generation: 0,
            _value: PhantomData,
        })
    }

    /// Elements the buffer holds before [`extend`](Self::extend) reallocates.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Makes room for at least `additional` more elements than [`len`](Self::len): when the
    /// capacity is short, the value moves into a buffer of at least twice the capacity (or
    /// exactly what is needed, where twice would pass the device's binding limit), copied on
    /// the GPU; the old buffer is released once nothing binds it.
    ///
    /// Returns whether the value moved ([`Growth::Moved`]: bind groups made before read the old
    /// buffer).
    ///
    /// # Errors
    /// [`StorageError::SizeOverflow`], [`StorageError::TooLarge`] (the elements needed do not fit
    /// one binding; the value is unchanged), [`StorageError::Gpu`].
    pub fn reserve(&mut self, gpu: &Gpu, additional: usize) -> Result<Growth, StorageError> {
        gpu.check_same_device(Some(&self.device), "grow a storage buffer")?;
        let needed = self
            .len
            .checked_add(additional)
            .ok_or(StorageError::SizeOverflow {
                elements: (self.len as u64).saturating_add(additional as u64),
                stride: T::tail().stride,
            })?;
        if needed <= self.capacity {
            return Ok(Growth::InPlace);
        }
        let grown = grown_capacity(self.capacity as u64, 2.0, needed as u64, |n| {
            usize::try_from(n).is_ok_and(|n| size_for::<T>(gpu, n).is_ok())
        });
        let capacity = usize::try_from(grown).unwrap_or(needed);
        let size = size_for::<T>(gpu, capacity)?;
        let buffer = create_buffer(gpu, size, STORAGE_USAGE, "gpudata runtime-sized storage")?;
        copy_prefix(
            gpu,
            &self.buffer,
            &buffer,
            self.byte_size(),
            "gpudata growing storage",
        )?;
        self.buffer = buffer;
        self.capacity = capacity;
        self.generation += 1;
        Ok(Growth::Moved)
    }

    /// Appends `elements` to the tail (queued), reallocating as [`reserve`](Self::reserve)
    /// does when the capacity is short, and returns whether the value moved
    /// ([`Growth::Moved`]: bind groups made before read the old buffer; make them again).
    /// Elements of 2 bytes may start inside a word: the bytes of that word the last element
    /// holds are kept (read back first).
    ///
    /// # Errors
    /// As [`reserve`](Self::reserve), and [`StorageError::Readback`].
    pub fn extend(&mut self, gpu: &Gpu, elements: &[T::Element]) -> Result<Growth, StorageError> {
        if elements.is_empty() {
            return Ok(Growth::InPlace);
        }
        let growth = self.reserve(gpu, elements.len())?;
        let tail = T::tail();
        // `reserve` checked that `len + elements.len()` elements fit in u64 bytes.
        let offset = tail.offset + self.len as u64 * tail.stride;
        let start = offset / 4 * 4;
        let kept = (offset - start) as usize;
        let len = elements.len() * tail.stride as usize;
        let mut bytes = vec![0u8; (kept + len).next_multiple_of(4)];
        if kept > 0 {
            let word = self.read_bytes(gpu, start, 4)?;
            bytes[..kept].copy_from_slice(&word[..kept]);
        }
        encode_elements::<T>(elements, &mut bytes[kept..kept + len]);
        pollster::block_on(write_bytes(
            gpu,
            &self.buffer,
            start,
            &bytes,
            WaitMode::Block,
        ))?;
        self.len += elements.len();
        self.generation += 1;
        Ok(growth)
    }

    /// Shortens the tail to `len` elements (no effect when it is not longer); the capacity stays.
    pub fn truncate(&mut self, len: usize) {
        if len < self.len {
            self.len = len;
            self.generation += 1;
        }
    }

    /// A number that changes whenever [`binding`](Self::binding) does: the value moved into a
    /// new buffer ([`Growth::Moved`]) or its length changed (`extend`, `truncate`). A bind group
    /// made when it was `g` binds the current value exactly while it is still `g`; keep it with
    /// the bind group and make the group again when they differ.
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Elements in the tail.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the tail has no elements.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value's bytes, header and [`len`](Self::len) elements (see the type's
    /// documentation); the buffer holds [`capacity`](Self::capacity) elements and may be larger.
    #[must_use]
    pub fn byte_size(&self) -> u64 {
        // `with_capacity` and `reserve` checked the size of `capacity >= len` elements.
        T::byte_length(self.len as u64).unwrap_or(self.buffer.size())
    }

    /// The buffer.
    #[must_use]
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// The `min_binding_size` of a bind group layout entry for `T`: the header plus one element
    /// ([`GpuRuntimeStruct::min_binding_size`]).
    #[must_use]
    pub fn min_binding_size() -> NonZeroU64 {
        T::min_binding_size()
    }

    /// A bind group layout entry for `T` at `binding`: a storage buffer (`read_only` or
    /// read-write) seen by `visibility`, with [`min_binding_size`](Self::min_binding_size).
    #[must_use]
    pub fn layout_entry(
        binding: u32,
        visibility: wgpu::ShaderStages,
        read_only: bool,
    ) -> wgpu::BindGroupLayoutEntry {
        storage_entry(binding, visibility, read_only, T::min_binding_size())
    }

    /// The value as a storage binding: [`byte_size`](Self::byte_size) bytes from the buffer's
    /// start, so `arrayLength` reads [`len`](Self::len).
    #[must_use]
    pub fn binding(&self) -> wgpu::BufferBinding<'_> {
        wgpu::BufferBinding {
            buffer: &self.buffer,
            offset: 0,
            size: NonZeroU64::new(self.byte_size()),
        }
    }

    /// Replaces the header (queued: later submissions see it); the elements stay.
    ///
    /// # Errors
    /// [`StorageError::Gpu`] (another device's `gpu` too).
    pub fn write_header(&self, gpu: &Gpu, header: &T) -> Result<(), StorageError> {
        gpu.check_same_device(Some(&self.device), "write a storage buffer")?;
        let bytes = encode_runtime(header, &[]).unwrap_or_default();
        let end = usize::try_from(T::tail().offset)
            .unwrap_or(bytes.len())
            .min(bytes.len());
        let mut head = bytes[..end.next_multiple_of(4).min(bytes.len())].to_vec();
        if !end.is_multiple_of(4) {
            // The header ends inside a word that element 0 shares (2-byte members): keep the
            // element's bytes of that word.
            let word = (end / 4 * 4) as u64;
            let old = self.read_bytes(gpu, word, 4)?;
            let (keep, rest) = (end % 4, head.len() - end);
            head[end..].copy_from_slice(&old[keep..keep + rest]);
        }
        pollster::block_on(write_bytes(gpu, &self.buffer, 0, &head, WaitMode::Block))?;
        Ok(())
    }

    /// Replaces elements `first..first + elements.len()` of the tail (queued).
    ///
    /// # Errors
    /// [`StorageError::ElementsOutOfRange`], [`StorageError::UnalignedElements`],
    /// [`StorageError::Gpu`].
    pub fn write_elements(
        &self,
        gpu: &Gpu,
        first: usize,
        elements: &[T::Element],
    ) -> Result<(), StorageError> {
        gpu.check_same_device(Some(&self.device), "write a storage buffer")?;
        let offset = self.element_range(first, elements.len())?;
        let tail = T::tail();
        let len = elements.len() as u64 * tail.stride;
        if !offset.is_multiple_of(4) || !len.is_multiple_of(4) {
            return Err(StorageError::UnalignedElements {
                first,
                count: elements.len(),
                stride: tail.stride,
                offset,
            });
        }
        let mut bytes = vec![0u8; len as usize];
        encode_elements::<T>(elements, &mut bytes);
        pollster::block_on(write_bytes(
            gpu,
            &self.buffer,
            offset,
            &bytes,
            WaitMode::Block,
        ))?;
        Ok(())
    }

    /// Reads the header and every element back.
    ///
    /// # Errors
    /// [`StorageError::Gpu`], [`StorageError::Readback`].
    pub fn read(&self, gpu: &Gpu) -> Result<(T, Vec<T::Element>), StorageError> {
        let size = self.byte_size();
        let bytes = self.read_bytes(gpu, 0, size)?;
        decode_runtime(&bytes, self.len).ok_or(StorageError::Readback {
            expected: size,
            found: bytes.len() as u64,
        })
    }

    /// Reads elements `first..first + count` back.
    ///
    /// # Errors
    /// [`StorageError::ElementsOutOfRange`], [`StorageError::Gpu`], [`StorageError::Readback`].
    pub fn read_elements(
        &self,
        gpu: &Gpu,
        first: usize,
        count: usize,
    ) -> Result<Vec<T::Element>, StorageError> {
        let offset = self.element_range(first, count)?;
        let len = count as u64 * T::tail().stride;
        // Readbacks copy whole 4-byte words: widen the range, then skip the extra bytes.
        let start = offset / 4 * 4;
        let end = (offset + len).next_multiple_of(4).min(self.byte_size());
        let bytes = self.read_bytes(gpu, start, end - start)?;
        let skip = (offset - start) as usize;
        let elements = decode_elements::<T>(bytes.get(skip..).unwrap_or_default(), count);
        if elements.len() != count {
            return Err(StorageError::Readback {
                expected: end - start,
                found: bytes.len() as u64,
            });
        }
        Ok(elements)
    }

    /// The byte offset of element `first`, when `first..first + count` lies inside the tail.
    fn element_range(&self, first: usize, count: usize) -> Result<u64, StorageError> {
        match first.checked_add(count) {
            Some(end) if end <= self.len => {}
            _ => {
                return Err(StorageError::ElementsOutOfRange {
                    first,
                    count,
                    len: self.len,
                });
            }
        }
        let tail = T::tail();
        // `new` checked that the whole tail's byte length fits in u64.
        Ok(tail.offset + first as u64 * tail.stride)
    }

    fn read_bytes(&self, gpu: &Gpu, offset: u64, size: u64) -> Result<Vec<u8>, StorageError> {
        gpu.check_same_device(
            Some(&self.device),
            "read back a runtime-sized storage struct",
        )?;
        let bytes = pollster::block_on(read_range(
            gpu,
            &self.buffer,
            offset,
            size,
            "read back a runtime-sized storage struct",
            WaitMode::Block,
        ))?;
        if bytes.len() as u64 != size {
            return Err(StorageError::Readback {
                expected: size,
                found: bytes.len() as u64,
            });
        }
        Ok(bytes)
    }
}

/// The buffer size for `elements` elements, checked against overflow and the device's storage
/// binding limit.
fn size_for<T: GpuRuntimeStruct>(gpu: &Gpu, elements: usize) -> Result<u64, StorageError> {
    let size = T::byte_length(elements as u64).ok_or(StorageError::SizeOverflow {
        elements: elements as u64,
        stride: T::tail().stride,
    })?;
    let limit = gpu.limits().max_storage_buffer_binding_size;
    if size > limit {
        return Err(StorageError::TooLarge { size, limit });
    }
    Ok(size)
}
