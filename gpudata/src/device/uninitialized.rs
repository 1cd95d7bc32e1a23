//! Buffers made without wgpu's zero-fill, for outputs their caller writes whole (the table
//! re-layouts: `ops/kernels/transform/relayout.rs`, whose `fresh.rs` finds the bytes to clear).
//!
//! wgpu-core 30 marks every byte of a new buffer uninitialized and, before the first command
//! buffer that binds a range of it (storage bindings count, read-only or not), records a
//! `clear_buffer` of that range (`Device::create_buffer_binding` registers
//! `MemoryInitKind::NeedsInitializedMemory` for every bound range). For a fresh 1 GiB output
//! that is a 1 GiB fill inside the re-layout's submission, although the re-layout writes every
//! byte. No descriptor flag turns it off; `mapped_at_creation` zero-fills on the host instead
//! (a staging buffer for unmappable buffers, then a copy); only a `copy_buffer_to_buffer`
//! destination, a `clear_buffer` or a `Queue::write_buffer` marks a range initialized without
//! the fill. A buffer wrapped by `Device::create_buffer_from_hal` starts initialized
//! (`BufferInitTracker::new(0)`).
//!
//! So, on Vulkan, [`uninitialized_buffer`] makes the buffer with wgpu-hal (the allocation wgpu
//! would make: the same hal call, usages and size) and wraps it; the re-layout that owns it
//! (`Relayout::output` in `ops/kernels/transform/relayout.rs`) writes every byte its copies do
//! not in its one submission: zeros stored by its block kernels where only block copies write
//! the output (a pack: one compute pass, no other command), else a `clear_buffer` at the start
//! of the submission, so that every byte is written before any command reads it and before
//! anyone else can see the buffer.

use crate::device::Gpu;

/// The usages [`uninitialized_buffer`] serves: no mapping (wgpu zero-fills mapped ranges on the
/// host itself), no indirect or query use (wgpu adds internal uses for them).
const SERVED: wgpu::BufferUsages = wgpu::BufferUsages::COPY_SRC
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::INDEX)
    .union(wgpu::BufferUsages::VERTEX)
    .union(wgpu::BufferUsages::UNIFORM)
    .union(wgpu::BufferUsages::STORAGE);

/// A buffer of `size` bytes with `usage` that wgpu treats as initialized (it records no
/// zero-fill before its first use), or `None` where it cannot be made so: not a Vulkan device
/// (or wasm), a usage outside `COPY_SRC | COPY_DST | INDEX | VERTEX | UNIFORM | STORAGE` or
/// without `COPY_DST`, a size of 0, off 4 bytes or past the device's `max_buffer_size`, or the
/// driver refusing the allocation (the caller then makes an ordinary buffer, whose error says
/// why).
///
/// # Safety
/// Every byte of the buffer's `size` is written (by a copy, a kernel's store or a
/// `clear_buffer`) by the first submission that uses the buffer, before any command of that
/// submission reads it; until that submission is recorded nobody else is given the buffer, and
/// where it is never submitted it is dropped unused. (wgpu's contract for
/// `create_buffer_from_hal` asks for an initialized buffer: these rules make every byte a reader
/// can see one that was written, which is what the contract protects.)
#[cfg(not(target_arch = "wasm32"))]
pub(crate) unsafe fn uninitialized_buffer(
    gpu: &Gpu,
    size: u64,
    usage: wgpu::BufferUsages,
    label: &str,
) -> Option<wgpu::Buffer> {
    use wgpu::hal::Device as _;
    use wgpu::hal::api::Vulkan;

    let device = gpu.device();
    if size == 0
        || !size.is_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT)
        || size > device.limits().max_buffer_size
        || !SERVED.contains(usage)
        || !usage.contains(wgpu::BufferUsages::COPY_DST)
    {
        return None;
    }
    // wgpu-core's `create_buffer`: its usage map, `COPY_DST` for clears, one byte more for
    // vertex buffers (an empty range bound at the end), rounded up to 4 bytes.
    let mut uses = wgpu::BufferUses::COPY_DST;
    for (usage_bit, use_bits) in [
        (wgpu::BufferUsages::COPY_SRC, wgpu::BufferUses::COPY_SRC),
        (wgpu::BufferUsages::INDEX, wgpu::BufferUses::INDEX),
        (wgpu::BufferUsages::VERTEX, wgpu::BufferUses::VERTEX),
        (wgpu::BufferUsages::UNIFORM, wgpu::BufferUses::UNIFORM),
        (
            wgpu::BufferUsages::STORAGE,
            wgpu::BufferUses::STORAGE_READ_ONLY.union(wgpu::BufferUses::STORAGE_READ_WRITE),
        ),
    ] {
        if usage.contains(usage_bit) {
            uses |= use_bits;
        }
    }
    let actual = if usage.contains(wgpu::BufferUsages::VERTEX) {
        size.checked_add(1)?
    } else {
        size
    };
    let hal_size = actual.checked_next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT)?;
    let raw = {
        // SAFETY: the hal device is only used for this call, while `device` lives.
        let hal = unsafe { device.as_hal::<Vulkan>() }?;
        // SAFETY: a valid descriptor (a size above 0, usages the device has), on a live device;
        // the buffer is destroyed by wgpu once the wrapping buffer is dropped.
        unsafe {
            hal.create_buffer(&wgpu::hal::BufferDescriptor {
                label: Some(label),
                size: hal_size,
                usage: uses,
                memory_flags: wgpu::hal::MemoryFlags::empty(),
            })
        }
        .ok()?
    };
    // SAFETY: made on this device's hal device just above, with the usages and at least the
    // size of the descriptor (wgpu-core's own allocation for it); not zero bytes. Initialized:
    // the caller's contract (every byte written before any read, nobody else holding it).
    let buffer = unsafe {
        device.create_buffer_from_hal::<Vulkan>(
            raw,
            &wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            },
        )
    };
    Some(buffer)
}

/// No uninitialized buffers on wasm: wgpu's zero-fill stays.
///
/// # Safety
/// As on other targets (nothing to uphold here).
#[cfg(target_arch = "wasm32")]
pub(crate) unsafe fn uninitialized_buffer(
    _gpu: &Gpu,
    _size: u64,
    _usage: wgpu::BufferUsages,
    _label: &str,
) -> Option<wgpu::Buffer> {
    None
}
