//! The tables of a struct's `GpuStruct` constants, from its analysis: struct format entries, row
//! copies and vertex attributes of a flat struct; the leaves of a nested one.

#![allow(
    clippy::cast_possible_truncation,
    reason = "offsets and strides of one row are far below usize::MAX on every target wgpu supports"
)]

use super::facts::{Analysis, leaf_total};
use crate::format::VertexFormat;
use crate::layout::{FLOAT32_PLACEHOLDER, GpuDataStructField, StructLayout, vertex_attribute};
use crate::record::tree::{self, EMPTY_LEAF, Leaf, Msg, fail_with, webgl_leaf};
use crate::record::{FieldCopy, HostShape};

/// The struct format's field entries.
#[must_use]
pub const fn struct_fields<const N: usize>(analysis: &Analysis<N>) -> [GpuDataStructField; N] {
    let mut fields = [const { GpuDataStructField::from_static("", VertexFormat::Float32, 0) }; N];
    let mut k = 0;
    while k < N {
        let field = GpuDataStructField::from_static(
            analysis.names[k],
            analysis.formats[k],
            analysis.layout.offsets[k],
        );
        // The placeholder borrows a `'static` string: forgetting it frees nothing.
        core::mem::forget(core::mem::replace(&mut fields[k], field));
        k += 1;
    }
    fields
}

/// The copies that encode or decode one row, from the analysis and the host field offsets.
#[must_use]
pub const fn row_copies<const N: usize>(
    analysis: &Analysis<N>,
    host_offsets: [usize; N],
) -> [FieldCopy; N] {
    let mut copies = [FieldCopy {
        host: 0,
        gpu: 0,
        len: 0,
    }; N];
    let mut k = 0;
    while k < N {
        copies[k] = FieldCopy {
            host: host_offsets[k],
            gpu: analysis.layout.offsets[k] as usize,
            len: analysis.formats[k].byte_length() as usize,
        };
        k += 1;
    }
    copies
}

/// The vertex attributes, locations counted from `location` (a field without a wgpu format,
/// which [`webgl_index`] finds first, gets `float32`).
#[must_use]
pub const fn vertex_attribute_list<const N: usize>(
    analysis: &Analysis<N>,
    location: u32,
) -> [wgpu::VertexAttribute; N] {
    let mut list = [FLOAT32_PLACEHOLDER; N];
    let mut k = 0;
    while k < N {
        let offset = analysis.layout.offsets[k];
        let shader_location = location.saturating_add(k as u32);
        list[k] = match vertex_attribute(analysis.formats[k], offset, shader_location) {
            Some(attribute) => attribute,
            None => wgpu::VertexAttribute {
                offset,
                shader_location,
                ..FLOAT32_PLACEHOLDER
            },
        };
        k += 1;
    }
    list
}

/// The `L` leaves of a struct on the general path (`host`: the struct's own `GpuType::HOST`);
/// placeholders when the analysis found a problem (which fails the build).
#[must_use]
pub const fn flatten<const L: usize, const N: usize>(
    analysis: &Analysis<N>,
    host: HostShape,
) -> [Leaf; L] {
    let (Some(s), true) = (analysis.structure, analysis.valid) else {
        return [EMPTY_LEAF; L];
    };
    // `L` is the expansion's count (written from the fields' types where the macro counts them
    // itself, see [`lazy_analysis`]): a different count here is a bug of the derive, never a silent
    // table.
    if leaf_total(analysis) != L {
        fail_with(Msg::new().str("gpudata derive: leaf count mismatch (a bug of the derive)"));
    }
    let packed = matches!(analysis.rules, StructLayout::Packed);
    match tree::leaves::<L>(s, host, analysis.space, packed) {
        Ok(leaves) => leaves,
        Err(_) => [EMPTY_LEAF; L],
    }
}

/// The field of the first leaf without a wgpu vertex format.
#[must_use]
pub const fn webgl_field(leaves: &[Leaf]) -> Option<usize> {
    match webgl_leaf(leaves) {
        Some(k) => Some(leaves[k].field),
        None => None,
    }
}
