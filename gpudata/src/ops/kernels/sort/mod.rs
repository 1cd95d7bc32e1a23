//! The radix sort: a stable least-significant-digit sort of 32-bit keys in 8-bit digits, each
//! pass three steps (reduce, scan, scatter) that need no forward-progress guarantee: the
//! per-block digit histogram ([`wgsl::upsweep`]), the exclusive scan of all blocks' counts
//! ([`scan::exclusive_scan`], digit-major so that it gives every block's place for each digit),
//! and the stable scatter ([`wgsl::downsweep`]).
//!
//! Elements are up to three words: the key (mapped into an unsigned order as the first pass
//! reads it, and back as the last writes it), the segment id of a segmented sort (whose digits
//! are sorted after the key's, so segments end up in order with their keys sorted inside), and
//! a carried value or row id. Passes ping-pong between two sets of packed word buffers; the last
//! pass writes the outputs (the set it would have written, or buffers of `limit` rows for
//! top-k).
//!
//! Columns larger than one storage binding are bound in [`parts`] (runs of elements, by the
//! selection kernels' split rule; each input view its own, the packed words and outputs
//! theirs), the kernels picking the part by element index, so that a pass stays two dispatches
//! and a scan whatever the size; element indices are 32-bit (at most `u32::MAX` rows). The
//! digit histogram is kept within one binding (blocks take more tiles when it would not fit).

pub(crate) mod parts;
pub(crate) mod wgsl;

use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::Dispatch;
use crate::ops::kernels::select::rows::{self, Bound, Span, WORKGROUP};
use crate::ops::kernels::select::scan::{self, Words};
use crate::ops::kernels::split::max_binding_size;
use parts::Parts;
use wgsl::{KeyOrder, Source, Subgroups, Tiling, Word};

/// Elements each invocation ranks per tile unless
/// [`OpsConfig::rows_per_thread`](crate::ops::OpsConfig) says otherwise (1 to 32). Measured on
/// an H100 over 64M `uint32` keys: 12 sorted in 3.57 ms, 16 in 4.50, 24 in 4.01, 8 in 9.65
/// (fewer keys per tile: more of each tile's fixed work per key).
const PER_THREAD: u32 = 12;

/// Workgroups a pass aims for when the caller does not set the tiles per workgroup: one tile
/// each up to 16384 tiles (on an H100, one tile per workgroup sorted 64M key-value pairs in
/// 5.23 ms, four in 6.01 and eight in 6.13; keys alone within 4% of each other), then tiles
/// grouped so that the histogram stays at 16384 × 256 counts.
const TARGET_BLOCKS: u64 = 16384;

/// What a pass reads a word from first: an input column of 4-byte rows, or row numbers.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Input<'a> {
    Rows(Span<'a>),
    RowIds,
}

/// One sort: `rows` keys and what they carry, the rows written (`limit`), and the tuning.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Job<'a> {
    pub rows: u64,
    pub keys: Span<'a>,
    pub key: KeyOrder,
    /// Segment ids (4-byte rows) and the 8-bit digits of them to sort.
    pub segments: Option<(Input<'a>, u32)>,
    pub carried: Option<Input<'a>>,
    pub keys_out: bool,
    pub limit: u64,
    pub tiles_per_workgroup: Option<u32>,
}

/// The buffers a sort writes: `limit` packed keys (mapped back) and carried words.
pub(crate) struct Outputs {
    pub keys: Option<wgpu::Buffer>,
    pub carried: Option<wgpu::Buffer>,
}

/// The tiling for `planner`'s device: subgroups where the device has them and the tuning
/// allows, elements per invocation halved until the downsweep's workgroup memory fits the
/// device (then without subgroups, whose counters take room).
///
/// # Errors
/// [`OpError::TooLarge`] when not even one element per invocation fits.
fn tiling(planner: &Planner<'_>, op: &'static str) -> Result<Tiling, OpError> {
    let gpu = planner.gpu();
    let config = planner.config();
    let limit = u64::from(planner.device().limits().max_compute_workgroup_storage_size);
    let wanted = config
        .rows_per_thread
        .map_or(PER_THREAD, |r| r.clamp(1, 32));
    let subgroups = planner.subgroups().then(|| {
        let info = gpu.adapter_info();
        Subgroups {
            most: WORKGROUP / info.subgroup_min_size.clamp(4, WORKGROUP),
            // Ballots in one word where no subgroup has more than 32 lanes (NVIDIA's 32,
            // lavapipe's 8), else in four.
            lanes: if info.subgroup_max_size <= 32 {
                32
            } else {
                128
            },
        }
    });
    let mut tried = Tiling {
        per_thread: 1,
        subgroups: None,
    };
    for subgroups in [subgroups, None] {
        let mut per_thread = wanted;
        loop {
            tried = Tiling {
                per_thread,
                subgroups,
            };
            if tried.workgroup_bytes() <= limit {
                return Ok(tried);
            }
            if per_thread == 1 {
                break;
            }
            per_thread /= 2;
        }
    }
    Err(OpError::TooLarge {
        op,
        what: "workgroup storage",
        size: tried.workgroup_bytes(),
        limit,
    })
}

/// The first `rows` words of `buffer`, bound.
fn bind_words(buffer: &wgpu::Buffer, rows: u64, align: u64) -> Bound<'_> {
    rows::bind(buffer, 0, rows * 4, align)
}

/// One pass: the word whose digit it sorts by and the digit's shift.
#[derive(Clone, Copy, Debug)]
struct Pass {
    word: usize,
    shift: u32,
}

/// The dispatches of `job` and the buffers they write. No rows: no dispatches, empty outputs.
///
/// # Errors
/// [`OpError::TooLarge`] for a buffer over the device's limits (or not even one alignment step
/// of rows in a binding), [`OpError::TooManyBindings`] for more binding parts than a kernel may
/// bind, [`OpError::Overflow`], [`OpError::DispatchTooLarge`], [`OpError::Gpu`].
pub(crate) fn plan(
    planner: &Planner<'_>,
    op: &'static str,
    job: &Job<'_>,
) -> Result<(Vec<Dispatch>, Outputs), OpError> {
    let n = job.rows;
    let overflow = OpError::Overflow { op, input: 0 };
    let mut inputs = vec![Input::Rows(job.keys)];
    let mut passes: Vec<Pass> = (0..4)
        .map(|d| Pass {
            word: 0,
            shift: 8 * d,
        })
        .collect();
    if let Some((segments, digits)) = job.segments {
        inputs.push(segments);
        let word = inputs.len() - 1;
        passes.extend((0..digits).map(|d| Pass { word, shift: 8 * d }));
    }
    let carried = job.carried.map(|input| {
        inputs.push(input);
        inputs.len() - 1
    });
    let stored = |i: usize| (i == 0 && job.keys_out) || Some(i) == carried;
    let limit_bytes = job.limit.checked_mul(4).ok_or(overflow.clone())?;
    if n == 0 || job.limit == 0 {
        let empty = || rows::output_buffer(planner, op, 0);
        let outputs = Outputs {
            keys: job.keys_out.then(empty).transpose()?,
            carried: carried.map(|_| empty()).transpose()?,
        };
        return Ok((Vec::new(), outputs));
    }
    let limits = planner.device().limits();
    let align = rows::alignment(&limits);
    let tiling = tiling(planner, op)?;
    let tile = u64::from(tiling.tile());
    let tiles = n.div_ceil(tile);
    // The histogram (256 counts a block) stays within one binding.
    let most_blocks = (max_binding_size(&limits).saturating_sub(align + 16) / 1024).max(1);
    let per_block = job
        .tiles_per_workgroup
        .map_or_else(|| tiles.div_ceil(TARGET_BLOCKS), u64::from)
        .max(tiles.div_ceil(most_blocks))
        .clamp(1, tiles);
    let blocks = tiles.div_ceil(per_block);
    let counts = blocks.checked_mul(256).ok_or(overflow.clone())?;
    let hist = rows::output_buffer(planner, op, counts * 4)?;
    let word_bytes = n.checked_mul(4).ok_or(overflow)?;
    let mut sets: [Vec<wgpu::Buffer>; 2] = [Vec::new(), Vec::new()];
    for set in &mut sets {
        for _ in &inputs {
            set.push(rows::output_buffer(planner, op, word_bytes)?);
        }
    }
    let last = passes.len() - 1;
    let finals: Vec<Option<wgpu::Buffer>> = (0..inputs.len())
        .map(|i| match (stored(i), job.limit == n) {
            (false, _) => Ok(None),
            (true, true) => Ok(Some(sets[last % 2][i].clone())),
            (true, false) => rows::output_buffer(planner, op, limit_bytes).map(Some),
        })
        .collect::<Result<_, _>>()?;
    // The parts of each input view, and those of the sort's packed words (and outputs).
    let input_parts: Vec<Option<Parts>> = inputs
        .iter()
        .map(|input| match input {
            Input::Rows(span) => Parts::of(op, &limits, n, &[*span]).map(Some),
            Input::RowIds => Ok(None),
        })
        .collect::<Result<_, _>>()?;
    let packed = Parts::of(op, &limits, n, &[Span::packed(&sets[0][0], 4)])?;
    let mut dispatches = Vec::new();
    for (p, pass) in passes.iter().enumerate() {
        let words: Vec<Word> = inputs
            .iter()
            .enumerate()
            .map(|(i, input)| Word {
                source: match (p, input) {
                    (0, Input::Rows(span)) => Source::Strided {
                        stride: span.stride,
                        aligned: span.offset.is_multiple_of(4) && span.stride.is_multiple_of(4),
                    },
                    (0, Input::RowIds) => Source::RowId,
                    _ => Source::Packed,
                },
                key_in: p == 0 && i == 0,
                store: p != last || stored(i),
                key_out: p == last && i == 0,
            })
            .collect();
        // Each source's parts and their bindings.
        let mut sources: Vec<Option<(&Parts, Vec<Bound<'_>>)>> = Vec::with_capacity(inputs.len());
        for (i, input) in inputs.iter().enumerate() {
            sources.push(match (p, input, &input_parts[i]) {
                (0, Input::Rows(span), Some(parts)) => {
                    Some((parts, parts.bind(op, *span, n, align)?))
                }
                (0, _, _) => None,
                _ => {
                    let words = Span::packed(&sets[(p - 1) % 2][i], 4);
                    Some((&packed, packed.bind(op, words, n, align)?))
                }
            });
        }
        let [a, b, c, d] = job.key.masks();
        let head = vec![
            rows::base32(op, n)?,
            rows::base32(op, per_block)?,
            pass.shift,
            rows::base32(op, blocks)?,
            a,
            b,
            c,
            d,
            rows::base32(op, if p == last { job.limit } else { n })?,
        ];
        // The upsweep of the pass's digit word.
        let mut params = head.clone();
        let mut bindings = vec![bind_words(&hist, counts, align)];
        let mut digit_parts = 1;
        if let Some((parts, bound)) = &sources[pass.word] {
            params.extend(parts.params(op, bound)?);
            bindings.extend(bound);
            digit_parts = parts.count();
        }
        dispatches.push(rows::dispatch(
            planner,
            op,
            &wgsl::upsweep(&words[pass.word], tiling, digit_parts),
            &params,
            &bindings,
            blocks,
        )?);
        let (scan, scanned) = scan::exclusive_scan(planner, op, Words::packed(&hist), counts)?;
        dispatches.extend(scan);
        // The downsweep.
        let mut params = head;
        let mut bindings = vec![bind_words(&scanned, counts, align)];
        let mut slots = Vec::new();
        for (parts, bound) in sources.iter().flatten() {
            params.extend(parts.params(op, bound)?);
            bindings.extend(bound);
            slots.push(parts.count());
        }
        for (i, word) in words.iter().enumerate() {
            if !word.store {
                continue;
            }
            let bound = match &finals[i] {
                Some(out) if p == last => {
                    packed.bind(op, Span::packed(out, 4), job.limit, align)?
                }
                _ => packed.bind(op, Span::packed(&sets[p % 2][i], 4), n, align)?,
            };
            params.extend(packed.params(op, &bound)?);
            bindings.extend(bound);
            slots.push(packed.count());
        }
        dispatches.push(rows::dispatch(
            planner,
            op,
            &wgsl::downsweep(&words, pass.word, tiling, &slots),
            &params,
            &bindings,
            blocks,
        )?);
    }
    let mut finals = finals;
    let outputs = Outputs {
        keys: finals[0].take(),
        carried: carried.and_then(|w| finals[w].take()),
    };
    Ok((dispatches, outputs))
}
