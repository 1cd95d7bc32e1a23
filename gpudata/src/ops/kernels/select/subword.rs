//! Compaction and gather of rows whose bytes do not fill whole words (`uint8`, `uint16`,
//! `unorm8x2`, three-byte struct windows, rows at an offset or stride that is not a multiple of
//! 4): every output word is owned by one invocation, which assembles its bytes from the rows
//! that fill it and stores it whole. No atomics, no word written by two invocations.
//!
//! Packed rows of one or two bytes take [`packed`](super::packed)'s kernels instead (the
//! compaction when the device's workgroup memory holds its output copy, the gather when the
//! indices are packed 4-byte values); these are the general ones.
//!
//! A row is moved in *units* of 4, 2 or 1 bytes (the widest that divides the row, the output
//! stride, the source offset and stride), each unit read from the one source word holding it.
//!
//! **Compaction**: the workgroup of a block of 8192 rows scans its 256 mask words in workgroup
//! memory (as the word-wide kernel does). Its kept rows fill output bytes `x_b .. x_{b+1}`; the
//! output words wholly inside that range are its own: each invocation takes every 256th of
//! them, finds the first kept row of the word by a binary search over the scanned counts and
//! the rank inside the mask word, then walks the next set bits for the word's other units; it
//! takes two words (256 apart) per step and issues the loads of both together. The word that straddles a block boundary `x_b` (not
//! a multiple of 4) is written by a second, small dispatch, one invocation per boundary, from
//! each block's first and last four output bytes (which the main kernel leaves in a side
//! buffer): it reads the word, replaces the bytes of its run and writes it back, so runs of
//! rows in several dispatches meet in a shared word without a race.
//!
//! **Gather**: invocation `k` owns output word `k` of its run of indices (runs start at whole
//! words): it reads the indices of the rows that fill the word, then their units, then stores
//! the word. A source bound in several parts (one dispatch each) merges its units into the word
//! the earlier parts wrote.

use super::rows::{WORKGROUP, binding_decl, header, load_fn};
use crate::data::GpuDataView;
use crate::format::codec::unit_byte_length;

/// The widest unit (4, 2 or 1 bytes) dividing every one of `values`.
pub(crate) fn unit(values: &[u64]) -> u64 {
    [4, 2]
        .into_iter()
        .find(|u| values.iter().all(|v| v.is_multiple_of(*u)))
        .unwrap_or(1)
}

/// The mask of a unit of `unit` bytes.
fn unit_mask(unit: u64) -> &'static str {
    match unit {
        4 => "0xffffffffu",
        2 => "0xffffu",
        _ => "0xffu",
    }
}

/// `nth_bit(m, k)`: the position of set bit `k` (from 0, lowest first) of `m`, by halving.
const NTH_BIT: &str = "fn nth_bit(m: u32, k: u32) -> u32 {\n\
    \x20   var x = m;\n    var r = k;\n    var p = 0u;\n\
    \x20   var c = countOneBits(x & 0xffffu);\n\
    \x20   if (r >= c) { r -= c; x >>= 16u; p += 16u; }\n\
    \x20   c = countOneBits(x & 0xffu);\n\
    \x20   if (r >= c) { r -= c; x >>= 8u; p += 8u; }\n\
    \x20   c = countOneBits(x & 0xfu);\n\
    \x20   if (r >= c) { r -= c; x >>= 4u; p += 4u; }\n\
    \x20   c = countOneBits(x & 0x3u);\n\
    \x20   if (r >= c) { r -= c; x >>= 2u; p += 2u; }\n\
    \x20   if (r >= (x & 1u)) { p += 1u; }\n\
    \x20   return p;\n}\n";

/// The address of no unit.
const NONE: &str = "0xffffffffu";

/// `unit_at(a)`: the unit at byte address `a` of `src` (a `u32` binding), in its low bits.
fn unit_fn(unit: u64) -> String {
    format!(
        "fn unit_at(a: u32) -> u32 {{ return (src[a >> 2u] >> ((a & 3u) * 8u)) & {}; }}\n",
        unit_mask(unit)
    )
}

/// The shape of a sub-word compaction source: output stride, row bytes, source stride, unit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub out_stride: u64,
    pub row_bytes: u64,
    pub src_stride: u64,
    pub unit: u64,
}

impl Shape {
    /// Whether block boundaries can fall inside an output word (the edge pass is needed).
    pub(crate) fn has_edges(&self) -> bool {
        !self.out_stride.is_multiple_of(4)
    }
}

/// The main compaction kernel for one source of `shape`. Parameters: rows of the run, the mask's
/// word base, the block offsets' word base, the rows kept before the run, the source's byte
/// base, the output's byte base, the side buffer's word base. Bindings: mask, block offsets,
/// source, output, side buffer (two words per block: its first and last four output bytes).
/// `scan` is the text that loads the block's mask words into `words` and their inclusive
/// prefix counts into `pre` (it declares `group`). Each invocation takes `per_step` output
/// words 256 apart at a time.
pub(crate) fn compact_kernel(shape: Shape, scan: &str, per_step: u32) -> String {
    let Shape {
        out_stride: s,
        row_bytes,
        src_stride,
        unit,
    } = shape;
    let units = 4 / unit;
    let mut wgsl = header(7);
    wgsl += &binding_decl(1, "mask", "u32", false);
    wgsl += &binding_decl(2, "offsets", "u32", false);
    wgsl += &binding_decl(3, "src", "u32", false);
    wgsl += &binding_decl(4, "out", "u32", true);
    wgsl += &binding_decl(5, "ends", "u32", true);
    wgsl += NTH_BIT;
    wgsl += &unit_fn(unit);
    wgsl += &format!(
        "var<workgroup> words: array<u32, {WORKGROUP}>;\n\
         var<workgroup> pre: array<u32, {WORKGROUP}>;\n"
    );
    // The walk: unit t's source address (or none), then the next unit's row and byte.
    let mut walk = String::new();
    let mut assemble = String::new();
    for t in 0..units {
        walk += &format!(
            "    if (off + {}u < len && j < {row_bytes}u) {{ a[{t}] = param(4u) + row * {src_stride}u + j; }}\n",
            t * unit
        );
        if t + 1 < units {
            walk += &format!(
                "    j += {unit}u;\n\
                 \x20   if (j == {s}u) {{\n\
                 \x20       j = 0u;\n\
                 \x20       bits &= bits - 1u;\n\
                 \x20       while (bits == 0u && wi < {last}u) {{ wi += 1u; bits = words[wi]; }}\n\
                 \x20       row = row0 + wi * 32u + countTrailingZeros(bits);\n\
                 \x20   }}\n",
                last = WORKGROUP - 1
            );
        }
        assemble += &format!(
            "    v |= select(0u, unit_at(select(0u, a[{t}], a[{t}] != {NONE})), a[{t}] != {NONE}) << {}u;\n",
            t * unit * 8
        );
    }
    // Each step of the loop handles `per_step` words 256 apart: the addresses of all first,
    // then all their loads, so that an invocation has that many words' loads in flight.
    let mut step_body = String::new();
    for i in 0..per_step {
        step_body += &format!(
            "        let w_{i} = w + {}u;\n\
             \x20       var a{i} = vec4<u32>({NONE});\n\
             \x20       if (w_{i} < wend) {{ a{i} = units(w_{i} * 4u - x0, len, row0); }}\n",
            i * WORKGROUP
        );
    }
    for i in 0..per_step {
        step_body += &format!("        let v{i} = word_of(a{i});\n");
    }
    for i in 0..per_step {
        step_body += &format!("        if (w_{i} < wend) {{ out[w_{i}] = v{i}; }}\n");
    }
    wgsl += &format!(
        "// The source addresses of the units of output bytes `off .. off + 4` of the block (its\n\
         // kept rows from row `row0`, `len` bytes); {NONE} for units past `len` and for a row's\n\
         // bytes past its own (they are 0).\n\
         fn units(off: u32, len: u32, row0: u32) -> vec4<u32> {{\n\
         \x20   var a = vec4<u32>({NONE});\n\
         \x20   let r = off / {s}u;\n\
         \x20   var j = off % {s}u;\n\
         \x20   var lo = 0u;\n\
         \x20   var hi = {last}u;\n\
         \x20   while (lo < hi) {{\n\
         \x20       let mid = (lo + hi) >> 1u;\n\
         \x20       if (pre[mid] > r) {{ hi = mid; }} else {{ lo = mid + 1u; }}\n\
         \x20   }}\n\
         \x20   var wi = lo;\n\
         \x20   var bits = words[wi];\n\
         \x20   bits &= 0xffffffffu << nth_bit(bits, r - (pre[wi] - countOneBits(bits)));\n\
         \x20   var row = row0 + wi * 32u + countTrailingZeros(bits);\n\
         {walk}\
         \x20   return a;\n\
         }}\n\
         // The word the units at `a` make.\n\
         fn word_of(a: vec4<u32>) -> u32 {{\n\
         \x20   var v = 0u;\n\
         {assemble}\
         \x20   return v;\n\
         }}\n\
         @compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         {scan}\
         \x20   let before = offsets[param(2u) + group] - param(3u);\n\
         \x20   let len = pre[{last}u] * {s}u;\n\
         \x20   let x0 = param(5u) + before * {s}u;\n\
         \x20   let row0 = group * {rows}u;\n\
         \x20   let wend = (x0 + len) >> 2u;\n\
         \x20   for (var w = ((x0 + 3u) >> 2u) + lid; w < wend; w += {step}u) {{\n\
         {step_body}\
         \x20   }}\n\
         \x20   if (lid == 0u && len > 0u) {{ ends[param(6u) + 2u * group] = word_of(units(0u, len, row0)); }}\n\
         \x20   if (lid == 1u && len > 4u) {{ ends[param(6u) + 2u * group + 1u] = word_of(units(len - 4u, len, row0)); }}\n\
         }}\n",
        last = WORKGROUP - 1,
        rows = 32 * WORKGROUP,
        step = u64::from(per_step) * u64::from(WORKGROUP),
    );
    wgsl
}

/// The edge pass of a compaction run: one invocation per block boundary `b` (`0..=blocks`),
/// writing the output word that holds byte `x_b` when `x_b` is not a multiple of 4 (the
/// invocation of the first such boundary in the word), each of its bytes that the run writes
/// taken from the side buffer of the block it belongs to, the others kept. Parameters: blocks of
/// the run, the block offsets' word base, the rows kept before the run, the output's byte base,
/// the rows the run keeps, the side buffer's word base. Bindings: block offsets (`blocks + 1`
/// words), side buffer, output.
pub(crate) fn compact_edge_kernel(shape: Shape) -> String {
    let (s, unit) = (shape.out_stride, shape.unit);
    let mask = unit_mask(unit);
    let mut wgsl = header(6);
    wgsl += &binding_decl(1, "offsets", "u32", false);
    wgsl += &binding_decl(2, "ends", "u32", false);
    wgsl += &binding_decl(3, "out", "u32", true);
    wgsl += &format!(
        "fn x(b: u32) -> u32 {{ return param(3u) + (offsets[param(1u) + b] - param(2u)) * {s}u; }}\n\
         @compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let b = group_index(wid, nwg) * {WORKGROUP}u + lid;\n\
         \x20   let blocks = param(0u);\n\
         \x20   if (b > blocks) {{ return; }}\n\
         \x20   let xb = x(b);\n\
         \x20   if ((xb & 3u) == 0u) {{ return; }}\n\
         \x20   if (b > 0u) {{\n\
         \x20       let xp = x(b - 1u);\n\
         \x20       if ((xp >> 2u) == (xb >> 2u) && (xp & 3u) != 0u) {{ return; }}\n\
         \x20   }}\n\
         \x20   let w = xb >> 2u;\n\
         \x20   let end = param(3u) + param(4u) * {s}u;\n\
         \x20   var word = out[w];\n\
         \x20   for (var t = 0u; t < 4u; t += {unit}u) {{\n\
         \x20       let y = w * 4u + t;\n\
         \x20       if (y >= param(3u) && y < end) {{\n\
         \x20           var c = b;\n\
         \x20           if (y < xb) {{ c = b - 1u; }}\n\
         \x20           if (x(c) > y || y >= x(c + 1u)) {{\n\
         \x20               var lo = 0u;\n\
         \x20               var hi = blocks;\n\
         \x20               while (lo < hi) {{\n\
         \x20                   let mid = (lo + hi) >> 1u;\n\
         \x20                   if (x(mid) > y) {{ hi = mid; }} else {{ lo = mid + 1u; }}\n\
         \x20               }}\n\
         \x20               c = lo - 1u;\n\
         \x20           }}\n\
         \x20           let rel = y - x(c);\n\
         \x20           var v = 0u;\n\
         \x20           if (rel < 4u) {{\n\
         \x20               v = ends[param(5u) + 2u * c] >> (rel * 8u);\n\
         \x20           }} else {{\n\
         \x20               v = ends[param(5u) + 2u * c + 1u] >> ((4u - (x(c + 1u) - y)) * 8u);\n\
         \x20           }}\n\
         \x20           word = (word & ~({mask} << (t * 8u))) | ((v & {mask}) << (t * 8u));\n\
         \x20       }}\n\
         \x20   }}\n\
         \x20   out[w] = word;\n\
         }}\n"
    );
    wgsl
}

/// The gather kernel for indices like `ids` and a source range like `source` whose rows move
/// in units of `unit` bytes, whole output words per invocation. `index` is the WGSL that sets
/// `idx` and `ok` from the index unit `u` (as the word-wide kernel's). With `merge` (the
/// source is bound in several parts) each word keeps the bytes this part does not write. Each
/// invocation owns `per_invocation` words 256 apart. Parameters as the word-wide kernel's.
pub(crate) fn gather_kernel(
    ids: &GpuDataView<'_>,
    source: &GpuDataView<'_>,
    unit: u64,
    index: &str,
    merge: bool,
    per_invocation: u32,
) -> String {
    let s = source.format().byte_length();
    let units = 4 / unit;
    let mask = unit_mask(unit);
    let mut wgsl = header(7);
    wgsl += &binding_decl(1, "ids", "u32", false);
    wgsl += &binding_decl(2, "src", "u32", false);
    wgsl += &binding_decl(3, "out", "u32", true);
    wgsl += &load_fn("ld", "ids", unit_byte_length(ids.format()));
    wgsl += &unit_fn(unit);
    wgsl += &format!(
        "// The row of the part at the index of output row `row`, or 0xffffffff.\n\
         fn source_row(row: u32) -> u32 {{\n\
         \x20   let u = ld(param(1u) + row * {}u);\n\
         {index}\
         \x20   if (ok && idx >= param(5u) && idx - param(5u) < param(6u)) {{ return idx - param(5u); }}\n\
         \x20   return 0xffffffffu;\n\
         }}\n",
        ids.byte_stride()
    );
    // Every index of the invocation's words first, then every unit, then the stores.
    let mut body = String::new();
    for q in 0..per_invocation {
        body += &format!("    let k{q} = k + {}u;\n", q * WORKGROUP);
        for t in 0..units {
            body += &format!(
                "    let rel{q}_{t} = k{q} * 4u + {}u;\n\
                 \x20   let i{q}_{t} = source_row(min(rel{q}_{t} / {s}u, last));\n\
                 \x20   let ok{q}_{t} = rel{q}_{t} < total && i{q}_{t} != 0xffffffffu;\n",
                t * unit
            );
        }
    }
    for q in 0..per_invocation {
        for t in 0..units {
            body += &format!(
                "    let a{q}_{t} = select(0u, param(2u) + i{q}_{t} * {}u + rel{q}_{t} % {s}u, ok{q}_{t});\n",
                source.byte_stride()
            );
        }
    }
    for q in 0..per_invocation {
        body += &format!("    var v{q} = 0u;\n    var mine{q} = 0u;\n");
        for t in 0..units {
            let shift = t * unit * 8;
            body += &format!(
                "    v{q} |= select(0u, unit_at(a{q}_{t}), ok{q}_{t}) << {shift}u;\n\
                 \x20   mine{q} |= select(0u, {mask} << {shift}u, ok{q}_{t});\n"
            );
        }
    }
    for q in 0..per_invocation {
        let w = format!("(param(3u) >> 2u) + k{q}");
        body += &if merge {
            format!("    if (mine{q} != 0u) {{ out[{w}] = (out[{w}] & ~mine{q}) | v{q}; }}\n")
        } else {
            format!("    if (k{q} * 4u < total) {{ out[{w}] = v{q}; }}\n")
        };
    }
    wgsl += &format!(
        "@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let k = group_index(wid, nwg) * {span}u + lid;\n\
         \x20   let total = param(0u) * {s}u;\n\
         \x20   if (k * 4u >= total) {{ return; }}\n\
         \x20   let last = param(0u) - 1u;\n\
         {body}\
         }}\n",
        span = u64::from(per_invocation) * u64::from(WORKGROUP),
    );
    wgsl
}

/// Workgroups of a sub-word gather over `rows` rows of `row_bytes`, `per_invocation` output
/// words per invocation.
pub(crate) fn gather_workgroups(rows: u64, row_bytes: u64, per_invocation: u32) -> u64 {
    (rows * row_bytes)
        .div_ceil(4)
        .div_ceil(u64::from(per_invocation) * u64::from(WORKGROUP))
}

/// Output words per step of the sub-word compaction (`per_step`, default 2) or per invocation of
/// the sub-word gather (default 1), or index vectors per invocation of the packed gather
/// (default 2): `OpsConfig::rows_per_thread` when set, at most 4.
pub(crate) fn words_per_invocation(config: &crate::ops::OpsConfig, default: u32) -> u32 {
    config.rows_per_thread.map_or(default, |g| g.clamp(1, 4))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Panics unless `wgsl` parses and validates.
    #[cfg(feature = "naga")]
    pub(crate) fn validate(wgsl: &str) {
        let module = naga::front::wgsl::parse_str(wgsl)
            .unwrap_or_else(|e| panic!("{}\n{wgsl}", e.emit_to_string(wgsl)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{e:?}\n{wgsl}"));
    }

    #[test]
    fn units_divide_every_value() {
        assert_eq!(unit(&[4, 8, 12]), 4);
        assert_eq!(unit(&[2, 4, 0]), 2);
        assert_eq!(unit(&[6, 4, 2]), 2);
        assert_eq!(unit(&[1, 4]), 1);
        assert_eq!(unit(&[4, 3]), 1);
    }

    #[cfg(feature = "naga")]
    #[test]
    fn kernels_are_valid_wgsl() {
        let scan = "    let group = group_index(wid, nwg);\n    workgroupBarrier();\n";
        for (s, row, stride, unit) in [(1, 1, 1, 1), (2, 2, 6, 2), (3, 3, 3, 1), (6, 4, 8, 2)] {
            let shape = Shape {
                out_stride: s,
                row_bytes: row,
                src_stride: stride,
                unit,
            };
            for wgsl in [
                compact_kernel(shape, scan, 1),
                compact_kernel(shape, scan, 4),
                compact_edge_kernel(shape),
            ] {
                validate(&wgsl);
            }
        }
    }
}
