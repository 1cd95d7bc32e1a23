//! The one host codec: how every [`VertexFormat`]'s bytes become the values a shader receives,
//! and back.
//!
//! Readback decoding ([`decode_values`](crate::data::decode_values)), the CPU reference of the
//! operations, the normalized newtypes and the table constants all go through these functions;
//! the WGSL twin of every decode is [`wgsl_codec`](super::wgsl_codec), and a GPU test checks
//! that vertex fetch, the WGSL snippets and this module agree on every 8- and 16-bit pattern.
//!
//! The rules (WebGPU's vertex-fetch conversions, and luma.gl's `f32(v / max)`):
//!
//! - unorm: `v / max` and snorm: `max(v / max, -1)`, one correctly rounded `f32` division, with
//!   `max` = `2^n - 1` (unsigned) or `2^(n-1) - 1` (signed); `unorm10-10-10-2` has `max` 1023
//!   for x, y, z (bits 0..10, 10..20, 20..30) and 3 for w (bits 30..32);
//! - float16: exact widening (NaNs keep sign and payload and come out quiet), through the `half`
//!   crate when its feature is on;
//! - integers widen to `u32` / `i32`; every multi-byte unit is little-endian;
//! - `unorm8x4-bgra`: stored B, G, R, A, fetched as R, G, B, A ([`fetch_order`]);
//! - encoding clamps to the format's range, rounds half away from zero (NaN encodes as 0), and
//!   float16 rounds to nearest even.
//!
//! Values are addressed by *unit*: the piece of a value one component is stored in (its 1, 2 or
//! 4 bytes), except `unorm10-10-10-2`, whose four bit fields share one 32-bit unit.
//!
//! ```
//! use gpudata::VertexFormat;
//! use gpudata::format::codec::{self, ShaderScalar};
//!
//! // unorm8x4-bgra bytes B, G, R, A = 10, 20, 30, 255: the shader's `.x` is red, 30 / 255.
//! let bytes = [10, 20, 30, 255];
//! assert_eq!(
//!     codec::decode_lane(VertexFormat::Unorm8x4Bgra, &bytes, 0),
//!     Some(ShaderScalar::F32(30.0 / 255.0))
//! );
//! assert_eq!(codec::decode_unit(VertexFormat::Snorm8, 0, 0x80), ShaderScalar::F32(-1.0));
//! let mut out = [0u8; 2];
//! let lanes = [ShaderScalar::F32(1.0), ShaderScalar::F32(0.5)];
//! codec::encode_value(VertexFormat::Unorm8x2, &lanes, &mut out);
//! assert_eq!(out, [255, 128]);
//! ```

use super::{DataType, PrimitiveType, VertexFormat};

/// One component as a shader receives it, on the host: `f32` for float, float16 and normalized
/// formats, `i32` for signed and `u32` for unsigned integer formats. What decoding gives and
/// encoding takes (a typed constant of a format is a [`GpuConstant`](crate::GpuConstant)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ShaderScalar {
    /// Float, float16 and normalized formats.
    F32(f32),
    /// Signed integer formats.
    I32(i32),
    /// Unsigned integer formats.
    U32(u32),
}

impl ShaderScalar {
    /// The 32 bits a shader holds (`f32` and `i32` bit-cast to `u32`).
    #[must_use]
    pub const fn to_bits(self) -> u32 {
        match self {
            ShaderScalar::F32(v) => v.to_bits(),
            ShaderScalar::I32(v) => v as u32,
            ShaderScalar::U32(v) => v,
        }
    }

    /// The value as `f32`, as WGSL's `f32(e)` converts it (integers round to nearest).
    #[must_use]
    pub fn to_f32(self) -> f32 {
        match self {
            ShaderScalar::F32(v) => v,
            ShaderScalar::I32(v) => v as f32,
            ShaderScalar::U32(v) => v as f32,
        }
    }

    /// The value as `i32`, as WGSL's `i32(e)` converts it (`u32` bits reinterpreted, `f32`
    /// truncated and saturated).
    #[must_use]
    pub fn to_i32(self) -> i32 {
        match self {
            ShaderScalar::F32(v) => v as i32,
            ShaderScalar::I32(v) => v,
            ShaderScalar::U32(v) => v as i32,
        }
    }

    /// The value as `u32`, as WGSL's `u32(e)` converts it (`i32` bits reinterpreted, `f32`
    /// truncated and saturated).
    #[must_use]
    pub fn to_u32(self) -> u32 {
        match self {
            ShaderScalar::F32(v) => v as u32,
            ShaderScalar::I32(v) => v as u32,
            ShaderScalar::U32(v) => v,
        }
    }
}

/// Bytes of one unit of `format`: the component size, or 4 for `unorm10-10-10-2`.
#[must_use]
pub const fn unit_byte_length(format: VertexFormat) -> u64 {
    format.signed_data_type().byte_length()
}

/// Which stored component the shader's lane `lane` comes from: `lane` itself, except for
/// `unorm8x4-bgra`, whose stored B, G, R, A arrive as R, G, B, A.
#[must_use]
pub const fn fetch_order(format: VertexFormat, lane: u32) -> u32 {
    if format.is_bgra() {
        match lane {
            0 => 2,
            2 => 0,
            other => other,
        }
    } else {
        lane
    }
}

/// Which unit holds stored component `lane`: the component itself, or unit 0 for the bit fields
/// of `unorm10-10-10-2`.
#[must_use]
pub const fn unit_of_lane(format: VertexFormat, lane: u32) -> u32 {
    if format.is_packed_bits() { 0 } else { lane }
}

/// The bit field of stored component `lane` inside its unit: `(shift, width)`; the whole unit
/// for every format but `unorm10-10-10-2`.
#[must_use]
pub const fn lane_bits(format: VertexFormat, lane: u32) -> (u32, u32) {
    if format.is_packed_bits() {
        if lane < 3 { (lane * 10, 10) } else { (30, 2) }
    } else {
        (0, unit_byte_length(format) as u32 * 8)
    }
}

/// The integer a normalized component's stored value is divided by (`255` for `unorm8`, `127`
/// for `snorm8`, `1023` / `3` for the fields of `unorm10-10-10-2`); `None` for formats that are
/// not normalized.
#[must_use]
pub const fn normalized_max(format: VertexFormat, lane: u32) -> Option<u32> {
    if !format.is_normalized() {
        return None;
    }
    let (_, width) = lane_bits(format, lane);
    let magnitude = if format.is_signed() { width - 1 } else { width };
    Some((1 << magnitude) - 1)
}

/// `v / max` in `f32`, correctly rounded: an unsigned normalized component.
#[must_use]
pub fn unorm_to_f32(v: u32, max: u32) -> f32 {
    v as f32 / max as f32
}

/// `max(v / max, -1)` in `f32`, the division correctly rounded: a signed normalized component.
#[must_use]
pub fn snorm_to_f32(v: i32, max: u32) -> f32 {
    (v as f32 / max as f32).max(-1.0)
}

/// An unsigned normalized component of `x`: clamped to `[0, 1]`, scaled by `max`, rounded half
/// away from zero; NaN encodes as 0.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "the value is clamped to 0..=max and rounded before the cast"
)]
#[must_use]
pub fn f32_to_unorm(x: f32, max: u32) -> u32 {
    (x.clamp(0.0, 1.0) * max as f32).round() as u32
}

/// A signed normalized component of `x`: clamped to `[-1, 1]`, scaled by `max`, rounded half
/// away from zero; NaN encodes as 0.
#[allow(
    clippy::cast_possible_truncation,
    reason = "the value is clamped to -max..=max and rounded before the cast"
)]
#[must_use]
pub fn f32_to_snorm(x: f32, max: u32) -> i32 {
    (x.clamp(-1.0, 1.0) * max as f32).round() as i32
}

/// IEEE binary16 bits to `f32`, exactly (NaNs keep sign and payload and come out quiet).
#[cfg(feature = "half")]
#[must_use]
pub fn f16_to_f32(bits: u16) -> f32 {
    half::f16::from_bits(bits).to_f32()
}

/// IEEE binary16 bits to `f32`, exactly (NaNs keep sign and payload and come out quiet).
#[cfg(not(feature = "half"))]
#[must_use]
pub fn f16_to_f32(bits: u16) -> f32 {
    fallback::f16_to_f32(bits)
}

/// `f32` to IEEE binary16 bits, rounded to nearest even (overflow gives infinity; NaNs stay NaN
/// with the payload's high bits).
#[cfg(feature = "half")]
#[must_use]
pub fn f32_to_f16(value: f32) -> u16 {
    half::f16::from_f32(value).to_bits()
}

/// `f32` to IEEE binary16 bits, rounded to nearest even (overflow gives infinity; NaNs stay NaN
/// with the payload's high bits).
#[cfg(not(feature = "half"))]
#[must_use]
pub fn f32_to_f16(value: f32) -> u16 {
    fallback::f32_to_f16(value)
}

/// The float16 conversions without the `half` crate: the only hand-written copy, checked
/// against `half` on every pattern when both are built.
#[cfg_attr(feature = "half", allow(dead_code))]
mod fallback {
    pub(super) fn f16_to_f32(bits: u16) -> f32 {
        let sign = u32::from(bits >> 15) << 31;
        let exponent = u32::from((bits >> 10) & 0x1f);
        let mantissa = u32::from(bits & 0x3ff);
        let magnitude = match (exponent, mantissa) {
            (0, 0) => 0,
            // Subnormal: mantissa × 2^-24, exact in f32.
            (0, m) => (m as f32 * f32::from_bits(0x3380_0000)).to_bits(),
            (0x1f, 0) => 0x7f80_0000,
            (0x1f, m) => 0x7fc0_0000 | (m << 13),
            (e, m) => ((e + 112) << 23) | (m << 13),
        };
        f32::from_bits(sign | magnitude)
    }

    #[allow(
        clippy::cast_possible_truncation,
        reason = "every branch assembles at most 16 bits"
    )]
    pub(super) fn f32_to_f16(value: f32) -> u16 {
        let x = value.to_bits();
        let sign = (x >> 16) & 0x8000;
        let exponent = (x >> 23) & 0xff;
        let mantissa = x & 0x7f_ffff;
        if exponent == 0xff {
            let nan = if mantissa == 0 { 0 } else { 0x200 };
            return (sign | 0x7c00 | nan | (mantissa >> 13)) as u16;
        }
        let half_exponent = exponent as i32 - 127 + 15;
        if half_exponent >= 0x1f {
            return (sign | 0x7c00) as u16;
        }
        // The 24-bit significand (with its hidden bit) and how far it shifts right.
        let (significand, shift, biased) = if half_exponent <= 0 {
            if 14 - half_exponent > 24 {
                return sign as u16;
            }
            (mantissa | 0x80_0000, (14 - half_exponent) as u32, 0)
        } else {
            (mantissa, 13, (half_exponent as u32) << 10)
        };
        let kept = significand >> shift;
        let round = 1u32 << (shift - 1);
        let rest = significand & ((round << 1) - 1);
        // Round to nearest, ties to even; a carry into the exponent is the right answer.
        let up = u32::from(rest > round || (rest == round && kept & 1 == 1));
        ((sign | biased | kept) + up) as u16
    }
}

const fn sign_extend(raw: u32, bits: u32) -> i32 {
    ((raw << (32 - bits)) as i32) >> (32 - bits)
}

/// Stored component `lane` of a value of `format`, from the bits of the unit that holds it
/// (`unit`, zero-extended; see [`unit_of_lane`]), as a shader receives it.
///
/// Bits of `unit` above the unit's size are ignored.
#[must_use]
pub fn decode_unit(format: VertexFormat, lane: u32, unit: u32) -> ShaderScalar {
    let (shift, width) = lane_bits(format, lane);
    let raw = if width == 32 {
        unit
    } else {
        (unit >> shift) & ((1 << width) - 1)
    };
    match format.data_type() {
        DataType::Float32 => ShaderScalar::F32(f32::from_bits(raw)),
        DataType::Float16 => ShaderScalar::F32(f16_to_f32(raw as u16)),
        DataType::Uint8 | DataType::Uint16 | DataType::Uint32 => ShaderScalar::U32(raw),
        DataType::Sint8 | DataType::Sint16 | DataType::Sint32 => {
            ShaderScalar::I32(sign_extend(raw, width))
        }
        DataType::Unorm8 | DataType::Unorm16 => {
            ShaderScalar::F32(unorm_to_f32(raw, normalized_max(format, lane).unwrap_or(1)))
        }
        DataType::Snorm8 | DataType::Snorm16 => ShaderScalar::F32(snorm_to_f32(
            sign_extend(raw, width),
            normalized_max(format, lane).unwrap_or(1),
        )),
    }
}

/// The bits of stored component `lane` of `value`, in place inside its unit (so the fields of
/// `unorm10-10-10-2` can be OR-ed together): the inverse of [`decode_unit`] for every value it
/// returns. `value` is converted to the format's type first ([`ShaderScalar::to_f32`] and friends);
/// integers wrap to the unit's width.
#[must_use]
pub fn encode_unit(format: VertexFormat, lane: u32, value: ShaderScalar) -> u32 {
    let (shift, width) = lane_bits(format, lane);
    let mask = if width == 32 {
        u32::MAX
    } else {
        (1 << width) - 1
    };
    let max = normalized_max(format, lane).unwrap_or(1);
    let raw = match format.data_type() {
        DataType::Float32 => value.to_f32().to_bits(),
        DataType::Float16 => u32::from(f32_to_f16(value.to_f32())),
        DataType::Uint8 | DataType::Uint16 | DataType::Uint32 => value.to_u32(),
        DataType::Sint8 | DataType::Sint16 | DataType::Sint32 => value.to_i32() as u32,
        DataType::Unorm8 | DataType::Unorm16 => f32_to_unorm(value.to_f32(), max),
        DataType::Snorm8 | DataType::Snorm16 => f32_to_snorm(value.to_f32(), max) as u32,
    };
    (raw & mask) << shift
}

/// The little-endian bits of unit `unit` of the value in `bytes`, or `None` past its end.
fn read_unit(format: VertexFormat, bytes: &[u8], unit: u32) -> Option<u32> {
    let size = unit_byte_length(format) as usize;
    let start = (unit as usize).checked_mul(size)?;
    let piece = bytes.get(start..start.checked_add(size)?)?;
    let mut word = [0u8; 4];
    word[..size].copy_from_slice(piece);
    Some(u32::from_le_bytes(word))
}

/// Lane `lane` of the value of `format` at the start of `bytes`, as vertex fetch delivers it
/// (`unorm8x4-bgra` swizzled to RGBA); `None` when `lane` is not below the format's component
/// count or `bytes` is shorter than the value.
#[must_use]
pub fn decode_lane(format: VertexFormat, bytes: &[u8], lane: u32) -> Option<ShaderScalar> {
    if lane >= format.components() {
        return None;
    }
    let stored = fetch_order(format, lane);
    let unit = read_unit(format, bytes, unit_of_lane(format, stored))?;
    Some(decode_unit(format, stored, unit))
}

/// Writes one value of `format` into the first [`byte_length`](VertexFormat::byte_length)
/// bytes of `out`, from `lanes` in the order a shader holds them (`unorm8x4-bgra` lanes are
/// R, G, B, A and are stored B, G, R, A). Lanes missing from `lanes` encode as zero; extra lanes
/// and bytes of `out` past the value are left alone. Does nothing when `out` is too short.
pub fn encode_value(format: VertexFormat, lanes: &[ShaderScalar], out: &mut [u8]) {
    let size = unit_byte_length(format) as usize;
    let Some(value) = out.get_mut(..format.byte_length() as usize) else {
        return;
    };
    value.fill(0);
    for lane in 0..format.components() {
        let scalar = lanes
            .get(lane as usize)
            .copied()
            .unwrap_or(ShaderScalar::U32(0));
        let stored = fetch_order(format, lane);
        let bits = encode_unit(format, stored, scalar).to_le_bytes();
        let at = unit_of_lane(format, stored) as usize * size;
        for (byte, new) in value[at..at + size].iter_mut().zip(bits) {
            *byte |= new;
        }
    }
}

/// The scalar type decoded components of `format` have ([`VertexFormat::vertex_input_type`]'s
/// primitive: float16 reads as `f32`).
#[must_use]
pub const fn decoded_type(format: VertexFormat) -> PrimitiveType {
    format.vertex_input_type().primitive()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_formats_divide() {
        for v in 0..=255u32 {
            let expected = (f64::from(v) / 255.0) as f32;
            assert_eq!(
                decode_unit(VertexFormat::Unorm8, 0, v),
                ShaderScalar::F32(expected)
            );
        }
        for v in 0..=u32::from(u16::MAX) {
            let s = i32::from(v as u16 as i16);
            let expected = ((f64::from(s) / 32767.0) as f32).max(-1.0);
            assert_eq!(
                decode_unit(VertexFormat::Snorm16x2, 1, v),
                ShaderScalar::F32(expected),
                "{v:#x}"
            );
        }
        let word: u32 = 1023 | (512 << 10) | (1 << 30);
        let bytes = word.to_le_bytes();
        let lanes: Vec<ShaderScalar> = (0..4)
            .map(|l| decode_lane(VertexFormat::Unorm10_10_10_2, &bytes, l).unwrap())
            .collect();
        assert_eq!(
            lanes,
            [
                ShaderScalar::F32(1.0),
                ShaderScalar::F32(512.0 / 1023.0),
                ShaderScalar::F32(0.0),
                ShaderScalar::F32(1.0 / 3.0)
            ]
        );
    }

    #[test]
    fn encode_inverts_decode_on_every_decoded_value() {
        for format in VertexFormat::ALL {
            let size = unit_byte_length(format) as u32;
            if size == 4 && !format.is_packed_bits() {
                continue;
            }
            for lane in 0..format.components() {
                let (_, width) = lane_bits(format, lane);
                for raw in 0..(1u32 << width) {
                    let unit = raw << lane_bits(format, lane).0;
                    let decoded = decode_unit(format, lane, unit);
                    let back = encode_unit(format, lane, decoded);
                    let snorm_min = format.data_type().is_normalized()
                        && format.is_signed()
                        && sign_extend(raw, width) == -(1 << (width - 1));
                    let nan = matches!(decoded, ShaderScalar::F32(v) if v.is_nan());
                    if snorm_min {
                        // -2^(n-1) and -(2^(n-1) - 1) both decode to -1.
                        assert_eq!(decode_unit(format, lane, back), decoded);
                    } else if nan {
                        assert!(f16_to_f32(back as u16).is_nan());
                    } else {
                        assert_eq!(back, unit, "{format} lane {lane} raw {raw:#x}");
                    }
                }
            }
        }
    }

    #[test]
    fn bgra_values_swizzle_both_ways() {
        let mut out = [0u8; 4];
        let rgba = [0.0, 1.0, 0.5, 1.0].map(ShaderScalar::F32);
        encode_value(VertexFormat::Unorm8x4Bgra, &rgba, &mut out);
        assert_eq!(out, [128, 255, 0, 255]);
        assert_eq!(
            decode_lane(VertexFormat::Unorm8x4Bgra, &out, 2),
            Some(ShaderScalar::F32(128.0 / 255.0))
        );
        assert_eq!(decode_lane(VertexFormat::Unorm8x4Bgra, &out, 4), None);
        assert_eq!(decode_lane(VertexFormat::Uint32, &out[..3], 0), None);
    }

    #[cfg(feature = "half")]
    #[test]
    fn float16_fallback_matches_half_on_every_pattern() {
        for bits in 0..=u16::MAX {
            let ours = fallback::f16_to_f32(bits);
            assert_eq!(ours.to_bits(), f16_to_f32(bits).to_bits(), "{bits:#06x}");
            assert_eq!(fallback::f32_to_f16(ours), f32_to_f16(ours), "{bits:#06x}");
        }
        // Rounding between halves: ties to even, past the last finite half to infinity.
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let x = f32::from_bits(rng as u32);
            assert_eq!(
                fallback::f32_to_f16(x),
                f32_to_f16(x),
                "{:#010x}",
                x.to_bits()
            );
        }
        assert_eq!(fallback::f16_to_f32(0x3c00), 1.0);
        assert_eq!(fallback::f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(fallback::f32_to_f16(65520.0), 0x7c00);
        assert_eq!(fallback::f32_to_f16(65519.0), 0x7bff);
    }
}
