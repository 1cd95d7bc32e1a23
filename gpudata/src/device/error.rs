//! [`GpuError`]: device, buffer, transfer and binding operations that cannot run. It knows
//! nothing of the layers above (data, tables): they wrap it.

use crate::count::Count;
use crate::device::WgpuError;
use crate::format::VertexFormat;

/// A device, buffer or binding operation that cannot run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// No adapter could be found.
    #[error(
        "no gpu adapter found ({reason}); to run without a GPU install a software Vulkan driver: `sudo apt-get install mesa-vulkan-drivers` on Debian or Ubuntu (lavapipe), `mesa-vulkan-drivers` on Fedora"
    )]
    NoAdapter {
        /// What wgpu said.
        reason: String,
    },
    /// The adapter refused to create a device.
    #[error("adapter `{adapter}` refused to create a device: {reason}")]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// What wgpu said.
        reason: String,
    },
    /// Waiting for the device failed.
    #[error("waiting for the gpu failed: {reason}")]
    Poll {
        /// What wgpu said.
        reason: String,
    },
    /// Mapping a buffer for reading failed.
    #[error("mapping the readback buffer failed: {reason}")]
    Map {
        /// What wgpu said.
        reason: String,
    },
    /// A buffer without a usage flag an operation needs. The message names the flags as wgpu
    /// spells them, joined by ` | ` (`COPY_DST | VERTEX`).
    #[error(
        "cannot {operation}: the buffer needs usage {required} but was created with {found}",
        required = UsageNames(*required),
        found = UsageNames(*found)
    )]
    MissingUsage {
        /// What was attempted (`"read back gpu data"`, `"write rows"`, ...).
        operation: &'static str,
        /// The flags needed.
        required: wgpu::BufferUsages,
        /// The buffer's flags.
        found: wgpu::BufferUsages,
    },
    /// A buffer larger than the device allows.
    #[error(
        "a buffer of {size_bytes} exceeds the device's max_buffer_size {max}",
        size_bytes = Count(*.size, "byte")
    )]
    BufferTooLarge {
        /// Bytes asked for.
        size: u64,
        /// `limits.max_buffer_size`.
        max: u64,
    },
    /// A storage binding at an offset the device cannot bind.
    #[error(
        "storage binding at byte offset {byte_offset}: the device requires storage buffer offsets to be multiples of {alignment_bytes} (limits.min_storage_buffer_offset_alignment); upload the data into its own buffer or place it at an aligned offset",
        alignment_bytes = Count(*.alignment, "byte")
    )]
    StorageOffsetAlignment {
        /// The data's byte offset.
        byte_offset: u64,
        /// `limits.min_storage_buffer_offset_alignment`.
        alignment: u32,
    },
    /// A storage binding whose size the device cannot bind.
    #[error(
        "storage binding of {size_bytes}: storage bindings must be non-empty multiples of 4 bytes, at most {max_bytes} (limits.max_storage_buffer_binding_size)",
        size_bytes = Count(*.size, "byte"),
        max_bytes = Count(*.max, "byte")
    )]
    StorageBindingSize {
        /// Bytes of the binding.
        size: u64,
        /// `limits.max_storage_buffer_binding_size`.
        max: u64,
    },
    /// A storage binding whose rows extend past the buffer.
    #[error(
        "storage binding of {rows} every {stride_bytes} at byte offset {byte_offset} needs {needed_bytes}, but the buffer holds {buffer_size}",
        rows = Count(*.rows, "row"),
        stride_bytes = Count(*.byte_stride, "byte"),
        needed_bytes = Count(*.needed, "byte")
    )]
    StorageOutOfBuffer {
        /// Rows.
        rows: u64,
        /// Row stride.
        byte_stride: u64,
        /// First byte.
        byte_offset: u64,
        /// One past the last byte bound.
        needed: u64,
        /// The buffer's size.
        buffer_size: u64,
    },
    /// A vertex binding with a stride wgpu cannot fetch.
    #[error(
        "vertex binding with byte stride {byte_stride}: vertex strides must be multiples of 4 bytes, at most {max} (limits.max_vertex_buffer_array_stride)"
    )]
    VertexStride {
        /// The stride.
        byte_stride: u64,
        /// `limits.max_vertex_buffer_array_stride`.
        max: u32,
    },
    /// A vertex binding whose first value cannot be reached from a 4-byte aligned offset.
    #[error(
        "vertex binding of {format} at byte offset {byte_offset}: vertex buffers bind at multiples of 4 bytes, and the {rebase_bytes} before the value plus its {format_bytes} exceed the byte stride {byte_stride}",
        rebase_bytes = Count(*.rebase, "byte"),
        format_bytes = Count(*.format_byte_length, "byte")
    )]
    VertexOffset {
        /// The view's format.
        format: VertexFormat,
        /// The view's byte offset.
        byte_offset: u64,
        /// `byte_offset % 4`.
        rebase: u64,
        /// Bytes of one value.
        format_byte_length: u64,
        /// The stride.
        byte_stride: u64,
    },
    /// A vertex binding whose value starts, past the 4-byte aligned binding start, where no
    /// vertex attribute of its format may.
    #[error(
        "vertex binding of {format} at byte offset {byte_offset}: vertex buffers bind at multiples of 4 bytes, and an attribute of {format} must start on a multiple of {alignment_bytes} past that",
        alignment_bytes = Count(*.alignment, "byte")
    )]
    VertexAlignment {
        /// The view's format.
        format: VertexFormat,
        /// The view's byte offset.
        byte_offset: u64,
        /// The alignment of the format's attributes: `min(4, byte length)`.
        alignment: u64,
    },
    /// A data range that starts where vertex buffers cannot bind.
    #[error(
        "gpu data at byte offset {byte_offset} cannot be bound as a vertex buffer: vertex buffers bind at multiples of 4 bytes; bind its child views, which rebase their attributes, or move the rows"
    )]
    VertexDataOffset {
        /// The data's byte offset.
        byte_offset: u64,
    },
    /// A binding of no bytes.
    #[error("cannot bind an empty range as a {binding}: the data has no rows")]
    EmptyBinding {
        /// `"vertex buffer"`.
        binding: &'static str,
    },
    /// wgpu could not provide staging memory for an upload.
    #[error(
        "wgpu refused to stage {bytes} for byte offset {byte_offset} (out of memory, or a destroyed or mapped buffer)",
        bytes = Count(*.byte_length, "byte")
    )]
    Staging {
        /// First byte.
        byte_offset: u64,
        /// Bytes to stage.
        byte_length: u64,
    },
    /// A vertex binding of a format wgpu cannot fetch.
    #[error("vertex binding of {format}: WebGL-only formats cannot be fetched by wgpu")]
    VertexFormat {
        /// The format.
        format: VertexFormat,
    },
    /// A copy that wgpu cannot express (offsets and sizes of copies are multiples of 4).
    #[error(
        "cannot copy bytes {byte_offset}..{byte_end} of a {buffer_size}-byte buffer: copies move whole 4-byte words and the buffer size is not a multiple of 4"
    )]
    UnalignedCopy {
        /// First byte wanted.
        byte_offset: u64,
        /// One past the last byte wanted.
        byte_end: u64,
        /// The buffer's size.
        buffer_size: u64,
    },
    /// A queue write that does not start and end on 4-byte boundaries.
    #[error(
        "cannot write {bytes} at byte offset {byte_offset}: queue writes start at multiples of 4 bytes and cover whole 4-byte words",
        bytes = Count(*.byte_length, "byte")
    )]
    UnalignedWrite {
        /// First byte.
        byte_offset: u64,
        /// Bytes to write.
        byte_length: u64,
    },
    /// A buffer usage wgpu refuses without the `MAPPABLE_PRIMARY_BUFFERS` feature: `MAP_READ`
    /// combines only with `COPY_DST`, `MAP_WRITE` only with `COPY_SRC`.
    #[error(
        "cannot create a buffer with usage {usage}: {map} combines only with {partner} unless the device has the MAPPABLE_PRIMARY_BUFFERS feature",
        usage = UsageNames(*usage),
        map = UsageNames(*map),
        partner = UsageNames(*partner)
    )]
    MapUsage {
        /// The usage asked for.
        usage: wgpu::BufferUsages,
        /// The mapping flag whose rule it breaks (`MAP_READ` or `MAP_WRITE`).
        map: wgpu::BufferUsages,
        /// The one flag that flag combines with (`COPY_DST` or `COPY_SRC`).
        partner: wgpu::BufferUsages,
    },
    /// A buffer asked for with no usage flags.
    #[error("cannot create a buffer with no usage flags: expected at least one")]
    EmptyUsage,
    /// The device ran out of memory for work gpudata recorded inside an error scope (a buffer,
    /// staging memory, a pipeline). wgpu's out-of-memory error says nothing more.
    #[error(
        "the device ran out of memory to {operation}{asked}",
        asked = BytesAsked(*bytes)
    )]
    OutOfMemory {
        /// What gpudata was doing (`"create a buffer"`, `"stage an upload"`, ...).
        operation: &'static str,
        /// Bytes the work asked for, where it is one allocation or transfer.
        bytes: Option<u64>,
    },
    /// wgpu refused work gpudata recorded inside an error scope (a buffer or transfer it
    /// rejects, such as one that uses a destroyed buffer; a shader module or pipeline it cannot
    /// compile; a binding or submission), or its backend failed internally.
    #[error("wgpu refused to {operation}: {source}")]
    Validation {
        /// What gpudata was doing (`"read back a buffer"`, `"compile a compute pipeline"`,
        /// `"submit the kernels"`, ...).
        operation: &'static str,
        /// What wgpu said.
        #[source]
        source: WgpuError,
    },
    /// A readback into a caller's slice whose length is not the data's.
    #[error(
        "cannot read back into a slice of {found_bytes}: the data holds {expected_bytes}",
        found_bytes = Count(*.found, "byte"),
        expected_bytes = Count(*.expected, "byte")
    )]
    ReadbackLength {
        /// Bytes the data holds.
        expected: u64,
        /// Bytes of the slice.
        found: u64,
    },
    /// The device is lost: destroyed (`device.destroy()`) or lost by the driver.
    #[error(
        "cannot {operation}: the device is lost (destroyed or reset by the driver); create a new Gpu"
    )]
    DeviceLost {
        /// What was attempted.
        operation: &'static str,
    },
    /// Data made on one device used with another: wgpu's buffer ids are unique only within one
    /// device's instance, so wgpu would resolve the data's buffer to an unrelated buffer of the
    /// other device. Checked before any wgpu call.
    #[error(
        "cannot {operation}: the data lives on another device (`{data_adapter}`) than the gpu given (`{adapter}`); use the Gpu (or a clone of it) that created the data"
    )]
    OtherDevice {
        /// What was attempted.
        operation: &'static str,
        /// The adapter of the data's device.
        data_adapter: String,
        /// The adapter of the device given.
        adapter: String,
    },
}

/// ` (N bytes asked for)` after an out-of-memory message, or nothing when the size is unknown.
struct BytesAsked(Option<u64>);

impl std::fmt::Display for BytesAsked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(bytes) => write!(f, " ({} asked for)", Count(bytes, "byte")),
            None => Ok(()),
        }
    }
}

/// Buffer usage flags as wgpu names them, joined by ` | ` (`COPY_DST | VERTEX`), or
/// `no usage flags` when empty.
struct UsageNames(wgpu::BufferUsages);

impl std::fmt::Display for UsageNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("no usage flags");
        }
        for (i, (name, _)) in self.0.iter_names().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}
