//! Host memory readbacks fill: vectors allocated zeroed (fresh pages the workers fault in
//! while they copy, in parallel) and, on Linux, advised to use transparent huge pages, which
//! cuts the page faults of a large readback 512-fold (on the H200 machine, a fresh vector's
//! faults bound a readback at 10–16 GB/s; see BENCHMARKS.md).

/// Smallest vector worth advising: below two huge pages the advice covers little.
const ADVISE_MIN_BYTES: usize = 4 << 20;

/// `len` zero bytes, advised to use huge pages when large.
pub(crate) fn zeroed_bytes(len: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; len];
    advise_huge_pages(&mut bytes);
    bytes
}

/// Asks the kernel to back the whole 2 MiB pages inside `bytes` with transparent huge pages
/// (`madvise(MADV_HUGEPAGE)`); advice only, so a refusal changes nothing.
pub(crate) fn advise_huge_pages(bytes: &mut [u8]) {
    if bytes.len() < ADVISE_MIN_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = bytes.as_mut_ptr() as usize;
        let first = start.next_multiple_of(HUGE);
        let end = (start + bytes.len()) & !(HUGE - 1);
        if end > first {
            // SAFETY: the range lies inside `bytes`, which the caller borrows mutably;
            // MADV_HUGEPAGE changes how pages are backed, never their contents.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
}
