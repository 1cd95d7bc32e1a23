//! The work units of [`ingest_parquet`](super::ingest_parquet): ranges of rows inside one row
//! group, each decoded by one worker, in file order. Either every row group in `parts` parts
//! dealt round-robin to the workers, or the file's rows cut into one near-equal range per
//! worker (split where it crosses row groups), so that every worker decodes as many rows.

/// One work unit: `rows` rows of row group `group` from its row `first`, the file's row
/// `start` its first, decoded by worker `worker`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Unit {
    pub(super) group: usize,
    pub(super) first: u64,
    pub(super) rows: u64,
    pub(super) start: u64,
    pub(super) worker: usize,
}

/// Parts per row group under [`ParquetOptions::row_group_parts`](super::ParquetOptions) `0`
/// when the consumer converts: whole groups when `groups` covers `threads`, otherwise enough
/// parts for every thread.
pub(super) fn auto_parts(threads: usize, groups: usize) -> usize {
    if groups == 0 || groups >= threads {
        1
    } else {
        threads.div_ceil(groups)
    }
}

/// `k·n/d` in u128, so that no product overflows (`k ≤ d`).
fn share(k: u64, n: u64, d: u64) -> u64 {
    (u128::from(k) * u128::from(n) / u128::from(d.max(1))) as u64
}

/// The work units of row groups of `group_rows` rows each, `parts` per row group (at least 1;
/// a row group of fewer rows than parts has as many units as rows, and an empty one one
/// unit), dealt round-robin to `threads` workers (at most one per unit).
pub(super) fn round_robin(group_rows: &[u64], parts: usize, threads: usize) -> Vec<Unit> {
    let parts = parts.max(1) as u64;
    let mut units = Vec::new();
    let mut start = 0u64;
    for (group, &rows) in group_rows.iter().enumerate() {
        let n = parts.min(rows).max(1);
        for k in 0..n {
            let (first, end) = (share(k, rows, n), share(k + 1, rows, n));
            units.push(Unit {
                group,
                first,
                rows: end - first,
                start: start.saturating_add(first),
                worker: 0,
            });
        }
        start = start.saturating_add(rows);
    }
    let workers = threads.clamp(1, units.len().max(1));
    for (i, unit) in units.iter_mut().enumerate() {
        unit.worker = i % workers;
    }
    units
}

/// The default work units when the workers convert and the file has an offset index: whole
/// row groups, one per thread, when there are fewer row groups than threads but at least two
/// thirds as many (the threads left idle cost less than cutting groups, whose parts re-read
/// their dictionary pages: on flights-3m.parquet, 11 groups on 11 of 16 threads took
/// 5–10% less than 16 ranges on four H100 hosts); otherwise [`balanced`] ranges.
pub(super) fn default_units(group_rows: &[u64], threads: usize) -> Vec<Unit> {
    let groups = group_rows.len();
    if groups < threads && groups.saturating_mul(3) >= threads.saturating_mul(2) {
        round_robin(group_rows, 1, groups)
    } else {
        balanced(group_rows, threads)
    }
}

/// The work units of `threads` near-equal ranges of the file's rows (worker `t` decodes rows
/// `t·n/threads..(t+1)·n/threads` of the file's `n`), each range cut where it crosses a row
/// group: every worker decodes as many rows (±1) in one unit per row group it touches, so none
/// waits for a second round while others idle. Empty row groups and empty ranges make no unit.
pub(super) fn balanced(group_rows: &[u64], threads: usize) -> Vec<Unit> {
    let threads = threads.max(1) as u64;
    let total = group_rows
        .iter()
        .fold(0u64, |sum, &r| sum.saturating_add(r));
    let mut units = Vec::new();
    let mut start = 0u64;
    for (group, &rows) in group_rows.iter().enumerate() {
        let end = start.saturating_add(rows);
        // The workers whose ranges meet `start..end`.
        let mut worker = (0..threads)
            .find(|&t| share(t + 1, total, threads) > start)
            .unwrap_or(threads);
        while worker < threads && start < end {
            let from = share(worker, total, threads).max(start);
            let to = share(worker + 1, total, threads).min(end);
            if from < to {
                units.push(Unit {
                    group,
                    first: from - start,
                    rows: to - from,
                    start: from,
                    worker: worker as usize,
                });
            }
            if to >= end {
                break;
            }
            worker += 1;
        }
        start = end;
    }
    units
}

#[cfg(test)]
mod tests {
    use super::{Unit, auto_parts, balanced, default_units, round_robin};

    fn unit(group: usize, first: u64, rows: u64, start: u64, worker: usize) -> Unit {
        Unit {
            group,
            first,
            rows,
            start,
            worker,
        }
    }

    #[test]
    fn round_robin_cuts_row_groups_into_near_equal_parts() {
        assert_eq!(
            round_robin(&[10, 0, 2], 3, 4),
            [
                unit(0, 0, 3, 0, 0),
                unit(0, 3, 3, 3, 1),
                unit(0, 6, 4, 6, 2),
                unit(1, 0, 0, 10, 3),
                unit(2, 0, 1, 10, 0),
                unit(2, 1, 1, 11, 1),
            ]
        );
        assert_eq!(
            round_robin(&[5, 7], 0, 8),
            [unit(0, 0, 5, 0, 0), unit(1, 0, 7, 5, 1)]
        );
        assert_eq!(
            round_robin(&[u64::MAX], 2, 2)[1].rows,
            u64::MAX - u64::MAX / 2
        );
    }

    #[test]
    fn balanced_ranges_give_every_worker_as_many_rows() {
        // 10 rows in groups of 4, 0 and 6 on 3 workers: rows 0..3, 3..6, 6..10.
        assert_eq!(
            balanced(&[4, 0, 6], 3),
            [
                unit(0, 0, 3, 0, 0),
                unit(0, 3, 1, 3, 1),
                unit(2, 0, 2, 4, 1),
                unit(2, 2, 4, 6, 2),
            ]
        );
        // More workers than rows: empty ranges make no unit.
        assert_eq!(
            balanced(&[2], 4),
            [unit(0, 0, 1, 0, 1), unit(0, 1, 1, 1, 3)]
        );
        assert_eq!(balanced(&[0, 0], 4), []);
        assert_eq!(balanced(&[7], 1), [unit(0, 0, 7, 0, 0)]);
        // flights-3m.parquet: 11 row groups, 16 workers; every worker within one row of the
        // others, every row once, in file order.
        let groups = [272_629; 11];
        let units = balanced(&groups, 16);
        let mut rows = [0u64; 16];
        let mut next = 0;
        for u in &units {
            assert_eq!(u.start, next);
            next += u.rows;
            rows[u.worker] += u.rows;
        }
        assert_eq!(next, 272_629 * 11);
        assert!(rows.iter().max().unwrap() - rows.iter().min().unwrap() <= 1);
        let huge = balanced(&[u64::MAX / 2, u64::MAX / 2], 3);
        assert_eq!(
            huge.iter().map(|u| u.worker).collect::<Vec<_>>(),
            [0, 1, 1, 2]
        );
    }

    #[test]
    fn default_units_keep_groups_whole_when_most_threads_get_one() {
        // flights-3m.parquet on 16 threads: 11 whole groups on 11 threads.
        let flights = default_units(&[272_629; 11], 16);
        assert_eq!(flights.len(), 11);
        assert!(
            flights
                .iter()
                .enumerate()
                .all(|(i, u)| u.worker == i && u.first == 0)
        );
        // Fewer groups than two thirds of the threads, or more groups than threads: ranges.
        assert_eq!(default_units(&[9, 9], 4), balanced(&[9, 9], 4));
        assert_eq!(default_units(&[4, 0, 6], 2), balanced(&[4, 0, 6], 2));
        assert_eq!(default_units(&[4, 6], 3).len(), 2);
    }

    #[test]
    fn auto_parts_give_every_thread_a_unit() {
        // flights-3m.parquet on the 16-core machine: 11 groups, 2 parts.
        assert_eq!(auto_parts(16, 11), 2);
        assert_eq!(auto_parts(11, 11), 1);
        assert_eq!(auto_parts(8, 11), 1);
        assert_eq!(auto_parts(16, 1), 16);
        assert_eq!(auto_parts(17, 4), 5);
        assert_eq!(auto_parts(16, 0), 1);
        assert_eq!(auto_parts(1, 1), 1);
    }
}
