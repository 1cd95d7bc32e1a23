//! Copy plans: how one row's bytes move between a [`GpuStruct`] and its GPU row, worked out once
//! per type at compile time from [`GpuStruct::FIELD_COPIES`] (never per row).
//!
//! - [`Runs`]: the field copies in GPU order, merged where two are adjacent on both sides (a
//!   `mat4x4<f32>`'s four columns are one 64-byte run, `color: vec3<f32>` followed by
//!   `roughness: f32` one 16-byte run). [`encode_row`](GpuStruct::encode_row) copies each run
//!   and zeroes only the gaps between them; [`decode_row`](GpuStruct::decode_row) copies the runs
//!   back.
//! - [`Chunks`]: for rows whose stride is a multiple of 16 bytes (at most 256), each 16-byte
//!   chunk of the GPU row as one or more 16-byte loads from the host row, each followed by a byte
//!   shuffle that moves the loaded bytes to their GPU places and zeroes the rest (padding), the
//!   pieces OR-ed together. A chunk whose bytes lie within 16 bytes of the host row is one load,
//!   one shuffle (none when the bytes are already in place) and one store: the row is built in
//!   registers, never in memory first. The encoder of `encode_rows` runs it where the CPU has
//!   SSSE3 (x86_64).
//!
//! A load only reads host bytes that some field copy covers (the `unsafe trait GpuStruct`
//! contract makes those initialized), inside the row's own `size_of::<T>()` bytes.

use crate::record::{FieldCopy, GpuStruct};

/// The most runs a plan holds; a struct with more field copies encodes copy by copy.
const MAX_RUNS: usize = 64;
/// The bytes of one chunk (one SSE register).
pub(crate) const CHUNK: usize = 16;
/// The most chunks a row has (256-byte rows).
const MAX_CHUNKS: usize = 16;
/// The most loads of one row.
const MAX_LOADS: usize = 48;
/// A shuffle control byte that writes zero.
const ZERO_LANE: u8 = 0x80;

const NO_COPY: FieldCopy = FieldCopy {
    host: 0,
    gpu: 0,
    len: 0,
};

/// A type's field copies sorted by GPU offset and merged into runs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunTable {
    runs: [FieldCopy; MAX_RUNS],
    len: usize,
    /// Whether the runs are usable: at most [`MAX_RUNS`] copies, none overlapping another on the
    /// GPU side, every host range inside the host type and every GPU range inside the stride.
    ok: bool,
}

impl RunTable {
    /// The runs, in GPU order; `None` when the plan is not usable (then the caller moves
    /// `FIELD_COPIES` one by one, as they are).
    #[inline]
    pub(crate) fn runs(&self) -> Option<&[FieldCopy]> {
        if self.ok {
            Some(self.runs.split_at(self.len).0)
        } else {
            None
        }
    }
}

/// Sorts `copies` by GPU offset and merges those adjacent both on the host and on the GPU.
const fn merge_runs(copies: &[FieldCopy], host_size: usize, stride: usize) -> RunTable {
    let mut table = RunTable {
        runs: [NO_COPY; MAX_RUNS],
        len: 0,
        ok: false,
    };
    if copies.len() > MAX_RUNS {
        return table;
    }
    // Insertion sort by GPU offset, leaving out empty copies.
    let mut sorted = [NO_COPY; MAX_RUNS];
    let mut n = 0;
    let mut k = 0;
    while k < copies.len() {
        let copy = copies[k];
        k += 1;
        if copy.len == 0 {
            continue;
        }
        if copy.host > host_size
            || copy.len > host_size - copy.host
            || copy.gpu > stride
            || copy.len > stride - copy.gpu
        {
            return table;
        }
        let mut at = n;
        while at > 0 && sorted[at - 1].gpu > copy.gpu {
            sorted[at] = sorted[at - 1];
            at -= 1;
        }
        sorted[at] = copy;
        n += 1;
    }
    let mut k = 0;
    while k < n {
        let copy = sorted[k];
        k += 1;
        if table.len > 0 {
            let last = &mut table.runs[table.len - 1];
            if copy.gpu < last.gpu + last.len {
                // Overlapping GPU ranges: no plan (the copies keep their own order).
                return table;
            }
            if last.gpu + last.len == copy.gpu && last.host + last.len == copy.host {
                last.len += copy.len;
                continue;
            }
        }
        table.runs[table.len] = copy;
        table.len += 1;
    }
    table.ok = true;
    table
}

/// The merged runs of `T` (see the module documentation).
pub(crate) struct Runs<T>(core::marker::PhantomData<T>);

impl<T: GpuStruct> Runs<T> {
    /// `T`'s runs, computed once.
    pub(crate) const TABLE: &'static RunTable = &merge_runs(
        T::FIELD_COPIES,
        size_of::<T>(),
        stride_of(T::FORMAT.byte_stride()),
    );
}

/// A stride as `usize` (`usize::MAX` when it does not fit, which no plan accepts).
const fn stride_of(stride: u64) -> usize {
    if stride > usize::MAX as u64 {
        usize::MAX
    } else {
        stride as usize
    }
}

/// One 16-byte load from the host row and what to do with its bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Load {
    /// Where the load starts in the host row (`host + 16 <= size_of::<T>()`).
    pub(crate) host: usize,
    /// Byte shuffle control: lane `i` of the chunk takes loaded byte `control[i]`, or zero where
    /// the control byte is `0x80`.
    pub(crate) control: [u8; CHUNK],
    /// Whether the shuffle moves anything (`false`: the loaded bytes are the chunk).
    pub(crate) shuffle: bool,
}

const NO_LOAD: Load = Load {
    host: 0,
    control: [ZERO_LANE; CHUNK],
    shuffle: true,
};

/// A chunk of the GPU row: loads `first..first + count` of the table, OR-ed (none: all zero).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chunk {
    pub(crate) first: usize,
    pub(crate) count: usize,
}

/// Every chunk of a row, for one type.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkTable {
    chunks: [Chunk; MAX_CHUNKS],
    count: usize,
    loads: [Load; MAX_LOADS],
    ok: bool,
}

impl ChunkTable {
    /// The chunks in row order; `None` when the row has no chunk plan.
    #[inline]
    pub(crate) fn chunks(&self) -> Option<&[Chunk]> {
        if self.ok {
            Some(self.chunks.split_at(self.count).0)
        } else {
            None
        }
    }

    /// The loads of `chunk`.
    #[inline]
    pub(crate) fn loads(&self, chunk: &Chunk) -> &[Load] {
        let (_, rest) = self.loads.split_at(chunk.first);
        rest.split_at(chunk.count).0
    }
}

/// The runs' host ranges merged where they touch or overlap, sorted by host offset: the host
/// bytes known to be initialized.
const fn host_cover(runs: &RunTable) -> ([(usize, usize); MAX_RUNS], usize) {
    let mut spans = [(0usize, 0usize); MAX_RUNS];
    let mut n = 0;
    let mut k = 0;
    while k < runs.len {
        let run = runs.runs[k];
        k += 1;
        let mut at = n;
        while at > 0 && spans[at - 1].0 > run.host {
            spans[at] = spans[at - 1];
            at -= 1;
        }
        spans[at] = (run.host, run.host + run.len);
        n += 1;
    }
    let mut merged = [(0usize, 0usize); MAX_RUNS];
    let mut m = 0;
    let mut k = 0;
    while k < n {
        let (start, end) = spans[k];
        k += 1;
        if m > 0 && start <= merged[m - 1].1 {
            if end > merged[m - 1].1 {
                merged[m - 1].1 = end;
            }
        } else {
            merged[m] = (start, end);
            m += 1;
        }
    }
    (merged, m)
}

/// Whether `start..start + 16` lies inside one covered span.
const fn window_covered(cover: &([(usize, usize); MAX_RUNS], usize), start: usize) -> bool {
    let mut k = 0;
    while k < cover.1 {
        let (lo, hi) = cover.0[k];
        if lo <= start && start + CHUNK <= hi {
            return true;
        }
        k += 1;
    }
    false
}

/// The chunk plan of a type whose runs are `runs` (see the module documentation).
const fn plan_chunks(runs: &RunTable, host_size: usize, stride: usize) -> ChunkTable {
    let mut table = ChunkTable {
        chunks: [Chunk { first: 0, count: 0 }; MAX_CHUNKS],
        count: 0,
        loads: [NO_LOAD; MAX_LOADS],
        ok: false,
    };
    if !runs.ok
        || stride == 0
        || !stride.is_multiple_of(CHUNK)
        || stride > CHUNK * MAX_CHUNKS
        || host_size < CHUNK
    {
        return table;
    }
    let cover = host_cover(runs);
    let mut loads = 0;
    let mut c = 0;
    while c < stride / CHUNK {
        // The host byte each lane of the chunk comes from (`usize::MAX`: a zero lane).
        let mut from = [usize::MAX; CHUNK];
        let mut r = 0;
        while r < runs.len {
            let run = runs.runs[r];
            r += 1;
            let mut lane = 0;
            while lane < CHUNK {
                let g = c * CHUNK + lane;
                if g >= run.gpu && g < run.gpu + run.len {
                    from[lane] = run.host + (g - run.gpu);
                }
                lane += 1;
            }
        }
        let first = loads;
        loop {
            // The lowest host byte still to load.
            let mut lowest = usize::MAX;
            let mut lane = 0;
            while lane < CHUNK {
                if from[lane] < lowest {
                    lowest = from[lane];
                }
                lane += 1;
            }
            if lowest == usize::MAX {
                break;
            }
            // The highest window start that still holds `lowest` and reads only covered bytes.
            let top = if lowest + CHUNK <= host_size {
                lowest
            } else {
                host_size - CHUNK
            };
            let bottom = lowest.saturating_sub(CHUNK - 1);
            let mut start = top + 1;
            let mut found = false;
            while start > bottom {
                start -= 1;
                if window_covered(&cover, start) {
                    found = true;
                    break;
                }
            }
            if !found || loads == MAX_LOADS {
                return table;
            }
            let mut load = NO_LOAD;
            load.host = start;
            let mut identity = true;
            let mut lane = 0;
            while lane < CHUNK {
                if from[lane] >= start && from[lane] < start + CHUNK {
                    load.control[lane] = (from[lane] - start) as u8;
                    from[lane] = usize::MAX;
                }
                if load.control[lane] as usize != lane {
                    identity = false;
                }
                lane += 1;
            }
            load.shuffle = !identity;
            table.loads[loads] = load;
            loads += 1;
        }
        table.chunks[c] = Chunk {
            first,
            count: loads - first,
        };
        c += 1;
    }
    table.count = stride / CHUNK;
    table.ok = true;
    table
}

/// The chunk plan of `T` (see the module documentation).
pub(crate) struct Chunks<T>(core::marker::PhantomData<T>);

impl<T: GpuStruct> Chunks<T> {
    /// `T`'s chunk plan, computed once.
    pub(crate) const TABLE: &'static ChunkTable = &plan_chunks(
        Runs::<T>::TABLE,
        size_of::<T>(),
        stride_of(T::FORMAT.byte_stride()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn copy(host: usize, gpu: usize, len: usize) -> FieldCopy {
        FieldCopy { host, gpu, len }
    }

    #[test]
    fn adjacent_copies_merge_into_runs_in_gpu_order() {
        // A body: the matrix's four columns (host 0.., gpu 16..), the material's two leaves
        // (host 64.., gpu 96..), mass (host 80, gpu 0), position (host 84, gpu 80).
        let copies = [
            copy(80, 0, 4),
            copy(0, 16, 16),
            copy(16, 32, 16),
            copy(32, 48, 16),
            copy(48, 64, 16),
            copy(84, 80, 12),
            copy(64, 96, 12),
            copy(76, 108, 4),
        ];
        let table = merge_runs(&copies, 96, 112);
        assert_eq!(
            table.runs().unwrap(),
            [
                copy(80, 0, 4),
                copy(0, 16, 64),
                copy(84, 80, 12),
                copy(64, 96, 16)
            ]
        );
        // Adjacent on the GPU only, or on the host only: not merged.
        let table = merge_runs(&[copy(0, 0, 4), copy(8, 4, 4), copy(4, 12, 4)], 12, 16);
        assert_eq!(table.runs().unwrap().len(), 3);
    }

    #[test]
    fn unusable_copies_make_no_plan() {
        assert!(
            merge_runs(&[copy(0, 0, 8), copy(8, 4, 4)], 12, 16)
                .runs()
                .is_none()
        );
        assert!(merge_runs(&[copy(10, 0, 4)], 12, 16).runs().is_none());
        assert!(merge_runs(&[copy(0, 14, 4)], 12, 16).runs().is_none());
        let many = [copy(0, 0, 1); MAX_RUNS + 1];
        assert!(merge_runs(&many, 4096, 4096).runs().is_none());
    }

    #[test]
    fn chunks_load_each_sixteen_bytes_once_where_the_host_bytes_are_near() {
        let copies = [
            copy(80, 0, 4),
            copy(0, 16, 64),
            copy(84, 80, 12),
            copy(64, 96, 16),
        ];
        let runs = merge_runs(&copies, 96, 112);
        let table = plan_chunks(&runs, 96, 112);
        let chunks = table.chunks().unwrap();
        assert_eq!(chunks.len(), 7);
        for chunk in chunks {
            assert_eq!(chunk.count, 1);
        }
        // Mass: loaded with the position after it (host 80..96), lane 0..4 kept.
        let mass = table.loads(&chunks[0])[0];
        assert_eq!(mass.host, 80);
        assert_eq!(&mass.control[..5], &[0, 1, 2, 3, ZERO_LANE]);
        // The matrix's columns and the material: plain loads.
        for (k, host) in [(1, 0), (2, 16), (3, 32), (4, 48), (6, 64)] {
            let load = table.loads(&chunks[k])[0];
            assert_eq!((load.host, load.shuffle), (host, false));
        }
        // The position: host 84..96 is the row's end, so the load starts at 80 and shifts.
        let position = table.loads(&chunks[5])[0];
        assert_eq!(position.host, 80);
        assert_eq!(
            &position.control[..],
            &[
                4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, ZERO_LANE, ZERO_LANE, ZERO_LANE,
                ZERO_LANE
            ]
        );
    }

    #[test]
    fn chunks_gather_from_several_loads_and_refuse_uncovered_bytes() {
        // Lanes 0..4 from host 0, lanes 4..8 from host 40: two loads.
        let runs = merge_runs(&[copy(0, 0, 4), copy(40, 4, 4)], 64, 16);
        // Host bytes 4..40 are not covered by any copy, so a window may not read them.
        let table = plan_chunks(&runs, 64, 16);
        assert!(table.chunks().is_none());
        // With host bytes 0..44 covered the chunk is two loads; the second starts at 28, the
        // highest start whose 16 bytes are all covered and hold host byte 40.
        let runs = merge_runs(&[copy(0, 0, 4), copy(40, 4, 4), copy(4, 16, 36)], 64, 80);
        let table = plan_chunks(&runs, 64, 80);
        let chunks = table.chunks().unwrap();
        let loads = table.loads(&chunks[0]);
        assert_eq!(loads.len(), 2);
        assert_eq!(loads[0].host, 0);
        assert_eq!(&loads[0].control[..5], &[0, 1, 2, 3, ZERO_LANE]);
        assert_eq!(loads[1].host, 28);
        assert_eq!(
            &loads[1].control[..9],
            &[
                ZERO_LANE, ZERO_LANE, ZERO_LANE, ZERO_LANE, 12, 13, 14, 15, ZERO_LANE
            ]
        );
        // Host 4..20 is GPU 16..32 in place: a load without a shuffle.
        assert_eq!(table.loads(&chunks[1])[0].host, 4);
        assert!(!table.loads(&chunks[1])[0].shuffle);
        // A chunk of padding only needs no load.
        assert_eq!(chunks[4].count, 0);
    }
}
