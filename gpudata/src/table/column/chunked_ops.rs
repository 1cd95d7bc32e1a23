//! Element-wise operations on chunked columns: the arithmetic family (`add`, `subtract`,
//! `multiply`, `divide`) and the math family (`pow`, `sqrt`, `abs`, `sin`, `cos`, `tan`, `exp`,
//! `log`) over [`GpuVector`] operands, run piece by piece ([`GpuVector::map_chunks`]: inputs
//! chunked alike or differently) by the same kernels as one-buffer data, beside constants and
//! literals that hold for every row. A thin adapter over `ops`: the kernels, type joins and
//! errors are `ops::arithmetic`'s and `ops::math`'s.

use crate::data::GpuData;
use crate::device::Gpu;
use crate::kernels::OpError;
use crate::ops::{self, ArithmeticOp, Constant, Literal, MathOp, Operand};
use crate::table::ChunkMapError;

use super::chunked::ChunkPiece;
use super::vector::GpuVector;

/// One operand of [`GpuVector::arithmetic`] / [`GpuVector::math`]: a chunked column, or a
/// constant or literal the same for every row (as [`Operand`]'s).
#[derive(Clone, Copy, Debug)]
pub enum ChunkOperand<'a> {
    /// A column of one fixed vertex format, in chunks.
    Vector(&'a GpuVector),
    /// The same float32 value for every row.
    Constant(Constant),
    /// An untyped number that keeps the data's type.
    Literal(Literal),
}

impl<'a> From<&'a GpuVector> for ChunkOperand<'a> {
    fn from(vector: &'a GpuVector) -> Self {
        ChunkOperand::Vector(vector)
    }
}

impl From<Constant> for ChunkOperand<'_> {
    fn from(constant: Constant) -> Self {
        ChunkOperand::Constant(constant)
    }
}

impl From<Literal> for ChunkOperand<'_> {
    fn from(literal: Literal) -> Self {
        ChunkOperand::Literal(literal)
    }
}

impl From<f32> for ChunkOperand<'_> {
    fn from(value: f32) -> Self {
        ChunkOperand::Constant(Constant::scalar(value))
    }
}

#[allow(
    clippy::result_large_err,
    reason = "map_chunks' error with ops' OpError inside, as ops returns it; boxing would give chunked operations errors of another shape than one-buffer ones"
)]
/// Runs `run` on every piece of `operands`' vectors, each piece's operands in order (vectors as
/// their piece's rows, constants and literals as given); the outputs are a vector named `name`.
fn piecewise(
    name: &'static str,
    operands: &[ChunkOperand<'_>],
    run: impl Fn(&[Operand<'_>]) -> Result<GpuData, OpError>,
) -> Result<GpuVector, ChunkMapError<OpError>> {
    let vectors: Vec<&GpuVector> = operands
        .iter()
        .filter_map(|o| match o {
            ChunkOperand::Vector(v) => Some(*v),
            _ => None,
        })
        .collect();
    if vectors.is_empty() {
        return Err(ChunkMapError::Piece {
            vector: name.to_owned(),
            first_row: 0,
            rows: 0,
            source: OpError::NoGpuInput { op: name },
        });
    }
    GpuVector::map_chunks(&vectors, name, |pieces: &[ChunkPiece<'_>]| {
        let mut next = pieces.iter();
        let mut piece_operands = Vec::with_capacity(operands.len());
        for operand in operands {
            piece_operands.push(match operand {
                ChunkOperand::Vector(_) => {
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
        run(&piece_operands)
    })
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
}
