//! [`HostShape`]: where the GPU bytes of a [`GpuType`](super::GpuType) value lie in its host
//! bytes, so rows encode by fixed copies; and [`carrier_type`], the WGSL type that carries a
//! vertex format's bytes. Plain data, below the type walks of `tree/` and below `GpuType`.

use crate::format::VertexFormat;
use crate::layout::{LeafType, WgslType};

/// Where the GPU bytes of a [`GpuType`](super::GpuType) value lie in its host bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostShape {
    /// A [`GpuField`](super::GpuField): the format's bytes at offset 0 (its WGSL carrier's
    /// payload).
    Field(VertexFormat),
    /// The WGSL type's scalars packed in order, columns of a matrix one after another (`[[f32;
    /// 3]; 3]`, `glam::Mat3`).
    Packed,
    /// The columns of a matrix (or the one column of a vector), each packed, `stride` bytes apart
    /// (`glam::Mat3A`, `glam::Vec3A`: 16).
    Columns {
        /// Bytes between column starts.
        stride: usize,
        /// Whether the bytes after each column (up to the next column's start, or the value's
        /// end) are initialized plain data too, so that the value's bytes may be copied whole:
        /// `glam::Vec3A` and `glam::Mat3A` where glam's build makes them `bytemuck::Pod` (SIMD
        /// targets), not under glam's `scalar-math`, where their fourth lanes are padding.
        padding_initialized: bool,
    },
    /// A struct's members.
    Struct {
        /// Each GPU member's host offset, size and shape, in declaration order.
        members: &'static [HostMember],
        /// `size_of` the struct.
        size: usize,
        /// The bytes of host-only `#[gpu(padding)]` fields.
        padding: usize,
    },
    /// An array's elements, `stride` bytes apart.
    Array {
        /// The element's shape.
        element: &'static HostShape,
        /// `size_of` the element.
        stride: usize,
    },
}

/// One member of a [`HostShape::Struct`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HostMember {
    /// `offset_of!` the field.
    pub offset: usize,
    /// `size_of` its type.
    pub size: usize,
    /// Where its GPU bytes are.
    pub shape: HostShape,
}

/// The WGSL type that carries `format`'s bytes (see [`VertexFormat::wgsl_carrier`]).
#[must_use]
pub const fn carrier_type(format: VertexFormat) -> WgslType {
    let carrier = format.wgsl_carrier();
    let scalar = carrier.primitive();
    match carrier.components() {
        1 => WgslType::Leaf(LeafType::Scalar(scalar)),
        n => WgslType::Leaf(LeafType::Vector {
            components: n as u8,
            scalar,
        }),
    }
}
