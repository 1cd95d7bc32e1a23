//! Elementwise arithmetic (`add`, `subtract`, `multiply`, `divide`): the type join and lane rule
//! of spec §8.3–8.5 and the public functions; the kernels and the CPU reference are the
//! element-wise engine's ([`elementwise`](super::elementwise)).

use core::fmt;

use super::elementwise::{self, kinds};
use super::input::{IntoOperand, Operand};
use crate::data::GpuData;
use crate::device::Gpu;
use crate::format::{DataType, PrimitiveType, VertexFormat};
use crate::kernels::{OpError, OpPlan, OpsConfig};

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
        }
    }

    /// The WGSL operator.
    pub(crate) const fn symbol(self) -> &'static str {
        match self {
            ArithmeticOp::Add => "+",
            ArithmeticOp::Subtract => "-",
            ArithmeticOp::Multiply => "*",
            ArithmeticOp::Divide => "/",
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

/// Plans `op` folded left over `operands` on `gpu` with the kernels' tuning `config`, without
/// running it. A single data operand comes back unchanged, in its own format (luma.gl's
/// `add(a)` returns `a`); literals ([`Literal`](super::Literal)) keep the data's type.
///
/// # Errors
/// [`OpError::NoInputs`], [`OpError::NoGpuInput`], [`OpError::ConstantLanes`],
/// [`OpError::LengthMismatch`] (data operands of different lengths), the input checks
/// ([`OpError::Misaligned`], [`OpError::OutOfBounds`]), the device limits
/// ([`OpError::TooManyBindings`], [`OpError::TooLarge`], [`OpError::DispatchTooLarge`]) and
/// [`OpError::Gpu`].
pub fn plan_arithmetic(
    gpu: &Gpu,
    config: &OpsConfig,
    op: ArithmeticOp,
    operands: &[Operand<'_>],
) -> Result<OpPlan<GpuData>, OpError> {
    let semantics = elementwise::fold(op, &kinds(operands, true))?;
    elementwise::plan(gpu, config, semantics, operands)
}

/// Runs `op` folded left over `operands` (`((a op b) op c) …`) on `gpu` and returns the packed
/// result.
///
/// # Errors
/// As [`plan_arithmetic`].
pub fn arithmetic(
    gpu: &Gpu,
    op: ArithmeticOp,
    operands: &[Operand<'_>],
) -> Result<GpuData, OpError> {
    plan_arithmetic(gpu, &OpsConfig::default(), op, operands)?.run(gpu)
}

/// `op` over two operands.
fn binary<'a>(
    gpu: &Gpu,
    op: ArithmeticOp,
    a: impl IntoOperand<'a>,
    b: impl IntoOperand<'a>,
) -> Result<GpuData, OpError> {
    arithmetic(gpu, op, &[a.into_operand()?, b.into_operand()?])
}

/// `a + b`, elementwise, with luma.gl's type join and lane broadcasting.
///
/// # Errors
/// [`OpError::WrongData`] for an operand that is not one column, then as [`plan_arithmetic`].
pub fn add<'a>(
    gpu: &Gpu,
    a: impl IntoOperand<'a>,
    b: impl IntoOperand<'a>,
) -> Result<GpuData, OpError> {
    binary(gpu, ArithmeticOp::Add, a, b)
}

/// `a - b`, elementwise.
///
/// # Errors
/// As [`add`].
pub fn subtract<'a>(
    gpu: &Gpu,
    a: impl IntoOperand<'a>,
    b: impl IntoOperand<'a>,
) -> Result<GpuData, OpError> {
    binary(gpu, ArithmeticOp::Subtract, a, b)
}

/// `a * b`, elementwise.
///
/// # Errors
/// As [`add`].
pub fn multiply<'a>(
    gpu: &Gpu,
    a: impl IntoOperand<'a>,
    b: impl IntoOperand<'a>,
) -> Result<GpuData, OpError> {
    binary(gpu, ArithmeticOp::Multiply, a, b)
}

/// `a / b`, elementwise (integer division truncates; by zero gives 0).
///
/// # Errors
/// As [`add`].
pub fn divide<'a>(
    gpu: &Gpu,
    a: impl IntoOperand<'a>,
    b: impl IntoOperand<'a>,
) -> Result<GpuData, OpError> {
    binary(gpu, ArithmeticOp::Divide, a, b)
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

    #[test]
    fn output_formats() {
        use super::super::elementwise::{OperandKind, fold};
        let plan = fold(
            ArithmeticOp::Add,
            &[
                OperandKind::Data(VertexFormat::Uint8x2),
                OperandKind::Data(VertexFormat::Sint8),
            ],
        )
        .unwrap();
        assert_eq!(plan.output, VertexFormat::Sint16x2);
        assert_eq!(plan.compute, Compute::I32);
        let plan = fold(
            ArithmeticOp::Add,
            &[
                OperandKind::Data(VertexFormat::Uint8x2),
                OperandKind::Constant(3),
            ],
        )
        .unwrap();
        assert_eq!(plan.output, VertexFormat::Float32x3);
    }
}
