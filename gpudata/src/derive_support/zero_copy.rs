//! Whether a struct's host bytes are its GPU rows: the `#[gpu(zero_copy)]` check and its
//! messages (a field's offset, implicit padding, the struct's size, a nested type whose bytes
//! differ), `HOST_LAYOUT_MATCHES` of a struct and of a runtime tail's elements;
//! and the check that a `#[gpu(padding)]` field is plain data.

#![allow(
    clippy::cast_possible_truncation,
    reason = "offsets and strides of one row are far below usize::MAX on every target wgpu supports"
)]

use super::facts::{Analysis, Facts, HostFacts, HostField};
use super::messages::image_fix;
use crate::layout::{AddressSpace, ConstLayout, StructLayout, TypeLayout, WgslType};
use crate::record::HostShape;
use crate::record::tree::{LeafName, Msg, image_fault, image_matches};

impl<const N: usize, const M: usize> Facts<N, M> {
    /// Under `zero_copy`, a field whose type's host bytes are not its GPU bytes: in a WGSL
    /// layout, the member at fault inside it and what to change there ([`image::image_fault`],
    /// evaluated only then).
    pub(super) const fn image_problem(
        &self,
        layout: &ConstLayout<N>,
        images: &[bool; N],
    ) -> Option<(usize, Msg)> {
        let (Some(s), Some(host)) = (self.structure, &self.host) else {
            return None;
        };
        let _ = layout;
        let mut j = 0;
        while j < M {
            let field = host.fields[j];
            let packed = matches!(self.layout, StructLayout::Packed);
            if let Some(k) = field.gpu_index
                && self.tree[k]
                && !(if packed {
                    images[k]
                } else {
                    image_matches(&s.members[k].ty, self.hosts[k], field.size, self.space)
                })
            {
                let msg = Msg::new()
                    .str("`#[gpu(zero_copy)]`: field `")
                    .str(field.name)
                    .str("` is `")
                    .str(self.types[k])
                    .str("`, whose host bytes are not its gpu bytes in the ")
                    .str(self.layout.as_str())
                    .str(" layout");
                // (The packed rules place leaves, not members: packed rows report the field.)
                if packed {
                    return Some((j, msg.str(" (its leaves, the vertex attributes, lie elsewhere on the host, or host bytes between them are implicit padding); use a type whose leaves lie back to back as the packed layout places them (such as `glam::Mat4`, `glam::Mat3` or `[[f32; 4]; 4]`, not `glam::Mat3A` or `glam::Vec3A`), or leave out `zero_copy`")));
                }
                let fault = image_fault(
                    &s.members[k].ty,
                    self.hosts[k],
                    self.space,
                    LeafName::new().push(field.name),
                );
                let msg = if fault.path.as_str().len() > field.name.len() {
                    msg.str(" at `").str(fault.path.as_str()).str("`")
                } else {
                    msg
                };
                return Some((j, image_fix(msg, fault.mismatch)));
            }
            j += 1;
        }
        None
    }
}

/// Why the host bytes of a `#[repr(C)]` struct are not its gpu rows (see [`zero_copy_problem`]).
pub(super) const fn host_problem<const N: usize, const M: usize>(
    layout: &ConstLayout<N>,
    host: &HostFacts<M>,
) -> Option<(usize, Msg)> {
    let mut fields = host.fields;
    // Fill in the gpu offsets: host fields name gpu fields by index.
    let mut j = 0;
    while j < M {
        if let Some(k) = fields[j].gpu_index {
            fields[j].gpu_offset = Some(layout.offsets[k]);
        }
        j += 1;
    }
    zero_copy_problem(&fields, host.size, layout.shape.byte_stride)
}

/// Whether a `#[repr(C)]` struct's host bytes are its GPU rows (`HOST_LAYOUT_MATCHES`): every
/// field at its GPU offset with a type whose host bytes are its GPU bytes (a vertex-format
/// field's always are: the analysis checked its size), no implicit padding (the fields' sizes
/// plus `padding_sizes`, the `#[gpu(padding)]` fields' sizes, adding up to the struct's size),
/// the struct as long as the stride.
#[must_use]
pub const fn host_matches_members<const N: usize>(
    analysis: &Analysis<N>,
    host_offsets: [usize; N],
    host_sizes: [usize; N],
    host_size: usize,
    padding_sizes: usize,
) -> bool {
    if !analysis.valid
        || analysis.problem.is_some()
        || host_size as u64 != analysis.layout.shape.byte_stride
    {
        return false;
    }
    let mut covered = padding_sizes;
    let mut k = 0;
    while k < N {
        let image = match (analysis.structure, analysis.rules) {
            (_, StructLayout::Packed) => analysis.packed_images[k],
            (Some(s), _) => image_matches(
                &s.members[k].ty,
                analysis.hosts[k],
                host_sizes[k],
                analysis.space,
            ),
            (None, _) => true,
        };
        if host_offsets[k] as u64 != analysis.layout.offsets[k] || !image {
            return false;
        }
        covered += host_sizes[k];
        k += 1;
    }
    covered == host_size
}

/// Whether a slice of tail elements (WGSL type `ty`, host shape `host`, `size` bytes each) is
/// its GPU bytes: the element's host image is its GPU image and its size is the tail's stride.
#[must_use]
pub const fn element_host_matches(
    ty: &WgslType,
    host: HostShape,
    size: usize,
    layout: TypeLayout,
) -> bool {
    match layout.tail {
        Some(tail) => {
            tail.stride == size as u64 && image_matches(ty, host, size, AddressSpace::Storage)
        }
        None => false,
    }
}

/// Why a `#[repr(C)]` struct's bytes are not its GPU rows: the index of the host field to report
/// at (`fields.len()` for the struct's end) and the message; `None` when they are.
#[must_use]
pub const fn zero_copy_problem(
    fields: &[HostField],
    host_size: usize,
    byte_stride: u64,
) -> Option<(usize, Msg)> {
    const HEAD: &str = "`#[gpu(zero_copy)]`: ";
    let mut at = 0usize;
    let mut j = 0;
    while j < fields.len() {
        let field = fields[j];
        if let Some(gpu) = field.gpu_offset {
            let gpu = gpu as usize;
            if field.offset < gpu {
                let msg = Msg::new()
                    .str(HEAD)
                    .str("field `")
                    .str(field.name)
                    .str("` is at host offset ")
                    .num(field.offset as u64)
                    .str(" but gpu offset ")
                    .num(gpu as u64)
                    .str("; add `#[gpu(padding)] _pad: [u8; ")
                    .num((gpu - at) as u64)
                    .str("]` before `")
                    .str(field.name)
                    .str("`");
                return Some((j, msg));
            }
            if field.offset > gpu {
                let msg = Msg::new()
                    .str(HEAD)
                    .str("field `")
                    .str(field.name)
                    .str("` is at host offset ")
                    .num(field.offset as u64)
                    .str(" but gpu offset ")
                    .num(gpu as u64)
                    .str("; the host places it later, so remove host-only fields before it or use a field type with a smaller alignment (such as an array)");
                return Some((j, msg));
            }
        }
        if field.offset > at {
            let msg = Msg::new()
                .str(HEAD)
                .str("the host struct has ")
                .num((field.offset - at) as u64)
                .str(" bytes of implicit padding before field `")
                .str(field.name)
                .str("`; make them explicit with `#[gpu(padding)] _pad: [u8; ")
                .num((field.offset - at) as u64)
                .str("]` before `")
                .str(field.name)
                .str("`");
            return Some((j, msg));
        }
        at = field.offset + field.size;
        j += 1;
    }
    let stride = byte_stride as usize;
    if host_size > stride {
        let msg = Msg::new()
            .str(HEAD)
            .str("the host struct is ")
            .num(host_size as u64)
            .str(" bytes but the gpu byte stride is ")
            .num(byte_stride)
            .str("; remove host-only fields or `#[repr(align)]` so the struct is ")
            .num(byte_stride)
            .str(" bytes");
        return Some((fields.len(), msg));
    }
    if at < stride {
        let msg = Msg::new()
            .str(HEAD)
            .str("the gpu byte stride is ")
            .num(byte_stride)
            .str(" but the host fields end at byte ")
            .num(at as u64)
            .str("; add `#[gpu(padding)] _pad: [u8; ")
            .num((stride - at) as u64)
            .str("]` after the last field");
        return Some((fields.len(), msg));
    }
    None
}

/// A type a host-only `#[gpu(padding)]` field may have: plain data, so the struct's bytes stay
/// initialized and the field can decode as zeros.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `#[gpu(padding)]` field",
    label = "not plain data",
    note = "padding fields must be `bytemuck::Pod` (every byte initialized, any bit pattern valid), such as `[u8; N]` or `u32`"
)]
pub trait PaddingField: bytemuck::Pod {}

impl<T: bytemuck::Pod> PaddingField for T {}

/// Requires a `#[gpu(padding)]` field type to be plain data.
pub const fn assert_padding<T: PaddingField>() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_copy_problem_names_the_field_and_the_padding() {
        let fields = [
            HostField {
                name: "a",
                gpu_index: None,
                offset: 0,
                size: 4,
                gpu_offset: Some(0),
            },
            HostField {
                name: "b",
                gpu_index: None,
                offset: 4,
                size: 12,
                gpu_offset: Some(16),
            },
        ];
        let (at, msg) = zero_copy_problem(&fields, 16, 32).unwrap();
        assert_eq!(at, 1);
        assert!(
            msg.as_str()
                .contains("add `#[gpu(padding)] _pad: [u8; 12]` before `b`")
        );
        let fixed = [
            fields[0],
            HostField {
                name: "_pad",
                gpu_index: None,
                offset: 4,
                size: 12,
                gpu_offset: None,
            },
            HostField {
                name: "b",
                gpu_index: None,
                offset: 16,
                size: 12,
                gpu_offset: Some(16),
            },
        ];
        let (at, msg) = zero_copy_problem(&fixed, 28, 32).unwrap();
        assert_eq!(at, 3);
        assert!(
            msg.as_str().contains("[u8; 4]` after the last field"),
            "{}",
            msg.as_str()
        );
        assert!(zero_copy_problem(&fixed, 28, 28).is_none());
    }
}
