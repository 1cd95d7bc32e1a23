//! The one copy routine of the codec: the bytes a table of [`FieldCopy`]s names, moved between
//! a host value and its GPU bytes. Rows ([`GpuStruct::encode_row`](crate::GpuStruct::encode_row),
//! [`decode_row`](crate::GpuStruct::decode_row)) and runtime-sized structs (header and elements)
//! go through it.

use crate::record::FieldCopy;

/// Copies the bytes `copies` names from `value` into `dst` (offsets into `dst` from 0).
///
/// # Safety
/// Each copy's host range lies inside `V` and is initialized bytes of every `V`; each GPU range
/// lies inside `dst` (checked: out-of-range copies panic).
#[inline]
pub(crate) unsafe fn write_copies<V>(value: &V, copies: &[FieldCopy], dst: &mut [u8]) {
    let host = core::ptr::from_ref(value).cast::<u8>();
    for copy in copies {
        assert!(copy.host + copy.len <= size_of::<V>());
        let out = &mut dst[copy.gpu..copy.gpu + copy.len];
        // SAFETY: the caller promises the host range is initialized bytes inside `V` (its end is
        // asserted above); `out` is exactly `copy.len` bytes of a distinct buffer.
        unsafe { core::ptr::copy_nonoverlapping(host.add(copy.host), out.as_mut_ptr(), copy.len) };
    }
}

/// A `V` built from all zeros with the bytes `copies` names copied in from `src`.
///
/// # Safety
/// An all-zero `V` is valid and stays valid with any bytes in the host ranges of `copies`; each
/// host range lies inside `V` (checked), each GPU range inside `src` (checked).
#[inline]
pub(crate) unsafe fn read_copies<V>(src: &[u8], copies: &[FieldCopy]) -> V {
    let mut out = core::mem::MaybeUninit::<V>::zeroed();
    let host = out.as_mut_ptr().cast::<u8>();
    for copy in copies {
        assert!(copy.host + copy.len <= size_of::<V>());
        let bytes = &src[copy.gpu..copy.gpu + copy.len];
        // SAFETY: the destination range is inside `out` (asserted above) and `bytes` is exactly
        // `copy.len` bytes of a distinct buffer.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), host.add(copy.host), copy.len) };
    }
    // SAFETY: the caller promises that the all-zero `V` with any bytes in these ranges is valid.
    unsafe { out.assume_init() }
}
