//! The walk over a type tree: a struct's members flattened to leaves (one vertex-format field
//! each: a scalar, a vector, a matrix column) with luma.gl's names (`light.color`, `bones[2]`,
//! `transform[3]` for a matrix column), GPU and host offsets ([`Walk`]); what a type's leaves
//! count and weigh; whether a type nests in a row ([`nests`], `GpuType::NESTS`'s default); and
//! the path of a member that breaks a layout rule ([`fault_path`]).

#![allow(
    clippy::cast_possible_truncation,
    reason = "offsets inside one row are far below usize::MAX on every target wgpu supports"
)]

use super::text::LeafName;
use crate::format::VertexFormat;
use crate::layout::{
    AddressSpace, LayoutCursor, LayoutRuleError, LeafType, MemberCursor, RowShape, StructLayout,
    WgslMember, WgslStruct, WgslType,
};
use crate::record::host_shape::{HostShape, carrier_type};

/// One leaf of a flattened struct.
#[derive(Clone, Copy, Debug)]
pub struct Leaf {
    /// The top-level field it belongs to.
    pub field: usize,
    /// Its luma.gl-style path.
    pub name: LeafPath,
    /// Its vertex format (`None` for a `vec3<f16>` or a `matCx3<f16>` column, which have none).
    pub format: Option<VertexFormat>,
    /// GPU byte offset in the row.
    pub gpu: u64,
    /// Host byte offset from the start of its top-level field (the field's own offset is the
    /// struct's to give: `Analyzed::OFFSETS` in the derive).
    pub host: usize,
    /// Bytes of payload.
    pub len: usize,
}

/// A leaf's luma.gl-style path.
#[derive(Clone, Copy, Debug)]
pub enum LeafPath {
    /// A field that is its own leaf (a field of one vertex format, a tree of depth 1 laid out
    /// by the flat engine): the field's name, whole.
    Field(&'static str),
    /// A path the walk built (`lights[2].color`, `transform[3]`).
    Built(LeafName),
}

impl LeafPath {
    /// The path.
    #[must_use]
    pub const fn as_str(&self) -> &str {
        match self {
            LeafPath::Field(name) => name,
            LeafPath::Built(name) => name.as_str(),
        }
    }
}

/// Why a field cannot be flattened or encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeProblem {
    /// The host type's shape does not fit the WGSL type asked for (`wgsl = "..."`).
    HostMismatch {
        /// Bytes the WGSL type's scalars need.
        wgsl_bytes: usize,
        /// Bytes the host type holds.
        host_bytes: usize,
    },
    /// A runtime-sized array in a row type: a hand-written [`GpuType`](crate::record::GpuType) whose
    /// WGSL type is `array<E>`, as the last field of a struct that declares no `RuntimeArray`
    /// tail (WGSL's rules refuse it anywhere else).
    RuntimeArray,
    /// A leaf without a vertex format: a `vec3<f16>`, or a matrix of `vec3<f16>` columns (the
    /// leaf as written).
    NoVertexFormat(LeafType),
    /// A leaf the packed (WebGPU vertex) rules refuse.
    Packed(LayoutRuleError),
}

/// A [`TreeProblem`] and the path of the member it is about, luma.gl style (`lights[0].color`),
/// from the name the walk started with.
#[derive(Clone, Copy, Debug)]
pub struct TreeFault {
    /// The member's path.
    pub name: LeafName,
    /// The problem.
    pub problem: TreeProblem,
}

/// The vertex format of a scalar or vector leaf ([`LeafType::vertex_format`]).
#[must_use]
pub const fn leaf_format(leaf: LeafType) -> Option<VertexFormat> {
    leaf.vertex_format()
}

/// Whether a type holds a runtime-sized array anywhere (a packed row cannot).
#[must_use]
pub const fn has_runtime_array(ty: &WgslType) -> bool {
    match ty {
        WgslType::Leaf(_) => false,
        WgslType::Array { element, count } => count.is_none() || has_runtime_array(element),
        WgslType::Struct(s) => {
            let mut i = 0;
            while i < s.members.len() {
                if has_runtime_array(&s.members[i].ty) {
                    return true;
                }
                i += 1;
            }
            false
        }
    }
}

/// Leaves of a type: one per scalar or vector, one per matrix column.
#[must_use]
pub const fn leaf_count(ty: &WgslType) -> usize {
    match ty {
        WgslType::Leaf(LeafType::Matrix { columns, .. }) => *columns as usize,
        WgslType::Leaf(_) => 1,
        WgslType::Array { element, count } => match count {
            Some(n) => *n as usize * leaf_count(element),
            None => 0,
        },
        WgslType::Struct(s) => {
            let mut total = 0;
            let mut i = 0;
            while i < s.members.len() {
                total += leaf_count(&s.members[i].ty);
                i += 1;
            }
            total
        }
    }
}

/// Bytes of a type's scalars, packed.
pub(crate) const fn scalar_bytes(ty: &WgslType) -> usize {
    match ty {
        WgslType::Leaf(leaf) => leaf.components() as usize * leaf.scalar().byte_length() as usize,
        WgslType::Array { element, count } => match count {
            Some(n) => *n as usize * scalar_bytes(element),
            None => 0,
        },
        WgslType::Struct(s) => {
            let mut total = 0;
            let mut i = 0;
            while i < s.members.len() {
                total += scalar_bytes(&s.members[i].ty);
                i += 1;
            }
            total
        }
    }
}

pub(super) const fn stride(ty: &WgslType, space: AddressSpace) -> u64 {
    match ty.layout(space) {
        Ok(layout) => layout.stride(),
        Err(_) => 0,
    }
}

/// A `Field` shape under a WGSL type that is not its carrier (`wgsl = "..."`): its bytes are the
/// type's scalars packed, when they are as many.
pub(super) const fn reinterpret(ty: &WgslType, host: HostShape) -> Result<HostShape, TreeProblem> {
    match host {
        HostShape::Field(format) => {
            let carrier = carrier_type(format);
            let same = match (ty, carrier) {
                (WgslType::Leaf(a), WgslType::Leaf(b)) => {
                    a.scalar() as u8 == b.scalar() as u8 && a.components() == b.components()
                }
                _ => false,
            };
            if same {
                return Ok(host);
            }
            let wgsl_bytes = scalar_bytes(ty);
            let host_bytes = format.byte_length() as usize;
            if wgsl_bytes != host_bytes {
                return Err(TreeProblem::HostMismatch {
                    wgsl_bytes,
                    host_bytes,
                });
            }
            Ok(HostShape::Packed)
        }
        // `[[f32; 4]; 4]` read as a matrix or vector: its vectors lie back to back, so its
        // scalars are packed.
        HostShape::Array { element, stride } => match (ty, *element) {
            (WgslType::Leaf(_), HostShape::Field(format))
                if format.byte_length() as usize == stride =>
            {
                Ok(HostShape::Packed)
            }
            _ => Ok(host),
        },
        other => Ok(other),
    }
}

/// What a [`Walk`] does with each leaf besides counting it.
#[derive(Clone, Copy)]
enum Mode {
    /// Counts leaves, their components and the furthest GPU byte.
    Count,
    /// Also stores each leaf (its path built) in the output, while it has room.
    Store,
    /// Also places each leaf by the packed (WebGPU vertex) rules, in order, storing it when
    /// there is room, and tracks whether the current field's leaves lie on the host as the
    /// packed rules place them.
    Pack(LayoutCursor),
}

/// One pass over the leaves of a struct's fields (scalars, vectors, matrix columns, in member
/// order): each member placed once by a [`MemberCursor`], paths built only when asked for. The
/// analysis counts; the leaf table stores; packed structs place.
pub(crate) struct Walk<'a> {
    out: &'a mut [Leaf],
    mode: Mode,
    names: bool,
    space: AddressSpace,
    /// Leaves seen.
    pub(crate) count: usize,
    /// Vertex-format components of the leaves seen.
    pub(crate) components: u32,
    /// The furthest GPU byte a leaf reaches.
    pub(crate) end: u64,
    /// Packed mode: the GPU offset of the current field's first leaf.
    first: Option<u64>,
    /// Packed mode: whether every leaf of the current field lies at the same distance from the
    /// field's start on both sides.
    pub(crate) image: bool,
    /// Packed mode: payload bytes of the current field's leaves.
    pub(crate) covered: usize,
    /// The host offset of the current field.
    field_host: usize,
}

/// A leaf placeholder.
pub(crate) const EMPTY_LEAF: Leaf = Leaf {
    field: 0,
    name: LeafPath::Field(""),
    format: None,
    gpu: 0,
    host: 0,
    len: 0,
};

impl<'a> Walk<'a> {
    /// A walk in `space` that only counts (no paths: a fault's path is found by walking again
    /// with [`named`](Self::named)).
    pub(crate) const fn counting(space: AddressSpace) -> Walk<'static> {
        Walk::start(&mut [], Mode::Count, false, space)
    }

    /// A walk in `space` that stores every leaf, path included, into `out`.
    pub(crate) const fn storing(out: &'a mut [Leaf], space: AddressSpace) -> Walk<'a> {
        Walk::start(out, Mode::Store, true, space)
    }

    /// A walk that places every leaf by the packed rules (member types read in the storage
    /// space), storing them into `out` while it has room.
    pub(crate) const fn packing(out: &'a mut [Leaf], names: bool) -> Walk<'a> {
        let mode = Mode::Pack(LayoutCursor::new(StructLayout::Packed));
        Walk::start(out, mode, names, AddressSpace::Storage)
    }

    /// A walk before its first leaf.
    const fn start(out: &'a mut [Leaf], mode: Mode, names: bool, space: AddressSpace) -> Walk<'a> {
        Walk {
            out,
            mode,
            names,
            space,
            count: 0,
            components: 0,
            end: 0,
            first: None,
            image: true,
            covered: 0,
            field_host: 0,
        }
    }

    /// The same walk building paths (to name a fault).
    pub(crate) const fn named(mut self) -> Walk<'a> {
        self.names = true;
        self
    }

    /// Packed mode: the GPU offset of the current field's first leaf (0 before it has one).
    pub(crate) const fn field_start(&self) -> u64 {
        match self.first {
            Some(first) => first,
            None => 0,
        }
    }

    /// The packed rules' row shape of the leaves placed so far (packed mode).
    pub(crate) const fn packed_shape(&self) -> Result<RowShape, LayoutRuleError> {
        match &self.mode {
            Mode::Pack(cursor) => cursor.finish(),
            _ => Err(LayoutRuleError::NoFields),
        }
    }

    /// `name` followed by `part`, when paths are built.
    const fn join(&self, name: LeafName, part: &str) -> LeafName {
        if !self.names {
            name
        } else if name.len == 0 {
            name.push(part)
        } else {
            name.push(".").push(part)
        }
    }

    /// `name[i]`, when paths are built.
    const fn index(&self, name: LeafName, i: u64) -> LeafName {
        if self.names { name.index(i) } else { name }
    }

    /// Every member of the root struct `s` (host shape `host`) but a runtime-sized tail: member
    /// `j` is field `j`, named after it, its leaves' host offsets counted from its start.
    ///
    /// # Errors
    /// The first member's fault, with the member's index.
    #[allow(
        clippy::result_large_err,
        reason = "a const fn cannot box; the fault is a path in a fixed buffer"
    )]
    pub(crate) const fn root(
        &mut self,
        s: &WgslStruct,
        host: HostShape,
    ) -> Result<(), (usize, TreeFault)> {
        let mut cursor = MemberCursor::new(self.space);
        let mut j = 0;
        while j < s.members.len() {
            let member = &s.members[j];
            let gpu = match member_place(&mut cursor, member, self.space) {
                Some(offset) => offset,
                None => 0,
            };
            // A runtime-sized tail has no leaves in the header (its elements are walked apart).
            if !member.ty.is_runtime_array() {
                // Host offsets count from the field's start (see [`Leaf::host`]).
                let (shape, _) = member_host(host, j);
                if let Err(fault) = self.field(j, member, shape, gpu, 0) {
                    return Err((j, fault));
                }
            }
            j += 1;
        }
        Ok(())
    }

    /// The leaves of field `k`, the root struct's `member` (host shape `host`, at GPU offset
    /// `gpu` and host offset `host_at`), named after the member.
    ///
    /// # Errors
    /// The first [`TreeFault`].
    #[allow(
        clippy::result_large_err,
        reason = "a const fn cannot box; the fault is a path in a fixed buffer"
    )]
    pub(crate) const fn field(
        &mut self,
        k: usize,
        member: &WgslMember,
        host: HostShape,
        gpu: u64,
        host_at: usize,
    ) -> Result<(), TreeFault> {
        self.first = None;
        self.image = true;
        self.covered = 0;
        self.field_host = host_at;
        let name = self.join(LeafName::EMPTY, member.name);
        self.walk(k, &member.ty, host, name, gpu, host_at)
    }

    /// The leaves of a value of WGSL type `ty` and host shape `host` in field `field`, named
    /// `name`, at GPU offset `gpu` and host offset `host_at`.
    ///
    /// # Errors
    /// The first [`TreeFault`] (its path from `name` when paths are built).
    #[allow(
        clippy::result_large_err,
        reason = "a const fn cannot box; the fault is a path in a fixed buffer"
    )]
    pub(crate) const fn walk(
        &mut self,
        field: usize,
        ty: &WgslType,
        host: HostShape,
        name: LeafName,
        gpu: u64,
        host_at: usize,
    ) -> Result<(), TreeFault> {
        let host = match reinterpret(ty, host) {
            Ok(h) => h,
            Err(problem) => return Err(TreeFault { name, problem }),
        };
        match ty {
            WgslType::Leaf(leaf) => self.leaf(field, *leaf, host, name, gpu, host_at),
            WgslType::Array {
                element,
                count: Some(n),
            } => {
                let (inner, host_stride) = match host {
                    HostShape::Array { element, stride } => (*element, stride),
                    _ => (HostShape::Packed, scalar_bytes(element)),
                };
                let gpu_stride = stride(element, self.space);
                let mut i = 0;
                while i < *n as usize {
                    if let Err(fault) = self.walk(
                        field,
                        element,
                        inner,
                        self.index(name, i as u64),
                        gpu + i as u64 * gpu_stride,
                        host_at + i * host_stride,
                    ) {
                        return Err(fault);
                    }
                    i += 1;
                }
                Ok(())
            }
            WgslType::Array { count: None, .. } => Err(TreeFault {
                name,
                problem: TreeProblem::RuntimeArray,
            }),
            WgslType::Struct(s) => {
                let mut cursor = MemberCursor::new(self.space);
                let mut j = 0;
                while j < s.members.len() {
                    let member = &s.members[j];
                    let offset = match member_place(&mut cursor, member, self.space) {
                        Some(offset) => offset,
                        None => 0,
                    };
                    let (shape, member_host) = member_host(host, j);
                    if let Err(fault) = self.walk(
                        field,
                        &member.ty,
                        shape,
                        self.join(name, member.name),
                        gpu + offset,
                        host_at + member_host,
                    ) {
                        return Err(fault);
                    }
                    j += 1;
                }
                Ok(())
            }
        }
    }

    /// The leaves of a scalar, vector or matrix (one per column).
    #[allow(
        clippy::result_large_err,
        reason = "a const fn cannot box; the fault is a path in a fixed buffer"
    )]
    const fn leaf(
        &mut self,
        field: usize,
        leaf: LeafType,
        host: HostShape,
        name: LeafName,
        gpu: u64,
        host_at: usize,
    ) -> Result<(), TreeFault> {
        let (columns, rows) = leaf.shape();
        let width = leaf.scalar().byte_length();
        let (column, column_len, count, gpu_stride) = match leaf {
            LeafType::Matrix { rows, scalar, .. } => {
                let column = LeafType::Vector {
                    components: rows,
                    scalar,
                };
                let gpu_stride = match crate::layout::leaf_layout(column, self.space) {
                    Ok(l) => l.alignment,
                    Err(_) => 0,
                };
                (column, rows as u64 * width, columns as usize, gpu_stride)
            }
            other => (other, columns as u64 * rows as u64 * width, 1, 0),
        };
        let (format, len) = match host {
            HostShape::Field(format) => (Some(format), format.byte_length()),
            _ => (leaf_format(column), column_len),
        };
        let host_stride = match host {
            HostShape::Columns { stride, .. } => stride,
            _ => column_len as usize,
        };
        // A `vec3<f16>` (or a matrix of them as columns), named as written.
        let Some(format) = format else {
            return Err(TreeFault {
                name,
                problem: TreeProblem::NoVertexFormat(leaf),
            });
        };
        let matrix = matches!(leaf, LeafType::Matrix { .. });
        let mut k = 0;
        while k < count {
            let name = if matrix {
                self.index(name, k as u64)
            } else {
                name
            };
            let leaf = Leaf {
                field,
                name: LeafPath::Built(name),
                format: Some(format),
                gpu: gpu + k as u64 * gpu_stride,
                host: host_at + k * host_stride,
                len: len as usize,
            };
            if let Err(problem) = self.emit(leaf) {
                return Err(TreeFault { name, problem });
            }
            k += 1;
        }
        Ok(())
    }

    /// Counts, stores or places one leaf.
    const fn emit(&mut self, mut leaf: Leaf) -> Result<(), TreeProblem> {
        if let Mode::Pack(cursor) = &mut self.mode
            && let Some(format) = leaf.format
        {
            let offset = match cursor.place(format) {
                Ok(offset) => offset,
                Err(error) => return Err(TreeProblem::Packed(error)),
            };
            let first = match self.first {
                Some(first) => first,
                None => {
                    self.first = Some(offset);
                    offset
                }
            };
            // The leaf's host offset counts from the field's start, as the packed offset does
            // from the field's first leaf.
            if (leaf.host - self.field_host) as u64 != offset - first {
                self.image = false;
            }
            self.covered += leaf.len;
            leaf.gpu = offset;
        }
        if let Some(format) = leaf.format {
            self.components += format.components();
        }
        let end = leaf.gpu + leaf.len as u64;
        if end > self.end {
            self.end = end;
        }
        if !matches!(self.mode, Mode::Count) && self.count < self.out.len() {
            self.out[self.count] = leaf;
        }
        self.count += 1;
        Ok(())
    }
}

/// Places `member` with `cursor`, returning its offset (`None` when the rules refuse it, which
/// the struct's layout reported first).
pub(super) const fn member_place(
    cursor: &mut MemberCursor,
    member: &WgslMember,
    space: AddressSpace,
) -> Option<u64> {
    let Ok(ty) = member.ty.layout(space) else {
        return None;
    };
    match cursor.place(ty, member.ty.is_runtime_array(), member.align, member.size) {
        Ok(placed) => Some(placed.offset),
        Err(_) => None,
    }
}

/// Member `j`'s host shape and host offset inside a struct's host shape.
const fn member_host(host: HostShape, j: usize) -> (HostShape, usize) {
    match host {
        HostShape::Struct { members, .. } if j < members.len() => {
            (members[j].shape, members[j].offset)
        }
        _ => (HostShape::Packed, 0),
    }
}

/// Whether the leaves of a value of type `ty` (host shape `host`) walk without a fault in the
/// `wgsl-storage` layout.
const fn walks(ty: &WgslType, host: HostShape) -> bool {
    let mut walk = Walk::counting(AddressSpace::Storage);
    walk.walk(0, ty, host, LeafName::EMPTY, 0, 0).is_ok()
}

/// Whether a value of WGSL type `ty`, host shape `host` and `size` bytes (`size_of`) can be a
/// field of a row in the `wgsl-storage` layout: its WGSL type laid out, at least one leaf, every
/// leaf with a vertex format, no runtime-sized array, and a type that is one vertex format's
/// bytes ([`HostShape::Field`]) exactly as long as the format (which the analysis checks too).
/// `GpuType::NESTS`'s default.
#[must_use]
pub const fn nests(ty: &WgslType, host: HostShape, size: usize) -> bool {
    let sized = match host {
        HostShape::Field(format) => size as u64 == format.byte_length(),
        _ => true,
    };
    sized
        && !has_runtime_array(ty)
        && leaf_count(ty) > 0
        && ty.layout(AddressSpace::Storage).is_ok()
        && walks(ty, host)
}

/// The path of the member inside `ty` (named `name`) whose type or placement breaks a rule of
/// WGSL's memory model in `space`: the deepest member at fault, arrays' elements as `[]`
/// (`lights[].weights`, as run-time layout errors name them); `name` when `ty` itself is.
#[must_use]
pub const fn fault_path(ty: &WgslType, space: AddressSpace, name: LeafName) -> LeafName {
    match ty {
        WgslType::Leaf(_) => name,
        WgslType::Array { element, .. } => match element.layout(space) {
            Err(_) => fault_path(element, space, name.push("[]")),
            Ok(_) => name,
        },
        WgslType::Struct(s) => match s.offsets::<0>(space) {
            Err((i, _)) if i < s.members.len() => {
                let member = &s.members[i];
                let name = name.push(".").push(member.name);
                match member.ty.layout(space) {
                    Err(_) => fault_path(&member.ty, space, name),
                    Ok(_) => name,
                }
            }
            _ => name,
        },
    }
}
