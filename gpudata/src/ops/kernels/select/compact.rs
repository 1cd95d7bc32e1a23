//! Stream compaction: the rows a mask keeps, of several row sources at once, written packed and
//! in their order into new buffers, in one pass over the sources.
//!
//! A workgroup handles a block of 8192 rows (256 mask words): it scans its words' bit counts in
//! workgroup memory, adds the block's offset (from [`scan`](super::scan)'s block offsets) and
//! copies every kept row of every source to its place. In each of its 32 steps the workgroup
//! handles 256 consecutive rows, so loads and stores of a warp are consecutive. That kernel
//! moves rows of whole words or vectors; each source of sub-word rows (bytes that do not fill
//! whole output words) is compacted by [`subword`]'s kernels instead, which store whole words.

use super::rows::{self, RowCopy, Span, WORKGROUP};
use super::{packed, subword};
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::Dispatch;
use crate::ops::kernels::split::max_binding_size;

/// Rows per workgroup: 32 per invocation.
pub(crate) const BLOCK_ROWS: u64 = 32 * WORKGROUP as u64;

/// One source of a compaction: its rows, and the stride of its output rows (at least its row
/// bytes: struct rows keep their padding).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Source<'a> {
    pub rows: Span<'a>,
    pub out_stride: u64,
}

/// The copy of each source: its rows' bytes, at the output's stride.
fn copies(sources: &[Source<'_>]) -> Vec<RowCopy> {
    sources
        .iter()
        .map(|s| {
            let r = s.rows;
            match RowCopy::choose(r.row_bytes, r.offset, r.stride) {
                RowCopy::Chunks(n) if s.out_stride.is_multiple_of(16) => RowCopy::Chunks(n),
                RowCopy::Chunks(_) | RowCopy::Words(_) if s.out_stride.is_multiple_of(4) => {
                    RowCopy::Words(r.row_bytes / 4)
                }
                _ => RowCopy::Bytes(r.row_bytes),
            }
        })
        .collect()
}

fn kernel(sources: &[Source<'_>]) -> String {
    let copies = copies(sources);
    let count = sources.len();
    let mut wgsl = rows::header(4 + 2 * count);
    wgsl += &rows::binding_decl(1, "mask", "u32", false);
    wgsl += &rows::binding_decl(2, "offsets", "u32", false);
    for (s, copy) in copies.iter().enumerate() {
        wgsl += &rows::binding_decl(3 + s, &format!("src{s}"), copy.source_element(), false);
        wgsl += &rows::binding_decl(
            3 + count + s,
            &format!("out{s}"),
            copy.output_element(),
            true,
        );
    }
    // Rows are handled `unroll` at a time: every word and chunk of them is loaded first (rows
    // past the run as its last row), so the loads of an invocation are in flight together; the
    // kept ones are then stored. Byte-wise sources load inside the store.
    let hoisted: u64 = copies
        .iter()
        .map(|c| match c {
            RowCopy::Chunks(n) | RowCopy::Words(n) => *n,
            RowCopy::Bytes(_) => 0,
        })
        .sum();
    let unroll = match hoisted {
        0..=4 => 8,
        5..=8 => 4,
        9..=16 => 2,
        _ => 1,
    };
    let mut loads = String::new();
    let mut stores = String::new();
    for j in 0..unroll {
        loads += &format!(
            "        let local{j} = (k + {j}u) * {WORKGROUP}u + lid;\n\
             \x20       let word{j} = words[local{j} >> 5u];\n\
             \x20       let bit{j} = local{j} & 31u;\n\
             \x20       let row{j} = min(group * {BLOCK_ROWS}u + local{j}, n - 1u);\n"
        );
        let mut store = String::new();
        for (s, (source, copy)) in sources.iter().zip(&copies).enumerate() {
            let sa = format!("sa{s}_{j}");
            let src_addr = format!("param({}u) + row{j} * {}u", 4 + s, source.rows.stride);
            store += &format!(
                "            let da{s} = param({}u) + dst * {}u;\n",
                4 + count + s,
                source.out_stride
            );
            match copy {
                RowCopy::Chunks(n) | RowCopy::Words(n) => {
                    let shift = if matches!(copy, RowCopy::Chunks(_)) {
                        4
                    } else {
                        2
                    };
                    loads += &format!("        let {sa} = {src_addr};\n");
                    for i in 0..*n {
                        loads += &format!(
                            "        let v{s}_{j}_{i} = src{s}[({sa} >> {shift}u) + {i}u];\n"
                        );
                        store += &format!(
                            "            out{s}[(da{s} >> {shift}u) + {i}u] = v{s}_{j}_{i};\n"
                        );
                    }
                }
                // Sub-word sources have kernels of their own (`plan` never passes one here).
                RowCopy::Bytes(_) => {}
            }
        }
        stores += &format!(
            "        if (((word{j} >> bit{j}) & 1u) == 1u) {{\n\
             \x20           let dst = block + pre[local{j} >> 5u] - countOneBits(word{j}) + countOneBits(word{j} & ((1u << bit{j}) - 1u));\n\
             {store}\
             \x20       }}\n"
        );
    }
    wgsl += &format!(
        "var<workgroup> words: array<u32, {WORKGROUP}>;\n\
         var<workgroup> pre: array<u32, {WORKGROUP}>;\n\
         @compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         {scan}\
         \x20   let block = offsets[param(2u) + group] - param(3u);\n\
         \x20   for (var k = 0u; k < 32u; k += {unroll}u) {{\n\
         {loads}{stores}\
         \x20   }}\n\
         }}\n",
        scan = block_scan()
    );
    wgsl
}

/// The start of both compaction kernels: `group` (the block), `n` (rows of the run), the
/// block's 256 mask words (bits past `n` cleared) in `words` and their inclusive prefix counts
/// in `pre`.
fn block_scan() -> String {
    block_words() + &block_counts()
}

/// The first part of [`block_scan`]: `group`, `n`, and the invocation's mask word in `w` and
/// `words[lid]`.
fn block_words() -> String {
    format!(
        "    let group = group_index(wid, nwg);\n\
         \x20   let n = param(0u);\n\
         \x20   let wi = group * {WORKGROUP}u + lid;\n\
         \x20   var w = 0u;\n\
         \x20   if (wi * 32u < n) {{\n\
         \x20       w = mask[param(1u) + wi];\n\
         \x20       let left = n - wi * 32u;\n\
         \x20       if (left < 32u) {{ w &= (1u << left) - 1u; }}\n\
         \x20   }}\n\
         \x20   words[lid] = w;\n"
    )
}

/// The rest of [`block_scan`]: the inclusive prefix counts of `words` in `pre`, in workgroup
/// memory.
fn block_counts() -> String {
    format!(
        "    pre[lid] = countOneBits(w);\n\
         \x20   workgroupBarrier();\n\
         \x20   for (var s = 1u; s < {WORKGROUP}u; s <<= 1u) {{\n\
         \x20       var t = pre[lid];\n\
         \x20       if (lid >= s) {{ t += pre[lid - s]; }}\n\
         \x20       workgroupBarrier();\n\
         \x20       pre[lid] = t;\n\
         \x20       workgroupBarrier();\n\
         \x20   }}\n"
    )
}

/// The compaction dispatches: rows `0..length` of `sources`, kept by `mask` (words, scanned
/// into `offsets` by [`scan::mask_block_offsets`](super::scan::mask_block_offsets)), into
/// `outputs` (packed rows of each source's `row_bytes`, zeroed). `kept_before(b)` is the word
/// `b` of `offsets` (the rows kept before block `b`), read back by the caller for the first
/// block of every run.
///
/// Sources whose rows move as whole words or vectors share one kernel; each source of sub-word
/// rows has its own ([`subword`]): per run a dispatch over its blocks and, where block
/// boundaries can fall inside a word, the edge pass after it.
#[allow(clippy::too_many_arguments)] // One private call site.
pub(crate) fn plan(
    planner: &Planner<'_>,
    op: &'static str,
    mask: &wgpu::Buffer,
    offsets: &wgpu::Buffer,
    sources: &[Source<'_>],
    outputs: &[wgpu::Buffer],
    length: u64,
    kept_before: &dyn Fn(u64) -> Option<u64>,
) -> Result<Vec<Dispatch>, OpError> {
    if length == 0 || sources.is_empty() {
        return Ok(Vec::new());
    }
    let copies = copies(sources);
    let (mut wide, mut wide_outputs, mut subs) = (Vec::new(), Vec::new(), Vec::new());
    let all_blocks = length.div_ceil(BLOCK_ROWS);
    let limits = planner.device().limits();
    for ((source, output), copy) in sources.iter().zip(outputs).zip(&copies) {
        if let RowCopy::Bytes(_) = copy {
            let r = source.rows;
            let shape = subword::Shape {
                out_stride: source.out_stride,
                row_bytes: r.row_bytes,
                src_stride: r.stride,
                unit: subword::unit(&[source.out_stride, r.row_bytes, r.offset, r.stride]),
            };
            let per_step = subword::words_per_invocation(&planner.config(), 2);
            let main = subword::compact_kernel(shape, &block_scan(), per_step);
            let tiling = packed::Tiling::choose(&planner.config(), shape.out_stride, &limits);
            let fast = (planner.config().stage_outputs
                && packed::fits(shape, r.offset, r.buffer.size(), tiling, &limits))
            .then(|| {
                let scan = packed::Scan {
                    words: block_words(),
                    counts: block_counts(),
                    subgroups: planner.subgroups(),
                };
                packed::compact_kernel(shape, &scan, tiling)
            });
            let edge = shape
                .has_edges()
                .then(|| subword::compact_edge_kernel(shape));
            let ends = rows::output_buffer(planner, op, all_blocks * 8)?;
            subs.push((source, output, main, fast, edge, ends));
        } else {
            wide.push(*source);
            wide_outputs.push(output);
        }
    }
    let wgsl = (!wide.is_empty()).then(|| kernel(&wide));
    let align = rows::alignment(&limits);
    let spans: Vec<Span<'_>> = sources.iter().map(|s| s.rows).collect();
    let runs = rows::runs(op, &limits, length, BLOCK_ROWS, &spans, &[mask])?;
    let mut dispatches = Vec::with_capacity(runs.len());
    for (i, &(first, n)) in runs.iter().enumerate() {
        let block = first / BLOCK_ROWS;
        let blocks = n.div_ceil(BLOCK_ROWS);
        let before = kept_before(block).ok_or(OpError::Overflow { op, input: 0 })?;
        let after = match runs.get(i + 1) {
            Some(&(next, _)) => kept_before(next / BLOCK_ROWS),
            None => kept_before(length.div_ceil(BLOCK_ROWS)),
        }
        .ok_or(OpError::Overflow { op, input: 0 })?;
        let kept = after.saturating_sub(before);
        let mask_from = first / 32 * 4;
        let m = rows::bind(mask, mask_from, mask_from + n.div_ceil(32) * 4, align);
        let o = Span::packed(offsets, 4).bind(op, block, blocks, align)?;
        let head = [
            rows::base32(op, n)?,
            rows::base32(op, m.base / 4)?,
            rows::base32(op, o.base / 4)?,
            rows::base32(op, before)?,
        ];
        if let Some(wgsl) = &wgsl {
            let mut params = head.to_vec();
            let mut bindings = vec![m, o];
            let mut outs = Vec::with_capacity(wide.len());
            for (source, output) in wide.iter().zip(&wide_outputs) {
                let b = source.rows.bind(op, first, n, align)?;
                params.push(rows::base32(op, b.base)?);
                bindings.push(b);
                let d = Span::packed(output, source.out_stride).bind(op, before, kept, align)?;
                outs.push(d);
            }
            for d in outs {
                params.push(rows::base32(op, d.base)?);
                bindings.push(d);
            }
            dispatches.push(rows::dispatch(
                planner, op, wgsl, &params, &bindings, blocks,
            )?);
        }
        for (source, output, main, fast, edge, ends) in &subs {
            let mut b = source.rows.bind(op, first, n, align)?;
            let mut main = main;
            if let Some(fast) = fast {
                // The packed kernel reads `vec4<u32>`s: the binding ends at a multiple of 16
                // bytes (inside the buffer, whose size is one), when that still fits.
                let r = source.rows;
                let overflow = OpError::Overflow { op, input: 0 };
                let from = first
                    .checked_mul(r.stride)
                    .and_then(|b| b.checked_add(r.offset))
                    .ok_or(overflow.clone())?;
                let to = n
                    .checked_mul(r.stride)
                    .and_then(|b| b.checked_add(from)?.checked_next_multiple_of(16))
                    .ok_or(overflow)?;
                let wide = rows::bind(r.buffer, from, to, align);
                if wide.binding.size <= max_binding_size(&limits) {
                    (b, main) = (wide, fast);
                }
            }
            let d = Span::packed(output, source.out_stride).bind(op, before, kept, align)?;
            let e = Span::packed(ends, 8).bind(op, block, blocks, align)?;
            let mut params = head.to_vec();
            params.extend([
                rows::base32(op, b.base)?,
                rows::base32(op, d.base)?,
                rows::base32(op, e.base / 4)?,
            ]);
            dispatches.push(rows::dispatch(
                planner,
                op,
                main,
                &params,
                &[m, o, b, d, e],
                blocks,
            )?);
            if let Some(edge) = edge {
                // The block offsets of every boundary of the run, its end's included.
                let all = Span::packed(offsets, 4).bind(op, block, blocks + 1, align)?;
                let params = [
                    rows::base32(op, blocks)?,
                    rows::base32(op, all.base / 4)?,
                    rows::base32(op, before)?,
                    rows::base32(op, d.base)?,
                    rows::base32(op, kept)?,
                    rows::base32(op, e.base / 4)?,
                ];
                dispatches.push(rows::dispatch(
                    planner,
                    op,
                    edge,
                    &params,
                    &[all, e, d],
                    (blocks + 1).div_ceil(u64::from(WORKGROUP)),
                )?);
            }
        }
    }
    Ok(dispatches)
}

/// Runs of rows the compaction of `sources` dispatches (for the caller to read back the block
/// offsets it needs: one run needs only the total).
pub(crate) fn run_count(
    op: &'static str,
    limits: &wgpu::Limits,
    length: u64,
    sources: &[Source<'_>],
    mask: &wgpu::Buffer,
) -> Result<usize, OpError> {
    let spans: Vec<Span<'_>> = sources.iter().map(|s| s.rows).collect();
    Ok(rows::runs(op, limits, length, BLOCK_ROWS, &spans, &[mask])?.len())
}
