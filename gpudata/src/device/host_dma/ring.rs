//! The pinned staging ring of one device: host memory gpudata allocates itself, imported once
//! as one wgpu buffer ([`DmaDevice::import`]), cut into equal slots that transfers check out
//! ([`PinnedRing::take`]), fill on the CPU, and hand back. Only uploads use it: readbacks under
//! `HostDmaMode::PinnedStaging` take the staged path.
//!
//! Safety argument, in one place:
//! - The host allocation outlives its import: [`PinnedRing`]'s drop drops the [`Imported`]
//!   first (which returns only once wgpu has destroyed the buffer and freed the memory object,
//!   so no submission can still use it), and only then frees the allocation.
//! - A slot is checked out by one transfer at a time (the free list is behind a mutex), so no
//!   two transfers touch its bytes.
//! - Each slot remembers the last submission that copied out of it ([`Slots::set_pending`],
//!   kept when the slot goes back to the ring). The CPU writes a slot's bytes only after that
//!   submission has finished ([`Slots::pending`]), so no copy still reading it sees them change.
//! - Imports use host-coherent memory types only, so host writes before a submission need no
//!   flush.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ptr::NonNull;
use std::sync::{Mutex, PoisonError};

use super::{DmaDevice, Imported};
use crate::device::Gpu;
use crate::device::scope::scoped;
use crate::device::transfer::advise_huge_pages;

/// The alignment of the ring's allocation: 2 MiB, so the kernel can back it with transparent
/// huge pages (fewer pages to pin, fewer TLB misses for the copies), or the import alignment
/// when larger.
const RING_ALIGNMENT: u64 = 2 << 20;

/// The operation ring transfers name in their errors.
const OPERATION: &str = "make the pinned staging ring";

/// Host memory of the ring's own, freed on drop.
struct HostPages {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: the allocation is owned by the ring and only reached through slots checked out by one
// transfer at a time (module docs); the pointer itself is just an address.
unsafe impl Send for HostPages {}
// SAFETY: as for `Send`: shared access hands out addresses, never bytes.
unsafe impl Sync for HostPages {}

impl HostPages {
    /// `len` zeroed bytes aligned to `align` (a power of two), or `None`.
    fn new(len: usize, align: usize) -> Option<HostPages> {
        let layout = Layout::from_size_align(len, align).ok()?;
        if layout.size() == 0 {
            return None;
        }
        // SAFETY: a layout of non-zero size.
        let ptr = NonNull::new(unsafe { alloc_zeroed(layout) })?;
        // SAFETY: `len` zeroed bytes just allocated, borrowed only for the advice.
        advise_huge_pages(unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr(), len) });
        Some(HostPages { ptr, layout })
    }
}

impl Drop for HostPages {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `new`.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) };
    }
}

/// One slot on the free list: its index and the last submission that used it.
struct FreeSlot {
    index: usize,
    pending: Option<wgpu::SubmissionIndex>,
}

/// The pinned staging ring of one device (module docs).
pub(crate) struct PinnedRing {
    /// `Some` until drop, which drops it before `host`.
    imported: Option<Imported>,
    host: HostPages,
    slot_bytes: u64,
    slots: usize,
    free: Mutex<Vec<FreeSlot>>,
}

impl PinnedRing {
    /// A ring of `slots` slots of `slot_bytes` bytes (each rounded up to the import alignment)
    /// on `gpu`, or `None` when the memory cannot be allocated or imported, or the ring would
    /// exceed the device's largest buffer.
    pub(crate) fn new(
        gpu: &Gpu,
        dma: &DmaDevice,
        slot_bytes: u64,
        slots: usize,
    ) -> Option<PinnedRing> {
        let slot_bytes = slot_bytes
            .max(4)
            .checked_next_multiple_of(dma.alignment())?;
        let size = slot_bytes.checked_mul(slots.max(1) as u64)?;
        if size > gpu.limits().max_buffer_size {
            return None;
        }
        let align = RING_ALIGNMENT.max(dma.alignment());
        let host = HostPages::new(usize::try_from(size).ok()?, usize::try_from(align).ok()?)?;
        let (imported, caught) = scoped(gpu, OPERATION, Some(size), || {
            // SAFETY: `host` is owned by the ring and freed only after the import is dropped
            // (`Drop for PinnedRing`); whole, writable pages nobody else touches.
            unsafe { dma.import(gpu.device(), host.ptr.as_ptr(), size) }
        });
        // wgpu refusing the wrapped buffer counts as the driver refusing the memory.
        pollster::block_on(caught.check(gpu)).ok()?;
        let imported = imported?;
        if imported.offset() != 0 {
            return None;
        }
        Some(PinnedRing {
            imported: Some(imported),
            host,
            slot_bytes,
            slots: slots.max(1),
            free: Mutex::new(
                (0..slots.max(1))
                    .rev()
                    .map(|index| FreeSlot {
                        index,
                        pending: None,
                    })
                    .collect(),
            ),
        })
    }

    /// The bytes of one slot.
    pub(crate) fn slot_bytes(&self) -> u64 {
        self.slot_bytes
    }

    /// How many slots the ring has.
    pub(crate) fn slots(&self) -> usize {
        self.slots
    }

    /// The buffer the ring is imported as (slot `i` at `i * slot_bytes`).
    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        // Always `Some` until drop.
        self.imported
            .as_ref()
            .map_or_else(|| unreachable!(), Imported::buffer)
    }

    /// Checks out up to `wanted` free slots (none when every slot is checked out by other
    /// transfers); they go back to the ring when the [`Slots`] drop.
    pub(crate) fn take(&self, wanted: usize) -> Slots<'_> {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        let keep = free.len().saturating_sub(wanted);
        let taken = free.split_off(keep);
        Slots { ring: self, taken }
    }
}

impl Drop for PinnedRing {
    fn drop(&mut self) {
        // Returns once wgpu has freed the memory object; `host` is freed after this body.
        drop(self.imported.take());
    }
}

/// Slots checked out of a [`PinnedRing`] by one transfer; handed back (with the last
/// submission that used each) on drop, on success, error, panic or cancellation alike.
pub(crate) struct Slots<'r> {
    ring: &'r PinnedRing,
    taken: Vec<FreeSlot>,
}

impl Slots<'_> {
    /// How many slots this transfer holds.
    pub(crate) fn len(&self) -> usize {
        self.taken.len()
    }

    /// The ring buffer.
    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        self.ring.buffer()
    }

    /// The offset of held slot `i` in [`buffer`](Self::buffer).
    pub(crate) fn buffer_offset(&self, i: usize) -> u64 {
        self.taken[i].index as u64 * self.ring.slot_bytes
    }

    /// The host address of held slot `i`'s first byte (its [`PinnedRing::slot_bytes`] bytes
    /// follow). Only an address: reading or writing through it is the caller's unsafe step,
    /// allowed once the slot's [`pending`](Self::pending) submission has finished.
    pub(crate) fn host_address(&self, i: usize) -> usize {
        self.ring.host.ptr.as_ptr() as usize + self.taken[i].index * self.ring.slot_bytes as usize
    }

    /// Records `submission` (just submitted) as the last one using held slot `i`.
    pub(crate) fn set_pending(&mut self, i: usize, submission: wgpu::SubmissionIndex) {
        self.taken[i].pending = Some(submission);
    }

    /// The last submission using held slot `i`, if it may not have finished: the CPU may write
    /// the slot's bytes only once it has (then [`clear_pending`](Self::clear_pending)).
    pub(crate) fn pending(&self, i: usize) -> Option<wgpu::SubmissionIndex> {
        self.taken[i].pending.clone()
    }

    /// Records that the last submission using held slot `i` has finished.
    pub(crate) fn clear_pending(&mut self, i: usize) {
        self.taken[i].pending = None;
    }
}

impl Drop for Slots<'_> {
    fn drop(&mut self) {
        let mut free = self
            .ring
            .free
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        free.append(&mut self.taken);
    }
}
