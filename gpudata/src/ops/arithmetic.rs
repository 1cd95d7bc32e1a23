//! Elementwise arithmetic (`add`, `subtract`, `multiply`, `divide`): the type join and lane rule
//! of spec §8.3–8.5, the scalar semantics shared by the GPU kernel and the CPU reference, and
//! the kernel's row code.

use core::fmt;

use super::input::{IntoOperand, Operand};
use super::output::output_data;
use crate::data::GpuData;
use crate::device::Gpu;
use crate::format::codec::unit_of_lane;
use crate::format::{DataType, PrimitiveType, VertexFormat, wgsl_codec};
use crate::kernels::plan::{self, KernelRequest};
use crate::kernels::shape::unit_size;
use crate::kernels::wgsl_gen::{Body, RowCtx, ValueRef};
use crate::kernels::{OpError, OpPlan, OpsConfig, Planner};

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

    const fn wgsl(self) -> &'static str {
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

/// One operand as the semantics see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum OperandKind {
    /// Values of a format, one per row.
    Data(VertexFormat),
    /// A constant of this many lanes (float32).
    Constant(usize),
}

impl From<&Operand<'_>> for OperandKind {
    fn from(operand: &Operand<'_>) -> Self {
        match operand {
            Operand::Data(input) => OperandKind::Data(input.format()),
            Operand::Constant(c) => OperandKind::Constant(c.lanes().len()),
        }
    }
}

impl OperandKind {
    fn lanes(self) -> u32 {
        match self {
            OperandKind::Data(f) => f.components(),
            OperandKind::Constant(n) => n as u32,
        }
    }
}

/// What an arithmetic call computes: the output format and the computation type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ArithmeticPlan {
    pub op: ArithmeticOp,
    pub compute: Compute,
    pub output: VertexFormat,
    pub operands: Vec<OperandKind>,
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

/// Checks the operands and decides the output.
pub(crate) fn plan_semantics(
    op: ArithmeticOp,
    operands: &[OperandKind],
) -> Result<ArithmeticPlan, OpError> {
    let name = op.as_str();
    if operands.is_empty() {
        return Err(OpError::NoInputs { op: name });
    }
    for (i, operand) in operands.iter().enumerate() {
        if let OperandKind::Constant(n) = operand
            && (*n == 0 || *n > 4)
        {
            return Err(OpError::ConstantLanes {
                op: name,
                input: i,
                lanes: *n,
            });
        }
    }
    if !operands.iter().any(|o| matches!(o, OperandKind::Data(_))) {
        return Err(OpError::NoGpuInput { op: name });
    }
    let joined = join(operands.iter().map(|o| match o {
        OperandKind::Data(f) => (f.signed_data_type(), f.is_normalized()),
        OperandKind::Constant(_) => (DataType::Float32, false),
    }));
    let lanes = operands.iter().map(|o| o.lanes()).max().unwrap_or(1);
    let compute = match joined {
        DataType::Float32 => Compute::F32,
        DataType::Uint8 | DataType::Uint16 | DataType::Uint32 => Compute::U32,
        _ => Compute::I32,
    };
    // The join gives only float32 and plain integer types, each of which has 1 to 4 lane formats.
    let output = format_of(joined, lanes).ok_or(OpError::UnsupportedFormat {
        op: name,
        input: 0,
        format: VertexFormat::Float32,
        expected: "operands whose joined type has a packed format",
    })?;
    Ok(ArithmeticPlan {
        op,
        compute,
        output,
        operands: operands.to_vec(),
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

/// Zero in `compute`, read from the uniform (`P[0].z` is always 0) rather than written as a
/// literal: a literal would let the shader compiler fold `x * 0.0` to `+0.0` (dropping the sign
/// of zero the CPU keeps) and make naga reject an integer division by a constant zero.
fn zero_wgsl(compute: Compute) -> &'static str {
    match compute {
        Compute::F32 => "bitcast<f32>(P[0].z)",
        Compute::U32 => "P[0].z",
        Compute::I32 => "bitcast<i32>(P[0].z)",
    }
}

fn binary_wgsl(compute: Compute, op: ArithmeticOp, a: &str, b: &str) -> String {
    match (compute, op) {
        (Compute::U32, ArithmeticOp::Divide) => format!("select(0u, {a} / {b}, {b} != 0u)"),
        (Compute::I32, ArithmeticOp::Divide) => format!("select(0i, {a} / {b}, {b} != 0i)"),
        _ => format!("{a} {} {b}", op.wgsl()),
    }
}

/// The kernel's row code.
struct ArithmeticBody {
    plan: ArithmeticPlan,
    /// Per operand: where its values are (data) or which constant it is.
    places: Vec<Place>,
}

#[derive(Clone, Copy)]
enum Place {
    Data(ValueRef),
    Constant(usize),
}

impl Body for ArithmeticBody {
    fn row(&self, ctx: &mut RowCtx<'_>) {
        let plan = &self.plan;
        let out_unit = unit_size(plan.output);
        for lane in 0..plan.output.components() {
            let mut acc: Option<String> = None;
            for (kind, place) in plan.operands.iter().zip(&self.places) {
                let value = match (source_lane(kind.lanes(), lane), kind, place) {
                    (None, _, _) => zero_wgsl(plan.compute).to_owned(),
                    (Some(l), OperandKind::Data(format), Place::Data(at)) => {
                        let us = unit_size(*format);
                        let unit = u64::from(unit_of_lane(*format, l));
                        let raw = ctx.unit(*at, unit * us, us as u32);
                        let raw = ctx.bind(&raw);
                        wgsl_codec::decode_unit_as(*format, l, &raw, plan.compute.primitive())
                    }
                    (Some(l), _, Place::Constant(j)) => {
                        format!("bitcast<f32>({})", ctx.constant(*j, l))
                    }
                    (Some(_), OperandKind::Constant(_), Place::Data(_)) => {
                        zero_wgsl(plan.compute).to_owned()
                    }
                };
                let name = ctx.bind(&value);
                acc = Some(match acc {
                    None => name,
                    Some(a) => ctx.bind(&binary_wgsl(plan.compute, plan.op, &a, &name)),
                });
            }
            let result = acc.unwrap_or_else(|| zero_wgsl(plan.compute).to_owned());
            let bits =
                wgsl_codec::encode_unit(plan.output, lane, &result, plan.compute.primitive());
            ctx.emit(0, u64::from(lane) * out_unit, out_unit as u32, bits);
        }
    }
}

/// Plans `op` folded left over `operands` on `gpu` with the kernels' tuning `config`, without
/// running it.
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
    let kinds: Vec<OperandKind> = operands.iter().map(OperandKind::from).collect();
    let semantics = plan_semantics(op, &kinds)?;
    let mut views = Vec::new();
    let mut constants = Vec::new();
    let mut places = Vec::with_capacity(operands.len());
    for operand in operands {
        match operand {
            Operand::Data(input) => {
                places.push(Place::Data(ValueRef { source: 0, rel: 0 }));
                views.push(*input);
            }
            Operand::Constant(c) => {
                places.push(Place::Constant(constants.len()));
                constants.push(c.bits());
            }
        }
    }
    let length = views.first().map_or(0, |v| v.length());
    let output = semantics.output;
    let request = KernelRequest {
        op: op.as_str(),
        views,
        length,
        output_strides: vec![output.byte_length()],
        constants,
    };
    let built = plan::build(&Planner::new(gpu, config), request, |refs| {
        let mut next = refs.iter();
        let mut places = places.clone();
        for place in &mut places {
            if let Place::Data(at) = place
                && let Some(r) = next.next()
            {
                *at = *r;
            }
        }
        ArithmeticBody {
            plan: semantics.clone(),
            places,
        }
    })?;
    let data = output_data(gpu, op.as_str(), &built.outputs[0], output, length)?;
    Ok(OpPlan::new(op.as_str(), built, data))
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
        let plan = plan_semantics(
            ArithmeticOp::Add,
            &[
                OperandKind::Data(VertexFormat::Uint8x2),
                OperandKind::Data(VertexFormat::Sint8),
            ],
        )
        .unwrap();
        assert_eq!(plan.output, VertexFormat::Sint16x2);
        assert_eq!(plan.compute, Compute::I32);
        let plan = plan_semantics(
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
