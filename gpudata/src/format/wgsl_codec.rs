//! The one WGSL codec: per [`VertexFormat`], the WGSL expression that decodes a stored component
//! into the value vertex fetch delivers, and the one that encodes it back; the GPU twin of
//! [`codec`](super::codec), step for step.
//!
//! The operation kernels and the table's WGSL accessors generate their format handling here.
//! Every snippet is a single expression over the names it is given, with no helper function (so
//! any number of them can share one module; the one exception is the kernels' float16 decode,
//! [`NanBits::Unspecified`], a function the kernel declares once) and no literal folded into
//! another (normalized
//! values are `f32(v) / max`, one division, as on the host; decoded values are meant to be bound
//! to a `let` before they meet other operands, so a compiler cannot reassociate or factor them).
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

/// [`decode_unit_with`], then [`convert`]ed to `to`.
#[must_use]
pub fn decode_unit_as(
    format: VertexFormat,
    lane: u32,
    unit: &str,
    to: PrimitiveType,
    nans: NanBits,
) -> String {
    convert(
        &decode_unit_with(format, lane, unit, nans),
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
