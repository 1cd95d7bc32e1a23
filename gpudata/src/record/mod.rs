//! Rust types as GPU rows: [`GpuField`] maps a field type to a [`VertexFormat`], [`GpuStruct`]
//! (implemented by `#[derive(GpuStruct)]`) describes a whole row, and [`GpuFieldMarker`] types
//! name one field of one struct for typed child views.
//!
//! Rows become GPU bytes through [`encode_rows`] (one `memcpy` when the host layout is the GPU
//! layout, see [`rows_as_bytes`]; a per-field encoder otherwise) and come back through
//! [`decode_rows`].
//!
//! Field types: `f32`, `u32`, `i32` and arrays of 2, 3 or 4 of them; `u16`, `i16`, `u8`, `i8` and
//! arrays of 2 or 4 (3 maps to the WebGL-only `-webgl` formats); `half::f16` and arrays of 2 or 4
//! (feature `half`); glam vectors (feature `glam`); and the normalized newtypes of this module,
//! such as [`Unorm8x4`] and [`Unorm10_10_10_2`]. Structs that are not `packed` also take any
//! [`GpuType`]: nested derived structs, arrays of them, `[[T; R]; C]`, glam and mint matrices,
//! `glam::Vec3A`, and any field reinterpreted with `#[gpu(wgsl = "...")]`; those fields are laid
//! out by WGSL's memory model and flattened into the row format with luma.gl's names
//! (`light.color`, `lights[2].color`, `transform[3]` for a matrix column). A storage struct may end
//! in a [`RuntimeArray<T>`] (WGSL's runtime-sized `array<T>`): it is then a
//! [`GpuRuntimeStruct`], a header plus elements, held by
//! [`GpuStorage`](crate::data::GpuStorage).

mod codec;
mod field;
pub(crate) mod field_check;
#[cfg(feature = "glam")]
mod glam;
mod gpu_type;
#[cfg(feature = "half")]
mod half;
pub(crate) mod host_shape;
#[cfg(feature = "mint")]
mod mint;
mod newtypes;
#[cfg(feature = "glam")]
mod pod;
mod runtime;
pub(crate) mod shader_rules;
pub(crate) mod tree;
mod uniform_layout;

pub use codec::{
    RowBytesError, THREADED_ENCODE_BYTES, decode_rows, decode_rows_on, decode_runtime, encode_rows,
    encode_rows_on, encode_rows_to_vec, encode_runtime, field_bytes, fields_as_bytes, read_field,
    rows_as_bytes,
};
pub(crate) use codec::{
    decode_elements, decode_rows_strided, encode_elements, read_fields, rows_as_bytes_mut,
    zeroed_rows,
};
pub use gpu_type::GpuType;
pub use host_shape::{HostMember, HostShape};
pub use newtypes::{
    Snorm8, Snorm8x2, Snorm8x4, Snorm16, Snorm16x2, Snorm16x4, Unorm8, Unorm8x2, Unorm8x4,
    Unorm8x4Bgra, Unorm10_10_10_2, Unorm16, Unorm16x2, Unorm16x4,
};
pub use runtime::{GpuRuntimeStruct, RuntimeArray};
pub use uniform_layout::UniformLayout;

/// How one GPU field's bytes move between a host struct and its GPU row (see
/// [`GpuStruct::FIELD_COPIES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FieldCopy {
    /// The field's offset inside the host struct.
    pub host: usize,
    /// The field's offset inside the GPU row.
    pub gpu: usize,
    /// The field's byte length (its format's).
    pub len: usize,
}

use crate::format::VertexFormat;
use crate::layout::{GpuDataStructField, GpuDataStructFormat, StepMode, WgslStruct};

/// A Rust type stored as one fixed-width GPU value of [`FORMAT`](Self::FORMAT).
///
/// The host bytes of the value are its GPU bytes, and `size_of::<Self>()` must equal
/// `FORMAT.byte_length()` (checked at compile time by every derive that uses the type, and by
/// [`impl_gpu_field!`](crate::impl_gpu_field)).
///
/// Implemented for Rust scalars and arrays, `half::f16` (feature `half`), glam vectors (feature
/// `glam`), mint vectors, points and quaternions (feature `mint`) and the normalized newtypes
/// such as [`Unorm8x4`]. A `bytemuck::Pod` type of your own becomes a field type with the safe
/// [`impl_gpu_field!`](crate::impl_gpu_field):
///
/// ```
/// #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// #[repr(C)]
/// struct Rgba8 {
///     r: u8,
///     g: u8,
///     b: u8,
///     a: u8,
/// }
///
/// gpudata::impl_gpu_field!(Rgba8 => Unorm8x4);
///
/// assert_eq!(<Rgba8 as gpudata::GpuField>::FORMAT, gpudata::VertexFormat::Unorm8x4);
/// ```
///
/// # Safety
/// `Self` is plain data, as [`bytemuck::Pod`] defines it (any `Pod` type qualifies): every byte
/// of every value is initialized (no padding), any bit pattern of `size_of::<Self>()` bytes is a
/// valid `Self` (GPU bytes decode into it unchecked), and it holds no pointers, references or
/// interior mutability (hence `Send + Sync`: transfers encode and decode values on several
/// threads). gpudata copies values to and from bytes relying on this. The trait is
/// `unsafe` rather than bounded by `Pod` so that types which are plain data but cannot be `Pod`
/// (the orphan rule keeps other crates' types, such as mint's, out of `Pod`) can be fields.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a gpu field type",
    label = "this type has no gpu vertex format",
    note = "gpu fields are `f32`, `u32`, `i32` and arrays of 2, 3 or 4 of them; `u16`, `i16`, `u8`, `i8` and arrays of 2 or 4; `half::f16` and arrays of 2 or 4; glam vectors (feature `glam`); mint vectors, points and quaternions (feature `mint`); and normalized newtypes such as `gpudata::Unorm8x4` or `gpudata::Snorm16x2`",
    note = "a `bytemuck::Pod` type of your own becomes one with `gpudata::impl_gpu_field!(MyType => Unorm8x4);`; `#[gpu(format = \"...\")]` reinterprets a supported type (e.g. `[u8; 4]` as `unorm8x4`); `#[gpu(padding)]` keeps a host-only field out of the gpu row"
)]
pub unsafe trait GpuField: Copy + Send + Sync + 'static {
    /// The format these bytes are.
    const FORMAT: VertexFormat;
}

/// Makes `bytemuck::Pod` types [`GpuField`]s, safely: `impl_gpu_field!(Type => Format, ...)`,
/// where `Format` names a [`VertexFormat`](crate::VertexFormat) variant. A type that is not
/// `Pod`, or whose size is not the format's byte length, is a compile error.
///
/// ```
/// #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// #[repr(transparent)]
/// struct Meters(f32);
///
/// #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// #[repr(transparent)]
/// struct Rgb10A2(u32);
///
/// gpudata::impl_gpu_field!(Meters => Float32, Rgb10A2 => Unorm10_10_10_2);
/// ```
///
/// ```compile_fail
/// #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// #[repr(C)]
/// struct Rgb([u8; 3]);
///
/// // 3 bytes are not a `unorm8x4` (4 bytes): a compile error naming both sizes.
/// gpudata::impl_gpu_field!(Rgb => Unorm8x4);
/// ```
#[macro_export]
macro_rules! impl_gpu_field {
    ($($ty:ty => $format:ident),+ $(,)?) => {$(
        const _: () = $crate::__private::check_plain_field::<$ty>(
            ::core::stringify!($ty),
            $crate::VertexFormat::$format,
        );
        // SAFETY: `check_plain_field` requires `$ty: bytemuck::Pod`, which is `GpuField`'s
        // plain-data contract.
        unsafe impl $crate::GpuField for $ty {
            const FORMAT: $crate::VertexFormat = $crate::VertexFormat::$format;
        }
    )+};
}

/// Checks at compile time that the derived vertex structs `T, U, …` together feed vertex entry
/// point `"entry"`: each was checked against it on its own (`#[gpu(shader = "...",
/// vertex_entry = "entry")]`: every attribute feeds the input at its location, by WebGPU's
/// rules), and together no location is fed twice and every input the entry point reads is fed.
/// Locations come from each struct's `#[gpu(location = N)]`. The run-time twin, for shaders
/// loaded at run time, is [`Shader::check_vertex_state`](crate::check::Shader::check_vertex_state).
///
/// ```
/// use gpudata::GpuStruct;
///
/// // A mesh buffer (locations 0, 1) read by a depth pass and a shaded pass ...
/// #[derive(GpuStruct, Clone, Copy)]
/// #[gpu(layout = "packed", shader = "../tests/shaders/shadow.wgsl", vertex_entry = "vs_bake, vs_main")]
/// struct Vertex {
///     position: [i8; 4],
///     normal: [i8; 4],
/// }
///
/// // ... and an instance buffer at location 2, read by the shaded pass.
/// #[derive(GpuStruct, Clone, Copy)]
/// #[gpu(layout = "packed", step_mode = "instance", location = 2,
///       shader = "../tests/shaders/shadow.wgsl", vertex_entry = "vs_main")]
/// struct Instance {
///     tint: [f32; 4],
/// }
///
/// gpudata::check_vertex_set!("vs_bake": Vertex);
/// gpudata::check_vertex_set!("vs_main": Vertex, Instance);
/// ```
///
/// A failing set is a compile error naming the buffer, the location or the input
/// (`tests/ui/shader/vertex_set_*.rs`).
#[macro_export]
macro_rules! check_vertex_set {
    ($entry:literal : $($ty:ty),+ $(,)?) => {
        const _: () = $crate::__private::fail_if(&$crate::__private::vertex_set_problem(
            $entry,
            &[$(::core::stringify!($ty)),+],
            &[$(<$ty as $crate::GpuStruct>::VERTEX_ENTRIES),+],
            &[$(<$ty as $crate::GpuStruct>::ATTRIBUTES),+],
        ));
    };
}

/// A Rust struct whose values are rows of a [`GpuDataStructFormat`].
///
/// Derive it with `#[derive(GpuStruct)]` (see the derive's documentation for attributes); the
/// derive computes [`FORMAT`](Self::FORMAT) in a `const` item with the same engine as runtime
/// declarations, so `*T::FORMAT` equals `GpuDataStructFormat::new` over the same fields.
/// `FORMAT` is the one description of the row: names, formats, offsets and totals are read from
/// it, in `const` items too (`const STRIDE: u64 = Particle::FORMAT.byte_stride();`).
///
/// # Vertex layouts
/// [`vertex_buffer_layout`](Self::vertex_buffer_layout) is a derived struct's wgpu vertex
/// layout as a `'static` value, checked at compile time: it never drops attributes. For a struct
/// with a WebGL-only (`-webgl`) field, which no wgpu vertex attribute can read, asking for it is
/// a compile error spanned at that field (the `packed` layout refuses such fields outright; a
/// `wgsl-storage` struct may hold them as long as nothing asks for its vertex layout). It equals
/// [`VertexLayoutSource::vertex_layout`](crate::layout::VertexLayoutSource::vertex_layout) of
/// [`FORMAT`](Self::FORMAT) at the struct's `#[gpu(location = N)]` and
/// [`STEP_MODE`](Self::STEP_MODE), the one way to a vertex layout from anything else (formats
/// built at run time, data, views, constants, vectors, tables), which returns the error.
///
/// # Safety
/// Implementing this trait by hand is unsafe. The implementor promises that every field of `Self`
/// is plain data (a [`GpuField`] or a `bytemuck::Pod` padding field: initialized, valid for any
/// bit pattern, so an all-zero `Self` is valid); that `FIELD_COPIES[i]` moves field `i` of
/// [`FORMAT`](Self::FORMAT): `host..host + len` is that field inside `Self`, of a type exactly
/// `len == FORMAT.fields()[i].byte_length()` bytes, and `gpu == FORMAT.fields()[i].byte_offset()`;
/// and, when [`HOST_LAYOUT_MATCHES`](Self::HOST_LAYOUT_MATCHES) is `true`, that a `[Self]`
/// slice's bytes are exactly its GPU rows: `size_of::<Self>() == FORMAT.byte_stride()`, no
/// implicit padding, each field at its format offset.
pub unsafe trait GpuStruct: Copy + Send + Sync + 'static {
    /// The row format: fields, offsets, stride. A `'static` reference, so that every part of it
    /// is usable in `const` items.
    const FORMAT: &'static GpuDataStructFormat;
    /// The step mode of the generated vertex layout (`Vertex` unless said otherwise).
    const STEP_MODE: StepMode = StepMode::Vertex;
    /// The vertex attributes with shader locations, one per field of `FORMAT` at consecutive
    /// locations (what [`vertex_buffer_layout`](Self::vertex_buffer_layout) reads). A derived
    /// struct's value fails to compile, at the offending field, when a field has a `-webgl`
    /// format (no wgpu vertex attribute reads one). Set by the derive.
    #[doc(hidden)]
    const ATTRIBUTES: &'static [wgpu::VertexAttribute];
    /// Whether `&[Self]`'s bytes are the GPU rows, so uploads are one memcpy.
    const HOST_LAYOUT_MATCHES: bool;

    /// How each GPU field's bytes move between `Self` and the GPU row, in format order: its
    /// offset inside `Self` (`offset_of!`), its GPU offset and its byte length. This table drives
    /// [`encode_row`](Self::encode_row) and [`decode_row`](Self::decode_row); because it is a
    /// constant, the compiler turns their loops into plain stores at fixed offsets.
    const FIELD_COPIES: &'static [FieldCopy];

    /// The struct as a WGSL type tree, and where its GPU bytes lie in its host bytes: what the
    /// shader check ([`check`](crate::check), feature `naga`) compares level by level. The
    /// derive sets it for every struct that is not `packed`; `None` (the default) compares the
    /// flat rows of [`FORMAT`](Self::FORMAT).
    #[doc(hidden)]
    const TREE: Option<(&'static WgslStruct, &'static HostShape)> = None;

    /// The vertex entry points the struct was checked against (`#[gpu(vertex_entry = "...")]`)
    /// and every input each reads, for [`check_vertex_set!`](crate::check_vertex_set). Set by
    /// the derive; empty by default.
    #[doc(hidden)]
    const VERTEX_ENTRIES: &'static [shader_rules::VertexEntry] = &[];

    /// Writes one row's GPU bytes into `dst`: each field's bytes at its format offset, every
    /// padding byte zeroed.
    ///
    /// # Panics
    /// When `dst.len() != FORMAT.byte_stride()`.
    #[inline]
    fn encode_row(&self, dst: &mut [u8]) {
        codec::encode_row_by_table(self, dst);
    }

    /// Reads one row from its GPU bytes; host-only `#[gpu(padding)]` fields come back zeroed.
    ///
    /// # Panics
    /// When `src.len() < FORMAT.row_byte_length()`.
    #[inline]
    #[must_use]
    fn decode_row(src: &[u8]) -> Self {
        codec::decode_row_by_table(src)
    }

    /// The wgpu vertex buffer layout of this struct: every field an attribute, stepping by
    /// [`STEP_MODE`](Self::STEP_MODE) (`#[gpu(step_mode = "...")]`), locations from
    /// `#[gpu(location = N)]`. For another step mode, override the field:
    /// `wgpu::VertexBufferLayout { step_mode: wgpu::VertexStepMode::Instance, ..T::vertex_buffer_layout() }`;
    /// for other locations, or an owned layout,
    /// [`T::FORMAT.vertex_layout(location, step_mode)`](crate::layout::VertexLayoutSource::vertex_layout).
    #[must_use]
    fn vertex_buffer_layout() -> wgpu::VertexBufferLayout<'static> {
        wgpu::VertexBufferLayout {
            array_stride: Self::FORMAT.byte_stride(),
            step_mode: Self::STEP_MODE.to_wgpu(),
            attributes: Self::ATTRIBUTES,
        }
    }

    /// The format entry of the field that marker `M` names; a marker of another struct does not
    /// compile.
    #[must_use]
    fn field<M: GpuFieldOf<Self>>() -> &'static GpuDataStructField {
        &Self::FORMAT.fields()[M::INDEX]
    }
}

/// Names field [`INDEX`](Self::INDEX) of struct [`Struct`](Self::Struct); the derive generates
/// one marker type per GPU field so `data.get_child::<Marker>()` is checked at compile time.
///
/// For `struct Particle`, the markers live in the module `particle_fields` (the struct's name in
/// snake case plus `_fields`, or the name given by `#[gpu(fields = "...")]`), one unit struct per
/// field named in UpperCamelCase: field `position` → `particle_fields::Position`.
///
/// Every field has a marker, matrices, arrays and nested structs included: such a field is
/// several entries of the struct format (its leaves: a matrix's columns, an array's elements, a
/// struct's members), and its marker's [`INDEX`](Self::INDEX), [`FORMAT`](Self::FORMAT) and
/// [`FIELD`](Self::FIELD) are those of its first leaf, while [`NAME`](Self::NAME) is the field's
/// and [`BYTE_OFFSET`](Self::BYTE_OFFSET) where the field starts. Reading values
/// ([`get`](Self::get), typed child views) needs a [`GpuField`] value, one format per row.
pub trait GpuFieldMarker: 'static {
    /// The struct the field belongs to.
    type Struct: GpuStruct;
    /// The field's Rust type.
    type Value: Copy + 'static;
    /// The position among the struct format's fields (padding fields are not counted) of the
    /// field, or of its first leaf.
    const INDEX: usize;
    /// The field's name in the struct format (for a field of several leaves, the name their
    /// paths start with: `proj` for `proj[0]` to `proj[3]`).
    const NAME: &'static str = Self::FIELD.name();
    /// The field's format in the row: `<Value as GpuField>::FORMAT`, or the
    /// `#[gpu(format = "...")]` override; for a field of several leaves, its first leaf's.
    const FORMAT: VertexFormat = Self::FIELD.format();
    /// The field's byte offset in the row.
    const BYTE_OFFSET: u64 = Self::FIELD.byte_offset();
    /// The field's entry in [`GpuStruct::FORMAT`] (for a field of several leaves, its first
    /// leaf's).
    const FIELD: &'static GpuDataStructField =
        &<Self::Struct as GpuStruct>::FORMAT.fields()[Self::INDEX];

    /// Reads the field's value from a host row: the field's bytes, found through
    /// [`GpuStruct::FIELD_COPIES`] (no row is encoded).
    ///
    /// # Panics
    /// When a hand-written marker's `INDEX` names no field, or its `Value` is not as long as
    /// the field (a derived marker always fits: the derive checks it at compile time).
    #[must_use]
    fn get(row: &Self::Struct) -> Self::Value
    where
        Self::Value: GpuField,
    {
        let bytes = codec::host_field_bytes(row, Self::INDEX);
        match bytes.and_then(read_field) {
            Some(value) => value,
            None => panic!(
                "field `{}` ({} bytes) does not match field {} of its row ({:?} bytes)",
                Self::NAME,
                size_of::<Self::Value>(),
                Self::INDEX,
                bytes.map(<[u8]>::len)
            ),
        }
    }
}

/// `Self` is a marker of a field of `S`: the bound to use on typed child accessors, so a marker
/// of another struct is refused with a message that says which struct's markers fit.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a field marker of `{S}`",
    label = "this marker names a field of another struct",
    note = "the markers of `{S}` are in the module `#[derive(GpuStruct)]` generated next to it, named after it in snake case plus `_fields` (`struct Particle` → `particle_fields::Position`)"
)]
pub trait GpuFieldOf<S: GpuStruct>: GpuFieldMarker<Struct = S> {}
