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
// Constants named like the bindings an earlier expansion used in the patterns of its `const`s
// (a constant of such a name turns a binding into a constant pattern, which mixed-site spans do
// not prevent): the expansion now binds nothing in patterns, so none of these can break it.
#[allow(
    non_upper_case_globals,
    reason = "named like the bindings they would shadow"
)]
const __gpudata_spot: ::core::primitive::u8 = 0;
#[allow(
    non_upper_case_globals,
    reason = "named like the bindings they would shadow"
)]
const __gpudata_msg: ::core::primitive::u8 = 0;
#[allow(
    non_upper_case_globals,
    reason = "named like the bindings they would shadow"
)]
const __gpudata_list: ::core::primitive::u8 = 0;
#[allow(
    non_upper_case_globals,
    reason = "named like the bindings they would shadow"
)]
const __gpudata_k: ::core::primitive::u8 = 0;
// Names the nested expansion reaches by absolute path.
trait GpuType {}
trait Described {}
trait Flattened {}
struct WgslType;
struct HostShape;
// Names the runtime-sized expansion reaches by absolute path.
trait GpuRuntimeStruct {}
struct TypeLayout;
struct FieldCopy;

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

// The nested path (WGSL's memory model, flattened leaves) under the same shadows, with a
// `-webgl` field (its vertex-layout arm) and every attribute that arm and the problem arms read.
#[derive(::core::clone::Clone, ::core::marker::Copy, ::gpudata::GpuStruct)]
#[repr(C)]
#[gpu(layout = "wgsl-uniform")]
struct Nested {
    #[gpu(wgsl = "mat4x4<f32>")]
    transform: [[::core::primitive::f32; 4]; 4],
    inner: Storage,
    #[gpu(align = 16, size = 32)]
    tag: ::core::primitive::u32,
    #[gpu(format = "uint8x4")]
    bytes: [::core::primitive::u8; 4],
}

// A runtime-sized tail (its `GpuRuntimeStruct` impl) under the same shadows, with the keys the
// tail takes.
#[derive(::core::clone::Clone, ::core::marker::Copy, ::gpudata::GpuStruct)]
struct Tail {
    count: ::core::primitive::u32,
    #[gpu(align = 32, name = "elements")]
    items: ::gpudata::record::RuntimeArray<Storage>,
}

// The shader check's expansion (`gpudata-derive/src/shader/asserts.rs`) under the same shadows,
// with the consts above named like the binding its earlier version used (`__gpudata_msg`).
struct ShaderTree;
struct ShaderStruct;
struct ShaderStructMember;
struct ShaderMember;
struct LeafType;
struct PrimitiveType;
fn fail_if() {}
fn member_problem() {}

#[derive(::core::clone::Clone, ::core::marker::Copy, ::gpudata::GpuStruct)]
#[gpu(shader = "tests/shaders/scene.wgsl", shader_struct = "Light")]
struct CheckedLight {
    position: [::core::primitive::f32; 3],
    intensity: ::core::primitive::f32,
    color: [::core::primitive::f32; 4],
}

#[derive(::core::clone::Clone, ::core::marker::Copy, ::gpudata::GpuStruct)]
#[gpu(
    layout = "wgsl-uniform",
    shader = "tests/shaders/scene.wgsl",
    shader_global = "scene",
    group = 0,
    binding = 0
)]
struct CheckedScene {
    #[gpu(wgsl = "mat4x4<f32>")]
    view: [[::core::primitive::f32; 4]; 4],
    #[gpu(wgsl = "mat3x3<f32>")]
    normal: [[::core::primitive::f32; 3]; 3],
    lights: [CheckedLight; 4],
    exposure: ::core::primitive::f32,
}

#[derive(::core::clone::Clone, ::core::marker::Copy, ::gpudata::GpuStruct)]
#[gpu(
    layout = "packed",
    shader = "tests/shaders/particles.wgsl",
    vertex_entry = "vs_main"
)]
struct CheckedVertex {
    position: [::core::primitive::f32; 3],
    color: ::gpudata::Unorm8x4,
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
    // transform 0..64, inner (Storage: 48 bytes, 16-aligned) 64, tag @align(16) @size(32) 112,
    // bytes 144; 160 bytes.
    ::core::assert_eq!(<Nested as ::gpudata::GpuStruct>::FORMAT.byte_stride(), 160);
    ::core::assert_eq!(
        <Nested as ::gpudata::GpuStruct>::FORMAT.fields()[4].name(),
        "inner.a"
    );
    // Storage is 48 bytes, 16-aligned; `@align(32)` puts the tail at 32.
    let tail = <Tail as ::gpudata::record::GpuRuntimeStruct>::tail();
    ::core::assert_eq!((tail.offset, tail.stride), (32, 48));
    ::core::assert_eq!(
        <Tail as ::gpudata::record::GpuRuntimeStruct>::HEADER_FIELDS[0].name(),
        "count"
    );
    let _ = (__gpudata_spot, __gpudata_msg, __gpudata_list, __gpudata_k);
}
