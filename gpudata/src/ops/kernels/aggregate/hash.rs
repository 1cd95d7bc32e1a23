//! The hash table that numbers sparse keys: every kept row's key inserted into an *ordered*
//! linear-probing table (Amble and Knuth; inserted concurrently by compare-exchange as in Shun
//! and Blelloch's phase-concurrent tables: a key displaces a larger one and carries it on, the
//! empty slot `u32::MAX` being the largest), whose final layout depends only on the set of keys
//! and the capacity, never on the order of insertion. Its occupied slots, scanned, number the
//! groups in slot order; the key `u32::MAX` (which marks an empty slot) has a flag word after
//! the slots and the last group. A probe that runs past the capacity sets an overflow word.
//!
//! Slots: `capacity` words, the flag of `u32::MAX`, the overflow word. Ranks: the exclusive scan
//! of the occupied slots and the flag (`capacity + 2` words, the last the group count).

use super::atomics::{HASH, Piece, fill, hash};
use super::{Lane, bind_mask, check_piece, declare_mask};
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::Dispatch;
use crate::ops::kernels::select::rows::{self, Span, WORKGROUP};
use crate::ops::kernels::select::scan::{Words, exclusive_scan};

/// The slots of a table for at most `max_groups` keys: twice as many, a power of two, at least
/// 256.
pub(crate) fn capacity_for(max_groups: u64) -> u64 {
    max_groups
        .saturating_mul(2)
        .max(256)
        .checked_next_power_of_two()
        .unwrap_or(1 << 63)
}

/// The host twin of the table: the slot order of `keys` (none `u32::MAX`, fewer distinct ones
/// than `capacity`, a power of two) in a table of `capacity` slots, as the concurrent insertion
/// leaves it (the keys inserted in increasing order with plain linear probing give the same
/// layout). Keys past a full table are left out.
pub(crate) fn slot_order(keys: &mut Vec<u32>, capacity: u64) -> Vec<u32> {
    keys.sort_unstable();
    keys.dedup();
    let cap = usize::try_from(capacity).unwrap_or(usize::MAX);
    let mut slots = vec![u32::MAX; cap];
    for &k in keys.iter().take(cap) {
        let mut p = hash(k) as usize & (cap - 1);
        while slots[p] != u32::MAX {
            p = (p + 1) & (cap - 1);
        }
        slots[p] = k;
    }
    slots.into_iter().filter(|&k| k != u32::MAX).collect()
}

/// The insertion pass over one run: parameters rows, key base, mask word base, capacity.
fn insert_kernel(lane: Lane, stride: u64, masked: bool) -> String {
    let mut wgsl = rows::header(4);
    wgsl += &rows::binding_decl(1, "kcol", "u32", false);
    let slots = declare_mask(&mut wgsl, masked);
    wgsl += &rows::binding_decl(slots, "slots", "atomic<u32>", true);
    wgsl += &lane.load_fn("kld", "kcol");
    wgsl += HASH;
    let skip = if masked {
        "    if (!bit(i)) { return; }\n"
    } else {
        ""
    };
    wgsl += &format!(
        "fn insert(key: u32, cap: u32) {{\n\
         \x20   var v = key;\n\
         \x20   var p = hash(v) & (cap - 1u);\n\
         \x20   for (var t = 0u; t < 4u * cap; t++) {{\n\
         \x20       let c = atomicLoad(&slots[p]);\n\
         \x20       if (c == v) {{ return; }}\n\
         \x20       if (v < c) {{\n\
         \x20           let r = atomicCompareExchangeWeak(&slots[p], c, v);\n\
         \x20           if (!r.exchanged) {{ continue; }}\n\
         \x20           if (c == 0xffffffffu) {{ return; }}\n\
         \x20           v = c;\n\
         \x20       }}\n\
         \x20       p = (p + 1u) & (cap - 1u);\n\
         \x20   }}\n\
         \x20   atomicStore(&slots[cap + 1u], 1u);\n\
         }}\n\
         @compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let i = group_index(wid, nwg) * {WORKGROUP}u + lid;\n\
         \x20   if (i >= param(0u)) {{ return; }}\n\
         {skip}\
         \x20   let k = kld(param(1u) + i * {stride}u);\n\
         \x20   let cap = param(3u);\n\
         \x20   if (k == 0xffffffffu) {{ atomicStore(&slots[cap], 1u); return; }}\n\
         \x20   insert(k, cap);\n\
         }}\n"
    );
    wgsl
}

/// A pass over slots `0..=capacity`: `occupied` (`occ` words), or each occupied slot's key
/// written at its rank (`keys`). Parameter: the capacity.
fn slot_kernel(keys: bool) -> String {
    let mut wgsl = rows::header(1);
    wgsl += &rows::binding_decl(1, "slots", "u32", false);
    let body = if keys {
        wgsl += &rows::binding_decl(2, "ranks", "u32", false);
        wgsl += &rows::binding_decl(3, "out", "u32", true);
        "    if (ranks[i + 1u] != ranks[i]) { out[ranks[i]] = select(slots[i], 0xffffffffu, i == cap); }\n"
    } else {
        wgsl += &rows::binding_decl(2, "occ", "u32", true);
        "    occ[i] = select(select(1u, 0u, slots[i] == 0xffffffffu), slots[i], i == cap);\n"
    };
    wgsl += &format!(
        "@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let i = group_index(wid, nwg) * {WORKGROUP}u + lid;\n\
         \x20   let cap = param(0u);\n\
         \x20   if (i > cap) {{ return; }}\n\
         {body}\
         }}\n"
    );
    wgsl
}

/// A table's buffers.
pub(crate) struct Built {
    pub slots: wgpu::Buffer,
    pub ranks: wgpu::Buffer,
    pub capacity: u64,
}

/// The dispatches inserting the kept keys of `pieces` (their `key` views, of lane `lane`) into a
/// new table of `capacity` slots, and numbering its slots.
///
/// # Errors
/// [`OpError::TooManyRows`] for a piece of more than 2³¹ rows; the dispatch errors.
pub(crate) fn build(
    planner: &Planner<'_>,
    op: &'static str,
    pieces: &[Piece<'_>],
    lane: Lane,
    capacity: u64,
) -> Result<(Vec<Dispatch>, Built), OpError> {
    let overflow = || OpError::Overflow { op, input: 0 };
    let limits = planner.device().limits();
    let align = rows::alignment(&limits);
    let words = capacity.checked_add(2).ok_or_else(overflow)?;
    let slots = rows::output_buffer(planner, op, words.checked_mul(4).ok_or_else(overflow)?)?;
    let mut dispatches = vec![fill(planner, op, &slots, words, (0, capacity))?];
    let cap = rows::base32(op, capacity)?;
    let wg = u64::from(WORKGROUP);
    for piece in pieces {
        let length = piece.key.length();
        check_piece(op, length)?;
        let span = Span::of(&piece.key);
        let wgsl = insert_kernel(lane, piece.key.byte_stride(), piece.mask.is_some());
        let masks: Vec<&wgpu::Buffer> = piece.mask.into_iter().collect();
        for (first, n) in rows::runs(op, &limits, length, 32 * wg, &[span], &masks)? {
            if n == 0 {
                continue;
            }
            let key = span.bind(op, first, n, align)?;
            let mut params = [rows::base32(op, n)?, rows::base32(op, key.base)?, 0, cap];
            let mut bindings = vec![key];
            if let Some(mask) = piece.mask {
                let bound = bind_mask(mask, first, n, align);
                params[2] = rows::base32(op, bound.base / 4)?;
                bindings.push(bound);
            }
            bindings.push(rows::bind(&slots, 0, slots.size(), align));
            dispatches.push(rows::dispatch(
                planner,
                op,
                &wgsl,
                &params,
                &bindings,
                n.div_ceil(wg),
            )?);
        }
    }
    let occ = rows::output_buffer(planner, op, (capacity + 1) * 4)?;
    dispatches.push(rows::dispatch(
        planner,
        op,
        &slot_kernel(false),
        &[cap],
        &[
            rows::bind(&slots, 0, slots.size(), align),
            rows::bind(&occ, 0, occ.size(), align),
        ],
        (capacity + 1).div_ceil(wg),
    )?);
    let (scan, ranks) = exclusive_scan(planner, op, Words::packed(&occ), capacity + 1)?;
    dispatches.extend(scan);
    Ok((
        dispatches,
        Built {
            slots,
            ranks,
            capacity,
        },
    ))
}

/// The dispatch writing each group's key into `out` (the group count's words).
///
/// # Errors
/// The dispatch errors.
pub(crate) fn keys(
    planner: &Planner<'_>,
    op: &'static str,
    built: &Built,
    out: &wgpu::Buffer,
) -> Result<Dispatch, OpError> {
    let align = rows::alignment(&planner.device().limits());
    rows::dispatch(
        planner,
        op,
        &slot_kernel(true),
        &[rows::base32(op, built.capacity)?],
        &[
            rows::bind(&built.slots, 0, built.slots.size(), align),
            rows::bind(&built.ranks, 0, built.ranks.size(), align),
            rows::bind(out, 0, out.size(), align),
        ],
        (built.capacity + 1).div_ceil(u64::from(WORKGROUP)),
    )
}
