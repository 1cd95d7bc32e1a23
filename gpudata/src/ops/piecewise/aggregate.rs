//! Aggregations over chunked columns: `reduce`, `histogram`, `group_by` and `grid_aggregate`,
//! their columns (and mask) cut together into pieces of rows that lie in one chunk of each and
//! one piece of the mask, every piece read by the same kernels into one set of accumulators:
//! the one-buffer result of the same rows (for `reduce`'s float sum, a pairwise tree over the
//! pieces within the same bound), with nothing read back between pieces.

use crate::device::Gpu;
use crate::format::VertexFormat;
use crate::ops::aggregate::grid::{GpuGrid, GridSpec, check_positions, plan_grid_pieces};
use crate::ops::aggregate::group::{GpuGroups, GroupKeys, plan_group_by_pieces};
use crate::ops::aggregate::histogram::{GpuHistogram, plan_histogram_pieces};
use crate::ops::aggregate::reduce::{Reduction, plan_reduce_sources};
use crate::ops::aggregate::sources;
use crate::ops::kernels::aggregate::atomics::Piece;
use crate::ops::{GpuMask, OpError, OpsConfig};

use super::column::Chunked;
use super::driver::{Cuts, check, piece_view};

/// The pieces of a cut as views, the key column's format and the value column's.
type Views<'m> = (Vec<Piece<'m>>, VertexFormat, Option<VertexFormat>);

/// The columns (`key`, then `value`) and the mask's slices, cut together: each piece's rows and
/// the mask's slice of them.
struct Cut<'a> {
    parts: Vec<(u64, u64, Vec<super::ChunkPiece<'a>>)>,
    masks: Vec<GpuMask>,
}

/// Cuts `key` and `value` (checked alike) and `mask` (checked against their rows) into pieces.
fn cut<'a, C: Chunked>(
    gpu: &Gpu,
    key: &'a C,
    value: Option<&'a C>,
    mask: Option<&GpuMask>,
) -> Result<Cut<'a>, C::Error<OpError>> {
    let columns: Vec<&C> = std::iter::once(key).chain(value).collect();
    check(&columns)?;
    let length = key.length();
    let ends = match mask {
        Some(m) if m.len() != length => return Err(C::mask_length_error(length, m.len())),
        Some(m) => m.ends(),
        None => Vec::new(),
    };
    let cuts = Cuts::new(&columns, &ends);
    let parts: Vec<_> = cuts.pieces().collect();
    let masks = match mask {
        Some(m) => parts
            .iter()
            .map(|&(start, end, _)| {
                m.slice(gpu, start, end - start)
                    .map_err(|e| C::piece_error(key.name(), start, end, e))
            })
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    Ok(Cut { parts, masks })
}

impl Cut<'_> {
    /// The pieces as views, with the formats of the key and value columns.
    fn pieces<'m, C: Chunked>(
        &'m self,
        op: &'static str,
        key: &C,
        value: Option<&C>,
    ) -> Result<Views<'m>, C::Error<OpError>> {
        let mut pieces = Vec::with_capacity(self.parts.len());
        for (i, (start, end, chunks)) in self.parts.iter().enumerate() {
            let error = |e| C::piece_error(key.name(), *start, *end, e);
            let key_view = piece_view(op, key, &chunks[0]).map_err(error)?;
            let value_view = match value {
                Some(v) => Some(piece_view(op, v, &chunks[1]).map_err(error)?),
                None => None,
            };
            let mask = match self.masks.get(i) {
                Some(m) => Some(m.buffer(op).map_err(error)?),
                None => None,
            };
            pieces.push(Piece {
                key: key_view,
                value: value_view,
                mask,
            });
        }
        let key_format = pieces
            .first()
            .map_or(VertexFormat::Float32, |p| p.key.format());
        let value_format = pieces.first().and_then(|p| p.value.map(|v| v.format()));
        Ok((pieces, key_format, value_format))
    }
}

/// [`ops::reduce`](crate::ops::reduce()) over all chunks of a column (and the pieces of
/// `mask`): the same count, valid count, integer sum, minimum and maximum, and a float sum
/// within the same bound (the pairwise tree runs over every chunk's tiles together); one pass
/// over the rows, one readback of the record.
///
/// # Errors
/// The column type's refusals (a list format, a mask of another row count); the piece error
/// with `ops::reduce`'s error.
pub fn reduce<C: Chunked>(
    gpu: &Gpu,
    column: &C,
    mask: Option<&GpuMask>,
) -> Result<Reduction, C::Error<OpError>> {
    const OP: &str = "reduce";
    let cut = cut(gpu, column, None, mask)?;
    let (pieces, format, _) = cut.pieces(OP, column, None)?;
    plan_reduce_sources(gpu, &sources(&pieces), format, &OpsConfig::default())
        .and_then(|plan| plan.run(gpu))
        .and_then(|record| record.read(gpu))
        .map_err(|e| C::piece_error(column.name(), 0, column.length(), e))
}

/// [`ops::histogram`](crate::ops::histogram()) over all chunks of `values` (and `weights`,
/// chunked alike or not, and the pieces of `mask`): exactly the one-buffer histogram.
///
/// # Errors
/// The column type's refusals; the piece error with `ops::histogram`'s error.
pub fn histogram<C: Chunked>(
    gpu: &Gpu,
    values: &C,
    weights: Option<&C>,
    mask: Option<&GpuMask>,
    bins: u32,
    range: Option<(f32, f32)>,
) -> Result<GpuHistogram, C::Error<OpError>> {
    const OP: &str = "histogram";
    let cut = cut(gpu, values, weights, mask)?;
    let (pieces, key, value) = cut.pieces(OP, values, weights)?;
    plan_histogram_pieces(
        gpu,
        &pieces,
        (key, value),
        bins,
        range,
        &OpsConfig::default(),
    )
    .and_then(|plan| plan.run(gpu))
    .map_err(|e| C::piece_error(values.name(), 0, values.length(), e))
}

/// [`ops::group_by`](crate::ops::group_by()) over all chunks of `keys` (and `values` and the
/// pieces of `mask`): exactly the one-buffer groups (counts, sums, extremes, sparse keys' order;
/// means within WGSL's division accuracy).
///
/// # Errors
/// The column type's refusals; the piece error with `ops::group_by`'s error.
pub fn group_by<C: Chunked>(
    gpu: &Gpu,
    keys: &C,
    values: Option<&C>,
    mask: Option<&GpuMask>,
    groups: GroupKeys,
) -> Result<GpuGroups, C::Error<OpError>> {
    const OP: &str = "group_by";
    let cut = cut(gpu, keys, values, mask)?;
    let (pieces, key, value) = cut.pieces(OP, keys, values)?;
    plan_group_by_pieces(gpu, &pieces, (key, value), groups, &OpsConfig::default())
        .and_then(|plan| plan.run(gpu))
        .map_err(|e| C::piece_error(keys.name(), 0, keys.length(), e))
}

/// [`ops::grid_aggregate`](crate::ops::grid_aggregate()) over all chunks of `positions` (and
/// `values` and the pieces of `mask`): exactly the one-buffer grid.
///
/// # Errors
/// The column type's refusals; the piece error with `ops::grid_aggregate`'s error.
pub fn grid_aggregate<C: Chunked>(
    gpu: &Gpu,
    positions: &C,
    values: Option<&C>,
    mask: Option<&GpuMask>,
    spec: &GridSpec,
) -> Result<GpuGrid, C::Error<OpError>> {
    const OP: &str = "grid_aggregate";
    let cut = cut(gpu, positions, values, mask)?;
    let (pieces, key, value) = cut.pieces(OP, positions, values)?;
    check_positions(key)
        .and_then(|()| plan_grid_pieces(gpu, &pieces, value, spec, &OpsConfig::default()))
        .and_then(|plan| plan.run(gpu))
        .map_err(|e| C::piece_error(positions.name(), 0, positions.length(), e))
}
