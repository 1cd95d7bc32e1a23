//! The element-wise family's shared vocabulary: the operations ([`ArithmeticOp`], [`MathOp`]),
//! the type arithmetic is computed in, luma.gl's type join and its lane rule. The engine
//! ([`elementwise`](super::elementwise)), its host twin and the public functions
//! ([`arithmetic`](super::arithmetic), [`math`](super::math)) all take them from here.

use core::fmt;

use crate::format::{DataType, PrimitiveType, VertexFormat};

/// An elementwise arithmetic operation, folded left over two or more operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithmeticOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Subtract,
    /// `a * b`.
    Multiply,
    /// `a / b` (integer division truncates; integer division by zero gives 0).
    Divide,
    /// `a % b`: integers the remainder of the truncating division, with the sign of `a`
    /// (`a % 0` gives 0); floats WGSL's `a - b * trunc(a / b)`, each step rounded to `f32`
    /// (not `fmod`: it differs where `|a / b|` reaches 2^24, and is NaN for infinite `b`). In
    /// an integer computation a literal must be an integer of the computation's range, NaN or
    /// infinite (those give 0).
    Remainder,
}

impl ArithmeticOp {
    /// The luma.gl name (`"add"`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ArithmeticOp::Add => "add",
            ArithmeticOp::Subtract => "subtract",
            ArithmeticOp::Multiply => "multiply",
            ArithmeticOp::Divide => "divide",
            ArithmeticOp::Remainder => "remainder",
        }
    }

    /// The WGSL operator.
    pub(crate) const fn symbol(self) -> &'static str {
        match self {
            ArithmeticOp::Add => "+",
            ArithmeticOp::Subtract => "-",
            ArithmeticOp::Multiply => "*",
            ArithmeticOp::Divide => "/",
            ArithmeticOp::Remainder => "%",
        }
    }
}

impl fmt::Display for ArithmeticOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The type arithmetic is computed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compute {
    F32,
    U32,
    I32,
}

impl Compute {
    /// The WGSL scalar type of the computation.
    pub(crate) const fn primitive(self) -> PrimitiveType {
        match self {
            Compute::F32 => PrimitiveType::F32,
            Compute::U32 => PrimitiveType::U32,
            Compute::I32 => PrimitiveType::I32,
        }
    }
}

fn bits(t: DataType) -> u32 {
    t.byte_length() as u32 * 8
}

/// luma.gl's type join (spec §8.3) over `(storage type, normalized)` pairs.
pub(crate) fn join(types: impl IntoIterator<Item = (DataType, bool)>) -> DataType {
    let (mut float, mut normalized, mut signed, mut unsigned) = (false, false, 0, 0);
    for (t, norm) in types {
        normalized |= norm;
        match t {
            DataType::Float32 | DataType::Float16 => float = true,
            DataType::Uint8 | DataType::Uint16 | DataType::Uint32 => {
                unsigned = unsigned.max(bits(t));
            }
            DataType::Sint8 | DataType::Sint16 | DataType::Sint32 => signed = signed.max(bits(t)),
            // Storage types are never normalized; map defensively.
            DataType::Unorm8 | DataType::Unorm16 => {
                normalized = true;
                unsigned = unsigned.max(bits(t));
            }
            DataType::Snorm8 | DataType::Snorm16 => {
                normalized = true;
                signed = signed.max(bits(t));
            }
        }
    }
    let joined = if float {
        DataType::Float32
    } else if signed == 0 {
        match unsigned {
            0..=8 => DataType::Uint8,
            9..=16 => DataType::Uint16,
            _ => DataType::Uint32,
        }
    } else if unsigned == 32 {
        DataType::Float32
    } else {
        match signed.max(2 * unsigned) {
            0..=8 => DataType::Sint8,
            9..=16 => DataType::Sint16,
            _ => DataType::Sint32,
        }
    };
    if joined != DataType::Float32 && normalized {
        DataType::Float32
    } else {
        joined
    }
}

/// The packed format of `lanes` values of `data_type` (the `-webgl` formats for three 8- or
/// 16-bit lanes).
pub(crate) fn format_of(data_type: DataType, lanes: u32) -> Option<VertexFormat> {
    VertexFormat::ALL.iter().copied().find(|f| {
        f.data_type() == data_type && f.components() == lanes && !f.is_bgra() && !f.is_packed_bits()
    })
}

/// Which lane of an operand of `size` lanes feeds output lane `lane`: the same lane, lane 0 for
/// one-lane operands, or none (the value 0).
pub(crate) const fn source_lane(size: u32, lane: u32) -> Option<u32> {
    if lane < size {
        Some(lane)
    } else if size == 1 {
        Some(0)
    } else {
        None
    }
}

/// A math function of one operand (two for [`MathOp::Pow`]).
///
/// Every function but `abs` writes float32 (luma.gl's float-output operations); `abs` keeps the
/// joined type of its input (`sint16` stays `sint16`, `abs(-32768)` wraps to `-32768` as the
/// typed array stores it; normalized and float16 inputs give float32). The float functions are
/// WGSL's builtins, whose accuracy WGSL bounds (and the tests check): `sqrt` as
/// `1 / inverseSqrt`, `sin`/`cos` within 2⁻¹¹ absolute on `[-π, π]`, `exp` within
/// `3 + 2·|x|` ulp, `log` within 2⁻²¹ absolute on `[0.5, 2]` else 3 ulp, `tan` and `pow` as
/// the formulas WGSL derives them from. The CPU reference uses Rust's `f32` functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathOp {
    /// `base ^ exponent` (two operands).
    Pow,
    /// `√x`.
    Sqrt,
    /// `|x|` in the input's type.
    Abs,
    /// `sin x`.
    Sin,
    /// `cos x`.
    Cos,
    /// `tan x`.
    Tan,
    /// `eˣ`.
    Exp,
    /// `ln x`.
    Log,
}

impl MathOp {
    /// The luma.gl name (`"sqrt"`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            MathOp::Pow => "pow",
            MathOp::Sqrt => "sqrt",
            MathOp::Abs => "abs",
            MathOp::Sin => "sin",
            MathOp::Cos => "cos",
            MathOp::Tan => "tan",
            MathOp::Exp => "exp",
            MathOp::Log => "log",
        }
    }

    /// The WGSL builtin.
    pub(crate) const fn wgsl(self) -> &'static str {
        self.as_str()
    }

    /// Operands the function takes.
    #[must_use]
    pub const fn arity(self) -> usize {
        match self {
            MathOp::Pow => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for MathOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(types: &[(DataType, bool)]) -> DataType {
        join(types.iter().copied())
    }

    #[test]
    fn type_join_matches_spec_vectors() {
        use DataType::*;
        assert_eq!(j(&[(Uint8, false), (Sint8, false)]), Sint16);
        assert_eq!(j(&[(Uint16, false), (Sint8, false)]), Sint32);
        assert_eq!(j(&[(Uint32, false), (Sint8, false)]), Float32);
        assert_eq!(j(&[(Uint8, false), (Uint16, false)]), Uint16);
        assert_eq!(j(&[(Float16, false), (Uint8, false)]), Float32);
        assert_eq!(j(&[(Uint8, true), (Uint8, false)]), Float32);
        assert_eq!(j(&[(Uint32, false), (Uint8, false)]), Uint32);
    }

    #[test]
    fn lane_rule() {
        assert_eq!(source_lane(3, 2), Some(2));
        assert_eq!(source_lane(1, 2), Some(0));
        assert_eq!(source_lane(2, 2), None);
    }
}
