//! Operations on chunked columns: a [`GpuVector`] is a [`Chunked`] column of `ops`, so
//! [`ops::piecewise`](piecewise)' one driver runs `ops`' kernels over its chunks; the methods here are
//! one-line delegations to it (the element-wise and lane operations, masks and filters,
//! `extent`, `prefix_sum` and `gather` over the whole column, and [`GpuVector::map_chunks`]
//! for operations of your own).

use crate::data::{GpuData, GpuDataFormat};
use crate::device::Gpu;
use crate::format::GpuVectorFormat;
use crate::ops::piecewise::{self, ChunkPiece, Chunked};
use crate::ops::{ArithmeticOp, GpuMask, LaneOp, MathOp, OpError, OperandOf, PredicateOf};
use crate::table::{ChunkMapError, TableError};

use super::vector::{GpuVector, format_text};

/// One operand of [`GpuVector::arithmetic`] / [`GpuVector::math`] / [`GpuVector::lanes`]: a
/// chunked column, or a constant or literal the same for every row (as
/// [`Operand`](crate::ops::Operand)'s).
pub type ChunkOperand<'a> = OperandOf<&'a GpuVector>;

impl<'a> From<&'a GpuVector> for ChunkOperand<'a> {
    fn from(vector: &'a GpuVector) -> Self {
        ChunkOperand::Data(vector)
    }
}

/// A predicate over chunked columns and masks (see [`PredicateOf`] for the semantics),
/// evaluated by [`GpuVector::mask`].
pub type ChunkedPredicate<'a> = PredicateOf<&'a GpuVector, &'a GpuMask>;

impl Chunked for GpuVector {
    type Error<E> = ChunkMapError<E>;

    fn name(&self) -> &str {
        &self.name
    }

    fn length(&self) -> u64 {
        self.length
    }

    fn format(&self) -> Option<&GpuDataFormat> {
        self.format.as_ref()
    }

    fn chunks(&self) -> &[GpuData] {
        &self.chunks
    }

    /// Refuses a vector of a list format ([`TableError::ChunkedList`]): its chunks' rows hold
    /// several values each, which operations over chunks cannot address row by row.
    fn check_rows<E>(&self) -> Result<(), ChunkMapError<E>> {
        match self
            .vector_format()
            .filter(|f| !matches!(f, GpuVectorFormat::Fixed(_)))
        {
            Some(list) => Err(TableError::ChunkedList {
                vector: self.name.clone(),
                format: list.to_string(),
            }
            .into()),
            None => Ok(()),
        }
    }

    fn length_error<E>(&self, expected: u64) -> ChunkMapError<E> {
        TableError::MapLength {
            vector: self.name.clone(),
            expected,
            found: self.length,
            chunks: self.chunks.len(),
        }
        .into()
    }

    fn mask_length_error<E>(expected: u64, found: u64) -> ChunkMapError<E> {
        TableError::ChunkedMaskLength { expected, found }.into()
    }

    fn piece_error<E>(name: &str, start: u64, end: u64, source: E) -> ChunkMapError<E> {
        ChunkMapError::piece(name, start, end, source)
    }

    fn describe(&self, format: Option<&GpuDataFormat>) -> String {
        format!("gpu vector `{}` of {}", self.name, format_text(format))
    }

    fn from_chunks<E>(name: &str, chunks: Vec<GpuData>) -> Result<Self, ChunkMapError<E>> {
        Ok(GpuVector::from_data(name, chunks)?)
    }
}

impl GpuVector {
    /// Runs `operation` on every piece of rows that lies in one chunk of each input and
    /// collects its outputs, in row order, as the chunks of a new vector named `name`:
    /// [`ops::piecewise::map`](piecewise::map), for operations whose row `i` depends on row `i` of the inputs
    /// only (reductions, scans and gathers over a whole chunked column are
    /// [`extent`](Self::extent), [`prefix_sum`](Self::prefix_sum) and
    /// [`gather`](Self::gather)). The pieces end wherever any input's chunk ends, so inputs
    /// chunked differently work too (each piece hands the operation one [`ChunkPiece`] per
    /// input, in the inputs' order). The inputs of a vector with no rows give one empty piece.
    ///
    /// ```
    /// use gpudata::table::{ChunkOptions, GpuVector};
    ///
    /// let gpu = &gpudata::Gpu::headless()?;
    /// let usage = gpudata::data::DEFAULT_USAGE;
    /// let small = ChunkOptions { rows_per_chunk: Some(2), ..ChunkOptions::default() };
    /// let a = GpuVector::upload_values(gpu, "a", &[1.0f32, 2.0, 3.0], usage, small)?;
    /// let b = GpuVector::upload_values(gpu, "b", &[10.0f32, 20.0, 30.0], usage, ChunkOptions::default())?;
    /// let sum = GpuVector::map_chunks(&[&a, &b], "sum", |p| {
    ///     gpudata::ops::add(gpu, p[0].view().unwrap(), p[1].view().unwrap())
    /// })?;
    /// assert_eq!(sum.chunks().len(), 2);
    /// assert_eq!(sum.read_bytes(gpu)?, bytemuck::cast_slice::<f32, u8>(&[11.0, 22.0, 33.0]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ChunkMapError::Table`] with [`TableError::ChunkedList`] for an input of a list
    /// format, [`TableError::MapLength`] for inputs of different lengths, or what
    /// [`GpuVector::from_data`] reports of the outputs; [`ChunkMapError::Piece`] with the
    /// operation's error (outputs made before it are freed).
    pub fn map_chunks<E>(
        inputs: &[&GpuVector],
        name: impl Into<String>,
        operation: impl FnMut(&[ChunkPiece<'_>]) -> Result<GpuData, E>,
    ) -> Result<GpuVector, ChunkMapError<E>> {
        piecewise::map(inputs, &name.into(), operation)
    }

    /// `op` folded left over `operands` (`((a op b) op c) …`), element-wise over chunked
    /// columns: [`ops::piecewise::arithmetic`](piecewise::arithmetic) ([`ops::arithmetic`](crate::ops::arithmetic())
    /// on each piece of rows that lies in one chunk of every vector operand, the results
    /// collected as the chunks of a new vector named after the operation).
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
    /// [`ChunkMapError::Table`] for vectors of other lengths or list formats;
    /// [`ChunkMapError::Piece`] with `ops::arithmetic`'s error (with [`OpError::NoGpuInput`]
    /// when no operand is a vector).
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it; boxing would give chunked operations errors of another shape than one-buffer ones"
    )]
    pub fn arithmetic(
        gpu: &Gpu,
        op: ArithmeticOp,
        operands: &[ChunkOperand<'_>],
    ) -> Result<GpuVector, ChunkMapError<OpError>> {
        piecewise::arithmetic(gpu, op, operands)
    }

    /// The math function `op` over chunked columns: [`ops::piecewise::math`](piecewise::math).
    ///
    /// # Errors
    /// As [`arithmetic`](Self::arithmetic), with [`ops::math`](crate::ops::math())'s errors.
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn math(
        gpu: &Gpu,
        op: MathOp,
        operands: &[ChunkOperand<'_>],
    ) -> Result<GpuVector, ChunkMapError<OpError>> {
        piecewise::math(gpu, op, operands)
    }

    /// The lane operation `op` over chunked columns: [`ops::piecewise::lanes`](piecewise::lanes).
    ///
    /// # Errors
    /// As [`arithmetic`](Self::arithmetic), with [`ops::lanes`](crate::ops::lanes())' errors.
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn lanes(
        gpu: &Gpu,
        op: &LaneOp,
        operands: &[ChunkOperand<'_>],
    ) -> Result<GpuVector, ChunkMapError<OpError>> {
        piecewise::lanes(gpu, op, operands)
    }

    /// Evaluates `predicate` over chunked columns (and chunked masks) into a [`GpuMask`] in
    /// pieces: [`ops::piecewise::mask`](piecewise::mask).
    ///
    /// ```
    /// use gpudata::ops::PredicateOf;
    /// use gpudata::table::{ChunkOptions, GpuVector};
    ///
    /// let gpu = &gpudata::Gpu::headless()?;
    /// let usage = gpudata::data::DEFAULT_USAGE;
    /// let two = ChunkOptions { rows_per_chunk: Some(2), ..ChunkOptions::default() };
    /// let x = GpuVector::upload_values(gpu, "x", &[1.0f32, 5.0, 3.0, 7.0, 0.5], usage, two)?;
    /// let mask = GpuVector::mask(gpu, &PredicateOf::greater(&x, 2.0f32))?;
    /// assert_eq!(mask.read(gpu)?, [false, true, true, true, false]);
    /// let kept = GpuVector::filter(gpu, &mask, &[&x])?;
    /// assert_eq!(kept[0].read_bytes(gpu)?, bytemuck::cast_slice::<f32, u8>(&[5.0, 3.0, 7.0]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ChunkMapError::Table`] with [`TableError::ChunkedList`] or [`TableError::MapLength`]
    /// for vectors that cannot be split together, [`TableError::ChunkedMaskLength`] for a mask
    /// of another length; [`ChunkMapError::Piece`] with [`ops::mask`](crate::ops::mask())'s
    /// error ([`OpError::NoInputs`] for a predicate without columns or masks,
    /// [`OpError::WrongData`] for chunks of struct rows).
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn mask(
        gpu: &Gpu,
        predicate: &ChunkedPredicate<'_>,
    ) -> Result<GpuMask, ChunkMapError<OpError>> {
        piecewise::mask(gpu, predicate)
    }

    /// The rows `mask` keeps of every column in `columns`, in their order:
    /// [`ops::piecewise::compact`](piecewise::compact).
    ///
    /// # Errors
    /// As [`mask`](Self::mask), with [`ops::compact`](crate::ops::compact())'s error.
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn filter(
        gpu: &Gpu,
        mask: &GpuMask,
        columns: &[&GpuVector],
    ) -> Result<Vec<GpuVector>, ChunkMapError<OpError>> {
        piecewise::compact(gpu, mask, columns)
    }

    /// The minimum and maximum of every lane over all rows of every chunk:
    /// [`ops::piecewise::extent`](piecewise::extent), exactly [`ops::extent`](crate::ops::extent()) of the same
    /// rows in one buffer.
    ///
    /// ```
    /// use gpudata::table::{ChunkOptions, GpuVector};
    ///
    /// let gpu = &gpudata::Gpu::headless()?;
    /// let usage = gpudata::data::DEFAULT_USAGE;
    /// let two = ChunkOptions { rows_per_chunk: Some(2), ..ChunkOptions::default() };
    /// let x = GpuVector::upload_values(gpu, "x", &[3.0f32, 5.0, f32::NAN, -1.0, 4.0], usage, two)?;
    /// let extent = x.extent(gpu)?;
    /// assert_eq!(extent.read_bytes(gpu)?, bytemuck::cast_slice::<f32, u8>(&[-1.0, 5.0]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ChunkMapError::Table`] with [`TableError::ChunkedList`] for a list format;
    /// [`ChunkMapError::Piece`] (named after this vector) with `ops::extent`'s error.
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn extent(&self, gpu: &Gpu) -> Result<GpuData, ChunkMapError<OpError>> {
        piecewise::extent(gpu, self)
    }

    /// The exclusive prefix sum of a one-lane integer column across all its chunks:
    /// [`ops::piecewise::prefix_sum`](piecewise::prefix_sum), exactly [`ops::prefix_sum`](crate::ops::prefix_sum())
    /// of the same rows in one buffer, as a vector named `prefix_sum` whose chunks follow this
    /// vector's.
    ///
    /// ```
    /// use gpudata::table::{ChunkOptions, GpuVector};
    ///
    /// let gpu = &gpudata::Gpu::headless()?;
    /// let usage = gpudata::data::DEFAULT_USAGE;
    /// let two = ChunkOptions { rows_per_chunk: Some(2), ..ChunkOptions::default() };
    /// let counts = GpuVector::upload_values(gpu, "counts", &[3u32, 1, 4, 1, 5], usage, two)?;
    /// let offsets = counts.prefix_sum(gpu)?;
    /// assert_eq!(offsets.chunks().len(), 3);
    /// assert_eq!(offsets.read_bytes(gpu)?, bytemuck::cast_slice::<u32, u8>(&[0, 3, 4, 8, 9, 14]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`extent`](Self::extent), with `ops::prefix_sum`'s error.
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn prefix_sum(&self, gpu: &Gpu) -> Result<GpuVector, ChunkMapError<OpError>> {
        piecewise::prefix_sum(gpu, self)
    }

    /// The rows of this vector at the row indices in `ids`, across all chunks of both:
    /// [`ops::piecewise::gather`](piecewise::gather), exactly [`ops::gather`](crate::ops::gather()) of the same
    /// rows in one buffer, as a vector named after this one, chunked as `ids` is. A
    /// [`GpuData`] of indices becomes a vector with
    /// `GpuVector::from_data("ids", vec![data.share()])`.
    ///
    /// ```
    /// use gpudata::table::{ChunkOptions, GpuVector};
    ///
    /// let gpu = &gpudata::Gpu::headless()?;
    /// let usage = gpudata::data::DEFAULT_USAGE;
    /// let two = ChunkOptions { rows_per_chunk: Some(2), ..ChunkOptions::default() };
    /// let x = GpuVector::upload_values(gpu, "x", &[10.0f32, 11.0, 12.0, 13.0, 14.0], usage, two)?;
    /// let ids = GpuVector::upload_values(gpu, "ids", &[4i32, 0, -1, 2, 9], usage, ChunkOptions::default())?;
    /// let rows = x.gather(gpu, &ids)?;
    /// assert_eq!(rows.read_bytes(gpu)?, bytemuck::cast_slice::<f32, u8>(&[14.0, 10.0, 0.0, 12.0, 0.0]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ChunkMapError::Table`] with [`TableError::ChunkedList`] when this vector or `ids` has
    /// a list format; [`ChunkMapError::Piece`] (named after this vector, over the rows of
    /// `ids`) with `ops::gather`'s error.
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn gather(&self, gpu: &Gpu, ids: &GpuVector) -> Result<GpuVector, ChunkMapError<OpError>> {
        piecewise::gather(gpu, ids, self)
    }
}
