//! Word-aligned blocks of bytes copied by a kernel: one `vec4<u32>` store per invocation into
//! the destination's 16-byte aligned body, from one aligned source vector, or from two
//! neighbouring ones where the source lies at another phase of 16 bytes; the few words around
//! the body copied as they are. Real GPUs run such a kernel
//! at their memory bandwidth where `copy_buffer_to_buffer` may not (0.85 TB/s against 3.98 on
//! the H200's Vulkan driver; DESIGN.md decision 9); the re-layouts copy whole blocks this way.
//!
//! A re-layout's blocks run as few dispatches as the device allows ([`block_dispatches`]): one
//! kernel copies many blocks, each workgroup finding its block by a binary search over the
//! blocks' first workgroups in the uniform (a table of at most [`MAX_BLOCKS`] blocks: source and
//! destination binding, vector offsets, vector count and phase), every distinct source and
//! destination range bound once (`src0..`, `dst0..`, picked by a `switch` that is uniform
//! within a workgroup). A new dispatch starts where the storage bindings per shader stage or per
//! bind group, the uniform, or a `u32` of invocations would be exceeded, and where a block
//! reads a buffer another block of the dispatch writes. A block larger than one storage
//! binding is copied in parts.

use std::sync::Arc;

use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::{Binding, Dispatch, Kernel};
use crate::ops::kernels::select::rows::WORKGROUP;
use crate::ops::kernels::split::max_binding_size;

/// The most blocks one dispatch's uniform table holds (32 bytes each).
pub(crate) const MAX_BLOCKS: u64 = 256;

/// The most workgroups one dispatch runs: its invocations (folded into two dimensions, which
/// may add up to one row of workgroups) stay countable in a `u32`.
const MAX_WORKGROUPS: u64 = 1 << 23;

/// Vectors each invocation copies when the configuration does not say
/// ([`OpsConfig::rows_per_thread`](crate::ops::OpsConfig::rows_per_thread)).
const VECTORS_PER_INVOCATION: u32 = 1;

/// Vectors each invocation of a block kernel copies, `span` apart within its workgroup's run:
/// the configuration's rows per invocation (a power of two up to 16), or
/// [`VECTORS_PER_INVOCATION`].
fn vectors_per_invocation(planner: &Planner<'_>) -> u32 {
    planner
        .config()
        .rows_per_thread
        .map_or(VECTORS_PER_INVOCATION, |r| {
            r.clamp(1, 16).next_power_of_two().min(16)
        })
}

/// The kernel copying the blocks of its uniform table (`capacity` entries) from `sources`
/// source bindings into `targets` destination bindings. Block `b` is `a = (first workgroup,
/// vectors, phase, source binding)`, `b = (source vector, destination binding, destination
/// vector, 0)`. With phase 0 the source vectors are the words to copy; with phase `p` (1 to 3:
/// the source is `4p` bytes past a 16-byte boundary) vector `i` is the last `4 - p` words of
/// source vector `i` and the first `p` of vector `i + 1`: every load and store is a whole
/// aligned vector (a neighbour's load comes from the cache).
fn wgsl(sources: usize, targets: usize, capacity: u64, per: u32) -> String {
    let mut text = format!(
        "struct Block {{ a: vec4<u32>, b: vec4<u32> }}\n\
         struct Params {{ n: vec4<u32>, blocks: array<Block, {capacity}> }}\n\
         @group(0) @binding(0) var<uniform> params: Params;\n"
    );
    for s in 0..sources {
        text.push_str(&format!(
            "@group(0) @binding({}) var<storage, read> src{s}: array<vec4<u32>>;\n",
            s + 1
        ));
    }
    for d in 0..targets {
        text.push_str(&format!(
            "@group(0) @binding({}) var<storage, read_write> dst{d}: array<vec4<u32>>;\n",
            sources + d + 1
        ));
    }
    let case = |i: usize, last: usize| {
        if i == last {
            "default".to_owned()
        } else {
            format!("case {i}u")
        }
    };
    text.push_str(
        "fn load(s: u32, at: u32) -> vec4<u32> {\n    var v: vec4<u32>;\n    switch s {\n",
    );
    for s in 0..sources {
        text.push_str(&format!(
            "        {}: {{ v = src{s}[at]; }}\n",
            case(s, sources - 1)
        ));
    }
    text.push_str("    }\n    return v;\n}\n");
    text.push_str("fn store(d: u32, at: u32, v: vec4<u32>) {\n    switch d {\n");
    for d in 0..targets {
        text.push_str(&format!(
            "        {}: {{ dst{d}[at] = v; }}\n",
            case(d, targets - 1)
        ));
    }
    text.push_str("    }\n}\n");
    text.push_str(&format!(
        "@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
         \x20       @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let g = wid.x + wid.y * nwg.x;\n\
         \x20   var lo = 0u;\n\
         \x20   var hi = params.n.x;\n\
         \x20   loop {{\n\
         \x20       if (hi - lo <= 1u) {{ break; }}\n\
         \x20       let mid = (lo + hi) / 2u;\n\
         \x20       if (params.blocks[mid].a.x <= g) {{ lo = mid; }} else {{ hi = mid; }}\n\
         \x20   }}\n\
         \x20   let a = params.blocks[lo].a;\n\
         \x20   let b = params.blocks[lo].b;\n\
         \x20   let first = (g - a.x) * {span}u + lid;\n\
         \x20   for (var k = 0u; k < {per}u; k++) {{\n\
         \x20       let i = first + k * {WORKGROUP}u;\n\
         \x20       if (i >= a.y) {{ return; }}\n\
         \x20       let at = b.x + i;\n\
         \x20       var v = load(a.w, at);\n\
         \x20       if (a.z != 0u) {{\n\
         \x20           let w = load(a.w, at + 1u);\n\
         \x20           switch a.z {{\n\
         \x20               case 1u: {{ v = vec4<u32>(v.y, v.z, v.w, w.x); }}\n\
         \x20               case 2u: {{ v = vec4<u32>(v.z, v.w, w.x, w.y); }}\n\
         \x20               default: {{ v = vec4<u32>(v.w, w.x, w.y, w.z); }}\n\
         \x20           }}\n\
         \x20       }}\n\
         \x20       store(b.y, b.z + i, v);\n\
         \x20   }}\n\
         }}\n",
        span = u64::from(WORKGROUP) * u64::from(per),
    ));
    text
}

/// One aligned part of a block copy: `vectors` vectors into `dst` from its 16-aligned byte
/// `dst_offset`, from the vectors of `src` from its 16-aligned byte `src_base` at `phase`
/// (reading one vector more when the phase is not 0). Each part fits one storage binding on
/// either side, from its offsets rounded down to the storage offset alignment.
#[derive(Clone, Debug)]
pub(crate) struct Piece {
    src: wgpu::Buffer,
    src_base: u64,
    phase: u64,
    dst: wgpu::Buffer,
    dst_offset: u64,
    vectors: u64,
}

impl Piece {
    /// The source bytes the piece reads.
    fn src_range(&self) -> (u64, u64) {
        let extra = if self.phase > 0 { 16 } else { 0 };
        (self.src_base, self.src_base + self.vectors * 16 + extra)
    }

    /// The destination bytes the piece writes.
    fn dst_range(&self) -> (u64, u64) {
        (self.dst_offset, self.dst_offset + self.vectors * 16)
    }

    /// The destination buffer, and the bytes the piece writes there.
    pub(crate) fn writes(&self) -> (&wgpu::Buffer, (u64, u64)) {
        (&self.dst, self.dst_range())
    }
}

/// A block copy: the parts of its 16-byte aligned body, and the few words before and after it
/// (at most 12 bytes each, or one vector at the source's end) as `(src_offset, dst_offset,
/// size)` copies.
pub(crate) struct BlockCopy {
    pub pieces: Vec<Piece>,
    pub edges: Vec<(u64, u64, u64)>,
}

/// The device's storage offset alignment for block bindings (at least 16 bytes).
fn alignment(limits: &wgpu::Limits) -> u64 {
    u64::from(limits.min_storage_buffer_offset_alignment).max(16)
}

/// The copy of `size` bytes from `src_offset` of `src` to `dst_offset` of `dst`, or `None` when
/// a kernel cannot do it: a buffer without `STORAGE` usage, one buffer on both sides (a binding
/// may not be read and written at once), offsets or size off 4 bytes, or no 16-byte aligned
/// vector of the destination inside the block.
///
/// # Errors
/// [`OpError::TooLarge`] when the device's storage binding limit cannot hold one vector past
/// its offset alignment, or the copy's bytes overflow.
pub(crate) fn block_copy(
    limits: &wgpu::Limits,
    src: &wgpu::Buffer,
    src_offset: u64,
    dst: &wgpu::Buffer,
    dst_offset: u64,
    size: u64,
) -> Result<Option<BlockCopy>, OpError> {
    let storage = |b: &wgpu::Buffer| b.usage().contains(wgpu::BufferUsages::STORAGE);
    let words =
        src_offset.is_multiple_of(4) && dst_offset.is_multiple_of(4) && size.is_multiple_of(4);
    if !storage(src) || !storage(dst) || src == dst || !words {
        return Ok(None);
    }
    let overflow = || OpError::TooLarge {
        op: "copy",
        what: "a block copy's bytes",
        size,
        limit: u64::MAX,
    };
    src_offset.checked_add(size).ok_or_else(overflow)?;
    dst_offset.checked_add(size).ok_or_else(overflow)?;
    // The destination's words before its first 16-byte boundary, and after its last.
    let head = (16 - dst_offset % 16) % 16;
    let Some(body) = size
        .checked_sub(head)
        .map(|rest| rest / 16 * 16)
        .filter(|b| *b > 0)
    else {
        return Ok(None);
    };
    let tail = size - head - body;
    let mut edges = Vec::new();
    if head > 0 {
        edges.push((src_offset, dst_offset, head));
    }
    if tail > 0 {
        edges.push((src_offset + head + body, dst_offset + head + body, tail));
    }
    let (src_offset, dst_offset) = (src_offset + head, dst_offset + head);
    // The source's words past its 16-byte boundary: phase p reads one vector more, which must
    // lie inside the source buffer; where it does not, the last vector goes with the edges.
    let phase = src_offset % 16 / 4;
    let src_base = src_offset - phase * 4;
    let mut body = body;
    if phase > 0 && src_base.saturating_add(body + 16) > src.size() {
        body -= 16;
        edges.push((src_offset + body, dst_offset + body, 16));
    }
    let extra = if phase > 0 { 16 } else { 0 };
    let align = alignment(limits);
    // Each part binds from its offsets rounded down to the alignment: at most `align - 16`
    // bytes before it, and one vector more after it at a phase.
    let most = max_binding_size(limits).saturating_sub(align + extra) / 16 * 16;
    if most == 0 {
        return Err(OpError::TooLarge {
            op: "copy",
            what: "a storage binding",
            size: align + extra + 16,
            limit: max_binding_size(limits),
        });
    }
    let mut pieces = Vec::new();
    let mut done = 0;
    while done < body {
        let bytes = most.min(body - done);
        pieces.push(Piece {
            src: src.clone(),
            src_base: src_base + done,
            phase,
            dst: dst.clone(),
            dst_offset: dst_offset + done,
            vectors: bytes / 16,
        });
        done += bytes;
    }
    Ok(Some(BlockCopy { pieces, edges }))
}

/// A storage range a dispatch of blocks binds: `[start, end)` of `buffer`, `start` aligned.
struct Bound {
    buffer: wgpu::Buffer,
    start: u64,
    end: u64,
}

/// The blocks of one dispatch, their bindings, and their workgroups so far.
#[derive(Default)]
struct Group {
    pieces: Vec<(usize, usize, u64)>,
    sources: Vec<Bound>,
    targets: Vec<Bound>,
    workgroups: u64,
}

/// The binding of `bounds` that can also hold `[from, to)` of `buffer` (its range grown), or
/// `None`.
fn binding_for(
    bounds: &[Bound],
    buffer: &wgpu::Buffer,
    from: u64,
    to: u64,
    align: u64,
    most: u64,
) -> Option<usize> {
    bounds.iter().position(|b| {
        &b.buffer == buffer && to.max(b.end) - (from - from % align).min(b.start) <= most
    })
}

/// Adds `[from, to)` of `buffer` to `bounds` at `at` (a new binding when `at` is `None`);
/// the binding's index.
fn bind(
    bounds: &mut Vec<Bound>,
    at: Option<usize>,
    buffer: &wgpu::Buffer,
    from: u64,
    to: u64,
    align: u64,
) -> usize {
    let start = from - from % align;
    match at {
        Some(i) => {
            bounds[i].start = bounds[i].start.min(start);
            bounds[i].end = bounds[i].end.max(to);
            i
        }
        None => {
            bounds.push(Bound {
                buffer: buffer.clone(),
                start,
                end: to,
            });
            bounds.len() - 1
        }
    }
}

/// The dispatches copying `pieces` (in any order: their destinations are disjoint and no piece
/// reads what another writes, within one dispatch), as few as the device's limits allow.
///
/// # Errors
/// [`OpError::TooManyBindings`] when the device cannot bind one source and one destination;
/// the errors of [`Kernel::dispatch`].
pub(crate) fn block_dispatches(
    planner: &Planner<'_>,
    pieces: &[Piece],
) -> Result<Vec<Dispatch>, OpError> {
    let limits = planner.device().limits();
    let align = alignment(&limits);
    let most = max_binding_size(&limits);
    // Storage bindings one dispatch may use: per shader stage, and per bind group beside the
    // uniform.
    let storage = u64::from(limits.max_storage_buffers_per_shader_stage)
        .min(u64::from(limits.max_bindings_per_bind_group).saturating_sub(1))
        .max(2);
    let capacity_limit =
        (limits.max_uniform_buffer_binding_size.saturating_sub(16) / 32).clamp(1, MAX_BLOCKS);
    let per = vectors_per_invocation(planner);
    let span = u64::from(WORKGROUP) * u64::from(per);
    let mut groups: Vec<Group> = Vec::new();
    let mut group = Group::default();
    for piece in pieces {
        let (src_from, src_to) = piece.src_range();
        let (dst_from, dst_to) = piece.dst_range();
        let workgroups = piece.vectors.div_ceil(span);
        let fits = |group: &Group| {
            let source = binding_for(&group.sources, &piece.src, src_from, src_to, align, most);
            let target = binding_for(&group.targets, &piece.dst, dst_from, dst_to, align, most);
            let count = group.sources.len()
                + group.targets.len()
                + usize::from(source.is_none())
                + usize::from(target.is_none());
            let crossed = group.targets.iter().any(|b| b.buffer == piece.src)
                || group.sources.iter().any(|b| b.buffer == piece.dst);
            (count as u64 <= storage
                && (group.pieces.len() as u64) < capacity_limit
                && group.workgroups + workgroups <= MAX_WORKGROUPS
                && !crossed)
                .then_some((source, target))
        };
        let (source, target) = match fits(&group) {
            Some(found) => found,
            None => {
                // Not empty: one source and one destination always fit an empty group.
                if !group.pieces.is_empty() {
                    groups.push(std::mem::take(&mut group));
                }
                (None, None)
            }
        };
        let s = bind(
            &mut group.sources,
            source,
            &piece.src,
            src_from,
            src_to,
            align,
        );
        let d = bind(
            &mut group.targets,
            target,
            &piece.dst,
            dst_from,
            dst_to,
            align,
        );
        group.pieces.push((s, d, group.workgroups));
        group.workgroups += workgroups;
    }
    if !group.pieces.is_empty() {
        groups.push(group);
    }
    // Pieces were taken in order: group `g`'s pieces are the next `pieces.len()` of `pieces`.
    let mut next = 0;
    let mut dispatches = Vec::with_capacity(groups.len());
    for group in groups {
        let members = &pieces[next..next + group.pieces.len()];
        next += group.pieces.len();
        dispatches.push(group_dispatch(
            planner,
            &group,
            members,
            capacity_limit,
            per,
        )?);
    }
    Ok(dispatches)
}

/// The dispatch of one group of blocks.
fn group_dispatch(
    planner: &Planner<'_>,
    group: &Group,
    members: &[Piece],
    capacity_limit: u64,
    per: u32,
) -> Result<Dispatch, OpError> {
    let count = group.pieces.len() as u64;
    let capacity = count.next_power_of_two().min(capacity_limit).max(count);
    let too_large = |size: u64| OpError::TooLarge {
        op: "copy",
        what: "a block copy's vectors",
        size,
        limit: u64::from(u32::MAX),
    };
    let word = |v: u64| u32::try_from(v).map_err(|_| too_large(v));
    let mut params = vec![word(count)?, 0, 0, 0];
    for (&(s, d, first), piece) in group.pieces.iter().zip(members) {
        // Below the binding sizes (each at most `u32::MAX` bytes): the vector offsets fit.
        let src_at = (piece.src_base - group.sources[s].start) / 16;
        let dst_at = (piece.dst_offset - group.targets[d].start) / 16;
        params.extend([
            word(first)?,
            word(piece.vectors)?,
            word(piece.phase)?,
            word(s as u64)?,
            word(src_at)?,
            word(d as u64)?,
            word(dst_at)?,
            0,
        ]);
    }
    params.resize(4 + 8 * capacity as usize, 0);
    let bindings: Vec<Binding<'_>> = group
        .sources
        .iter()
        .chain(&group.targets)
        .map(|b| Binding {
            buffer: &b.buffer,
            start: b.start,
            size: b.end - b.start,
        })
        .collect();
    let text: Arc<str> = wgsl(group.sources.len(), group.targets.len(), capacity, per).into();
    let kernel = Kernel {
        op: "copy",
        wgsl: text,
        workgroup_size: WORKGROUP,
        rows_per_thread: per,
    };
    kernel.dispatch(planner, &params, &bindings, group.workgroups)
}
