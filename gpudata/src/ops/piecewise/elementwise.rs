//! Element-wise operations over chunked columns: the arithmetic family, the math functions, the
//! lane operations and fused expressions, each `ops`' own function run on every piece of rows
//! by the driver.

use crate::data::GpuData;
use crate::device::Gpu;
use crate::format::VertexFormat;
use crate::ops::input::column;
use crate::ops::{ArithmeticOp, Expr, LaneOp, MathOp, OpError, Operand, OperandOf};

use super::column::{ChunkPiece, Chunked};
use super::driver::collect;

/// `op` folded left over `operands` (`((a op b) op c) …`), element-wise over chunked columns:
/// [`ops::arithmetic`](crate::ops::arithmetic()) on each piece of rows that lies in one chunk
/// of every column operand, the results collected as the chunks of a new column (named after
/// the operation). Columns chunked alike or not, constants and literals mix as in
/// `ops::arithmetic`. The pieces are halved again where an output would not fit one buffer
/// ([`OpError::TooLarge`]: outputs wider than their inputs, such as `unorm8x4` becoming
/// `float32x4`).
///
/// # Errors
/// The column type's refusals of columns of other lengths or of list formats; the piece error
/// with `ops::arithmetic`'s error on the rows it failed on ([`OpError::NoGpuInput`] on no rows
/// when no operand is a column).
pub fn arithmetic<C: Chunked>(
    gpu: &Gpu,
    op: ArithmeticOp,
    operands: &[OperandOf<&C>],
) -> Result<C, C::Error<OpError>> {
    elementwise(op.as_str(), operands, |o| {
        crate::ops::arithmetic(gpu, op, o)
    })
}

/// The math function `op` (`pow` takes base and exponent, the others one operand),
/// element-wise over chunked columns: [`ops::math`](crate::ops::math()) piece by piece, as
/// [`arithmetic`] runs.
///
/// # Errors
/// As [`arithmetic`], with `ops::math`'s errors.
pub fn math<C: Chunked>(
    gpu: &Gpu,
    op: MathOp,
    operands: &[OperandOf<&C>],
) -> Result<C, C::Error<OpError>> {
    elementwise(op.as_str(), operands, |o| crate::ops::math(gpu, op, o))
}

/// The lane operation `op` (luma.gl's `dot`, `length`, `equalAll`, `select`, `swizzle`,
/// `interleave`) over chunked columns: [`ops::lanes`](crate::ops::lanes()) piece by piece, as
/// [`arithmetic`] runs; a number operand is a float32 constant, as there.
///
/// # Errors
/// As [`arithmetic`], with `ops::lanes`' errors.
pub fn lanes<C: Chunked>(
    gpu: &Gpu,
    op: &LaneOp,
    operands: &[OperandOf<&C>],
) -> Result<C, C::Error<OpError>> {
    elementwise(op.luma_name(), operands, |o| crate::ops::lanes(gpu, op, o))
}

/// The fused expression `expr` over chunked columns: [`ops::evaluate`](crate::ops::evaluate())
/// (one kernel per piece) on each piece of rows that lies in one chunk of every column, the
/// results collected as the chunks of a new column named `evaluate`, halved where an output
/// would not fit one buffer. Every column of `columns` is cut with the others (give the ones
/// the expression names).
///
/// # Errors
/// The column type's refusals of columns of other lengths or of list formats; the piece error
/// with `ops::evaluate`'s error on the rows it failed on ([`OpError::NoGpuInput`] on no rows
/// for no columns).
pub fn evaluate<C: Chunked>(
    gpu: &Gpu,
    expr: &Expr,
    columns: &[&C],
    output: Option<VertexFormat>,
) -> Result<C, C::Error<OpError>> {
    const NAME: &str = "evaluate";
    if columns.is_empty() {
        return Err(C::piece_error(NAME, 0, 0, OpError::NoGpuInput { op: NAME }));
    }
    collect(
        columns,
        NAME,
        |pieces| {
            let views = pieces
                .iter()
                .map(|piece| match piece.view() {
                    Some(view) => Ok(view),
                    None => column("input", piece.data),
                })
                .collect::<Result<Vec<_>, _>>()?;
            crate::ops::evaluate(gpu, expr, &views, output)
        },
        |error| matches!(error, OpError::TooLarge { .. }),
    )
}

/// Runs `run` on every piece of `operands`' columns, each piece's operands in order (columns as
/// their piece's rows, constants and literals as given); the outputs are a column named `name`.
fn elementwise<C: Chunked>(
    name: &'static str,
    operands: &[OperandOf<&C>],
    run: impl Fn(&[Operand<'_>]) -> Result<GpuData, OpError>,
) -> Result<C, C::Error<OpError>> {
    let columns: Vec<&C> = operands.iter().filter_map(|o| o.data().copied()).collect();
    if columns.is_empty() {
        return Err(C::piece_error(name, 0, 0, OpError::NoGpuInput { op: name }));
    }
    collect(
        &columns,
        name,
        |pieces| run(&piece_operands(name, operands, pieces)?),
        |error| matches!(error, OpError::TooLarge { .. }),
    )
}

/// The operands of one piece: columns as their piece's rows (one piece per column operand, in
/// order), constants and literals as given.
fn piece_operands<'a, C>(
    name: &'static str,
    operands: &[OperandOf<&C>],
    pieces: &[ChunkPiece<'a>],
) -> Result<Vec<Operand<'a>>, OpError> {
    let mut next = pieces.iter();
    operands
        .iter()
        .map(|operand| {
            operand.try_map_data(|_| {
                let piece = next.next().ok_or(OpError::NoGpuInput { op: name })?;
                match piece.view() {
                    Some(view) => Ok(view),
                    // Not one column: the same refusal as one-buffer data gets.
                    None => column("input", piece.data),
                }
            })
        })
        .collect()
}
