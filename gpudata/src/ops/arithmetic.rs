//! Elementwise arithmetic (`add`, `subtract`, `multiply`, `divide`): the type join and lane rule
//! of spec §8.3–8.5 and the public functions; the kernels and the CPU reference are the
//! element-wise engine's ([`elementwise`](super::elementwise)).

use super::elementwise::{self, kinds};
use super::family::ArithmeticOp;
use super::input::{IntoOperand, Operand};
use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::ops::{OpError, OpPlan, OpsConfig};

/// Plans `op` folded left over `operands` on `gpu` with the kernels' tuning `config`, without
/// running it. A single data operand comes back unchanged, in its own format (luma.gl's
/// `add(a)` returns `a`); literals ([`Literal`](super::Literal)) keep the data's type.
///
/// # Errors
/// [`OpError::NoInputs`], [`OpError::NoGpuInput`], [`OpError::LengthMismatch`] (data operands of different lengths), the input checks
/// ([`OpError::Misaligned`], [`OpError::OutOfBounds`]), the device limits
/// ([`OpError::TooManyBindings`], [`OpError::TooLarge`], [`OpError::DispatchTooLarge`]) and
/// [`OpError::Gpu`].
pub fn plan_arithmetic(
    gpu: &Gpu,
    config: &OpsConfig,
    op: ArithmeticOp,
    operands: &[Operand<'_>],
) -> Result<OpPlan<GpuData>, OpError> {
    let semantics = elementwise::fold(op, &kinds(operands, GpuDataView::format, true))?;
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

/// The two-operand functions, one per [`ArithmeticOp`]: each is [`arithmetic`] over `[a, b]`.
macro_rules! binary_functions {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name<'a>(
            gpu: &Gpu,
            a: impl IntoOperand<'a>,
            b: impl IntoOperand<'a>,
        ) -> Result<GpuData, OpError> {
            arithmetic(gpu, ArithmeticOp::$op, &[a.into_operand()?, b.into_operand()?])
        }
    )*};
}

binary_functions! {
    /// `a + b`, elementwise, with luma.gl's type join and lane broadcasting.
    ///
    /// # Errors
    /// [`OpError::WrongData`] for an operand that is not one column, then as [`plan_arithmetic`].
    add => Add;
    /// `a - b`, elementwise.
    ///
    /// # Errors
    /// As [`add`].
    subtract => Subtract;
    /// `a * b`, elementwise.
    ///
    /// # Errors
    /// As [`add`].
    multiply => Multiply;
    /// `a / b`, elementwise (integer division truncates; by zero gives 0).
    ///
    /// # Errors
    /// As [`add`].
    divide => Divide;
}

#[cfg(test)]
mod tests {
    use super::super::elementwise::{OperandKind, fold};
    use super::super::family::{ArithmeticOp, Compute};
    use crate::format::VertexFormat;

    #[test]
    fn output_formats() {
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
                OperandKind::Constant(VertexFormat::Float32x3),
            ],
        )
        .unwrap();
        assert_eq!(plan.output, VertexFormat::Float32x3);
    }
}
