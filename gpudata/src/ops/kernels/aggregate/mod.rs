//! The aggregation kernels: whole-column reductions ([`tree`]: count, valid count, sum, minimum
//! and maximum in one pass and a pairwise tree of partial records), and the per-group
//! accumulations behind histograms, group-by and grid aggregation ([`atomics`]: a group id per
//! row from a key column, a histogram bin or a grid cell; counts, minima, maxima and
//! fixed-point sums in integer atomics, workgroup-private where the groups fit workgroup
//! memory; [`finish`] the fixed-point WGSL and the pass writing each group's results), with the
//! hash table that numbers sparse keys ([`hash`]).
//!
//! What they share is here: the one-lane formats they read ([`Lane`]), the WGSL that loads a
//! lane and widens it to 32 bits, the order keys of minima and maxima, and the row masks.

pub(crate) mod atomics;
mod finish;
pub(crate) mod hash;
pub(crate) mod tree;

use crate::format::{DataType, VertexFormat};

/// How a widened 32-bit lane value is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// IEEE `f32` bits (`float16` widened to `f32`).
    Float,
    /// Two's complement `i32` bits (8 and 16-bit values sign-extended).
    Signed,
    /// `u32` (8 and 16-bit values zero-extended).
    Unsigned,
}

/// A one-component float or integer format as the aggregation kernels read it: its kind once
/// widened to 32 bits, its stored bytes, and whether it is `float16`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lane {
    pub kind: Kind,
    pub bytes: u64,
    pub half: bool,
}

impl Lane {
    /// The lane of `format`: `float32`, `float16`, `uint8/16/32`, `sint8/16/32`; `None` for
    /// other formats (several components, normalized, packed bit fields).
    pub(crate) fn of(format: VertexFormat) -> Option<Lane> {
        if format.components() != 1 {
            return None;
        }
        let (kind, bytes, half) = match format.data_type() {
            DataType::Float32 => (Kind::Float, 4, false),
            DataType::Float16 => (Kind::Float, 2, true),
            DataType::Uint8 => (Kind::Unsigned, 1, false),
            DataType::Uint16 => (Kind::Unsigned, 2, false),
            DataType::Uint32 => (Kind::Unsigned, 4, false),
            DataType::Sint8 => (Kind::Signed, 1, false),
            DataType::Sint16 => (Kind::Signed, 2, false),
            DataType::Sint32 => (Kind::Signed, 4, false),
            _ => return None,
        };
        Some(Lane { kind, bytes, half })
    }

    /// WGSL `fn {name}(a: u32) -> u32`: the lane stored at byte address `a` of binding
    /// `binding`, widened to 32 bits (`f32` bits, sign- or zero-extended integers).
    pub(crate) fn load_fn(&self, name: &str, binding: &str) -> String {
        let raw = super::select::rows::load_fn(&format!("{name}_raw"), binding, self.bytes);
        let bits = self.bytes * 8;
        let widen = match (self.kind, self.half) {
            (Kind::Float, true) => format!("bitcast<u32>(unpack2x16float({name}_raw(a)).x)"),
            (Kind::Signed, _) if bits < 32 => {
                let shift = 32 - bits;
                format!("bitcast<u32>(bitcast<i32>({name}_raw(a) << {shift}u) >> {shift}u)")
            }
            _ => format!("{name}_raw(a)"),
        };
        format!("{raw}fn {name}(a: u32) -> u32 {{ return {widen}; }}\n")
    }
}

/// The host twin of [`Lane::load_fn`]'s widening: `raw` (the stored bits, zero-extended) as a
/// 32-bit lane value.
pub(crate) fn widen(lane: Lane, raw: u32) -> u32 {
    let bits = lane.bytes * 8;
    match (lane.kind, lane.half) {
        (Kind::Float, true) => crate::format::codec::f16_to_f32(raw as u16).to_bits(),
        (Kind::Signed, _) if bits < 32 => {
            let shift = 32 - bits;
            (((raw << shift) as i32) >> shift) as u32
        }
        _ => raw,
    }
}

/// WGSL `is_nan(w)`, `is_inf(w)`, `key(w)` and `unkey(k)` for widened values of `kind`: a key
/// is a `u32` whose unsigned order is the value's (floats sign-magnitude flipped, so
/// `-0 < +0`; signed integers with the sign bit flipped).
pub(crate) fn order_functions(kind: Kind) -> String {
    match kind {
        Kind::Float => "fn is_nan(w: u32) -> bool { return (w & 0x7fffffffu) > 0x7f800000u; }\n\
             fn is_inf(w: u32) -> bool { return (w & 0x7fffffffu) == 0x7f800000u; }\n\
             fn key(w: u32) -> u32 { return select(w | 0x80000000u, ~w, (w & 0x80000000u) != 0u); }\n\
             fn unkey(k: u32) -> u32 { return select(~k, k & 0x7fffffffu, (k & 0x80000000u) != 0u); }\n"
            .to_owned(),
        Kind::Signed => "fn is_nan(w: u32) -> bool { return false; }\n\
             fn is_inf(w: u32) -> bool { return false; }\n\
             fn key(w: u32) -> u32 { return w ^ 0x80000000u; }\n\
             fn unkey(k: u32) -> u32 { return k ^ 0x80000000u; }\n"
            .to_owned(),
        Kind::Unsigned => "fn is_nan(w: u32) -> bool { return false; }\n\
             fn is_inf(w: u32) -> bool { return false; }\n\
             fn key(w: u32) -> u32 { return w; }\n\
             fn unkey(k: u32) -> u32 { return k; }\n"
            .to_owned(),
    }
}

/// The host twin of [`order_functions`]' `key`.
pub(crate) fn key(kind: Kind, w: u32) -> u32 {
    match kind {
        Kind::Float if w & 0x8000_0000 != 0 => !w,
        Kind::Float => w | 0x8000_0000,
        Kind::Signed => w ^ 0x8000_0000,
        Kind::Unsigned => w,
    }
}

/// The host twin of [`order_functions`]' `unkey`.
pub(crate) fn unkey(kind: Kind, k: u32) -> u32 {
    match kind {
        Kind::Float if k & 0x8000_0000 != 0 => k & 0x7fff_ffff,
        Kind::Float => !k,
        Kind::Signed => k ^ 0x8000_0000,
        Kind::Unsigned => k,
    }
}

/// Whether widened bits of `kind` are a NaN.
pub(crate) fn is_nan(kind: Kind, w: u32) -> bool {
    kind == Kind::Float && (w & 0x7fff_ffff) > 0x7f80_0000
}

/// The most rows of one piece: the kernels index a run's rows, and a tile past them, in `u32`.
pub(crate) const MAX_PIECE_ROWS: u64 = 1 << 31;

/// Refuses a piece of more than [`MAX_PIECE_ROWS`] rows.
pub(crate) fn check_piece(op: &'static str, length: u64) -> Result<(), crate::ops::OpError> {
    if length > MAX_PIECE_ROWS {
        return Err(crate::ops::OpError::TooManyRows {
            op,
            length,
            max: MAX_PIECE_ROWS,
        });
    }
    Ok(())
}

/// Declares the mask as binding 2 (with `bit`, its word base parameter 2) when `masked`, and
/// returns the next binding.
pub(crate) fn declare_mask(wgsl: &mut String, masked: bool) -> usize {
    if !masked {
        return 2;
    }
    *wgsl += &super::select::rows::binding_decl(2, "mask", "u32", false);
    *wgsl += &mask_fn(2);
    3
}

/// WGSL `fn bit(i: u32) -> bool`: row `i` of a run kept by the mask bound as `mask`, whose word
/// base is parameter `param`.
pub(crate) fn mask_fn(param: u32) -> String {
    format!(
        "fn bit(i: u32) -> bool {{ return ((mask[param({param}u) + (i >> 5u)] >> (i & 31u)) & 1u) == 1u; }}\n"
    )
}

/// The mask words of rows `first..first + rows` of a run (a multiple of 32 rows in), bound, and
/// their word base for the uniform.
pub(crate) fn bind_mask<'a>(
    mask: &'a wgpu::Buffer,
    first: u64,
    rows: u64,
    align: u64,
) -> super::select::rows::Bound<'a> {
    let from = first / 32 * 4;
    let to = (first + rows).div_ceil(32) * 4;
    super::select::rows::bind(mask, from, to.max(from + 4), align)
}
