//! Whether a value's host bytes are its GPU bytes (`#[gpu(zero_copy)]`, `HOST_LAYOUT_MATCHES`,
//! a runtime tail's one-`memcpy` upload), and, when they are not, where and what to change: a
//! member's padding, a struct's size, or a type whose elements no padding can separate. `const
//! fn`s over [`WgslType`] and [`HostShape`], laid out by the one layout engine; the explanation
//! ([`image_fault`]) runs only when a `zero_copy` struct fails.

#![allow(
    clippy::cast_possible_truncation,
    reason = "offsets inside one row are far below usize::MAX on every target wgpu supports"
)]

use super::text::LeafName;
use super::walk::{member_place, reinterpret, scalar_bytes, stride};
use crate::layout::{AddressSpace, LeafType, MemberCursor, WgslStruct, WgslType, leaf_layout};
use crate::record::host_shape::{HostMember, HostShape};

/// Whether a value's host bytes (`host_size` of them) are its GPU bytes in `space`: copying
/// them whole puts every GPU byte in place (bytes past the type's size, such as `Vec3A`'s fourth
/// lane, land in the padding that follows it, which the caller checks).
#[must_use]
pub const fn image_matches(
    ty: &WgslType,
    host: HostShape,
    host_size: usize,
    space: AddressSpace,
) -> bool {
    let Ok(layout) = ty.layout(space) else {
        return false;
    };
    let host = match reinterpret(ty, host) {
        Ok(h) => h,
        Err(_) => return false,
    };
    match (ty, host) {
        (_, HostShape::Field(format)) => format.byte_length() as usize == host_size,
        (WgslType::Leaf(_), HostShape::Packed) => {
            scalar_bytes(ty) == host_size && host_size as u64 == layout.size
        }
        (
            WgslType::Leaf(leaf),
            HostShape::Columns {
                stride,
                padding_initialized: true,
            },
        ) => columns_match(*leaf, stride, host_size, space),
        // Padding lanes that may be uninitialized (glam's `scalar-math` `Vec3A`): never copied
        // whole.
        (_, HostShape::Columns { .. }) => false,
        (
            WgslType::Array { element, .. },
            HostShape::Array {
                element: shape,
                stride: host_stride,
            },
        ) => {
            let gpu_stride = stride(element, space);
            gpu_stride == host_stride as u64
                && image_matches(element, *shape, host_stride, space)
                && host_size as u64 == layout.size
        }
        (WgslType::Array { element, .. }, HostShape::Packed) => {
            let gpu_stride = stride(element, space);
            let host_stride = scalar_bytes(element);
            gpu_stride == host_stride as u64
                && image_matches(element, HostShape::Packed, host_stride, space)
                && host_size as u64 == layout.size
        }
        (
            WgslType::Struct(s),
            HostShape::Struct {
                members,
                size,
                padding,
            },
        ) => {
            if size != host_size || size as u64 != layout.size || members.len() != s.members.len() {
                return false;
            }
            let mut covered = padding;
            let mut cursor = MemberCursor::new(space);
            let mut j = 0;
            while j < members.len() {
                let m = members[j];
                let offset = member_place(&mut cursor, &s.members[j], space);
                if !matches!(offset, Some(at) if at == m.offset as u64)
                    || !image_matches(&s.members[j].ty, m.shape, m.size, space)
                {
                    return false;
                }
                covered += m.size;
                j += 1;
            }
            covered == size
        }
        _ => false,
    }
}

/// Whether a vector or matrix whose host columns (each packed, then initialized padding) lie
/// `stride` bytes apart, `host_size` bytes in all, is its GPU bytes in `space`: the columns lie
/// as far apart as the GPU's (a column's alignment) and the host value is one GPU stride per
/// column. A vector's bytes past its size (`Vec3A`'s fourth lane) land in the padding after it,
/// which the caller checks: the next member's offset, the struct's size or the array's stride.
const fn columns_match(
    leaf: LeafType,
    stride: usize,
    host_size: usize,
    space: AddressSpace,
) -> bool {
    let Ok(gpu) = leaf_layout(leaf.column(), space) else {
        return false;
    };
    // Columns: a matrix's, or the vector itself once.
    let Some(total) = (stride as u64).checked_mul(leaf.shape().0 as u64) else {
        return false;
    };
    gpu.alignment == stride as u64 && host_size as u64 == total && total >= gpu.size
}

/// Why a value's host bytes are not its GPU bytes, as what to change (see [`image_fault`]).
/// Struct and member names are WGSL's (a derived struct's Rust name; a field's `name = "..."`
/// when it has one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageMismatch {
    /// Member `member` of struct `within` is at `host` bytes into the host struct but `gpu`
    /// into its GPU bytes. When `host < gpu`, `pad` padding bytes before it put it in place.
    Offset {
        /// The struct's name.
        within: &'static str,
        /// The member's name.
        member: &'static str,
        /// Its host offset.
        host: u64,
        /// Its GPU offset.
        gpu: u64,
        /// The padding to add before it (`host < gpu`).
        pad: u64,
    },
    /// `bytes` of compiler-inserted host padding in struct `within`, before member `before`
    /// (`None`: after its last member).
    ImplicitPadding {
        /// The struct's name.
        within: &'static str,
        /// The member they precede.
        before: Option<&'static str>,
        /// How many.
        bytes: u64,
    },
    /// `bytes` of compiler-inserted host padding in struct `within`, which has host-only
    /// `#[gpu(padding)]` fields, so where is not known.
    HiddenPadding {
        /// The struct's name.
        within: &'static str,
        /// How many.
        bytes: u64,
    },
    /// Struct `within` is `host` bytes on the host but `gpu` on the GPU; when shorter, `pad`
    /// padding bytes after its last member make it as long.
    Size {
        /// The struct's name.
        within: &'static str,
        /// `size_of` it.
        host: u64,
        /// Its WGSL size.
        gpu: u64,
        /// The padding to add after its last member (`host < gpu`).
        pad: u64,
    },
    /// The `count` elements of an array, or columns of a matrix, lie `host` bytes apart on the
    /// host but `gpu` on the GPU: no padding field fits between them.
    Stride {
        /// The matrix (`Some`) whose columns, or the array whose elements, are apart.
        matrix: Option<LeafType>,
        /// The element (or column) type, when it is a scalar or vector.
        element: Option<LeafType>,
        /// Elements or columns.
        count: u32,
        /// Bytes between them on the host.
        host: u64,
        /// Bytes between them on the GPU.
        gpu: u64,
    },
    /// A vector or matrix whose host type keeps a padding lane per column that may be
    /// uninitialized (`glam::Vec3A`, `glam::Mat3A` under glam's `scalar-math`, where they are not
    /// `bytemuck::Pod`), so its bytes are never copied whole.
    Lanes(LeafType),
    /// A host type of another length than its WGSL type, with no finer reason.
    Other,
}

/// The member at fault inside a value and what to change there (see [`image_fault`]).
#[derive(Clone, Copy, Debug)]
pub struct ImageFault {
    /// The member's path from the value's name, arrays' elements as `[]` (`lights[].basis`).
    pub path: LeafName,
    /// What to change.
    pub mismatch: ImageMismatch,
}

const fn found(path: LeafName, mismatch: ImageMismatch) -> ImageFault {
    ImageFault { path, mismatch }
}

/// The deepest member inside a value (WGSL type `ty`, host shape `host`, named `name`) whose host bytes are not its GPU bytes in `space`, and what to change there,
/// found by the checks of [`image_matches`] in its order; [`ImageMismatch::Other`] at `name`
/// when none of them is at fault.
#[must_use]
pub const fn image_fault(
    ty: &WgslType,
    host: HostShape,
    space: AddressSpace,
    name: LeafName,
) -> ImageFault {
    let host = match reinterpret(ty, host) {
        Ok(h) => h,
        Err(_) => return found(name, ImageMismatch::Other),
    };
    match (ty, host) {
        (
            WgslType::Leaf(leaf),
            HostShape::Columns {
                padding_initialized: false,
                ..
            },
        ) => found(name, ImageMismatch::Lanes(*leaf)),
        (
            WgslType::Leaf(leaf @ LeafType::Matrix { columns, .. }),
            HostShape::Columns { stride, .. },
        ) => {
            let column = leaf.column();
            match leaf_layout(column, space) {
                Ok(l) if l.alignment != stride as u64 => {
                    let mismatch = ImageMismatch::Stride {
                        matrix: Some(*leaf),
                        element: Some(column),
                        count: *columns as u32,
                        host: stride as u64,
                        gpu: l.alignment,
                    };
                    found(name, mismatch)
                }
                _ => found(name, ImageMismatch::Other),
            }
        }
        (
            WgslType::Leaf(
                matrix @ LeafType::Matrix {
                    columns,
                    rows,
                    scalar,
                },
            ),
            HostShape::Packed,
        ) => {
            let column = LeafType::Vector {
                components: *rows,
                scalar: *scalar,
            };
            let gpu = match leaf_layout(column, space) {
                Ok(l) => l.alignment,
                Err(_) => return found(name, ImageMismatch::Other),
            };
            let host = *rows as u64 * scalar.byte_length();
            if host == gpu {
                return found(name, ImageMismatch::Other);
            }
            let mismatch = ImageMismatch::Stride {
                matrix: Some(*matrix),
                element: Some(column),
                count: *columns as u32,
                host,
                gpu,
            };
            found(name, mismatch)
        }
        (
            WgslType::Array { element, count },
            HostShape::Array {
                element: shape,
                stride: host_stride,
            },
        ) => array_fault(element, *count, *shape, host_stride, space, name),
        (WgslType::Array { element, count }, HostShape::Packed) => array_fault(
            element,
            *count,
            HostShape::Packed,
            scalar_bytes(element),
            space,
            name,
        ),
        (
            WgslType::Struct(s),
            HostShape::Struct {
                members,
                size,
                padding,
            },
        ) => struct_fault(s, members, size, padding, space, name),
        _ => found(name, ImageMismatch::Other),
    }
}

/// [`image_fault`] of an array whose elements (WGSL type `element`, host shape `shape`) lie
/// `host_stride` bytes apart on the host.
const fn array_fault(
    element: &WgslType,
    count: Option<u32>,
    shape: HostShape,
    host_stride: usize,
    space: AddressSpace,
    name: LeafName,
) -> ImageFault {
    if !image_matches(element, shape, host_stride, space) {
        return image_fault(element, shape, space, name.push("[]"));
    }
    let gpu = stride(element, space);
    if gpu == host_stride as u64 {
        return found(name, ImageMismatch::Other);
    }
    let leaf = match element {
        WgslType::Leaf(leaf) => Some(*leaf),
        _ => None,
    };
    let count = match count {
        Some(n) => n,
        None => 0,
    };
    let mismatch = ImageMismatch::Stride {
        matrix: None,
        element: leaf,
        count,
        host: host_stride as u64,
        gpu,
    };
    found(name, mismatch)
}

/// [`image_fault`] of struct `s` whose members the host keeps as `members` (`size` bytes in
/// all, `padding` of them in host-only `#[gpu(padding)]` fields): member by member, its offset,
/// the compiler's padding before it, then its own bytes; then the struct's size and padding.
/// Without host-only fields every gap between members is the compiler's, so the padding to add
/// counts from the end of the member before.
const fn struct_fault(
    s: &WgslStruct,
    members: &[HostMember],
    size: usize,
    padding: usize,
    space: AddressSpace,
    name: LeafName,
) -> ImageFault {
    let within = s.name;
    let Ok((_, layout)) = s.offsets::<0>(space) else {
        return found(name, ImageMismatch::Other);
    };
    if members.len() != s.members.len() {
        return found(name, ImageMismatch::Other);
    }
    let mut cursor = MemberCursor::new(space);
    // The host end of the member before (0 before the first).
    let mut end = 0usize;
    let mut covered = padding;
    let mut j = 0;
    while j < members.len() {
        let m = members[j];
        let member = &s.members[j];
        let path = name.push(".").push(member.name);
        let Some(gpu) = member_place(&mut cursor, member, space) else {
            return found(path, ImageMismatch::Other);
        };
        let host = m.offset as u64;
        if host != gpu {
            // Padding inserted right after the member before (or right before this one, when
            // host-only fields may lie between) moves this member by exactly as many bytes.
            let from = if padding == 0 && end <= m.offset {
                end as u64
            } else {
                host
            };
            let pad = gpu.saturating_sub(from);
            let mismatch = ImageMismatch::Offset {
                within,
                member: member.name,
                host,
                gpu,
                pad,
            };
            return found(path, mismatch);
        }
        if padding == 0 && m.offset > end {
            let mismatch = ImageMismatch::ImplicitPadding {
                within,
                before: Some(member.name),
                bytes: (m.offset - end) as u64,
            };
            return found(path, mismatch);
        }
        if !image_matches(&member.ty, m.shape, m.size, space) {
            return image_fault(&member.ty, m.shape, space, path);
        }
        end = m.offset + m.size;
        covered += m.size;
        j += 1;
    }
    if size as u64 != layout.size {
        let from = if padding == 0 { end } else { size };
        let pad = layout.size.saturating_sub(from as u64);
        let mismatch = ImageMismatch::Size {
            within,
            host: size as u64,
            gpu: layout.size,
            pad,
        };
        return found(name, mismatch);
    }
    if padding == 0 && size > end {
        let mismatch = ImageMismatch::ImplicitPadding {
            within,
            before: None,
            bytes: (size - end) as u64,
        };
        return found(name, mismatch);
    }
    if covered < size {
        let mismatch = ImageMismatch::HiddenPadding {
            within,
            bytes: (size - covered) as u64,
        };
        return found(name, mismatch);
    }
    found(name, ImageMismatch::Other)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::VertexFormat;
    use crate::layout::WgslMember;

    const INNER: WgslStruct = WgslStruct::new(
        "Inner",
        &[
            WgslMember::new("a", WgslType::U32),
            WgslMember::new("v", WgslType::vec(4)),
        ],
    );

    /// `Inner` with `a` at 0 and `v` at `v_at`, `size` bytes, `padding` of them host-only.
    fn inner(v_at: usize, size: usize, padding: usize) -> HostShape {
        let members: &'static [HostMember] = Box::leak(Box::new([
            HostMember {
                offset: 0,
                size: 4,
                shape: HostShape::Field(VertexFormat::Uint32),
            },
            HostMember {
                offset: v_at,
                size: 16,
                shape: HostShape::Field(VertexFormat::Float32x4),
            },
        ]));
        HostShape::Struct {
            members,
            size,
            padding,
        }
    }

    fn fault(host: HostShape) -> (String, ImageMismatch) {
        let ty = WgslType::Struct(&INNER);
        assert!(!image_matches(&ty, host, 32, AddressSpace::Storage));
        let f = image_fault(
            &ty,
            host,
            AddressSpace::Storage,
            LeafName::new().push("inner"),
        );
        (f.path.as_str().to_owned(), f.mismatch)
    }

    /// `vec3<f32>` columns kept in 16 bytes (`glam::Vec3A`, `glam::Mat3A`).
    const fn lanes(padding_initialized: bool) -> HostShape {
        HostShape::Columns {
            stride: 16,
            padding_initialized,
        }
    }

    #[test]
    fn columns_with_initialized_padding_are_copied_whole_where_the_gpu_columns_lie_as_far_apart() {
        for space in [AddressSpace::Storage, AddressSpace::Uniform] {
            assert!(image_matches(&WgslType::vec(3), lanes(true), 16, space));
            assert!(image_matches(&WgslType::mat(3, 3), lanes(true), 48, space));
            // Padding that may be uninitialized: never.
            assert!(!image_matches(&WgslType::vec(3), lanes(false), 16, space));
            assert!(!image_matches(
                &WgslType::mat(3, 3),
                lanes(false),
                48,
                space
            ));
            // Another host size than one GPU column stride per column.
            assert!(!image_matches(&WgslType::vec(3), lanes(true), 32, space));
            assert!(!image_matches(&WgslType::mat(3, 3), lanes(true), 64, space));
            // `vec2<f32>` columns lie 8 bytes apart on the GPU.
            assert!(!image_matches(&WgslType::mat(3, 2), lanes(true), 48, space));
            assert_eq!(
                image_fault(
                    &WgslType::mat(3, 2),
                    lanes(true),
                    space,
                    LeafName::new().push("m")
                )
                .mismatch,
                ImageMismatch::Stride {
                    matrix: Some(LeafType::Matrix {
                        columns: 3,
                        rows: 2,
                        scalar: crate::format::PrimitiveType::F32,
                    }),
                    element: Some(LeafType::Vector {
                        components: 2,
                        scalar: crate::format::PrimitiveType::F32,
                    }),
                    count: 3,
                    host: 16,
                    gpu: 8,
                }
            );
        }
    }

    const FOLLOWS: WgslStruct = WgslStruct::new(
        "Follows",
        &[
            WgslMember::new("a", WgslType::vec(3)),
            WgslMember::new("b", WgslType::F32),
        ],
    );

    #[test]
    fn a_member_right_after_a_vec3_kept_in_16_bytes_is_refused_at_its_offset() {
        // `{ a: Vec3A, b: f32 }`: `b` at 16 on the host, 12 on the GPU.
        let members: &'static [HostMember] = Box::leak(Box::new([
            HostMember {
                offset: 0,
                size: 16,
                shape: lanes(true),
            },
            HostMember {
                offset: 16,
                size: 4,
                shape: HostShape::Field(VertexFormat::Float32),
            },
        ]));
        let host = HostShape::Struct {
            members,
            size: 32,
            padding: 0,
        };
        let ty = WgslType::Struct(&FOLLOWS);
        for space in [AddressSpace::Storage, AddressSpace::Uniform] {
            assert!(!image_matches(&ty, host, 32, space));
            let f = image_fault(&ty, host, space, LeafName::new().push("f"));
            assert_eq!(f.path.as_str(), "f.b");
            assert!(matches!(
                f.mismatch,
                ImageMismatch::Offset {
                    host: 16,
                    gpu: 12,
                    ..
                }
            ));
        }
    }

    #[test]
    fn padding_to_add_counts_from_the_member_before_unless_host_only_fields_may_lie_between() {
        // `v` right after `a`: 12 bytes put it at 16.
        let offset = |host, pad| ImageMismatch::Offset {
            within: "Inner",
            member: "v",
            host,
            gpu: 16,
            pad,
        };
        assert_eq!(
            fault(inner(4, 20, 0)),
            ("inner.v".to_owned(), offset(4, 12))
        );
        // A host-only field of 4 bytes between them: 8 more, right before `v`.
        assert_eq!(fault(inner(8, 24, 4)), ("inner.v".to_owned(), offset(8, 8)));
        // `v` in place after 12 bytes the compiler inserted.
        assert_eq!(
            fault(inner(16, 32, 0)),
            (
                "inner.v".to_owned(),
                ImageMismatch::ImplicitPadding {
                    within: "Inner",
                    before: Some("v"),
                    bytes: 12,
                }
            )
        );
        // In place, but 8 bytes of the 12 are the compiler's, somewhere.
        assert_eq!(
            fault(inner(16, 32, 4)),
            (
                "inner".to_owned(),
                ImageMismatch::HiddenPadding {
                    within: "Inner",
                    bytes: 8,
                }
            )
        );
        assert!(image_matches(
            &WgslType::Struct(&INNER),
            inner(16, 32, 12),
            32,
            AddressSpace::Storage
        ));
    }
}
