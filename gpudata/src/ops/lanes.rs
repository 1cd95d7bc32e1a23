//! luma.gl's operations over a row's lanes: `dot`, `length`, `equalAll`, `select`, `swizzle`
//! and luma.gl's `interleave` (here [`interleave_lanes`], beside gpudata's struct-row
//! [`interleave`](super::interleave())).
//!
//! A number passed to these (an `f32` or a [`Literal`](super::Literal)) is a float32 constant,
//! as luma.gl's `fromConstant` makes it; at least one operand must be GPU data.

use super::elementwise::{self, OperandKind, Program, kinds};
use super::input::{IntoOperand, Operand};
use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::ops::{OpError, OpPlan, OpsConfig};

/// One of the lane operations, with what it needs beyond its operands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LaneOp {
    /// `Σ x[l] · y[l]` (two operands of one lane count), float32, summed in lane order with
    /// every product and sum rounded to `f32`.
    Dot,
    /// `sqrt(Σ x[l]²)` (one operand), float32.
    Length,
    /// `1u` where every lane of `x` equals `y`'s (two operands of one lane count), else `0u`,
    /// uint32. Floats compare as numbers (`+0 == -0`, NaN equals nothing), integers of mixed
    /// signedness exactly, an integer and a float after the integer's conversion to `f32`.
    EqualAll,
    /// `(condition, when_true, when_false)`: per lane, `when_true` where `condition` is not zero
    /// (NaN is not zero), else `when_false`; the joined type of the two values, their larger
    /// lane count; each operand has one lane (broadcast) or that count.
    Select,
    /// The lanes `columns` of one operand, in that order (1 to 4 of them), in the operand's
    /// format family, bits unchanged (`unorm8x4` → `unorm8x2`); `unorm10-10-10-2`, and float16
    /// into three lanes, have no such format and come out as decoded float32.
    Swizzle(Vec<u32>),
    /// luma.gl's `interleave`: each row's lanes of every operand, in order, as one column of the
    /// joined type; past four lanes, rows of a packed struct format whose fields `lanes0`,
    /// `lanes4`, … hold four lanes each (the last fewer; three 8- or 16-bit lanes as a 2-lane
    /// and a 1-lane field), the values one after another; a single data operand comes back
    /// unchanged.
    InterleaveLanes,
}

impl LaneOp {
    /// The luma.gl name (`"equalAll"`; `"interleave"` for [`LaneOp::InterleaveLanes`]).
    #[must_use]
    pub const fn luma_name(&self) -> &'static str {
        match self {
            LaneOp::Dot => "dot",
            LaneOp::Length => "length",
            LaneOp::EqualAll => "equalAll",
            LaneOp::Select => "select",
            LaneOp::Swizzle(_) => "swizzle",
            LaneOp::InterleaveLanes => "interleave",
        }
    }
}

/// The semantics of `op` over operand kinds (shared with the CPU reference).
pub(crate) fn semantics(
    op: &LaneOp,
    operands: &[OperandKind],
) -> Result<elementwise::Semantics, OpError> {
    let arity = |name: &'static str, expected: usize| {
        if operands.len() == expected {
            Ok(())
        } else {
            Err(OpError::Arity {
                op: name,
                expected,
                found: operands.len(),
            })
        }
    };
    match op {
        LaneOp::Dot => {
            arity("dot", 2)?;
            elementwise::pairwise(Program::Dot, operands)
        }
        LaneOp::EqualAll => {
            arity("equalAll", 2)?;
            elementwise::pairwise(Program::EqualAll, operands)
        }
        LaneOp::Length => {
            arity("length", 1)?;
            elementwise::length(operands)
        }
        LaneOp::Select => {
            arity("select", 3)?;
            elementwise::select(operands)
        }
        LaneOp::Swizzle(columns) => {
            arity("swizzle", 1)?;
            elementwise::swizzle(operands[0], columns)
        }
        LaneOp::InterleaveLanes => elementwise::interleave_lanes(operands),
    }
}

/// Plans `op` over `operands` with the kernels' tuning `config`, without running it.
///
/// # Errors
/// [`OpError::Arity`], [`OpError::LaneMismatch`], [`OpError::LaneOutOfRange`],
/// [`OpError::OutputLanes`], [`OpError::NoGpuInput`], [`OpError::LengthMismatch`], the input
/// checks, the device limits and [`OpError::Gpu`].
pub fn plan_lanes(
    gpu: &Gpu,
    config: &OpsConfig,
    op: &LaneOp,
    operands: &[Operand<'_>],
) -> Result<OpPlan<GpuData>, OpError> {
    let semantics = semantics(op, &kinds(operands, GpuDataView::format, false))?;
    elementwise::plan(gpu, config, semantics, operands)
}

/// Runs `op` over `operands` on `gpu`.
///
/// # Errors
/// As [`plan_lanes`].
pub fn lanes(gpu: &Gpu, op: &LaneOp, operands: &[Operand<'_>]) -> Result<GpuData, OpError> {
    plan_lanes(gpu, &OpsConfig::default(), op, operands)?.run(gpu)
}

/// `Σ x[l] · y[l]` per row, float32 (luma.gl's `dot`).
///
/// # Errors
/// [`OpError::WrongData`] for an operand that is not one column, then as [`plan_lanes`].
pub fn dot<'a>(
    gpu: &Gpu,
    x: impl IntoOperand<'a>,
    y: impl IntoOperand<'a>,
) -> Result<GpuData, OpError> {
    lanes(gpu, &LaneOp::Dot, &[x.into_operand()?, y.into_operand()?])
}

/// `sqrt(Σ x[l]²)` per row, float32 (luma.gl's `length`).
///
/// # Errors
/// As [`dot`].
pub fn length<'a>(gpu: &Gpu, x: impl IntoOperand<'a>) -> Result<GpuData, OpError> {
    lanes(gpu, &LaneOp::Length, &[x.into_operand()?])
}

/// `1u` where every lane of `x` equals `y`'s, else `0u` (luma.gl's `equalAll`).
///
/// # Errors
/// As [`dot`].
pub fn equal_all<'a>(
    gpu: &Gpu,
    x: impl IntoOperand<'a>,
    y: impl IntoOperand<'a>,
) -> Result<GpuData, OpError> {
    lanes(
        gpu,
        &LaneOp::EqualAll,
        &[x.into_operand()?, y.into_operand()?],
    )
}

/// Per lane, `when_true` where `condition` is not zero, else `when_false` (luma.gl's
/// `select`).
///
/// # Errors
/// As [`dot`].
pub fn select<'a>(
    gpu: &Gpu,
    condition: impl IntoOperand<'a>,
    when_true: impl IntoOperand<'a>,
    when_false: impl IntoOperand<'a>,
) -> Result<GpuData, OpError> {
    lanes(
        gpu,
        &LaneOp::Select,
        &[
            condition.into_operand()?,
            when_true.into_operand()?,
            when_false.into_operand()?,
        ],
    )
}

/// The lanes `columns` of `x`, in that order (luma.gl's `swizzle`).
///
/// # Errors
/// As [`dot`].
pub fn swizzle<'a>(
    gpu: &Gpu,
    x: impl IntoOperand<'a>,
    columns: &[u32],
) -> Result<GpuData, OpError> {
    lanes(
        gpu,
        &LaneOp::Swizzle(columns.to_vec()),
        &[x.into_operand()?],
    )
}

/// luma.gl's `interleave`: each row's lanes of every operand, in order, as one column of the
/// joined type (`float32` + `uint8x2` → `float32x3`); past four lanes, rows of that many values
/// as a packed struct of 4-lane fields (`uint32x2` + three `uint32x4` → rows of 14 `uint32`:
/// fields `lanes0`, `lanes4`, `lanes8` of `uint32x4` and `lanes12` of `uint32x2`; see
/// [`LaneOp::InterleaveLanes`]). gpudata's own [`interleave`](super::interleave()) instead
/// writes struct rows whose fields keep their formats.
///
/// # Errors
/// As [`plan_lanes`].
pub fn interleave_lanes(gpu: &Gpu, operands: &[Operand<'_>]) -> Result<GpuData, OpError> {
    lanes(gpu, &LaneOp::InterleaveLanes, operands)
}
