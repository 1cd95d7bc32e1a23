//! The one WGSL codec: per [`VertexFormat`], the WGSL expression that decodes a stored component
//! into the value vertex fetch delivers, and the one that encodes it back; the GPU twin of
//! [`codec`](super::codec), step for step.
//!
//! The operation kernels and the table's WGSL accessors generate their format handling here.
//! Every snippet is a single expression over the names it is given, with no helper function (so
//! any number of them can share one module; the one exception is the kernels' float16 decode,
//! [`NanBits::Unspecified`], a function the kernel declares once) and no literal folded into
//! another. Normalized values are `f32(v) / max` in [`decode_unit`] (one division, as the host
//! writes it) and the same value computed by integer operations in [`decode_unit_exact`], which
//! the kernels and the table accessors use: WGSL allows the division 2.5 ulp, and real GPUs take
//! it. Decoded values are meant to be bound to a `let` before they meet other operands, so a
//! compiler cannot reassociate or factor them.
//!
//! ```
//! use gpudata::VertexFormat;
//! use gpudata::format::wgsl_codec;
//!
//! assert_eq!(wgsl_codec::decode_unit(VertexFormat::Unorm8x2, 1, "r"), "(f32(r) / 255.0)");
//! ```

use super::codec::{decoded_type, lane_bits, normalized_max, unit_byte_length};
use super::{DataType, PrimitiveType, VertexFormat};

/// A `u32` literal.
fn u(v: u32) -> String {
    format!("{v}u")
}

/// `f32` of a small integer, as a WGSL literal (`255.0`).
fn float_literal(v: u32) -> String {
    format!("{v}.0")
}

/// The raw field of stored component `lane` from `unit` (a `u32` expression holding its unit's
/// bits, zero above the unit), unsigned and zero-extended.
fn field(format: VertexFormat, lane: u32, unit: &str) -> String {
    let (shift, width) = lane_bits(format, lane);
    let unit_bits = unit_byte_length(format) as u32 * 8;
    match (shift, width) {
        (_, w) if w == unit_bits => unit.to_owned(),
        (0, w) => format!("({unit} & {:#x}u)", (1u32 << w) - 1),
        (s, w) if s + w == 32 => format!("({unit} >> {})", u(s)),
        (s, w) => format!("(({unit} >> {}) & {:#x}u)", u(s), (1u32 << w) - 1),
    }
}

/// The field sign-extended to `i32`.
fn signed_field(format: VertexFormat, lane: u32, unit: &str) -> String {
    let (_, width) = lane_bits(format, lane);
    let raw = field(format, lane, unit);
    if width == 32 {
        format!("bitcast<i32>({raw})")
    } else {
        let s = u(32 - width);
        format!("(bitcast<i32>({raw} << {s}) >> {s})")
    }
}

/// The magnitude pieces of binary16 `r` (a name: it is used several times) as binary32 bits:
/// `(normal, special, subnormal, exponent)`, with `special`'s payload `quiet` ORed in.
fn f16_pieces(r: &str, quiet: &str) -> (String, String, String, String) {
    let exponent = format!("(({r} >> 10u) & 0x1fu)");
    let mantissa = format!("({r} & 0x3ffu)");
    let normal = format!("((({exponent} + 112u) << 23u) | ({mantissa} << 13u))");
    let special = format!("(0x7f800000u{quiet} | ({mantissa} << 13u))");
    let subnormal = format!("bitcast<u32>(f32({mantissa}) * bitcast<f32>(0x33800000u))");
    (normal, special, subnormal, exponent)
}

/// Exact binary16 → binary32 of the low 16 bits of `r` (a name: it is used several times), with
/// integer operations only (`unpack2x16float` needs a capability some backends lack) and no
/// branch: sign, then the normal, special (infinity, quiet NaN with the payload kept) or
/// subnormal magnitude chosen by `select`, as [`codec::f16_to_f32`](super::codec::f16_to_f32).
fn f16_to_f32(r: &str) -> String {
    let sign = format!("(({r} & 0x8000u) << 16u)");
    // Bit 22 (quiet) when the mantissa is not 0: `m + 0x3ff` reaches bit 10 exactly then. An
    // add and a mask cost less than a compare and a select: on an H200, `add` of two float16x4
    // columns ran at 81% of the copy kernel with the select and the sign in every branch, 87%
    // with this form.
    let quiet = format!(" | (((({r} & 0x3ffu) + 0x3ffu) & 0x400u) << 12u)");
    let (normal, special, subnormal, exponent) = f16_pieces(r, &quiet);
    format!(
        "bitcast<f32>({sign} | select(select({normal}, {special}, {exponent} == 31u), {subnormal}, {exponent} == 0u))"
    )
}

/// How a kernel's float16 decode treats NaNs.
///
/// Table accessors and readback deliver what vertex fetch delivers: NaNs quiet, payload kept
/// ([`decode_unit`]). Arithmetic kernels need not: WGSL leaves a NaN result's bits
/// unspecified, so they decode through one WGSL function per kernel ([`kernel_f16_function`])
/// that widens the bits as stored (a signalling NaN stays signalling): on an H200 the inline,
/// quieting expression ran `add` of two float16x4 columns at 87% of the copy kernel, this
/// function at 97%.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NanBits {
    /// NaNs come out quiet, payload kept (vertex fetch's result).
    Quiet,
    /// NaN bits are widened as stored; the caller promises not to depend on them.
    Unspecified,
}

/// Name of the kernel float16 decode function ([`kernel_f16_function`]).
pub const KERNEL_F16_NAME: &str = "gpudata_f16_to_f32";

/// The WGSL function a kernel declares once when [`decode_unit_with`] gets
/// [`NanBits::Unspecified`] for a float16 format: exact binary16 → binary32 of the low 16 bits
/// of its argument, branch-free, NaN bits as stored.
///
/// The sign is ORed into each of the three magnitudes before the `select`s, and every piece is
/// a named `let`: on an H200 this form ran `add` of two float16x4 columns at 97% of the copy
/// kernel, the same function with the sign ORed once after the `select`s at 94% (same run).
#[must_use]
pub fn kernel_f16_function() -> String {
    format!(
        "fn {KERNEL_F16_NAME}(h: u32) -> f32 {{
    let s = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    let normal = s | ((e + 112u) << 23u) | (m << 13u);
    let special = s | 0x7f800000u | (m << 13u);
    let subnormal = s | bitcast<u32>(f32(m) * bitcast<f32>(0x33800000u));
    return bitcast<f32>(select(select(normal, special, e == 31u), subnormal, e == 0u));
}}
"
    )
}
/// The WGSL expression of stored component `lane` of a value of `format` (see
/// [`codec::unit_of_lane`](super::codec::unit_of_lane) for which unit holds it), decoded as
/// vertex fetch delivers it, typed [`codec::decoded_type`](super::codec::decoded_type): `f32`
/// for float, float16 and normalized formats, `i32` for signed, `u32` for unsigned integers.
///
/// `unit` is a `u32` expression holding the unit's bits, zero above the unit's size; for
/// float16 it must be a name (it appears several times).
#[must_use]
pub fn decode_unit(format: VertexFormat, lane: u32, unit: &str) -> String {
    decode_unit_with(format, lane, unit, NanBits::Quiet)
}

/// [`decode_unit`] with float16 NaNs treated as `nans` says (for [`NanBits::Unspecified`] the
/// expression calls [`KERNEL_F16_NAME`], which the kernel declares with
/// [`kernel_f16_function`]).
#[must_use]
pub fn decode_unit_with(format: VertexFormat, lane: u32, unit: &str, nans: NanBits) -> String {
    match format.data_type() {
        DataType::Float32 => format!("bitcast<f32>({unit})"),
        DataType::Float16 if nans == NanBits::Unspecified => format!("{KERNEL_F16_NAME}({unit})"),
        DataType::Float16 => f16_to_f32(unit),
        DataType::Uint8 | DataType::Uint16 | DataType::Uint32 => field(format, lane, unit),
        DataType::Sint8 | DataType::Sint16 | DataType::Sint32 => signed_field(format, lane, unit),
        DataType::Unorm8 | DataType::Unorm16 => format!(
            "(f32({}) / {})",
            field(format, lane, unit),
            float_literal(normalized_max(format, lane).unwrap_or(1))
        ),
        DataType::Snorm8 | DataType::Snorm16 => format!(
            "max(f32({}) / {}, -1.0)",
            signed_field(format, lane, unit),
            float_literal(normalized_max(format, lane).unwrap_or(1))
        ),
    }
}

/// `(multiplier, right shift)` of the 32-bit window of `w / (2^k − 1)` for a `k`-bit `w`: the
/// first 32 bits after the binary point are `(w * multiplier) | (w >> right shift)` (no shift when
/// `k` divides 32), `w`'s `k` bits repeated (see [`unorm_bits`]).
#[must_use]
pub(crate) const fn normalized_window(k: u32) -> (u32, Option<u32>) {
    let mut multiplier = 0u32;
    let mut shift = 32;
    while shift >= k {
        shift -= k;
        multiplier |= 1 << shift;
    }
    // `shift` bits are left below the last whole copy; the next copy's top `shift` bits fill
    // them: `w >> (k − shift)`.
    if shift == 0 {
        (multiplier, None)
    } else {
        (multiplier, Some(k - shift))
    }
}

/// The `u32` bits of `f32(v) / (2^k − 1)` correctly rounded (`k` ≤ 16), for `v` (a name or a
/// pure expression, used several times) in `[0, 2^k − 1]`, with integer operations only: no
/// division (WGSL allows `f32` division 2.5 ulp, and an H100 uses it) and no float rounding the
/// implementation picks.
///
/// Why it is exact, for `1 ≤ v ≤ m = 2^k − 1`: let `z = countLeadingZeros(v) − (32 − k)` (the
/// leading zeros within `k` bits) and `w = v << z`, so `2^(k−1) ≤ w ≤ m` and
/// `v / m = 2^−z · w / m`. For `w < m`, `w / m = Σ_{i ≥ 1} w · 2^(−k·i)`: `w`'s `k` bits repeated
/// forever after the binary point, never ending (`m` is odd and `0 < w < m`), and `w / m` lies
/// in `[1/2, 1)`. `p`, the first 32 of those bits ([`normalized_window`]: the copies do not
/// overlap, so the product is their OR and nothing carries), has bit 31 set; binary32's 24-bit
/// significand is `p >> 8`, the next bit is `(p >> 7) & 1`, and the bits after it are never
/// all zero, so there is no tie: round-to-nearest rounds up exactly when that bit is 1, which
/// is `((p >> 7) + 1) >> 1`. The value lies in `[2^(−1−z), 2^−z)`, biased exponent `126 − z`;
/// adding the significand (its leading bit at 2^23) to `(125 − z) << 23` gives the bits, and a
/// significand rounded up to 2^24 carries into the exponent, which is the next power of two,
/// as it should be. For `w = m` (`v = m`), `p` is all ones and the carry gives exactly `1.0`.
/// `v = 0` is selected to `+0`. A unit test runs the same `u32` operations for every `v` of
/// every `k` the formats use against the host's correctly rounded division.
fn unorm_bits(v: &str, k: u32) -> String {
    let w = format!("({v} << (countLeadingZeros({v}) - {}u))", 32 - k);
    let p = match normalized_window(k) {
        (multiplier, None) => format!("({w} * {multiplier:#x}u)"),
        (multiplier, Some(r)) => format!("(({w} * {multiplier:#x}u) | ({w} >> {r}u))"),
    };
    format!(
        "select((({}u - countLeadingZeros({v})) << 23u) + ((({p} >> 7u) + 1u) >> 1u), 0u, {v} == 0u)",
        157 - k
    )
}

/// A normalized component decoded correctly rounded with integer operations ([`unorm_bits`]):
/// unsigned `v / max`, or signed `max(v / max, −1)` as the magnitude `min(|v|, max)` with `v`'s
/// sign (`+0` for 0, as the host's division gives).
fn normalized_exact(format: VertexFormat, lane: u32, unit: &str) -> String {
    let max = normalized_max(format, lane).unwrap_or(1);
    let k = u32::BITS - max.leading_zeros();
    if format.is_signed() {
        let s = signed_field(format, lane, unit);
        let magnitude = format!("min(bitcast<u32>(abs({s})), {max}u)");
        format!(
            "bitcast<f32>({} | (bitcast<u32>({s}) & 0x80000000u))",
            unorm_bits(&magnitude, k)
        )
    } else {
        format!(
            "bitcast<f32>({})",
            unorm_bits(&field(format, lane, unit), k)
        )
    }
}

/// [`decode_unit_with`] as the operation kernels decode: the same values, with normalized
/// components computed by integer operations, correctly rounded on every WGSL implementation
/// (WGSL allows the division [`decode_unit`] writes 2.5 ulp: on an NVIDIA H100, `add` of a
/// `unorm8x4` column and 0 came back one ulp off in 504 of 1,024 values). Bit for bit the host
/// codec's value for every pattern. `unit` must be a name (it appears several times).
#[must_use]
pub fn decode_unit_exact(format: VertexFormat, lane: u32, unit: &str, nans: NanBits) -> String {
    if format.is_normalized() {
        normalized_exact(format, lane, unit)
    } else {
        decode_unit_with(format, lane, unit, nans)
    }
}

/// `value` (of type `from`) converted to `to`, as [`codec::ShaderScalar`](super::codec::ShaderScalar)'s
/// `to_f32` / `to_i32` / `to_u32` convert it: integers to `f32` by value, `i32` and `u32` into
/// each other by their bits, `f32` to integers by WGSL's truncating conversion.
#[must_use]
pub fn convert(value: &str, from: PrimitiveType, to: PrimitiveType) -> String {
    use PrimitiveType::{F16, F32, I32, U32};
    match (from, to) {
        (a, b) if a == b => value.to_owned(),
        (_, F32 | F16) => format!("f32({value})"),
        (U32, I32) => format!("bitcast<i32>({value})"),
        (I32, U32) => format!("bitcast<u32>({value})"),
        (_, I32) => format!("i32({value})"),
        (_, U32) => format!("u32({value})"),
    }
}

/// [`decode_unit_exact`] (the operation kernels' decode), then [`convert`]ed to `to`.
#[must_use]
pub fn decode_unit_as(
    format: VertexFormat,
    lane: u32,
    unit: &str,
    to: PrimitiveType,
    nans: NanBits,
) -> String {
    convert(
        &decode_unit_exact(format, lane, unit, nans),
        decoded_type(format),
        to,
    )
}

/// The `u32` WGSL expression of stored component `lane` of a value of `format` encoded from
/// `value` (of type `from`), in place inside its unit and zero elsewhere, so the fields of one
/// unit can be OR-ed: the twin of [`codec::encode_unit`](super::codec::encode_unit).
///
/// `value` must be a name or a pure expression (normalized formats use it twice). Normalized
/// formats clamp, scale and round half away from zero exactly as the host does; float16 uses
/// `pack2x16float`, whose result WGSL leaves indeterminate outside the finite binary16 range.
#[must_use]
pub fn encode_unit(format: VertexFormat, lane: u32, value: &str, from: PrimitiveType) -> String {
    let (shift, width) = lane_bits(format, lane);
    let mask = |bits: String| {
        if width == 32 {
            bits
        } else {
            format!("({bits} & {:#x}u)", (1u32 << width) - 1)
        }
    };
    let max = normalized_max(format, lane).map_or_else(String::new, float_literal);
    let f = || convert(value, from, PrimitiveType::F32);
    let bits = match format.data_type() {
        DataType::Float32 => format!("bitcast<u32>({})", f()),
        DataType::Float16 => format!("(pack2x16float(vec2<f32>({}, 0.0)) & 0xffffu)", f()),
        DataType::Uint8 | DataType::Uint16 | DataType::Uint32 => {
            mask(convert(value, from, PrimitiveType::U32))
        }
        DataType::Sint8 | DataType::Sint16 | DataType::Sint32 => mask(convert(
            &convert(value, from, PrimitiveType::I32),
            PrimitiveType::I32,
            PrimitiveType::U32,
        )),
        DataType::Unorm8 | DataType::Unorm16 => {
            let y = format!("(clamp({}, 0.0, 1.0) * {max})", f());
            format!("(u32({y}) + select(0u, 1u, {y} - trunc({y}) >= 0.5))")
        }
        DataType::Snorm8 | DataType::Snorm16 => {
            let y = format!("(clamp({}, -1.0, 1.0) * {max})", f());
            mask(format!(
                "bitcast<u32>(i32({y}) + select(0i, i32(sign({y})), abs({y} - trunc({y})) >= 0.5))"
            ))
        }
    };
    if shift == 0 {
        bits
    } else {
        format!("({bits} << {})", u(shift))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::codec::{snorm_to_f32, unorm_to_f32};

    /// [`unorm_bits`]'s WGSL, operation for operation in `u32` (WGSL's integer arithmetic wraps,
    /// as these do; `countLeadingZeros` is `leading_zeros`).
    fn unorm_bits_on_host(v: u32, k: u32) -> u32 {
        let w = v.wrapping_shl(v.leading_zeros().wrapping_sub(32 - k));
        let p = match normalized_window(k) {
            (multiplier, None) => w.wrapping_mul(multiplier),
            (multiplier, Some(r)) => w.wrapping_mul(multiplier) | (w >> r),
        };
        let bits = ((157 - k).wrapping_sub(v.leading_zeros()) << 23)
            .wrapping_add(((p >> 7).wrapping_add(1)) >> 1);
        if v == 0 { 0 } else { bits }
    }

    /// [`normalized_exact`]'s signed form on the host.
    fn snorm_bits_on_host(s: i32, k: u32) -> u32 {
        let max = (1u32 << k) - 1;
        let magnitude = s.unsigned_abs().min(max);
        unorm_bits_on_host(magnitude, k) | (s as u32 & 0x8000_0000)
    }

    #[test]
    fn exact_normalized_decode_is_correctly_rounded_for_every_pattern() {
        // Every magnitude width a format has: unorm8/16, unorm10-10-10-2's 10 and 2, and the
        // snorm8/16 magnitudes 7 and 15.
        let mut widths: Vec<u32> = VertexFormat::ALL
            .iter()
            .flat_map(|&f| (0..f.components()).filter_map(move |l| normalized_max(f, l)))
            .map(|max| u32::BITS - max.leading_zeros())
            .collect();
        widths.sort_unstable();
        widths.dedup();
        assert_eq!(widths, [2, 7, 8, 10, 15, 16]);
        for k in widths {
            let max = (1u32 << k) - 1;
            for v in 0..=max {
                assert_eq!(
                    unorm_bits_on_host(v, k),
                    unorm_to_f32(v, max).to_bits(),
                    "{v} / {max}"
                );
            }
            for s in -(max as i32) - 1..=max as i32 {
                assert_eq!(
                    snorm_bits_on_host(s, k),
                    snorm_to_f32(s, max).to_bits(),
                    "max({s} / {max}, -1)"
                );
            }
        }
    }

    #[test]
    fn exact_normalized_decode_snippets() {
        assert_eq!(
            decode_unit_exact(VertexFormat::Unorm8x2, 1, "r", NanBits::Quiet),
            "bitcast<f32>(select(((149u - countLeadingZeros(r)) << 23u) + (((((r << (countLeadingZeros(r) - 24u)) * 0x1010101u) >> 7u) + 1u) >> 1u), 0u, r == 0u))"
        );
        // Integers and floats decode as `decode_unit_with` does.
        assert_eq!(
            decode_unit_exact(VertexFormat::Sint16x2, 1, "r", NanBits::Quiet),
            decode_unit_with(VertexFormat::Sint16x2, 1, "r", NanBits::Quiet)
        );
    }

    #[test]
    fn snippets_name_their_units() {
        assert_eq!(
            decode_unit(VertexFormat::Unorm10_10_10_2, 3, "w"),
            "(f32((w >> 30u)) / 3.0)"
        );
        assert_eq!(
            decode_unit(VertexFormat::Unorm10_10_10_2, 1, "w"),
            "(f32(((w >> 10u) & 0x3ffu)) / 1023.0)"
        );
        assert_eq!(
            decode_unit(VertexFormat::Snorm8x4, 2, "r"),
            "max(f32((bitcast<i32>(r << 24u) >> 24u)) / 127.0, -1.0)"
        );
        assert_eq!(decode_unit(VertexFormat::Uint16x2, 1, "r"), "r");
        assert_eq!(
            decode_unit_as(
                VertexFormat::Uint8,
                0,
                "r",
                PrimitiveType::I32,
                NanBits::Quiet
            ),
            "bitcast<i32>(r)"
        );
        assert_eq!(
            encode_unit(VertexFormat::Sint16, 0, "v", PrimitiveType::I32),
            "(bitcast<u32>(v) & 0xffffu)"
        );
        assert_eq!(
            encode_unit(VertexFormat::Unorm10_10_10_2, 3, "v", PrimitiveType::F32),
            "((u32((clamp(v, 0.0, 1.0) * 3.0)) + select(0u, 1u, (clamp(v, 0.0, 1.0) * 3.0) - trunc((clamp(v, 0.0, 1.0) * 3.0)) >= 0.5)) << 30u)"
        );
    }
}
