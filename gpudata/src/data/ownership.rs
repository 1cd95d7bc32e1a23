//! Owned and shared buffer handles, eager destruction and luma.gl's ownership transfer.

use super::GpuData;
use crate::data::DataError;

/// A wgpu buffer held by a [`GpuData`], with whether that data owns it.
///
/// A [`wgpu::Buffer`] is a reference-counted handle: the GPU memory lives while any handle does.
/// Ownership here decides something else, as in luma.gl: only the owner's
/// [`GpuData::destroy`] frees the memory eagerly, while every other holder of a `Shared`
/// handle sees the buffer destroyed from then on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BufferHandle {
    /// This data owns the buffer: [`GpuData::destroy`] frees it.
    Owned(wgpu::Buffer),
    /// Someone else owns the buffer: [`GpuData::destroy`] leaves it alive.
    Shared(wgpu::Buffer),
}

impl BufferHandle {
    /// The buffer.
    #[must_use]
    pub fn buffer(&self) -> &wgpu::Buffer {
        match self {
            BufferHandle::Owned(buffer) | BufferHandle::Shared(buffer) => buffer,
        }
    }

    /// Whether this handle owns the buffer.
    #[must_use]
    pub const fn is_owned(&self) -> bool {
        matches!(self, BufferHandle::Owned(_))
    }

    /// The buffer, whatever the ownership.
    #[must_use]
    pub fn into_buffer(self) -> wgpu::Buffer {
        match self {
            BufferHandle::Owned(buffer) | BufferHandle::Shared(buffer) => buffer,
        }
    }

    /// The same buffer, shared.
    #[must_use]
    pub fn into_shared(self) -> BufferHandle {
        BufferHandle::Shared(self.into_buffer())
    }
}

impl GpuData {
    /// Whether this data owns its buffer (luma.gl's `ownsBuffer`).
    #[must_use]
    pub fn owns_buffer(&self) -> bool {
        self.buffer.is_owned()
    }

    /// The buffer handle, with its ownership.
    #[must_use]
    pub fn buffer_handle(&self) -> &BufferHandle {
        &self.buffer
    }

    /// Frees the GPU memory now if this data owns its buffer; a shared buffer is left alive.
    ///
    /// Consumes the data, so nothing can read through it afterwards, and it cannot be called while
    /// a [`GpuDataView`](super::GpuDataView) borrows the data. Dropping an owning `GpuData`
    /// without `destroy` releases its handle, and wgpu frees the memory once no other handle to
    /// the buffer remains.
    pub fn destroy(self) {
        if let BufferHandle::Owned(buffer) = &self.buffer {
            buffer.destroy();
        }
    }

    /// Another `GpuData` over the same bytes with the same metadata, sharing the buffer: its
    /// [`destroy`](Self::destroy) never frees the buffer.
    #[must_use]
    pub fn share(&self) -> GpuData {
        GpuData {
            buffer: BufferHandle::Shared(self.buffer.buffer().clone()),
            format: self.format.clone(),
            metrics: self.metrics,
            readback_metadata: self.readback_metadata.clone(),
            device: self.device.clone(),
        }
    }

    /// Gives this data's ownership to `target`, which must hold the same buffer: `target` now owns
    /// the buffer exactly when `self` did, and `self` no longer owns it (luma.gl's
    /// `transferBufferOwnership`).
    ///
    /// # Errors
    /// [`DataError::DifferentBuffer`] when `target` holds another buffer.
    pub fn transfer_ownership_to(&mut self, target: &mut GpuData) -> Result<(), DataError> {
        if self.buffer.buffer() != target.buffer.buffer() {
            return Err(DataError::DifferentBuffer {
                source_size: self.buffer.buffer().size(),
                target_size: target.buffer.buffer().size(),
            });
        }
        let owned = self.buffer.is_owned();
        self.buffer = BufferHandle::Shared(self.buffer.buffer().clone());
        target.buffer = if owned {
            BufferHandle::Owned(target.buffer.buffer().clone())
        } else {
            BufferHandle::Shared(target.buffer.buffer().clone())
        };
        Ok(())
    }

    /// This data, converted to share its buffer instead of owning it: its
    /// [`destroy`](Self::destroy) no longer frees the buffer, and the memory lives until the last
    /// handle to it is dropped.
    #[must_use]
    pub fn into_shared(self) -> GpuData {
        GpuData {
            buffer: self.buffer.into_shared(),
            ..self
        }
    }

    /// The buffer handle, dropping the metadata.
    #[must_use]
    pub fn into_buffer_handle(self) -> BufferHandle {
        self.buffer
    }
}
