//! Prefix sums of integers (8, 16 or 32 bits, widened to 32): an exclusive scan (wrapping `u32`
//! addition, which is also two's complement `i32` addition) with the total after
//! the last element, as three kernels: per-block sums of 256 elements, the scan of those sums
//! (recursively, until one block holds them), and a per-block scan that adds each block's
//! offset. The elements are `uint32` values at a word stride, or the set bits of mask words
//! (`countOneBits`), which is how compaction counts the rows each block keeps.

use super::rows::{self, Span, WORKGROUP};
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::Dispatch;

/// Where a scan's elements are: the `unit`-byte integer (1, 2 or 4 bytes; sign-extended when
/// `signed`) at byte `offset + i × stride` of `buffer`, or the number of set bits of that word
/// (`popcount`, 4-byte units).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Words<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub offset: u64,
    pub stride: u64,
    pub unit: u64,
    pub signed: bool,
    pub popcount: bool,
}

impl<'a> Words<'a> {
    /// Packed words from byte 0 of `buffer`.
    pub(crate) fn packed(buffer: &'a wgpu::Buffer) -> Words<'a> {
        Words {
            buffer,
            offset: 0,
            stride: 4,
            unit: 4,
            signed: false,
            popcount: false,
        }
    }

    fn span(&self) -> Span<'a> {
        Span {
            buffer: self.buffer,
            offset: self.offset,
            stride: self.stride,
            row_bytes: self.unit,
        }
    }

    /// The WGSL function `elem(e)`: element `e` (relative to the run) as a `u32`, with the
    /// source's byte base `param(1u)`.
    fn load(&self) -> String {
        let value = match (self.unit, self.popcount, self.signed) {
            (4, true, _) => "countOneBits(src[a >> 2u])".to_owned(),
            (4, false, _) => "src[a >> 2u]".to_owned(),
            (bytes, _, signed) => {
                let bits = bytes * 8;
                let raw = "(src[a >> 2u] >> ((a & 3u) * 8u))";
                if signed {
                    let shift = 32 - bits;
                    format!("bitcast<u32>(bitcast<i32>({raw} << {shift}u) >> {shift}u)")
                } else {
                    format!("({raw} & {:#x}u)", (1u64 << bits) - 1)
                }
            }
        };
        format!(
            "fn elem(e: u32) -> u32 {{ let a = param(1u) + e * {}u; return {value}; }}\n",
            self.stride
        )
    }
}

const TREE: &str = "    for (var s = 128u; s > 0u; s >>= 1u) {\n\
                    \x20       if (lid < s) { acc[lid] += acc[lid + s]; }\n\
                    \x20       workgroupBarrier();\n\
                    \x20   }\n";

/// Sums of each 256 elements of `src`'s `n` into a new buffer of `ceil(n / 256)` words.
fn block_sums(
    planner: &Planner<'_>,
    op: &'static str,
    src: Words<'_>,
    n: u64,
) -> Result<(Vec<Dispatch>, wgpu::Buffer, u64), OpError> {
    let blocks = n.div_ceil(u64::from(WORKGROUP));
    let sums = rows::output_buffer(planner, op, blocks * 4)?;
    let dispatches = block_sums_into(planner, op, src, n, &sums, 0)?;
    Ok((dispatches, sums, blocks))
}

/// Sums of each 256 elements of `src`'s `n` into words `first_block..first_block + ceil(n /
/// 256)` of `sums`.
fn block_sums_into(
    planner: &Planner<'_>,
    op: &'static str,
    src: Words<'_>,
    n: u64,
    sums: &wgpu::Buffer,
    first_block: u64,
) -> Result<Vec<Dispatch>, OpError> {
    let wg = u64::from(WORKGROUP);
    let wgsl = format!(
        "{}{}{}{}var<workgroup> acc: array<u32, {WORKGROUP}>;\n\
         @compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let group = group_index(wid, nwg);\n\
         \x20   let e = group * {WORKGROUP}u + lid;\n\
         \x20   var v = 0u;\n\
         \x20   if (e < param(0u)) {{ v = elem(e); }}\n\
         \x20   acc[lid] = v;\n\
         \x20   workgroupBarrier();\n{TREE}\
         \x20   if (lid == 0u) {{ sums[param(2u) + group] = acc[0]; }}\n\
         }}\n",
        rows::header(3),
        rows::binding_decl(1, "src", "u32", false),
        rows::binding_decl(2, "sums", "u32", true),
        src.load(),
    );
    let limits = planner.device().limits();
    let align = rows::alignment(&limits);
    let out = Span::packed(sums, 4);
    let mut dispatches = Vec::new();
    for (first, count) in rows::runs(op, &limits, n, wg, &[src.span(), out], &[])? {
        let a = src.span().bind(op, first, count, align)?;
        let b = out.bind(op, first_block + first / wg, count.div_ceil(wg), align)?;
        let params = [
            rows::base32(op, count)?,
            rows::base32(op, a.base)?,
            rows::base32(op, b.base / 4)?,
        ];
        dispatches.push(rows::dispatch(
            planner,
            op,
            &wgsl,
            &params,
            &[a, b],
            count.div_ceil(wg),
        )?);
    }
    Ok(dispatches)
}

/// The exclusive scan of each 256 elements of `src` plus its block's offset (block `b`'s from
/// word `first_block + b` of `offsets`, or 0), into `out`, with the total after the last
/// element.
fn scan_blocks(
    planner: &Planner<'_>,
    op: &'static str,
    src: Words<'_>,
    n: u64,
    offsets: Option<(&wgpu::Buffer, u64)>,
    out: &wgpu::Buffer,
) -> Result<Vec<Dispatch>, OpError> {
    let wg = u64::from(WORKGROUP);
    let offset_decl = offsets.map_or(String::new(), |_| {
        rows::binding_decl(3, "offsets", "u32", false)
    });
    let base = if offsets.is_some() {
        "offsets[param(3u) + group]"
    } else {
        "0u"
    };
    let wgsl = format!(
        "{}{}{}{}{offset_decl}var<workgroup> acc: array<u32, {WORKGROUP}>;\n\
         @compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let group = group_index(wid, nwg);\n\
         \x20   let e = group * {WORKGROUP}u + lid;\n\
         \x20   let n = param(0u);\n\
         \x20   var v = 0u;\n\
         \x20   if (e < n) {{ v = elem(e); }}\n\
         \x20   acc[lid] = v;\n\
         \x20   workgroupBarrier();\n\
         \x20   for (var s = 1u; s < {WORKGROUP}u; s <<= 1u) {{\n\
         \x20       var t = acc[lid];\n\
         \x20       if (lid >= s) {{ t += acc[lid - s]; }}\n\
         \x20       workgroupBarrier();\n\
         \x20       acc[lid] = t;\n\
         \x20       workgroupBarrier();\n\
         \x20   }}\n\
         \x20   let base = {base};\n\
         \x20   if (e < n) {{ out[param(2u) + e] = base + acc[lid] - v; }}\n\
         \x20   if (e + 1u == n) {{ out[param(2u) + n] = base + acc[lid]; }}\n\
         }}\n",
        rows::header(4),
        rows::binding_decl(1, "src", "u32", false),
        rows::binding_decl(2, "out", "u32", true),
        src.load(),
    );
    let limits = planner.device().limits();
    let align = rows::alignment(&limits);
    let out_span = Span::packed(out, 4);
    let mut spans = vec![src.span(), out_span];
    if let Some((offsets, _)) = offsets {
        spans.push(Span::packed(offsets, 4));
    }
    let mut dispatches = Vec::new();
    for (first, count) in rows::runs(op, &limits, n, wg, &spans, &[])? {
        let a = src.span().bind(op, first, count, align)?;
        // The run's values and the slot after them (the total, or the next run's first value,
        // which the next dispatch writes again).
        let b = out_span.bind(op, first, count + 1, align)?;
        let mut params = vec![
            rows::base32(op, count)?,
            rows::base32(op, a.base)?,
            rows::base32(op, b.base / 4)?,
            0,
        ];
        let mut bindings = vec![a, b];
        if let Some((offsets, first_block)) = offsets {
            let c = Span::packed(offsets, 4).bind(
                op,
                first_block + first / wg,
                count.div_ceil(wg),
                align,
            )?;
            params[3] = rows::base32(op, c.base / 4)?;
            bindings.push(c);
        }
        dispatches.push(rows::dispatch(
            planner,
            op,
            &wgsl,
            &params,
            &bindings,
            count.div_ceil(wg),
        )?);
    }
    Ok(dispatches)
}

/// The exclusive prefix sum of `src`'s `n` elements into a new buffer of `n + 1` words (the
/// total last), and the dispatches that compute it, in order.
pub(crate) fn exclusive_scan(
    planner: &Planner<'_>,
    op: &'static str,
    src: Words<'_>,
    n: u64,
) -> Result<(Vec<Dispatch>, wgpu::Buffer), OpError> {
    let size = n
        .checked_add(1)
        .and_then(|w| w.checked_mul(4))
        .ok_or(OpError::Overflow { op, input: 0 })?;
    let out = rows::output_buffer(planner, op, size)?;
    if n == 0 {
        return Ok((Vec::new(), out));
    }
    if n <= u64::from(WORKGROUP) {
        return Ok((scan_blocks(planner, op, src, n, None, &out)?, out));
    }
    let (mut dispatches, sums, blocks) = block_sums(planner, op, src, n)?;
    let (inner, offsets) = exclusive_scan(planner, op, Words::packed(&sums), blocks)?;
    dispatches.extend(inner);
    dispatches.extend(scan_blocks(planner, op, src, n, Some((&offsets, 0)), &out)?);
    Ok((dispatches, out))
}

/// The exclusive prefix sum of one sequence of elements held in `pieces` (consecutive, in
/// order, each `(elements, count)` with at least one element), piece `p`'s values written into
/// `outs[p]` (`count + 1` words: its values, then the running total after its last element, so
/// the last piece ends with the total). The dispatches, in order.
///
/// The blocks of every piece (a piece's last block may be partial) are summed into one buffer
/// and scanned together, so every block's offset already holds what the pieces before it add:
/// the carry between pieces is the scan's own, computed on the GPU, and the values equal the
/// one-buffer scan's of the same elements (wrapping `u32` addition is associative).
///
/// # Errors
/// [`OpError::TooLarge`] when the block sums (one word per 256 elements of all the pieces) do
/// not fit one buffer; as [`exclusive_scan`].
pub(crate) fn exclusive_scan_pieces(
    planner: &Planner<'_>,
    op: &'static str,
    pieces: &[(Words<'_>, u64)],
    outs: &[&wgpu::Buffer],
) -> Result<Vec<Dispatch>, OpError> {
    let wg = u64::from(WORKGROUP);
    let mut firsts = Vec::with_capacity(pieces.len());
    let mut blocks = 0u64;
    for &(_, n) in pieces {
        firsts.push(blocks);
        blocks = blocks
            .checked_add(n.div_ceil(wg))
            .ok_or(OpError::Overflow { op, input: 0 })?;
    }
    let size = blocks
        .checked_mul(4)
        .ok_or(OpError::Overflow { op, input: 0 })?;
    let sums = rows::output_buffer(planner, op, size)?;
    let mut dispatches = Vec::new();
    for (&(src, n), &first) in pieces.iter().zip(&firsts) {
        dispatches.extend(block_sums_into(planner, op, src, n, &sums, first)?);
    }
    let (inner, offsets) = exclusive_scan(planner, op, Words::packed(&sums), blocks)?;
    dispatches.extend(inner);
    for ((&(src, n), &first), out) in pieces.iter().zip(&firsts).zip(outs) {
        dispatches.extend(scan_blocks(
            planner,
            op,
            src,
            n,
            Some((&offsets, first)),
            out,
        )?);
    }
    Ok(dispatches)
}

/// The rows each block of 8192 rows of a mask keeps, scanned: a buffer of `blocks + 1` words,
/// word `b` the kept rows before block `b`, the last the total. `words` mask words, 256 per
/// block.
pub(crate) fn mask_block_offsets(
    planner: &Planner<'_>,
    op: &'static str,
    mask: &wgpu::Buffer,
    words: u64,
) -> Result<(Vec<Dispatch>, wgpu::Buffer, u64), OpError> {
    let source = Words {
        buffer: mask,
        offset: 0,
        stride: 4,
        unit: 4,
        signed: false,
        popcount: true,
    };
    let (mut dispatches, sums, blocks) = block_sums(planner, op, source, words.max(1))?;
    let (inner, offsets) = exclusive_scan(planner, op, Words::packed(&sums), blocks)?;
    dispatches.extend(inner);
    Ok((dispatches, offsets, blocks))
}
