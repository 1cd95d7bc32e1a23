//! [`UniformError`]: uniform buffers that cannot be made, written or bound.

use crate::device::GpuError;

/// A uniform buffer that cannot be made, written or bound.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UniformError {
    /// A device failure (validation, out of memory, lost device) while making, writing or
    /// reading the buffer.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// An element index past the array's length.
    #[error("uniform array element {index} does not exist: the array has {len} elements")]
    IndexOutOfRange {
        /// The index asked for.
        index: usize,
        /// The array's length.
        len: usize,
    },
    /// A struct larger than the device binds as one uniform buffer.
    #[error(
        "a uniform of {size} bytes exceeds the device's max_uniform_buffer_binding_size of {limit} bytes"
    )]
    TooLarge {
        /// The struct's size.
        size: u64,
        /// The device limit.
        limit: u64,
    },
    /// An array whose elements' offsets do not fit the `u32` dynamic offsets wgpu takes.
    #[error(
        "a uniform array of {len} elements {stride} bytes apart reaches past u32::MAX, the largest dynamic offset"
    )]
    OffsetOverflow {
        /// The array's length.
        len: usize,
        /// Bytes between elements.
        stride: u64,
    },
    /// Typed rows bound as a uniform at an offset the device cannot bind a uniform at.
    #[error(
        "cannot bind rows at byte offset {byte_offset} as a uniform: the device binds uniforms at multiples of {alignment} bytes (min_uniform_buffer_offset_alignment)"
    )]
    OffsetAlignment {
        /// The rows' byte offset in their buffer.
        byte_offset: u64,
        /// The device's `min_uniform_buffer_offset_alignment`.
        alignment: u32,
    },
    /// An empty array (a binding needs one element).
    #[error("a uniform array needs at least one element")]
    Empty,
    /// Element bytes read back that do not hold the elements.
    #[error("uniform readback of {found} bytes does not hold {expected} bytes")]
    Readback {
        /// Bytes expected.
        expected: u64,
        /// Bytes read.
        found: u64,
    },
}
