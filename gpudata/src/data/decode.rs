//! Host decoding: GPU bytes of any [`VertexFormat`] to the values a vertex shader receives.

use crate::data::DataError;
use crate::format::{DataType, PrimitiveType, VertexFormat};

/// Decoded values, flattened (components of value 0, then value 1, ...), as the scalar type a
/// vertex shader receives them in: `f32` for float, float16 and normalized formats, `i32` for
/// signed integers, `u32` for unsigned integers.
#[derive(Clone, Debug, PartialEq)]
pub enum HostValues {
    /// Float, float16 and normalized formats.
    F32(Vec<f32>),
    /// Signed integer formats.
    I32(Vec<i32>),
    /// Unsigned integer formats.
    U32(Vec<u32>),
}

impl HostValues {
    /// Scalars held (values × components).
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            HostValues::F32(v) => v.len(),
            HostValues::I32(v) => v.len(),
            HostValues::U32(v) => v.len(),
        }
    }

    /// Whether no scalar is held.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `f32` scalars, for float, float16 and normalized formats.
    #[must_use]
    pub fn as_f32(&self) -> Option<&[f32]> {
        match self {
            HostValues::F32(v) => Some(v),
            _ => None,
        }
    }

    /// The `i32` scalars, for signed integer formats.
    #[must_use]
    pub fn as_i32(&self) -> Option<&[i32]> {
        match self {
            HostValues::I32(v) => Some(v),
            _ => None,
        }
    }

    /// The `u32` scalars, for unsigned integer formats.
    #[must_use]
    pub fn as_u32(&self) -> Option<&[u32]> {
        match self {
            HostValues::U32(v) => Some(v),
            _ => None,
        }
    }

    /// Every scalar as `f64` (exact for all three scalar types).
    #[must_use]
    pub fn to_f64(&self) -> Vec<f64> {
        match self {
            HostValues::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            HostValues::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            HostValues::U32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        }
    }
}

/// Decodes `count` values of `format` from `bytes`, the first at byte 0 and the others every
/// `byte_stride` bytes, exactly as vertex fetch converts them:
///
/// - unorm: `v / (2^n - 1)`; snorm: `max(v / (2^(n-1) - 1), -1)`;
/// - float16 through `half` (or an exact bit conversion without the `half` feature);
/// - `unorm8x4-bgra`: stored B, G, R, A, delivered as R, G, B, A;
/// - `unorm10-10-10-2`: one little-endian `u32`, x in bits 0..10, y in 10..20, z in 20..30 (each
///   `/ 1023`), w in bits 30..32 (`/ 3`);
/// - integers widen to `u32` / `i32`; every multi-byte value is little-endian.
///
/// # Errors
/// [`DataError::ShortBytes`] when `bytes` ends before the last value does, or the span
/// overflows.
pub fn decode_values(
    format: VertexFormat,
    bytes: &[u8],
    count: usize,
    byte_stride: usize,
) -> Result<HostValues, DataError> {
    let element = usize::try_from(format.byte_length()).unwrap_or(usize::MAX);
    let needed = match count {
        0 => Some(0),
        n => (n - 1)
            .checked_mul(byte_stride)
            .and_then(|v| v.checked_add(element)),
    };
    let short = |needed: u64| DataError::ShortBytes {
        format,
        count: count as u64,
        needed,
        found: bytes.len() as u64,
    };
    let needed = needed.ok_or_else(|| short(u64::MAX))?;
    if needed > bytes.len() {
        return Err(short(needed as u64));
    }
    let values = (0..count).map(|i| &bytes[i * byte_stride..i * byte_stride + element]);
    let components = format.components() as usize;
    Ok(match format.vertex_input_type().primitive() {
        PrimitiveType::U32 => {
            let mut out = Vec::with_capacity(count * components);
            for v in values {
                push_unsigned(format.data_type(), v, &mut out);
            }
            HostValues::U32(out)
        }
        PrimitiveType::I32 => {
            let mut out = Vec::with_capacity(count * components);
            for v in values {
                push_signed(format.data_type(), v, &mut out);
            }
            HostValues::I32(out)
        }
        PrimitiveType::F32 | PrimitiveType::F16 => {
            let mut out = Vec::with_capacity(count * components);
            for v in values {
                push_float(format, v, &mut out);
            }
            HostValues::F32(out)
        }
    })
}

fn u16_at(v: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([v[2 * i], v[2 * i + 1]])
}

fn u32_at(v: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]])
}

fn push_unsigned(data_type: DataType, v: &[u8], out: &mut Vec<u32>) {
    match data_type.byte_length() {
        1 => out.extend(v.iter().map(|&b| u32::from(b))),
        2 => out.extend((0..v.len() / 2).map(|i| u32::from(u16_at(v, i)))),
        _ => out.extend((0..v.len() / 4).map(|i| u32_at(v, i))),
    }
}

fn push_signed(data_type: DataType, v: &[u8], out: &mut Vec<i32>) {
    match data_type.byte_length() {
        1 => out.extend(v.iter().map(|&b| i32::from(b as i8))),
        2 => out.extend((0..v.len() / 2).map(|i| i32::from(u16_at(v, i) as i16))),
        _ => out.extend((0..v.len() / 4).map(|i| u32_at(v, i) as i32)),
    }
}

fn push_float(format: VertexFormat, v: &[u8], out: &mut Vec<f32>) {
    if format.is_packed_bits() {
        let word = u32_at(v, 0);
        let ten = |shift: u32| ((word >> shift) & 0x3ff) as f32 / 1023.0;
        out.extend([ten(0), ten(10), ten(20), (word >> 30) as f32 / 3.0]);
        return;
    }
    if format.is_bgra() {
        let n = |b: u8| f32::from(b) / 255.0;
        out.extend([n(v[2]), n(v[1]), n(v[0]), n(v[3])]);
        return;
    }
    match format.data_type() {
        DataType::Float32 => out.extend((0..v.len() / 4).map(|i| f32::from_bits(u32_at(v, i)))),
        DataType::Float16 => out.extend((0..v.len() / 2).map(|i| f16_to_f32(u16_at(v, i)))),
        DataType::Unorm8 => out.extend(v.iter().map(|&b| f32::from(b) / 255.0)),
        DataType::Snorm8 => out.extend(v.iter().map(|&b| (f32::from(b as i8) / 127.0).max(-1.0))),
        DataType::Unorm16 => {
            out.extend((0..v.len() / 2).map(|i| f32::from(u16_at(v, i)) / 65535.0));
        }
        DataType::Snorm16 => out
            .extend((0..v.len() / 2).map(|i| (f32::from(u16_at(v, i) as i16) / 32767.0).max(-1.0))),
        // Integer formats are decoded by `push_unsigned` / `push_signed`.
        DataType::Uint8
        | DataType::Sint8
        | DataType::Uint16
        | DataType::Sint16
        | DataType::Uint32
        | DataType::Sint32 => {}
    }
}

#[cfg(feature = "half")]
fn f16_to_f32(bits: u16) -> f32 {
    half::f16::from_bits(bits).to_f32()
}

#[cfg(not(feature = "half"))]
fn f16_to_f32(bits: u16) -> f32 {
    f16_bits_to_f32(bits)
}

/// IEEE binary16 to binary32, exactly (every half value is a float value).
#[cfg_attr(feature = "half", allow(dead_code))]
fn f16_bits_to_f32(bits: u16) -> f32 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_and_packed_formats_decode_like_vertex_fetch() {
        let v = decode_values(VertexFormat::Unorm8x4Bgra, &[10, 20, 30, 255], 1, 4).unwrap();
        assert_eq!(
            v,
            HostValues::F32(vec![30.0 / 255.0, 20.0 / 255.0, 10.0 / 255.0, 1.0])
        );
        let word: u32 = 1023 | (512 << 10) | (1 << 30);
        let v = decode_values(VertexFormat::Unorm10_10_10_2, &word.to_le_bytes(), 1, 4).unwrap();
        assert_eq!(
            v,
            HostValues::F32(vec![1.0, 512.0 / 1023.0, 0.0, 1.0 / 3.0])
        );
        let v = decode_values(VertexFormat::Snorm8x2, &[0x80, 0x7f], 1, 2).unwrap();
        assert_eq!(v, HostValues::F32(vec![-1.0, 1.0]));
        let v = decode_values(VertexFormat::Snorm16, &(-32767i16).to_le_bytes(), 1, 2).unwrap();
        assert_eq!(v, HostValues::F32(vec![-1.0]));
        let v = decode_values(VertexFormat::Sint16x2, &[0xff, 0xff, 2, 0], 1, 4).unwrap();
        assert_eq!(v, HostValues::I32(vec![-1, 2]));
    }

    #[test]
    fn strided_values_skip_the_gaps() {
        let bytes = [1u8, 0, 0, 0, 99, 99, 2, 0, 0, 0, 99, 99];
        let v = decode_values(VertexFormat::Uint32, &bytes, 2, 6).unwrap();
        assert_eq!(v, HostValues::U32(vec![1, 2]));
        assert!(matches!(
            decode_values(VertexFormat::Uint32, &bytes, 3, 6),
            Err(DataError::ShortBytes {
                needed: 16,
                found: 12,
                ..
            })
        ));
    }

    #[test]
    fn f16_bit_conversion_is_exact() {
        for bits in 0..=u16::MAX {
            let ours = f16_bits_to_f32(bits);
            #[cfg(feature = "half")]
            {
                let reference = half::f16::from_bits(bits).to_f32();
                assert!(
                    ours.to_bits() == reference.to_bits() || (ours.is_nan() && reference.is_nan()),
                    "bits {bits:#06x}: {ours} vs {reference}"
                );
            }
            #[cfg(not(feature = "half"))]
            let _ = ours;
        }
        assert_eq!(f16_bits_to_f32(0x3c00), 1.0);
        assert_eq!(f16_bits_to_f32(0xc000), -2.0);
        assert_eq!(f16_bits_to_f32(0x0001), 2f32.powi(-24));
    }
}
