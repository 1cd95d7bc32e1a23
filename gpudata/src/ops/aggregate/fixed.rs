//! The host twin of the per-group accumulation ([`atomics`](crate::ops::kernels::aggregate::atomics)):
//! one group's count, extremes and fixed-point sum, added value by value in any order to the
//! bits the GPU writes. The CPU reference of histograms, group-by and grids is built on it.

use crate::ops::kernels::aggregate::{Kind, key, unkey};

/// One group's accumulators.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Group {
    /// Values that are not NaN (rows, without values).
    pub count: u32,
    /// The smallest and largest key of the finite values (`None`: none).
    pub keys: Option<(u32, u32)>,
    /// Bit 0: a `+inf` value; bit 1: a `-inf` value.
    pub flags: u32,
}

impl Group {
    /// Adds a row without a value.
    pub(crate) fn add_row(&mut self) {
        self.count = self.count.wrapping_add(1);
    }

    /// Adds the widened value `w` (the scan pass).
    pub(crate) fn scan(&mut self, kind: Kind, w: u32) {
        if crate::ops::kernels::aggregate::is_nan(kind, w) {
            return;
        }
        self.count = self.count.wrapping_add(1);
        if kind == Kind::Float && (w & 0x7fff_ffff) == 0x7f80_0000 {
            self.flags |= if w & 0x8000_0000 != 0 { 2 } else { 1 };
            return;
        }
        let k = key(kind, w);
        self.keys = Some(match self.keys {
            None => (k, k),
            Some((lo, hi)) => (lo.min(k), hi.max(k)),
        });
    }

    /// The group's scale `s` (what `shift_of` computes on the GPU).
    pub(crate) fn shift(&self, kind: Kind) -> i32 {
        // Without finite values the sum is 0 at any scale.
        let Some((lo, hi)) = self.keys else {
            return 0;
        };
        let (lo, hi) = (unkey(kind, lo), unkey(kind, hi));
        match kind {
            Kind::Float => {
                let a = (lo & 0x7fff_ffff).max(hi & 0x7fff_ffff);
                52 - ((a >> 23).max(1) as i32 - 127)
            }
            _ => int_shift(uabs(kind, lo).max(uabs(kind, hi))),
        }
    }
}

fn uabs(kind: Kind, w: u32) -> u32 {
    if kind == Kind::Signed && w & 0x8000_0000 != 0 {
        w.wrapping_neg()
    } else {
        w
    }
}

fn int_shift(a: u32) -> i32 {
    if a == 0 {
        0
    } else {
        52 - (31 - a.leading_zeros() as i32)
    }
}

/// `|w| · 2^shift` rounded (halves away from zero), and whether `w` is negative: the
/// fixed-point value the sum pass adds (`w` finite, `|q| < 2⁵³`).
pub(crate) fn quantize(kind: Kind, w: u32, shift: i32) -> (u64, bool) {
    match kind {
        Kind::Float => {
            let e = (w >> 23) & 0xff;
            let m = u64::from((w & 0x7f_ffff) | if e != 0 { 0x80_0000 } else { 0 });
            let k = e.max(1) as i32 - 150 + shift;
            let q = if k >= 0 {
                m << k
            } else {
                let r = -k;
                if r >= 25 {
                    0
                } else {
                    (m + (1 << (r - 1))) >> r
                }
            };
            (q, w & 0x8000_0000 != 0)
        }
        _ => (
            u64::from(uabs(kind, w)) << shift,
            kind == Kind::Signed && w & 0x8000_0000 != 0,
        ),
    }
}

/// The sum `pos − neg` scaled by `2^-shift`, rounded to the nearest `f32` (ties to even),
/// `±inf` past `f32`'s range and `±0` below its normal range: the GPU's `to_f32`.
pub(crate) fn to_f32(pos: u128, neg: u128, shift: i32) -> f32 {
    let d = pos as i128 - neg as i128;
    let negative = d < 0;
    let m = d.unsigned_abs();
    if m == 0 {
        return 0.0;
    }
    let p = 127 - m.leading_zeros() as i32;
    let mut e = p - shift;
    let mut mant: u32;
    if p <= 23 {
        mant = (m as u32) << (23 - p);
    } else {
        let sh = (p - 23) as u32;
        mant = (m >> sh) as u32;
        let half = (m >> (sh - 1)) & 1;
        let low = m & ((1u128 << (sh - 1)) - 1) != 0;
        if half == 1 && (low || mant & 1 == 1) {
            mant += 1;
            if mant == 1 << 24 {
                mant = 1 << 23;
                e += 1;
            }
        }
    }
    let sign = if negative { 0x8000_0000 } else { 0 };
    let bits = if e > 127 {
        sign | 0x7f80_0000
    } else if e < -126 {
        sign
    } else {
        sign | (((e + 127) as u32) << 23) | (mant & 0x7f_ffff)
    };
    f32::from_bits(bits)
}

/// One group's fixed-point sum: positive and negative parts.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sum {
    pub pos: u128,
    pub neg: u128,
}

impl Sum {
    /// Adds the widened value `w` at the group's `shift` (the sum pass).
    pub(crate) fn add(&mut self, kind: Kind, w: u32, shift: i32) {
        if kind == Kind::Float && (w & 0x7fff_ffff) >= 0x7f80_0000 {
            return;
        }
        let (q, negative) = quantize(kind, w, shift);
        if negative {
            self.neg += u128::from(q);
        } else {
            self.pos += u128::from(q);
        }
    }

    /// The sum as the finish pass writes it (infinities from the flags).
    pub(crate) fn value(&self, group: &Group, kind: Kind) -> f32 {
        match group.flags {
            3 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            _ => to_f32(self.pos, self.neg, group.shift(kind)),
        }
    }
}

impl Group {
    /// The minimum and maximum the finish pass writes, as 32-bit values: floats NaN without
    /// values, `±inf` from the flags; integers 0 without values, or (`float_extremes`, the
    /// grid's) converted to `f32` and NaN without values.
    pub(crate) fn extremes(&self, kind: Kind, float_extremes: bool) -> (u32, u32) {
        const NAN: u32 = 0x7fc0_0000;
        let keys = self.keys.map(|(lo, hi)| (unkey(kind, lo), unkey(kind, hi)));
        match kind {
            Kind::Float => {
                let (mut lo, mut hi) = keys.unwrap_or((NAN, NAN));
                if keys.is_none() {
                    if self.flags & 1 != 0 {
                        lo = 0x7f80_0000;
                    } else if self.flags & 2 != 0 {
                        hi = 0xff80_0000;
                    }
                }
                if self.flags & 2 != 0 {
                    lo = 0xff80_0000;
                }
                if self.flags & 1 != 0 {
                    hi = 0x7f80_0000;
                }
                (lo, hi)
            }
            _ if float_extremes => {
                let f = |w: u32| {
                    if kind == Kind::Signed {
                        (w as i32 as f32).to_bits()
                    } else {
                        (w as f32).to_bits()
                    }
                };
                keys.map_or((NAN, NAN), |(lo, hi)| (f(lo), f(hi)))
            }
            _ => keys.unwrap_or((0, 0)),
        }
    }
}
