//! Element-wise operations on chunked columns: the arithmetic family (`add`, `subtract`,
//! `multiply`, `divide`) and the math family (`pow`, `sqrt`, `abs`, `sin`, `cos`, `tan`, `exp`,
//! `log`) and the lane operations (`dot`, `length`, `equalAll`, `select`, `swizzle`,
//! `interleave`) over [`GpuVector`] operands, run piece by piece ([`GpuVector::map_chunks`]: inputs
//! chunked alike or differently) by the same kernels as one-buffer data, beside constants and
//! literals that hold for every row. A thin adapter over `ops`: the kernels, type joins and
//! errors are `ops::arithmetic`'s, `ops::math`'s and `ops::lanes`'.

use crate::data::GpuData;
use crate::device::Gpu;
use crate::ops::OpError;
use crate::ops::{self, ArithmeticOp, LaneOp, MathOp, Operand, OperandOf};
use crate::table::ChunkMapError;

use super::chunked::{ChunkPiece, ChunkSpan, check_map_inputs, piece_ends, pieces_at};
use super::vector::GpuVector;

/// One operand of [`GpuVector::arithmetic`] / [`GpuVector::math`] / [`GpuVector::lanes`]: a
/// chunked column, or a constant or literal the same for every row (as [`Operand`]'s).
pub type ChunkOperand<'a> = OperandOf<&'a GpuVector>;

impl<'a> From<&'a GpuVector> for ChunkOperand<'a> {
    fn from(vector: &'a GpuVector) -> Self {
        ChunkOperand::Data(vector)
    }
}

#[allow(
    clippy::result_large_err,
    reason = "map_chunks' error with ops' OpError inside, as ops returns it; boxing would give chunked operations errors of another shape than one-buffer ones"
)]
/// Runs `run` on every piece of `operands`' vectors, each piece's operands in order (vectors as
/// their piece's rows, constants and literals as given); the outputs are a vector named `name`.
/// The pieces are those of [`GpuVector::map_chunks`], halved again where an output would not
/// fit one buffer ([`OpError::TooLarge`]: outputs wider than their inputs, such as `unorm8x4`
/// becoming `float32x4` or two lanes swizzled into three).
fn piecewise(
    name: &'static str,
    operands: &[ChunkOperand<'_>],
    run: impl Fn(&[Operand<'_>]) -> Result<GpuData, OpError>,
) -> Result<GpuVector, ChunkMapError<OpError>> {
    let vectors: Vec<&GpuVector> = operands
        .iter()
        .filter_map(|o| match o {
            ChunkOperand::Data(v) => Some(*v),
            _ => None,
        })
        .collect();
    if vectors.is_empty() {
        return Err(ChunkMapError::piece(
            name,
            0,
            0,
            OpError::NoGpuInput { op: name },
        ));
    }
    check_map_inputs(&vectors)?;
    let spans: Vec<Vec<ChunkSpan<'_>>> = vectors.iter().map(|v| v.chunk_spans()).collect();
    let mut outputs = Vec::new();
    let mut start = 0u64;
    for end in piece_ends(&spans, &[]) {
        let pieces = pieces_at(&spans, start, end);
        if let Err((first_row, rows, source)) =
            run_fitting(name, operands, &pieces, start, &run, &mut outputs)
        {
            outputs.into_iter().for_each(GpuData::destroy);
            return Err(ChunkMapError::piece(
                name,
                first_row,
                first_row + rows,
                source,
            ));
        }
        start = end;
    }
    Ok(GpuVector::from_data(name, outputs)?)
}

/// Runs `run` on one piece (its first row `first_row` among the vectors'), pushing the output;
/// where the output does not fit one buffer, on each half of the piece instead. The error
/// names the rows it failed on.
fn run_fitting(
    name: &'static str,
    operands: &[ChunkOperand<'_>],
    pieces: &[ChunkPiece<'_>],
    first_row: u64,
    run: &impl Fn(&[Operand<'_>]) -> Result<GpuData, OpError>,
    outputs: &mut Vec<GpuData>,
) -> Result<(), (u64, u64, OpError)> {
    let rows = pieces.first().map_or(0, |p| p.rows);
    match run_piece(name, operands, pieces).and_then(|o| run(&o)) {
        Ok(output) => {
            outputs.push(output);
            Ok(())
        }
        Err(OpError::TooLarge { .. }) if rows > 1 => {
            let half = rows / 2;
            let part = |skip: u64, rows: u64| -> Vec<ChunkPiece<'_>> {
                pieces
                    .iter()
                    .map(|p| ChunkPiece {
                        data: p.data,
                        first: p.first + skip,
                        rows,
                    })
                    .collect()
            };
            run_fitting(name, operands, &part(0, half), first_row, run, outputs)?;
            run_fitting(
                name,
                operands,
                &part(half, rows - half),
                first_row + half,
                run,
                outputs,
            )
        }
        Err(source) => Err((first_row, rows, source)),
    }
}

/// The operands of one piece: vectors as their piece's rows (one piece per vector operand, in
/// order), constants and literals as given.
fn run_piece<'a>(
    name: &'static str,
    operands: &[ChunkOperand<'_>],
    pieces: &[ChunkPiece<'a>],
) -> Result<Vec<Operand<'a>>, OpError> {
    let mut next = pieces.iter();
    let mut piece_operands = Vec::with_capacity(operands.len());
    for operand in operands {
        piece_operands.push(match operand {
            ChunkOperand::Data(_) => {
                let piece = next.next().ok_or(OpError::NoGpuInput { op: name })?;
                match piece.view() {
                    Some(view) => Operand::Data(view),
                    // Not one column: the same refusal as one-buffer data gets.
                    None => Operand::try_from(piece.data)?,
                }
            }
            ChunkOperand::Constant(c) => Operand::Constant(*c),
            ChunkOperand::Literal(l) => Operand::Literal(*l),
        });
    }
    Ok(piece_operands)
}

impl GpuVector {
    /// `op` folded left over `operands` (`((a op b) op c) …`), element-wise over chunked
    /// columns: [`ops::arithmetic`] on each piece of rows that lies in one chunk of every
    /// vector operand, the results collected as the chunks of a new vector (named after the
    /// operation). Columns larger than one buffer, chunked alike or not, and constants and
    /// literals mix as in [`ops::arithmetic`].
    ///
    /// ```
    /// use gpudata::ops::ArithmeticOp;
    /// use gpudata::table::{ChunkOptions, GpuVector};
    ///
    /// let gpu = &gpudata::Gpu::headless()?;
    /// let usage = gpudata::data::DEFAULT_USAGE;
    /// let two = ChunkOptions { rows_per_chunk: Some(2), ..ChunkOptions::default() };
    /// let a = GpuVector::upload_values(gpu, "a", &[1.0f32, 2.0, 3.0], usage, two)?;
    /// let b = GpuVector::upload_values(gpu, "b", &[10.0f32, 20.0, 30.0], usage, ChunkOptions::default())?;
    /// let sum = GpuVector::arithmetic(gpu, ArithmeticOp::Add, &[(&a).into(), (&b).into(), 0.5.into()])?;
    /// assert_eq!(sum.read_bytes(gpu)?, bytemuck::cast_slice::<f32, u8>(&[11.5, 22.5, 33.5]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`GpuVector::map_chunks`]: [`ChunkMapError::Table`] for vectors of other lengths or
    /// list formats; [`ChunkMapError::Piece`] with [`ops::arithmetic`]'s error (with
    /// [`OpError::NoGpuInput`] when no operand is a vector).
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn arithmetic(
        gpu: &Gpu,
        op: ArithmeticOp,
        operands: &[ChunkOperand<'_>],
    ) -> Result<GpuVector, ChunkMapError<OpError>> {
        piecewise(op.as_str(), operands, |o| ops::arithmetic(gpu, op, o))
    }

    /// The math function `op` (`pow` takes base and exponent, the others one operand),
    /// element-wise over chunked columns: [`ops::math`] piece by piece, as
    /// [`arithmetic`](Self::arithmetic) does.
    ///
    /// # Errors
    /// As [`arithmetic`](Self::arithmetic), with [`ops::math`]'s errors.
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn math(
        gpu: &Gpu,
        op: MathOp,
        operands: &[ChunkOperand<'_>],
    ) -> Result<GpuVector, ChunkMapError<OpError>> {
        piecewise(op.as_str(), operands, |o| ops::math(gpu, op, o))
    }

    /// The lane operation `op` (luma.gl's `dot`, `length`, `equalAll`, `select`, `swizzle`,
    /// `interleave`) over chunked columns: [`ops::lanes`] piece by piece, as
    /// [`arithmetic`](Self::arithmetic) does; a number operand is a float32 constant, as there.
    ///
    /// # Errors
    /// As [`arithmetic`](Self::arithmetic), with [`ops::lanes`]' errors.
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn lanes(
        gpu: &Gpu,
        op: &LaneOp,
        operands: &[ChunkOperand<'_>],
    ) -> Result<GpuVector, ChunkMapError<OpError>> {
        piecewise(op.luma_name(), operands, |o| ops::lanes(gpu, op, o))
    }
}
