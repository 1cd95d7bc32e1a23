//! The fixed-point WGSL of the per-group sums: a value scaled by its group's power of two and
//! rounded to an integer (`quantize`, `shift_of`), and the finish pass that turns each group's
//! 96-bit sums back into an `f32` rounded to nearest even (`to_f32`) and writes the group's
//! count, sum, minimum, maximum and mean. [`fixed`](crate::ops::aggregate::fixed) is its host
//! twin.

use super::{Kind, Lane, order_functions};
use crate::ops::kernels::select::rows::{self, WORKGROUP};

/// The fixed-point WGSL: `shl64`, `quantize(w, shift)` for values of `kind`, `shift_of(g)` from
/// the scan pass's extremes in `acc1`.
pub(super) fn fixed_functions(kind: Kind) -> String {
    let quantize = match kind {
        Kind::Float => {
            "fn quantize(w: u32, shift: i32) -> vec2<u32> {\n\
             \x20   let e = (w >> 23u) & 0xffu;\n\
             \x20   let m = (w & 0x7fffffu) | select(0u, 0x800000u, e != 0u);\n\
             \x20   let k = i32(max(e, 1u)) - 150 + shift;\n\
             \x20   if (k >= 0) { return shl64(m, u32(k)); }\n\
             \x20   let r = u32(-k);\n\
             \x20   if (r >= 25u) { return vec2<u32>(0u, 0u); }\n\
             \x20   return vec2<u32>((m + (1u << (r - 1u))) >> r, 0u);\n\
             }\n\
             fn negative(w: u32) -> bool { return (w & 0x80000000u) != 0u; }\n\
             fn magnitude(g: u32) -> u32 {\n\
             \x20   let n = param(4u);\n\
             \x20   let mnk = acc1[n + g];\n\
             \x20   if (mnk == 0xffffffffu) { return 0u; }\n\
             \x20   return max(unkey(mnk) & 0x7fffffffu, unkey(acc1[2u * n + g]) & 0x7fffffffu);\n\
             }\n\
             fn shift_of(g: u32) -> i32 { return 52 - (i32(max(magnitude(g) >> 23u, 1u)) - 127); }\n"
        }
        Kind::Signed | Kind::Unsigned => {
            "fn uabs(w: u32) -> u32 { return select(w, 0u - w, negative(w)); }\n\
             fn quantize(w: u32, shift: i32) -> vec2<u32> { return shl64(uabs(w), u32(shift)); }\n\
             fn shift_of(g: u32) -> i32 {\n\
             \x20   let n = param(4u);\n\
             \x20   let a = max(uabs(unkey(acc1[n + g])), uabs(unkey(acc1[2u * n + g])));\n\
             \x20   if (a == 0u) { return 0; }\n\
             \x20   return 52 - (31 - i32(countLeadingZeros(a)));\n\
             }\n"
        }
    };
    let negative = match kind {
        Kind::Signed => "fn negative(w: u32) -> bool { return (w & 0x80000000u) != 0u; }\n",
        Kind::Unsigned => "fn negative(w: u32) -> bool { return false; }\n",
        Kind::Float => "",
    };
    format!(
        "fn shl64(m: u32, k: u32) -> vec2<u32> {{\n\
         \x20   if (k == 0u) {{ return vec2<u32>(m, 0u); }}\n\
         \x20   if (k < 32u) {{ return vec2<u32>(m << k, m >> (32u - k)); }}\n\
         \x20   return vec2<u32>(0u, m << (k - 32u));\n\
         }}\n{negative}{quantize}"
    )
}

/// The 96-bit WGSL for the finish pass: `sub96`, `lead96`, `shr96`, `low96` and `to_f32`, the
/// sum `pos − neg` scaled by `2^-shift` and rounded to nearest even (±inf past `f32`'s range,
/// ±0 below its normal range).
const WIDE: &str = "fn sub96(a: vec3<u32>, b: vec3<u32>) -> vec3<u32> {\n\
     \x20   let b0 = select(0u, 1u, a.x < b.x);\n\
     \x20   let y = a.y - b.y - b0;\n\
     \x20   let b1 = select(0u, 1u, a.y < b.y || (a.y == b.y && b0 == 1u));\n\
     \x20   return vec3<u32>(a.x - b.x, y, a.z - b.z - b1);\n\
     }\n\
     fn lead96(m: vec3<u32>) -> i32 {\n\
     \x20   if (m.z != 0u) { return 95 - i32(countLeadingZeros(m.z)); }\n\
     \x20   if (m.y != 0u) { return 63 - i32(countLeadingZeros(m.y)); }\n\
     \x20   if (m.x != 0u) { return 31 - i32(countLeadingZeros(m.x)); }\n\
     \x20   return -1;\n\
     }\n\
     fn shr96(m: vec3<u32>, s: u32) -> vec3<u32> {\n\
     \x20   let ws = s >> 5u;\n\
     \x20   let bs = s & 31u;\n\
     \x20   var r = vec3<u32>(0u, 0u, 0u);\n\
     \x20   for (var i = 0u; i < 3u; i++) {\n\
     \x20       let j = i + ws;\n\
     \x20       var v = 0u;\n\
     \x20       if (j < 3u) { v = m[j] >> bs; }\n\
     \x20       if (bs != 0u && j + 1u < 3u) { v |= m[j + 1u] << (32u - bs); }\n\
     \x20       r[i] = v;\n\
     \x20   }\n\
     \x20   return r;\n\
     }\n\
     fn low96(m: vec3<u32>, s: u32) -> bool {\n\
     \x20   for (var i = 0u; i < 3u; i++) {\n\
     \x20       let first = i * 32u;\n\
     \x20       if (s > first) {\n\
     \x20           let take = min(s - first, 32u);\n\
     \x20           let bits = select((1u << take) - 1u, 0xffffffffu, take == 32u);\n\
     \x20           if ((m[i] & bits) != 0u) { return true; }\n\
     \x20       }\n\
     \x20   }\n\
     \x20   return false;\n\
     }\n\
     fn to_f32(pos: vec3<u32>, neg: vec3<u32>, shift: i32) -> u32 {\n\
     \x20   var m = sub96(pos, neg);\n\
     \x20   let negative = (m.z & 0x80000000u) != 0u;\n\
     \x20   if (negative) { m = sub96(vec3<u32>(0u, 0u, 0u), m); }\n\
     \x20   let p = lead96(m);\n\
     \x20   if (p < 0) { return 0u; }\n\
     \x20   var e = p - shift;\n\
     \x20   var mant = 0u;\n\
     \x20   if (p <= 23) {\n\
     \x20       mant = m.x << u32(23 - p);\n\
     \x20   } else {\n\
     \x20       let sh = u32(p - 23);\n\
     \x20       mant = shr96(m, sh).x;\n\
     \x20       let half = (m[(sh - 1u) >> 5u] >> ((sh - 1u) & 31u)) & 1u;\n\
     \x20       if (half == 1u && (low96(m, sh - 1u) || (mant & 1u) == 1u)) {\n\
     \x20           mant += 1u;\n\
     \x20           if (mant == 0x1000000u) { mant = 0x800000u; e += 1; }\n\
     \x20       }\n\
     \x20   }\n\
     \x20   let sign = select(0u, 0x80000000u, negative);\n\
     \x20   if (e > 127) { return sign | 0x7f800000u; }\n\
     \x20   if (e < -126) { return sign; }\n\
     \x20   return sign | (u32(e + 127) << 23u) | (mant & 0x7fffffu);\n\
     }\n";

/// The finish pass: one invocation per group writes its count, sum, minimum, maximum and mean.
pub(super) fn finish_kernel(lane: Lane, float_extremes: bool) -> String {
    // Parameter 4 is the group count too, where `shift_of` reads it.
    let mut wgsl = rows::header(8);
    wgsl += &rows::binding_decl(1, "acc1", "u32", false);
    wgsl += &rows::binding_decl(2, "acc2", "u32", false);
    for (i, name) in ["o_count", "o_sum", "o_min", "o_max", "o_mean"]
        .iter()
        .enumerate()
    {
        wgsl += &rows::binding_decl(3 + i, name, "u32", true);
    }
    wgsl += &order_functions(lane.kind);
    wgsl += &fixed_functions(lane.kind);
    wgsl += WIDE;
    let nan = "0x7fc00000u";
    let extremes = match (lane.kind, float_extremes) {
        (Kind::Float, _) => format!(
            "    var lo = {nan};\n\
             \x20   var hi = {nan};\n\
             \x20   if (mnk != 0xffffffffu) {{ lo = unkey(mnk); hi = unkey(mxk); }}\n\
             \x20   else if ((flags & 1u) != 0u) {{ lo = 0x7f800000u; }}\n\
             \x20   else if ((flags & 2u) != 0u) {{ hi = 0xff800000u; }}\n\
             \x20   if ((flags & 2u) != 0u) {{ lo = 0xff800000u; }}\n\
             \x20   if ((flags & 1u) != 0u) {{ hi = 0x7f800000u; }}\n"
        ),
        (kind, true) => {
            let convert = if kind == Kind::Signed {
                "bitcast<u32>(f32(bitcast<i32>(unkey(k))))"
            } else {
                "bitcast<u32>(f32(unkey(k)))"
            };
            format!(
                "    var lo = {nan};\n\
                 \x20   var hi = {nan};\n\
                 \x20   if (count != 0u) {{ var k = mnk; lo = {convert}; k = mxk; hi = {convert}; }}\n"
            )
        }
        (_, false) => "    var lo = 0u;\n\
             \x20   var hi = 0u;\n\
             \x20   if (count != 0u) { lo = unkey(mnk); hi = unkey(mxk); }\n"
            .to_owned(),
    };
    wgsl += &format!(
        "@compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,\n\
                 @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let g = group_index(wid, nwg) * {WORKGROUP}u + lid;\n\
         \x20   let n = param(0u);\n\
         \x20   if (g >= n) {{ return; }}\n\
         \x20   let count = acc1[g];\n\
         \x20   let mnk = acc1[n + g];\n\
         \x20   let mxk = acc1[2u * n + g];\n\
         \x20   let flags = acc1[3u * n + g];\n\
         \x20   let b = g * 6u;\n\
         \x20   var sum = to_f32(vec3<u32>(acc2[b], acc2[b + 1u], acc2[b + 2u]), vec3<u32>(acc2[b + 3u], acc2[b + 4u], acc2[b + 5u]), shift_of(g));\n\
         \x20   if (flags == 3u) {{ sum = {nan}; }} else if (flags == 1u) {{ sum = 0x7f800000u; }} else if (flags == 2u) {{ sum = 0xff800000u; }}\n\
         {extremes}\
         \x20   o_count[g] = count;\n\
         \x20   o_sum[g] = sum;\n\
         \x20   o_min[g] = lo;\n\
         \x20   o_max[g] = hi;\n\
         \x20   o_mean[g] = select(bitcast<u32>(bitcast<f32>(sum) / f32(count)), {nan}, count == 0u);\n\
         }}\n"
    );
    wgsl
}
