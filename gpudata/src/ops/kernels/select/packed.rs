//! Compaction and gather of packed one- and two-byte rows (`uint8`, `uint16`, `unorm8x2`, …
//! read at their own stride): the fast paths of [`subword`](super::subword)'s kernels.
//!
//! **Compaction** (sources at a 16-byte aligned offset of a buffer sized in 16 bytes).
//! A workgroup's block of 8192 rows is `512 × s` source vectors (16 bytes, `16 / s` rows);
//! each invocation takes groups of `g` consecutive ones (default 1, `OpsConfig::rows_per_thread`
//! 1, 2 or 4 up to one mask word's rows), group `k × 256 + lid` in step `k`, so that the loads
//! of a subgroup are consecutive vectors and their outputs lie side by side. All the loads are
//! issued before the block scan. A group's place in the block's output is the scan of mask
//! word counts at its word, less the kept rows at and above its first bit; it squeezes the
//! kept rows of each source word out with bit operations (no loops over rows, no search) and
//! appends them, a whole word at a time, at its place in a workgroup-memory copy of the
//! block's output bytes, with `atomicOr` in workgroup memory, since the first and last word a
//! group fills can be shared with its neighbours. The workgroup then stores every output word
//! wholly inside its range with plain stores, and its first and last four bytes to the side
//! buffer of [`subword`](super::subword)'s edge pass, which writes the words two blocks share,
//! as for the general kernel.
//!
//! **Gather** (by packed 4-byte indices at a 16-byte aligned offset): each invocation loads
//! its indices four at a time, then the source word of each of its rows, then stores its
//! consecutive output words whole.

use super::rows::WORKGROUP;
use super::subword::Shape;
use crate::data::GpuDataView;
use crate::format::codec::unit_byte_length;

/// How the compaction kernel splits a block: `group` consecutive source vectors (16 bytes) an
/// invocation's group (1, 2 or 4, at most `2 × s` for rows of `s` bytes: one mask word's rows),
/// and `phase` steps of 256 groups put in the workgroup copy before it is stored (the block's
/// `2 × s / group` steps divided into phases).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tiling {
    pub group: u32,
    pub phase: u32,
}

impl Tiling {
    /// Words of the workgroup copy: one phase's `1024 × group × phase` words, plus the bytes
    /// before its start in its first word and one word of slack for the last.
    fn stage_words(self) -> u64 {
        1024 * u64::from(self.group) * u64::from(self.phase) + 2
    }

    /// Workgroup memory the kernel uses: the copy, the block scan (with subgroups, their sums
    /// and a flag) and the block's end words.
    fn storage_bytes(self) -> u64 {
        self.stage_words() * 4 + 2 * 4 * u64::from(WORKGROUP) + 4 * (SUBGROUPS + 1) + 16
    }

    /// The tiling for rows of `s` (1 or 2) bytes under `config` on a device of `limits`:
    /// `rows_per_thread` 1, 2 or 4 sets the group's vectors (rounded down to a power of two,
    /// at most `2 × s`), the whole block in one phase; 8, 16 or 32, groups of one vector and
    /// phases of that many rows an invocation (32: the whole block). By default one vector a
    /// group (the loads of a subgroup are then consecutive vectors, and its outputs side by
    /// side) and one step a phase: the smallest copy, so the most workgroups at once. On an
    /// H100 that took `uint8` from 0.277 to 0.248 ms and `uint16` from 0.333 to 0.215 ms
    /// against the whole block (256M and 128M rows, half kept; BENCHMARKS.md, session 12).
    pub(crate) fn choose(config: &crate::ops::OpsConfig, s: u64, limits: &wgpu::Limits) -> Self {
        let most = u32::try_from(2 * s).unwrap_or(2);
        let (group, rows) = match config.rows_per_thread {
            Some(r @ 1..=4) => (1 << r.min(most).ilog2(), 32),
            Some(r) if r >= 8 => (1, r.min(32)),
            _ => (1, 0),
        };
        let steps = most / group;
        // Rows an invocation takes a step: 16 × group / s.
        let per_step = 32 * group / most;
        let mut phase = 1 << (rows / per_step).clamp(1, steps).ilog2();
        let fits =
            |t: Tiling| t.storage_bytes() <= u64::from(limits.max_compute_workgroup_storage_size);
        while phase > 1 && !fits(Tiling { group, phase }) {
            phase /= 2;
        }
        Tiling { group, phase }
    }
}

/// Whether a compaction source of `shape`, at byte `offset` of a buffer of `buffer_size` bytes,
/// takes this kernel with `tiling`: packed rows of 1 or 2 bytes, 16-byte aligned (the source is
/// then bound as `vec4<u32>`s to a 16-byte end), and the copy fits `limits`' workgroup memory.
pub(crate) fn fits(
    shape: Shape,
    offset: u64,
    buffer_size: u64,
    tiling: Tiling,
    limits: &wgpu::Limits,
) -> bool {
    let s = shape.out_stride;
    matches!(s, 1 | 2)
        && shape.row_bytes == s
        && shape.src_stride == s
        && offset.is_multiple_of(16)
        && buffer_size.is_multiple_of(16)
        && tiling.storage_bytes() <= u64::from(limits.max_compute_workgroup_storage_size)
}

/// `pack(x, n)`: the rows of source word `x` that the low mask bits `n` keep (one per row),
/// moved down to its low bytes in order, the bytes above them zero.
fn pack_fn(s: u64) -> &'static str {
    if s == 1 {
        // Clear the dropped bytes, close the gap inside each half, then join the halves.
        "fn pack(x: u32, n: u32) -> u32 {\n\
         \x20   let y = x & (((n * 0x204081u) & 0x01010101u) * 0xffu);\n\
         \x20   var lo = y & 0xffffu;\n\
         \x20   var hi = y >> 16u;\n\
         \x20   lo = select(lo >> 8u, lo, (n & 1u) != 0u);\n\
         \x20   hi = select(hi >> 8u, hi, (n & 4u) != 0u);\n\
         \x20   return lo | (hi << (countOneBits(n & 3u) * 8u));\n\
         }\n"
    } else {
        "fn pack(x: u32, n: u32) -> u32 {\n\
         \x20   let y = x & (((n & 1u) | ((n & 2u) << 15u)) * 0xffffu);\n\
         \x20   return select(y >> 16u, y, (n & 1u) != 0u);\n\
         }\n"
    }
}

/// The most subgroups the subgroup scan sums (of 4 invocations or more).
const SUBGROUPS: u64 = WORKGROUP as u64 / 4;

/// The block scan of the compaction kernel (the contract of `compact`'s `block_scan`: `group`,
/// `n`, the block's mask words in `words`, their inclusive prefix counts in `pre`), in two
/// parts: `words` loads the mask words, `counts` scans them in workgroup memory. With
/// `subgroups` (the device has them and the tuning allows them) the kernel scans them as
/// [`subgroup_counts`] does instead of `counts`.
pub(crate) struct Scan {
    pub words: String,
    pub counts: String,
    pub subgroups: bool,
}

/// The counts of the block scan with subgroup operations: each subgroup scans its words'
/// counts (`subgroupInclusiveAdd`), its last lane leaves the total in `sums`, and each
/// invocation adds the totals of the subgroups before its own: three barriers instead of the
/// 17 of the workgroup-memory scan. That reading needs invocation `lid` to be lane `sid` of
/// subgroup `sg`, in full subgroups of 4 or more, which Vulkan does not promise: where any
/// invocation finds otherwise, every invocation sums the counts of the words up to its own
/// instead (slow, but right).
fn subgroup_counts() -> String {
    format!(
        "    if (lid == 0u) {{ atomicStore(&mixed, 0u); }}\n\
         \x20   let inclusive = subgroupInclusiveAdd(countOneBits(w));\n\
         \x20   workgroupBarrier();\n\
         \x20   if (lid != sg * ss + sid || nsg * ss != {WORKGROUP}u || ss < 4u) {{ atomicStore(&mixed, 1u); }}\n\
         \x20   if (sid + 1u == ss) {{ sums[sg % {SUBGROUPS}u] = inclusive; }}\n\
         \x20   workgroupBarrier();\n\
         \x20   var p = inclusive;\n\
         \x20   if (atomicLoad(&mixed) == 0u) {{\n\
         \x20       for (var i = 0u; i < sg; i++) {{ p += sums[i]; }}\n\
         \x20   }} else {{\n\
         \x20       p = 0u;\n\
         \x20       for (var i = 0u; i <= lid; i++) {{ p += countOneBits(words[i]); }}\n\
         \x20   }}\n\
         \x20   pre[lid] = p;\n\
         \x20   workgroupBarrier();\n"
    )
}

/// The compaction kernel for packed rows of `shape.out_stride` (1 or 2) bytes, with the
/// parameters and bindings of [`subword::compact_kernel`](super::subword::compact_kernel)
/// except that the source is `vec4<u32>`s (its byte base a multiple of 16); `scan` is the
/// block scan (see [`Scan`]).
/// The block's `512 × s` source vectors are taken in groups of `group` consecutive ones (1, 2
/// or 4, at most `2 × s`), group `k × 256 + lid` by invocation `lid` in step `k`: with one
/// vector a group, the loads of consecutive invocations are consecutive vectors, and so are
/// their outputs. Each step's output goes through the workgroup-memory copy on its own.
pub(crate) fn compact_kernel(shape: Shape, scan: &Scan, tiling: Tiling) -> String {
    let s = shape.out_stride;
    let rows_per_word = 4 / s;
    let row_mask = (1u32 << rows_per_word) - 1;
    let group = u64::from(tiling.group);
    let phase = u64::from(tiling.phase);
    let steps = 2 * s / group;
    let rows = 16 * group / s;
    let group_mask = if rows == 32 {
        u32::MAX
    } else {
        (1u32 << rows) - 1
    };
    let vectors = 512 * s;
    let stage = tiling.stage_words();
    let wg = u64::from(WORKGROUP);
    // `words`, `pre` (the scan), `stage` (each phase) and `edges` are written before they are
    // read: no zeroing of the workgroup's memory ahead of the kernel.
    let mut wgsl = crate::device::pipelines::UNINIT_WORKGROUP.to_owned();
    wgsl += &super::rows::header(7);
    wgsl += &super::rows::binding_decl(1, "mask", "u32", false);
    wgsl += &super::rows::binding_decl(2, "offsets", "u32", false);
    wgsl += &super::rows::binding_decl(3, "src", "vec4<u32>", false);
    wgsl += &super::rows::binding_decl(4, "out", "u32", true);
    wgsl += &super::rows::binding_decl(5, "ends", "u32", true);
    wgsl += pack_fn(s);
    let (scan, sub_decls, builtins) = if scan.subgroups {
        (
            scan.words.clone() + &subgroup_counts(),
            format!(
                "var<workgroup> sums: array<u32, {SUBGROUPS}>;\n\
                 var<workgroup> mixed: atomic<u32>;\n"
            ),
            ",\n        @builtin(subgroup_invocation_id) sid: u32, @builtin(subgroup_size) ss: u32,\n\
             \x20       @builtin(subgroup_id) sg: u32, @builtin(num_subgroups) nsg: u32",
        )
    } else {
        (scan.words.clone() + &scan.counts, String::new(), "")
    };
    wgsl += &format!(
        "var<workgroup> words: array<u32, {WORKGROUP}>;\n\
         var<workgroup> pre: array<u32, {WORKGROUP}>;\n\
         var<workgroup> stage: array<atomic<u32>, {stage}>;\n\
         // The block's output words 0 and 1 and the two holding its last four bytes.\n\
         var<workgroup> edges: array<u32, 4>;\n\
         {sub_decls}\
         // The four bytes from byte `sh / 8` of `a`, then `c`.\n\
         fn join(a: u32, c: u32, sh: u32) -> u32 {{\n\
         \x20   return (a >> sh) | select(0u, c << (32u - sh), sh != 0u);\n\
         }}\n"
    );
    // Each group's source words, lowest row first, appended one by one: `lo` holds the bytes
    // of block output word `wp` from bit 0 to `fb`; a full word goes to the stage, whose word 0
    // is block word `sb`.
    let (mut decls, mut loads, mut body) = (String::new(), String::new(), String::new());
    let mut steps_text = Vec::new();
    for k in 0..steps {
        let mut load = String::new();
        for v in 0..group {
            decls += &format!("    var c{k}_{v} = vec4<u32>();\n");
            load += &format!("            c{k}_{v} = src[at + {v}u];\n");
        }
        loads += &format!(
            "    {{\n\
             \x20       let at = (param(4u) >> 4u) + blk * {vectors}u + ({}u + lid) * {group}u;\n\
             \x20       if (blk * {block}u + ({}u + lid) * {rows}u < param(0u)) {{\n\
             {load}\
             \x20       }}\n\
             \x20   }}\n",
            k * wg,
            k * wg,
            block = 32 * wg,
        );
        let mut append = String::new();
        for j in 0..group * 4 {
            let shift = j * rows_per_word;
            append += &format!(
                "            {{\n\
                 \x20               let k = (m >> {shift}u) & {row_mask}u;\n\
                 \x20               let r = pack(c{k}_{}.{}, k);\n\
                 \x20               lo |= r << fb;\n\
                 \x20               let hi = select(0u, r >> (32u - fb), fb != 0u);\n\
                 \x20               fb += countOneBits(k) * {bits}u;\n\
                 \x20               if (fb >= 32u) {{ atomicOr(&stage[wp - sb], lo); wp += 1u; lo = hi; fb -= 32u; }}\n\
                 \x20           }}\n",
                j / 4,
                ["x", "y", "z", "w"][(j % 4) as usize],
                bits = 8 * s,
            );
        }
        // The group's place: the kept rows before its first, in the block's output (from byte
        // x0 & 3). A group that keeps none appends nothing (its last `atomicOr` adds zero).
        steps_text.push(format!(
            "        {{\n\
             \x20           let r0 = ({}u + lid) * {rows}u;\n\
             \x20           let word = words[r0 >> 5u] >> (r0 & 31u);\n\
             \x20           let m = word & {group_mask:#x}u;\n\
             \x20           let pos = (x0 & 3u) + (pre[r0 >> 5u] - countOneBits(word)) * {s}u;\n\
             \x20           var wp = pos >> 2u;\n\
             \x20           var fb = (pos & 3u) * 8u;\n\
             \x20           var lo = 0u;\n\
             {append}\
             \x20           if (fb != 0u) {{ atomicOr(&stage[wp - sb], lo); }}\n\
             \x20       }}\n",
            k * wg,
        ));
    }
    // Each phase: the words of the copy it fills zeroed (word 0 the last phase's unfinished
    // one), the phase's groups appended, then its whole words inside the block's range stored.
    let phases = steps / phase;
    let at = |k: u64| {
        if k == steps {
            "(x0 & 3u) + len".to_owned()
        } else {
            let w = k * wg * rows / 32;
            format!("(x0 & 3u) + (pre[{w}u] - countOneBits(words[{w}u])) * {s}u")
        }
    };
    for p in 0..phases {
        let (from, to) = (at(p * phase), at((p + 1) * phase));
        let groups: String = steps_text[(p * phase) as usize..((p + 1) * phase) as usize].concat();
        let carry = if p + 1 < phases {
            "        carry = atomicLoad(&stage[tb - sb]);\n"
        } else {
            ""
        };
        body += &format!(
            "    {{\n\
             \x20       let sb = ({from}) >> 2u;\n\
             \x20       let tb = ({to}) >> 2u;\n\
             \x20       for (var i = lid; i <= tb - sb; i += {WORKGROUP}u) {{\n\
             \x20           atomicStore(&stage[i], select(0u, carry, i == 0u));\n\
             \x20       }}\n\
             \x20       workgroupBarrier();\n\
             {groups}\
             \x20       workgroupBarrier();\n\
             \x20       for (var q = max(first, base + sb) + lid; q < base + tb; q += {WORKGROUP}u) {{\n\
             \x20           out[q] = atomicLoad(&stage[q - base - sb]);\n\
             \x20       }}\n\
             \x20       if (lid < 4u && ew[lid] >= sb && ew[lid] <= tb) {{ edges[lid] = atomicLoad(&stage[ew[lid] - sb]); }}\n\
             {carry}\
             \x20       workgroupBarrier();\n\
             \x20   }}\n",
        );
    }
    wgsl += &format!(
        "@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32{builtins}) {{\n\
         \x20   // The rows' bytes, loaded before the scan so that its barriers hide their latency.\n\
         \x20   let blk = group_index(wid, nwg);\n\
         {decls}\
         {loads}\
         \x20   // The kept rows before the block, loaded before the scan too.\n\
         \x20   let kept = offsets[param(2u) + blk];\n\
         \x20   if (lid < 4u) {{ edges[lid] = 0u; }}\n\
         {scan}\
         \x20   let before = kept - param(3u);\n\
         \x20   let len = pre[{last}u] * {s}u;\n\
         \x20   let x0 = param(5u) + before * {s}u;\n\
         \x20   // Output word `base + w` is block word `w`; the block's own whole words from `first`.\n\
         \x20   let base = x0 >> 2u;\n\
         \x20   let first = (x0 + 3u) >> 2u;\n\
         \x20   // The block's last four bytes from byte `lb` (when it has more than four).\n\
         \x20   let lb = select(0u, (x0 & 3u) + len - 4u, len > 4u);\n\
         \x20   let ew = array<u32, 4>(0u, 1u, lb >> 2u, (lb >> 2u) + 1u);\n\
         \x20   var carry = 0u;\n\
         {body}\
         \x20   if (lid == 0u && len > 0u) {{ ends[param(6u) + 2u * group] = join(edges[0], edges[1], (x0 & 3u) * 8u); }}\n\
         \x20   if (lid == 1u && len > 4u) {{ ends[param(6u) + 2u * group + 1u] = join(edges[2], edges[3], (lb & 3u) * 8u); }}\n\
         }}\n",
        last = WORKGROUP - 1,
    );
    wgsl
}

/// Whether a gather of a source range like `source` by indices like `ids` takes
/// [`gather_kernel`]: packed source rows of 1 or 2 bytes, each inside one word; indices of one
/// 4-byte unit, packed from a 16-byte aligned offset of a buffer sized in 16 bytes (read as
/// `vec4<u32>`s).
pub(crate) fn gather_fits(ids: &GpuDataView<'_>, source: &GpuDataView<'_>) -> bool {
    let s = source.format().byte_length();
    matches!(s, 1 | 2)
        && source.byte_stride() == s
        && source.byte_offset().is_multiple_of(s)
        && unit_byte_length(ids.format()) == 4
        && ids.format().byte_length() == 4
        && ids.byte_stride() == 4
        && ids.byte_offset().is_multiple_of(16)
        && ids.buffer().size().is_multiple_of(16)
}

/// The gather kernel for packed rows of 1 or 2 bytes by packed 4-byte indices (see
/// [`gather_fits`]), with the parameters and bindings of the general one
/// ([`subword::gather_kernel`](super::subword::gather_kernel)) except that the indices are
/// `vec4<u32>`s (their byte base a multiple of 16). Invocation `k` takes rows `4 × vectors × k`
/// on: one load of each four indices, every row's source word loaded before any is used, then
/// its consecutive output words stored whole (with `merge`, keeping the bytes of rows that
/// this part of the source does not hold).
pub(crate) fn gather_kernel(
    source: &GpuDataView<'_>,
    index: &str,
    merge: bool,
    vectors: u32,
) -> String {
    let s = source.format().byte_length();
    let rows = 4 * vectors;
    let per_word = 4 / s;
    let words = u64::from(rows) / per_word;
    let mask = if s == 1 { "0xffu" } else { "0xffffu" };
    let mut wgsl = super::rows::header(7);
    wgsl += &super::rows::binding_decl(1, "ids", "vec4<u32>", false);
    wgsl += &super::rows::binding_decl(2, "src", "u32", false);
    wgsl += &super::rows::binding_decl(3, "out", "u32", true);
    wgsl += &format!(
        "// The row of the part at index unit `u`, or 0xffffffff.\n\
         fn source_row(u: u32) -> u32 {{\n\
         {index}\
         \x20   if (ok && idx >= param(5u) && idx - param(5u) < param(6u)) {{ return idx - param(5u); }}\n\
         \x20   return 0xffffffffu;\n\
         }}\n"
    );
    let mut body = String::new();
    for v in 0..vectors {
        body += &format!("    let u{v} = ids[(param(1u) >> 4u) + k * {vectors}u + {v}u];\n");
    }
    for r in 0..rows {
        body += &format!(
            "    let i{r} = source_row(u{}.{});\n\
             \x20   let ok{r} = first + {r}u < n && i{r} != 0xffffffffu;\n\
             \x20   let a{r} = select(0u, param(2u) + i{r} * {s}u, ok{r});\n",
            r / 4,
            ["x", "y", "z", "w"][(r % 4) as usize]
        );
    }
    for r in 0..rows {
        body += &format!("    let v{r} = src[a{r} >> 2u];\n");
    }
    for q in 0..words {
        body += &format!("    var w{q} = 0u;\n    var mine{q} = 0u;\n");
        for t in 0..per_word {
            let r = q * per_word + t;
            let shift = 8 * s * t;
            body += &format!(
                "    w{q} |= select(0u, (v{r} >> ((a{r} & 3u) * 8u)) & {mask}, ok{r}) << {shift}u;\n\
                 \x20   mine{q} |= select(0u, {mask} << {shift}u, ok{r});\n"
            );
        }
        let at = format!("(param(3u) >> 2u) + k * {words}u + {q}u");
        body += &if merge {
            format!("    if (mine{q} != 0u) {{ out[{at}] = (out[{at}] & ~mine{q}) | w{q}; }}\n")
        } else {
            format!(
                "    if (first + {}u < n) {{ out[{at}] = w{q}; }}\n",
                q * per_word
            )
        };
    }
    wgsl += &format!(
        "@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let k = group_index(wid, nwg) * {WORKGROUP}u + lid;\n\
         \x20   let n = param(0u);\n\
         \x20   let first = k * {rows}u;\n\
         \x20   if (first >= n) {{ return; }}\n\
         {body}\
         }}\n"
    );
    wgsl
}

/// Workgroups of [`gather_kernel`] over `rows` rows.
pub(crate) fn gather_workgroups(rows: u64, vectors: u32) -> u64 {
    rows.div_ceil(4 * u64::from(vectors) * u64::from(WORKGROUP))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's `pack` on the host: kept rows of `s` bytes moved down, in order.
    fn pack(x: u32, n: u32, s: u32) -> u32 {
        let (mut out, mut at) = (0u32, 0);
        for r in 0..4 / s {
            if n >> r & 1 == 1 {
                let row = (x >> (8 * s * r)) & (u32::MAX >> (32 - 8 * s));
                out |= row << at;
                at += 8 * s;
            }
        }
        out
    }

    /// The WGSL `pack` of rows of 1 byte, transcribed.
    fn pack8(x: u32, n: u32) -> u32 {
        let y = x & ((n.wrapping_mul(0x204081) & 0x0101_0101).wrapping_mul(0xff));
        let (mut lo, mut hi) = (y & 0xffff, y >> 16);
        if n & 1 == 0 {
            lo >>= 8;
        }
        if n & 4 == 0 {
            hi >>= 8;
        }
        lo | (hi << ((n & 3).count_ones() * 8))
    }

    /// The WGSL `pack` of rows of 2 bytes, transcribed.
    fn pack16(x: u32, n: u32) -> u32 {
        let y = x & (((n & 1) | ((n & 2) << 15)) * 0xffff);
        if n & 1 != 0 { y } else { y >> 16 }
    }

    #[test]
    fn pack_keeps_the_rows_of_every_mask() {
        for x in [0x0403_0201u32, 0xffff_ffff, 0x8000_0001, 0x00ff_ff00] {
            for n in 0..16 {
                assert_eq!(pack8(x, n), pack(x, n, 1), "{x:#x} {n:#b}");
            }
            for n in 0..4 {
                assert_eq!(pack16(x, n), pack(x, n, 2), "{x:#x} {n:#b}");
            }
        }
    }

    #[test]
    fn a_block_fits_default_workgroup_memory_for_single_bytes() {
        // The whole block's copy (one-vector groups, every step in one phase).
        let block = |s: u32| Tiling {
            group: 1,
            phase: 2 * s,
        };
        assert!(block(1).storage_bytes() <= 16384);
        assert!(block(2).storage_bytes() <= 32768);
        // One step's copy fits WebGPU's default 16 KiB for either row size.
        assert!(Tiling { group: 1, phase: 1 }.storage_bytes() <= 16384);
    }

    #[test]
    fn tilings_follow_rows_per_thread_and_workgroup_memory() {
        let limits = wgpu::Limits::default();
        let big = wgpu::Limits {
            max_compute_workgroup_storage_size: 32768,
            ..wgpu::Limits::default()
        };
        let with = |r: Option<u32>| crate::ops::OpsConfig {
            rows_per_thread: r,
            ..crate::ops::OpsConfig::default()
        };
        let t = |group, phase| Tiling { group, phase };
        // By default one step a phase.
        assert_eq!(Tiling::choose(&with(None), 1, &limits), t(1, 1));
        assert_eq!(Tiling::choose(&with(None), 2, &limits), t(1, 1));
        assert_eq!(Tiling::choose(&with(None), 2, &big), t(1, 1));
        // 32 rows an invocation: the whole block in one phase where it fits (16 KiB: uint8's,
        // not uint16's).
        assert_eq!(Tiling::choose(&with(Some(32)), 1, &limits), t(1, 2));
        assert_eq!(Tiling::choose(&with(Some(32)), 2, &limits), t(1, 2));
        assert_eq!(Tiling::choose(&with(Some(32)), 2, &big), t(1, 4));
        // 1, 2 or 4 vectors a group (at most a mask word's rows), the block in one phase.
        assert_eq!(Tiling::choose(&with(Some(2)), 1, &big), t(2, 1));
        assert_eq!(Tiling::choose(&with(Some(4)), 1, &big), t(2, 1));
        assert_eq!(Tiling::choose(&with(Some(3)), 2, &big), t(2, 2));
        assert_eq!(Tiling::choose(&with(Some(4)), 2, &big), t(4, 1));
        // 8 or 16 rows an invocation a phase, one vector a group.
        assert_eq!(Tiling::choose(&with(Some(16)), 1, &big), t(1, 1));
        assert_eq!(Tiling::choose(&with(Some(8)), 2, &big), t(1, 1));
        assert_eq!(Tiling::choose(&with(Some(16)), 2, &big), t(1, 2));
    }

    #[cfg(feature = "naga")]
    #[test]
    fn kernels_are_valid_wgsl() {
        let words = "    let group = group_index(wid, nwg);\n    let w = 0u;\n".to_owned();
        let counts = "    workgroupBarrier();\n".to_owned();
        for s in [1, 2] {
            let shape = Shape {
                out_stride: s,
                row_bytes: s,
                src_stride: s,
                unit: s,
            };
            for group in [1, 2, 4].into_iter().filter(|&g| g <= 2 * s as u32) {
                let steps = 2 * s as u32 / group;
                for phase in [1, 2, 4].into_iter().filter(|&p| p <= steps) {
                    let tiling = Tiling { group, phase };
                    for subgroups in [false, true] {
                        let (words, counts) = (words.clone(), counts.clone());
                        let scan = Scan {
                            words,
                            counts,
                            subgroups,
                        };
                        let wgsl = compact_kernel(shape, &scan, tiling);
                        super::super::subword::tests::validate(&wgsl);
                    }
                }
            }
        }
    }
}
