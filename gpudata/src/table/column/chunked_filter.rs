//! Filtering columns larger than one buffer: a predicate over [`GpuVector`]s evaluated into a
//! [`GpuMask`] in pieces (one per piece of rows), and the rows such a mask keeps of chunked
//! columns. Both run piece by piece (the pieces end wherever a vector's chunk or a
//! mask's piece ends) on the same kernels as one-buffer data: `ops::mask` and `ops::compact`,
//! whose semantics and errors they keep.

use crate::device::Gpu;
use crate::ops::OpError;
use crate::ops::{self, GpuMask, PredicateOf};
use crate::table::{ChunkMapError, TableError};

use super::chunked::{ChunkSpan, check_map_inputs, piece_ends, piece_view, pieces_at};
use super::vector::GpuVector;

/// A predicate over chunked columns and masks (see [`PredicateOf`] for the semantics),
/// evaluated by [`GpuVector::mask`].
pub type ChunkedPredicate<'a> = PredicateOf<&'a GpuVector, &'a GpuMask>;

/// Index of `item` in `list` by identity.
fn position<T>(list: &[&T], item: &T) -> Option<usize> {
    list.iter().position(|x| std::ptr::eq(*x, item))
}

/// Pushes `item` onto `list` unless it is there (by identity).
fn collect<'a, T>(list: &mut Vec<&'a T>, item: &'a T) {
    if position(list, item).is_none() {
        list.push(item);
    }
}

impl GpuVector {
    /// Evaluates `predicate` over chunked columns (and chunked masks) into a [`GpuMask`] in pieces:
    /// [`ops::mask`] on every piece of rows that lies in one chunk of each vector and one mask
    /// of each mask, one mask piece per piece. Vectors chunked differently mix, as in
    /// [`map_chunks`](Self::map_chunks).
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
    /// of another length; [`ChunkMapError::Piece`] with [`ops::mask`]'s error
    /// ([`OpError::NoInputs`] for a predicate without columns or masks, [`OpError::WrongData`]
    /// for chunks of struct rows).
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn mask(
        gpu: &Gpu,
        predicate: &ChunkedPredicate<'_>,
    ) -> Result<GpuMask, ChunkMapError<OpError>> {
        const OP: &str = "mask";
        let mut vectors: Vec<&GpuVector> = Vec::new();
        let mut masks: Vec<&GpuMask> = Vec::new();
        let Ok(_) = predicate.try_map::<(), (), std::convert::Infallible>(
            &mut |v| {
                collect(&mut vectors, *v);
                Ok(())
            },
            &mut |m| {
                collect(&mut masks, *m);
                Ok(())
            },
        );
        let no_inputs = || ChunkMapError::piece(OP, 0, 0, OpError::NoInputs { op: OP });
        check_map_inputs(&vectors)?;
        let length = match (vectors.first(), masks.first()) {
            (Some(v), _) => v.length(),
            (None, Some(m)) => m.len(),
            (None, None) => return Err(no_inputs()),
        };
        check_mask_lengths(&masks, length)?;
        let spans: Vec<Vec<ChunkSpan<'_>>> = vectors.iter().map(|v| v.chunk_spans()).collect();
        let cuts: Vec<u64> = masks.iter().flat_map(|m| m.ends()).collect();
        let mut out = Vec::new();
        let mut start = 0u64;
        for end in piece_ends(&spans, &cuts) {
            let piece_error = |source| ChunkMapError::piece(OP, start, end, source);
            let pieces = pieces_at(&spans, start, end);
            let mask_pieces = masks
                .iter()
                .map(|m| m.piece(gpu, start, end))
                .collect::<Result<Vec<_>, _>>()
                .map_err(piece_error)?;
            let on_piece = predicate
                .try_map(
                    &mut |v| {
                        let piece = position(&vectors, *v).and_then(|i| pieces.get(i));
                        piece.map_or(Err(OpError::NoInputs { op: OP }), |p| piece_view(OP, v, p))
                    },
                    &mut |m| {
                        let piece = position(&masks, *m).and_then(|i| mask_pieces.get(i));
                        piece.ok_or(OpError::NoInputs { op: OP })
                    },
                )
                .map_err(piece_error)?;
            out.push(ops::mask(gpu, &on_piece).map_err(piece_error)?);
            start = end;
        }
        Ok(GpuMask::from_masks(out))
    }

    /// The rows `mask` keeps of every column in `columns`, in their order: [`ops::compact`] on
    /// every piece of rows that lies in one chunk of each column and one piece of `mask`, each
    /// column's kept rows collected as the chunks of a new vector of its name and format
    /// (pieces that keep nothing add no chunk; a column that keeps no row has one empty chunk).
    ///
    /// # Errors
    /// As [`mask`](Self::mask): [`ChunkMapError::Table`] for columns that cannot be split
    /// together or a mask of another length ([`TableError::ChunkedMaskLength`]);
    /// [`ChunkMapError::Piece`] with [`ops::compact`]'s error.
    #[allow(
        clippy::result_large_err,
        reason = "map_chunks' error with ops' OpError inside, as ops returns it"
    )]
    pub fn filter(
        gpu: &Gpu,
        mask: &GpuMask,
        columns: &[&GpuVector],
    ) -> Result<Vec<GpuVector>, ChunkMapError<OpError>> {
        const OP: &str = "compact";
        check_map_inputs(columns)?;
        let length = columns.first().map_or(mask.len(), |c| c.length());
        check_mask_lengths(&[mask], length)?;
        let spans: Vec<Vec<ChunkSpan<'_>>> = columns.iter().map(|v| v.chunk_spans()).collect();
        let mut kept: Vec<Vec<crate::data::GpuData>> = columns.iter().map(|_| Vec::new()).collect();
        let mut start = 0u64;
        for end in piece_ends(&spans, &mask.ends()) {
            let piece_error = |source| ChunkMapError::piece(OP, start, end, source);
            let pieces = pieces_at(&spans, start, end);
            let views = columns
                .iter()
                .zip(&pieces)
                .map(|(c, p)| piece_view(OP, c, p))
                .collect::<Result<Vec<_>, _>>()
                .map_err(piece_error)?;
            let part = mask.piece(gpu, start, end).map_err(piece_error)?;
            let compacted = ops::compact(gpu, &part, &views).map_err(piece_error)?;
            for (column, data) in kept.iter_mut().zip(compacted.columns) {
                if compacted.kept > 0 || column.is_empty() {
                    column.push(data);
                } else {
                    data.destroy();
                }
            }
            start = end;
        }
        columns
            .iter()
            .zip(kept)
            .map(|(c, mut chunks)| {
                // Keep the empty first piece only when nothing else was kept.
                if chunks.len() > 1 && chunks[0].length() == 0 {
                    chunks.remove(0).destroy();
                }
                Ok(GpuVector::from_data(c.name(), chunks)?)
            })
            .collect()
    }
}

/// Every mask covers `length` rows.
fn check_mask_lengths(masks: &[&GpuMask], length: u64) -> Result<(), TableError> {
    match masks.iter().find(|m| m.len() != length) {
        Some(m) => Err(TableError::ChunkedMaskLength {
            expected: length,
            found: m.len(),
        }),
        None => Ok(()),
    }
}
