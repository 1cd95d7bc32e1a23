//! What an element-wise call computes ([`Semantics`]): the operation's program, the type it
//! computes in, the output format and the operands' kinds, by luma.gl's type, lane and length
//! rules, checked before any kernel is written. The engine
//! ([`elementwise`](super::elementwise)) writes it as WGSL and `cpu/eval.rs` evaluates it on
//! the host.

use super::exact::{self, LaneKind, Step};
use super::family::{ArithmeticOp, Compute, MathOp, format_of, join};
use super::input::{Literal, OperandOf};
use super::kernels::Comparison;
use crate::data::GpuDataFormat;
use crate::format::codec::decoded_type;
use crate::format::wgsl_codec::NanBits;
use crate::format::{DataType, GpuVectorFormat, PrimitiveType, VertexFormat};
use crate::layout::{GpuDataStructFormat, StructLayout};
use crate::ops::OpError;

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
    /// Per lane, `1` where operand 0 compares so with operand 1, else `0` (integers exactly,
    /// anything with a float in `f32`; NaN compares false except for `!=`).
    Compare(Comparison),
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
    /// A literal of this many lanes that an integer fold combined into the literal before it
    /// (see [`fold`]): the fold skips it.
    Absorbed(usize),
}

impl OperandKind {
    /// Lanes the operand has.
    pub(crate) fn lanes(self) -> u32 {
        match self {
            OperandKind::Data(f) | OperandKind::Constant(f) => f.components(),
            OperandKind::Absorbed(n) => n as u32,
            OperandKind::Literal(l) => l.lanes().len() as u32,
        }
    }

    /// The type the operand's values arrive in before conversion (a literal arrives in the
    /// computation's type).
    pub(crate) fn natural(self, compute: Compute) -> PrimitiveType {
        match self {
            OperandKind::Data(f) | OperandKind::Constant(f) => decoded_type(f),
            OperandKind::Literal(_) | OperandKind::Absorbed(_) => compute.primitive(),
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

/// One step of a fold, for one output lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum FoldStep {
    /// The value starts as operand `.0`'s.
    Start(usize),
    /// `value = value op operand .0`, in the computation type.
    Apply(usize),
    /// `value = value op literal .0`, an exact integer step.
    Exact(usize, Step),
    /// `value = literal .0 op operand .1`, an exact integer step: the fold's leading literal
    /// meets the first data.
    Lead(usize, usize, Step),
    /// `value = 0`: a NaN or infinite literal in an integer computation.
    Zero,
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
    /// The output format: each row's one value, or, with `rows`, the one-lane format of each
    /// of the row's lanes.
    pub output: VertexFormat,
    /// Rows of more than four lanes of `output`'s type (luma.gl's `interleave`), laid out by
    /// [`lane_rows`].
    pub rows: Option<GpuDataStructFormat>,
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

    /// The integer step literal operand `i` takes (on the left when it leads), when the call
    /// is a fold computing in integers.
    pub(crate) fn literal_step(&self, i: usize) -> Option<Step> {
        match self.program {
            Program::Fold(op) if self.compute != Compute::F32 => Step::of(op, i == 0),
            _ => None,
        }
    }

    /// The uniform entries of operand `i` when it is a literal ([`exact::constants`] in an
    /// integer fold, else its lanes' bits), none otherwise.
    pub(crate) fn literal_constants(&self, i: usize) -> Vec<[u32; 4]> {
        match (self.operands[i], self.literal_step(i)) {
            (OperandKind::Literal(l), Some(step)) => exact::constants(&l, self.compute, step),
            (OperandKind::Literal(l), None) => vec![exact::literal_bits(&l, self.compute)],
            _ => Vec::new(),
        }
    }

    /// The exact integer steps of the call, for the helper functions they need.
    pub(crate) fn exact_steps(&self) -> Vec<Step> {
        (0..self.operands.len())
            .filter_map(|i| match (self.operands[i], self.literal_step(i)) {
                (OperandKind::Literal(l), Some(step)) if exact::needs_params(&l, self.compute) => {
                    Some(step)
                }
                _ => None,
            })
            .collect()
    }

    /// The steps of output lane `lane` of a fold of `op`, in order; the GPU and the CPU run
    /// the same list.
    pub(crate) fn fold_steps(&self, op: ArithmeticOp, lane: u32) -> Vec<FoldStep> {
        let kind = |i: usize| match self.operands[i] {
            OperandKind::Literal(l) if self.compute != Compute::F32 => {
                Some(exact::lane_kind(l.lane(lane), self.compute))
            }
            _ => None,
        };
        let mut steps = Vec::with_capacity(self.operands.len());
        let mut lead = None;
        for (i, operand) in self.operands.iter().enumerate() {
            if matches!(operand, OperandKind::Absorbed(_)) {
                continue;
            }
            let step = match (i, lead.take(), kind(i)) {
                (0, _, Some(LaneKind::Exact(_) | LaneKind::Zero)) => {
                    lead = Some(0);
                    continue;
                }
                (0, _, _) => FoldStep::Start(0),
                (_, Some(h), _) => match (kind(h), Step::of(op, true)) {
                    (Some(LaneKind::Exact(_)), Some(step)) => FoldStep::Lead(h, i, step),
                    _ => {
                        // Still read the data, so the kernel binds what it was given.
                        steps.push(FoldStep::Start(i));
                        FoldStep::Zero
                    }
                },
                (_, None, Some(LaneKind::Exact(_))) => {
                    Step::of(op, false).map_or(FoldStep::Zero, |step| FoldStep::Exact(i, step))
                }
                (_, None, Some(LaneKind::Zero)) => FoldStep::Zero,
                (_, None, _) => FoldStep::Apply(i),
            };
            steps.push(step);
        }
        steps
    }

    /// Lanes of an output row.
    pub(crate) fn output_lanes(&self) -> u32 {
        self.rows
            .as_ref()
            .map_or(self.output.components(), GpuDataStructFormat::components)
    }

    /// The lane of [`output`](Self::output) that output lane `lane` is encoded as (0 in rows
    /// of more than four lanes, whose lanes each have the one-lane format).
    pub(crate) fn output_lane(&self, lane: u32) -> u32 {
        if self.rows.is_some() { 0 } else { lane }
    }

    /// Bytes from one output row to the next.
    pub(crate) fn output_stride(&self) -> u64 {
        self.rows
            .as_ref()
            .map_or(self.output.byte_length(), GpuDataStructFormat::byte_stride)
    }

    /// The output's data format.
    pub(crate) fn output_format(&self) -> GpuDataFormat {
        match &self.rows {
            Some(rows) => GpuDataFormat::Struct(rows.clone()),
            None => GpuDataFormat::Vector(GpuVectorFormat::Fixed(self.output)),
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
        OperandKind::Literal(_) | OperandKind::Absorbed(_) => None,
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
            rows: None,
            operands: operands.to_vec(),
        });
    }
    let joined = joined(operands);
    let compute = compute_of(joined);
    let output = packed_output(name, joined, max_lanes(operands))?;
    let mut operands = operands.to_vec();
    let lead = operands
        .iter()
        .take_while(|o| matches!(o, OperandKind::Literal(_)))
        .count();
    if compute != Compute::F32 && lead >= 2 {
        // Literals before the data combine first, in f64, as luma.gl's CPU backend computes
        // them; the integer steps then take their combination.
        let lanes: [f64; 4] = std::array::from_fn(|lane| {
            let mut values = operands[..lead].iter().filter_map(|o| match o {
                OperandKind::Literal(l) => Some(l.lane(lane as u32)),
                _ => None,
            });
            let first = values.next().unwrap_or(0.0);
            values.fold(first, |a, b| match op {
                ArithmeticOp::Add => a + b,
                ArithmeticOp::Subtract => a - b,
                ArithmeticOp::Multiply => a * b,
                ArithmeticOp::Divide => a / b,
                ArithmeticOp::Remainder => a % b,
            })
        });
        let combined = Literal::vector(&lanes)?;
        for o in &mut operands[1..lead] {
            *o = OperandKind::Absorbed(o.lanes() as usize);
        }
        operands[0] = OperandKind::Literal(combined);
    }
    if op == ArithmeticOp::Remainder && compute != Compute::F32 {
        // No exact steps for remainders: a literal that is not an integer of the range is
        // refused rather than given a rule of its own.
        for o in &operands {
            if let OperandKind::Literal(l) = o
                && exact::needs_params(l, compute)
            {
                return Err(OpError::InvalidArgument {
                    op: name,
                    argument: "a literal of an integer remainder",
                    expected: "an integer of the computation's range, NaN or infinite",
                    found: format!("{:?}", l.lanes()),
                });
            }
        }
    }
    Ok(Semantics {
        op: name,
        program: Program::Fold(op),
        compute,
        output,
        rows: None,
        operands,
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
        rows: None,
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
        rows: None,
        operands: operands.to_vec(),
    })
}

/// The name of a comparison node (`less`, `not_equal`).
pub(crate) const fn comparison_name(cmp: Comparison) -> &'static str {
    match cmp {
        Comparison::Less => "less",
        Comparison::LessEqual => "less_equal",
        Comparison::Greater => "greater",
        Comparison::GreaterEqual => "greater_equal",
        Comparison::Equal => "equal",
        Comparison::NotEqual => "not_equal",
    }
}

/// `a cmp b`, lane by lane with the arithmetic lane rule: `uint32` lanes of 1 or 0, as many as
/// the wider operand has. Operands are compared as they arrive (no type join).
pub(crate) fn compare(cmp: Comparison, operands: &[OperandKind]) -> Result<Semantics, OpError> {
    let name = comparison_name(cmp);
    check_operands(name, operands)?;
    if operands.len() != 2 {
        return Err(OpError::Arity {
            op: name,
            expected: 2,
            found: operands.len(),
        });
    }
    Ok(Semantics {
        op: name,
        program: Program::Compare(cmp),
        compute: Compute::U32,
        output: packed_output(name, DataType::Uint32, max_lanes(operands))?,
        rows: None,
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
        rows: None,
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
        rows: None,
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
        rows: None,
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
            rows: None,
            operands: operands.to_vec(),
        });
    }
    let lanes: usize = operands.iter().map(|o| o.lanes() as usize).sum();
    let joined = joined(operands);
    let entries = operands
        .iter()
        .enumerate()
        .flat_map(|(i, o)| (0..o.lanes()).map(move |l| (i, l)))
        .collect();
    let (output, rows) = if lanes > 4 {
        (
            packed_output(OP, joined, 1)?,
            Some(lane_rows(OP, joined, lanes)?),
        )
    } else {
        (packed_output(OP, joined, lanes as u32)?, None)
    };
    Ok(Semantics {
        op: OP,
        program: Program::Gather(entries),
        compute: compute_of(joined),
        output,
        rows,
        operands: operands.to_vec(),
    })
}

/// The row format of `lanes` (more than four) values of `data_type`, one after another as in a
/// column of that many lanes: a packed struct whose field `lanes{k}` holds lanes `k..k + 4` in
/// the 4-lane format (the last field fewer; three 8- or 16-bit lanes, which have no WebGPU
/// format, as a 2-lane and a 1-lane field).
///
/// # Errors
/// [`OpError::OutputLanes`] for more lanes than a struct format holds fields for.
pub(crate) fn lane_rows(
    op: &'static str,
    data_type: DataType,
    lanes: usize,
) -> Result<GpuDataStructFormat, OpError> {
    let mut fields = Vec::new();
    let mut first = 0;
    while first < lanes {
        let mut n = (lanes - first).min(4) as u32;
        if format_of(data_type, n).is_some_and(VertexFormat::is_webgl_only) {
            n = 2;
        }
        let format = packed_output(op, data_type, n)?;
        fields.push((format!("lanes{first}"), format));
        first += n as usize;
    }
    GpuDataStructFormat::new(StructLayout::Packed, fields)
        .map_err(|_| OpError::OutputLanes { op, lanes })
}
