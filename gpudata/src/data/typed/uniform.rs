//! Uniform buffers: [`GpuUniform`] (one value of a `#[gpu(layout = "wgsl-uniform")]` struct, with
//! its binding) and [`GpuUniformArray`] (several values, each at a multiple of the device's
//! `min_uniform_buffer_offset_alignment`, bound once with a dynamic offset per draw).

use std::marker::PhantomData;
use std::num::NonZeroU64;

use super::UniformError;
use super::bindings::{row_size, uniform_entry};
use crate::record::UniformLayout;

use crate::device::Gpu;
use crate::device::buffers::create_buffer;
use crate::device::transfer::{WaitMode, read_range, write_bytes};
use crate::layout::StructLayout;
use crate::record::GpuStruct;

/// The usages of a uniform buffer: bound as a uniform, written and read back by copies.
pub const UNIFORM_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::UNIFORM
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);

/// Refuses, at compile time, a struct that is not laid out by the uniform rules: the
/// [`UniformLayout`] bound does for derived structs, this for a hand-written impl.
const fn require_uniform_layout<T: UniformLayout>() {
    assert!(
        matches!(T::FORMAT.layout(), StructLayout::WgslUniform),
        "a uniform buffer holds a struct laid out by the uniform rules, but `UniformLayout` is implemented by hand for a struct of another layout: remove the impl and derive the struct with #[gpu(layout = \"wgsl-uniform\")], which implements it"
    );
}

fn encode<T: GpuStruct>(value: &T) -> Vec<u8> {
    let mut bytes = vec![0u8; T::FORMAT.byte_stride() as usize];
    value.encode_row(&mut bytes);
    bytes
}

fn size_of_struct<T: GpuStruct>(gpu: &Gpu) -> Result<u64, UniformError> {
    let size = T::FORMAT.byte_stride();
    let limit = gpu.limits().max_uniform_buffer_binding_size;
    if size > limit {
        return Err(UniformError::TooLarge { size, limit });
    }
    Ok(size)
}

/// One value of `T` in a uniform buffer: `write` it, bind it with [`binding`](Self::binding).
///
/// `T` is a `#[derive(GpuStruct)]` struct with `#[gpu(layout = "wgsl-uniform")]` (another layout
/// is a compile error at the call: `new` requires [`UniformLayout`]), so the buffer's bytes are what `var<uniform> u: T;` reads, with the WGSL
/// declaration from `T`'s type description.
#[derive(Debug)]
pub struct GpuUniform<T: GpuStruct> {
    /// The device the buffer was made on: every call that takes a `Gpu` checks it is this one.
    device: Gpu,
    buffer: wgpu::Buffer,
    _value: PhantomData<fn() -> T>,
}

impl<T: GpuStruct> GpuUniform<T> {
    /// A uniform buffer holding `value`.
    ///
    /// # Errors
    /// [`UniformError::TooLarge`], [`UniformError::Gpu`].
    pub fn new(gpu: &Gpu, value: &T) -> Result<GpuUniform<T>, UniformError>
    where
        T: UniformLayout,
    {
        const { require_uniform_layout::<T>() };
        let size = size_of_struct::<T>(gpu)?;
        let buffer = create_buffer(gpu, size, UNIFORM_USAGE, "gpudata uniform")?;
        let uniform = GpuUniform {
            device: gpu.clone(),
            buffer,
            _value: PhantomData,
        };
        uniform.write(gpu, value)?;
        Ok(uniform)
    }

    /// Replaces the value (queued: later submissions see it).
    ///
    /// # Errors
    /// [`UniformError::Gpu`] ([`GpuError::OtherDevice`](crate::GpuError::OtherDevice) for a
    /// `gpu` the buffer was not made on).
    pub fn write(&self, gpu: &Gpu, value: &T) -> Result<(), UniformError> {
        gpu.check_same_device(Some(&self.device), "write a uniform")?;
        let bytes = encode(value);
        pollster::block_on(write_bytes(gpu, &self.buffer, 0, &bytes, WaitMode::Block))?;
        Ok(())
    }

    /// Reads the value back.
    ///
    /// # Errors
    /// [`UniformError::Gpu`] (another device's `gpu` too), [`UniformError::Readback`].
    pub fn read(&self, gpu: &Gpu) -> Result<T, UniformError> {
        gpu.check_same_device(Some(&self.device), "read back a uniform")?;
        let size = T::FORMAT.byte_stride();
        read_value(gpu, &self.buffer, 0, size)
    }

    /// The buffer.
    #[must_use]
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// Bytes of the value: `T::FORMAT.byte_stride()`.
    #[must_use]
    pub fn byte_size(&self) -> u64 {
        T::FORMAT.byte_stride()
    }

    /// The `min_binding_size` of a bind group layout entry for it.
    #[must_use]
    pub fn min_binding_size() -> Option<NonZeroU64> {
        Some(row_size::<T>())
    }

    /// A bind group layout entry for `T` at `binding`: a uniform buffer seen by `visibility`,
    /// with [`min_binding_size`](Self::min_binding_size).
    #[must_use]
    pub fn layout_entry(
        binding: u32,
        visibility: wgpu::ShaderStages,
    ) -> wgpu::BindGroupLayoutEntry {
        uniform_entry::<T>(binding, visibility, false)
    }

    /// The whole buffer as a uniform binding.
    #[must_use]
    pub fn binding(&self) -> wgpu::BufferBinding<'_> {
        wgpu::BufferBinding {
            buffer: &self.buffer,
            offset: 0,
            size: Self::min_binding_size(),
        }
    }
}

/// Values of `T` in one uniform buffer, each at a multiple of the device's
/// `min_uniform_buffer_offset_alignment`, for a bind group entry with `has_dynamic_offset: true`:
/// bind once with [`binding`](Self::binding) and pass [`offset`](Self::offset)`(i)` to
/// `set_bind_group` to draw with element `i`.
#[derive(Debug)]
pub struct GpuUniformArray<T: GpuStruct> {
    /// The device the buffer was made on: every call that takes a `Gpu` checks it is this one.
    device: Gpu,
    buffer: wgpu::Buffer,
    len: usize,
    stride: u64,
    _value: PhantomData<fn() -> T>,
}

impl<T: GpuStruct> GpuUniformArray<T> {
    /// An array holding `values`.
    ///
    /// # Errors
    /// [`UniformError::Empty`], [`UniformError::TooLarge`], [`UniformError::OffsetOverflow`],
    /// [`UniformError::Gpu`].
    pub fn new(gpu: &Gpu, values: &[T]) -> Result<GpuUniformArray<T>, UniformError>
    where
        T: UniformLayout,
    {
        const { require_uniform_layout::<T>() };
        if values.is_empty() {
            return Err(UniformError::Empty);
        }
        let size = size_of_struct::<T>(gpu)?;
        let align = u64::from(gpu.limits().min_uniform_buffer_offset_alignment).max(1);
        let stride = size.div_ceil(align) * align;
        let len = values.len();
        let overflow = UniformError::OffsetOverflow { len, stride };
        let last = (len as u64 - 1)
            .checked_mul(stride)
            .ok_or(overflow.clone())?;
        if last > u64::from(u32::MAX) {
            return Err(overflow);
        }
        let total = last.checked_add(size).ok_or(overflow)?;
        let buffer = create_buffer(gpu, total, UNIFORM_USAGE, "gpudata uniform array")?;
        let mut bytes = vec![0u8; total as usize];
        for (i, value) in values.iter().enumerate() {
            let at = i * stride as usize;
            value.encode_row(&mut bytes[at..at + size as usize]);
        }
        pollster::block_on(write_bytes(gpu, &buffer, 0, &bytes, WaitMode::Block))?;
        Ok(GpuUniformArray {
            device: gpu.clone(),
            buffer,
            len,
            stride,
            _value: PhantomData,
        })
    }

    /// Elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements (never: an array holds at least one).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes between elements: `T`'s size rounded up to `min_uniform_buffer_offset_alignment`.
    #[must_use]
    pub fn stride(&self) -> u64 {
        self.stride
    }

    /// The dynamic offset of element `index`, for `set_bind_group(.., &[offset])`.
    ///
    /// # Errors
    /// [`UniformError::IndexOutOfRange`].
    pub fn offset(&self, index: usize) -> Result<u32, UniformError> {
        if index >= self.len {
            return Err(UniformError::IndexOutOfRange {
                index,
                len: self.len,
            });
        }
        // `new` checked that the last offset fits in u32.
        Ok((index as u64 * self.stride) as u32)
    }

    /// Replaces element `index` (queued).
    ///
    /// # Errors
    /// [`UniformError::IndexOutOfRange`], [`UniformError::Gpu`] (another device's `gpu` too).
    pub fn write(&self, gpu: &Gpu, index: usize, value: &T) -> Result<(), UniformError> {
        gpu.check_same_device(Some(&self.device), "write a uniform")?;
        let offset = self.offset(index)?;
        let bytes = encode(value);
        pollster::block_on(write_bytes(
            gpu,
            &self.buffer,
            u64::from(offset),
            &bytes,
            WaitMode::Block,
        ))?;
        Ok(())
    }

    /// Reads element `index` back.
    ///
    /// # Errors
    /// [`UniformError::IndexOutOfRange`], [`UniformError::Gpu`] (another device's `gpu` too),
    /// [`UniformError::Readback`].
    pub fn read(&self, gpu: &Gpu, index: usize) -> Result<T, UniformError> {
        gpu.check_same_device(Some(&self.device), "read back a uniform")?;
        let offset = self.offset(index)?;
        let size = T::FORMAT.byte_stride();
        read_value(gpu, &self.buffer, u64::from(offset), size)
    }

    /// The buffer.
    #[must_use]
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// The `min_binding_size` of a bind group layout entry for it: one element, `T`'s size.
    #[must_use]
    pub fn min_binding_size() -> Option<NonZeroU64> {
        Some(row_size::<T>())
    }

    /// A bind group layout entry for `T` at `binding`: a uniform buffer with a dynamic offset
    /// (`has_dynamic_offset: true`), seen by `visibility`, with
    /// [`min_binding_size`](Self::min_binding_size).
    #[must_use]
    pub fn layout_entry(
        binding: u32,
        visibility: wgpu::ShaderStages,
    ) -> wgpu::BindGroupLayoutEntry {
        uniform_entry::<T>(binding, visibility, true)
    }

    /// The binding of one element (offset 0, `T`'s size): the dynamic offset picks which.
    #[must_use]
    pub fn binding(&self) -> wgpu::BufferBinding<'_> {
        wgpu::BufferBinding {
            buffer: &self.buffer,
            offset: 0,
            size: Self::min_binding_size(),
        }
    }
}

/// Reads `size` bytes at `offset` of a uniform buffer and decodes one `T` from them: the one
/// readback of [`GpuUniform::read`] and [`GpuUniformArray::read`].
fn read_value<T: GpuStruct>(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<T, UniformError> {
    let bytes = pollster::block_on(read_range(
        gpu,
        buffer,
        offset,
        size,
        "read back a uniform",
        WaitMode::Block,
    ))?;
    if bytes.len() as u64 != size {
        return Err(UniformError::Readback {
            expected: size,
            found: bytes.len() as u64,
        });
    }
    Ok(T::decode_row(&bytes))
}
