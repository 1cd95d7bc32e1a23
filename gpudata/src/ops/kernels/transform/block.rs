//! Word-aligned blocks of bytes copied by a kernel: one `vec4<u32>` store per invocation into
//! the destination's 16-byte aligned body, from one aligned source vector, or from two
//! neighbouring ones where the source lies at another phase of 16 bytes. Real GPUs run such a
//! kernel at their memory bandwidth where `copy_buffer_to_buffer` may not (0.85 TB/s against
//! 3.98 on the H200's Vulkan driver; DESIGN.md decision 9); the re-layouts copy whole blocks
//! this way. The few words around a body are composed, one destination vector per invocation
//! (each word from a source, zero, or kept: [`EdgeVector`]), by the edge kernel, which also
//! stores the zeros of a fresh output's bytes no copy writes; its dispatches come first, in the
//! same pass, so that the body kernel is the copy alone.
//!
//! A re-layout's blocks run as few dispatches as the device allows ([`block_dispatches`]): one
//! kernel copies many blocks, each workgroup finding its block by a binary search over the
//! blocks' first workgroups in the uniform (a table of at most [`MAX_BLOCKS`] blocks: source and
//! destination binding, vector offsets, vector count and phase), every distinct source and
//! destination range bound once (`src0..`, `dst0..`, picked by a `switch` that is uniform
//! within a workgroup). A new dispatch starts where the storage bindings per shader stage or per
//! bind group, the uniform, or a `u32` of invocations would be exceeded, and where a block
//! reads a buffer another block of the dispatch writes. A block larger than one storage
//! binding is copied in parts. The edge kernel's table holds zero parts, then edge vectors (one
//! per invocation of the workgroups after the zero parts'); a word in a source's last vector
//! that is not whole (a buffer whose size is not a multiple of 16) is read through a `u32`
//! binding of its own (`wsrc0..`).

use std::sync::Arc;

use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::{Binding, Dispatch, Kernel};
use crate::ops::kernels::select::rows::WORKGROUP;
use crate::ops::kernels::split::max_binding_size;

use super::block_wgsl::{KEEP, WORD, ZERO, body_wgsl, edge_wgsl};

/// The most blocks one dispatch's uniform table holds (32 bytes each).
pub(crate) const MAX_BLOCKS: u64 = 256;

/// The most workgroups one dispatch runs: its invocations (folded into two dimensions, which
/// may add up to one row of workgroups) stay countable in a `u32`.
const MAX_WORKGROUPS: u64 = 1 << 23;

/// Vectors each invocation copies when the configuration does not say
/// ([`OpsConfig::rows_per_thread`](crate::ops::OpsConfig::rows_per_thread)). On an H100 one
/// 1 GiB block into a fresh output took 0.891, 0.847, 0.812 and 0.766 ms at 1, 2, 4 and 8
/// (into an initialized one: 0.779 ms at 1, 0.757 at 8; BENCHMARKS.md, session 12).
const VECTORS_PER_INVOCATION: u32 = 8;

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

/// One aligned part of a block copy: `vectors` vectors into `dst` from its 16-aligned byte
/// `dst_offset`, from the vectors of `src` from its 16-aligned byte `src_base` at `phase`
/// (reading one vector more when the phase is not 0), or zeros where `src` is `None`. Each
/// part fits one storage binding on either side, from its offsets rounded down to the storage
/// offset alignment.
#[derive(Clone, Debug)]
pub(crate) struct Piece {
    src: Option<wgpu::Buffer>,
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

/// One word a block copy moves outside its aligned body: 4 bytes from `src_offset` of `src`
/// to `dst_offset` of `dst`.
#[derive(Clone, Debug)]
pub(crate) struct EdgeWord {
    pub src: wgpu::Buffer,
    pub src_offset: u64,
    pub dst: wgpu::Buffer,
    pub dst_offset: u64,
}

/// What an edge vector stores in one of its words.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Word {
    /// The word the destination holds.
    Keep,
    /// Zero.
    Zero,
    /// The word at a byte offset of a buffer.
    From(wgpu::Buffer, u64),
}

/// A 16-byte destination vector (at the 16-aligned byte `at` of `dst`, inside it) that a block
/// kernel composes word by word: the words around block copies' bodies, and zeros.
#[derive(Clone, Debug)]
pub(crate) struct EdgeVector {
    pub dst: wgpu::Buffer,
    pub at: u64,
    pub words: [Word; 4],
}

impl EdgeVector {
    /// The source ranges the vector reads, and whether each is read as words: a word's whole
    /// source vector where it lies inside its buffer, else the word itself.
    fn reads(&self) -> impl Iterator<Item = (&wgpu::Buffer, u64, u64, bool)> {
        self.words.iter().filter_map(|word| match word {
            Word::From(src, at) => {
                let vector = at - at % 16;
                Some(if vector + 16 <= src.size() {
                    (src, vector, vector + 16, false)
                } else {
                    (src, *at, at + 4, true)
                })
            }
            _ => None,
        })
    }

    /// The storage bindings the vector needs in a dispatch of its own.
    pub(crate) fn bindings(&self) -> usize {
        let mut seen: Vec<(&wgpu::Buffer, bool)> = Vec::new();
        for (src, _, _, words) in self.reads() {
            if !seen.contains(&(src, words)) {
                seen.push((src, words));
            }
        }
        seen.len() + 1
    }
}

/// A block copy: the parts of its 16-byte aligned body, and the words before and after it (at
/// most three each, or a vector's four at the source's end).
pub(crate) struct BlockCopy {
    pub pieces: Vec<Piece>,
    pub words: Vec<EdgeWord>,
}

/// The device's storage offset alignment for block bindings (at least 16 bytes).
fn alignment(limits: &wgpu::Limits) -> u64 {
    u64::from(limits.min_storage_buffer_offset_alignment).max(16)
}

/// The most bytes of one part: each part binds from its offsets rounded down to the alignment
/// (at most `align - 16` bytes before it) and reads `extra` bytes more after it.
///
/// # Errors
/// [`OpError::TooLarge`] when the device's storage binding limit cannot hold one vector past
/// its offset alignment.
fn most_per_part(limits: &wgpu::Limits, extra: u64) -> Result<u64, OpError> {
    let align = alignment(limits);
    let most = max_binding_size(limits).saturating_sub(align + extra) / 16 * 16;
    if most == 0 {
        return Err(OpError::TooLarge {
            op: "copy",
            what: "a storage binding",
            size: align + extra + 16,
            limit: max_binding_size(limits),
        });
    }
    Ok(most)
}

/// The copy of `size` bytes from `src_offset` of `src` to `dst_offset` of `dst`, or `None` when
/// a kernel cannot do it: a buffer without `STORAGE` usage, one buffer on both sides (a binding
/// may not be read and written at once), or offsets or size off 4 bytes. A copy without a
/// 16-byte aligned vector of the destination inside it is words only.
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
    let aligned =
        src_offset.is_multiple_of(4) && dst_offset.is_multiple_of(4) && size.is_multiple_of(4);
    if !storage(src) || !storage(dst) || src == dst || !aligned {
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
    let mut words = Vec::new();
    let edge = |from: u64, to: u64, words: &mut Vec<EdgeWord>| {
        for at in (from..to).step_by(4) {
            words.push(EdgeWord {
                src: src.clone(),
                src_offset: src_offset + at,
                dst: dst.clone(),
                dst_offset: dst_offset + at,
            });
        }
    };
    // The destination's words before its first 16-byte boundary, and after its last.
    let head = (16 - dst_offset % 16) % 16;
    let Some(body) = size
        .checked_sub(head)
        .map(|rest| rest / 16 * 16)
        .filter(|b| *b > 0)
    else {
        edge(0, size, &mut words);
        return Ok(Some(BlockCopy {
            pieces: Vec::new(),
            words,
        }));
    };
    edge(0, head, &mut words);
    edge(head + body, size, &mut words);
    // The source's words past its 16-byte boundary: phase p reads one vector more, which must
    // lie inside the source buffer; where it does not, the last vector goes with the edges.
    let phase = (src_offset + head) % 16 / 4;
    let src_base = src_offset + head - phase * 4;
    let mut body = body;
    if phase > 0 && src_base.saturating_add(body + 16) > src.size() {
        body -= 16;
        edge(head + body, head + body + 16, &mut words);
    }
    let extra = if phase > 0 { 16 } else { 0 };
    let most = most_per_part(limits, extra)?;
    let dst_offset = dst_offset + head;
    let mut pieces = Vec::new();
    let mut done = 0;
    while done < body {
        let bytes = most.min(body - done);
        pieces.push(Piece {
            src: Some(src.clone()),
            src_base: src_base + done,
            phase,
            dst: dst.clone(),
            dst_offset: dst_offset + done,
            vectors: bytes / 16,
        });
        done += bytes;
    }
    Ok(Some(BlockCopy { pieces, words }))
}

/// The parts storing zeros into the 16-aligned bytes `[from, to)` of `dst`.
///
/// # Errors
/// As [`block_copy`]'s.
pub(crate) fn zero_pieces(
    limits: &wgpu::Limits,
    dst: &wgpu::Buffer,
    from: u64,
    to: u64,
) -> Result<Vec<Piece>, OpError> {
    let most = most_per_part(limits, 0)?;
    let mut pieces = Vec::new();
    let mut at = from;
    while at < to {
        let bytes = most.min(to - at);
        pieces.push(Piece {
            src: None,
            src_base: 0,
            phase: 4,
            dst: dst.clone(),
            dst_offset: at,
            vectors: bytes / 16,
        });
        at += bytes;
    }
    Ok(pieces)
}

/// A storage range a dispatch of blocks binds: `[start, end)` of `buffer`, `start` aligned.
#[derive(Clone)]
struct Bound {
    buffer: wgpu::Buffer,
    start: u64,
    end: u64,
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

/// Adds `[from, to)` of `buffer` to `bounds` (into a binding that can hold it, else a new
/// one); the binding's index.
fn bind(
    bounds: &mut Vec<Bound>,
    buffer: &wgpu::Buffer,
    (from, to): (u64, u64),
    align: u64,
    most: u64,
) -> usize {
    let start = from - from % align;
    match binding_for(bounds, buffer, from, to, align, most) {
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

/// The bindings of one dispatch of blocks: vector sources, word sources, destinations.
#[derive(Clone, Default)]
struct Bounds {
    sources: Vec<Bound>,
    words: Vec<Bound>,
    targets: Vec<Bound>,
}

impl Bounds {
    fn count(&self) -> usize {
        self.sources.len() + self.words.len() + self.targets.len()
    }

    /// Whether a buffer is bound both as a source and as a destination.
    fn crossed(&self) -> bool {
        self.targets.iter().any(|t| {
            self.sources
                .iter()
                .chain(&self.words)
                .any(|s| s.buffer == t.buffer)
        })
    }
}

/// The blocks of one dispatch, their bindings, and their workgroups so far: body entries
/// (source binding, destination binding, first workgroup) and edge entries (destination
/// binding, each word's binding and whether it is a word binding).
#[derive(Default)]
struct Group<'p> {
    pieces: Vec<(usize, usize, u64, &'p Piece)>,
    edges: Vec<(usize, [Read; 4], &'p EdgeVector)>,
    bounds: Bounds,
    workgroups: u64,
}

impl Group<'_> {
    fn entries(&self) -> u64 {
        (self.pieces.len() + self.edges.len()) as u64
    }

    /// Workgroups of the bodies, and of the edges after them.
    fn total_workgroups(&self, edges: usize) -> u64 {
        self.workgroups + (edges as u64).div_ceil(u64::from(WORKGROUP))
    }
}

/// The device's limits on one dispatch of blocks.
struct Limits {
    align: u64,
    most: u64,
    storage: u64,
    capacity: u64,
    span: u64,
}

/// A source binding, and whether it is a word binding.
type Read = (usize, bool);

/// An entry placed in a dispatch: the dispatch's bindings with its own, the source bindings of
/// its reads and its destination binding.
struct Placed {
    bounds: Bounds,
    reads: Vec<Read>,
    target: usize,
}

/// A body or edge entry's bindings added to the group's, or `None` where the dispatch cannot
/// take it: too many bindings or entries or workgroups, or a buffer both read and written.
fn place(group: &Group<'_>, limits: &Limits, item: Item<'_>) -> Option<Placed> {
    let mut bounds = group.bounds.clone();
    let (align, most) = (limits.align, limits.most);
    let mut reads = Vec::new();
    let target = match item {
        Item::Piece(piece) => {
            if let Some(src) = &piece.src {
                reads.push((
                    bind(&mut bounds.sources, src, piece.src_range(), align, most),
                    false,
                ));
            }
            bind(
                &mut bounds.targets,
                &piece.dst,
                piece.dst_range(),
                align,
                most,
            )
        }
        Item::Edge(vector) => {
            for (src, from, to, words) in vector.reads() {
                let list = if words {
                    &mut bounds.words
                } else {
                    &mut bounds.sources
                };
                reads.push((bind(list, src, (from, to), align, most), words));
            }
            bind(
                &mut bounds.targets,
                &vector.dst,
                (vector.at, vector.at + 16),
                align,
                most,
            )
        }
    };
    let (edges, workgroups) = match item {
        Item::Piece(piece) => (0, piece.vectors.div_ceil(limits.span)),
        Item::Edge(_) => (1, 0),
    };
    let fits = bounds.count() as u64 <= limits.storage
        && group.entries() < limits.capacity
        && group.total_workgroups(group.edges.len() + edges) + workgroups <= MAX_WORKGROUPS
        && bounds.count() < WORD as usize
        && !bounds.crossed();
    fits.then_some(Placed {
        bounds,
        reads,
        target,
    })
}

/// A body part or an edge vector, as a dispatch takes it.
#[derive(Clone, Copy)]
enum Item<'p> {
    Piece(&'p Piece),
    Edge(&'p EdgeVector),
}

/// The dispatches copying `pieces` and composing `vectors` (in any order: their destinations
/// are disjoint, each edge vector's words are written by nothing else of theirs, and none
/// reads what another writes), as few as the device's limits allow. Every edge vector needs at
/// most the storage bindings one dispatch may use ([`EdgeVector::bindings`]).
///
/// # Errors
/// [`OpError::TooManyBindings`] when the device cannot bind one source and one destination;
/// the errors of [`Kernel::dispatch`].
pub(crate) fn block_dispatches(
    planner: &Planner<'_>,
    pieces: &[Piece],
    vectors: &[EdgeVector],
) -> Result<Vec<Dispatch>, OpError> {
    let device_limits = planner.device().limits();
    let per = vectors_per_invocation(planner);
    let limits = Limits {
        align: alignment(&device_limits),
        most: max_binding_size(&device_limits),
        storage: storage_bindings(&device_limits),
        capacity: (device_limits
            .max_uniform_buffer_binding_size
            .saturating_sub(16)
            / 32)
            .clamp(1, MAX_BLOCKS),
        span: u64::from(WORKGROUP) * u64::from(per),
    };
    // Zeros and edge vectors first, in a kernel of their own (a few workgroups next to the
    // bodies'), then the bodies.
    let (copies, zeros): (Vec<&Piece>, Vec<&Piece>) = pieces.iter().partition(|p| p.src.is_some());
    let edge_items: Vec<Item<'_>> = zeros
        .into_iter()
        .map(Item::Piece)
        .chain(vectors.iter().map(Item::Edge))
        .collect();
    let body_items: Vec<Item<'_>> = copies.into_iter().map(Item::Piece).collect();
    let mut dispatches = Vec::new();
    for (items, edges) in [(edge_items, true), (body_items, false)] {
        for group in groups(items, &limits)? {
            dispatches.push(group_dispatch(planner, &group, &limits, per, edges)?);
        }
    }
    Ok(dispatches)
}

/// `items` in groups of one dispatch each, in order, as few as `limits` allow.
fn groups<'p>(items: Vec<Item<'p>>, limits: &Limits) -> Result<Vec<Group<'p>>, OpError> {
    let mut groups: Vec<Group<'_>> = Vec::new();
    let mut group = Group::default();
    for item in items {
        let placed = match place(&group, limits, item) {
            Some(placed) => placed,
            None => {
                if group.entries() > 0 {
                    groups.push(std::mem::take(&mut group));
                }
                // An empty group takes one source and one destination, and any edge vector
                // (the caller's promise).
                place(&group, limits, item).ok_or(OpError::TooManyBindings {
                    op: "copy",
                    what: "storage buffers per shader stage",
                    needed: match item {
                        Item::Piece(_) => 2,
                        Item::Edge(vector) => vector.bindings() as u64,
                    },
                    limit: limits.storage,
                })?
            }
        };
        let Placed {
            bounds,
            reads,
            target,
        } = placed;
        group.bounds = bounds;
        match item {
            Item::Piece(piece) => {
                let source = reads.first().map_or(0, |r| r.0);
                group.pieces.push((source, target, group.workgroups, piece));
                group.workgroups += piece.vectors.div_ceil(limits.span);
            }
            Item::Edge(vector) => {
                let mut words = [(0, false); 4];
                let mut next = reads.into_iter();
                for (slot, word) in words.iter_mut().zip(&vector.words) {
                    if let Word::From(..) = word {
                        *slot = next.next().unwrap_or((0, false));
                    }
                }
                group.edges.push((target, words, vector));
            }
        }
    }
    if group.entries() > 0 {
        groups.push(group);
    }
    Ok(groups)
}

/// Storage bindings one dispatch may use: per shader stage, and per bind group beside the
/// uniform (at least two).
pub(crate) fn storage_bindings(limits: &wgpu::Limits) -> u64 {
    u64::from(limits.max_storage_buffers_per_shader_stage)
        .min(u64::from(limits.max_bindings_per_bind_group).saturating_sub(1))
        .max(2)
}

/// The dispatch of one group of blocks.
/// The dispatch of one group of blocks: of the edge kernel (zeros and edge vectors) or of the
/// body kernel (copies).
fn group_dispatch(
    planner: &Planner<'_>,
    group: &Group<'_>,
    limits: &Limits,
    per: u32,
    edges: bool,
) -> Result<Dispatch, OpError> {
    let count = group.entries();
    let capacity = count.next_power_of_two().min(limits.capacity).max(count);
    let too_large = |size: u64| OpError::TooLarge {
        op: "copy",
        what: "a block copy's vectors",
        size,
        limit: u64::from(u32::MAX),
    };
    let word = |v: u64| u32::try_from(v).map_err(|_| too_large(v));
    let bounds = &group.bounds;
    let mut params = vec![
        word(group.pieces.len() as u64)?,
        word(group.workgroups)?,
        word(group.edges.len() as u64)?,
        0,
    ];
    for &(s, d, first, piece) in &group.pieces {
        // Below the binding sizes (each at most `u32::MAX` bytes): the vector offsets fit.
        let src_at = match piece.src {
            Some(_) => (piece.src_base - bounds.sources[s].start) / 16,
            None => 0,
        };
        let dst_at = (piece.dst_offset - bounds.targets[d].start) / 16;
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
    for (d, reads, vector) in &group.edges {
        let mut modes = [0u32; 4];
        let mut at = [0u32; 4];
        for (k, w) in vector.words.iter().enumerate() {
            let (binding, words) = reads[k];
            (modes[k], at[k]) = match w {
                Word::Keep => (KEEP, 0),
                Word::Zero => (ZERO, 0),
                Word::From(_, offset) if words => (
                    WORD + word(binding as u64)?,
                    word((offset - bounds.words[binding].start) / 4)?,
                ),
                Word::From(_, offset) => (
                    word(binding as u64)?,
                    word((offset - bounds.sources[binding].start) / 4)?,
                ),
            };
        }
        let dst_at = (vector.at - bounds.targets[*d].start) / 16;
        params.extend([
            word(*d as u64)?,
            word(dst_at)?,
            modes[0] | modes[1] << 16,
            modes[2] | modes[3] << 16,
        ]);
        params.extend(at);
    }
    params.resize(4 + 8 * capacity as usize, 0);
    let bindings: Vec<Binding<'_>> = bounds
        .sources
        .iter()
        .chain(&bounds.words)
        .chain(&bounds.targets)
        .map(|b| Binding {
            buffer: &b.buffer,
            start: b.start,
            size: b.end - b.start,
        })
        .collect();
    let text: Arc<str> = if edges {
        edge_wgsl(
            bounds.sources.len(),
            bounds.words.len(),
            bounds.targets.len(),
            capacity,
            per,
        )
    } else {
        body_wgsl(bounds.sources.len(), bounds.targets.len(), capacity, per)
    }
    .into();
    let kernel = Kernel {
        op: "copy",
        wgsl: text,
        workgroup_size: WORKGROUP,
        rows_per_thread: per,
    };
    kernel.dispatch(
        planner,
        &params,
        &bindings,
        group.total_workgroups(group.edges.len()),
    )
}
