//! Host decoding: GPU bytes of any [`VertexFormat`] to the values a vertex shader receives.

use crate::data::DataError;
use crate::format::codec::{self, ShaderScalar};
use crate::format::{PrimitiveType, VertexFormat};
use crate::layout::strided_byte_length;

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
/// `byte_stride` bytes, exactly as vertex fetch converts them (the rules of
/// [`codec`](crate::format::codec), which does the work):
///
/// - unorm: `v / (2^n - 1)`; snorm: `max(v / (2^(n-1) - 1), -1)`;
/// - float16 exactly widened (through `half` when its feature is on);
/// - `unorm8x4-bgra`: stored B, G, R, A, delivered as R, G, B, A;
/// - `unorm10-10-10-2`: one little-endian `u32`, x in bits 0..10, y in 10..20, z in 20..30 (each
///   `/ 1023`), w in bits 30..32 (`/ 3`);
/// - integers widen to `u32` / `i32`; every multi-byte value is little-endian.
///
/// # Errors
/// [`DataError::ViewByteStrideBelowFormat`] when more than one value is asked for with a stride
/// shorter than one value (values would overlap; a stride of 0 would repeat one value without
/// bound), [`DataError::ShortBytes`] when `bytes` ends before the last value does, or the span
/// overflows.
pub fn decode_values(
    format: VertexFormat,
    bytes: &[u8],
    count: usize,
    byte_stride: usize,
) -> Result<HostValues, DataError> {
    let short = |needed: u64| DataError::ShortBytes {
        format,
        count: count as u64,
        needed,
        found: bytes.len() as u64,
    };
    // The view rule: values may not overlap. It also bounds the output by the input: with a
    // stride of at least one value, `count` is at most one more than `bytes.len() / stride`.
    if count > 1 && (byte_stride as u64) < format.byte_length() {
        return Err(DataError::ViewByteStrideBelowFormat {
            byte_stride: byte_stride as u64,
            format,
            format_byte_length: format.byte_length(),
        });
    }
    let needed = strided_byte_length(count as u64, byte_stride as u64, format.byte_length())
        .ok_or_else(|| short(u64::MAX))?;
    if needed > bytes.len() as u64 {
        return Err(short(needed));
    }
    let element = format.byte_length() as usize;
    let components = format.components();
    let scalars = (0..count).flat_map(|i| {
        let value = &bytes[i * byte_stride..i * byte_stride + element];
        (0..components).filter_map(move |lane| codec::decode_lane(format, value, lane))
    });
    Ok(match codec::decoded_type(format) {
        PrimitiveType::U32 => HostValues::U32(scalars.map(ShaderScalar::to_u32).collect()),
        PrimitiveType::I32 => HostValues::I32(scalars.map(ShaderScalar::to_i32).collect()),
        PrimitiveType::F32 | PrimitiveType::F16 => {
            HostValues::F32(scalars.map(ShaderScalar::to_f32).collect())
        }
    })
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
}
