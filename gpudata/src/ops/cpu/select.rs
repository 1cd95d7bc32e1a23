//! The CPU reference of `extent`, `gather`, `sequence` and `segmented_map`.

use super::host::{HostColumn, HostInput};
use crate::format::codec::{self, ShaderScalar};
use crate::format::{DataType, VertexFormat};
use crate::ops::OpError;
use crate::ops::extent::extent_output;
use crate::ops::gather::{check_ids, check_segments, integer};

/// A lane's stored value, comparable: floats by value (NaN `None`), integers exactly.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Ordered {
    Float(f32),
    Int(i64),
}

fn ordered(format: VertexFormat, raw: u32, bits: u32) -> Option<Ordered> {
    let sign_extend = |v: u32| i64::from(((v << (32 - bits)) as i32) >> (32 - bits));
    match format.data_type() {
        DataType::Float32 => Some(f32::from_bits(raw))
            .filter(|v| !v.is_nan())
            .map(Ordered::Float),
        DataType::Float16 => Some(codec::f16_to_f32(raw as u16))
            .filter(|v| !v.is_nan())
            .map(Ordered::Float),
        DataType::Sint8
        | DataType::Sint16
        | DataType::Sint32
        | DataType::Snorm8
        | DataType::Snorm16 => Some(Ordered::Int(sign_extend(raw))),
        _ => Some(Ordered::Int(i64::from(raw))),
    }
}

/// Whether `v` replaces `best` as the minimum (`min`) or maximum: strictly beyond it, or a zero
/// of the preferred sign (`-0` for the minimum, `+0` for the maximum).
fn better(v: Ordered, best: Ordered, v_raw: u32, min: bool, sign: u32) -> bool {
    match (v, best) {
        (Ordered::Float(a), Ordered::Float(b)) if a == b && a == 0.0 => {
            let negative = v_raw & sign != 0;
            negative == min
        }
        _ if min => v < best,
        _ => v > best,
    }
}

/// The reference of [`ops::extent`](crate::ops::extent): per lane `[minimum, maximum]` rows.
///
/// # Errors
/// As [`ops::extent`](crate::ops::extent) (without the device's).
pub fn extent(input: HostInput<'_>) -> Result<HostColumn, OpError> {
    let (format, _) = extent_output(input.format())?;
    input.check("extent", 0)?;
    if input.length() == 0 {
        return Err(OpError::Empty { op: "extent" });
    }
    let source = input.format();
    let lanes = source.components();
    let size = source.byte_length() / u64::from(lanes);
    let bits = size as u32 * 8;
    let sign = 1u32 << (bits - 1);
    let mut bytes = Vec::new();
    for lane in 0..lanes {
        let raw = |row: u64| input.unit(row, u64::from(lane));
        let first = raw(0);
        let mut lo: Option<(Ordered, u32)> = None;
        let mut hi: Option<(Ordered, u32)> = None;
        for row in 0..input.length() {
            let r = raw(row);
            let Some(v) = ordered(source, r, bits) else {
                continue;
            };
            if lo.is_none_or(|(b, _)| better(v, b, r, true, sign)) {
                lo = Some((v, r));
            }
            if hi.is_none_or(|(b, _)| better(v, b, r, false, sign)) {
                hi = Some((v, r));
            }
        }
        let nan_first = ordered(source, first, bits).is_none();
        let (lo, hi) = match (lo, hi) {
            (Some((_, l)), Some((_, h))) if !nan_first => (l, h),
            _ => (first, first),
        };
        bytes.extend_from_slice(&lo.to_le_bytes()[..size as usize]);
        bytes.extend_from_slice(&hi.to_le_bytes()[..size as usize]);
    }
    Ok(HostColumn {
        format,
        length: u64::from(lanes),
        bytes,
    })
}

/// The reference of [`ops::gather`](crate::ops::gather).
///
/// # Errors
/// As [`ops::gather`](crate::ops::gather) (without the device's).
pub fn gather(ids: HostInput<'_>, source: HostInput<'_>) -> Result<HostColumn, OpError> {
    check_ids("gather", ids.format())?;
    ids.check("gather", 0)?;
    source.check("gather", 1)?;
    let row = source.format().byte_length() as usize;
    let mut bytes = Vec::with_capacity(ids.length() as usize * row);
    for i in 0..ids.length() {
        let index = match codec::decode_lane(ids.format(), ids.row(i), 0) {
            Some(ShaderScalar::U32(v)) => Some(u64::from(v)),
            Some(ShaderScalar::I32(v)) => u64::try_from(v).ok(),
            Some(ShaderScalar::F32(v)) if v >= 0.0 && v.trunc() == v && v < 4_294_967_296.0 => {
                Some(v as u64)
            }
            _ => None,
        };
        match index.filter(|&k| k < source.length()) {
            Some(k) => bytes.extend_from_slice(source.row(k)),
            None => bytes.resize(bytes.len() + row, 0),
        }
    }
    Ok(HostColumn {
        format: source.format(),
        length: ids.length(),
        bytes,
    })
}

/// The reference of [`ops::sequence`](crate::ops::sequence).
///
/// # Errors
/// [`OpError::ZeroStep`].
pub fn sequence(count: u32, start: i32, step: i32) -> Result<HostColumn, OpError> {
    if step == 0 {
        return Err(OpError::ZeroStep { op: "sequence" });
    }
    let bytes = (0..count)
        .flat_map(|i| {
            (start as u32)
                .wrapping_add(i.wrapping_mul(step as u32))
                .to_le_bytes()
        })
        .collect();
    Ok(HostColumn {
        format: VertexFormat::Sint32,
        length: u64::from(count),
        bytes,
    })
}

/// The reference of [`ops::segmented_map`](crate::ops::segmented_map), stepping through the
/// segments as luma.gl's CPU backend does.
///
/// # Errors
/// As [`ops::segmented_map`](crate::ops::segmented_map) (without the device's).
pub fn segmented_map(segments: HostInput<'_>, vertex_count: u64) -> Result<HostColumn, OpError> {
    const OP: &str = "segmented_map";
    segments.check(OP, 0)?;
    let format = segments.format();
    let starts: Vec<i64> = if format.components() == 1 && format.data_type().is_integer() {
        (0..segments.length())
            .map(|i| integer(codec::decode_lane(format, segments.row(i), 0)))
            .collect()
    } else {
        Vec::new()
    };
    check_segments(OP, format, &starts, vertex_count)?;
    let mut bytes = Vec::with_capacity(vertex_count as usize * 8);
    let mut segment = 0usize;
    for v in 0..vertex_count {
        while segment + 1 < starts.len() && starts[segment + 1] as u64 <= v {
            segment += 1;
        }
        bytes.extend_from_slice(&(segment as u32).to_le_bytes());
        bytes.extend_from_slice(&((v - starts[segment] as u64) as u32).to_le_bytes());
    }
    Ok(HostColumn {
        format: VertexFormat::Uint32x2,
        length: vertex_count,
        bytes,
    })
}
