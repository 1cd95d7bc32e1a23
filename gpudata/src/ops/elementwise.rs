//! The element-wise engine: every operation whose output row is a function of the same row of
//! its operands (arithmetic, the math functions, `dot`, `length`, `equalAll`, `select`,
//! `swizzle`, luma.gl's `interleave`). [`Semantics`] (`semantics.rs`, re-exported here for the
//! operations) says what a call computes (checked against luma.gl's rules); [`ElementwiseBody`]
//! writes it as the row code of the one kernel generator, integer steps with literals through
//! `exact.rs`, and `cpu/eval.rs` computes the same on the host.
//!
//! Evaluation order is pinned: every operand is decoded to its value (and bound to a name)
//! before it meets another; normalized values are built from integer operations
//! ([`wgsl_codec::decode_unit_exact`]: correctly rounded, with no division a compiler could
//! approximate or factor as in `a/255 + b/255`), and every intermediate result that feeds
//! another float operation and every product that feeds a sum go through [`pin`], an integer
//! OR with the uniform's zero that no compiler can see through, so it cannot reassociate a
//! chain or contract a product and a sum into one fused multiply-add. Float results are
//! therefore rounded per step, exactly as the CPU reference rounds them.

pub(crate) use super::exact::literal_bits;
use super::exact::{self, PARAMS};
use super::family::{ArithmeticOp, Compute, MathOp, source_lane};
use super::input::{Operand, constant_bits};
use super::output::output_data;
pub(crate) use super::semantics::{
    FoldStep, OperandKind, Program, Semantics, fold, interleave_lanes, kinds, length, math,
    pairwise, select, swizzle,
};
use crate::data::{GpuData, GpuDataView};
use crate::device::Gpu;
use crate::format::codec::{decoded_type, unit_of_lane};
use crate::format::wgsl_codec::{self, NanBits};
use crate::format::{DataType, PrimitiveType, VertexFormat};
use crate::ops::kernels::Planner;
use crate::ops::kernels::select::predicate;
use crate::ops::kernels::shape::{unit_count, unit_size};
use crate::ops::kernels::transform::body::{Body, RowCtx, ValueRef};
use crate::ops::kernels::transform::plan::{self as kernel_plan, KernelRequest};
use crate::ops::{OpError, OpPlan, OpsConfig};

/// Where an operand's values come from in the kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Place {
    /// A source of the kernel (before planning: `source` is the index of the view).
    Data(ValueRef),
    /// Entry `.0` of the kernel's constants (a constant's f32 lanes, or a literal's lanes in
    /// the computation's type).
    Constant(usize),
    /// The value of node `.0` of the kernel (an earlier one): its lanes as its output format
    /// stores them and a read of that format delivers them.
    Node(usize),
}

/// One node of the kernel's row code: what it computes and where its operands are.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    /// What the node computes.
    pub sem: Semantics,
    /// Per operand: where its values are.
    pub places: Vec<Place>,
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
        // WGSL's definition, each step rounded (the product pinned: never a fused
        // multiply-add).
        (Compute::F32, ArithmeticOp::Remainder) => {
            format!("({a} - bitcast<f32>(bitcast<u32>({b} * trunc({a} / {b})) | P[0].z))")
        }
        (Compute::U32, ArithmeticOp::Remainder) => format!("select(0u, {a} % {b}, {b} != 0u)"),
        // `x % -1` is 0 for every x (and `i32::MIN % -1` must not trap).
        (Compute::I32, ArithmeticOp::Remainder) => {
            format!("select(0i, {a} % {b}, {b} != 0i && {b} != -1i)")
        }
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

/// The kernel's row code: its nodes in order (every node after those it reads), the last one
/// written out. A one-step operation is one node; a fused expression ([`Expr`](super::Expr))
/// one per operation.
pub(crate) struct ElementwiseBody {
    /// The nodes.
    pub nodes: Vec<Node>,
}

/// `value` (of type `ty`) stored as lane `lane` of `format` and read back: what the node's
/// one-step operation would write and the next read (integers wrapped to the format's width,
/// floats pinned: rounded here, never contracted with the next operation).
fn store(
    ctx: &mut RowCtx<'_>,
    format: VertexFormat,
    lane: u32,
    value: &str,
    ty: PrimitiveType,
) -> String {
    let bits = ctx.bind(&wgsl_codec::encode_unit(format, lane, value, ty));
    let read = ctx.bind(&wgsl_codec::decode_unit_with(
        format,
        lane,
        &bits,
        NanBits::Quiet,
    ));
    if decoded_type(format) == PrimitiveType::F32 {
        ctx.bind(&pin(&read))
    } else {
        read
    }
}

/// One node's row code, with the lanes of the nodes before it.
struct NodeRow<'b> {
    sem: &'b Semantics,
    places: &'b [Place],
    /// Per earlier node: its stored lanes (names).
    values: &'b [Vec<String>],
}

impl NodeRow<'_> {
    /// Lane `lane` of operand `i` (after luma.gl's lane rule: its lane, its lane 0 when it has
    /// one, else 0), bound to a name, converted to `to` (or as it arrives).
    fn value(
        &self,
        ctx: &mut RowCtx<'_>,
        i: usize,
        lane: u32,
        to: Option<PrimitiveType>,
    ) -> (String, PrimitiveType) {
        let sem = self.sem;
        let kind = sem.operands[i];
        let natural = kind.natural(sem.compute);
        let ty = to.unwrap_or(natural);
        let expr = match (kind, self.places[i]) {
            (OperandKind::Literal(_), Place::Constant(j)) => {
                let bits = ctx.constant(j, lane);
                let arrived = match sem.compute {
                    Compute::F32 => format!("bitcast<f32>({bits})"),
                    Compute::U32 => bits,
                    Compute::I32 => format!("bitcast<i32>({bits})"),
                };
                wgsl_codec::convert(&arrived, natural, ty)
            }
            (_, place) => match (source_lane(kind.lanes(), lane), kind, place) {
                (None, _, _) => zero(ty).to_owned(),
                (Some(l), OperandKind::Data(format), Place::Data(at)) => {
                    let us = unit_size(format);
                    let unit = u64::from(unit_of_lane(format, l));
                    let raw = ctx.unit(at, unit * us, us as u32);
                    let raw = ctx.bind(&raw);
                    // Normalized values decode through integer operations (correctly
                    // rounded on every GPU), which no float rewrite can see into.
                    wgsl_codec::decode_unit_as(format, l, &raw, ty, sem.nans())
                }
                (Some(l), _, Place::Constant(j)) => {
                    wgsl_codec::convert(&from_bits(ctx.constant(j, l), natural), natural, ty)
                }
                (Some(l), OperandKind::Data(format), Place::Node(k)) => {
                    wgsl_codec::convert(&self.values[k][l as usize], decoded_type(format), ty)
                }
                (Some(_), _, Place::Data(_) | Place::Node(_)) => zero(ty).to_owned(),
            },
        };
        (ctx.bind(&expr), ty)
    }

    /// Output lane `lane` of a fold of `op` ([`Semantics::fold_steps`]), in the computation
    /// type; float intermediate results pinned.
    fn fold(&self, ctx: &mut RowCtx<'_>, op: ArithmeticOp, lane: u32) -> (String, PrimitiveType) {
        let sem = self.sem;
        let compute = sem.compute.primitive();
        let signed = sem.compute == Compute::I32;
        let steps = sem.fold_steps(op, lane);
        let mut acc = String::new();
        for (s, step) in steps.iter().enumerate() {
            let params = |ctx: &RowCtx<'_>, i: usize| -> Vec<String> {
                match self.places[i] {
                    Place::Constant(j) => {
                        (0..PARAMS).map(|k| ctx.constant(j + 1 + k, lane)).collect()
                    }
                    Place::Data(_) | Place::Node(_) => vec!["0u".to_owned(); PARAMS],
                }
            };
            acc = match *step {
                FoldStep::Start(i) => self.value(ctx, i, lane, Some(compute)).0,
                FoldStep::Apply(i) => {
                    let (v, _) = self.value(ctx, i, lane, Some(compute));
                    let next = ctx.bind(&binary(sem.compute, op, &acc, &v));
                    if s + 1 < steps.len() && sem.compute == Compute::F32 {
                        ctx.bind(&pin(&next))
                    } else {
                        next
                    }
                }
                FoldStep::Exact(i, step) => {
                    let p = params(ctx, i);
                    ctx.bind(&exact::wgsl(step, &acc, signed, |k| p[k].clone()))
                }
                FoldStep::Lead(h, i, step) => {
                    let (x, _) = self.value(ctx, i, lane, Some(compute));
                    let p = params(ctx, h);
                    ctx.bind(&exact::wgsl(step, &x, signed, |k| p[k].clone()))
                }
                FoldStep::Zero => zero(compute).to_owned(),
            };
        }
        (acc, compute)
    }

    /// Output lane `lane`'s value and its type.
    fn lane(&self, ctx: &mut RowCtx<'_>, lane: u32) -> (String, PrimitiveType) {
        let sem = self.sem;
        let compute = sem.compute.primitive();
        match &sem.program {
            Program::Fold(op) => self.fold(ctx, *op, lane),
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
            Program::Compare(cmp) => {
                let (a, ta) = self.value(ctx, 0, lane, None);
                let (b, tb) = self.value(ctx, 1, lane, None);
                let test = predicate::compare(*cmp, &a, ta, &b, tb);
                (
                    ctx.bind(&format!("select(0u, 1u, {test})")),
                    PrimitiveType::U32,
                )
            }
            Program::Dot | Program::Length | Program::EqualAll | Program::Identity => {
                (zero(compute).to_owned(), compute)
            }
        }
    }

    /// The node's lanes as it stores them ([`store`]), for the nodes that read it.
    fn stored(&self, ctx: &mut RowCtx<'_>) -> Vec<String> {
        let sem = self.sem;
        if matches!(
            sem.program,
            Program::Dot | Program::Length | Program::EqualAll
        ) {
            let (value, ty) = self.reduce(ctx);
            return vec![store(ctx, sem.output, 0, &value, ty)];
        }
        (0..sem.output_lanes())
            .map(|lane| {
                let (value, ty) = self.lane(ctx, lane);
                store(ctx, sem.output, sem.output_lane(lane), &value, ty)
            })
            .collect()
    }

    /// The one output lane of a reduction over lanes.
    fn reduce(&self, ctx: &mut RowCtx<'_>) -> (String, PrimitiveType) {
        let sem = self.sem;
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
        let Some((root, inner)) = self.nodes.split_last() else {
            return;
        };
        let mut values: Vec<Vec<String>> = Vec::with_capacity(inner.len());
        for node in inner {
            let lanes = NodeRow {
                sem: &node.sem,
                places: &node.places,
                values: &values,
            }
            .stored(ctx);
            values.push(lanes);
        }
        NodeRow {
            sem: &root.sem,
            places: &root.places,
            values: &values,
        }
        .write(ctx);
    }

    fn helpers(&self) -> String {
        let sems = || self.nodes.iter().map(|n| &n.sem);
        let f16 = sems().any(|sem| {
            sem.nans() == NanBits::Unspecified
                && sem.operands.iter().any(
                    |o| matches!(o, OperandKind::Data(f) if f.data_type() == DataType::Float16),
                )
        });
        let mut helpers = exact::helpers(sems().flat_map(Semantics::exact_steps));
        if f16 {
            helpers += &wgsl_codec::kernel_f16_function();
        }
        if sems().any(|sem| matches!(sem.program, Program::Compare(_))) {
            helpers += predicate::IS_NAN_F32;
        }
        helpers
    }
}

impl NodeRow<'_> {
    /// Writes the node's lanes to the kernel's output row.
    fn write(&self, ctx: &mut RowCtx<'_>) {
        let sem = self.sem;
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
                for lane in 0..sem.output_lanes() {
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
                            wgsl_codec::encode_unit(sem.output, sem.output_lane(lane), &value, ty)
                        }
                    };
                    ctx.emit(0, u64::from(lane) * out_unit, out_unit as u32, bits);
                }
            }
        }
    }
}

/// Plans `sem` over `operands` (whose kinds `sem` was made from) on `gpu`: the one-node form
/// of [`plan_nodes`].
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
    for (i, (operand, kind)) in operands.iter().zip(&sem.operands).enumerate() {
        match operand {
            Operand::Data(input) => {
                places.push(Place::Data(ValueRef {
                    source: views.len(),
                    rel: 0,
                }));
                views.push(*input);
            }
            Operand::Constant(c) => {
                places.push(Place::Constant(constants.len()));
                constants.push(constant_bits(c));
            }
            Operand::Literal(l) => {
                places.push(Place::Constant(constants.len()));
                // An integer fold's literal: its bits and exact steps' words, from the
                // semantics (which combined leading literals); elsewhere a float32 constant.
                match kind {
                    OperandKind::Literal(_) | OperandKind::Absorbed(_) => {
                        constants.extend(sem.literal_constants(i));
                    }
                    _ => constants.push(constant_bits(&l.to_constant())),
                }
            }
        }
    }
    let op = sem.op;
    plan_nodes(
        gpu,
        config,
        op,
        vec![Node { sem, places }],
        views,
        constants,
    )
}

/// Plans the kernel of `nodes` (the last written out) over `views` (each
/// [`Place::Data`]'s `source` indexes them; all of one length) and the uniform's `constants`.
///
/// # Errors
/// As [`plan`].
pub(crate) fn plan_nodes(
    gpu: &Gpu,
    config: &OpsConfig,
    op: &'static str,
    nodes: Vec<Node>,
    views: Vec<GpuDataView<'_>>,
    constants: Vec<[u32; 4]>,
) -> Result<OpPlan<GpuData>, OpError> {
    let Some(root) = nodes.last() else {
        return Err(OpError::NoInputs { op });
    };
    let length = views.first().map_or(0, GpuDataView::length);
    let (stride, output) = (root.sem.output_stride(), root.sem.output_format());
    let request = KernelRequest {
        op,
        views,
        length,
        output_strides: vec![stride],
        constants,
    };
    let built = kernel_plan::build(&Planner::new(gpu, config), request, |refs| {
        let mut nodes = nodes.clone();
        for place in nodes.iter_mut().flat_map(|n| &mut n.places) {
            if let Place::Data(at) = place
                && let Some(r) = refs.get(at.source)
            {
                *at = *r;
            }
        }
        ElementwiseBody { nodes }
    })?;
    let data = output_data(gpu, op, &built.outputs[0], output, length)?;
    Ok(OpPlan::new(op, built, data))
}
