//! The bytes a re-layout's copies leave unwritten in an output made without wgpu's zero-fill
//! ([`uninitialized_buffer`](crate::device::uninitialized::uninitialized_buffer)): the
//! re-layout clears them first, in its one submission.

/// The ranges of `[0, size)` that `written` (byte ranges, in any order, possibly overlapping)
/// leaves out, each widened to whole 4-byte words.
pub(crate) fn gaps(size: u64, mut written: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    written.sort_unstable();
    let mut out = Vec::new();
    let mut at = 0;
    for (start, end) in written {
        if start > at {
            out.push((at, start.min(size)));
        }
        at = at.max(end);
        if at >= size {
            break;
        }
    }
    if at < size {
        out.push((at, size));
    }
    out.into_iter()
        .map(|(s, e)| {
            (
                s / 4 * 4,
                e.next_multiple_of(4).min(size.next_multiple_of(4)),
            )
        })
        .filter(|(s, e)| s < e)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::gaps;

    #[test]
    fn gaps_are_what_no_copy_writes() {
        assert_eq!(gaps(64, vec![]), [(0, 64)]);
        assert_eq!(gaps(64, vec![(16, 32), (0, 8)]), [(8, 16), (32, 64)]);
        assert_eq!(gaps(64, vec![(0, 40), (8, 64)]), []);
        assert_eq!(
            gaps(64, vec![(4, 10), (12, 60)]),
            [(0, 4), (8, 12), (60, 64)]
        );
    }
}
