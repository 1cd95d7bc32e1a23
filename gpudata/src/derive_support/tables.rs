//! A struct's leaves, from its analysis: the one table its `GpuStruct` constants are read from
//! (struct format entries, row copies and vertex attributes are tables of the leaves, made in
//! `record::tree`). A struct of vertex-format fields laid out by the flat engine is a tree of
//! depth 1: each field is its own leaf.

#![allow(
    clippy::cast_possible_truncation,
    reason = "offsets and strides of one row are far below usize::MAX on every target wgpu supports"
)]

use super::facts::{Analysis, leaf_total};
use crate::layout::StructLayout;
use crate::record::HostShape;
use crate::record::tree::{self, EMPTY_LEAF, Leaf, LeafPath, Msg, fail_with, webgl_leaf};

/// The `L` leaves of a struct, host offsets from their field's start: each field its own leaf
/// when the flat engine laid it out (a tree of depth 1: `analysis.structure` is `None`), else
/// the walk of its WGSL struct (`host`: the struct's own `GpuType::HOST`); placeholders when the
/// analysis of a nested struct found a problem (which fails the build).
#[must_use]
pub const fn flatten<const L: usize, const N: usize>(
    analysis: &Analysis<N>,
    host: HostShape,
) -> [Leaf; L] {
    let (Some(s), true) = (analysis.structure, analysis.valid) else {
        if analysis.structure.is_some() {
            return [EMPTY_LEAF; L];
        }
        // A depth-1 tree: `L` is the field count.
        if L != N {
            leaf_count_mismatch();
        }
        let mut leaves = [EMPTY_LEAF; L];
        let mut k = 0;
        while k < N {
            leaves[k] = Leaf {
                field: k,
                name: LeafPath::Field(analysis.names[k]),
                format: Some(analysis.formats[k]),
                gpu: analysis.layout.offsets[k],
                host: 0,
                // The format's bytes: the analysis refuses a field of another size.
                len: analysis.sizes[k],
            };
            k += 1;
        }
        return leaves;
    };
    // `L` is the expansion's count (written from the fields' types where the macro counts them
    // itself, see [`lazy_analysis`]): a different count here is a bug of the derive, never a
    // silent table.
    if leaf_total(analysis) != L {
        leaf_count_mismatch();
    }
    let packed = matches!(analysis.rules, StructLayout::Packed);
    match tree::leaves::<L>(s, host, analysis.space, packed) {
        Ok(leaves) => leaves,
        Err(_) => [EMPTY_LEAF; L],
    }
}

/// Fails: the expansion's leaf count is not the analysis's (a bug of the derive).
const fn leaf_count_mismatch() -> ! {
    fail_with(Msg::new().str("gpudata derive: leaf count mismatch (a bug of the derive)"))
}

/// The field of the first leaf without a wgpu vertex format.
#[must_use]
pub const fn webgl_field(leaves: &[Leaf]) -> Option<usize> {
    match webgl_leaf(leaves) {
        Some(k) => Some(leaves[k].field),
        None => None,
    }
}
