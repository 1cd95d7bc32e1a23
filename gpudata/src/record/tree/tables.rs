//! The tables a flattened struct's constants are made of, read from its leaves in `const`: the
//! leaves themselves ([`leaves`]), their struct format entries, the copies that encode a row or a
//! runtime-sized array's element, and their vertex attributes.

#![allow(
    clippy::cast_possible_truncation,
    reason = "offsets inside one row are far below usize::MAX on every target wgpu supports"
)]

use super::text::LeafName;
use super::walk::{EMPTY_LEAF, Leaf, TreeFault, Walk};
use crate::format::VertexFormat;
use crate::layout::{
    AddressSpace, FLOAT32_PLACEHOLDER, GpuDataStructField, WgslStruct, WgslType, vertex_attribute,
};
use crate::record::FieldCopy;
use crate::record::host_shape::HostShape;

/// All `L` leaves of struct `s` with host shape `host`, field by field, in one pass (host
/// offsets from each field's start): laid out in `space`, or, for a `packed` struct, each placed
/// in order by the packed (WebGPU vertex) rules of the flat engine's
/// [`LayoutCursor`](crate::layout::LayoutCursor), as the analysis placed them.
///
/// # Errors
/// The first leaf's problem, with its field.
#[allow(
    clippy::result_large_err,
    reason = "a const fn cannot box; the fault is a path in a fixed buffer"
)]
pub const fn leaves<const L: usize>(
    s: &WgslStruct,
    host: HostShape,
    space: AddressSpace,
    packed: bool,
) -> Result<[Leaf; L], (usize, TreeFault)> {
    let mut out = [EMPTY_LEAF; L];
    let mut walk = if packed {
        Walk::packing(&mut out, true)
    } else {
        Walk::storing(&mut out, space)
    };
    if let Err(fault) = walk.root(s, host) {
        return Err(fault);
    }
    Ok(out)
}

/// The struct format entries of the leaves.
#[must_use]
pub const fn leaf_fields<const L: usize>(leaves: &'static [Leaf]) -> [GpuDataStructField; L] {
    let mut fields = [const { GpuDataStructField::from_static("", VertexFormat::Float32, 0) }; L];
    let mut k = 0;
    while k < L && k < leaves.len() {
        let leaf = &leaves[k];
        let format = match leaf.format {
            Some(format) => format,
            None => VertexFormat::Float32,
        };
        let field = GpuDataStructField::from_static(leaf.name.as_str(), format, leaf.gpu);
        // The placeholder borrows a `'static` string: forgetting it frees nothing.
        core::mem::forget(core::mem::replace(&mut fields[k], field));
        k += 1;
    }
    fields
}

/// A copy that moves nothing, the placeholder of copy tables.
const NO_COPY: FieldCopy = FieldCopy {
    host: 0,
    gpu: 0,
    len: 0,
};

/// The copies that encode or decode one row, leaf by leaf: each leaf's host offset counts from
/// its field's, `field_hosts[field]`.
#[must_use]
pub const fn leaf_copies<const L: usize>(leaves: &[Leaf], field_hosts: &[usize]) -> [FieldCopy; L] {
    let mut copies = [NO_COPY; L];
    let mut k = 0;
    while k < L && k < leaves.len() {
        let leaf = &leaves[k];
        let field_host = if leaf.field < field_hosts.len() {
            field_hosts[leaf.field]
        } else {
            0
        };
        copies[k] = FieldCopy {
            host: field_host + leaf.host,
            gpu: leaf.gpu as usize,
            len: leaf.len,
        };
        k += 1;
    }
    copies
}

/// The first leaf without a wgpu vertex format (a `-webgl` one), if any.
#[must_use]
pub const fn webgl_leaf(leaves: &[Leaf]) -> Option<usize> {
    let mut k = 0;
    while k < leaves.len() {
        // (`is_webgl_only` is exactly "no wgpu format", and cheaper to evaluate in `const`.)
        match leaves[k].format {
            Some(format) if !format.is_webgl_only() => {}
            _ => return Some(k),
        }
        k += 1;
    }
    None
}

/// The vertex attributes of the leaves, locations counted from `location` (a leaf without a wgpu
/// format, which [`webgl_leaf`] finds first, gets `float32`).
#[must_use]
pub const fn leaf_attributes<const L: usize>(
    leaves: &[Leaf],
    location: u32,
) -> [wgpu::VertexAttribute; L] {
    let mut list = [FLOAT32_PLACEHOLDER; L];
    let mut k = 0;
    while k < L && k < leaves.len() {
        let shader_location = location.saturating_add(k as u32);
        let built = match leaves[k].format {
            Some(format) => vertex_attribute(format, leaves[k].gpu, shader_location),
            None => None,
        };
        list[k] = match built {
            Some(attribute) => attribute,
            None => wgpu::VertexAttribute {
                offset: leaves[k].gpu,
                shader_location,
                ..FLOAT32_PLACEHOLDER
            },
        };
        k += 1;
    }
    list
}

/// The element's shape inside a runtime-sized array's host shape.
const fn element_shape(host: HostShape) -> HostShape {
    match host {
        HostShape::Array { element, .. } => *element,
        other => other,
    }
}

/// Why the elements of a runtime-sized array (`element`, inside the array's host shape `host`,
/// the array named `name`) cannot be encoded leaf by leaf, if they cannot.
#[must_use]
pub const fn element_problem(
    element: &WgslType,
    host: HostShape,
    name: LeafName,
) -> Option<TreeFault> {
    let shape = element_shape(host);
    let mut walk = Walk::counting(AddressSpace::Storage);
    if walk.walk(0, element, shape, name, 0, 0).is_ok() {
        return None;
    }
    let mut walk = Walk::counting(AddressSpace::Storage).named();
    match walk.walk(0, element, shape, name.push("[]"), 0, 0) {
        Err(fault) => Some(fault),
        Ok(()) => None,
    }
}

/// The `L` copies that encode or decode one element of a runtime-sized array (WGSL type `ty`,
/// host shape `host`), offsets from the element's start; empty copies when a leaf has a problem
/// (which the struct's analysis reports, failing the build).
#[must_use]
pub const fn element_copies<const L: usize>(ty: &WgslType, host: HostShape) -> [FieldCopy; L] {
    let mut leaves = [EMPTY_LEAF; L];
    let mut walk = Walk::storing(&mut leaves, AddressSpace::Storage);
    if walk.walk(0, ty, host, LeafName::EMPTY, 0, 0).is_err() {
        return [NO_COPY; L];
    }
    leaf_copies::<L>(&leaves, &[0])
}
