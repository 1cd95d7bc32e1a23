//! luma.gl's math functions of the arithmetic family: `pow`, `sqrt`, `abs`, `sin`, `cos`,
//! `tan`, `exp`, `log`, lane by lane over views, constants and literals.

use super::elementwise::{self, kinds};
use super::family::MathOp;
use super::input::{IntoOperand, Operand};
use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::ops::{OpError, OpPlan, OpsConfig};

/// Plans `op` over `operands` with the kernels' tuning `config`, without running it.
///
/// # Errors
/// [`OpError::Arity`] for the wrong operand count, [`OpError::NoGpuInput`],
/// [`OpError::LengthMismatch`], the input checks, the device limits and [`OpError::Gpu`].
pub fn plan_math(
    gpu: &Gpu,
    config: &OpsConfig,
    op: MathOp,
    operands: &[Operand<'_>],
) -> Result<OpPlan<GpuData>, OpError> {
    check_arity(op, operands.len())?;
    let semantics = elementwise::math(op, &kinds(operands, GpuDataView::format, true))?;
    elementwise::plan(gpu, config, semantics, operands)
}

/// The operand count `op` takes.
pub(crate) fn check_arity(op: MathOp, found: usize) -> Result<(), OpError> {
    if found == op.arity() {
        Ok(())
    } else {
        Err(OpError::Arity {
            op: op.as_str(),
            expected: op.arity(),
            found,
        })
    }
}

/// Runs `op` over `operands` on `gpu`.
///
/// # Errors
/// As [`plan_math`].
pub fn math(gpu: &Gpu, op: MathOp, operands: &[Operand<'_>]) -> Result<GpuData, OpError> {
    plan_math(gpu, &OpsConfig::default(), op, operands)?.run(gpu)
}

fn unary<'a>(gpu: &Gpu, op: MathOp, x: impl IntoOperand<'a>) -> Result<GpuData, OpError> {
    math(gpu, op, &[x.into_operand()?])
}

/// `base ^ exponent`, lane by lane, in float32 (luma.gl's `pow`).
///
/// # Errors
/// [`OpError::WrongData`] for an operand that is not one column, then as [`plan_math`].
pub fn pow<'a>(
    gpu: &Gpu,
    base: impl IntoOperand<'a>,
    exponent: impl IntoOperand<'a>,
) -> Result<GpuData, OpError> {
    math(
        gpu,
        MathOp::Pow,
        &[base.into_operand()?, exponent.into_operand()?],
    )
}

/// `√x`, lane by lane, in float32.
///
/// # Errors
/// As [`pow`].
pub fn sqrt<'a>(gpu: &Gpu, x: impl IntoOperand<'a>) -> Result<GpuData, OpError> {
    unary(gpu, MathOp::Sqrt, x)
}

/// `|x|`, lane by lane, in `x`'s joined type.
///
/// # Errors
/// As [`pow`].
pub fn abs<'a>(gpu: &Gpu, x: impl IntoOperand<'a>) -> Result<GpuData, OpError> {
    unary(gpu, MathOp::Abs, x)
}

/// `sin x`, lane by lane, in float32.
///
/// # Errors
/// As [`pow`].
pub fn sin<'a>(gpu: &Gpu, x: impl IntoOperand<'a>) -> Result<GpuData, OpError> {
    unary(gpu, MathOp::Sin, x)
}

/// `cos x`, lane by lane, in float32.
///
/// # Errors
/// As [`pow`].
pub fn cos<'a>(gpu: &Gpu, x: impl IntoOperand<'a>) -> Result<GpuData, OpError> {
    unary(gpu, MathOp::Cos, x)
}

/// `tan x`, lane by lane, in float32.
///
/// # Errors
/// As [`pow`].
pub fn tan<'a>(gpu: &Gpu, x: impl IntoOperand<'a>) -> Result<GpuData, OpError> {
    unary(gpu, MathOp::Tan, x)
}

/// `eˣ`, lane by lane, in float32.
///
/// # Errors
/// As [`pow`].
pub fn exp<'a>(gpu: &Gpu, x: impl IntoOperand<'a>) -> Result<GpuData, OpError> {
    unary(gpu, MathOp::Exp, x)
}

/// `ln x`, lane by lane, in float32.
///
/// # Errors
/// As [`pow`].
pub fn log<'a>(gpu: &Gpu, x: impl IntoOperand<'a>) -> Result<GpuData, OpError> {
    unary(gpu, MathOp::Log, x)
}
