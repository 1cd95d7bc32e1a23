//! Rows split over threads: the one rule by which the threaded row encoder
//! ([`encode_rows`](super::encode_rows)) and the threaded row decoder
//! ([`decode_rows`](super::decode_rows), also the decode of readbacks,
//! [`TypedGpuData::read_rows`](crate::data::TypedGpuData::read_rows)) cut their rows into
//! contiguous parts, one per thread.

use std::sync::OnceLock;

/// The most threads [`default_threads`] gives: past this the memory system, not the cores,
/// bounds an encode.
const MAX_THREADS: usize = 8;

/// Rows per part when `count` rows are split over at most `threads` threads and no part is
/// smaller than `min_rows` (the last part holds the rest): the first parts all have this many.
#[must_use]
pub(crate) fn rows_per_part(count: usize, threads: usize, min_rows: usize) -> usize {
    count.div_ceil(threads.max(1)).max(min_rows).max(1)
}

/// Runs `work(first_row, part)` over `out` cut into parts of `rows_per_part` rows of `per_row`
/// items each (the last part shorter): the first part on the calling thread, every other on a
/// scoped thread of its own; returns when all are done. One part (or an empty `out`) runs on the
/// calling thread only.
pub(crate) fn run_parts<O, F>(out: &mut [O], per_row: usize, rows_per_part: usize, work: F)
where
    O: Send,
    F: Fn(usize, &mut [O]) + Sync,
{
    let part_len = rows_per_part.saturating_mul(per_row).max(1);
    if out.len() <= part_len {
        work(0, out);
        return;
    }
    let work = &work;
    std::thread::scope(|scope| {
        let mut parts = out.chunks_mut(part_len).enumerate();
        let first = parts.next();
        for (k, part) in parts {
            scope.spawn(move || work(k * rows_per_part, part));
        }
        if let Some((_, part)) = first {
            work(0, part);
        }
    });
}

/// The threads a large encode or decode uses by default: the machine's available parallelism (asked
/// once), at most [`MAX_THREADS`].
#[must_use]
pub(crate) fn default_threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(MAX_THREADS)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_even_shares_no_smaller_than_the_minimum() {
        assert_eq!(rows_per_part(100, 4, 1), 25);
        assert_eq!(rows_per_part(101, 4, 1), 26);
        assert_eq!(rows_per_part(100, 4, 40), 40);
        assert_eq!(rows_per_part(100, 0, 1), 100);
        assert_eq!(rows_per_part(0, 4, 0), 1);
    }

    #[test]
    fn every_part_runs_once_with_its_first_row() {
        let mut out = vec![0usize; 103 * 3];
        run_parts(&mut out, 3, 10, |first, part| {
            for (j, row) in part.chunks_mut(3).enumerate() {
                row.fill(first + j);
            }
        });
        for (i, row) in out.chunks(3).enumerate() {
            assert_eq!(row, [i, i, i]);
        }
        let mut empty: [u8; 0] = [];
        run_parts(&mut empty, 4, 10, |first, part| {
            assert_eq!((first, part.len()), (0, 0));
        });
    }
}
