//! The WGSL of the radix sort's two kernels of a pass: the per-workgroup digit histogram
//! (`upsweep`) and the stable scatter (`downsweep`).
//!
//! A pass sorts elements of one to three 32-bit words by the 8-bit digit `(word >> shift) & 255`
//! of one of them (the *digit word*). Workgroups own consecutive blocks of `tiles` tiles of
//! `256 × per_thread` elements. The upsweep counts each block's digits into `hist[digit ×
//! blocks + block]`; the exclusive scan of that array ([`scan`](crate::ops::kernels::select::scan))
//! is where each block's elements of each digit go. The downsweep ranks each tile's elements
//! stably by digit, stages them in workgroup memory in that order (so that stores of
//! consecutive invocations are consecutive) and writes them from the block's running digit
//! offsets, which then advance by the tile's counts.
//!
//! Ranking, in one of two ways:
//! - with subgroups (when every subgroup of the workgroup is full, which the kernel checks as
//!   the mask kernel does): subgroup `s` ranks elements `s × size × per_thread ..` in rounds of
//!   `size` consecutive elements; each round finds the lanes holding the same digit with eight
//!   ballots, and the lowest of them adds their count to the subgroup's digit counters (16-bit
//!   halves of shared words) and hands the old count to the others with a shuffle;
//! - otherwise, eight stable one-bit splits of `(digit << 16) | element` words in workgroup
//!   memory (each a workgroup scan of the ones), then each element's place read back.
//!
//! Elements past the last row are padding whose digit word is `0xffffffff`: they rank after
//! every real element of the tile (digit 255, last in order) and are never stored.
//!
//! Every word is read through `load{i}(e)` and written through `store{i}(g, v)`, which pick
//! the binding part holding element `e` or place `g` ([`parts`](super::parts): one part, no
//! comparison).

use super::parts::Slot;
use crate::ops::kernels::select::reduce::Order;
use crate::ops::kernels::select::rows::{self, WORKGROUP};

/// How keys map to the unsigned words the passes sort: the order of their format, inverted
/// for a descending sort.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeyOrder {
    pub order: Order,
    pub descending: bool,
}

impl KeyOrder {
    /// The masks of the mapping, parameters of the kernels so that their text is the same for
    /// every key format and order: a key `u` sorts as `u ^ m[top bit of u]` (`m[0]`, `m[1]`),
    /// and a sorted word `k` maps back as `k ^ m[2 + top bit of k]`. Floats: a clear sign sets
    /// it, a set sign inverts every bit (sign-magnitude to two's complement order, `-0 < +0`);
    /// signed integers: the sign flipped; descending: every bit inverted after that.
    pub(crate) fn masks(&self) -> [u32; 4] {
        const SIGN: u32 = 0x8000_0000;
        let (a, b) = match self.order {
            Order::Unsigned => (0, 0),
            Order::Signed => (SIGN, SIGN),
            Order::Float => (SIGN, u32::MAX),
        };
        let flip = if self.descending { u32::MAX } else { 0 };
        let (a, b) = (a ^ flip, b ^ flip);
        // Keys with a clear top bit sort with the top bit of `a`, the others with the other
        // one (or both with one mask): the sorted word's top bit says which mask it took.
        let (c, d) = if a == b || a & SIGN == 0 {
            (a, b)
        } else {
            (b, a)
        };
        [a, b, c, d]
    }

    /// The word a key's bits sort as (the host twin of the kernels' `key_in`).
    pub(crate) fn sort_word(&self, bits: u32) -> u32 {
        bits ^ self.masks()[(bits >> 31) as usize]
    }
}

/// The mapping's functions over the masks in parameters 4 to 7.
const KEY_MAPS: &str =
    "fn key_in(u: u32) -> u32 { return u ^ select(param(4u), param(5u), (u >> 31u) == 1u); }
    fn key_out(k: u32) -> u32 { return k ^ select(param(6u), param(7u), (k >> 31u) == 1u); }
";

/// Where a pass reads one word of its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// Packed words of a buffer of the sort's own.
    Packed,
    /// 4-byte rows of an input view, `stride` bytes apart from the byte base in the uniform;
    /// `aligned` when the rows start on whole words.
    Strided { stride: u64, aligned: bool },
    /// The element's row number.
    RowId,
}

/// One word of a pass's elements: where it comes from, whether it is a key to map into the
/// sorted order as it is read, and what the pass does with it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Word {
    pub source: Source,
    pub key_in: bool,
    pub store: bool,
    pub key_out: bool,
}

/// The subgroups a kernel ranks with: the most a workgroup holds (at the adapter's smallest
/// subgroup size) and the most lanes one has (32, ballots in one word, or 128, in four).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Subgroups {
    pub most: u32,
    pub lanes: u32,
}

impl Subgroups {
    /// The WGSL type of a lane mask.
    fn mask(&self) -> &'static str {
        if self.lanes <= 32 { "u32" } else { "vec4<u32>" }
    }

    /// The number of lanes set in the mask `m`.
    fn count(&self, m: &str) -> String {
        if self.lanes <= 32 {
            format!("countOneBits({m})")
        } else {
            format!("dot(countOneBits({m}), vec4<u32>(1u))")
        }
    }

    /// A ballot as a lane mask.
    fn ballot(&self, predicate: &str) -> String {
        if self.lanes <= 32 {
            format!("subgroupBallot({predicate}).x")
        } else {
            format!("subgroupBallot({predicate})")
        }
    }

    /// `lanes_below(n)`, the lanes below `n`, and `first_lane(m)`, the lowest lane of a mask.
    fn functions(&self) -> &'static str {
        if self.lanes <= 32 {
            "fn lanes_below(n: u32) -> u32 { return select((1u << (n & 31u)) - 1u, 0xffffffffu, n >= 32u); }\n\
             fn first_lane(m: u32) -> u32 { return firstTrailingBit(m); }\n"
        } else {
            LANE_MASKS
        }
    }
}

/// The tiling of a pass: elements per invocation per tile, and the subgroups of a kernel that
/// ranks with them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tiling {
    pub per_thread: u32,
    pub subgroups: Option<Subgroups>,
}

impl Tiling {
    /// Elements per tile.
    pub(crate) fn tile(&self) -> u32 {
        WORKGROUP * self.per_thread
    }

    /// Bytes of workgroup memory the downsweep declares.
    pub(crate) fn workgroup_bytes(&self) -> u64 {
        let words = u64::from(self.tile())
            + 4 * 256
            + self.subgroups.map_or(0, |g| u64::from(g.most) * 129 + 9);
        words * 4
    }
}

/// `fn load{i}(e: u32) -> u32`: word `i` of element `e` (a row), from the parts `src{i}_{p}` of
/// `slot` (their splits and byte bases in the uniform).
fn load_fn(i: usize, word: &Word, slot: Slot) -> String {
    let mut out = String::new();
    let mapped = |raw: String| {
        if word.key_in {
            format!("key_in({raw})")
        } else {
            raw
        }
    };
    if word.source == Source::RowId {
        return format!(
            "fn load{i}(e: u32) -> u32 {{ return {}; }}\n",
            mapped("e".to_owned())
        );
    }
    if let Source::Strided { aligned: false, .. } = word.source {
        for p in 0..slot.parts {
            let src = format!("src{i}_{p}");
            out += &format!(
                "fn word{i}_{p}(a: u32) -> u32 {{\n\
                 \x20   let w = a >> 2u;\n\
                 \x20   let s = (a & 3u) * 8u;\n\
                 \x20   if (s == 0u) {{ return {src}[w]; }}\n\
                 \x20   return ({src}[w] >> s) | ({src}[w + 1u] << (32u - s));\n\
                 }}\n"
            );
        }
    }
    let body = slot.by_part("e", |p, local| {
        let b = slot.base(p);
        let raw = match word.source {
            Source::Strided {
                stride,
                aligned: true,
            } => format!("src{i}_{p}[(param({b}u) + {local} * {stride}u) >> 2u]"),
            Source::Strided {
                stride,
                aligned: false,
            } => format!("word{i}_{p}(param({b}u) + {local} * {stride}u)"),
            _ => format!("src{i}_{p}[(param({b}u) >> 2u) + {local}]"),
        };
        format!("return {};", mapped(raw))
    });
    out += &format!("fn load{i}(e: u32) -> u32 {{\n{body}}}\n");
    out
}

/// The upsweep: each block's digit counts of the digit word `word` into `hist` (binding 1), the
/// word read from its `parts` parts (bindings 2, 3, …, slot 0). Parameters as
/// [`parts`](super::parts) lays them out.
pub(crate) fn upsweep(word: &Word, tiling: Tiling, parts: usize) -> String {
    let tile = tiling.tile();
    let (slots, params) = Slot::layout(&[parts]);
    let mut wgsl = rows::header(params);
    wgsl += &rows::binding_decl(1, "hist", "u32", true);
    if word.source != Source::RowId {
        for p in 0..parts {
            wgsl += &rows::binding_decl(2 + p, &format!("src0_{p}"), "u32", false);
        }
    }
    wgsl += KEY_MAPS;
    wgsl += &load_fn(0, word, slots[0]);
    // Every load of a tile is issued before any is counted; runs of one digit (sorted or
    // equal keys) are counted with one atomic.
    let mut loads = String::new();
    let mut counts = String::new();
    for j in 0..tiling.per_thread {
        loads += &format!(
            "        let e{j} = first + {}u + lid;\n\
             \x20       var k{j} = 0u;\n\
             \x20       if (e{j} < n) {{ k{j} = load0(e{j}); }}\n",
            j * WORKGROUP
        );
        counts += &format!(
            "        if (e{j} < n) {{\n\
             \x20           let d = (k{j} >> shift) & 0xffu;\n\
             \x20           if (d == cur) {{ run += 1u; }} else {{\n\
             \x20               if (run > 0u) {{ atomicAdd(&h[cur], run); }}\n\
             \x20               cur = d;\n\
             \x20               run = 1u;\n\
             \x20           }}\n\
             \x20       }}\n"
        );
    }
    wgsl += &format!(
        "var<workgroup> h: array<atomic<u32>, 256>;\n\
         @compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let block = group_index(wid, nwg);\n\
         \x20   let n = param(0u);\n\
         \x20   let tiles = param(1u);\n\
         \x20   let shift = param(2u);\n\
         \x20   let blocks = param(3u);\n\
         \x20   var cur = 0xffffffffu;\n\
         \x20   var run = 0u;\n\
         \x20   for (var t = 0u; t < tiles; t++) {{\n\
         \x20       let tile_index = block * tiles + t;\n\
         \x20       if (tile_index > (n - 1u) / {tile}u) {{ break; }}\n\
         \x20       let first = tile_index * {tile}u;\n\
         {loads}{counts}\
         \x20   }}\n\
         \x20   if (run > 0u) {{ atomicAdd(&h[cur], run); }}\n\
         \x20   workgroupBarrier();\n\
         \x20   hist[lid * blocks + block] = atomicLoad(&h[lid]);\n\
         }}\n"
    );
    wgsl
}

/// The exclusive scan of one value per invocation over the workgroup (`.x`) and the total
/// (`.y`), in `scan_buf`; every invocation must call it.
const BLOCK_SCAN: &str = "fn block_scan(lid: u32, v: u32) -> vec2<u32> {\n\
    \x20   scan_buf[lid] = v;\n\
    \x20   workgroupBarrier();\n\
    \x20   for (var s = 1u; s < 256u; s <<= 1u) {\n\
    \x20       var t = scan_buf[lid];\n\
    \x20       if (lid >= s) { t += scan_buf[lid - s]; }\n\
    \x20       workgroupBarrier();\n\
    \x20       scan_buf[lid] = t;\n\
    \x20       workgroupBarrier();\n\
    \x20   }\n\
    \x20   let inclusive = scan_buf[lid];\n\
    \x20   let total = scan_buf[255];\n\
    \x20   workgroupBarrier();\n\
    \x20   return vec2<u32>(inclusive - v, total);\n\
    }\n";

/// Lane masks of subgroups up to 128 lanes: the lanes below `n`, and the lowest lane of a mask.
const LANE_MASKS: &str = "fn lanes_below(n: u32) -> vec4<u32> {\n\
    \x20   var m = vec4<u32>(0u);\n\
    \x20   for (var c = 0u; c < 4u; c++) {\n\
    \x20       let s = n - min(n, c * 32u);\n\
    \x20       m[c] = select((1u << (s & 31u)) - 1u, 0xffffffffu, s >= 32u);\n\
    \x20   }\n\
    \x20   return m;\n\
    }\n\
    fn first_lane(m: vec4<u32>) -> u32 {\n\
    \x20   if (m.x != 0u) { return firstTrailingBit(m.x); }\n\
    \x20   if (m.y != 0u) { return 32u + firstTrailingBit(m.y); }\n\
    \x20   if (m.z != 0u) { return 64u + firstTrailingBit(m.z); }\n\
    \x20   return 96u + firstTrailingBit(m.w);\n\
    }\n";

/// The subgroup ranking of a tile: `lp{j}` of every element, `dcount` and `dstart` of every
/// digit.
fn rank_subgroups(per_thread: u32, groups: Subgroups) -> String {
    let mask = groups.mask();
    let mut rounds = String::new();
    for j in 0..per_thread {
        let mut ballots = String::new();
        for b in 0..8 {
            ballots += &format!(
                "        let b{b} = ((dg{j} >> {b}u) & 1u) != 0u;\n\
                 \x20       let v{b} = {};\n\
                 \x20       peers &= select(~v{b}, v{b}, b{b});\n",
                groups.ballot(&format!("b{b}"))
            );
        }
        rounds += &format!(
            "    var r{j} = 0u;\n\
             \x20   {{\n\
             \x20       var peers = lanes_all;\n\
             {ballots}\
             \x20       let rank = {};\n\
             \x20       let half = (dg{j} & 1u) * 16u;\n\
             \x20       var old = 0u;\n\
             \x20       if (rank == 0u) {{ old = atomicAdd(&whist[sg * 128u + (dg{j} >> 1u)], {} << half); }}\n\
             \x20       r{j} = ((subgroupShuffle(old, first_lane(peers)) >> half) & 0xffffu) + rank;\n\
             \x20   }}\n",
            groups.count("peers & lanes_lt"),
            groups.count("peers"),
        );
    }
    let mut places = String::new();
    for j in 0..per_thread {
        places += &format!(
            "    lp{j} = dstart[dg{j}] + ((atomicLoad(&whist[sg * 128u + (dg{j} >> 1u)]) >> ((dg{j} & 1u) * 16u)) & 0xffffu) + r{j};\n"
        );
    }
    format!(
        "    for (var i = lid; i < {words}u; i += {WORKGROUP}u) {{ atomicStore(&whist[i], 0u); }}\n\
         \x20   workgroupBarrier();\n\
         \x20   let lanes_all: {mask} = lanes_below(ss);\n\
         \x20   let lanes_lt: {mask} = lanes_below(sid);\n\
         {rounds}\
         \x20   workgroupBarrier();\n\
         \x20   if (lid < 128u) {{\n\
         \x20       var run = 0u;\n\
         \x20       for (var w = 0u; w < {WORKGROUP}u / ss; w++) {{\n\
         \x20           let at = w * 128u + lid;\n\
         \x20           let x = atomicLoad(&whist[at]);\n\
         \x20           atomicStore(&whist[at], run);\n\
         \x20           run += x;\n\
         \x20       }}\n\
         \x20       dcount[2u * lid] = run & 0xffffu;\n\
         \x20       dcount[2u * lid + 1u] = run >> 16u;\n\
         \x20   }}\n\
         \x20   workgroupBarrier();\n\
         \x20   let digit = sg * ss + sid;\n\
         \x20   let count = dcount[digit];\n\
         \x20   let before = subgroupExclusiveAdd(count);\n\
         \x20   if (sid == ss - 1u) {{ wsum[sg] = before + count; }}\n\
         \x20   workgroupBarrier();\n\
         \x20   var pre = 0u;\n\
         \x20   for (var w = 0u; w < sg; w++) {{ pre += wsum[w]; }}\n\
         \x20   dstart[digit] = pre + before;\n\
         \x20   workgroupBarrier();\n\
         {places}",
        words = groups.most * 128,
    )
}

/// The ranking of a tile without subgroups: eight stable one-bit splits of `(digit << 16) |
/// element` words, blocked `per_thread` to an invocation; the digit starts by binary search;
/// each element's place by inverting the order in place.
fn rank_splits(per_thread: u32) -> String {
    let tile = per_thread * WORKGROUP;
    let mut marks = String::new();
    let mut reads = String::new();
    let mut moves = String::new();
    let mut held = String::new();
    let mut inverts = String::new();
    let mut places = String::new();
    for j in 0..per_thread {
        marks += &format!("    stage[e{j}] = (dg{j} << 16u) | e{j};\n");
        places += &format!("    lp{j} = stage[e{j}];\n");
    }
    for q in 0..per_thread {
        reads += &format!(
            "        let h{q} = stage[lid * {per_thread}u + {q}u];\n\
             \x20       ones += (h{q} >> bit) & 1u;\n"
        );
        moves += &format!(
            "        if (((h{q} >> bit) & 1u) == 0u) {{ stage[z] = h{q}; z += 1u; }} else {{ stage[o] = h{q}; o += 1u; }}\n"
        );
        held += &format!("    let g{q} = stage[lid * {per_thread}u + {q}u];\n");
        inverts += &format!("    stage[g{q} & 0xffffu] = lid * {per_thread}u + {q}u;\n");
    }
    format!(
        "{marks}\
         \x20   workgroupBarrier();\n\
         \x20   for (var bit = 16u; bit < 24u; bit++) {{\n\
         \x20       var ones = 0u;\n\
         {reads}\
         \x20       let sc = block_scan(lid, ones);\n\
         \x20       var z = lid * {per_thread}u - sc.x;\n\
         \x20       var o = {tile}u - sc.y + sc.x;\n\
         {moves}\
         \x20       workgroupBarrier();\n\
         \x20   }}\n\
         \x20   {{\n\
         \x20       var lo = 0u;\n\
         \x20       var hi = {tile}u;\n\
         \x20       loop {{\n\
         \x20           if (lo >= hi) {{ break; }}\n\
         \x20           let mid = (lo + hi) >> 1u;\n\
         \x20           if ((stage[mid] >> 16u) < lid) {{ lo = mid + 1u; }} else {{ hi = mid; }}\n\
         \x20       }}\n\
         \x20       dstart[lid] = lo;\n\
         \x20   }}\n\
         \x20   workgroupBarrier();\n\
         \x20   dcount[lid] = select({tile}u, dstart[min(lid + 1u, 255u)], lid < 255u) - dstart[lid];\n\
         {held}\
         \x20   workgroupBarrier();\n\
         {inverts}\
         \x20   workgroupBarrier();\n\
         {places}\
         \x20   workgroupBarrier();\n"
    )
}

/// The downsweep of a pass over elements of `words`, ranked by the digit of word `digit`.
/// Bindings: 1 the scanned histogram, then the parts of a source per word not a row id, then
/// those of an output per stored word (slots in that order, `parts[s]` parts in slot `s`). Parameters as
/// [`parts`](super::parts) lays them out (`limit`: a row whose place is at or past it is not
/// stored).
pub(crate) fn downsweep(words: &[Word], digit: usize, tiling: Tiling, parts: &[usize]) -> String {
    let per_thread = tiling.per_thread;
    let tile = tiling.tile();
    let sources: Vec<usize> = (0..words.len())
        .filter(|&i| words[i].source != Source::RowId)
        .collect();
    let stored: Vec<usize> = (0..words.len()).filter(|&i| words[i].store).collect();
    let (slots, params) = Slot::layout(parts);
    let mut wgsl = rows::header(params);
    wgsl += &rows::binding_decl(1, "offsets", "u32", false);
    let mut binding = 2;
    let mut slot = slots.iter();
    for (names, writable) in [(&sources, false), (&stored, true)] {
        let kind = if writable { "dst" } else { "src" };
        for &i in names {
            let parts = slot.next().map_or(1, |s| s.parts);
            for p in 0..parts {
                wgsl += &rows::binding_decl(binding, &format!("{kind}{i}_{p}"), "u32", writable);
                binding += 1;
            }
        }
    }
    wgsl += KEY_MAPS;
    let one = Slot {
        parts: 1,
        first: params,
    };
    for (i, w) in words.iter().enumerate() {
        // A row id's word has no slot (and reads none).
        let slot = sources.iter().position(|&s| s == i);
        wgsl += &load_fn(
            i,
            w,
            slot.and_then(|s| slots.get(s).copied()).unwrap_or(one),
        );
    }
    for (k, &i) in stored.iter().enumerate() {
        wgsl += &slots
            .get(sources.len() + k)
            .copied()
            .unwrap_or(one)
            .store_fn(i);
    }
    wgsl += &format!(
        "var<workgroup> stage: array<u32, {tile}>;\n\
         var<workgroup> dcount: array<u32, 256>;\n\
         var<workgroup> dstart: array<u32, 256>;\n\
         var<workgroup> gbase: array<u32, 256>;\n\
         var<workgroup> scan_buf: array<u32, 256>;\n"
    );
    wgsl += BLOCK_SCAN;
    let mut elements = String::new();
    let mut loads = String::new();
    for j in 0..per_thread {
        elements += &if tiling.subgroups.is_some() {
            format!(
                "        let e{j} = select({}u + lid, own + {j}u * ss + sid, whole);\n",
                j * WORKGROUP
            )
        } else {
            format!("        let e{j} = {}u + lid;\n", j * WORKGROUP)
        };
        for (i, _) in words.iter().enumerate() {
            let pad = if i == digit { "0xffffffffu" } else { "0u" };
            loads += &format!(
                "        var w{i}_{j} = {pad};\n\
                 \x20       if (e{j} < valid) {{ w{i}_{j} = load{i}(first + e{j}); }}\n"
            );
        }
        loads += &format!(
            "        let dg{j} = (w{digit}_{j} >> shift) & 0xffu;\n\
             \x20       var lp{j} = 0u;\n"
        );
    }
    let indent = |text: String| -> String {
        text.lines()
            .map(|l| format!("        {l}\n"))
            .collect::<String>()
    };
    let ranking = match tiling.subgroups {
        Some(groups) => format!(
            "        if (whole) {{\n{}        }} else {{\n{}        }}\n",
            indent(rank_subgroups(per_thread, groups)),
            indent(rank_splits(per_thread))
        ),
        None => format!(
            "        {{\n{}        }}\n",
            indent(rank_splits(per_thread))
        ),
    };
    let scatter = scatter(words, digit, per_thread);
    let (subgroup_decls, builtins, whole) = match tiling.subgroups {
        Some(groups) => (
            format!(
                "var<workgroup> whist: array<atomic<u32>, {}>;\n\
                 var<workgroup> wsum: array<u32, {}>;\n\
                 var<workgroup> seen: array<atomic<u32>, 8>;\n\
                 var<workgroup> full: u32;\n{}",
                groups.most * 128,
                groups.most,
                groups.functions(),
            ),
            ",\n        @builtin(subgroup_invocation_id) sid: u32, @builtin(subgroup_size) ss: u32,\n        \
             @builtin(subgroup_id) sg: u32",
            // Every subgroup full and of a size the counters are sized for: lanes
            // `sg × ss + sid` then number the workgroup's invocations once each.
            format!(
                "    let lane = sg * ss + sid;\n\
                 \x20   if (lane < {WORKGROUP}u && ss <= {lanes}u) {{ atomicOr(&seen[lane >> 5u], 1u << (lane & 31u)); }}\n\
                 \x20   workgroupBarrier();\n\
                 \x20   if (lid == 0u) {{\n\
                 \x20       var all = u32(ss >= {}u && ss <= {lanes}u);\n\
                 \x20       for (var i = 0u; i < 8u; i++) {{ if (atomicLoad(&seen[i]) != 0xffffffffu) {{ all = 0u; }} }}\n\
                 \x20       full = all;\n\
                 \x20   }}\n\
                 \x20   let whole = workgroupUniformLoad(&full) == 1u;\n\
                 \x20   let own = sg * ss * {per_thread}u;\n",
                WORKGROUP / groups.most,
                lanes = groups.lanes,
            ),
        ),
        None => (String::new(), "", String::new()),
    };
    wgsl += &subgroup_decls;
    wgsl += &format!(
        "@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
         \x20       @builtin(local_invocation_index) lid: u32{builtins}) {{\n\
         \x20   let block = group_index(wid, nwg);\n\
         \x20   let n = param(0u);\n\
         \x20   let tiles = param(1u);\n\
         \x20   let shift = param(2u);\n\
         \x20   let blocks = param(3u);\n\
         \x20   let limit = param(8u);\n\
         {whole}\
         \x20   gbase[lid] = offsets[lid * blocks + block];\n\
         \x20   for (var t = 0u; t < tiles; t++) {{\n\
         \x20       let tile_index = block * tiles + t;\n\
         \x20       if (tile_index > (n - 1u) / {tile}u) {{ break; }}\n\
         \x20       let first = tile_index * {tile}u;\n\
         \x20       let valid = min(n - first, {tile}u);\n\
         {elements}{loads}{ranking}{scatter}\
         \x20       workgroupBarrier();\n\
         \x20       gbase[lid] += dcount[lid];\n\
         \x20       workgroupBarrier();\n\
         \x20   }}\n\
         }}\n"
    );
    wgsl
}

/// The stores of a ranked tile: the digit word staged in order first (its digit gives every
/// place `g{q}`), then each other stored word.
fn scatter(words: &[Word], digit: usize, per_thread: u32) -> String {
    let stage_word = |i: usize| -> String {
        let mut s = String::from("        workgroupBarrier();\n");
        for j in 0..per_thread {
            s += &format!("        stage[lp{j}] = w{i}_{j};\n");
        }
        s += "        workgroupBarrier();\n";
        s
    };
    let map = |w: &Word, x: &str| {
        if w.key_out {
            format!("key_out({x})")
        } else {
            x.to_owned()
        }
    };
    let mut out = stage_word(digit);
    for q in 0..per_thread {
        out += &format!(
            "        let p{q} = {}u + lid;\n\
             \x20       let x{q} = stage[p{q}];\n\
             \x20       let d{q} = (x{q} >> shift) & 0xffu;\n\
             \x20       let g{q} = gbase[d{q}] + p{q} - dstart[d{q}];\n",
            q * WORKGROUP
        );
        if words[digit].store {
            out += &format!(
                "        if (p{q} < valid && g{q} < limit) {{ store{digit}(g{q}, {}); }}\n",
                map(&words[digit], &format!("x{q}"))
            );
        }
    }
    for (i, w) in words.iter().enumerate() {
        if i == digit || !w.store {
            continue;
        }
        out += &stage_word(i);
        for q in 0..per_thread {
            out += &format!(
                "        if (p{q} < valid && g{q} < limit) {{ store{i}(g{q}, {}); }}\n",
                map(w, &format!("stage[p{q}]"))
            );
        }
    }
    out
}

#[cfg(all(test, feature = "naga"))]
mod tests {
    use super::*;

    fn validate(wgsl: &str) {
        let module = naga::front::wgsl::parse_str(wgsl)
            .unwrap_or_else(|e| panic!("{}\n{wgsl}", e.emit_to_string(wgsl)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .subgroup_stages(naga::valid::ShaderStages::COMPUTE)
        .subgroup_operations(naga::valid::SubgroupOperationSet::all())
        .validate(&module)
        .unwrap_or_else(|e| panic!("{e:?}\n{wgsl}"));
    }

    fn word(source: Source, store: bool) -> Word {
        Word {
            source,
            key_in: false,
            store,
            key_out: false,
        }
    }

    /// Every kind of kernel the planner makes (first, middle and last passes; keys alone, with
    /// row ids, unaligned values and segment ids; one binding part or three) validates, with and without subgroups, with
    /// ballots of one word and of four (lavapipe's and NVIDIA's subgroups take one, so the
    /// device tests run only those).
    #[test]
    fn every_kernel_validates() {
        let strided = Source::Strided {
            stride: 12,
            aligned: true,
        };
        let unaligned = Source::Strided {
            stride: 8,
            aligned: false,
        };
        let first = Word {
            key_in: true,
            ..word(strided, true)
        };
        let last = Word {
            key_out: true,
            ..word(Source::Packed, true)
        };
        let kernels: [(Vec<Word>, usize); 5] = [
            (vec![first], 0),
            (vec![first, word(Source::RowId, true)], 0),
            (
                vec![first, word(unaligned, true), word(Source::RowId, true)],
                0,
            ),
            (
                vec![
                    last,
                    word(Source::Packed, false),
                    word(Source::Packed, true),
                ],
                1,
            ),
            (
                vec![word(Source::Packed, false), word(Source::Packed, true)],
                0,
            ),
        ];
        for subgroups in [
            None,
            Some(Subgroups {
                most: 32,
                lanes: 32,
            }),
            Some(Subgroups {
                most: 64,
                lanes: 128,
            }),
        ] {
            for (per_thread, parts) in [(1, 1), (5, 1), (5, 3)] {
                let tiling = Tiling {
                    per_thread,
                    subgroups,
                };
                for (words, digit) in &kernels {
                    // Slots of 1, 2, 3, … parts times `parts`.
                    let slots: Vec<usize> = (1..=2 * words.len()).map(|s| s * parts).collect();
                    validate(&upsweep(&words[*digit], tiling, parts));
                    validate(&downsweep(words, *digit, tiling, &slots));
                }
            }
        }
    }
}
