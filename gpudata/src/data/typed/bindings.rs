//! Bind group layout entries of the typed buffers, one rule ([`buffer_entry`]), and typed rows
//! ([`TypedGpuData`]) bound as a storage `array<T>` or a uniform `array<T, N>`: their
//! `min_binding_size`s, layout entries and the uniform binding.

use std::num::NonZeroU64;

use super::{TypedGpuData, UniformError};
use crate::device::buffers::require_usage;
use crate::device::{Gpu, GpuError};
use crate::record::{GpuStruct, UniformLayout};

/// A bind group layout entry for one buffer at `binding`, seen by `visibility`.
fn buffer_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    ty: wgpu::BufferBindingType,
    has_dynamic_offset: bool,
    min_binding_size: Option<NonZeroU64>,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset,
            min_binding_size,
        },
        count: None,
    }
}

/// A storage buffer's layout entry (`read_only`, or read-write), binding at least `min` bytes.
pub(super) fn storage_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    read_only: bool,
    min: NonZeroU64,
) -> wgpu::BindGroupLayoutEntry {
    let ty = wgpu::BufferBindingType::Storage { read_only };
    buffer_entry(binding, visibility, ty, false, Some(min))
}

/// A uniform buffer's layout entry (with a dynamic offset or not) for one `T`.
pub(super) fn uniform_entry<T: GpuStruct>(
    binding: u32,
    visibility: wgpu::ShaderStages,
    has_dynamic_offset: bool,
) -> wgpu::BindGroupLayoutEntry {
    let ty = wgpu::BufferBindingType::Uniform;
    buffer_entry(
        binding,
        visibility,
        ty,
        has_dynamic_offset,
        Some(row_size::<T>()),
    )
}

/// Bytes of one `T` row: never 0, as a derived struct has a field.
pub(super) fn row_size<T: GpuStruct>() -> NonZeroU64 {
    NonZeroU64::new(T::FORMAT.byte_stride()).unwrap_or(NonZeroU64::MIN)
}

impl<T: GpuStruct> TypedGpuData<T> {
    /// The `min_binding_size` of the rows bound as a storage `array<T>`: one row, the least a
    /// runtime-sized array binds.
    #[must_use]
    pub fn min_binding_size() -> NonZeroU64 {
        row_size::<T>()
    }

    /// A bind group layout entry for rows of `T` bound as `var<storage> rows: array<T>` at
    /// `binding` (`read_only`, or read-write), seen by `visibility`, with
    /// [`min_binding_size`](Self::min_binding_size); bind the rows with
    /// `as_data().storage_binding(gpu)`.
    #[must_use]
    pub fn storage_layout_entry(
        binding: u32,
        visibility: wgpu::ShaderStages,
        read_only: bool,
    ) -> wgpu::BindGroupLayoutEntry {
        storage_entry(binding, visibility, read_only, Self::min_binding_size())
    }

    /// A bind group layout entry for these rows bound as `var<uniform> rows: array<T, N>` (`N`
    /// the data's length) at `binding`, seen by `visibility`; its `min_binding_size` is the
    /// whole array. `T` is laid out by the uniform rules (its stride is a multiple of 16, as a
    /// uniform array's must be).
    #[must_use]
    pub fn uniform_layout_entry(
        &self,
        binding: u32,
        visibility: wgpu::ShaderStages,
    ) -> wgpu::BindGroupLayoutEntry
    where
        T: UniformLayout,
    {
        let size = self
            .as_data()
            .length()
            .saturating_mul(T::FORMAT.byte_stride());
        buffer_entry(
            binding,
            visibility,
            wgpu::BufferBindingType::Uniform,
            false,
            NonZeroU64::new(size),
        )
    }

    /// The rows as a uniform binding (`var<uniform> rows: array<T, N>`): all of them, from the
    /// data's byte offset.
    ///
    /// # Errors
    /// [`UniformError::Gpu`] with [`GpuError::MissingUsage`] without `UNIFORM`,
    /// [`GpuError::EmptyBinding`] for no rows, or [`GpuError::OtherDevice`];
    /// [`UniformError::OffsetAlignment`] when the offset is not a multiple of the device's
    /// `min_uniform_buffer_offset_alignment`; [`UniformError::TooLarge`] past the device's
    /// `max_uniform_buffer_binding_size`.
    pub fn uniform_binding(&self, gpu: &Gpu) -> Result<wgpu::BufferBinding<'_>, UniformError>
    where
        T: UniformLayout,
    {
        let data = self.as_data();
        let buffer = data.buffer_on(gpu, "bind a uniform buffer")?;
        require_usage(buffer, wgpu::BufferUsages::UNIFORM, "bind a uniform buffer")?;
        let limits = gpu.limits();
        let alignment = limits.min_uniform_buffer_offset_alignment;
        let offset = data.byte_offset();
        if !offset.is_multiple_of(u64::from(alignment.max(1))) {
            return Err(UniformError::OffsetAlignment {
                byte_offset: offset,
                alignment,
            });
        }
        let size = data.length().saturating_mul(T::FORMAT.byte_stride());
        let limit = limits.max_uniform_buffer_binding_size;
        if size > limit {
            return Err(UniformError::TooLarge { size, limit });
        }
        let Some(size) = NonZeroU64::new(size) else {
            return Err(GpuError::EmptyBinding {
                binding: "uniform buffer",
            }
            .into());
        };
        Ok(wgpu::BufferBinding {
            buffer,
            offset,
            size: Some(size),
        })
    }
}
