//! [`Expr`]: an element-wise expression over columns (by index), constants and literals, built
//! with Rust's operators and a few methods, and compiled by [`evaluate`](super::evaluate) into
//! one kernel ([`fused`](super::fused)).

use std::fmt;
use std::ops::{Add, Div, Mul, Neg, Rem, Sub};
use std::sync::Arc;

use super::family::{ArithmeticOp, MathOp};
use super::input::Literal;
use super::kernels::Comparison;
use crate::data::GpuConstant;
use crate::format::codec::{self, ShaderScalar};

/// An element-wise expression: columns (by their index in the list [`evaluate`](super::evaluate)
/// takes), constants and literals combined by arithmetic (`+ - * / %`, negation), the math
/// functions ([`MathOp`]), comparisons and [`select`](Expr::select).
///
/// ```
/// use gpudata::ops::{Expr, col, lit};
///
/// // a * b + c, then where it is below 10, that value, else 0.
/// let fma = col(0) * col(1) + col(2);
/// let clipped = Expr::select(fma.clone().less(lit(10.0)), fma, lit(0.0));
/// assert_eq!(clipped.to_string(), "select((((c0 * c1) + c2) < 10), ((c0 * c1) + c2), 0)");
/// ```
///
/// Operands convert into expressions: an `f32` is a float32 constant and a [`GpuConstant`] a
/// typed one (both join the types as a column of their format), a [`Literal`] ([`lit`]) an
/// untyped number that keeps the data's type, as in the one-step operations.
///
/// Every node means exactly what its one-step operation means ([`add`](super::add),
/// [`sqrt`](super::sqrt), [`select`](super::select), ...): its type joins its operands' types
/// and its value is the value that operation would store, in its output format (integers
/// wrapped to their width, floats rounded), which the next node reads. A fused expression
/// therefore equals the chain of one-step operations bit for bit, however it is grouped.
/// Comparisons give `uint32` lanes of 1 and 0, comparing integers exactly (across
/// signedness) and anything with a float in `f32`; NaN compares false except with
/// [`not_equal`](Expr::not_equal); `-0 == +0`; a literal is compared as a float32 constant.
///
/// An expression holds no data: it is a shape, cheap to clone, and evaluating it over columns
/// of the same formats and layouts reuses the compiled kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr(Arc<ExprNode>);

/// One node of an [`Expr`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ExprNode {
    /// Column `.0` of the list evaluated over.
    Column(usize),
    /// A typed constant.
    Constant(GpuConstant),
    /// An untyped literal.
    Literal(Literal),
    /// `a op b`.
    Arithmetic(ArithmeticOp, Expr, Expr),
    /// A math function of one or two operands.
    Math(MathOp, Vec<Expr>),
    /// `a cmp b`.
    Compare(Comparison, Expr, Expr),
    /// `select(condition, when_true, when_false)`.
    Select(Expr, Expr, Expr),
}

impl ExprNode {
    /// The node's operands.
    fn children(&self) -> Vec<&Expr> {
        match self {
            ExprNode::Column(_) | ExprNode::Constant(_) | ExprNode::Literal(_) => Vec::new(),
            ExprNode::Arithmetic(_, a, b) | ExprNode::Compare(_, a, b) => vec![a, b],
            ExprNode::Math(_, operands) => operands.iter().collect(),
            ExprNode::Select(c, t, f) => vec![c, t, f],
        }
    }

    /// The node's operands, moved out (each replaced by a shared leaf), for [`Expr`]'s drop.
    fn take_children(&mut self, into: &mut Vec<Expr>) {
        let leaf = || Expr(Arc::clone(&LEAF));
        match self {
            ExprNode::Column(_) | ExprNode::Constant(_) | ExprNode::Literal(_) => {}
            ExprNode::Arithmetic(_, a, b) | ExprNode::Compare(_, a, b) => {
                into.push(std::mem::replace(a, leaf()));
                into.push(std::mem::replace(b, leaf()));
            }
            ExprNode::Math(_, operands) => into.append(operands),
            ExprNode::Select(c, t, f) => {
                into.push(std::mem::replace(c, leaf()));
                into.push(std::mem::replace(t, leaf()));
                into.push(std::mem::replace(f, leaf()));
            }
        }
    }
}

/// The leaf that stands in for an operand moved out by [`Expr`]'s drop (shared, so dropping
/// it frees nothing).
static LEAF: std::sync::LazyLock<Arc<ExprNode>> =
    std::sync::LazyLock::new(|| Arc::new(ExprNode::Column(0)));

impl Drop for Expr {
    /// Drops the tree without recursion: a chain of many nodes (`e = e + lit(1.0)` in a loop)
    /// would otherwise drop one stack frame per node and overflow the stack.
    fn drop(&mut self) {
        let mut pending = Vec::new();
        if let Some(node) = Arc::get_mut(&mut self.0) {
            node.take_children(&mut pending);
        }
        while let Some(mut expr) = pending.pop() {
            if let Some(node) = Arc::get_mut(&mut expr.0) {
                node.take_children(&mut pending);
            }
            // `expr` now has no operands of its own (or is shared): it drops shallowly.
        }
    }
}

/// Column `index` of the columns an expression is evaluated over.
#[must_use]
pub fn col(index: usize) -> Expr {
    Expr::column(index)
}

/// An untyped number (a scalar [`Literal`]): it keeps the data's type (`col(0) * lit(2.0)` of
/// `uint8` data stays `uint8`).
#[must_use]
pub fn lit(value: f64) -> Expr {
    Expr::from(Literal::scalar(value))
}

impl Expr {
    fn new(node: ExprNode) -> Expr {
        Expr(Arc::new(node))
    }

    pub(crate) fn node(&self) -> &ExprNode {
        &self.0
    }

    /// Whether the expression has at most `max_nodes` nodes (shared sub-expressions counted
    /// each time they are used) and nests at most `max_depth` deep, walked without recursion
    /// (stopping as soon as a bound is passed): what [`evaluate`](super::evaluate) checks
    /// before it lowers the tree recursively. Returns the nodes and depth counted so far.
    pub(crate) fn within(&self, max_nodes: usize, max_depth: usize) -> (bool, usize, usize) {
        let mut stack: Vec<(&Expr, usize)> = vec![(self, 1)];
        let (mut nodes, mut depth) = (0usize, 0usize);
        while let Some((expr, level)) = stack.pop() {
            nodes += 1;
            depth = depth.max(level);
            if nodes > max_nodes || depth > max_depth {
                return (false, nodes, depth);
            }
            stack.extend(expr.0.children().into_iter().map(|c| (c, level + 1)));
        }
        (true, nodes, depth)
    }

    /// Column `index` of the columns the expression is evaluated over ([`col`]).
    #[must_use]
    pub fn column(index: usize) -> Expr {
        Expr::new(ExprNode::Column(index))
    }

    /// A typed constant (every row the same value of its format).
    #[must_use]
    pub fn constant(constant: GpuConstant) -> Expr {
        Expr::new(ExprNode::Constant(constant))
    }

    /// An untyped literal ([`lit`] for a scalar).
    #[must_use]
    pub fn literal(literal: Literal) -> Expr {
        Expr::new(ExprNode::Literal(literal))
    }

    /// `a op b`, with the rules of [`ops::arithmetic`](super::arithmetic()).
    #[must_use]
    pub fn arithmetic(op: ArithmeticOp, a: impl Into<Expr>, b: impl Into<Expr>) -> Expr {
        Expr::new(ExprNode::Arithmetic(op, a.into(), b.into()))
    }

    /// The math function `op` of `args` (one, or two for [`MathOp::Pow`]; another count is
    /// refused when evaluated), with the rules of [`ops::math`](super::math()).
    #[must_use]
    pub fn math(op: MathOp, args: Vec<Expr>) -> Expr {
        Expr::new(ExprNode::Math(op, args))
    }

    /// `a cmp b`: `uint32` lanes of 1 where it holds, else 0.
    #[must_use]
    pub fn compare(cmp: Comparison, a: impl Into<Expr>, b: impl Into<Expr>) -> Expr {
        Expr::new(ExprNode::Compare(cmp, a.into(), b.into()))
    }

    /// Per lane, `when_true` where `condition` is not zero (NaN is not zero, `-0` is), else
    /// `when_false`, with the rules of [`ops::select`](super::select()).
    #[must_use]
    pub fn select(
        condition: impl Into<Expr>,
        when_true: impl Into<Expr>,
        when_false: impl Into<Expr>,
    ) -> Expr {
        Expr::new(ExprNode::Select(
            condition.into(),
            when_true.into(),
            when_false.into(),
        ))
    }

    /// `self ^ exponent`, in float32.
    #[must_use]
    pub fn pow(self, exponent: impl Into<Expr>) -> Expr {
        Expr::math(MathOp::Pow, vec![self, exponent.into()])
    }

    /// `√self`, in float32.
    #[must_use]
    pub fn sqrt(self) -> Expr {
        Expr::math(MathOp::Sqrt, vec![self])
    }

    /// `|self|`, in its joined type.
    #[must_use]
    pub fn abs(self) -> Expr {
        Expr::math(MathOp::Abs, vec![self])
    }

    /// `sin self`, in float32.
    #[must_use]
    pub fn sin(self) -> Expr {
        Expr::math(MathOp::Sin, vec![self])
    }

    /// `cos self`, in float32.
    #[must_use]
    pub fn cos(self) -> Expr {
        Expr::math(MathOp::Cos, vec![self])
    }

    /// `tan self`, in float32.
    #[must_use]
    pub fn tan(self) -> Expr {
        Expr::math(MathOp::Tan, vec![self])
    }

    /// `e^self`, in float32.
    #[must_use]
    pub fn exp(self) -> Expr {
        Expr::math(MathOp::Exp, vec![self])
    }

    /// `ln self`, in float32.
    #[must_use]
    pub fn log(self) -> Expr {
        Expr::math(MathOp::Log, vec![self])
    }

    /// `self < other`.
    #[must_use]
    pub fn less(self, other: impl Into<Expr>) -> Expr {
        Expr::compare(Comparison::Less, self, other)
    }

    /// `self <= other`.
    #[must_use]
    pub fn less_equal(self, other: impl Into<Expr>) -> Expr {
        Expr::compare(Comparison::LessEqual, self, other)
    }

    /// `self > other`.
    #[must_use]
    pub fn greater(self, other: impl Into<Expr>) -> Expr {
        Expr::compare(Comparison::Greater, self, other)
    }

    /// `self >= other`.
    #[must_use]
    pub fn greater_equal(self, other: impl Into<Expr>) -> Expr {
        Expr::compare(Comparison::GreaterEqual, self, other)
    }

    /// `self == other` (`-0 == +0`; NaN equals nothing).
    #[must_use]
    pub fn equal(self, other: impl Into<Expr>) -> Expr {
        Expr::compare(Comparison::Equal, self, other)
    }

    /// `self != other` (true for NaN).
    #[must_use]
    pub fn not_equal(self, other: impl Into<Expr>) -> Expr {
        Expr::compare(Comparison::NotEqual, self, other)
    }
}

impl From<f32> for Expr {
    /// A float32 constant.
    fn from(value: f32) -> Expr {
        Expr::constant(GpuConstant::from_value(value))
    }
}

impl From<GpuConstant> for Expr {
    fn from(constant: GpuConstant) -> Expr {
        Expr::constant(constant)
    }
}

impl From<Literal> for Expr {
    fn from(literal: Literal) -> Expr {
        Expr::literal(literal)
    }
}

impl From<&Expr> for Expr {
    fn from(expr: &Expr) -> Expr {
        expr.clone()
    }
}

/// `impl Op<R: Into<Expr>> for Expr` and `for &Expr`, one per arithmetic operator.
macro_rules! operators {
    ($($trait:ident $method:ident => $op:ident;)*) => {$(
        impl<R: Into<Expr>> $trait<R> for Expr {
            type Output = Expr;
            fn $method(self, rhs: R) -> Expr {
                Expr::arithmetic(ArithmeticOp::$op, self, rhs)
            }
        }

        impl<R: Into<Expr>> $trait<R> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: R) -> Expr {
                Expr::arithmetic(ArithmeticOp::$op, self.clone(), rhs)
            }
        }
    )*};
}

operators! {
    Add add => Add;
    Sub sub => Subtract;
    Mul mul => Multiply;
    Div div => Divide;
    Rem rem => Remainder;
}

impl Neg for Expr {
    type Output = Expr;

    /// `self * -1` with an untyped `-1`: the exact negation in the operand's own type
    /// (wrapping for integers, `-0` for `+0`).
    fn neg(self) -> Expr {
        self * lit(-1.0)
    }
}

impl Neg for &Expr {
    type Output = Expr;

    fn neg(self) -> Expr {
        -self.clone()
    }
}

impl fmt::Display for Expr {
    /// The expression as it reads: `c0` for column 0, literals as numbers, constants as
    /// `format(lanes)`, operators infix with parentheses, functions by name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.node() {
            ExprNode::Column(i) => write!(f, "c{i}"),
            ExprNode::Literal(l) if l.is_scalar() => write!(f, "{}", l.lanes()[0]),
            ExprNode::Literal(l) => write!(f, "{:?}", l.lanes()),
            ExprNode::Constant(c) => {
                write!(f, "{}(", c.format())?;
                for lane in 0..c.format().components() {
                    if lane > 0 {
                        f.write_str(", ")?;
                    }
                    match codec::decode_lane(c.format(), c.bytes(), lane) {
                        Some(ShaderScalar::F32(v)) => write!(f, "{v}")?,
                        Some(ShaderScalar::I32(v)) => write!(f, "{v}")?,
                        Some(ShaderScalar::U32(v)) => write!(f, "{v}")?,
                        None => f.write_str("?")?,
                    }
                }
                f.write_str(")")
            }
            ExprNode::Arithmetic(op, a, b) => write!(f, "({a} {} {b})", op.symbol()),
            ExprNode::Math(op, args) => {
                write!(f, "{op}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
            ExprNode::Compare(cmp, a, b) => write!(f, "({a} {} {b})", cmp.operator()),
            ExprNode::Select(c, a, b) => write!(f, "select({c}, {a}, {b})"),
        }
    }
}
