//! Row predicates: comparisons of columns with constants or other columns, combined with
//! and/or/not, evaluated into a [`GpuMask`] by [`mask`] (or on the host by
//! [`cpu::mask`](super::cpu::mask)).

use crate::data::GpuDataView;
use crate::device::Gpu;
use crate::format::codec::ShaderScalar;
use crate::ops::kernels::Planner;
use crate::ops::kernels::select::predicate::{self, Node, Side};
use crate::ops::kernels::select::rows;
use crate::ops::mask::GpuMask;
use crate::ops::{Comparison, OpError, OpPlan, OpsConfig};

/// The other side of a comparison: a column of the same rows or a constant.
#[derive(Clone, Copy, Debug)]
pub enum Comparand<C> {
    /// A column, lane by lane (a one-lane column is compared with every lane).
    Column(C),
    /// A constant, compared with every lane: `F32` in `f32`, `I32`/`U32` exactly against
    /// integer columns (and in `f32` against float columns).
    Value(ShaderScalar),
}

impl<C> From<ShaderScalar> for Comparand<C> {
    fn from(value: ShaderScalar) -> Self {
        Comparand::Value(value)
    }
}

impl<C> From<f32> for Comparand<C> {
    fn from(value: f32) -> Self {
        Comparand::Value(ShaderScalar::F32(value))
    }
}

impl<C> From<i32> for Comparand<C> {
    fn from(value: i32) -> Self {
        Comparand::Value(ShaderScalar::I32(value))
    }
}

impl<C> From<u32> for Comparand<C> {
    fn from(value: u32) -> Self {
        Comparand::Value(ShaderScalar::U32(value))
    }
}

impl<'a> From<GpuDataView<'a>> for Comparand<GpuDataView<'a>> {
    fn from(view: GpuDataView<'a>) -> Self {
        Comparand::Column(view)
    }
}

/// A predicate over rows, generic over what a column (`C`) and a mask (`M`) are:
/// [`Predicate`] on the GPU, [`HostPredicate`](super::cpu::HostPredicate) on the host.
///
/// # Semantics
///
/// Columns are compared by their decoded values (as vertex fetch delivers them: normalized
/// formats as floats, `float16` widened): two integers exactly (signed against unsigned too),
/// anything else in `f32`. NaN compares false except with [`Comparison::NotEqual`]; `-0 == +0`.
/// A row of a multi-lane column matches when every lane does (deck.gl's data filter rule); the
/// other side has the same lanes or one. [`between`](Self::between) is `low <= x && x <= high`.
#[derive(Clone, Debug)]
pub enum PredicateOf<C, M> {
    /// `column op other`.
    Compare {
        /// The comparison.
        op: Comparison,
        /// The column.
        column: C,
        /// What it is compared with.
        other: Comparand<C>,
    },
    /// `low <= column && column <= high`.
    Between {
        /// The column.
        column: C,
        /// The lower bound (inclusive).
        low: Comparand<C>,
        /// The upper bound (inclusive).
        high: Comparand<C>,
    },
    /// The rows an existing mask keeps.
    Mask(M),
    /// Every predicate holds (true for none).
    And(Vec<PredicateOf<C, M>>),
    /// Some predicate holds (false for none).
    Or(Vec<PredicateOf<C, M>>),
    /// The predicate does not hold.
    Not(Box<PredicateOf<C, M>>),
}

/// A predicate over GPU columns and masks.
pub type Predicate<'a> = PredicateOf<GpuDataView<'a>, &'a GpuMask>;

impl<C, M> PredicateOf<C, M> {
    /// `column op other`.
    pub fn compare(op: Comparison, column: C, other: impl Into<Comparand<C>>) -> Self {
        PredicateOf::Compare {
            op,
            column,
            other: other.into(),
        }
    }

    /// `column < other`.
    pub fn less(column: C, other: impl Into<Comparand<C>>) -> Self {
        Self::compare(Comparison::Less, column, other)
    }

    /// `column > other`.
    pub fn greater(column: C, other: impl Into<Comparand<C>>) -> Self {
        Self::compare(Comparison::Greater, column, other)
    }

    /// `column == other`.
    pub fn equal(column: C, other: impl Into<Comparand<C>>) -> Self {
        Self::compare(Comparison::Equal, column, other)
    }

    /// `low <= column && column <= high`.
    pub fn between(column: C, low: impl Into<Comparand<C>>, high: impl Into<Comparand<C>>) -> Self {
        PredicateOf::Between {
            column,
            low: low.into(),
            high: high.into(),
        }
    }

    /// `self && other`.
    #[must_use]
    pub fn and(self, other: Self) -> Self {
        PredicateOf::And(vec![self, other])
    }

    /// `self || other`.
    #[must_use]
    pub fn or(self, other: Self) -> Self {
        PredicateOf::Or(vec![self, other])
    }

    /// `!self`.
    #[must_use]
    #[allow(clippy::should_implement_trait)] // A builder, like `and` and `or`.
    pub fn not(self) -> Self {
        PredicateOf::Not(Box::new(self))
    }
}

impl<C, M> PredicateOf<C, M> {
    /// The same tree over other columns and masks: `column` maps each column (and column
    /// comparand), `mask` each mask, in the tree's order; the first error stops it. So one
    /// predicate runs on the GPU ([`Predicate`]) and on the CPU reference
    /// ([`HostPredicate`](super::cpu::HostPredicate)).
    ///
    /// # Errors
    /// The first error of `column` or `mask`.
    pub fn try_map<C2, M2, E>(
        &self,
        column: &mut impl FnMut(&C) -> Result<C2, E>,
        mask: &mut impl FnMut(&M) -> Result<M2, E>,
    ) -> Result<PredicateOf<C2, M2>, E> {
        let side = |c: &Comparand<C>, column: &mut dyn FnMut(&C) -> Result<C2, E>| {
            Ok(match c {
                Comparand::Column(col) => Comparand::Column(column(col)?),
                Comparand::Value(v) => Comparand::Value(*v),
            })
        };
        Ok(match self {
            PredicateOf::Compare {
                op,
                column: c,
                other,
            } => PredicateOf::Compare {
                op: *op,
                column: column(c)?,
                other: side(other, column)?,
            },
            PredicateOf::Between {
                column: c,
                low,
                high,
            } => PredicateOf::Between {
                column: column(c)?,
                low: side(low, column)?,
                high: side(high, column)?,
            },
            PredicateOf::Mask(m) => PredicateOf::Mask(mask(m)?),
            PredicateOf::And(ps) => PredicateOf::And(
                ps.iter()
                    .map(|p| p.try_map(column, mask))
                    .collect::<Result<_, _>>()?,
            ),
            PredicateOf::Or(ps) => PredicateOf::Or(
                ps.iter()
                    .map(|p| p.try_map(column, mask))
                    .collect::<Result<_, _>>()?,
            ),
            PredicateOf::Not(p) => PredicateOf::Not(Box::new(p.try_map(column, mask)?)),
        })
    }
}

impl<C, M> PredicateOf<C, M> {
    /// [`try_map`](Self::try_map) with mappings that cannot fail.
    pub fn map<C2, M2>(
        &self,
        mut column: impl FnMut(&C) -> C2,
        mut mask: impl FnMut(&M) -> M2,
    ) -> PredicateOf<C2, M2> {
        let Ok(mapped) = self
            .try_map::<C2, M2, std::convert::Infallible>(&mut |c| Ok(column(c)), &mut |m| {
                Ok(mask(m))
            });
        mapped
    }
}

impl<C: Copy, M: Copy> PredicateOf<C, M> {
    /// The kernel's form: columns and masks collected (by first use), the tree by index.
    pub(crate) fn lower(&self, columns: &mut Vec<C>, masks: &mut Vec<M>) -> Node {
        let side = |c: &Comparand<C>, columns: &mut Vec<C>| match c {
            Comparand::Column(col) => {
                columns.push(*col);
                Side::Column(columns.len() - 1)
            }
            Comparand::Value(v) => Side::Value(*v),
        };
        match self {
            PredicateOf::Compare { op, column, other } => {
                columns.push(*column);
                let a = Side::Column(columns.len() - 1);
                let b = side(other, columns);
                Node::Compare(*op, a, b)
            }
            PredicateOf::Between { column, low, high } => {
                columns.push(*column);
                let a = Side::Column(columns.len() - 1);
                let lo = side(low, columns);
                let hi = side(high, columns);
                Node::And(vec![
                    Node::Compare(Comparison::GreaterEqual, a, lo),
                    Node::Compare(Comparison::LessEqual, a, hi),
                ])
            }
            PredicateOf::Mask(m) => {
                masks.push(*m);
                Node::Mask(masks.len() - 1)
            }
            PredicateOf::And(ps) => Node::And(ps.iter().map(|p| p.lower(columns, masks)).collect()),
            PredicateOf::Or(ps) => Node::Or(ps.iter().map(|p| p.lower(columns, masks)).collect()),
            PredicateOf::Not(p) => Node::Not(Box::new(p.lower(columns, masks))),
        }
    }
}

/// The row count every column and mask of a predicate shares, checked.
pub(crate) fn predicate_length(
    op: &'static str,
    columns: &[u64],
    masks: &[u64],
) -> Result<u64, OpError> {
    let Some(&length) = columns.iter().chain(masks).next() else {
        return Err(OpError::NoInputs { op });
    };
    for (input, &found) in columns.iter().chain(masks).enumerate() {
        OpError::check_length(op, input, length, found)?;
    }
    Ok(length)
}

/// Plans the evaluation of `predicate` into a new [`GpuMask`].
///
/// # Errors
/// [`OpError::NoInputs`] for a predicate without columns or masks; [`OpError::LengthMismatch`]
/// for columns or masks of different lengths; [`OpError::WrongData`] for a mask in several
/// pieces; [`OpError::LaneMismatch`]; the input checks of
/// every operation ([`OpError::Misaligned`], [`OpError::OutOfBounds`], …); [`OpError::TooLarge`],
/// [`OpError::Gpu`].
pub fn plan_mask(
    gpu: &Gpu,
    predicate: &Predicate<'_>,
    config: &OpsConfig,
) -> Result<OpPlan<GpuMask>, OpError> {
    const OP: &str = "mask";
    let planner = Planner::new(gpu, config);
    let mut columns = Vec::new();
    let mut masks: Vec<&GpuMask> = Vec::new();
    let node = predicate.lower(&mut columns, &mut masks);
    for mask in &masks {
        mask.words(OP)?
            .buffer_on(gpu, "plan an operation")
            .map_err(|source| OpError::Gpu { op: OP, source })?;
    }
    for (i, view) in columns.iter().enumerate() {
        rows::check_view(gpu, OP, i, view)?;
    }
    let lengths: Vec<u64> = columns.iter().map(GpuDataView::length).collect();
    let mask_lengths: Vec<u64> = masks.iter().map(|m| m.len()).collect();
    let length = predicate_length(OP, &lengths, &mask_lengths)?;
    if length > u64::from(u32::MAX) {
        return Err(OpError::TooManyRows {
            op: OP,
            length,
            max: u64::from(u32::MAX),
        });
    }
    let words = predicate::mask_words(length).max(8);
    let output = rows::output_buffer(&planner, OP, words * 4)?;
    let buffers = masks
        .iter()
        .map(|m| m.buffer(OP))
        .collect::<Result<Vec<_>, _>>()?;
    let dispatches = if length == 0 {
        // Still checks lanes.
        predicate::expression(OP, &node, &columns)?;
        Vec::new()
    } else {
        predicate::plan(&planner, OP, &node, &columns, &buffers, length, &output)?
    };
    let read: u64 = columns
        .iter()
        .map(|v| v.length() * v.format().byte_length())
        .sum();
    let mask = GpuMask::from_buffer(gpu, output, length)?;
    Ok(OpPlan::from_dispatches(
        gpu,
        OP,
        dispatches,
        read + length.div_ceil(8),
        mask,
    ))
}

/// Evaluates `predicate` on every row into a new [`GpuMask`]: one kernel, whatever the tree.
///
/// ```no_run
/// use gpudata::ops::{self, Predicate};
/// # fn f(gpu: &gpudata::Gpu, speed: gpudata::GpuDataView<'_>, kind: gpudata::GpuDataView<'_>) -> Result<(), gpudata::OpError> {
/// let fast_cars = ops::mask(gpu, &Predicate::greater(speed, 30.0f32).and(Predicate::equal(kind, 2u32)))?;
/// let kept: Vec<bool> = fast_cars.read(gpu)?;
/// # Ok(()) }
/// ```
///
/// # Errors
/// As [`plan_mask`].
pub fn mask(gpu: &Gpu, predicate: &Predicate<'_>) -> Result<GpuMask, OpError> {
    plan_mask(gpu, predicate, &OpsConfig::default())?.run(gpu)
}

/// `column < other` as a mask (see [`PredicateOf`] for the semantics).
///
/// # Errors
/// As [`plan_mask`].
pub fn less<'a>(
    gpu: &Gpu,
    column: GpuDataView<'a>,
    other: impl Into<Comparand<GpuDataView<'a>>>,
) -> Result<GpuMask, OpError> {
    mask(gpu, &Predicate::less(column, other))
}

/// `column > other` as a mask.
///
/// # Errors
/// As [`plan_mask`].
pub fn greater<'a>(
    gpu: &Gpu,
    column: GpuDataView<'a>,
    other: impl Into<Comparand<GpuDataView<'a>>>,
) -> Result<GpuMask, OpError> {
    mask(gpu, &Predicate::greater(column, other))
}

/// `column == other` as a mask.
///
/// # Errors
/// As [`plan_mask`].
pub fn equal<'a>(
    gpu: &Gpu,
    column: GpuDataView<'a>,
    other: impl Into<Comparand<GpuDataView<'a>>>,
) -> Result<GpuMask, OpError> {
    mask(gpu, &Predicate::equal(column, other))
}

/// `low <= column && column <= high` as a mask.
///
/// # Errors
/// As [`plan_mask`].
pub fn between<'a>(
    gpu: &Gpu,
    column: GpuDataView<'a>,
    low: impl Into<Comparand<GpuDataView<'a>>>,
    high: impl Into<Comparand<GpuDataView<'a>>>,
) -> Result<GpuMask, OpError> {
    mask(gpu, &Predicate::between(column, low, high))
}
