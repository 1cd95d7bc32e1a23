//! Filtering chunked columns: a predicate over chunked columns (and masks) evaluated into a
//! [`GpuMask`] in pieces, and the rows such a mask keeps of chunked columns, each piece of rows
//! (cut wherever a column's chunk or a mask's piece ends) run by `ops::mask` and
//! `ops::compact`, whose semantics and errors they keep.

use crate::data::GpuData;
use crate::device::Gpu;
use crate::ops::{GpuMask, OpError, PredicateOf};

use super::column::Chunked;
use super::driver::{Cuts, check, piece_view};

/// Index of `item` in `list` by identity.
fn position<T>(list: &[&T], item: &T) -> Option<usize> {
    list.iter().position(|x| std::ptr::eq(*x, item))
}

/// Pushes `item` onto `list` unless it is there (by identity).
fn remember<'a, T>(list: &mut Vec<&'a T>, item: &'a T) {
    if position(list, item).is_none() {
        list.push(item);
    }
}

/// Every mask covers `length` rows.
fn check_mask_lengths<C: Chunked>(
    masks: &[&GpuMask],
    length: u64,
) -> Result<(), C::Error<OpError>> {
    match masks.iter().find(|m| m.len() != length) {
        Some(m) => Err(C::mask_length_error(length, m.len())),
        None => Ok(()),
    }
}

/// Evaluates `predicate` over chunked columns (and masks in pieces) into a [`GpuMask`] in
/// pieces: [`ops::mask`](crate::ops::mask()) on every piece of rows that lies in one chunk of
/// each column and one piece of each mask, one mask piece per piece. Columns chunked
/// differently mix.
///
/// # Errors
/// The column type's refusals of columns that cannot be cut together or of a mask of another
/// length; the piece error with `ops::mask`'s error ([`OpError::NoInputs`] for a predicate
/// without columns or masks, [`OpError::WrongData`] for chunks of struct rows).
pub fn mask<C: Chunked>(
    gpu: &Gpu,
    predicate: &PredicateOf<&C, &GpuMask>,
) -> Result<GpuMask, C::Error<OpError>> {
    const OP: &str = "mask";
    let mut columns: Vec<&C> = Vec::new();
    let mut masks: Vec<&GpuMask> = Vec::new();
    let Ok(_) = predicate.try_map::<(), (), std::convert::Infallible>(
        &mut |c| {
            remember(&mut columns, *c);
            Ok(())
        },
        &mut |m| {
            remember(&mut masks, *m);
            Ok(())
        },
    );
    check(&columns)?;
    let length = match (columns.first(), masks.first()) {
        (Some(c), _) => c.length(),
        (None, Some(m)) => m.len(),
        (None, None) => return Err(C::piece_error(OP, 0, 0, OpError::NoInputs { op: OP })),
    };
    check_mask_lengths::<C>(&masks, length)?;
    let mask_ends: Vec<u64> = masks.iter().flat_map(|m| m.ends()).collect();
    let cuts = Cuts::new(&columns, &mask_ends);
    let mut out = Vec::new();
    for (start, end, pieces) in cuts.pieces() {
        let piece_error = |source| C::piece_error(OP, start, end, source);
        let mask_pieces = masks
            .iter()
            .map(|m| m.slice(gpu, start, end - start))
            .collect::<Result<Vec<_>, _>>()
            .map_err(piece_error)?;
        let on_piece = predicate
            .try_map(
                &mut |c| {
                    let piece = position(&columns, *c).and_then(|i| pieces.get(i));
                    piece.map_or(Err(OpError::NoInputs { op: OP }), |p| piece_view(OP, *c, p))
                },
                &mut |m| {
                    let piece = position(&masks, *m).and_then(|i| mask_pieces.get(i));
                    piece.ok_or(OpError::NoInputs { op: OP })
                },
            )
            .map_err(piece_error)?;
        out.push(crate::ops::mask(gpu, &on_piece).map_err(piece_error)?);
    }
    Ok(GpuMask::from_masks(out))
}

/// The rows `mask` keeps of every column in `columns`, in their order:
/// [`ops::compact`](crate::ops::compact()) on every piece of rows that lies in one chunk of
/// each column and one piece of `mask`, each column's kept rows collected as the chunks of a
/// new column of its name and format (pieces that keep nothing add no chunk; a column that
/// keeps no row has one empty chunk).
///
/// # Errors
/// As [`mask`], with `ops::compact`'s error.
pub fn compact<C: Chunked>(
    gpu: &Gpu,
    mask: &GpuMask,
    columns: &[&C],
) -> Result<Vec<C>, C::Error<OpError>> {
    const OP: &str = "compact";
    check(columns)?;
    let length = columns.first().map_or(mask.len(), |c| c.length());
    check_mask_lengths::<C>(&[mask], length)?;
    let cuts = Cuts::new(columns, &mask.ends());
    let mut kept: Vec<Vec<GpuData>> = columns.iter().map(|_| Vec::new()).collect();
    for (start, end, pieces) in cuts.pieces() {
        let piece_error = |source| C::piece_error(OP, start, end, source);
        let views = columns
            .iter()
            .zip(&pieces)
            .map(|(c, p)| piece_view(OP, *c, p))
            .collect::<Result<Vec<_>, _>>()
            .map_err(piece_error)?;
        let part = mask.slice(gpu, start, end - start).map_err(piece_error)?;
        let compacted = crate::ops::compact(gpu, &part, &views).map_err(piece_error)?;
        for (column, data) in kept.iter_mut().zip(compacted.columns) {
            if compacted.kept > 0 || column.is_empty() {
                column.push(data);
            } else {
                data.destroy();
            }
        }
    }
    columns
        .iter()
        .zip(kept)
        .map(|(c, mut chunks)| {
            // Keep the empty first piece only when nothing else was kept.
            if chunks.len() > 1 && chunks[0].length() == 0 {
                chunks.remove(0).destroy();
            }
            C::from_chunks(c.name(), chunks)
        })
        .collect()
}
