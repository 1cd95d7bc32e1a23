//! [`StorageError`]: storage buffers of runtime-sized structs that cannot be made, written or
//! read.

use crate::device::GpuError;

/// A storage buffer of a runtime-sized struct ([`GpuStorage`](crate::data::GpuStorage)) that cannot be
/// made, written or read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StorageError {
    /// A device failure (validation, out of memory, lost device) while making, writing or
    /// reading the buffer.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// More elements than a buffer's byte length can count.
    #[error("a runtime-sized struct with {elements} elements of {stride} bytes overflows u64")]
    SizeOverflow {
        /// Elements asked for.
        elements: u64,
        /// Bytes between elements.
        stride: u64,
    },
    /// A buffer larger than the device binds as one storage buffer.
    #[error(
        "a storage buffer of {size} bytes exceeds the device's max_storage_buffer_binding_size of {limit} bytes"
    )]
    TooLarge {
        /// The buffer's size.
        size: u64,
        /// The device limit.
        limit: u64,
    },
    /// An element range past the tail's length.
    #[error(
        "elements {first}..{end} do not exist: the tail has {len} elements",
        end = *.first as u128 + *.count as u128
    )]
    ElementsOutOfRange {
        /// The first element written or read.
        first: usize,
        /// Elements written or read.
        count: usize,
        /// Elements in the tail.
        len: usize,
    },
    /// An element range whose bytes do not start and end on 4-byte boundaries (elements of 2
    /// bytes, such as `f16`, written one at a time), which a buffer write cannot do without
    /// changing the neighbouring element.
    #[error(
        "elements {first}..{end} of {stride} bytes cover bytes {offset}..{byte_end}, which do not start and end on multiples of 4; write an even number of elements from an even index",
        end = *.first as u128 + *.count as u128,
        byte_end = *.offset as u128 + *.count as u128 * *.stride as u128
    )]
    UnalignedElements {
        /// The first element written.
        first: usize,
        /// Elements written.
        count: usize,
        /// Bytes between elements.
        stride: u64,
        /// The first element's byte offset in the buffer.
        offset: u64,
    },
    /// Bytes read back that do not hold the struct.
    #[error("storage readback of {found} bytes does not hold {expected} bytes")]
    Readback {
        /// Bytes expected.
        expected: u64,
        /// Bytes read.
        found: u64,
    },
}
