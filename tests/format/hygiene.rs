//! The derive's output names everything by absolute path: it compiles without the prelude and
//! with local items shadowing the primitives, `Option`, `Copy` and the names it uses inside.

#![no_implicit_prelude]
#![allow(
    non_camel_case_types,
    dead_code,
    reason = "local items shadow primitives and prelude names on purpose"
)]

// Shadows of the names the expansion (`gpudata-derive/src/expand.rs`, `fallback.rs`) reaches by
// absolute path: primitive types still resolve without the prelude, so a bare `usize` or `bool`
// in the output would pick these up; the prelude items and traits would be found here.
struct usize;
struct bool;
struct Option;
struct Some;
struct None;
struct Result;
struct Ok;
struct Err;
trait Copy {}
trait GpuStruct {}
trait GpuField {}
trait GpuFieldMarker {}
trait GpuFieldOf {}
// Local modules named like the crates and modules the expansion reaches through `::`
// (`::core::…`, `::gpudata::__private::…`, `…::__private::wgpu::…`).
mod core {}
mod gpudata {}
mod __private {}
mod wgpu {}
// Not shadowed: `__gpudata_spot`, `__gpudata_msg`, `__gpudata_list` and `__gpudata_k`, the
// names the expansion binds in the patterns of its `const`s. A constant of such a name in scope
// turns the binding into a constant pattern and breaks the derive (mixed-site spans do not
// prevent it), so the `__gpudata` prefix is reserved; the expansion would need patterns without
// bindings to lift that.

#[derive(::core::clone::Clone, ::core::marker::Copy, ::gpudata::GpuStruct)]
#[repr(C)]
#[gpu(
    layout = "packed",
    step_mode = "instance",
    location = 1,
    stride = 24,
    zero_copy
)]
struct Packed {
    #[gpu(offset = 0)]
    position: [::core::primitive::f32; 3],
    #[gpu(format = "unorm8x4", name = "tint")]
    color: [::core::primitive::u8; 4],
    normal: ::gpudata::Snorm16x2,
    value: ::core::primitive::u32,
}

#[derive(::core::clone::Clone, ::core::marker::Copy, ::gpudata::GpuStruct)]
#[repr(C)]
struct Storage {
    a: ::core::primitive::u8,
    #[gpu(padding)]
    _pad: [::core::primitive::u8; 15],
    b: [::core::primitive::f32; 4],
    c: [::core::primitive::u16; 3],
}

#[derive(::core::clone::Clone, ::core::marker::Copy, ::gpudata::GpuStruct)]
struct NotReprC {
    #[gpu(format = "unorm10-10-10-2")]
    packed: ::core::primitive::u32,
    meters: Meters,
}

// `impl_gpu_field!` names everything by absolute path too.
#[derive(::core::clone::Clone, ::core::marker::Copy, ::bytemuck::Pod, ::bytemuck::Zeroable)]
#[repr(transparent)]
struct Meters(::core::primitive::f32);

::gpudata::impl_gpu_field!(Meters => Float32);

#[test]
fn derives_without_the_prelude() {
    ::core::assert_eq!(<Packed as ::gpudata::GpuStruct>::FORMAT.byte_stride(), 24);
    const { ::core::assert!(<Packed as ::gpudata::GpuStruct>::HOST_LAYOUT_MATCHES) };
    ::core::assert_eq!(
        <Storage as ::gpudata::GpuStruct>::FORMAT.fields()[2].byte_offset(),
        32
    );
    const { ::core::assert!(!<NotReprC as ::gpudata::GpuStruct>::HOST_LAYOUT_MATCHES) };
    ::core::assert_eq!(
        <NotReprC as ::gpudata::GpuStruct>::FORMAT.fields()[1].format(),
        ::gpudata::VertexFormat::Float32
    );
    ::core::assert_eq!(
        <packed_fields::Color as ::gpudata::record::GpuFieldMarker>::NAME,
        "tint"
    );
    let row = Storage {
        a: 1,
        _pad: [0; 15],
        b: [1.0, 2.0, 3.0, 4.0],
        c: [5, 6, 7],
    };
    let bytes = ::gpudata::record::encode_rows_to_vec(&[row]);
    let back = <Storage as ::gpudata::GpuStruct>::decode_row(&bytes);
    ::core::assert_eq!(back.c, [5, 6, 7]);
}
