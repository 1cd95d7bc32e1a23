//! The whole-column reduction: count, valid count, sum, minimum and maximum of one lane in one
//! pass over the rows, and a tree of partial records.
//!
//! Each workgroup reduces a tile of `256 × per` rows into one record (kept rows, valid rows,
//! sum, minimum key, maximum key): each invocation reads `per` rows at a stride of 256 (loads of
//! eight rows issued together), float values summed pairwise (eight rows, then the eight-row
//! sums), then the workgroup's 256 records combined by a binary tree (each eight consecutive
//! records pairwise, then the 32 results pairwise: two barriers, not eight). Packed 32-bit
//! columns (`float32`, `uint32`, `sint32` at stride 4, 16-byte aligned, unmasked) take
//! [`vec4_tile_kernel`] instead: `per / 4` `vec4<u32>` loads per invocation (eight issued
//! together, the read-bandwidth kernel's shape), 32 rows summed pairwise a step, no per-row
//! range or NaN checks in whole tiles (a NaN found among an invocation's extremes sends it to
//! the checked body, which sums the same tree). The records of every tile
//! of every piece land in one buffer; combine passes reduce each 1024 records to one (four per
//! invocation, pairwise, then the 256-wide tree) until one workgroup reduces the rest and writes
//! the output record. The summation order is therefore a fixed binary tree of depth about
//! `log2(n)`, whatever the device: float sums are deterministic for a given column, chunking and
//! configuration, and within `(⌈log2 n⌉ + 4) · 2⁻²⁴ · Σ|x|` of the exact sum. Integer sums are
//! exact 64-bit two's complement sums (two `u32` words with a carry).
//!
//! Output record (eight `u32` words): rows kept (two words, low first), valid rows (two words),
//! the sum (an `f32` in the first word; a 64-bit integer in both), the minimum and the maximum
//! (the widened lane value; 0 when no row is valid).

use super::{Kind, Lane, bind_mask, check_piece, declare_mask, order_functions};
use crate::data::GpuDataView;
use crate::ops::OpError;
use crate::ops::kernels::Planner;
use crate::ops::kernels::dispatch::Dispatch;
use crate::ops::kernels::select::rows::{self, Span, WORKGROUP};

/// Rows each invocation reduces unless [`OpsConfig::rows_per_thread`](crate::ops::OpsConfig)
/// says otherwise.
const ROWS_PER_INVOCATION: u64 = 32;

/// Records one combine workgroup reduces.
const COMBINE: u64 = 4 * WORKGROUP as u64;

/// The bytes of one record.
pub(crate) const RECORD_BYTES: u64 = 32;

/// The bits of `-0.0`, the identity of a float sum that keeps a sum of negative zeros `-0`.
const NEG_ZERO: &str = "0x80000000u";

/// The rows of one piece of a column and, for a masked reduction, its mask's words (bit 0 of
/// word 0 is the piece's row 0).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Source<'a> {
    pub view: GpuDataView<'a>,
    pub mask: Option<&'a wgpu::Buffer>,
}

/// The record type, its identity and its combination, for sums of `kind` (and `ext`, an
/// integer row widened to the sum's 64 bits).
fn record_functions(kind: Kind) -> String {
    let ext = if kind == Kind::Signed {
        "vec2<u32>(w, select(0u, 0xffffffffu, (w & 0x80000000u) != 0u))"
    } else {
        "vec2<u32>(w, 0u)"
    };
    let (identity_sum, combine_sum) = if kind == Kind::Float {
        (
            format!("vec2<u32>({NEG_ZERO}, 0u)"),
            "vec2<u32>(bitcast<u32>(bitcast<f32>(a.s.x) + bitcast<f32>(b.s.x)), 0u)",
        )
    } else {
        ("vec2<u32>(0u, 0u)".to_owned(), "add64(a.s, b.s)")
    };
    format!(
        "struct Rec {{ kept: vec2<u32>, valid: vec2<u32>, s: vec2<u32>, mn: u32, mx: u32 }}\n\
         fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {{\n\
         \x20   let lo = a.x + b.x;\n\
         \x20   return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));\n\
         }}\n\
         fn ext(w: u32) -> vec2<u32> {{ return {ext}; }}\n\
         fn identity() -> Rec {{ return Rec(vec2<u32>(0u, 0u), vec2<u32>(0u, 0u), {identity_sum}, 0xffffffffu, 0u); }}\n\
         fn comb(a: Rec, b: Rec) -> Rec {{\n\
         \x20   return Rec(add64(a.kept, b.kept), add64(a.valid, b.valid), {combine_sum}, min(a.mn, b.mn), max(a.mx, b.mx));\n\
         }}\n\
         var<workgroup> tree: array<Rec, {WORKGROUP}>;\n\
         fn reduce_tree(lid: u32, mine: Rec) -> Rec {{\n\
         \x20   tree[lid] = mine;\n\
         \x20   workgroupBarrier();\n\
         \x20   if (lid < {eighth}u) {{\n\
         \x20       let e = lid * 8u;\n\
         \x20       tree[e] = {eight};\n\
         \x20   }}\n\
         \x20   workgroupBarrier();\n\
         \x20   var r = identity();\n\
         \x20   if (lid == 0u) {{ r = {top}; }}\n\
         \x20   return r;\n\
         }}\n",
        eighth = WORKGROUP / 8,
        eight = pairwise_with(
            "comb",
            &(0..8)
                .map(|k| format!("tree[e + {k}u]"))
                .collect::<Vec<_>>()
        ),
        top = pairwise_with(
            "comb",
            &(0..WORKGROUP / 8)
                .map(|k| format!("tree[{}u]", k * 8))
                .collect::<Vec<_>>()
        ),
    )
}

/// The WGSL adding row `j` (its value `u{j}`, kept where `kept` holds) to the counts, extremes
/// and, for integers, the sum `s`; a float row's summand (`-0` unless a kept non-NaN value) goes
/// to `terms`.
fn row_terms(j: u64, kept: &str, float: bool, terms: &mut Vec<String>) -> String {
    let mut wgsl = format!(
        "        let in{j} = {kept};\n\
         \x20       let ok{j} = in{j} && !is_nan(u{j});\n\
         \x20       kept += select(0u, 1u, in{j});\n\
         \x20       valid += select(0u, 1u, ok{j});\n\
         \x20       if (ok{j}) {{ let k = key(u{j}); mn = min(mn, k); mx = max(mx, k); }}\n"
    );
    if float {
        terms.push(format!(
            "select(bitcast<f32>({NEG_ZERO}), bitcast<f32>(u{j}), ok{j})"
        ));
    } else {
        wgsl += &format!("        if (ok{j}) {{ s = add64(s, ext(u{j})); }}\n");
    }
    wgsl
}

/// A pairwise sum of the WGSL expressions `terms` (a power-of-two count).
fn pairwise(terms: &[String]) -> String {
    match terms {
        [one] => one.clone(),
        _ => {
            let (a, b) = terms.split_at(terms.len() / 2);
            format!("({} + {})", pairwise(a), pairwise(b))
        }
    }
}

/// The WGSL expressions `terms` (a power-of-two count) combined pairwise by the function `f`.
fn pairwise_with(f: &str, terms: &[String]) -> String {
    match terms {
        [one] => one.clone(),
        _ => {
            let (a, b) = terms.split_at(terms.len() / 2);
            format!("{f}({}, {})", pairwise_with(f, a), pairwise_with(f, b))
        }
    }
}

/// The tile pass: `per` rows per invocation (a power of two, at least 8) of one piece into one
/// record per workgroup. Parameters: rows of the run, the source's byte base, the mask's word
/// base, the first record's index.
fn tile_kernel(lane: Lane, stride: u64, masked: bool, per: u64) -> String {
    let float = lane.kind == Kind::Float;
    let mut wgsl = rows::header(4);
    wgsl += &rows::binding_decl(1, "src", "u32", false);
    let out = declare_mask(&mut wgsl, masked);
    wgsl += &rows::binding_decl(out, "out", "u32", true);
    wgsl += &lane.load_fn("ld", "src");
    wgsl += &order_functions(lane.kind);
    wgsl += &record_functions(lane.kind);
    let batches = per / 8;
    let mut body = String::new();
    for b in 0..batches {
        body += "    {\n";
        for j in 0..8 {
            let r = b * 8 + j;
            body += &format!(
                "        let i{j} = first + {}u;\n        let u{j} = ld(param(1u) + min(i{j}, last) * {stride}u);\n",
                r * u64::from(WORKGROUP)
            );
        }
        let mut terms = Vec::new();
        for j in 0..8 {
            let kept = if masked {
                format!("i{j} < n && bit(min(i{j}, last))")
            } else {
                format!("i{j} < n")
            };
            body += &row_terms(j, &kept, float, &mut terms);
        }
        if float {
            body += &format!("        b{b} = {};\n", pairwise(&terms));
        }
        body += "    }\n";
    }
    let (sum_decl, sum_value) = sum_parts(float, batches);
    wgsl += &format!(
        "@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let group = group_index(wid, nwg);\n\
         \x20   let n = param(0u);\n\
         \x20   let last = n - 1u;\n\
         \x20   let first = group * {tile}u + lid;\n\
         \x20   var kept = 0u;\n\
         \x20   var valid = 0u;\n\
         \x20   var mn = 0xffffffffu;\n\
         \x20   var mx = 0u;\n\
         {sum_decl}{body}\
         \x20   let r = reduce_tree(lid, Rec(vec2<u32>(kept, 0u), vec2<u32>(valid, 0u), {sum_value}, mn, mx));\n\
         {TILE_WRITE}\
         }}\n",
        tile = per * u64::from(WORKGROUP)
    );
    wgsl
}

/// The tile pass over a run of packed 32-bit rows (`float32`, `uint32`, `sint32`, stride 4)
/// starting 16-byte aligned, read as `vec4<u32>` (the rows of vector `q` are `4q..4q + 3`): each
/// invocation reads `per / 4` vectors at a stride of 256, up to eight loads issued together (the
/// read-bandwidth kernel's shape). An invocation of a tile wholly inside the run takes the fast
/// body: no per-row range or NaN checks, the extremes over the order keys of all its rows, the
/// NaN test once (a NaN's key lies past both infinities'). An invocation that saw a NaN, and
/// every invocation of the run's last partial tile, take the checked body instead, which reads
/// the same rows a word at a time and sums them in the same tree (NaNs and rows past the run as
/// `-0`), so the sum is the one tree either way. Parameters as [`tile_kernel`]'s, without mask.
fn vec4_tile_kernel(kind: Kind, per: u64) -> String {
    let lane = Lane {
        kind,
        bytes: 4,
        half: false,
    };
    let float = kind == Kind::Float;
    let mut wgsl = rows::header(4);
    wgsl += &rows::binding_decl(1, "src", "u32", false);
    wgsl += &rows::binding_decl(2, "srcv", "vec4<u32>", false);
    wgsl += &rows::binding_decl(3, "out", "u32", true);
    wgsl += &lane.load_fn("ld", "src");
    wgsl += &order_functions(kind);
    wgsl += &record_functions(kind);
    // `key` of each lane: floats `w | sign` or `~w`, as `w ^ ((w >> 31) | sign)` arithmetically.
    let keyv = match kind {
        Kind::Float => {
            "w ^ (bitcast<vec4<u32>>(bitcast<vec4<i32>>(w) >> vec4<u32>(31u)) | vec4<u32>(0x80000000u))"
        }
        Kind::Signed => "w ^ vec4<u32>(0x80000000u)",
        Kind::Unsigned => "w",
    };
    wgsl += &format!("fn keyv(w: vec4<u32>) -> vec4<u32> {{ return {keyv}; }}\n");
    let vecs = per / 4;
    let batch = vecs.min(8);
    let batches = vecs / batch;
    let offset = |b: u64, k: u64| (b * batch + k) * u64::from(WORKGROUP);
    let (mut fast, mut checked) = (String::new(), String::new());
    for b in 0..batches {
        fast += "    {\n";
        checked += "    {\n";
        let (mut terms, mut checked_terms) = (Vec::new(), Vec::new());
        for k in 0..batch {
            fast += &format!("        let v{k} = srcv[vb + q + {}u];\n", offset(b, k));
        }
        for k in 0..batch {
            fast += &format!(
                "        let k{k} = keyv(v{k});\n        mn = min(mn, k{k});\n        mx = max(mx, k{k});\n"
            );
            for (c, lane) in ["x", "y", "z", "w"].iter().enumerate() {
                let j = k * 4 + c as u64;
                if float {
                    terms.push(format!("bitcast<f32>(v{k}.{lane})"));
                } else {
                    fast += &format!("        s = add64(s, ext(v{k}.{lane}));\n");
                }
                checked += &format!(
                    "        let i{j} = 4u * (q + {}u) + {c}u;\n        let u{j} = ld(param(1u) + min(i{j}, last) * 4u);\n",
                    offset(b, k)
                );
            }
        }
        for j in 0..batch * 4 {
            checked += &row_terms(j, &format!("i{j} < n"), float, &mut checked_terms);
        }
        if float {
            fast += &format!("        b{b} = {};\n", pairwise(&terms));
            checked += &format!("        b{b} = {};\n", pairwise(&checked_terms));
        }
        fast += "    }\n";
        checked += "    }\n";
    }
    let (sum_decl, sum_value) = sum_parts(float, batches);
    // A NaN's key is above +inf's (0xff800000) or below -inf's (0x007fffff).
    let nan = if float {
        "    if (hi > 0xff800000u || lo < 0x007fffffu) { return checked(q, param(0u)); }\n"
    } else {
        ""
    };
    wgsl += &format!(
        "fn checked(q: u32, n: u32) -> Rec {{\n\
         \x20   let last = n - 1u;\n\
         \x20   var kept = 0u;\n\
         \x20   var valid = 0u;\n\
         \x20   var mn = 0xffffffffu;\n\
         \x20   var mx = 0u;\n\
         {sum_decl}{checked}\
         \x20   return Rec(vec2<u32>(kept, 0u), vec2<u32>(valid, 0u), {sum_value}, mn, mx);\n\
         }}\n\
         fn fast(q: u32) -> Rec {{\n\
         \x20   let vb = param(1u) >> 4u;\n\
         \x20   var mn = vec4<u32>(0xffffffffu);\n\
         \x20   var mx = vec4<u32>(0u);\n\
         {sum_decl}{fast}\
         \x20   let lo = min(min(mn.x, mn.y), min(mn.z, mn.w));\n\
         \x20   let hi = max(max(mx.x, mx.y), max(mx.z, mx.w));\n\
         {nan}\
         \x20   return Rec(vec2<u32>({per}u, 0u), vec2<u32>({per}u, 0u), {sum_value}, lo, hi);\n\
         }}\n\
         @compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let group = group_index(wid, nwg);\n\
         \x20   let n = param(0u);\n\
         \x20   let q = group * {vtile}u + lid;\n\
         \x20   var mine: Rec;\n\
         \x20   if ((group + 1u) * {tile}u <= n) {{ mine = fast(q); }} else {{ mine = checked(q, n); }}\n\
         \x20   let r = reduce_tree(lid, mine);\n\
         {write}\
         }}\n",
        vtile = per * u64::from(WORKGROUP) / 4,
        tile = per * u64::from(WORKGROUP),
        write = TILE_WRITE,
    );
    wgsl
}

/// The tile pass's write of its workgroup's record `r`.
const TILE_WRITE: &str = "    if (lid == 0u) {\n\
     \x20       let o = (param(3u) + group) * 8u;\n\
     \x20       out[o] = r.kept.x; out[o + 1u] = r.kept.y; out[o + 2u] = r.valid.x; out[o + 3u] = r.valid.y;\n\
     \x20       out[o + 4u] = r.s.x; out[o + 5u] = r.s.y; out[o + 6u] = r.mn; out[o + 7u] = r.mx;\n\
     \x20   }\n";

/// The declarations of an invocation's sum (per batch for floats) and its value as a record's
/// `s`: the batch sums pairwise.
fn sum_parts(float: bool, batches: u64) -> (String, String) {
    if float {
        let decl: String = (0..batches)
            .map(|b| format!("    var b{b} = bitcast<f32>({NEG_ZERO});\n"))
            .collect();
        let terms: Vec<String> = (0..batches).map(|b| format!("b{b}")).collect();
        (
            decl,
            format!("vec2<u32>(bitcast<u32>({}), 0u)", pairwise(&terms)),
        )
    } else {
        (
            "    var s = vec2<u32>(0u, 0u);\n".to_owned(),
            "s".to_owned(),
        )
    }
}

/// A combine pass: each 1024 records of `src` (parameter 0 of them) into one record of `out`,
/// or, `last`, all of them (at most 1024) into the output record, the keys turned back into
/// values.
fn combine_kernel(kind: Kind, last: bool) -> String {
    let mut wgsl = rows::header(1);
    wgsl += &rows::binding_decl(1, "src", "u32", false);
    wgsl += &rows::binding_decl(2, "out", "u32", true);
    wgsl += &order_functions(kind);
    wgsl += &record_functions(kind);
    let write = if last {
        "        let none = r.valid.x == 0u && r.valid.y == 0u;\n\
         \x20       out[6u] = select(unkey(r.mn), 0u, none);\n\
         \x20       out[7u] = select(unkey(r.mx), 0u, none);\n\
         \x20       out[0u] = r.kept.x; out[1u] = r.kept.y; out[2u] = r.valid.x; out[3u] = r.valid.y;\n\
         \x20       out[4u] = r.s.x; out[5u] = r.s.y;\n"
            .to_owned()
    } else {
        "        let o = group * 8u;\n\
         \x20       out[o] = r.kept.x; out[o + 1u] = r.kept.y; out[o + 2u] = r.valid.x; out[o + 3u] = r.valid.y;\n\
         \x20       out[o + 4u] = r.s.x; out[o + 5u] = r.s.y; out[o + 6u] = r.mn; out[o + 7u] = r.mx;\n"
            .to_owned()
    };
    wgsl += &format!(
        "fn load(i: u32) -> Rec {{\n\
         \x20   if (i >= param(0u)) {{ return identity(); }}\n\
         \x20   let o = i * 8u;\n\
         \x20   return Rec(vec2<u32>(src[o], src[o + 1u]), vec2<u32>(src[o + 2u], src[o + 3u]),\n\
         \x20              vec2<u32>(src[o + 4u], src[o + 5u]), src[o + 6u], src[o + 7u]);\n\
         }}\n\
         @compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let group = group_index(wid, nwg);\n\
         \x20   let first = group * {COMBINE}u + lid;\n\
         \x20   let a = comb(load(first), load(first + {w}u));\n\
         \x20   let b = comb(load(first + {w2}u), load(first + {w3}u));\n\
         \x20   let r = reduce_tree(lid, comb(a, b));\n\
         \x20   if (lid == 0u) {{\n{write}    }}\n\
         }}\n",
        w = WORKGROUP,
        w2 = 2 * WORKGROUP,
        w3 = 3 * WORKGROUP,
    );
    wgsl
}

/// The rows each invocation of the tile pass reads: `config.rows_per_thread` rounded to a power
/// of two in `8..=128`, 32 by default.
fn rows_per_invocation(planner: &Planner<'_>) -> u64 {
    planner
        .config()
        .rows_per_thread
        .map_or(ROWS_PER_INVOCATION, |r| {
            u64::from(r.clamp(8, 128)).next_power_of_two().min(128)
        })
}

/// The dispatches reducing the rows of `sources` (consecutive pieces of one column, of lane
/// `lane`) into `output`'s first 32 bytes (the output record). No rows at all give the record
/// of an empty column.
///
/// # Errors
/// [`OpError::TooManyRows`] for a piece of more than 2³¹ rows; the dispatch errors.
pub(crate) fn plan(
    planner: &Planner<'_>,
    op: &'static str,
    sources: &[Source<'_>],
    lane: Lane,
    output: &wgpu::Buffer,
) -> Result<Vec<Dispatch>, OpError> {
    let per = rows_per_invocation(planner);
    let tile = per * u64::from(WORKGROUP);
    let limits = planner.device().limits();
    let align = rows::alignment(&limits);
    let mut runs = Vec::new();
    let mut records = 0u64;
    for source in sources {
        let length = source.view.length();
        check_piece(op, length)?;
        let span = Span::of(&source.view);
        let masks: Vec<&wgpu::Buffer> = source.mask.into_iter().collect();
        for (first, n) in rows::runs(op, &limits, length, tile, &[span], &masks)? {
            if n > 0 {
                runs.push((source, first, n, records));
                records += n.div_ceil(tile);
            }
        }
    }
    let partials = rows::output_buffer(planner, op, records.max(1) * RECORD_BYTES)?;
    let mut dispatches = Vec::new();
    for (source, first, n, at) in runs {
        let span = Span::of(&source.view);
        let bound = span.bind(op, first, n, align)?;
        let stride = source.view.byte_stride();
        // Packed 32-bit rows from a 16-byte aligned start, unmasked: read as `vec4<u32>`.
        let vectors = lane.bytes == 4
            && stride == 4
            && source.mask.is_none()
            && bound.base.is_multiple_of(16)
            && bound.binding.size >= 16;
        let wgsl = if vectors {
            vec4_tile_kernel(lane.kind, per)
        } else {
            tile_kernel(lane, stride, source.mask.is_some(), per)
        };
        let out = rows::bind(&partials, 0, partials.size(), align);
        let mut bindings = if vectors {
            vec![bound, bound]
        } else {
            vec![bound]
        };
        let mut mask_base = 0;
        if let Some(mask) = source.mask {
            let m = bind_mask(mask, first, n, align);
            mask_base = rows::base32(op, m.base / 4)?;
            bindings.push(m);
        }
        bindings.push(out);
        let params = [
            rows::base32(op, n)?,
            rows::base32(op, bound.base)?,
            mask_base,
            rows::base32(op, at)?,
        ];
        dispatches.push(rows::dispatch(
            planner,
            op,
            &wgsl,
            &params,
            &bindings,
            n.div_ceil(tile),
        )?);
    }
    let mut level = partials;
    while records > COMBINE {
        let next = records.div_ceil(COMBINE);
        let out = rows::output_buffer(planner, op, next * RECORD_BYTES)?;
        dispatches.push(rows::dispatch(
            planner,
            op,
            &combine_kernel(lane.kind, false),
            &[rows::base32(op, records)?],
            &[
                rows::bind(&level, 0, level.size(), align),
                rows::bind(&out, 0, out.size(), align),
            ],
            next,
        )?);
        level = out;
        records = next;
    }
    dispatches.push(rows::dispatch(
        planner,
        op,
        &combine_kernel(lane.kind, true),
        &[rows::base32(op, records)?],
        &[
            rows::bind(&level, 0, level.size(), align),
            rows::bind(output, 0, output.size(), align),
        ],
        1,
    )?);
    Ok(dispatches)
}
