//! [`GpuType`]: Rust types with a host-shareable WGSL type, which `#[derive(GpuStruct)]` nests:
//! every [`GpuField`] (as its WGSL carrier), derived structs (not `packed` ones), and with
//! features glam's and mint's matrices and `glam::Vec3A`. Arrays of them (`[Light; 4]`,
//! `[[f32; 4]; 4]`, as `array<E, N>`) are described by the derive itself, from the field's
//! syntax: an array of scalars keeps its vector meaning (`[f32; 3]` is `vec3<f32>`).
//! [`HostShape`] (`host_shape.rs`) says where a value's GPU bytes lie in its host bytes, so rows
//! encode by fixed copies. The defaults of the hidden constants are rules of `tree/`, below this
//! file.

use super::GpuField;
use super::host_shape::{HostShape, carrier_type};
use super::tree;
#[cfg(any(feature = "glam", feature = "mint"))]
use crate::format::PrimitiveType;
use crate::format::VertexFormat;
#[cfg(any(feature = "glam", feature = "mint"))]
use crate::layout::LeafType;
use crate::layout::WgslType;

/// A Rust type stored as a host-shareable WGSL type: a member of a derived struct.
///
/// # Safety
/// The bytes [`HOST`](Self::HOST) locates are initialized plain data in every value (no padding,
/// no pointers, no interior mutability), any bit pattern of them is valid in a value whose other
/// bytes are zero, an all-zero value is valid, and `HOST` describes `Self` exactly (offsets and
/// sizes inside `size_of::<Self>()`, [`HostShape::Packed`] and [`HostShape::Columns`] only with
/// as many bytes as [`WGSL`](Self::WGSL)'s scalars need, `Columns { padding_initialized: true,
/// .. }` only when every byte of every value is initialized plain data). Every [`GpuField`] is
/// one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a gpu field type",
    label = "this type has no gpu vertex format or WGSL type",
    note = "gpu fields are `f32`, `u32`, `i32` and arrays of 2, 3 or 4 of them; `u16`, `i16`, `u8`, `i8` and arrays of 2 or 4; `half::f16` and arrays of 2 or 4; glam vectors and matrices (feature `glam`); mint vectors, points, quaternions and column matrices (feature `mint`); normalized newtypes such as `gpudata::Unorm8x4`; `#[derive(GpuStruct)]` structs (not `packed` ones); and arrays of any of them",
    note = "a `bytemuck::Pod` type of your own becomes one with `gpudata::impl_gpu_field!(MyType => Unorm8x4);`; `#[gpu(format = \"...\")]` reinterprets a supported type (e.g. `[u8; 4]` as `unorm8x4`) and `#[gpu(wgsl = \"...\")]` as a WGSL type (e.g. `[[f32; 4]; 4]` as `mat4x4<f32>`); `#[gpu(padding)]` keeps a host-only field out of the gpu row"
)]
pub unsafe trait GpuType: Copy + 'static {
    /// The WGSL type.
    const WGSL: WgslType;
    /// Where its GPU bytes lie in its host bytes.
    const HOST: HostShape;
    /// The vertex format of a [`GpuField`] (a flat row field); `None` for everything else.
    const FLAT: Option<VertexFormat> = None;
    /// Leaves of a value in a row's struct format (scalars, vectors, matrix columns, array
    /// elements and struct members, flattened). Not API: the derive writes it for its structs.
    #[doc(hidden)]
    const LEAVES: usize = tree::leaf_count(&Self::WGSL);
    /// Whether a value can be a field of a `wgsl-storage` row (laid out, leaves with vertex
    /// formats, no runtime-sized array, as long as its format when it is one). Not API: the
    /// derive writes it for its structs.
    #[doc(hidden)]
    const NESTS: bool = tree::nests(&Self::WGSL, Self::HOST, size_of::<Self>());
}

// SAFETY: `GpuField`'s contract makes its `size_of::<T>() == FORMAT.byte_length()` bytes plain
// data valid for any bit pattern; `HostShape::Field` locates exactly those bytes.
unsafe impl<T: GpuField> GpuType for T {
    const WGSL: WgslType = carrier_type(T::FORMAT);
    const HOST: HostShape = HostShape::Field(T::FORMAT);
    const FLAT: Option<VertexFormat> = Some(T::FORMAT);
}

/// A matrix type `$ty` as `matCxR<f32>` with host shape `$host`.
#[cfg(any(feature = "glam", feature = "mint"))]
macro_rules! matrices {
    ($($ty:ty => $columns:literal x $rows:literal, $host:expr;)*) => {$(
        // SAFETY: glam's `Mat2`/`Mat3`/`Mat4` and mint's column matrices are `#[repr(C)]`
        // columns of `f32` vectors without padding (checked by the size assertion below), so the
        // packed columns are initialized plain data; `Mat3A`'s columns are `Vec3A`s whose
        // first 12 bytes are `x, y, z` (`HostShape::Columns` locates only those), and its
        // fourth lanes are initialized plain data only when `Mat3A: bytemuck::Pod` holds in
        // glam's build (`padding_initialized` is exactly that, read by `pod::Probe`).
        unsafe impl GpuType for $ty {
            const WGSL: WgslType = WgslType::Leaf(LeafType::Matrix {
                columns: $columns,
                rows: $rows,
                scalar: PrimitiveType::F32,
            });
            const HOST: HostShape = $host;
        }
        const _: () = assert!(
            size_of::<$ty>()
                >= $columns * $rows * 4
        );
    )*};
}

#[cfg(feature = "glam")]
matrices! {
    glam::Mat2 => 2 x 2, HostShape::Packed;
    glam::Mat3 => 3 x 3, HostShape::Packed;
    glam::Mat3A => 3 x 3, HostShape::Columns {
        stride: 16,
        padding_initialized: super::pod::GLAM_MAT3A,
    };
    glam::Mat4 => 4 x 4, HostShape::Packed;
}

#[cfg(feature = "mint")]
matrices! {
    mint::ColumnMatrix2<f32> => 2 x 2, HostShape::Packed;
    mint::ColumnMatrix3<f32> => 3 x 3, HostShape::Packed;
    mint::ColumnMatrix4<f32> => 4 x 4, HostShape::Packed;
    // mint names rows first: `ColumnMatrix2x3` is three columns of `Vector2`, WGSL's `mat3x2`.
    mint::ColumnMatrix2x3<f32> => 3 x 2, HostShape::Packed;
    mint::ColumnMatrix2x4<f32> => 4 x 2, HostShape::Packed;
    mint::ColumnMatrix3x2<f32> => 2 x 3, HostShape::Packed;
    mint::ColumnMatrix3x4<f32> => 4 x 3, HostShape::Packed;
    mint::ColumnMatrix4x2<f32> => 2 x 4, HostShape::Packed;
    mint::ColumnMatrix4x3<f32> => 3 x 4, HostShape::Packed;
}

// SAFETY: `Vec3A` is 16 bytes whose first 12 are `x, y, z` (`f32`s: initialized, any bit pattern
// valid); the fourth lane is padding under glam's `scalar-math` and is then not located:
// `padding_initialized` is true only when `Vec3A: bytemuck::Pod` holds in glam's build (SIMD
// targets: one register, all 16 bytes initialized plain data), read by `pod::Probe`.
#[cfg(feature = "glam")]
unsafe impl GpuType for glam::Vec3A {
    const WGSL: WgslType = WgslType::Leaf(LeafType::Vector {
        components: 3,
        scalar: PrimitiveType::F32,
    });
    const HOST: HostShape = HostShape::Columns {
        stride: 16,
        padding_initialized: super::pod::GLAM_VEC3A,
    };
}
