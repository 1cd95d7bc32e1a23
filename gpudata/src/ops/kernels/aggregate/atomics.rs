//! Per-group accumulation in integer atomics: every row gets a group id from its key (an id
//! column, a hash-table lookup, a histogram bin, a grid cell) or a reason it has none (below or
//! above the range, a NaN key, an id out of range), and adds to its group's accumulators.
//!
//! Without values the pass counts rows per group. With values it runs twice: a *scan* pass
//! counts each group's values (NaNs skipped), and keeps their minimum and maximum keys (finite
//! values; infinities as flags), then a *sum* pass adds every finite value as a fixed-point
//! integer `q = round(|x| · 2^s)` (halves away from zero) into a 96-bit accumulator of its
//! sign, where `s = 52 − ⌊log₂ max|x|⌋` is the group's own scale, taken from the scan pass's
//! extremes: each `|q| < 2⁵³`, so a group's sum is exact up to 2⁴² values, and the result
//! (rounded once to `f32`, to nearest even) has an error of at most
//! `count · 2⁻⁵³ · max|x| + ½ ulp`. Integer atomics add in any order to the same bits, so
//! every output is the same whatever the schedule, the chunking or the device, and the CPU
//! reference reproduces it bit for bit (the mean, `sum / count` in WGSL's `f32` division, is
//! within 2.5 ulp).
//!
//! Where a pass's accumulators for all groups fit workgroup memory (4, 12 or 28 bytes a group,
//! at most 4096 groups), each workgroup accumulates its tile of rows there and merges the
//! non-zero ones into the storage accumulators once; otherwise rows add to storage directly.
//! Private counts are kept in up to 16 copies (16 KiB at most), neighbouring invocations adding
//! to different copies, so that rows of one bin rarely meet at one word or bank. Counting keys of
//! 4 bytes packed from a 16-byte aligned start, tiles wholly inside a run read them as
//! `vec4<u32>`, eight vectors in flight per invocation.

use super::finish::{finish_kernel, fixed_functions};
use super::{Kind, Lane, bind_mask, check_piece, mask_fn, order_functions};
use crate::data::GpuDataView;
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::Dispatch;
use crate::ops::kernels::select::rows::{self, Bound, Span, WORKGROUP};

/// Rows each invocation handles unless [`OpsConfig::rows_per_thread`](crate::ops::OpsConfig)
/// says otherwise.
const ROWS_PER_INVOCATION: u64 = 64;

/// Rows whose loads one invocation issues together.
const UNROLL: u64 = 4;

/// The most copies of private counts, and the workgroup bytes they may take together.
const COPIES: u64 = 16;
const COPIES_BYTES: u64 = 16 << 10;

/// The most groups accumulated in workgroup memory.
const PRIVATE_GROUPS: u64 = 4096;

/// The group ids that are not groups: below the range (or an id out of range, a cell outside
/// the grid), above it, a NaN key, and a row that is not one (masked out, past the run).
const DROP_LOW: &str = "0xfffffffcu";
const DROP_HIGH: &str = "0xfffffffdu";
const DROP_NAN: &str = "0xfffffffeu";
const SKIP: &str = "0xffffffffu";

/// How a row's group is found.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Keys {
    /// The id in a one-lane integer column: rows whose id is negative or at least the group
    /// count are dropped (below).
    Ids(Lane),
    /// The rank of the key's slot in a hash table of `capacity` slots (a power of two).
    Hashed { lane: Lane, capacity: u64 },
    /// The bin of a one-lane number: `min(⌊(x − lo) · scale⌋, bins − 1)` for `lo ≤ x ≤ hi`.
    Bins {
        lane: Lane,
        bins: u32,
        lo: f32,
        hi: f32,
        scale: f32,
    },
    /// The cell of a `float32x2` position, `cy · pitch + cx`.
    Cells(Cells),
}

/// A grid over `[x0, x1] × [y0, y1]` of `width × height` cells, each row of the output `pitch`
/// cells apart, and the scales `width / (x1 − x0)`, `height / (y1 − y0)`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cells {
    pub width: u32,
    pub height: u32,
    pub pitch: u32,
    pub bounds: [f32; 4],
    pub scale: [f32; 2],
}

/// One piece of rows: the key column (ids, the binned values, the positions), the values and
/// the mask's words (bit 0 the piece's row 0), all of the same rows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Piece<'a> {
    pub key: GpuDataView<'a>,
    pub value: Option<GpuDataView<'a>>,
    pub mask: Option<&'a wgpu::Buffer>,
}

/// A built hash table: `slots` (capacity words, then the flag of the key `u32::MAX`) and the
/// rank of each slot among the occupied ones (`ranks`, capacity + 2 words).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Table<'a> {
    pub slots: &'a wgpu::Buffer,
    pub ranks: &'a wgpu::Buffer,
}

/// What to accumulate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Job<'a> {
    pub keys: Keys,
    pub groups: u64,
    pub value: Option<Lane>,
    pub pieces: &'a [Piece<'a>],
    pub table: Option<Table<'a>>,
    /// Minima and maxima written as `f32` (integers converted, empty groups NaN): the grid's.
    pub float_extremes: bool,
}

/// The buffers a [`plan`] writes: `counts` (the group count's words first: rows, or valid
/// values with values), `dropped` (four words: rows below, above, with a NaN key, 0), and with
/// values the per-group columns `sum`, `min`, `max`, `mean`.
pub(crate) struct Accumulated {
    pub counts: wgpu::Buffer,
    pub dropped: wgpu::Buffer,
    pub columns: Option<[wgpu::Buffer; 5]>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Count,
    Scan,
    Sum,
}

impl Mode {
    /// Workgroup bytes per group of the private accumulators.
    fn bytes(self) -> u64 {
        match self {
            Mode::Count => 4,
            Mode::Scan => 12,
            Mode::Sum => 28,
        }
    }
}

/// The WGSL of the key: `group_of(i)` for row `i` of the run (in range, kept by the mask).
fn key_functions(keys: &Keys, stride: u64) -> String {
    match keys {
        Keys::Ids(lane) => {
            let negative = if lane.kind == Kind::Signed {
                format!("    if ((w & 0x80000000u) != 0u) {{ return {DROP_LOW}; }}\n")
            } else {
                String::new()
            };
            format!(
                "{}fn group_of_word(w: u32) -> u32 {{\n\
                 {negative}\
                 \x20   if (w >= param(4u)) {{ return {DROP_LOW}; }}\n\
                 \x20   return w;\n\
                 }}\n{}",
                lane.load_fn("kld", "kcol"),
                group_of_row(stride)
            )
        }
        Keys::Hashed { lane, .. } => format!(
            "{}{HASH}fn group_of(i: u32) -> u32 {{\n\
             \x20   let k = kld(param(1u) + i * {stride}u);\n\
             \x20   let cap = param(5u);\n\
             \x20   if (k == 0xffffffffu) {{ return ranks[cap]; }}\n\
             \x20   var p = hash(k) & (cap - 1u);\n\
             \x20   for (var t = 0u; t < cap; t++) {{\n\
             \x20       let c = slots[p];\n\
             \x20       if (c == k) {{ return ranks[p]; }}\n\
             \x20       if (c > k) {{ return {DROP_LOW}; }}\n\
             \x20       p = (p + 1u) & (cap - 1u);\n\
             \x20   }}\n\
             \x20   return {DROP_LOW};\n\
             }}\n",
            lane.load_fn("kld", "kcol")
        ),
        Keys::Bins { lane, .. } => {
            let x = match lane.kind {
                Kind::Float => format!(
                    "    if ((w & 0x7fffffffu) > 0x7f800000u) {{ return {DROP_NAN}; }}\n\
                     \x20   let x = bitcast<f32>(w);\n"
                ),
                Kind::Signed => "    let x = f32(bitcast<i32>(w));\n".to_owned(),
                Kind::Unsigned => "    let x = f32(w);\n".to_owned(),
            };
            format!(
                "{}fn group_of_word(w: u32) -> u32 {{\n\
                 {x}\
                 \x20   if (x < bitcast<f32>(param(6u))) {{ return {DROP_LOW}; }}\n\
                 \x20   if (x > bitcast<f32>(param(7u))) {{ return {DROP_HIGH}; }}\n\
                 \x20   let t = (x - bitcast<f32>(param(6u))) * bitcast<f32>(param(8u));\n\
                 \x20   return min(u32(floor(t)), param(5u) - 1u);\n\
                 }}\n{}",
                lane.load_fn("kld", "kcol"),
                group_of_row(stride)
            )
        }
        Keys::Cells(_) => format!(
            "fn group_of(i: u32) -> u32 {{\n\
             \x20   let a = (param(1u) + i * {stride}u) >> 2u;\n\
             \x20   let ux = kcol[a];\n\
             \x20   let uy = kcol[a + 1u];\n\
             \x20   if ((ux & 0x7fffffffu) > 0x7f800000u || (uy & 0x7fffffffu) > 0x7f800000u) {{ return {DROP_NAN}; }}\n\
             \x20   let x = bitcast<f32>(ux);\n\
             \x20   let y = bitcast<f32>(uy);\n\
             \x20   if (x < bitcast<f32>(param(7u)) || x > bitcast<f32>(param(9u)) || y < bitcast<f32>(param(8u)) || y > bitcast<f32>(param(10u))) {{ return {DROP_LOW}; }}\n\
             \x20   let cx = min(u32(floor((x - bitcast<f32>(param(7u))) * bitcast<f32>(param(11u)))), param(5u) - 1u);\n\
             \x20   let cy = min(u32(floor((y - bitcast<f32>(param(8u))) * bitcast<f32>(param(12u)))), param(6u) - 1u);\n\
             \x20   return cy * param(13u) + cx;\n\
             }}\n"
        ),
    }
}

/// WGSL `group_of(i)` for keys whose group follows from the key's widened word alone
/// (`group_of_word`): the word of row `i`, rows `stride` bytes apart from the byte base.
fn group_of_row(stride: u64) -> String {
    format!(
        "fn group_of(i: u32) -> u32 {{ return group_of_word(kld(param(1u) + i * {stride}u)); }}\n"
    )
}

/// The 32-bit finalizer of MurmurHash3: the slot hash of the hash table.
pub(crate) const HASH: &str = "fn hash(k: u32) -> u32 {\n\
     \x20   var h = k;\n\
     \x20   h ^= h >> 16u; h *= 0x85ebca6bu; h ^= h >> 13u; h *= 0xc2b2ae35u; h ^= h >> 16u;\n\
     \x20   return h;\n\
     }\n";

/// The host twin of [`HASH`].
pub(crate) fn hash(k: u32) -> u32 {
    let mut h = k;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h
}

/// The key-specific uniform words (parameters 5 to 13).
fn key_params(keys: &Keys) -> [u32; 9] {
    let mut p = [0u32; 9];
    match keys {
        Keys::Ids(_) => {}
        Keys::Hashed { capacity, .. } => p[0] = *capacity as u32,
        Keys::Bins {
            bins,
            lo,
            hi,
            scale,
            ..
        } => {
            p[0] = *bins;
            p[1] = lo.to_bits();
            p[2] = hi.to_bits();
            p[3] = scale.to_bits();
        }
        Keys::Cells(c) => {
            p[0] = c.width;
            p[1] = c.height;
            for (i, b) in c.bounds.iter().enumerate() {
                p[2 + i] = b.to_bits();
            }
            p[6] = c.scale[0].to_bits();
            p[7] = c.scale[1].to_bits();
            p[8] = c.pitch;
        }
    }
    p
}

/// How one pass is shaped.
struct Shape<'a> {
    job: &'a Job<'a>,
    mode: Mode,
    key_stride: u64,
    value_stride: u64,
    masked: bool,
    /// Workgroup-private accumulators for this many groups (a multiple of 256).
    private: Option<u64>,
    /// Copies of the private counts (a power of two; more than one only counting): invocation
    /// `lid` adds to copy `lid % copies`, group `g`'s copies side by side from `g × copies`, so
    /// that neighbouring invocations rarely add to one word or one bank.
    copies: u64,
    per: u64,
    /// Keys of 4 bytes packed from a 16-byte aligned start, counted without values or mask:
    /// also bound as `vec4<u32>` (after `kcol`), read so in whole tiles.
    vectors: bool,
}

/// The accumulation of one row's group `g` (and value `w`), private or in storage.
fn accumulate(shape: &Shape<'_>) -> String {
    let p = shape.private.is_some();
    let copy = format!(
        "&wcnt[g * {copies}u + lid % {copies}u]",
        copies = shape.copies
    );
    let (cnt, mn, mx) = if p && shape.copies > 1 {
        (copy.as_str(), "&wmn[g]", "&wmx[g]")
    } else if p {
        ("&wcnt[g]", "&wmn[g]", "&wmx[g]")
    } else {
        ("&acc1[g]", "&acc1[n + g]", "&acc1[2u * n + g]")
    };
    match shape.mode {
        Mode::Count => format!("atomicAdd({cnt}, 1u);"),
        Mode::Scan => {
            // A load first: once a group's extremes settle, most rows change neither.
            let extremes = format!(
                "let k = key(w); if (k < atomicLoad({mn})) {{ atomicMin({mn}, k); }} if (k > atomicLoad({mx})) {{ atomicMax({mx}, k); }}"
            );
            let inf = "if (is_inf(w)) { atomicOr(&acc1[3u * n + g], select(1u, 2u, (w & 0x80000000u) != 0u)); } else";
            format!("if (!is_nan(w)) {{ atomicAdd({cnt}, 1u); {inf} {{ {extremes} }} }}")
        }
        Mode::Sum => {
            let shift = if p {
                "bitcast<i32>(wshift[g])"
            } else {
                "shift_of(g)"
            };
            format!(
                "if (!is_nan(w) && !is_inf(w)) {{ let q = quantize(w, {shift}); add96(g * 6u + select(0u, 3u, negative(w)), q.x, q.y); }}"
            )
        }
    }
}

/// The WGSL of one pass.
fn pass_kernel(shape: &Shape<'_>) -> String {
    let job = shape.job;
    let mut wgsl = rows::header(16);
    let mut binding = 0usize;
    let mut next = || {
        binding += 1;
        binding
    };
    wgsl += &rows::binding_decl(next(), "kcol", "u32", false);
    if shape.vectors {
        wgsl += &rows::binding_decl(next(), "kcolv", "vec4<u32>", false);
    }
    let value = job.value.filter(|_| shape.mode != Mode::Count);
    if value.is_some() {
        wgsl += &rows::binding_decl(next(), "vcol", "u32", false);
    }
    if shape.masked {
        wgsl += &rows::binding_decl(next(), "mask", "u32", false);
        wgsl += &mask_fn(3);
    }
    if shape.mode == Mode::Sum {
        wgsl += &rows::binding_decl(next(), "acc1", "u32", false);
        wgsl += &rows::binding_decl(next(), "acc2", "atomic<u32>", true);
    } else {
        wgsl += &rows::binding_decl(next(), "acc1", "atomic<u32>", true);
        wgsl += &rows::binding_decl(next(), "dropped", "atomic<u32>", true);
    }
    if job.table.is_some() {
        wgsl += &rows::binding_decl(next(), "slots", "u32", false);
        wgsl += &rows::binding_decl(next(), "ranks", "u32", false);
    }
    wgsl += &key_functions(&job.keys, shape.key_stride);
    if let Some(lane) = value {
        wgsl += &lane.load_fn("vld", "vcol");
        wgsl += &order_functions(lane.kind);
        if shape.mode == Mode::Sum {
            wgsl += &fixed_functions(lane.kind);
            let acc = if shape.private.is_some() {
                "wsum"
            } else {
                "acc2"
            };
            wgsl += &format!(
                "fn add96(b: u32, lo: u32, hi: u32) {{\n\
                 \x20   var h = hi;\n\
                 \x20   if (lo != 0u) {{ let o = atomicAdd(&{acc}[b], lo); h += select(0u, 1u, o + lo < o); }}\n\
                 \x20   if (h != 0u) {{ let o = atomicAdd(&{acc}[b + 1u], h); if (o + h < o) {{ atomicAdd(&{acc}[b + 2u], 1u); }} }}\n\
                 }}\n"
            );
        }
    }
    let masked = if shape.masked {
        format!("    if (!bit(i)) {{ return {SKIP}; }}\n")
    } else {
        String::new()
    };
    wgsl += &format!(
        "fn row_group(i: u32) -> u32 {{\n\
         \x20   if (i >= param(0u)) {{ return {SKIP}; }}\n\
         {masked}\
         \x20   return group_of(i);\n\
         }}\n"
    );
    let (decls, init, merge) = private_parts(shape);
    wgsl += &decls;
    let acc = accumulate(shape);
    let mut step = String::new();
    for j in 0..UNROLL {
        step += &format!(
            "        let i{j} = first + (r + {j}u) * {WORKGROUP}u;\n        let g{j} = row_group(i{j});\n"
        );
        if value.is_some() {
            step += &format!(
                "        let w{j} = vld(param(2u) + min(i{j}, last) * {}u);\n",
                shape.value_stride
            );
        }
    }
    let counts_drops = shape.mode != Mode::Sum;
    let tally = |g: &str, w: &str| {
        let mut line = format!("        if ({g} < n) {{ let g = {g}; {w}{acc} }}");
        if counts_drops {
            line += &format!(
                " else if ({g} == {DROP_LOW}) {{ d0 += 1u; }} else if ({g} == {DROP_HIGH}) {{ d1 += 1u; }} else if ({g} == {DROP_NAN}) {{ d2 += 1u; }}"
            );
        }
        line + "\n"
    };
    for j in 0..UNROLL {
        let w = if value.is_some() {
            format!("let w = w{j}; ")
        } else {
            String::new()
        };
        step += &tally(&format!("g{j}"), &w);
    }
    // Packed 32-bit keys read as `vec4<u32>` in tiles wholly inside the run (`vectors`).
    let vector_loop = if shape.vectors {
        let vecs = shape.per / 4;
        let unroll = [8, 4, 2, 1]
            .into_iter()
            .find(|&u| vecs.is_multiple_of(u))
            .unwrap_or(1);
        let mut vstep = String::new();
        for j in 0..unroll {
            vstep +=
                &format!("            let v{j} = kcolv[vb + q + (r + {j}u) * {WORKGROUP}u];\n");
        }
        for j in 0..unroll {
            for c in ["x", "y", "z", "w"] {
                vstep += &format!("        let g{j}{c} = group_of_word(v{j}.{c});\n");
                vstep += &tally(&format!("g{j}{c}"), "");
            }
        }
        format!(
            "    if ((group + 1u) * {tile}u <= param(0u)) {{\n\
             \x20       let vb = param(1u) >> 4u;\n\
             \x20       let q = group * {vtile}u + lid;\n\
             \x20       for (var r = 0u; r < {vecs}u; r += {unroll}u) {{\n\
             {vstep}\
             \x20       }}\n\
             \x20   }} else {{\n",
            tile = shape.per * u64::from(WORKGROUP),
            vtile = shape.per * u64::from(WORKGROUP) / 4,
        )
    } else {
        "    {\n".to_owned()
    };
    let drops = if counts_drops {
        "    if (d0 != 0u) { atomicAdd(&dropped[0], d0); }\n\
         \x20   if (d1 != 0u) { atomicAdd(&dropped[1], d1); }\n\
         \x20   if (d2 != 0u) { atomicAdd(&dropped[2], d2); }\n"
    } else {
        ""
    };
    wgsl += &format!(
        "@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let n = param(4u);\n\
         {init}\
         \x20   let group = group_index(wid, nwg);\n\
         \x20   let first = group * {tile}u + lid;\n\
         \x20   let last = param(0u) - 1u;\n\
         \x20   var d0 = 0u;\n\
         \x20   var d1 = 0u;\n\
         \x20   var d2 = 0u;\n\
         {vector_loop}\
         \x20   for (var r = 0u; r < {per}u; r += {UNROLL}u) {{\n\
         {step}\
         \x20   }}\n\
         \x20   }}\n\
         {merge}{drops}\
         }}\n",
        tile = shape.per * u64::from(WORKGROUP),
        per = shape.per,
    );
    wgsl
}

/// The workgroup arrays of a private pass, their initialization and their merge into storage.
fn private_parts(shape: &Shape<'_>) -> (String, String, String) {
    let Some(cap) = shape.private else {
        return (String::new(), String::new(), String::new());
    };
    let each =
        |body: &str| format!("    for (var g = lid; g < n; g += {WORKGROUP}u) {{\n{body}    }}\n");
    let barrier = "    workgroupBarrier();\n";
    match shape.mode {
        Mode::Count => {
            let copies = shape.copies;
            let words = cap * copies;
            // Each group's copies summed from a rotated start (neighbours read other banks).
            let sum = (0..copies)
                .map(|k| format!("atomicLoad(&wcnt[g * {copies}u + ((g + {k}u) % {copies}u)])"))
                .collect::<Vec<_>>()
                .join(" + ");
            (
                format!("var<workgroup> wcnt: array<atomic<u32>, {words}>;\n"),
                format!(
                    "    for (var k = lid; k < {words}u; k += {WORKGROUP}u) {{ atomicStore(&wcnt[k], 0u); }}\n"
                ) + barrier,
                barrier.to_owned()
                    + &each(&format!(
                        "        let c = {sum};\n\
                         \x20       if (c != 0u) {{ atomicAdd(&acc1[g], c); }}\n"
                    )),
            )
        }
        Mode::Scan => (
            format!(
                "var<workgroup> wcnt: array<atomic<u32>, {cap}>;\n\
                 var<workgroup> wmn: array<atomic<u32>, {cap}>;\n\
                 var<workgroup> wmx: array<atomic<u32>, {cap}>;\n"
            ),
            each(
                "        atomicStore(&wcnt[g], 0u);\n\
                 \x20       atomicStore(&wmn[g], 0xffffffffu);\n\
                 \x20       atomicStore(&wmx[g], 0u);\n",
            ) + barrier,
            barrier.to_owned()
                + &each(
                    "        let c = atomicLoad(&wcnt[g]);\n\
                     \x20       if (c != 0u) {\n\
                     \x20           atomicAdd(&acc1[g], c);\n\
                     \x20           let lo = atomicLoad(&wmn[g]);\n\
                     \x20           if (lo != 0xffffffffu) { atomicMin(&acc1[n + g], lo); }\n\
                     \x20           let hi = atomicLoad(&wmx[g]);\n\
                     \x20           if (hi != 0u) { atomicMax(&acc1[2u * n + g], hi); }\n\
                     \x20       }\n",
                ),
        ),
        Mode::Sum => (
            format!(
                "var<workgroup> wsum: array<atomic<u32>, {}>;\n\
                 var<workgroup> wshift: array<u32, {cap}>;\n\
                 fn merge96(b: u32, w0: u32, w1: u32, w2: u32) {{\n\
                 \x20   var c = 0u;\n\
                 \x20   if (w0 != 0u) {{ let o = atomicAdd(&acc2[b], w0); c = select(0u, 1u, o + w0 < o); }}\n\
                 \x20   let x = w1 + c;\n\
                 \x20   let c1 = select(0u, 1u, x < w1);\n\
                 \x20   var c2 = 0u;\n\
                 \x20   if (x != 0u) {{ let o = atomicAdd(&acc2[b + 1u], x); c2 = select(0u, 1u, o + x < o); }}\n\
                 \x20   let top = w2 + c1 + c2;\n\
                 \x20   if (top != 0u) {{ atomicAdd(&acc2[b + 2u], top); }}\n\
                 }}\n",
                6 * cap
            ),
            each(
                "        for (var k = 0u; k < 6u; k++) { atomicStore(&wsum[g * 6u + k], 0u); }\n\
                 \x20       wshift[g] = bitcast<u32>(shift_of(g));\n",
            ) + barrier,
            barrier.to_owned()
                + &each(
                    "        for (var k = 0u; k < 6u; k += 3u) {\n\
                     \x20           let b = g * 6u + k;\n\
                     \x20           merge96(b, atomicLoad(&wsum[b]), atomicLoad(&wsum[b + 1u]), atomicLoad(&wsum[b + 2u]));\n\
                     \x20       }\n",
                ),
        ),
    }
}

/// A pass writing `value` into words `from..to` of a buffer of `words` words and 0 elsewhere:
/// the accumulators' start values, written by every run of a plan.
pub(crate) fn fill(
    planner: &Planner<'_>,
    op: &'static str,
    buffer: &wgpu::Buffer,
    words: u64,
    ones: (u64, u64),
) -> Result<Dispatch, OpError> {
    let align = rows::alignment(&planner.device().limits());
    let wgsl = format!(
        "{}{}@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let i = group_index(wid, nwg) * {WORKGROUP}u + lid;\n\
         \x20   if (i >= param(0u)) {{ return; }}\n\
         \x20   dst[i] = select(0u, 0xffffffffu, i >= param(1u) && i < param(2u));\n\
         }}\n",
        rows::header(3),
        rows::binding_decl(1, "dst", "u32", true),
    );
    rows::dispatch(
        planner,
        op,
        &wgsl,
        &[
            rows::base32(op, words)?,
            rows::base32(op, ones.0)?,
            rows::base32(op, ones.1)?,
        ],
        &[rows::bind(buffer, 0, buffer.size(), align)],
        words.div_ceil(u64::from(WORKGROUP)),
    )
}

/// The rows each invocation handles: `config.rows_per_thread` rounded up to a multiple of
/// [`UNROLL`] (at most 1024); by default 64, or for workgroup-private accumulators of more
/// than 256 groups a quarter of the group count (at most 256), so that the merge of every
/// group's accumulators into storage stays a small part of a workgroup's work.
fn rows_per_invocation(planner: &Planner<'_>, private: Option<u64>) -> u64 {
    let default = private.map_or(ROWS_PER_INVOCATION, |groups| {
        (groups / 4)
            .clamp(ROWS_PER_INVOCATION, 256)
            .next_multiple_of(UNROLL)
    });
    planner.config().rows_per_thread.map_or(default, |r| {
        u64::from(r.clamp(1, 1024)).next_multiple_of(UNROLL)
    })
}

/// Whether `piece`'s keys are read as `vec4<u32>` in `mode`: counts only (no values, no mask) of
/// ids or bins of a 4-byte lane packed from a 16-byte aligned offset (every run starts a whole
/// number of tiles in, so 16-byte aligned too) in a buffer of a whole `vec4` at least (so every
/// run's binding holds one).
fn vector_keys(job: &Job<'_>, mode: Mode, piece: &Piece<'_>) -> bool {
    let lane = match job.keys {
        Keys::Ids(lane) | Keys::Bins { lane, .. } => lane,
        Keys::Hashed { .. } | Keys::Cells(_) => return false,
    };
    mode == Mode::Count
        && piece.mask.is_none()
        && lane.bytes == 4
        && piece.key.byte_stride() == 4
        && piece.key.byte_offset().is_multiple_of(16)
        && piece.key.buffer().size() >= 16
}

/// Copies of `cap` private counts: the most, up to [`COPIES`], within [`COPIES_BYTES`] and the
/// device's workgroup storage (16 copies up to 256 groups, one from 4096).
fn count_copies(cap: u64, limits: &wgpu::Limits) -> u64 {
    let room = u64::from(limits.max_compute_workgroup_storage_size).min(COPIES_BYTES);
    let mut copies = COPIES;
    while copies > 1 && cap * 4 * copies > room {
        copies /= 2;
    }
    copies
}

/// One pass over every piece of `job`.
fn pass(
    planner: &Planner<'_>,
    op: &'static str,
    job: &Job<'_>,
    mode: Mode,
    acc1: &wgpu::Buffer,
    other: &wgpu::Buffer,
) -> Result<Vec<Dispatch>, OpError> {
    let limits = planner.device().limits();
    let align = rows::alignment(&limits);
    let cap = job.groups.max(1).next_multiple_of(u64::from(WORKGROUP));
    let private = (job.groups <= PRIVATE_GROUPS
        && cap * mode.bytes() <= u64::from(limits.max_compute_workgroup_storage_size))
    .then_some(cap);
    let copies = match private {
        Some(cap) if mode == Mode::Count => count_copies(cap, &limits),
        _ => 1,
    };
    let per = rows_per_invocation(planner, private.map(|_| job.groups));
    let tile = per * u64::from(WORKGROUP);
    let mut params = [0u32; 16];
    params[4] = rows::base32(op, job.groups)?;
    params[5..14].copy_from_slice(&key_params(&job.keys));
    let mut dispatches = Vec::new();
    for piece in job.pieces {
        let length = piece.key.length();
        check_piece(op, length)?;
        let value = piece.value.filter(|_| mode != Mode::Count);
        let shape = Shape {
            job,
            mode,
            key_stride: piece.key.byte_stride(),
            value_stride: value.map_or(0, |v| v.byte_stride()),
            masked: piece.mask.is_some(),
            private,
            copies,
            per,
            vectors: vector_keys(job, mode, piece),
        };
        let wgsl = pass_kernel(&shape);
        let mut spans = vec![Span::of(&piece.key)];
        spans.extend(value.as_ref().map(Span::of));
        let masks: Vec<&wgpu::Buffer> = piece.mask.into_iter().collect();
        for (first, n) in rows::runs(op, &limits, length, tile, &spans, &masks)? {
            if n == 0 {
                continue;
            }
            let key = spans[0].bind(op, first, n, align)?;
            params[0] = rows::base32(op, n)?;
            params[1] = rows::base32(op, key.base)?;
            let mut bindings: Vec<Bound<'_>> = vec![key];
            if shape.vectors {
                bindings.push(key);
            }
            if let Some(span) = spans.get(1) {
                let bound = span.bind(op, first, n, align)?;
                params[2] = rows::base32(op, bound.base)?;
                bindings.push(bound);
            }
            if let Some(mask) = piece.mask {
                let bound = bind_mask(mask, first, n, align);
                params[3] = rows::base32(op, bound.base / 4)?;
                bindings.push(bound);
            }
            bindings.push(rows::bind(acc1, 0, acc1.size(), align));
            bindings.push(rows::bind(other, 0, other.size(), align));
            if let Some(table) = job.table {
                bindings.push(rows::bind(table.slots, 0, table.slots.size(), align));
                bindings.push(rows::bind(table.ranks, 0, table.ranks.size(), align));
            }
            dispatches.push(rows::dispatch(
                planner,
                op,
                &wgsl,
                &params,
                &bindings,
                n.div_ceil(tile),
            )?);
        }
    }
    Ok(dispatches)
}

/// The dispatches of `job` and the buffers they write (every run of them starts from zeroed
/// accumulators).
///
/// # Errors
/// [`OpError::TooManyRows`] for a piece of more than 2³¹ rows; [`OpError::TooLarge`] for
/// accumulators larger than a buffer or a binding; the dispatch errors.
pub(crate) fn plan(
    planner: &Planner<'_>,
    op: &'static str,
    job: &Job<'_>,
) -> Result<(Vec<Dispatch>, Accumulated), OpError> {
    let overflow = || OpError::Overflow { op, input: 0 };
    let g = job.groups;
    let fields = if job.value.is_some() { 4 } else { 1 };
    let acc1_words = g.checked_mul(fields).ok_or_else(overflow)?;
    let acc1 = rows::output_buffer(planner, op, acc1_words.checked_mul(4).ok_or_else(overflow)?)?;
    let dropped = rows::output_buffer(planner, op, 16)?;
    let ones = if fields == 4 { (g, 2 * g) } else { (0, 0) };
    let mut dispatches = vec![
        fill(planner, op, &acc1, acc1_words, ones)?,
        fill(planner, op, &dropped, 4, (0, 0))?,
    ];
    let Some(lane) = job.value else {
        dispatches.extend(pass(planner, op, job, Mode::Count, &acc1, &dropped)?);
        return Ok((
            dispatches,
            Accumulated {
                counts: acc1,
                dropped,
                columns: None,
            },
        ));
    };
    dispatches.extend(pass(planner, op, job, Mode::Scan, &acc1, &dropped)?);
    let acc2_words = g.checked_mul(6).ok_or_else(overflow)?;
    let acc2 = rows::output_buffer(planner, op, acc2_words * 4)?;
    dispatches.push(fill(planner, op, &acc2, acc2_words, (0, 0))?);
    dispatches.extend(pass(planner, op, job, Mode::Sum, &acc1, &acc2)?);
    let column = || rows::output_buffer(planner, op, g * 4);
    let columns = [column()?, column()?, column()?, column()?, column()?];
    let align = rows::alignment(&planner.device().limits());
    let mut bindings = vec![
        rows::bind(&acc1, 0, acc1.size(), align),
        rows::bind(&acc2, 0, acc2.size(), align),
    ];
    bindings.extend(columns.iter().map(|c| rows::bind(c, 0, c.size(), align)));
    dispatches.push(rows::dispatch(
        planner,
        op,
        &finish_kernel(lane, job.float_extremes),
        &[rows::base32(op, g)?, 0, 0, 0, rows::base32(op, g)?],
        &bindings,
        g.div_ceil(u64::from(WORKGROUP)),
    )?);
    Ok((
        dispatches,
        Accumulated {
            counts: acc1,
            dropped,
            columns: Some(columns),
        },
    ))
}
