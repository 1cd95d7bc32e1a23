//! Index buffers under a vertex mask: which primitives (groups of `k` indices: 1 for points, 2
//! for lines, 3 for triangles) have every vertex kept, and every index renumbered to its
//! vertex's row after compaction (the mask's exclusive prefix sum at that row). One invocation
//! per 32 primitives writes one word of the primitive mask and the renumbered indices of those
//! primitives; the caller then compacts the kept primitives' renumbered indices by that mask.
//! Runs of primitives when the indices exceed one binding; the vertex mask and its word ranks
//! are bound whole (they are read at random rows).

use super::rows::{self, Span, WORKGROUP};
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::Dispatch;

/// Primitives per workgroup: 32 per invocation, one primitive-mask word each.
const BLOCK: u64 = 32 * WORKGROUP as u64;

/// The indices a [`plan`] reads: index `i` is the `unit`-byte integer (2 or 4 bytes) at byte
/// `offset + i × stride` of `buffer`, and every `per_primitive` consecutive ones make one
/// primitive.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Indices<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub offset: u64,
    pub stride: u64,
    pub unit: u64,
    pub per_primitive: u64,
}

/// The vertex side of a [`plan`]: `rows` vertex rows, their mask (words, bit `r % 32` of word
/// `r / 32` is row `r`) and the mask's per-word exclusive bit counts (`ranks`, one word per
/// mask word).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vertices<'a> {
    pub mask: &'a wgpu::Buffer,
    pub ranks: &'a wgpu::Buffer,
    pub rows: u64,
}

fn kernel(indices: &Indices<'_>) -> String {
    let k = indices.per_primitive;
    let mut wgsl = rows::header(8);
    wgsl += &rows::binding_decl(1, "mask", "u32", false);
    wgsl += &rows::binding_decl(2, "ranks", "u32", false);
    wgsl += &rows::binding_decl(3, "src", "u32", false);
    wgsl += &rows::binding_decl(4, "keep", "u32", true);
    let (element, store) = if indices.unit == 2 {
        (
            "atomic<u32>",
            "atomicOr(&out[d >> 2u], (r & 0xffffu) << ((d & 2u) * 8u));",
        )
    } else {
        ("u32", "out[d >> 2u] = r;")
    };
    wgsl += &rows::binding_decl(5, "out", element, true);
    wgsl += &rows::load_fn("load", "src", indices.unit);
    let (stride, unit) = (indices.stride, indices.unit);
    wgsl += &format!(
        "@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let g = group_index(wid, nwg) * {WORKGROUP}u + lid;\n\
         \x20   let n = param(0u);\n\
         \x20   if (g * 32u >= n) {{ return; }}\n\
         \x20   let rows = param(4u);\n\
         \x20   var bits = 0u;\n\
         \x20   for (var p = 0u; p < 32u; p++) {{\n\
         \x20       let prim = g * 32u + p;\n\
         \x20       if (prim >= n) {{ break; }}\n\
         \x20       var all = true;\n\
         \x20       for (var j = 0u; j < {k}u; j++) {{\n\
         \x20           let i = prim * {k}u + j;\n\
         \x20           let v = load(param(1u) + i * {stride}u);\n\
         \x20           let row = min(v, rows - 1u);\n\
         \x20           let word = mask[param(5u) + (row >> 5u)];\n\
         \x20           let bit = row & 31u;\n\
         \x20           all = all && v < rows && ((word >> bit) & 1u) == 1u;\n\
         \x20           let r = ranks[param(6u) + (row >> 5u)] + countOneBits(word & ((1u << bit) - 1u));\n\
         \x20           let d = param(3u) + i * {unit}u;\n\
         \x20           {store}\n\
         \x20       }}\n\
         \x20       if (all) {{ bits |= 1u << p; }}\n\
         \x20   }}\n\
         \x20   keep[param(2u) + g] = bits;\n\
         }}\n"
    );
    wgsl
}

/// The dispatches over `primitives` primitives of `indices.per_primitive` indices each: bit `p`
/// of the primitive mask `keep` (zeroed, at least `ceil(primitives / 32)` words) set when every
/// index of primitive `p` is a vertex row below `vertices.rows` that the vertex mask keeps, and
/// index `i` renumbered into `out` (packed `unit`-byte indices, zeroed): its row's rank among
/// the kept rows (meaningful for kept rows only). `vertices.rows` must be at least 1.
pub(crate) fn plan(
    planner: &Planner<'_>,
    op: &'static str,
    vertices: Vertices<'_>,
    indices: Indices<'_>,
    primitives: u64,
    keep: &wgpu::Buffer,
    out: &wgpu::Buffer,
) -> Result<Vec<Dispatch>, OpError> {
    if primitives == 0 {
        return Ok(Vec::new());
    }
    let overflow = || OpError::Overflow { op, input: 0 };
    let k = indices.per_primitive;
    let wgsl = kernel(&indices);
    let limits = planner.device().limits();
    let align = rows::alignment(&limits);
    let group_stride = indices.stride.checked_mul(k).ok_or_else(overflow)?;
    let group_bytes = (k - 1)
        .checked_mul(indices.stride)
        .and_then(|b| b.checked_add(indices.unit))
        .ok_or_else(overflow)?;
    let src = Span {
        buffer: indices.buffer,
        offset: indices.offset,
        stride: group_stride,
        row_bytes: group_bytes,
    };
    let dst = Span::packed(out, k * indices.unit);
    let words = vertices.rows.div_ceil(32) * 4;
    let mask = rows::bind(vertices.mask, 0, words, align);
    let ranks = rows::bind(vertices.ranks, 0, words, align);
    let mut dispatches = Vec::new();
    for (first, n) in rows::runs(op, &limits, primitives, BLOCK, &[src, dst], &[keep])? {
        let a = src.bind(op, first, n, align)?;
        let from = first / 32 * 4;
        let b = rows::bind(keep, from, from + n.div_ceil(32) * 4, align);
        let c = dst.bind(op, first, n, align)?;
        let params = [
            rows::base32(op, n)?,
            rows::base32(op, a.base)?,
            rows::base32(op, b.base / 4)?,
            rows::base32(op, c.base)?,
            rows::base32(op, vertices.rows)?,
            rows::base32(op, mask.base / 4)?,
            rows::base32(op, ranks.base / 4)?,
            0,
        ];
        dispatches.push(rows::dispatch(
            planner,
            op,
            &wgsl,
            &params,
            &[mask, ranks, a, b, c],
            n.div_ceil(BLOCK),
        )?);
    }
    Ok(dispatches)
}
