//! Integer arithmetic with a literal that is not an integer of the computation's range (`0.75`,
//! `-2.5`, `1e10`, `3e9` on `sint32`): the step's exact result on the real numbers, truncated
//! toward zero and wrapped into 32 bits, as luma.gl's CPU backend stores `x op literal` in an
//! integer typed array (there computed in `f64`, which is exact below 2^53). Every step is
//! wrapping `u32` arithmetic over a few words the host derives from the literal (the
//! [`params`]), so the kernels and the CPU reference compute it alike, bit for bit:
//!
//! - `x + l`, `l + x`, `x - l`: `x + K + (S where A ≤ x ≤ B)`, with `K = trunc(l) mod 2^32` and
//!   the `±1` that truncation of `x + trunc(l) + frac(l)` adds where the exact sum's sign is
//!   the opposite of the fraction's; `l - x` is the negation of `x + (−l)`;
//! - `x * l`, `l * x`, `x / l`: `sign · (|x| · I + ⌊|x| · c / 2^96⌋)`, where `I + c / 2^96` is
//!   `|l|` (or `1 / |l|`) split into its integer part modulo 2^32 and a 96-bit fraction rounded
//!   up: exactly `|l|`'s fraction for products (a binary fraction of at most 96 bits matters),
//!   and for quotients within 2^−96, too little to move `⌊|x| · frac⌋` for any 32-bit `x` (the
//!   fraction is `n / m` with `m < 2^53` odd, so `|x| · frac` is at least `1 / m` below the
//!   next integer);
//! - `l / x`: `sign · ⌊trunc(|l|) / |x|⌋ mod 2^32` (truncating the literal first changes no
//!   quotient of integers), one `u32` division when `trunc(|l|) < 2^32`, else binary long
//!   division over its bits in a loop (up to 1,035 steps, for literals of 2^32 and more only).
//!
//! A NaN or infinite literal makes the step 0 (a typed array stores NaN and ±∞ as 0).

use super::family::{ArithmeticOp, Compute};
use super::input::Literal;

/// Which integer step a literal takes part in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Step {
    /// `x + l` or `l + x`.
    Add,
    /// `x - l`.
    SubtractRight,
    /// `l - x`.
    SubtractLeft,
    /// `x * l` or `l * x`.
    Multiply,
    /// `x / l`.
    DivideRight,
    /// `l / x`.
    DivideLeft,
}

impl Step {
    /// The step of `op` with the literal on the left (`left`) or the right; `None` for
    /// [`ArithmeticOp::Remainder`], which takes no exact steps (its semantics refuse such
    /// literals).
    pub(crate) const fn of(op: ArithmeticOp, left: bool) -> Option<Step> {
        Some(match (op, left) {
            (ArithmeticOp::Add, _) => Step::Add,
            (ArithmeticOp::Subtract, false) => Step::SubtractRight,
            (ArithmeticOp::Subtract, true) => Step::SubtractLeft,
            (ArithmeticOp::Multiply, _) => Step::Multiply,
            (ArithmeticOp::Divide, false) => Step::DivideRight,
            (ArithmeticOp::Divide, true) => Step::DivideLeft,
            (ArithmeticOp::Remainder, _) => return None,
        })
    }
}

/// How one lane of a literal enters an integer computation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum LaneKind {
    /// An integer of the computation's range: plain wrapping integer arithmetic on these bits.
    Fits(u32),
    /// NaN or ±∞: the step gives 0.
    Zero,
    /// Anything else: the exact step over [`params`].
    Exact(f64),
}

/// How lane value `v` of a literal enters a computation in `compute` (an integer type).
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "only integers of the type's range are converted"
)]
pub(crate) fn lane_kind(v: f64, compute: Compute) -> LaneKind {
    let integral = v.fract() == 0.0;
    let fits = match compute {
        Compute::F32 => true,
        Compute::U32 => integral && (0.0..4_294_967_296.0).contains(&v),
        Compute::I32 => integral && (-2_147_483_648.0..2_147_483_648.0).contains(&v),
    };
    match compute {
        Compute::F32 => LaneKind::Fits((v as f32).to_bits()),
        _ if fits && compute == Compute::U32 => LaneKind::Fits(v as u32),
        _ if fits => LaneKind::Fits(v as i32 as u32),
        _ if !v.is_finite() => LaneKind::Zero,
        _ => LaneKind::Exact(v),
    }
}

/// The lanes of a literal as bits of `compute` (missing vector lanes 0; lanes that do not fit
/// an integer computation 0, their steps read [`params`] instead).
pub(crate) fn literal_bits(literal: &Literal, compute: Compute) -> [u32; 4] {
    std::array::from_fn(|lane| match lane_kind(literal.lane(lane as u32), compute) {
        LaneKind::Fits(bits) => bits,
        LaneKind::Zero | LaneKind::Exact(_) => 0,
    })
}

/// Whether some lane of `literal` takes an exact step in `compute`.
pub(crate) fn needs_params(literal: &Literal, compute: Compute) -> bool {
    (0..4).any(|lane| matches!(lane_kind(literal.lane(lane), compute), LaneKind::Exact(_)))
}

/// Words of [`params`] per lane.
pub(crate) const PARAMS: usize = 5;

/// The uniform entries of a literal of a fold in `compute`: its [`literal_bits`], then, when a
/// lane takes an exact `step`, [`PARAMS`] entries of that lane's [`params`] (0 elsewhere).
pub(crate) fn constants(literal: &Literal, compute: Compute, step: Step) -> Vec<[u32; 4]> {
    let mut entries = vec![literal_bits(literal, compute)];
    if needs_params(literal, compute) {
        let lanes: [[u32; PARAMS]; 4] =
            std::array::from_fn(|lane| match lane_kind(literal.lane(lane as u32), compute) {
                LaneKind::Exact(v) => params(step, v, compute == Compute::I32),
                _ => [0; PARAMS],
            });
        entries.extend((0..PARAMS).map(|w| std::array::from_fn(|lane| lanes[lane][w])));
    }
    entries
}

/// `|v| = m · 2^e` for finite `v` (`m` below 2^53).
#[allow(clippy::cast_possible_truncation, reason = "an 11-bit field")]
fn decompose(v: f64) -> (u64, i32) {
    let bits = v.abs().to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    if exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), exponent - 1075)
    }
}

/// The words of an exact step with literal `v` (finite, not an integer of the range of the
/// computation, signed or not): `[K, S, A, B, 0]` for sums, `[I, c0, c1, c2, negative]` for
/// products and `x / l`, `[N low, N high, shift, negative, 0]` for `l / x`.
pub(crate) fn params(step: Step, v: f64, signed: bool) -> [u32; PARAMS] {
    let negative = u32::from(v.is_sign_negative());
    let scale = |(i, c): (u32, u128)| {
        let c = c.to_le_bytes();
        let word =
            |k: usize| u32::from_le_bytes([c[4 * k], c[4 * k + 1], c[4 * k + 2], c[4 * k + 3]]);
        [i, word(0), word(1), word(2), negative]
    };
    match step {
        Step::Add => sum_params(v, signed),
        Step::SubtractRight | Step::SubtractLeft => sum_params(-v, signed),
        Step::Multiply => scale(product_parts(v)),
        Step::DivideRight => scale(reciprocal_parts(v)),
        Step::DivideLeft => numerator_params(v, negative),
    }
}

/// `[K, S, A, B, 0]` of `x + v`.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "the remainder is an integer of 0..2^32; |k| < 2^52 where a fraction exists"
)]
fn sum_params(v: f64, signed: bool) -> [u32; PARAMS] {
    let k = v.trunc();
    let fraction = v - k;
    let kmod = k.rem_euclid(4_294_967_296.0) as u32;
    let (low, high): (i64, i64) = if signed {
        (-(1 << 31), (1 << 31) - 1)
    } else {
        (0, (1 << 32) - 1)
    };
    // A fraction exists only below 2^52, where `k` is an exact i64.
    let k = k as i64;
    let (s, a, b) = if fraction > 0.0 {
        // x + k < 0, that is x ≤ −k − 1: the truncation rounds up by one.
        let t = -k - 1;
        if t < low {
            (0, 0, 0)
        } else {
            (1, low, t.min(high))
        }
    } else if fraction < 0.0 {
        // x + k > 0, that is x ≥ 1 − k: the truncation rounds down by one.
        let t = 1 - k;
        if t > high {
            (0, 0, 0)
        } else {
            (u32::MAX, t.max(low), high)
        }
    } else {
        (0, 0, 0)
    };
    [kmod, s, a as u32, b as u32, 0]
}

/// `(I, c)` of `|v|`: its integer part modulo 2^32 and its fraction times 2^96 rounded up.
#[allow(clippy::cast_possible_truncation, reason = "modulo 2^32 on purpose")]
fn product_parts(v: f64) -> (u32, u128) {
    let (m, e) = decompose(v);
    if e >= 0 {
        let i = if e >= 64 {
            0
        } else {
            (u128::from(m) << e) as u32
        };
        return (i, 0);
    }
    let s = e.unsigned_abs();
    let i = if s >= 64 { 0 } else { (m >> s) as u32 };
    let r = if s >= 64 { m } else { m & ((1 << s) - 1) };
    let c = if s <= 96 {
        u128::from(r) << (96 - s)
    } else if s - 96 >= 64 {
        u128::from(r > 0)
    } else {
        (u128::from(r) + (1 << (s - 96)) - 1) >> (s - 96)
    };
    (i, c)
}

/// `(I, c)` of `1 / |v|` (`v` not 0): its integer part modulo 2^32 and its fraction times 2^96
/// rounded up.
#[allow(
    clippy::cast_possible_truncation,
    reason = "each quotient is below 2^32"
)]
fn reciprocal_parts(v: f64) -> (u32, u128) {
    let (m, e) = decompose(v);
    if m == 0 {
        return (0, 0);
    }
    let t = m.trailing_zeros();
    let (m, e) = (m >> t, e + t.cast_signed());
    // 1 / |v| = 2^p / m, m odd.
    let p = -e;
    if m == 1 {
        return if p >= 0 {
            (if p >= 32 { 0 } else { 1 << p }, 0)
        } else {
            let s = p.unsigned_abs();
            (0, if s <= 96 { 1 << (96 - s) } else { 1 })
        };
    }
    if p >= 0 {
        // 2^p = Q · m · 2^32 + n: ⌊2^p / m⌋ mod 2^32 = ⌊n / m⌋, the fraction (n mod m) / m.
        let d = u128::from(m) << 32;
        let mut n = 1u128;
        for _ in 0..p {
            n = (n << 1) % d;
        }
        let m128 = u128::from(m);
        let rem = (n % m128) as u64;
        return ((n / m128) as u32, fraction_up(rem, m));
    }
    let s = p.unsigned_abs();
    if 64 - m.leading_zeros() + s > 64 {
        // 1 / |v| < 2^−64: ⌊|x| / |v|⌋ is 0 for every 32-bit x.
        return (0, 0);
    }
    let d = u128::from(m) << s;
    (0, (1u128 << 96).div_ceil(d))
}

/// `⌈rem · 2^96 / m⌉` for `rem < m < 2^53`, by binary long division.
fn fraction_up(rem: u64, m: u64) -> u128 {
    let (mut r, mut q) = (rem, 0u128);
    for _ in 0..96 {
        r <<= 1;
        q <<= 1;
        if r >= m {
            r -= m;
            q |= 1;
        }
    }
    q + u128::from(r != 0)
}

/// `[N low, N high, shift, negative, 0]` of `v / x`: `trunc(|v|) = (N high : N low) << shift`.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "an integer below 2^64, or a 53-bit mantissa and a positive exponent"
)]
fn numerator_params(v: f64, negative: u32) -> [u32; PARAMS] {
    let a = v.abs();
    let (n, shift) = if a < 18_446_744_073_709_551_616.0 {
        (a.trunc() as u64, 0)
    } else {
        let (m, e) = decompose(a);
        (m, e as u32)
    };
    [n as u32, (n >> 32) as u32, shift, negative, 0]
}

/// `a · b` as `(low, high)` words, from 16-bit halves as the WGSL computes it.
fn mul64(a: u32, b: u32) -> (u32, u32) {
    let (a0, a1, b0, b1) = (a & 0xffff, a >> 16, b & 0xffff, b >> 16);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let mid = (p00 >> 16) + (p01 & 0xffff) + (p10 & 0xffff);
    (
        (p00 & 0xffff) | (mid << 16),
        p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16),
    )
}

/// `a · I + ⌊a · (c2 : c1 : c0) / 2^96⌋` modulo 2^32, as the WGSL computes it.
fn scale(a: u32, p: &[u32; PARAMS]) -> u32 {
    let (_, h0) = mul64(a, p[1]);
    let (l1, h1) = mul64(a, p[2]);
    let (l2, h2) = mul64(a, p[3]);
    let w1 = h0.wrapping_add(l1);
    let k1 = u32::from(w1 < h0);
    let w2 = h1.wrapping_add(l2);
    let k2 = u32::from(w2 < h1) + u32::from(w2.wrapping_add(k1) < w2);
    a.wrapping_mul(p[0]).wrapping_add(h2).wrapping_add(k2)
}

/// `⌊((hi : lo) << shift) / d⌋ mod 2^32`, 0 for `d = 0`, as the WGSL computes it.
fn numerator_quotient(lo: u32, hi: u32, shift: u32, d: u32) -> u32 {
    if d == 0 {
        return 0;
    }
    if hi == 0 && shift == 0 {
        return lo / d;
    }
    let (mut r, mut q) = (0u32, 0u32);
    for i in 0..64 + shift {
        let bit = if i < 32 {
            (hi >> (31 - i)) & 1
        } else if i < 64 {
            (lo >> (63 - i)) & 1
        } else {
            0
        };
        let big = r >= d - r;
        let mut t = if big { r - (d - r) } else { r + r } + bit;
        let mut one = big;
        if !big && t >= d {
            t -= d;
            one = true;
        }
        r = t;
        q = (q << 1) | u32::from(one);
    }
    q
}

/// The host twin of [`wgsl`]: `step` of `x` (bits of an `i32` when `signed`, else a `u32`) and
/// the literal lane of `params`, as bits.
pub(crate) fn host(step: Step, x: u32, signed: bool, p: &[u32; PARAMS]) -> u32 {
    let negative_x = signed && x.cast_signed() < 0;
    let magnitude = if signed {
        x.cast_signed().unsigned_abs()
    } else {
        x
    };
    let signed_by = |r: u32, negative: bool| if negative { r.wrapping_neg() } else { r };
    let sum = || {
        let inside = if signed {
            p[2].cast_signed() <= x.cast_signed() && x.cast_signed() <= p[3].cast_signed()
        } else {
            p[2] <= x && x <= p[3]
        };
        x.wrapping_add(p[0])
            .wrapping_add(if inside { p[1] } else { 0 })
    };
    match step {
        Step::Add | Step::SubtractRight => sum(),
        Step::SubtractLeft => sum().wrapping_neg(),
        Step::Multiply | Step::DivideRight => {
            signed_by(scale(magnitude, p), negative_x != (p[4] != 0))
        }
        Step::DivideLeft => signed_by(
            numerator_quotient(p[0], p[1], p[2], magnitude),
            negative_x != (p[3] != 0),
        ),
    }
}

/// Name of the WGSL function of products and `x / l` ([`helpers`]).
const SCALE: &str = "gpudata_scale";
/// Name of the WGSL function of `l / x` ([`helpers`]).
const NUMERATOR: &str = "gpudata_numerator_quotient";

/// The WGSL expression of `step` of `x` (a name of type `i32` when `signed`, else `u32`) and
/// the literal lane whose [`params`] word `k` is `param(k)` (a `u32` expression), of `x`'s
/// type.
pub(crate) fn wgsl(step: Step, x: &str, signed: bool, param: impl Fn(usize) -> String) -> String {
    let (k, s, a, b) = (param(0), param(1), param(2), param(3));
    let bits = if signed {
        format!("bitcast<u32>({x})")
    } else {
        x.to_owned()
    };
    let magnitude = if signed {
        format!("bitcast<u32>(abs({x}))")
    } else {
        x.to_owned()
    };
    let negative_x = if signed {
        format!("{x} < 0i")
    } else {
        "false".to_owned()
    };
    let inside = if signed {
        format!("bitcast<i32>({a}) <= {x} && {x} <= bitcast<i32>({b})")
    } else {
        format!("{a} <= {x} && {x} <= {b}")
    };
    let sum = format!("({bits} + {k} + select(0u, {s}, {inside}))");
    let result = match step {
        Step::Add | Step::SubtractRight => sum,
        Step::SubtractLeft => format!("(0u - {sum})"),
        Step::Multiply | Step::DivideRight => {
            let r = format!("{SCALE}({magnitude}, {k}, {s}, {a}, {b})");
            format!(
                "select({r}, 0u - {r}, ({negative_x}) != ({} != 0u))",
                param(4)
            )
        }
        Step::DivideLeft => {
            let r = format!("{NUMERATOR}({k}, {s}, {a}, {magnitude})");
            format!("select({r}, 0u - {r}, ({negative_x}) != ({b} != 0u))")
        }
    };
    if signed {
        format!("bitcast<i32>({result})")
    } else {
        result
    }
}

/// The WGSL functions [`wgsl`] calls for `steps`: [`scale`] and [`numerator_quotient`],
/// operation for operation.
pub(crate) fn helpers(steps: impl IntoIterator<Item = Step>) -> String {
    let (mut scale, mut numerator) = (false, false);
    for step in steps {
        scale |= matches!(step, Step::Multiply | Step::DivideRight);
        numerator |= step == Step::DivideLeft;
    }
    let mut out = String::new();
    if scale {
        out += &format!(
            "fn gpudata_mul64(a: u32, b: u32) -> vec2<u32> {{
    let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
    let p00 = a0 * b0; let p01 = a0 * b1; let p10 = a1 * b0; let p11 = a1 * b1;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return vec2<u32>((p00 & 0xffffu) | (mid << 16u), p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}}
fn {SCALE}(a: u32, i: u32, c0: u32, c1: u32, c2: u32) -> u32 {{
    let p0 = gpudata_mul64(a, c0); let p1 = gpudata_mul64(a, c1); let p2 = gpudata_mul64(a, c2);
    let w1 = p0.y + p1.x;
    let k1 = select(0u, 1u, w1 < p0.y);
    let w2 = p1.y + p2.x;
    let k2 = select(0u, 1u, w2 < p1.y) + select(0u, 1u, w2 + k1 < w2);
    return a * i + p2.y + k2;
}}
"
        );
    }
    if numerator {
        out += &format!(
            "fn {NUMERATOR}(lo: u32, hi: u32, shift: u32, d: u32) -> u32 {{
    if (d == 0u) {{ return 0u; }}
    if (hi == 0u && shift == 0u) {{ return lo / d; }}
    var r = 0u;
    var q = 0u;
    for (var i = 0u; i < 64u + shift; i++) {{
        var bit = 0u;
        if (i < 32u) {{ bit = (hi >> (31u - i)) & 1u; }} else if (i < 64u) {{ bit = (lo >> (63u - i)) & 1u; }}
        let big = r >= d - r;
        var t = select(r + r, r - (d - r), big) + bit;
        var one = big;
        if (!big && t >= d) {{ t = t - d; one = true; }}
        r = t;
        q = (q << 1u) | select(0u, 1u, one);
    }}
    return q;
}}
"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact step in 128-bit integers, independently of the words: `x op v` (or `v op x`)
    /// truncated and wrapped to 32 bits, for literals whose scaled value fits.
    #[allow(clippy::cast_possible_truncation, reason = "wrapping on purpose")]
    fn exact(step: Step, x: i64, v: f64) -> u32 {
        let (m, e) = decompose(v);
        let m = i128::from(m) * if v < 0.0 { -1 } else { 1 };
        let x = i128::from(x);
        // v = m · 2^e; every quantity is a fraction num / 2^shift or num / den.
        let pow = |s: i32| 1i128 << s;
        let trunc_div = |num: i128, den: i128| if den == 0 { 0 } else { num / den };
        let r = match (step, e >= 0) {
            (Step::Add, true) => x + (m << e),
            (Step::Add, false) => trunc_div(x * pow(-e) + m, pow(-e)),
            (Step::SubtractRight, true) => x - (m << e),
            (Step::SubtractRight, false) => trunc_div(x * pow(-e) - m, pow(-e)),
            (Step::SubtractLeft, true) => (m << e) - x,
            (Step::SubtractLeft, false) => trunc_div(m - x * pow(-e), pow(-e)),
            (Step::Multiply, true) => x * (m << e),
            (Step::Multiply, false) => trunc_div(x * m, pow(-e)),
            (Step::DivideRight, true) => trunc_div(x, m << e),
            (Step::DivideRight, false) => trunc_div(x * pow(-e), m),
            (Step::DivideLeft, true) => trunc_div(m << e, x),
            (Step::DivideLeft, false) => trunc_div(m, x * pow(-e)),
        };
        r as u32
    }

    const STEPS: [Step; 6] = [
        Step::Add,
        Step::SubtractRight,
        Step::SubtractLeft,
        Step::Multiply,
        Step::DivideRight,
        Step::DivideLeft,
    ];

    #[test]
    fn wide_products_are_exact() {
        let mut state = 0x9e37_79b9u32;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let (a, b) = (state, state.rotate_left(11) ^ 0x5bd1_e995);
            let (lo, hi) = mul64(a, b);
            assert_eq!(
                u64::from(hi) << 32 | u64::from(lo),
                u64::from(a) * u64::from(b)
            );
        }
    }

    #[test]
    fn steps_are_exact_for_every_kind_of_literal() {
        let literals = [
            0.75,
            -0.75,
            2.5,
            -2.5,
            0.5,
            1.5,
            -1e-3,
            1e-7,
            1e10 + 0.5,
            -6_442_450_943.25,
            4_294_967_296.125,
            3e9,
            -3e9,
            1e10,
            123_456.789,
            -123_456.789,
            0.1,
            1.0 / 3.0,
            2_147_483_647.5,
            -2_147_483_648.5,
            4_294_967_295.5,
            65_535.999,
            1e-12,
        ];
        let xs: [i64; 14] = [
            0,
            1,
            -1,
            2,
            3,
            7,
            -7,
            255,
            65_535,
            2_147_483_647,
            -2_147_483_648,
            123_456_789,
            -987_654_321,
            1_000_003,
        ];
        let unsigned_xs = [0i64, 1, 2, 255, 4_294_967_295, 3_000_000_001, 2_147_483_648];
        for step in STEPS {
            for &v in &literals {
                for signed in [true, false] {
                    let p = params(step, v, signed);
                    let domain: &[i64] = if signed { &xs } else { &unsigned_xs };
                    for &x in domain {
                        let bits = x as u32;
                        if (signed && !(-(1 << 31)..1 << 31).contains(&x)) || (!signed && x < 0) {
                            continue;
                        }
                        assert_eq!(
                            host(step, bits, signed, &p),
                            exact(step, x, v),
                            "{step:?} x = {x} literal {v} (signed {signed})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn large_numerators_divide_by_long_division() {
        // 2^70 + 2^60 = (2^10 + 1) · 2^60 over every kind of divisor.
        let v = 2f64.powi(70) + 2f64.powi(60);
        let p = params(Step::DivideLeft, v, true);
        // |v| = (2^10 + 1) · 2^42 · 2^18: the mantissa's two words and a shift of 18.
        assert_eq!(p[..3], [0, 0x0010_0400, 18]);
        for x in [1i64, 3, 7, 1023, 65_537, 2_147_483_647, -5] {
            let n = (1u128 << 70) + (1u128 << 60);
            let q = n / x.unsigned_abs() as u128;
            let q = if x < 0 {
                (q as u32).wrapping_neg()
            } else {
                q as u32
            };
            assert_eq!(host(Step::DivideLeft, x as u32, true, &p), q, "{v} / {x}");
        }
    }
}
