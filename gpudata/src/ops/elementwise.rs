//! The element-wise engine: every operation whose output row is a function of the same row of
//! its operands (arithmetic, the math functions, `dot`, `length`, `equalAll`, `select`,
//! `swizzle`, luma.gl's `interleave`). [`Semantics`] says what a call computes (checked against
//! luma.gl's rules); [`ElementwiseBody`] writes it as the row code of the one kernel generator,
//! and `cpu/eval.rs` computes the same on the host.
//!
//! Evaluation order is pinned: every operand is decoded to its value (and bound to a name)
//! before it meets another; normalized values, every intermediate result that feeds another
//! float operation and every product that feeds a sum go through [`pin`], an integer OR with
//! the uniform's zero that no compiler can see through, so it cannot factor `a/255 + b/255`,
//! reassociate a chain or contract a product and a sum into one fused multiply-add. Float
//! results are therefore rounded per step, exactly as the CPU reference rounds them.

use super::family::{ArithmeticOp, Compute, MathOp, format_of, join, source_lane};
use super::input::{Literal, Operand, OperandOf, constant_bits};
use super::output::output_data;
use crate::data::GpuData;
use crate::device::Gpu;
use crate::format::codec::{decoded_type, unit_of_lane};
use crate::format::wgsl_codec::{self, NanBits};
use crate::format::{DataType, PrimitiveType, VertexFormat};
use crate::ops::kernels::Planner;
use crate::ops::kernels::shape::{unit_count, unit_size};
use crate::ops::kernels::transform::body::{Body, RowCtx, ValueRef};
use crate::ops::kernels::transform::plan::{self as kernel_plan, KernelRequest};
use crate::ops::{OpError, OpPlan, OpsConfig};

/// What the output lanes are computed from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Program {
    /// Operand 0's values in its own format, unchanged (luma.gl's single-operand `add(a)`).
    Identity,
    /// `op` folded left over the operands, lane by lane.
    Fold(ArithmeticOp),
    /// A float function (or `abs`) of one or two operands, lane by lane.
    Math(MathOp),
    /// `Σ x[l] · y[l]`, in lane order, one lane out.
    Dot,
    /// `sqrt(Σ x[l]²)`, one lane out.
    Length,
    /// `1` when every lane of `x` equals the same lane of `y`, else `0`.
    EqualAll,
    /// Per lane, operand 1 where operand 0 is not zero, else operand 2.
    Select,
    /// Output lane `k` is lane `.1` of operand `.0`.
    Gather(Vec<(usize, u32)>),
}

/// One operand as the semantics see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum OperandKind {
    /// Values of a format, one per row.
    Data(VertexFormat),
    /// A constant of a format (a 1-lane constant broadcasts): its values arrive decoded as
    /// vertex fetch would, and it joins the types as a column of its format.
    Constant(VertexFormat),
    /// An untyped literal (arithmetic family only).
    Literal(Literal),
}

impl OperandKind {
    /// Lanes the operand has.
    pub(crate) fn lanes(self) -> u32 {
        match self {
            OperandKind::Data(f) => f.components(),
            OperandKind::Constant(f) => f.components(),
            OperandKind::Literal(l) => l.lanes().len() as u32,
        }
    }

    /// The type the operand's values arrive in before conversion (a literal arrives in the
    /// computation's type).
    fn natural(self, compute: Compute) -> PrimitiveType {
        match self {
            OperandKind::Data(f) | OperandKind::Constant(f) => decoded_type(f),
            OperandKind::Literal(_) => compute.primitive(),
        }
    }
}

/// The operand kinds of `operands` (a column's from its format, `format`); outside the
/// arithmetic family (`literals` false) a literal is a float32 constant (luma.gl's
/// `fromConstant`). The same for GPU operands and the CPU reference's.
pub(crate) fn kinds<D>(
    operands: &[OperandOf<D>],
    format: impl Fn(&D) -> VertexFormat,
    literals: bool,
) -> Vec<OperandKind> {
    operands
        .iter()
        .map(|o| match o {
            OperandOf::Data(column) => OperandKind::Data(format(column)),
            OperandOf::Constant(c) => OperandKind::Constant(c.format()),
            OperandOf::Literal(l) if literals => OperandKind::Literal(*l),
            OperandOf::Literal(l) => OperandKind::Constant(l.to_constant().format()),
        })
        .collect()
}

/// What one call computes: the program, the type operands are converted to, the output format.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Semantics {
    /// The operation's name, for errors and labels.
    pub op: &'static str,
    /// What the lanes are computed from.
    pub program: Program,
    /// The type values are converted to and computed in.
    pub compute: Compute,
    /// The output format.
    pub output: VertexFormat,
    /// The operands.
    pub operands: Vec<OperandKind>,
}

impl Semantics {
    /// How the program's float16 decodes treat NaNs: arithmetic leaves NaN bits unspecified
    /// (WGSL does), selections, comparisons and `abs` deliver what the host codec delivers.
    pub(crate) fn nans(&self) -> NanBits {
        match self.program {
            // `abs` is a bit operation on floats: exact, NaN bits included.
            Program::Math(MathOp::Abs) => NanBits::Quiet,
            Program::Fold(_) | Program::Math(_) | Program::Dot | Program::Length => {
                NanBits::Unspecified
            }
            _ => NanBits::Quiet,
        }
    }

    /// Whether gathered operand `i` is copied as raw bits (its storage type is the output's).
    pub(crate) fn raw(&self, i: usize) -> bool {
        matches!(self.operands[i], OperandKind::Data(f)
            if !f.is_packed_bits() && f.data_type() == self.output.data_type())
    }
}

/// The computation type of a joined type.
pub(crate) fn compute_of(joined: DataType) -> Compute {
    match joined {
        DataType::Float32 => Compute::F32,
        DataType::Uint8 | DataType::Uint16 | DataType::Uint32 => Compute::U32,
        _ => Compute::I32,
    }
}

/// luma.gl's type join over the data and constant operands (literals take no part).
fn joined(operands: &[OperandKind]) -> DataType {
    join(operands.iter().filter_map(|o| match o {
        OperandKind::Data(f) | OperandKind::Constant(f) => {
            Some((f.signed_data_type(), f.is_normalized()))
        }
        OperandKind::Literal(_) => None,
    }))
}

/// The checks every element-wise call makes: some operand, some GPU data.
fn check_operands(op: &'static str, operands: &[OperandKind]) -> Result<(), OpError> {
    if operands.is_empty() {
        return Err(OpError::NoInputs { op });
    }
    if !operands.iter().any(|o| matches!(o, OperandKind::Data(_))) {
        return Err(OpError::NoGpuInput { op });
    }
    Ok(())
}

fn packed_output(
    op: &'static str,
    data_type: DataType,
    lanes: u32,
) -> Result<VertexFormat, OpError> {
    format_of(data_type, lanes).ok_or(OpError::OutputLanes {
        op,
        lanes: lanes as usize,
    })
}

fn max_lanes(operands: &[OperandKind]) -> u32 {
    operands.iter().map(|o| o.lanes()).max().unwrap_or(1)
}

/// Whether literal `value` is exact in `compute` (integers of its range only).
fn literal_fits(value: f64, compute: Compute) -> bool {
    let integral = value.fract() == 0.0;
    match compute {
        Compute::F32 => true,
        Compute::U32 => integral && (0.0..4_294_967_296.0).contains(&value),
        Compute::I32 => integral && (-2_147_483_648.0..2_147_483_648.0).contains(&value),
    }
}

/// The lanes of a literal as bits of `compute` (missing vector lanes 0).
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "integer computations take only literals that `literal_fits`"
)]
pub(crate) fn literal_bits(literal: &Literal, compute: Compute) -> [u32; 4] {
    std::array::from_fn(|lane| {
        let v = literal.lane(lane as u32);
        match compute {
            Compute::F32 => (v as f32).to_bits(),
            Compute::U32 => v as u32,
            Compute::I32 => v as i32 as u32,
        }
    })
}

/// `op` folded left over `operands` (luma.gl's add/subtract/multiply/divide). A single data
/// operand comes back unchanged, in its own format.
pub(crate) fn fold(op: ArithmeticOp, operands: &[OperandKind]) -> Result<Semantics, OpError> {
    let name = op.as_str();
    check_operands(name, operands)?;
    if let [OperandKind::Data(format)] = operands {
        return Ok(Semantics {
            op: name,
            program: Program::Identity,
            compute: compute_of(format.signed_data_type()),
            output: *format,
            operands: operands.to_vec(),
        });
    }
    let joined = joined(operands);
    let mut compute = compute_of(joined);
    let literal_lanes = operands.iter().flat_map(|o| match o {
        OperandKind::Literal(l) => l.lanes().to_vec(),
        _ => Vec::new(),
    });
    if literal_lanes.into_iter().any(|v| !literal_fits(v, compute)) {
        compute = Compute::F32;
    }
    Ok(Semantics {
        op: name,
        program: Program::Fold(op),
        compute,
        output: packed_output(name, joined, max_lanes(operands))?,
        operands: operands.to_vec(),
    })
}

/// A math function: float32 output (luma.gl's `FLOAT_OUTPUT_OPS`), except `abs`, which keeps
/// the joined type.
pub(crate) fn math(op: MathOp, operands: &[OperandKind]) -> Result<Semantics, OpError> {
    let name = op.as_str();
    check_operands(name, operands)?;
    let joined = if op == MathOp::Abs {
        joined(operands)
    } else {
        DataType::Float32
    };
    Ok(Semantics {
        op: name,
        program: Program::Math(op),
        compute: compute_of(joined),
        output: packed_output(name, joined, max_lanes(operands))?,
        operands: operands.to_vec(),
    })
}

/// `dot` or `equalAll`: two operands of one lane count, one lane out.
pub(crate) fn pairwise(program: Program, operands: &[OperandKind]) -> Result<Semantics, OpError> {
    let (name, output) = match program {
        Program::Dot => ("dot", VertexFormat::Float32),
        _ => ("equalAll", VertexFormat::Uint32),
    };
    check_operands(name, operands)?;
    if let [x, y] = operands
        && x.lanes() != y.lanes()
    {
        return Err(OpError::LaneMismatch {
            op: name,
            input: 1,
            expected: x.lanes(),
            found: y.lanes(),
        });
    }
    Ok(Semantics {
        op: name,
        program,
        compute: Compute::F32,
        output,
        operands: operands.to_vec(),
    })
}

/// `length`: one lane out.
pub(crate) fn length(operands: &[OperandKind]) -> Result<Semantics, OpError> {
    check_operands("length", operands)?;
    Ok(Semantics {
        op: "length",
        program: Program::Length,
        compute: Compute::F32,
        output: VertexFormat::Float32,
        operands: operands.to_vec(),
    })
}

/// `select(condition, whenTrue, whenFalse)`: the join of the two values, their larger lane
/// count; each operand has 1 lane or that count.
pub(crate) fn select(operands: &[OperandKind]) -> Result<Semantics, OpError> {
    const OP: &str = "select";
    check_operands(OP, operands)?;
    let values = operands.get(1..).unwrap_or_default();
    let joined = joined(values);
    let lanes = max_lanes(values);
    for (i, operand) in operands.iter().enumerate() {
        let found = operand.lanes();
        if found != 1 && found != lanes {
            return Err(OpError::LaneMismatch {
                op: OP,
                input: i,
                expected: lanes,
                found,
            });
        }
    }
    Ok(Semantics {
        op: OP,
        program: Program::Select,
        compute: compute_of(joined),
        output: packed_output(OP, joined, lanes)?,
        operands: operands.to_vec(),
    })
}

/// `swizzle(x, columns)`: the columns of `x` in the order given, in `x`'s format family (the
/// same storage type and normalization); `unorm10-10-10-2`, and float16 into three lanes, which
/// have no such format, come out as decoded float32.
pub(crate) fn swizzle(operand: OperandKind, columns: &[u32]) -> Result<Semantics, OpError> {
    const OP: &str = "swizzle";
    check_operands(OP, &[operand])?;
    if columns.is_empty() || columns.len() > 4 {
        return Err(OpError::OutputLanes {
            op: OP,
            lanes: columns.len(),
        });
    }
    let lanes = operand.lanes();
    if let Some(&column) = columns.iter().find(|&&c| c >= lanes) {
        return Err(OpError::LaneOutOfRange {
            op: OP,
            column,
            lanes,
        });
    }
    let n = columns.len() as u32;
    let same = match operand {
        OperandKind::Data(f) if !f.is_packed_bits() => format_of(f.data_type(), n),
        _ => None,
    };
    let (output, compute) = match (same, operand) {
        (Some(output), OperandKind::Data(f)) => (output, compute_of(f.signed_data_type())),
        _ => (packed_output(OP, DataType::Float32, n)?, Compute::F32),
    };
    Ok(Semantics {
        op: OP,
        program: Program::Gather(columns.iter().map(|&c| (0, c)).collect()),
        compute,
        output,
        operands: vec![operand],
    })
}

/// luma.gl's `interleave`: each row's lanes of every operand, in order, as one column of the
/// joined type; a single data operand comes back unchanged.
pub(crate) fn interleave_lanes(operands: &[OperandKind]) -> Result<Semantics, OpError> {
    const OP: &str = "interleave_lanes";
    check_operands(OP, operands)?;
    if let [OperandKind::Data(format)] = operands {
        return Ok(Semantics {
            op: OP,
            program: Program::Identity,
            compute: compute_of(format.signed_data_type()),
            output: *format,
            operands: operands.to_vec(),
        });
    }
    let lanes: usize = operands.iter().map(|o| o.lanes() as usize).sum();
    if lanes > 4 {
        return Err(OpError::OutputLanes { op: OP, lanes });
    }
    let joined = joined(operands);
    let entries = operands
        .iter()
        .enumerate()
        .flat_map(|(i, o)| (0..o.lanes()).map(move |l| (i, l)))
        .collect();
    Ok(Semantics {
        op: OP,
        program: Program::Gather(entries),
        compute: compute_of(joined),
        output: packed_output(OP, joined, lanes as u32)?,
        operands: operands.to_vec(),
    })
}

/// Where an operand's values come from in the kernel.
#[derive(Clone, Copy)]
pub(crate) enum Place {
    /// A source of the kernel.
    Data(ValueRef),
    /// Entry `.0` of the kernel's constants (a constant's f32 lanes, or a literal's lanes in
    /// the computation's type).
    Constant(usize),
}

/// The value of type `ty` whose 32 bits are the `u32` expression `bits` (a uniform's word).
fn from_bits(bits: String, ty: PrimitiveType) -> String {
    match ty {
        PrimitiveType::U32 => bits,
        PrimitiveType::I32 => format!("bitcast<i32>({bits})"),
        PrimitiveType::F32 | PrimitiveType::F16 => format!("bitcast<f32>({bits})"),
    }
}

/// Zero of `ty`, read from the uniform (`P[0].z` is always 0) rather than written as a
/// literal, so the compiler cannot fold `x * 0.0` to `+0.0` or reject an integer division by
/// a constant zero.
fn zero(ty: PrimitiveType) -> &'static str {
    match ty {
        PrimitiveType::U32 => "P[0].z",
        PrimitiveType::I32 => "bitcast<i32>(P[0].z)",
        PrimitiveType::F32 | PrimitiveType::F16 => "bitcast<f32>(P[0].z)",
    }
}

/// `x` (an `f32` name) through an OR with the uniform's zero: the same value, opaque to the
/// compiler's float rewrites.
fn pin(x: &str) -> String {
    format!("bitcast<f32>(bitcast<u32>({x}) | P[0].z)")
}

fn binary(compute: Compute, op: ArithmeticOp, a: &str, b: &str) -> String {
    match (compute, op) {
        (Compute::U32, ArithmeticOp::Divide) => format!("select(0u, {a} / {b}, {b} != 0u)"),
        (Compute::I32, ArithmeticOp::Divide) => format!("select(0i, {a} / {b}, {b} != 0i)"),
        _ => format!("{a} {} {b}", op.symbol()),
    }
}

/// The WGSL of `op` on `args` (names of type `ty`).
fn math_wgsl(op: MathOp, ty: PrimitiveType, args: &[String]) -> String {
    let a = &args[0];
    match op {
        MathOp::Abs => match ty {
            PrimitiveType::U32 => a.clone(),
            PrimitiveType::I32 => format!("abs({a})"),
            // The sign bit cleared: exact for every value, NaN included.
            _ => format!("bitcast<f32>(bitcast<u32>({a}) & 0x7fffffffu)"),
        },
        MathOp::Pow => format!("pow({a}, {})", args[1]),
        other => format!("{}({a})", other.wgsl()),
    }
}

/// Whether `a` (of type `ta`) equals `b` (of `tb`) as numbers: floats bit for bit, except that
/// `+0 == -0` and NaN equals nothing; integers of mixed signedness exactly; an integer and a
/// float as `f32`.
fn equal_wgsl(a: &str, ta: PrimitiveType, b: &str, tb: PrimitiveType) -> String {
    use PrimitiveType::{I32, U32};
    let float_eq = |a: &str, b: &str| {
        format!(
            "((bitcast<u32>({a}) == bitcast<u32>({b}) || ((bitcast<u32>({a}) | bitcast<u32>({b})) & 0x7fffffffu) == 0u) && (bitcast<u32>({a}) & 0x7fffffffu) <= 0x7f800000u)"
        )
    };
    match (ta, tb) {
        (I32, I32) | (U32, U32) => format!("({a} == {b})"),
        (I32, U32) => format!("({a} >= 0i && bitcast<u32>({a}) == {b})"),
        (U32, I32) => format!("({b} >= 0i && bitcast<u32>({b}) == {a})"),
        (I32 | U32, _) => float_eq(&format!("f32({a})"), b),
        (_, I32 | U32) => float_eq(a, &format!("f32({b})")),
        _ => float_eq(a, b),
    }
}

/// Whether `c` (of type `ty`) is not zero (a NaN is not zero, `-0` is).
fn nonzero_wgsl(c: &str, ty: PrimitiveType) -> String {
    match ty {
        PrimitiveType::U32 => format!("({c} != 0u)"),
        PrimitiveType::I32 => format!("({c} != 0i)"),
        _ => format!("((bitcast<u32>({c}) & 0x7fffffffu) != 0u)"),
    }
}

/// The kernel's row code for one [`Semantics`].
pub(crate) struct ElementwiseBody {
    /// What the call computes.
    pub sem: Semantics,
    /// Per operand: where its values are.
    pub places: Vec<Place>,
}

impl ElementwiseBody {
    /// Lane `lane` of operand `i` (after luma.gl's lane rule: its lane, its lane 0 when it has
    /// one, else 0), bound to a name, converted to `to` (or as it arrives).
    fn value(
        &self,
        ctx: &mut RowCtx<'_>,
        i: usize,
        lane: u32,
        to: Option<PrimitiveType>,
    ) -> (String, PrimitiveType) {
        let sem = &self.sem;
        let kind = sem.operands[i];
        let natural = kind.natural(sem.compute);
        let ty = to.unwrap_or(natural);
        let expr = match (kind, self.places[i]) {
            (OperandKind::Literal(_), Place::Constant(j)) => {
                let arrived = from_bits(ctx.constant(j, lane), natural);
                wgsl_codec::convert(&arrived, natural, ty)
            }
            (_, place) => match (source_lane(kind.lanes(), lane), kind, place) {
                (None, _, _) => zero(ty).to_owned(),
                (Some(l), OperandKind::Data(format), Place::Data(at)) => {
                    let us = unit_size(format);
                    let unit = u64::from(unit_of_lane(format, l));
                    let raw = ctx.unit(at, unit * us, us as u32);
                    let raw = ctx.bind(&raw);
                    let decoded = wgsl_codec::decode_unit_as(format, l, &raw, ty, sem.nans());
                    if format.is_normalized() && ty == PrimitiveType::F32 {
                        let name = ctx.bind(&decoded);
                        pin(&name)
                    } else {
                        decoded
                    }
                }
                (Some(l), _, Place::Constant(j)) => {
                    wgsl_codec::convert(&from_bits(ctx.constant(j, l), natural), natural, ty)
                }
                (Some(_), _, Place::Data(_)) => zero(ty).to_owned(),
            },
        };
        (ctx.bind(&expr), ty)
    }

    /// Output lane `lane`'s value and its type.
    fn lane(&self, ctx: &mut RowCtx<'_>, lane: u32) -> (String, PrimitiveType) {
        let sem = &self.sem;
        let compute = sem.compute.primitive();
        match &sem.program {
            Program::Fold(op) => {
                let n = sem.operands.len();
                let (mut acc, _) = self.value(ctx, 0, lane, Some(compute));
                for i in 1..n {
                    let (v, _) = self.value(ctx, i, lane, Some(compute));
                    acc = ctx.bind(&binary(sem.compute, *op, &acc, &v));
                    if i + 1 < n && sem.compute == Compute::F32 {
                        acc = ctx.bind(&pin(&acc));
                    }
                }
                // A fractional literal made integer data compute in f32: truncate, wrap
                // negative values into unsigned outputs, and store infinities and NaN as 0,
                // as a JavaScript typed array does (tested on the bits, which no float
                // rewrite can see past).
                let finite = format!("(bitcast<u32>({acc}) & 0x7f800000u) != 0x7f800000u");
                match (sem.compute, decoded_type(sem.output)) {
                    (Compute::F32, PrimitiveType::I32) => (
                        ctx.bind(&format!("select(0i, i32({acc}), {finite})")),
                        PrimitiveType::I32,
                    ),
                    (Compute::F32, PrimitiveType::U32) => (
                        ctx.bind(&format!(
                            "select(0u, select(u32({acc}), bitcast<u32>(i32({acc})), {acc} < 0.0), {finite})"
                        )),
                        PrimitiveType::U32,
                    ),
                    _ => (acc, compute),
                }
            }
            Program::Math(op) => {
                let args: Vec<String> = (0..sem.operands.len())
                    .map(|i| self.value(ctx, i, lane, Some(compute)).0)
                    .collect();
                (ctx.bind(&math_wgsl(*op, compute, &args)), compute)
            }
            Program::Select => {
                let (c, ct) = self.value(ctx, 0, lane, None);
                let (t, _) = self.value(ctx, 1, lane, Some(compute));
                let (f, _) = self.value(ctx, 2, lane, Some(compute));
                let cond = nonzero_wgsl(&c, ct);
                (ctx.bind(&format!("select({f}, {t}, {cond})")), compute)
            }
            Program::Gather(entries) => {
                let (i, l) = entries[lane as usize];
                self.value(ctx, i, l, Some(compute))
            }
            Program::Dot | Program::Length | Program::EqualAll | Program::Identity => {
                (zero(compute).to_owned(), compute)
            }
        }
    }

    /// The one output lane of a reduction over lanes.
    fn reduce(&self, ctx: &mut RowCtx<'_>) -> (String, PrimitiveType) {
        let sem = &self.sem;
        let lanes = sem.operands[0].lanes();
        let f32 = Some(PrimitiveType::F32);
        match sem.program {
            Program::EqualAll => {
                let mut all = Vec::with_capacity(lanes as usize);
                for l in 0..lanes {
                    let (a, ta) = self.value(ctx, 0, l, None);
                    let (b, tb) = self.value(ctx, 1, l, None);
                    all.push(equal_wgsl(&a, ta, &b, tb));
                }
                let all = all.join(" && ");
                (
                    ctx.bind(&format!("select(0u, 1u, {all})")),
                    PrimitiveType::U32,
                )
            }
            _ => {
                let y = usize::from(sem.program == Program::Dot);
                let mut sum: Option<String> = None;
                for l in 0..lanes {
                    let (a, _) = self.value(ctx, 0, l, f32);
                    let b = if y == 1 {
                        self.value(ctx, 1, l, f32).0
                    } else {
                        a.clone()
                    };
                    let product = ctx.bind(&format!("{a} * {b}"));
                    let product = ctx.bind(&pin(&product));
                    sum = Some(match sum {
                        None => product,
                        Some(s) => {
                            let s = ctx.bind(&format!("{s} + {product}"));
                            ctx.bind(&pin(&s))
                        }
                    });
                }
                let sum = sum.unwrap_or_else(|| zero(PrimitiveType::F32).to_owned());
                let result = if sem.program == Program::Length {
                    ctx.bind(&format!("sqrt({sum})"))
                } else {
                    sum
                };
                (result, PrimitiveType::F32)
            }
        }
    }
}

impl Body for ElementwiseBody {
    fn row(&self, ctx: &mut RowCtx<'_>) {
        let sem = &self.sem;
        let out_unit = unit_size(sem.output);
        match &sem.program {
            Program::Identity => {
                if let (OperandKind::Data(format), Place::Data(at)) =
                    (sem.operands[0], self.places[0])
                {
                    let us = unit_size(format);
                    for j in 0..unit_count(format) {
                        let bits = ctx.unit(at, j * us, us as u32);
                        ctx.emit(0, j * us, us as u32, bits);
                    }
                }
            }
            Program::Dot | Program::Length | Program::EqualAll => {
                let (value, ty) = self.reduce(ctx);
                let bits = wgsl_codec::encode_unit(sem.output, 0, &value, ty);
                ctx.emit(0, 0, out_unit as u32, bits);
            }
            program => {
                for lane in 0..sem.output.components() {
                    let bits = match program {
                        Program::Gather(entries) if sem.raw(entries[lane as usize].0) => {
                            let (i, l) = entries[lane as usize];
                            match (sem.operands[i], self.places[i]) {
                                (OperandKind::Data(format), Place::Data(at)) => {
                                    let us = unit_size(format);
                                    let unit = u64::from(unit_of_lane(format, l));
                                    ctx.unit(at, unit * us, us as u32)
                                }
                                _ => "0u".to_owned(),
                            }
                        }
                        _ => {
                            let (value, ty) = self.lane(ctx, lane);
                            wgsl_codec::encode_unit(sem.output, lane, &value, ty)
                        }
                    };
                    ctx.emit(0, u64::from(lane) * out_unit, out_unit as u32, bits);
                }
            }
        }
    }

    fn helpers(&self) -> String {
        let f16 = self
            .sem
            .operands
            .iter()
            .any(|o| matches!(o, OperandKind::Data(f) if f.data_type() == DataType::Float16));
        if f16 && self.sem.nans() == NanBits::Unspecified {
            wgsl_codec::kernel_f16_function()
        } else {
            String::new()
        }
    }
}

/// Plans `sem` over `operands` (whose kinds `sem` was made from) on `gpu`.
///
/// # Errors
/// The planner's: [`OpError::LengthMismatch`], the input checks, the device limits and
/// [`OpError::Gpu`].
pub(crate) fn plan(
    gpu: &Gpu,
    config: &OpsConfig,
    sem: Semantics,
    operands: &[Operand<'_>],
) -> Result<OpPlan<GpuData>, OpError> {
    let mut views = Vec::new();
    let mut constants = Vec::new();
    let mut places = Vec::with_capacity(operands.len());
    for (operand, kind) in operands.iter().zip(&sem.operands) {
        match operand {
            Operand::Data(input) => {
                places.push(Place::Data(ValueRef { source: 0, rel: 0 }));
                views.push(*input);
            }
            Operand::Constant(c) => {
                places.push(Place::Constant(constants.len()));
                constants.push(constant_bits(c));
            }
            Operand::Literal(l) => {
                places.push(Place::Constant(constants.len()));
                constants.push(match kind {
                    OperandKind::Literal(_) => literal_bits(l, sem.compute),
                    _ => constant_bits(&l.to_constant()),
                });
            }
        }
    }
    let length = views.first().map_or(0, |v| v.length());
    let (op, output) = (sem.op, sem.output);
    let request = KernelRequest {
        op,
        views,
        length,
        output_strides: vec![output.byte_length()],
        constants,
    };
    let built = kernel_plan::build(&Planner::new(gpu, config), request, |refs| {
        let mut next = refs.iter();
        let mut places = places.clone();
        for place in &mut places {
            if let Place::Data(at) = place
                && let Some(r) = next.next()
            {
                *at = *r;
            }
        }
        ElementwiseBody {
            sem: sem.clone(),
            places,
        }
    })?;
    let data = output_data(gpu, op, &built.outputs[0], output, length)?;
    Ok(OpPlan::new(op, built, data))
}
