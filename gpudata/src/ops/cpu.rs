//! The CPU reference: every operation over host bytes, with the GPU kernels' semantics and the
//! same checks and errors. Tests compare the GPU against it; it also serves small inputs where a
//! dispatch is not worth it.
//!
//! It takes the GPU operations' shapes over host columns ([`HostInput`]): operands are
//! [`HostOperand`] (`OperandOf<HostInput>`, the GPU's [`Operand`](super::Operand) being
//! `OperandOf<GpuDataView>`), predicates [`HostPredicate`] (`PredicateOf<HostInput, &[bool]>`).
//! One operand list or predicate over column indices runs both ways:
//! [`OperandOf::map_data`](super::OperandOf::map_data) and
//! [`PredicateOf::map`](super::PredicateOf::map) map it to views and to host columns.
//!
//! ```
//! use gpudata::VertexFormat;
//! use gpudata::ops::cpu::{self, HostInput};
//!
//! let a: Vec<u8> = [1.5f32, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect();
//! let b = [10u8, 20];
//! let sum = cpu::add(
//!     HostInput::new(&a, VertexFormat::Float32, 2),
//!     HostInput::new(&b, VertexFormat::Uint8, 2),
//! )?;
//! assert_eq!(sum.format(), VertexFormat::Float32);
//! assert_eq!(sum.bytes(), [11.5f32, 22.0].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
//! # Ok::<(), gpudata::OpError>(())
//! ```

mod aggregate;
mod eval;
mod filter;
mod host;
mod select;
mod sort;

pub use aggregate::{grid_aggregate, group_by, histogram, reduce};
pub use filter::{HostPredicate, compact, mask, prefix_sum};
pub use host::{HostColumn, HostData, HostInput, HostRows};
pub use select::{extent, gather, segmented_map, sequence};
pub use sort::{
    HostSegments, HostSortKey, HostSorted, argsort, argsort_by, segmented_sort, sort, sort_pairs,
    top_k,
};

use super::deinterleave::select_fields;
use super::elementwise::{self, OperandKind, Semantics, literal_bits};
use super::expr::Expr;
use super::family::{ArithmeticOp, MathOp};
use super::fround::{fround_bits, fround_output};
use super::fused::{self, Source};
use super::input::{OperandOf, constant_bits};
use super::interleave::check_interleave;
use super::lanes::{LaneOp, semantics as lane_semantics};
use super::math::check_arity;
use crate::format::VertexFormat;
use crate::layout::GpuDataStructFormat;
use crate::ops::OpError;
use crate::ops::kernels::shape::{unit_count, unit_size};
use eval::HostPlace;

/// One argument of CPU arithmetic: the twin of [`Operand`](super::Operand), over a host column.
pub type HostOperand<'a> = OperandOf<HostInput<'a>>;

impl<'a> From<HostInput<'a>> for HostOperand<'a> {
    fn from(input: HostInput<'a>) -> Self {
        HostOperand::Data(input)
    }
}

/// Runs `sem` (made from `operands`' kinds) on the host: the same length rule and input checks
/// as the kernels, then the engine's evaluation.
fn run(sem: &Semantics, operands: &[HostOperand<'_>]) -> Result<HostColumn, OpError> {
    let name = sem.op;
    let mut length = None;
    let mut places = Vec::with_capacity(operands.len());
    for (i, (operand, kind)) in operands.iter().zip(&sem.operands).enumerate() {
        places.push(match operand {
            HostOperand::Data(input) => {
                let expected = *length.get_or_insert(input.length());
                OpError::check_length(name, i, expected, input.length())?;
                input.check(name, i)?;
                HostPlace::Data(*input)
            }
            HostOperand::Constant(c) => HostPlace::Bits(constant_bits(c)),
            HostOperand::Literal(l) => HostPlace::Bits(match kind {
                OperandKind::Literal(_) => literal_bits(l, sem.compute),
                _ => constant_bits(&l.to_constant()),
            }),
        });
    }
    let length = length.unwrap_or(0);
    Ok(HostColumn {
        format: sem.output,
        length,
        bytes: eval::evaluate(sem, &places, length),
    })
}

fn put_unit(out: &mut Vec<u8>, bits: u32, size: u64) {
    out.extend_from_slice(&bits.to_le_bytes()[..size as usize]);
}

/// `op` folded left over `operands`: the reference of
/// [`ops::arithmetic`](super::arithmetic()).
///
/// # Errors
/// [`OpError::NoInputs`], [`OpError::NoGpuInput`] (constants only),
/// [`OpError::LengthMismatch`], [`OpError::Misaligned`], [`OpError::StrideTooSmall`],
/// [`OpError::OutOfBounds`].
pub fn arithmetic(op: ArithmeticOp, operands: &[HostOperand<'_>]) -> Result<HostColumn, OpError> {
    run(
        &elementwise::fold(op, &elementwise::kinds(operands, HostInput::format, true))?,
        operands,
    )
}

/// `expr` over `columns`, written in `output` (or the format of its last operation): the
/// reference of [`ops::evaluate`](super::evaluate()), the same nodes evaluated one after
/// another, each as its one-step operation stores it.
///
/// # Errors
/// As [`ops::plan_evaluate`](super::plan_evaluate) without the device's; the input checks of
/// the columns it reads.
pub fn evaluate(
    expr: &Expr,
    columns: &[HostInput<'_>],
    output: Option<VertexFormat>,
) -> Result<HostColumn, OpError> {
    let shapes: Vec<(VertexFormat, u64)> =
        columns.iter().map(|c| (c.format(), c.length())).collect();
    let nodes = fused::lower(expr, &shapes, output)?;
    let mut length = None;
    let mut places = Vec::with_capacity(nodes.len());
    for (_, sources) in &nodes {
        let mut node = Vec::with_capacity(sources.len());
        for source in sources {
            node.push(match source {
                Source::Column(c) => {
                    let input = columns[*c];
                    input.check(fused::OP, *c)?;
                    length.get_or_insert(input.length());
                    HostPlace::Data(input)
                }
                Source::Uniform(entries) => {
                    HostPlace::Bits(entries.first().copied().unwrap_or_default())
                }
                Source::Node(k) => HostPlace::Node(*k),
            });
        }
        places.push(node);
    }
    let refs: Vec<(&Semantics, &[HostPlace<'_>])> = nodes
        .iter()
        .zip(&places)
        .map(|((sem, _), p)| (sem, p.as_slice()))
        .collect();
    let length = length.unwrap_or(0);
    let format = nodes
        .last()
        .map_or(VertexFormat::Uint32, |(sem, _)| sem.output);
    Ok(HostColumn {
        format,
        length,
        bytes: eval::evaluate_nodes(&refs, length),
    })
}

/// `a + b`: the reference of [`ops::add`](super::add).
///
/// # Errors
/// As [`arithmetic`].
pub fn add<'a>(
    a: impl Into<HostOperand<'a>>,
    b: impl Into<HostOperand<'a>>,
) -> Result<HostColumn, OpError> {
    arithmetic(ArithmeticOp::Add, &[a.into(), b.into()])
}

/// `op` of `operands` (one, or two for [`MathOp::Pow`]): the reference of
/// [`ops::math`](super::math()).
///
/// # Errors
/// As [`arithmetic`].
pub fn math(op: MathOp, operands: &[HostOperand<'_>]) -> Result<HostColumn, OpError> {
    check_arity(op, operands.len())?;
    run(
        &elementwise::math(op, &elementwise::kinds(operands, HostInput::format, true))?,
        operands,
    )
}

/// `op` over `operands`: the reference of [`ops::lanes`](super::lanes()): a column, or rows for
/// [`LaneOp::InterleaveLanes`] of more than four lanes.
///
/// # Errors
/// As [`ops::plan_lanes`](super::plan_lanes) without the device's.
pub fn lanes(op: &LaneOp, operands: &[HostOperand<'_>]) -> Result<HostData, OpError> {
    let sem = lane_semantics(op, &elementwise::kinds(operands, HostInput::format, false))?;
    let column = run(&sem, operands)?;
    Ok(match sem.rows {
        Some(rows) => HostData::Rows(HostRows::new(rows, column.length, column.bytes)),
        None => HostData::Column(column),
    })
}

/// [`lanes`] of an operation whose result is always a column.
fn lane_column(op: &LaneOp, operands: &[HostOperand<'_>]) -> Result<HostColumn, OpError> {
    run(
        &lane_semantics(op, &elementwise::kinds(operands, HostInput::format, false))?,
        operands,
    )
}

/// `Σ x[l] · y[l]` per row: the reference of [`ops::dot`](super::dot).
///
/// # Errors
/// As [`lanes`].
pub fn dot<'a>(
    x: impl Into<HostOperand<'a>>,
    y: impl Into<HostOperand<'a>>,
) -> Result<HostColumn, OpError> {
    lane_column(&LaneOp::Dot, &[x.into(), y.into()])
}

/// `sqrt(Σ x[l]²)` per row: the reference of [`ops::length`](super::length).
///
/// # Errors
/// As [`lanes`].
pub fn length<'a>(x: impl Into<HostOperand<'a>>) -> Result<HostColumn, OpError> {
    lane_column(&LaneOp::Length, &[x.into()])
}

/// `1` where every lane of `x` equals `y`'s, else `0`: the reference of
/// [`ops::equal_all`](super::equal_all).
///
/// # Errors
/// As [`lanes`].
pub fn equal_all<'a>(
    x: impl Into<HostOperand<'a>>,
    y: impl Into<HostOperand<'a>>,
) -> Result<HostColumn, OpError> {
    lane_column(&LaneOp::EqualAll, &[x.into(), y.into()])
}

/// `when_true` where `condition` is not zero, else `when_false`, lane by lane: the reference
/// of [`ops::select`](super::select).
///
/// # Errors
/// As [`lanes`].
pub fn select<'a>(
    condition: impl Into<HostOperand<'a>>,
    when_true: impl Into<HostOperand<'a>>,
    when_false: impl Into<HostOperand<'a>>,
) -> Result<HostColumn, OpError> {
    lane_column(
        &LaneOp::Select,
        &[condition.into(), when_true.into(), when_false.into()],
    )
}

/// The lanes `columns` of `x`, in that order: the reference of [`ops::swizzle`](super::swizzle).
///
/// # Errors
/// As [`lanes`].
pub fn swizzle<'a>(x: impl Into<HostOperand<'a>>, columns: &[u32]) -> Result<HostColumn, OpError> {
    lane_column(&LaneOp::Swizzle(columns.to_vec()), &[x.into()])
}

/// Each row's lanes of every operand, in order, as one column of the joined type (rows of a
/// struct format past four lanes): the reference of
/// [`ops::interleave_lanes`](super::interleave_lanes).
///
/// # Errors
/// As [`lanes`].
pub fn interleave_lanes(operands: &[HostOperand<'_>]) -> Result<HostData, OpError> {
    lanes(&LaneOp::InterleaveLanes, operands)
}

/// Rows of `format`, field `i` from input `i`, padding zero: the reference of
/// [`ops::interleave`](super::interleave()).
///
/// # Errors
/// [`OpError::NoInputs`], [`OpError::FieldCountMismatch`], [`OpError::FieldFormatMismatch`],
/// [`OpError::LengthMismatch`] and the input checks.
pub fn interleave(
    inputs: &[HostInput<'_>],
    format: &GpuDataStructFormat,
) -> Result<HostRows, OpError> {
    const OP: &str = "interleave";
    check_interleave(OP, inputs.iter().map(HostInput::format), format)?;
    let length = inputs[0].length();
    check_views(OP, inputs, length)?;
    let stride = format.byte_stride() as usize;
    let mut bytes = vec![0u8; length as usize * stride];
    for (input, field) in inputs.iter().zip(format.fields()) {
        let size = unit_size(input.format());
        for row in 0..length {
            let at = row as usize * stride + field.byte_offset() as usize;
            for j in 0..unit_count(input.format()) {
                let bits = input.unit(row, j).to_le_bytes();
                let to = at + (j * size) as usize;
                bytes[to..to + size as usize].copy_from_slice(&bits[..size as usize]);
            }
        }
    }
    Ok(HostRows::new(format.clone(), length, bytes))
}

fn check_views(op: &'static str, views: &[HostInput<'_>], length: u64) -> Result<(), OpError> {
    for (i, view) in views.iter().enumerate() {
        OpError::check_length(op, i, length, view.length())?;
        view.check(op, i)?;
    }
    Ok(())
}

/// Each view copied into a packed column: the reference of
/// [`ops::deinterleave_views`](super::deinterleave_views).
///
/// # Errors
/// [`OpError::NoInputs`], [`OpError::LengthMismatch`] and the input checks.
pub fn deinterleave_views(views: &[HostInput<'_>]) -> Result<Vec<HostColumn>, OpError> {
    const OP: &str = "deinterleave";
    let Some(first) = views.first() else {
        return Err(OpError::NoInputs { op: OP });
    };
    let length = first.length();
    check_views(OP, views, length)?;
    Ok(views
        .iter()
        .map(|view| {
            let format = view.format();
            let size = unit_size(format);
            let mut bytes = Vec::with_capacity((length * format.byte_length()) as usize);
            for row in 0..length {
                for j in 0..unit_count(format) {
                    put_unit(&mut bytes, view.unit(row, j), size);
                }
            }
            HostColumn {
                format,
                length,
                bytes,
            }
        })
        .collect())
}

/// One packed column per field (or per field named in `fields`): the reference of
/// [`ops::deinterleave`](super::deinterleave()).
///
/// # Errors
/// [`OpError::UnknownField`], then as [`deinterleave_views`].
pub fn deinterleave(rows: &HostRows, fields: Option<&[&str]>) -> Result<Vec<HostColumn>, OpError> {
    let selected = select_fields("deinterleave", rows.format(), fields)?;
    let views: Vec<HostInput<'_>> = selected.iter().filter_map(|&i| rows.field_at(i)).collect();
    deinterleave_views(&views)
}

/// `hi = x as f32; lo = (x − hi) as f32` per double of a `uint32x2`/`uint32x4` column (NaNs as
/// `0x7fc00000`): the reference of [`ops::fround`](super::fround()).
///
/// # Errors
/// [`OpError::UnsupportedFormat`] and the input checks.
pub fn fround(input: HostInput<'_>) -> Result<HostColumn, OpError> {
    const OP: &str = "fround";
    let output = fround_output(OP, input.format())?;
    input.check(OP, 0)?;
    let doubles = u64::from(input.format().components() / 2);
    let mut bytes = Vec::with_capacity((input.length() * output.byte_length()) as usize);
    for row in 0..input.length() {
        let splits: Vec<(u32, u32)> = (0..doubles)
            .map(|d| {
                let lo = u64::from(input.unit(row, 2 * d));
                let hi = u64::from(input.unit(row, 2 * d + 1));
                fround_bits(f64::from_bits(hi << 32 | lo))
            })
            .collect();
        for (hi, _) in &splits {
            put_unit(&mut bytes, *hi, 4);
        }
        for (_, lo) in &splits {
            put_unit(&mut bytes, *lo, 4);
        }
    }
    Ok(HostColumn {
        format: output,
        length: input.length(),
        bytes,
    })
}

/// [`fround`] of `values`: a `float32x2` column of `[hi, lo]` rows.
#[must_use]
pub fn fround_f64(values: &[f64]) -> HostColumn {
    let mut bytes = Vec::with_capacity(values.len() * 8);
    for v in values {
        let (hi, lo) = fround_bits(*v);
        put_unit(&mut bytes, hi, 4);
        put_unit(&mut bytes, lo, 4);
    }
    HostColumn {
        format: VertexFormat::Float32x2,
        length: values.len() as u64,
        bytes,
    }
}

/// [`fround`] of the values of an Arrow `Float64Array`: the reference of
/// [`ops::fround_arrow`](super::fround_arrow).
///
/// # Errors
/// [`OpError::WrongData`] for an array with nulls.
#[cfg(feature = "arrow")]
pub fn fround_arrow(array: &arrow_array::Float64Array) -> Result<HostColumn, OpError> {
    let bytes = super::fround::arrow_f64_bytes("fround", array)?;
    fround(HostInput::new(
        bytes,
        VertexFormat::Uint32x2,
        (bytes.len() / 8) as u64,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::StructLayout;

    fn f32s(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    fn as_f32(bytes: &[u8]) -> Vec<f32> {
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    fn as_u32(bytes: &[u8]) -> Vec<u32> {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn spec_vectors_85_to_90() {
        let a: Vec<f32> = (0..12).map(|v| v as f32).collect();
        let b: Vec<f32> = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
            .map(|v| v as f32)
            .to_vec();
        let (ab, bb) = (f32s(&a), f32s(&b));
        let sum = add(
            HostInput::new(&ab, VertexFormat::Float32x2, 6),
            HostInput::new(&bb, VertexFormat::Float32x2, 6),
        )
        .unwrap();
        assert_eq!(
            as_f32(sum.bytes()),
            [0., 1., 3., 4., 6., 7., 9., 10., 12., 13., 15., 16.]
        );

        let ua: Vec<u8> = (0u32..12).flat_map(|v| v.to_le_bytes()).collect();
        let ub = [0u8, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5];
        let sum = add(
            HostInput::new(&ua, VertexFormat::Uint32x2, 6),
            HostInput::new(&ub, VertexFormat::Uint8x2, 6),
        )
        .unwrap();
        assert_eq!(sum.format(), VertexFormat::Uint32x2);
        assert_eq!(
            as_u32(sum.bytes()),
            [0, 1, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16]
        );

        let c = f32s(&[1., -1., 1., -1.]);
        let sum = add(
            HostInput::new(&ab, VertexFormat::Float32x3, 4),
            HostInput::new(&c, VertexFormat::Float32, 4),
        )
        .unwrap();
        assert_eq!(
            as_f32(sum.bytes()),
            [1., 2., 3., 2., 3., 4., 7., 8., 9., 8., 9., 10.]
        );

        let sum = add(HostInput::new(&ab, VertexFormat::Float32x3, 4), 1.0).unwrap();
        assert_eq!(
            as_f32(sum.bytes()),
            (1..=12).map(|v| v as f32).collect::<Vec<_>>()
        );

        let s = [1i8, -1, 1, -1, 1, -1].map(|v| v as u8);
        let sum = arithmetic(
            ArithmeticOp::Add,
            &[
                HostInput::new(&ab, VertexFormat::Float32x2, 6).into(),
                HostInput::new(&bb, VertexFormat::Float32x2, 6).into(),
                HostInput::new(&s, VertexFormat::Sint8, 6).into(),
            ],
        )
        .unwrap();
        assert_eq!(
            as_f32(sum.bytes()),
            [1., 2., 2., 3., 7., 8., 8., 9., 13., 14., 14., 15.]
        );
    }

    #[test]
    fn spec_vectors_91_93_96() {
        let ua: Vec<u8> = (10u32..22).flat_map(|v| v.to_le_bytes()).collect();
        let ub = [0u8, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5];
        let diff = arithmetic(
            ArithmeticOp::Subtract,
            &[
                HostInput::new(&ua, VertexFormat::Uint32x2, 6).into(),
                HostInput::new(&ub, VertexFormat::Uint8x2, 6).into(),
            ],
        )
        .unwrap();
        assert_eq!(
            as_u32(diff.bytes()),
            [10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16]
        );

        let a = f32s(&(0..12).map(|v| v as f32).collect::<Vec<_>>());
        let b = f32s(&[2., 2., -1., -1., 0.5, 0.5, -2., -2.]);
        let product = arithmetic(
            ArithmeticOp::Multiply,
            &[
                HostInput::new(&a, VertexFormat::Float32x3, 4).into(),
                HostInput::new(&b, VertexFormat::Float32x2, 4).into(),
            ],
        )
        .unwrap();
        assert_eq!(
            as_f32(product.bytes()),
            [0., 2., 0., -3., -4., 0., 3., 3.5, 0., -18., -20., 0.]
        );

        let n: Vec<u8> = [
            8u32, 27, 64, 125, 216, 343, 512, 729, 1000, 1331, 1728, 2197,
        ]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
        let d: Vec<u8> = (2u8..14).collect();
        let quotient = arithmetic(
            ArithmeticOp::Divide,
            &[
                HostInput::new(&n, VertexFormat::Uint32x2, 6).into(),
                HostInput::new(&d, VertexFormat::Uint8x2, 6).into(),
            ],
        )
        .unwrap();
        assert_eq!(
            as_u32(quotient.bytes()),
            [4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144, 169]
        );
    }

    #[test]
    fn interleave_then_deinterleave_is_identity() {
        let format = GpuDataStructFormat::parse(
            StructLayout::Packed,
            [
                ("tag", "uint8"),
                ("pair", "uint8x2"),
                ("position", "float32x3"),
            ],
        )
        .unwrap();
        let tag = [1u8, 2, 3];
        let pair = [10u8, 11, 20, 21, 30, 31];
        let position = f32s(&[0., 1., 2., 3., 4., 5., 6., 7., 8.]);
        let rows = interleave(
            &[
                HostInput::new(&tag, VertexFormat::Uint8, 3),
                HostInput::new(&pair, VertexFormat::Uint8x2, 3),
                HostInput::new(&position, VertexFormat::Float32x3, 3),
            ],
            &format,
        )
        .unwrap();
        assert_eq!(rows.bytes().len(), 3 * 16);
        assert_eq!(&rows.bytes()[..4], &[1, 0, 10, 11]);
        let columns = deinterleave(&rows, None).unwrap();
        assert_eq!(columns[0].bytes(), tag);
        assert_eq!(columns[1].bytes(), pair);
        assert_eq!(columns[2].bytes(), position);
    }

    #[test]
    fn spec_vector_145_two_doubles_per_row() {
        let values = [
            core::f64::consts::PI,
            -core::f64::consts::E,
            0.1,
            -1.0 / 3.0,
        ];
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let out = fround(HostInput::new(&bytes, VertexFormat::Uint32x4, 2)).unwrap();
        assert_eq!(out.format(), VertexFormat::Float32x4);
        assert_eq!(
            as_u32(out.bytes()),
            [
                0x4049_0fdb,
                0xc02d_f854,
                0xb3bb_bd2e,
                0xb3b1_4577,
                0x3dcc_cccd,
                0xbeaa_aaab,
                0xb0cc_cccd,
                0x322a_aaab
            ]
        );
    }
}
