//! Rust types as GPU rows: [`GpuField`] maps a field type to a [`VertexFormat`], [`GpuStruct`]
//! (implemented by `#[derive(GpuStruct)]`) describes a whole row, and [`GpuFieldMarker`] types
//! name one field of one struct for typed child views.

use crate::format::VertexFormat;
use crate::layout::{GpuDataStructFormat, StepMode};

/// A Rust type stored as one fixed-width GPU value of [`FORMAT`](Self::FORMAT).
///
/// The host bytes of the value are its GPU bytes: implementors are [`bytemuck::Pod`] and their
/// size equals `FORMAT.byte_length()` (checked at compile time by every derive that uses them).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a gpu field type",
    label = "this type has no gpu vertex format",
    note = "gpu fields are `f32`, `u32`, `i32`, `u16`, `i16`, `u8`, `i8`, `half::f16` and arrays of 2, 3 or 4 of them where a format exists, glam/mint vectors (features), and normalized newtypes such as `gpudata::Unorm8x4`",
    note = "or annotate the field with `#[gpu(format = \"...\")]` when its bytes already match a format"
)]
pub trait GpuField: bytemuck::Pod {
    /// The format these bytes are.
    const FORMAT: VertexFormat;
}

/// A Rust struct whose values are rows of a [`GpuDataStructFormat`].
///
/// Derive it with `#[derive(GpuStruct)]`; the derive computes [`FORMAT`](Self::FORMAT) in a
/// `const` item with the same engine as runtime declarations.
///
/// # Safety
/// Implementing this trait by hand is unsafe: when [`HOST_LAYOUT_MATCHES`](Self::HOST_LAYOUT_MATCHES)
/// is `true`, the implementor promises that a `[Self]` slice's bytes are exactly its GPU rows:
/// `size_of::<Self>() == FORMAT.byte_stride()`, every byte of `Self` is initialized (no implicit
/// padding), and each field lies at its format offset. `encode_row` must write exactly
/// `FORMAT.byte_stride()` bytes.
pub unsafe trait GpuStruct: Copy + 'static {
    /// The row format: fields, offsets, stride.
    const FORMAT: GpuDataStructFormat;
    /// The step mode of the generated vertex layout.
    const STEP_MODE: StepMode;
    /// The vertex attributes with shader locations (empty when the struct cannot be fetched as
    /// vertices, e.g. a wgsl-storage struct holding a `-webgl` format).
    const ATTRIBUTES: &'static [wgpu::VertexAttribute];
    /// Whether `&[Self]`'s bytes are the GPU rows, so uploads are one memcpy.
    const HOST_LAYOUT_MATCHES: bool;

    /// Writes one row's GPU bytes into `dst` (`dst.len() == FORMAT.byte_stride()`), zeroing
    /// padding.
    fn encode_row(&self, dst: &mut [u8]);

    /// Reads one row from its GPU bytes (`src.len() >= FORMAT.row_byte_length()`).
    fn decode_row(src: &[u8]) -> Self;

    /// The wgpu vertex buffer layout of this struct.
    #[must_use]
    fn vertex_buffer_layout() -> wgpu::VertexBufferLayout<'static> {
        wgpu::VertexBufferLayout {
            array_stride: Self::FORMAT.byte_stride(),
            step_mode: Self::STEP_MODE.to_wgpu(),
            attributes: Self::ATTRIBUTES,
        }
    }
}

/// Names field [`INDEX`](Self::INDEX) of struct [`Struct`](Self::Struct); the derive generates
/// one marker type per field so `data.get_child::<Marker>()` is checked at compile time.
pub trait GpuFieldMarker {
    /// The struct the field belongs to.
    type Struct: GpuStruct;
    /// The field's Rust type.
    type Value: GpuField;
    /// The field's position in declaration order.
    const INDEX: usize;
    /// The field's name in the struct format.
    const NAME: &'static str;
}
