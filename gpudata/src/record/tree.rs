//! The derive's view of nested types: a struct's members flattened to leaves (one vertex-format
//! field each: a scalar, a vector, a matrix column) with luma.gl's names (`light.color`,
//! `bones[2]`, `transform[3]` for a matrix column), GPU and host offsets; and whether a type's
//! host bytes are its GPU bytes. All `const fn`s over [`WgslType`] and [`HostShape`], evaluated
//! once per derived struct.

#![allow(
    clippy::cast_possible_truncation,
    reason = "offsets inside one row are far below usize::MAX on every target wgpu supports"
)]

use super::FieldCopy;
use super::gpu_type::HostShape;
use crate::format::{PrimitiveType, VertexFormat};
use crate::layout::{
    AddressSpace, GpuDataStructField, LeafType, MemberCursor, WgslStruct, WgslType,
};

/// A leaf's name, built at compile time: a fixed buffer.
#[derive(Clone, Copy, Debug)]
pub struct LeafName {
    buf: [u8; LeafName::CAPACITY],
    len: usize,
}

impl LeafName {
    const CAPACITY: usize = 120;

    /// An empty name.
    pub const EMPTY: LeafName = LeafName::new();

    /// An empty name.
    #[must_use]
    pub const fn new() -> LeafName {
        LeafName {
            buf: [0; LeafName::CAPACITY],
            len: 0,
        }
    }

    /// Appends `s` whole, or `...` once the buffer is full (names stay UTF-8).
    pub(crate) const fn push(mut self, s: &str) -> LeafName {
        let bytes = s.as_bytes();
        if self.len + bytes.len() > LeafName::CAPACITY - 3 {
            if self.len + 3 <= LeafName::CAPACITY {
                self.buf[self.len] = b'.';
                self.buf[self.len + 1] = b'.';
                self.buf[self.len + 2] = b'.';
                self.len += 3;
            }
            return self;
        }
        let mut i = 0;
        while i < bytes.len() {
            self.buf[self.len + i] = bytes[i];
            i += 1;
        }
        self.len += bytes.len();
        self
    }

    const fn index(self, i: u64) -> LeafName {
        self.push("[").push(Decimal::new(i).as_str()).push("]")
    }

    /// The name.
    #[must_use]
    pub const fn as_str(&self) -> &str {
        let (text, _) = self.buf.split_at(self.len);
        match core::str::from_utf8(text) {
            Ok(s) => s,
            Err(_) => "",
        }
    }
}

impl Default for LeafName {
    fn default() -> LeafName {
        LeafName::new()
    }
}

/// A number's decimal digits, written in `const fn`s (leaf names, compile-time messages).
#[derive(Clone, Copy)]
pub(crate) struct Decimal {
    digits: [u8; 20],
    start: usize,
}

impl Decimal {
    /// The digits of `n`.
    pub(crate) const fn new(n: u64) -> Decimal {
        let mut digits = [0u8; 20];
        let mut start = digits.len();
        let mut rest = n;
        loop {
            start -= 1;
            digits[start] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        Decimal { digits, start }
    }

    /// The digits as text.
    pub(crate) const fn as_str(&self) -> &str {
        let (_, used) = self.digits.split_at(self.start);
        match core::str::from_utf8(used) {
            Ok(s) => s,
            Err(_) => "",
        }
    }
}

/// One leaf of a flattened struct.
#[derive(Clone, Copy, Debug)]
pub struct Leaf {
    /// The top-level field it belongs to.
    pub field: usize,
    /// Its luma.gl-style path.
    pub name: LeafName,
    /// Its vertex format (`None` for a `vec3<f16>` or a `matCx3<f16>` column, which have none).
    pub format: Option<VertexFormat>,
    /// Its WGSL leaf type (the column's vector for a matrix column).
    pub leaf: LeafType,
    /// GPU byte offset in the row.
    pub gpu: u64,
    /// Host byte offset in the struct.
    pub host: usize,
    /// Bytes of payload.
    pub len: usize,
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
    /// A runtime-sized array in a row type.
    RuntimeArray,
    /// A leaf without a vertex format.
    NoVertexFormat(LeafType),
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

/// The leaves of a `packed` struct: the same leaves (names, formats, host offsets), each GPU
/// offset placed in order by the packed (WebGPU vertex) rules of the flat engine's
/// [`LayoutCursor`](crate::layout::LayoutCursor), as the analysis placed them. A leaf the rules
/// refuse (which the analysis reports first) keeps its offset.
#[must_use]
pub const fn pack_leaves<const L: usize>(mut leaves: [Leaf; L]) -> [Leaf; L] {
    let mut cursor = crate::layout::LayoutCursor::new(crate::layout::StructLayout::Packed);
    let mut k = 0;
    while k < L {
        if let Some(format) = leaves[k].format
            && let Ok(offset) = cursor.place(format)
        {
            leaves[k].gpu = offset;
        }
        k += 1;
    }
    leaves
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

/// The GPU offset of member `j` of `s` in `space` (the layout was checked before).
const fn member_offset(s: &WgslStruct, j: usize, space: AddressSpace) -> u64 {
    let mut cursor = MemberCursor::new(space);
    let mut i = 0;
    while i < s.members.len() {
        let m = &s.members[i];
        let Ok(ty) = m.ty.layout(space) else { return 0 };
        let Ok(placed) = cursor.place(ty, m.ty.is_runtime_array(), m.align, m.size) else {
            return 0;
        };
        if i == j {
            return placed.offset;
        }
        i += 1;
    }
    0
}

const fn stride(ty: &WgslType, space: AddressSpace) -> u64 {
    match ty.layout(space) {
        Ok(layout) => layout.stride(),
        Err(_) => 0,
    }
}

/// A `Field` shape under a WGSL type that is not its carrier (`wgsl = "..."`): its bytes are the
/// type's scalars packed, when they are as many.
const fn reinterpret(ty: &WgslType, host: HostShape) -> Result<HostShape, TreeProblem> {
    match host {
        HostShape::Field(format) => {
            let carrier = super::gpu_type::carrier_type(format);
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

/// Leaf `k` of field `field` (WGSL type `ty`, host shape `host`, named `name`, at GPU offset
/// `gpu` and host offset `host_at`).
///
/// # Errors
/// A [`TreeFault`]: the problem and the path (from `name`) of the member it is about.
#[allow(
    clippy::too_many_arguments,
    reason = "one walk state, passed whole to a recursive const fn"
)]
#[allow(
    clippy::result_large_err,
    reason = "a const fn cannot box; the fault is a path in a fixed buffer, as the leaf is"
)]
pub const fn leaf_at(
    field: usize,
    ty: &WgslType,
    host: HostShape,
    mut k: usize,
    space: AddressSpace,
    mut name: LeafName,
    gpu: u64,
    host_at: usize,
) -> Result<Leaf, TreeFault> {
    let host = match reinterpret(ty, host) {
        Ok(h) => h,
        Err(problem) => return Err(TreeFault { name, problem }),
    };
    match ty {
        WgslType::Leaf(leaf) => {
            let (columns, rows) = leaf.shape();
            let width = leaf.scalar().byte_length();
            let (column, column_len) = match leaf {
                LeafType::Matrix { rows, scalar, .. } => {
                    name = name.index(k as u64);
                    (
                        LeafType::Vector {
                            components: *rows,
                            scalar: *scalar,
                        },
                        *rows as u64 * width,
                    )
                }
                other => (*other, columns as u64 * rows as u64 * width),
            };
            let (format, len) = match host {
                HostShape::Field(format) => (Some(format), format.byte_length()),
                _ => (leaf_format(column), column_len),
            };
            let gpu_stride = match leaf {
                LeafType::Matrix { .. } => match crate::layout::leaf_layout(column, space) {
                    Ok(l) => l.alignment,
                    Err(_) => 0,
                },
                _ => 0,
            };
            let host_stride = match host {
                HostShape::Columns { stride } => stride,
                _ => column_len as usize,
            };
            if format.is_none() {
                return Err(TreeFault {
                    name,
                    problem: TreeProblem::NoVertexFormat(column),
                });
            }
            Ok(Leaf {
                field,
                name,
                format,
                leaf: column,
                gpu: gpu + k as u64 * gpu_stride,
                host: host_at + k * host_stride,
                len: len as usize,
            })
        }
        WgslType::Array { element, count } => {
            if count.is_none() {
                return Err(TreeFault {
                    name,
                    problem: TreeProblem::RuntimeArray,
                });
            }
            let per = leaf_count(element);
            let i = k / per;
            k %= per;
            let (inner, host_stride) = match host {
                HostShape::Array { element, stride } => (*element, stride),
                _ => (HostShape::Packed, scalar_bytes(element)),
            };
            leaf_at(
                field,
                element,
                inner,
                k,
                space,
                name.index(i as u64),
                gpu + i as u64 * stride(element, space),
                host_at + i * host_stride,
            )
        }
        WgslType::Struct(s) => {
            let mut j = 0;
            while j < s.members.len() {
                let count = leaf_count(&s.members[j].ty);
                if k < count {
                    break;
                }
                k -= count;
                j += 1;
            }
            let member = &s.members[j];
            let (shape, member_host) = match host {
                HostShape::Struct { members, .. } => (members[j].shape, members[j].offset),
                _ => (HostShape::Packed, 0),
            };
            let name = if name.len == 0 {
                name.push(member.name)
            } else {
                name.push(".").push(member.name)
            };
            leaf_at(
                field,
                &member.ty,
                shape,
                k,
                space,
                name,
                gpu + member_offset(s, j, space),
                host_at + member_host,
            )
        }
    }
}

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
        // `Columns` hosts hold padding lanes that may be uninitialized: never copied whole.
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
            let mut j = 0;
            while j < members.len() {
                let m = members[j];
                if m.offset as u64 != member_offset(s, j, space)
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

/// The path of the deepest member inside a value (WGSL type `ty`, host shape `host`, named
/// `name`) whose host bytes are not its GPU bytes in `space` (see
/// [`image_matches`]), arrays' elements as `[]`; `name` when no member alone is at fault.
#[must_use]
pub const fn image_fault(
    ty: &WgslType,
    host: HostShape,
    space: AddressSpace,
    name: LeafName,
) -> LeafName {
    let host = match reinterpret(ty, host) {
        Ok(h) => h,
        Err(_) => return name,
    };
    match (ty, host) {
        (
            WgslType::Array { element, .. },
            HostShape::Array {
                element: shape,
                stride,
            },
        ) if !image_matches(element, *shape, stride, space) => {
            image_fault(element, *shape, space, name.push("[]"))
        }
        (WgslType::Struct(s), HostShape::Struct { members, .. }) => {
            let mut j = 0;
            while j < members.len() && j < s.members.len() {
                let m = members[j];
                if !image_matches(&s.members[j].ty, m.shape, m.size, space) {
                    let name = name.push(".").push(s.members[j].name);
                    return image_fault(&s.members[j].ty, m.shape, space, name);
                }
                j += 1;
            }
            name
        }
        _ => name,
    }
}

/// All `L` leaves of struct `s` with host shape `host` in `space`, field by field.
///
/// # Errors
/// The first leaf's problem, with its field.
#[allow(
    clippy::result_large_err,
    reason = "a const fn cannot box; the fault is a path in a fixed buffer"
)]
pub const fn leaves<const L: usize>(
    s: &'static WgslStruct,
    host: HostShape,
    space: AddressSpace,
) -> Result<[Leaf; L], (usize, TreeFault)> {
    let empty = Leaf {
        field: 0,
        name: LeafName::new(),
        format: None,
        leaf: LeafType::Scalar(PrimitiveType::F32),
        gpu: 0,
        host: 0,
        len: 0,
    };
    let mut out = [empty; L];
    let ty = WgslType::Struct(s);
    let mut field = 0;
    let mut first = 0;
    let mut k = 0;
    while k < L {
        while field < s.members.len() && k >= first + leaf_count(&s.members[field].ty) {
            first += leaf_count(&s.members[field].ty);
            field += 1;
        }
        match leaf_at(field, &ty, host, k, space, LeafName::new(), 0, 0) {
            Ok(leaf) => out[k] = leaf,
            Err(e) => return Err((field, e)),
        }
        k += 1;
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

/// The copy that moves `leaf`'s bytes.
const fn leaf_copy(leaf: &Leaf) -> FieldCopy {
    FieldCopy {
        host: leaf.host,
        gpu: leaf.gpu as usize,
        len: leaf.len,
    }
}

/// The copies that encode or decode one row, leaf by leaf.
#[must_use]
pub const fn leaf_copies<const L: usize>(leaves: &[Leaf]) -> [FieldCopy; L] {
    let mut copies = [NO_COPY; L];
    let mut k = 0;
    while k < L && k < leaves.len() {
        copies[k] = leaf_copy(&leaves[k]);
        k += 1;
    }
    copies
}

/// The first leaf without a wgpu vertex format (a `-webgl` one), if any.
#[must_use]
pub const fn webgl_leaf(leaves: &[Leaf]) -> Option<usize> {
    let mut k = 0;
    while k < leaves.len() {
        match leaves[k].format {
            Some(format) if format.to_wgpu().is_some() => {}
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
    let mut list = [wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32,
        offset: 0,
        shader_location: 0,
    }; L];
    let mut k = 0;
    while k < L && k < leaves.len() {
        if let Some(format) = leaves[k].format
            && let Some(format) = format.to_wgpu()
        {
            list[k].format = format;
        }
        list[k].offset = leaves[k].gpu;
        list[k].shader_location = location.saturating_add(k as u32);
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
    let mut k = 0;
    while k < leaf_count(element) {
        if let Err(fault) = leaf_at(
            0,
            element,
            shape,
            k,
            AddressSpace::Storage,
            name.push("[]"),
            0,
            0,
        ) {
            return Some(fault);
        }
        k += 1;
    }
    None
}

/// The `L` copies that encode or decode one element of a runtime-sized array (WGSL type `ty`,
/// host shape `host`), offsets from the element's start; empty copies when a leaf has a problem
/// (which the struct's analysis reports, failing the build).
#[must_use]
pub const fn element_copies<const L: usize>(ty: &WgslType, host: HostShape) -> [FieldCopy; L] {
    let mut copies = [NO_COPY; L];
    let mut k = 0;
    while k < L {
        match leaf_at(0, ty, host, k, AddressSpace::Storage, LeafName::new(), 0, 0) {
            Ok(leaf) => copies[k] = leaf_copy(&leaf),
            Err(_) => return [NO_COPY; L],
        }
        k += 1;
    }
    copies
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
