//! Fused expressions: an [`Expr`] lowered to the element-wise engine's nodes ([`lower`]), one
//! [`Semantics`] per operation made by the same rules as the one-step operations', then planned
//! as one kernel ([`plan_evaluate`]) whose row code computes every node in turn, each operand
//! read once and the result encoded once; the CPU reference ([`cpu::evaluate`](super::cpu::evaluate))
//! evaluates the same nodes.
//!
//! The kernel's text depends only on the expression's shape: its tree, its columns' formats and
//! layouts, and which kind of number each literal is (an integer of the computation's range, or
//! not); constants and literals travel in the uniform. The device's pipeline cache, keyed by
//! that text, therefore compiles a shape once ([`Gpu::compiled_pipelines`](crate::Gpu::compiled_pipelines)
//! counts).

use super::elementwise::{self, Node, Place};
use super::expr::{Expr, ExprNode};
use super::family::Compute;
use super::input::{Literal, constant_bits};
use super::math::check_arity;
use super::semantics::{self, OperandKind, Program, Semantics};
use crate::data::{GpuConstant, GpuData, GpuDataView};
use crate::device::Gpu;
use crate::format::codec::decoded_type;
use crate::format::{PrimitiveType, VertexFormat};
use crate::ops::kernels::transform::body::ValueRef;
use crate::ops::{OpError, OpPlan, OpsConfig};

/// The operation name of fused expressions, in errors and labels.
pub(crate) const OP: &str = "evaluate";

/// Where an operand of a lowered node comes from.
#[derive(Clone, Debug)]
pub(crate) enum Source {
    /// Column `.0` of the list evaluated over.
    Column(usize),
    /// The uniform entries of a constant or literal (a literal's exact steps' words included).
    Uniform(Vec<[u32; 4]>),
    /// An earlier node's value.
    Node(usize),
}

/// A lowered node: its semantics and its operands' sources.
pub(crate) type Lowered = (Semantics, Vec<Source>);

/// What a sub-expression is once lowered.
#[derive(Clone, Copy)]
enum Value {
    Column(usize, VertexFormat),
    Constant(GpuConstant),
    Literal(Literal),
    Node(usize, VertexFormat),
}

/// `source` inside the node `expr`: [`OpError::Expression`] naming it.
fn at(expr: &Expr, source: OpError) -> OpError {
    OpError::Expression {
        node: expr.to_string(),
        source: Box::new(source),
    }
}

struct Lowering<'c> {
    /// Format and length of each column.
    columns: &'c [(VertexFormat, u64)],
    /// The length of the first column read.
    length: Option<u64>,
    nodes: Vec<Lowered>,
}

impl Lowering<'_> {
    fn value(&mut self, expr: &Expr) -> Result<Value, OpError> {
        match expr.node() {
            ExprNode::Column(i) => match self.columns.get(*i) {
                Some(&(format, _)) => Ok(Value::Column(*i, format)),
                None => Err(at(
                    expr,
                    OpError::InvalidArgument {
                        op: OP,
                        argument: "a column index",
                        expected: "below the number of columns given",
                        found: format!("{i} of {} columns", self.columns.len()),
                    },
                )),
            },
            ExprNode::Constant(c) => Ok(Value::Constant(*c)),
            ExprNode::Literal(l) => Ok(Value::Literal(*l)),
            ExprNode::Arithmetic(op, a, b) => {
                let args = [self.value(a)?, self.value(b)?];
                self.node(expr, &args, true, |k| semantics::fold(*op, k))
            }
            ExprNode::Math(op, args) => {
                let args = args
                    .iter()
                    .map(|a| self.value(a))
                    .collect::<Result<Vec<_>, _>>()?;
                check_arity(*op, args.len()).map_err(|e| at(expr, e))?;
                self.node(expr, &args, true, |k| semantics::math(*op, k))
            }
            ExprNode::Compare(cmp, a, b) => {
                let args = [self.value(a)?, self.value(b)?];
                self.node(expr, &args, false, |k| semantics::compare(*cmp, k))
            }
            ExprNode::Select(c, a, b) => {
                let args = [self.value(c)?, self.value(a)?, self.value(b)?];
                self.node(expr, &args, false, semantics::select)
            }
        }
    }

    /// The node `expr` over `args`, its semantics from `make` (`literals`: whether a literal
    /// keeps the data's type, as in the arithmetic family, or is a float32 constant).
    fn node(
        &mut self,
        expr: &Expr,
        args: &[Value],
        literals: bool,
        make: impl FnOnce(&[OperandKind]) -> Result<Semantics, OpError>,
    ) -> Result<Value, OpError> {
        let kinds: Vec<OperandKind> = args
            .iter()
            .map(|v| match *v {
                Value::Column(_, f) | Value::Node(_, f) => OperandKind::Data(f),
                Value::Constant(c) => OperandKind::Constant(c.format()),
                Value::Literal(l) if literals => OperandKind::Literal(l),
                Value::Literal(l) => OperandKind::Constant(l.to_constant().format()),
            })
            .collect();
        let sem = make(&kinds).map_err(|e| at(expr, e))?;
        let mut sources = Vec::with_capacity(args.len());
        for (i, v) in args.iter().enumerate() {
            sources.push(match *v {
                Value::Column(c, _) => {
                    let found = self.columns[c].1;
                    let expected = *self.length.get_or_insert(found);
                    OpError::check_length(sem.op, i, expected, found).map_err(|e| at(expr, e))?;
                    Source::Column(c)
                }
                Value::Node(k, _) => Source::Node(k),
                Value::Constant(c) => Source::Uniform(vec![constant_bits(&c)]),
                Value::Literal(l) => match sem.operands[i] {
                    OperandKind::Literal(_) | OperandKind::Absorbed(_) => {
                        Source::Uniform(sem.literal_constants(i))
                    }
                    _ => Source::Uniform(vec![constant_bits(&l.to_constant())]),
                },
            });
        }
        let format = sem.output;
        self.nodes.push((sem, sources));
        Ok(Value::Node(self.nodes.len() - 1, format))
    }
}

/// The most nodes an expression [`evaluate`] compiles into one kernel (a shared sub-expression
/// counted each time it is used): past it, one kernel's text and uniform grow past what a
/// device compiles quickly; evaluate such an expression in steps.
pub const MAX_EXPR_NODES: usize = 1024;

/// The deepest an expression [`evaluate`] compiles may nest: lowering and the CPU reference
/// walk the tree recursively, and a chain of thousands of operations (`e = e + x` in a loop)
/// would overflow a thread's stack (a debug build's main thread overflowed at 1,500 levels; 128
/// leave room on a 2 MiB thread).
pub const MAX_EXPR_DEPTH: usize = 128;

/// Column `format` as it is, as one node (an expression that is a bare column).
fn pass(format: VertexFormat) -> Semantics {
    Semantics {
        op: OP,
        program: Program::Gather((0..format.components()).map(|l| (0, l)).collect()),
        compute: match decoded_type(format) {
            PrimitiveType::U32 => Compute::U32,
            PrimitiveType::I32 => Compute::I32,
            PrimitiveType::F32 | PrimitiveType::F16 => Compute::F32,
        },
        output: format,
        rows: None,
        operands: vec![OperandKind::Data(format)],
    }
}

/// `expr` over columns of these formats and lengths as the engine's nodes, every node after
/// those it reads, the last one written out in `output` (or its own format).
///
/// # Errors
/// [`OpError::Expression`] naming the node that cannot be computed (its operation's error
/// inside: a length, lane or operand count mismatch, a column index past the list, a remainder
/// literal refused); [`OpError::NoGpuInput`] for an expression of no column;
/// [`OpError::InvalidArgument`] for an expression past [`MAX_EXPR_NODES`] or
/// [`MAX_EXPR_DEPTH`];
/// [`OpError::InvalidArgument`] for an output format of another lane count, packed or `bgra`.
pub(crate) fn lower(
    expr: &Expr,
    columns: &[(VertexFormat, u64)],
    output: Option<VertexFormat>,
) -> Result<Vec<Lowered>, OpError> {
    let (within, nodes, depth) = expr.within(MAX_EXPR_NODES, MAX_EXPR_DEPTH);
    if !within {
        return Err(OpError::InvalidArgument {
            op: OP,
            argument: "the expression",
            expected: "at most 1024 nodes (MAX_EXPR_NODES), nested at most 128 deep (MAX_EXPR_DEPTH)",
            found: format!("{nodes} nodes or more, nested {depth} deep or more"),
        });
    }
    let mut lowering = Lowering {
        columns,
        length: None,
        nodes: Vec::new(),
    };
    match lowering.value(expr)? {
        Value::Node(..) => {}
        Value::Column(c, format) => lowering.nodes.push((pass(format), vec![Source::Column(c)])),
        Value::Constant(_) | Value::Literal(_) => return Err(OpError::NoGpuInput { op: OP }),
    }
    let mut nodes = lowering.nodes;
    if let (Some(format), Some((root, _))) = (output, nodes.last_mut()) {
        let lanes = root.output_lanes();
        if format.components() != lanes || format.is_packed_bits() || format.is_bgra() {
            return Err(OpError::InvalidArgument {
                op: OP,
                argument: "the output format",
                expected: "a format of the expression's lane count, neither packed nor bgra",
                found: format!("`{format}` for {lanes} lanes"),
            });
        }
        root.output = format;
    }
    Ok(nodes)
}

/// Plans `expr` over `columns` as one kernel, writing `output` (`None`: the format of the
/// expression's last operation, as its one-step operation writes it) with the kernels' tuning
/// `config`, without running it. Columns the expression does not name are not read.
///
/// # Errors
/// `lower`'s ([`OpError::Expression`] naming the node for lengths, lanes and operands that
/// do not fit), the input checks, the device limits and [`OpError::Gpu`].
pub fn plan_evaluate(
    gpu: &Gpu,
    config: &OpsConfig,
    expr: &Expr,
    columns: &[GpuDataView<'_>],
    output: Option<VertexFormat>,
) -> Result<OpPlan<GpuData>, OpError> {
    let shapes: Vec<(VertexFormat, u64)> =
        columns.iter().map(|c| (c.format(), c.length())).collect();
    let lowered = lower(expr, &shapes, output)?;
    let mut views = Vec::new();
    let mut view_of: Vec<Option<usize>> = vec![None; columns.len()];
    let mut constants = Vec::new();
    let mut nodes = Vec::with_capacity(lowered.len());
    for (sem, sources) in lowered {
        let mut places = Vec::with_capacity(sources.len());
        for source in sources {
            places.push(match source {
                Source::Column(c) => {
                    let v = *view_of[c].get_or_insert_with(|| {
                        views.push(columns[c]);
                        views.len() - 1
                    });
                    Place::Data(ValueRef { source: v, rel: 0 })
                }
                Source::Node(k) => Place::Node(k),
                Source::Uniform(entries) => {
                    let first = constants.len();
                    constants.extend(entries);
                    Place::Constant(first)
                }
            });
        }
        nodes.push(Node { sem, places });
    }
    elementwise::plan_nodes(gpu, config, OP, nodes, views, constants)
}

/// Evaluates `expr` over `columns` on `gpu` in one kernel and returns the packed result, in
/// `output` or, for `None`, the format of the expression's last operation.
///
/// ```no_run
/// use gpudata::ops::{self, col, lit};
/// use gpudata::{Gpu, GpuDataView, VertexFormat};
/// # fn f(gpu: &Gpu, views: [GpuDataView<'_>; 3]) -> Result<(), gpudata::OpError> {
/// // `views`: three float32 columns of one length.
/// let fma = col(0) * col(1) + col(2);
/// let out = ops::evaluate(gpu, &fma, &views, None)?;
/// // Scaled and written as float16: one kernel, compiled once for this shape and reused by
/// // every later evaluation of it (other columns of these formats, another literal).
/// let scaled = ops::evaluate(gpu, &(fma * lit(0.5)), &views, Some(VertexFormat::Float16))?;
/// # let _ = (out, scaled);
/// # Ok(()) }
/// ```
///
/// # Errors
/// As [`plan_evaluate`].
pub fn evaluate(
    gpu: &Gpu,
    expr: &Expr,
    columns: &[GpuDataView<'_>],
    output: Option<VertexFormat>,
) -> Result<GpuData, OpError> {
    plan_evaluate(gpu, &OpsConfig::default(), expr, columns, output)?.run(gpu)
}
