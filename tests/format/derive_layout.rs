//! `#[derive(GpuStruct)]` layouts: for structs covering all 49 vertex formats under both
//! layouts, `T::FORMAT` equals the runtime layout of the same declaration; the spec's struct
//! test vectors (luma-behaviour §11.3) hold for derived structs; the vertex layout matches the
//! runtime lowering; and `T::FORMAT` serializes to luma.gl's JSON shape.

use std::collections::BTreeSet;

use crate::fixtures::*;
use gpudata::{
    GpuDataStructFormat, GpuStruct, StepMode, StructLayout, Unorm8x4, Unorm10_10_10_2, VertexFormat,
};
use half::f16;

/// The same field list, declared at run time from `T::FORMAT`'s names and formats.
fn runtime_twin<T: GpuStruct>() -> GpuDataStructFormat {
    let fields: Vec<(String, VertexFormat)> = T::FORMAT
        .fields()
        .iter()
        .map(|f| (f.name().to_owned(), f.format()))
        .collect();
    GpuDataStructFormat::new(T::FORMAT.layout(), fields).expect("runtime layout")
}

fn formats_of<T: GpuStruct>() -> Vec<VertexFormat> {
    T::FORMAT.fields().iter().map(|f| f.format()).collect()
}

fn offsets_of<T: GpuStruct>() -> Vec<u64> {
    T::FORMAT.fields().iter().map(|f| f.byte_offset()).collect()
}

/// `T::FORMAT` equals the runtime layout.
fn assert_matches_runtime<T: GpuStruct>(layout: StructLayout) {
    assert_eq!(T::FORMAT.layout(), layout);
    assert_eq!(*T::FORMAT, runtime_twin::<T>());
}

/// As [`assert_matches_runtime`], and the wgpu vertex layout equals the runtime lowering, every
/// field an attribute (for structs without `-webgl` fields: asking for the vertex layout of
/// one is a compile error, `tests/ui/fail/format/webgl_vertex_layout.rs`).
fn assert_vertex_matches_runtime<T: GpuStruct>(layout: StructLayout) {
    assert_matches_runtime::<T>(layout);
    let vertex = T::vertex_buffer_layout();
    let runtime = T::FORMAT
        .buffer_layout("", Some(T::STEP_MODE))
        .to_wgpu(0)
        .expect("no -webgl field");
    // The one way to a vertex layout gives the same.
    let one_way = gpudata::layout::VertexLayoutSource::vertex_layout(T::FORMAT, 0, T::STEP_MODE)
        .expect("no -webgl field");
    assert_eq!(one_way.buffers(), std::slice::from_ref(&runtime));
    assert_eq!(vertex.array_stride, runtime.array_stride);
    assert_eq!(vertex.step_mode, runtime.step_mode);
    assert_eq!(vertex.attributes, runtime.attributes.as_slice());
    assert_eq!(vertex.attributes.len(), T::FORMAT.fields().len());
}

#[test]
fn every_struct_equals_its_runtime_declaration() {
    assert_vertex_matches_runtime::<Bytes8Packed>(StructLayout::Packed);
    assert_vertex_matches_runtime::<Bytes8Storage>(StructLayout::WgslStorage);
    assert_vertex_matches_runtime::<Bytes16Packed>(StructLayout::Packed);
    assert_vertex_matches_runtime::<Bytes16Storage>(StructLayout::WgslStorage);
    assert_vertex_matches_runtime::<Bytes32Packed>(StructLayout::Packed);
    assert_vertex_matches_runtime::<Bytes32Storage>(StructLayout::WgslStorage);
    assert_vertex_matches_runtime::<OverridesPacked>(StructLayout::Packed);
    assert_vertex_matches_runtime::<OverridesStorage>(StructLayout::WgslStorage);
    assert_matches_runtime::<WebglOnly>(StructLayout::WgslStorage);
}

#[test]
fn the_structs_cover_all_49_formats_under_each_layout_that_allows_them() {
    let packed: BTreeSet<VertexFormat> = [
        formats_of::<Bytes8Packed>(),
        formats_of::<Bytes16Packed>(),
        formats_of::<Bytes32Packed>(),
    ]
    .concat()
    .into_iter()
    .collect();
    let storage: BTreeSet<VertexFormat> = [
        formats_of::<Bytes8Storage>(),
        formats_of::<Bytes16Storage>(),
        formats_of::<Bytes32Storage>(),
        formats_of::<WebglOnly>(),
    ]
    .concat()
    .into_iter()
    .collect();
    let all: BTreeSet<VertexFormat> = VertexFormat::ALL.into_iter().collect();
    let vertex: BTreeSet<VertexFormat> =
        all.iter().copied().filter(|f| !f.is_webgl_only()).collect();
    assert_eq!(storage, all);
    assert_eq!(packed, vertex);
    assert_eq!(vertex.len(), 41);
}

#[test]
fn field_types_map_to_their_formats() {
    use VertexFormat as F;
    assert_eq!(
        formats_of::<Bytes8Packed>(),
        [
            F::Uint8,
            F::Uint8x2,
            F::Uint8x4,
            F::Sint8,
            F::Sint8x2,
            F::Sint8x4,
            F::Unorm8,
            F::Unorm8x2,
            F::Unorm8x4,
            F::Unorm8x4Bgra,
            F::Unorm10_10_10_2,
            F::Snorm8,
            F::Snorm8x2,
            F::Snorm8x4
        ]
    );
    assert_eq!(
        formats_of::<OverridesStorage>(),
        [
            F::Unorm8x4,
            F::Float32,
            F::Snorm16x2,
            F::Unorm10_10_10_2,
            F::Unorm8x4Bgra,
            F::Uint8,
            F::Float16x2,
            F::Float32x3
        ]
    );
    assert_eq!(
        formats_of::<WebglOnly>()[..8],
        [
            F::Uint8x3Webgl,
            F::Sint8x3Webgl,
            F::Unorm8x3Webgl,
            F::Snorm8x3Webgl,
            F::Uint16x3Webgl,
            F::Sint16x3Webgl,
            F::Unorm16x3Webgl,
            F::Snorm16x3Webgl
        ]
    );
}

#[test]
fn the_two_layouts_place_the_same_fields_differently() {
    // Packed: each field aligned to min(4, size); wgsl-storage: 8/16-bit formats take a word.
    assert_eq!(
        offsets_of::<OverridesPacked>(),
        [0, 4, 8, 12, 16, 20, 24, 28]
    );
    assert_eq!(Bytes32Packed::FORMAT.byte_stride(), 4 * (1 + 2 + 3 + 4) * 3);
    assert_eq!(
        offsets_of::<OverridesStorage>(),
        [0, 4, 8, 12, 16, 20, 24, 32]
    );
    assert_eq!(OverridesStorage::FORMAT.byte_stride(), 48);
    assert_eq!(
        offsets_of::<Bytes8Storage>(),
        (0..14).map(|i| i * 4).collect::<Vec<u64>>()
    );
    assert_eq!(Bytes8Packed::FORMAT.fields()[1].byte_offset(), 2);
}

// Spec §11.3 test vectors, as derived structs.

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "packed", step_mode = "instance")]
struct V23 {
    tag: u8,
    pair: [u8; 2],
    color: Unorm8x4,
    position: [f32; 3],
}

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "packed")]
struct V24 {
    tag: u8,
}

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "packed")]
struct V25 {
    tag: u8,
    value: f32,
}

#[derive(Clone, Copy, GpuStruct)]
struct V28 {
    tag: u8,
    position: [f32; 3],
    color: Unorm8x4,
}

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "packed")]
struct V29 {
    a: f16,
    b: u8,
    c: [f32; 2],
}

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "packed")]
struct V30 {
    a: u8,
    b: Unorm10_10_10_2,
}

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "packed")]
struct V31 {
    a: u8,
    b: u16,
    c: u8,
    d: [f16; 4],
}

#[derive(Clone, Copy, GpuStruct)]
struct V32 {
    a: [f32; 2],
    b: f32,
}

#[derive(Clone, Copy, GpuStruct)]
struct V33 {
    a: f32,
    b: [f32; 3],
}

#[derive(Clone, Copy, GpuStruct)]
struct V34 {
    h: [f16; 4],
}

#[derive(Clone, Copy, GpuStruct)]
struct V35 {
    a: [u16; 3],
    b: f32,
}

#[derive(Clone, Copy, GpuStruct)]
struct V36 {
    a: u8,
    b: u8,
}

/// Offsets, row byte length, byte stride, components.
fn shape_of<T: GpuStruct>() -> (Vec<u64>, u64, u64, u32) {
    (
        offsets_of::<T>(),
        T::FORMAT.row_byte_length(),
        T::FORMAT.byte_stride(),
        T::FORMAT.components(),
    )
}

#[test]
fn spec_struct_vectors_hold_for_derived_structs() {
    assert_eq!(shape_of::<V23>(), (vec![0, 2, 4, 8], 20, 20, 10));
    assert_eq!(shape_of::<V24>(), (vec![0], 1, 4, 1));
    assert_eq!(shape_of::<V25>(), (vec![0, 4], 8, 8, 2));
    assert_eq!(shape_of::<V28>(), (vec![0, 16, 28], 32, 32, 8));
    assert_eq!(shape_of::<V29>(), (vec![0, 2, 4], 12, 12, 4));
    assert_eq!(shape_of::<V30>(), (vec![0, 4], 8, 8, 5));
    assert_eq!(shape_of::<V31>(), (vec![0, 2, 4, 8], 16, 16, 7));
    assert_eq!(shape_of::<V32>(), (vec![0, 8], 12, 16, 3));
    assert_eq!(shape_of::<V33>(), (vec![0, 16], 28, 32, 4));
    assert_eq!(shape_of::<V34>(), (vec![0], 8, 8, 4));
    assert_eq!(shape_of::<V35>(), (vec![0, 8], 12, 16, 4));
    assert_eq!(shape_of::<V36>(), (vec![0, 4], 5, 8, 2));
    assert_eq!(runtime_twin::<V23>(), *V23::FORMAT);
    assert_eq!(runtime_twin::<V28>(), *V28::FORMAT);
    assert_eq!(runtime_twin::<V31>(), *V31::FORMAT);
    assert_eq!(runtime_twin::<V35>(), *V35::FORMAT);
}

#[test]
fn spec_vector_27_buffer_layout_of_a_derived_struct() {
    let layout = V23::FORMAT.buffer_layout("vertices", Some(StepMode::Instance));
    let expected = GpuDataStructFormat::parse(
        StructLayout::Packed,
        [
            ("tag", "uint8"),
            ("pair", "uint8x2"),
            ("color", "unorm8x4"),
            ("position", "float32x3"),
        ],
    )
    .unwrap()
    .buffer_layout("vertices", Some(StepMode::Instance));
    assert_eq!(layout, expected);
    assert_eq!(layout.byte_stride, Some(20));

    let vertex = V23::vertex_buffer_layout();
    assert_eq!(vertex.step_mode, wgpu::VertexStepMode::Instance);
    assert_eq!(vertex.array_stride, 20);
    let attrs: Vec<(wgpu::VertexFormat, u64, u32)> = vertex
        .attributes
        .iter()
        .map(|a| (a.format, a.offset, a.shader_location))
        .collect();
    assert_eq!(
        attrs,
        [
            (wgpu::VertexFormat::Uint8, 0, 0),
            (wgpu::VertexFormat::Uint8x2, 2, 1),
            (wgpu::VertexFormat::Unorm8x4, 4, 2),
            (wgpu::VertexFormat::Float32x3, 8, 3)
        ]
    );
    let vertex_stepped = wgpu::VertexBufferLayout {
        step_mode: StepMode::Vertex.to_wgpu(),
        ..V23::vertex_buffer_layout()
    };
    assert_eq!(vertex_stepped.step_mode, wgpu::VertexStepMode::Vertex);
}

/// Issue 13: a `-webgl` field used to leave the derived vertex layout with no attributes at
/// all. Now asking for it is a compile error at the field
/// (`tests/ui/fail/format/webgl_vertex_layout.rs`); the runtime lowering of the same format
/// names the field, and a struct without such a field has every field as an attribute.
#[test]
fn a_webgl_format_has_no_vertex_layout_and_says_which_field() {
    for format in [WebglOnly::FORMAT, V35::FORMAT] {
        let error = format.buffer_layout("", None).to_wgpu(0).unwrap_err();
        assert!(
            matches!(error, gpudata::LayoutError::WebglOnlyVertexAttribute { .. }),
            "{error}"
        );
    }
    assert_eq!(V36::ATTRIBUTES.len(), 2);
    assert_eq!(V36::vertex_buffer_layout().attributes.len(), 2);
}

#[test]
fn format_is_usable_in_const_items() {
    const STRIDE: u64 = V33::FORMAT.byte_stride();
    const BUFFER: [u8; STRIDE as usize] = [0; STRIDE as usize];
    assert_eq!(BUFFER.len(), 32);
    // Every part of the one format constant is `const`: names, formats and offsets too.
    const SECOND: (&str, u64) = (
        V33::FORMAT.fields()[1].name(),
        V33::FORMAT.fields()[1].byte_offset(),
    );
    assert_eq!(SECOND, ("b", 16));
}

#[test]
fn format_serializes_to_the_luma_json_shape() {
    let json = serde_json::to_string(&V23::FORMAT).unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"type":"struct","layout":"packed","fields":{"#,
            r#""tag":{"format":"uint8","byteOffset":0,"byteLength":1},"#,
            r#""pair":{"format":"uint8x2","byteOffset":2,"byteLength":2},"#,
            r#""color":{"format":"unorm8x4","byteOffset":4,"byteLength":4},"#,
            r#""position":{"format":"float32x3","byteOffset":8,"byteLength":12}},"#,
            r#""components":10,"byteStride":20,"rowByteLength":20}"#
        )
    );
    let storage = serde_json::to_value(V28::FORMAT).unwrap();
    assert_eq!(
        storage,
        serde_json::json!({
            "type": "struct",
            "layout": "wgsl-storage",
            "fields": {
                "tag": {"format": "uint8", "byteOffset": 0, "byteLength": 1},
                "position": {"format": "float32x3", "byteOffset": 16, "byteLength": 12},
                "color": {"format": "unorm8x4", "byteOffset": 28, "byteLength": 4}
            },
            "components": 8,
            "byteStride": 32,
            "rowByteLength": 32
        })
    );
    // Every derived format serializes like its runtime twin and reads back equal.
    for (derived, twin) in [
        (Bytes8Storage::FORMAT, runtime_twin::<Bytes8Storage>()),
        (Bytes16Packed::FORMAT, runtime_twin::<Bytes16Packed>()),
        (OverridesStorage::FORMAT, runtime_twin::<OverridesStorage>()),
        (WebglOnly::FORMAT, runtime_twin::<WebglOnly>()),
    ] {
        let text = serde_json::to_string(&derived).unwrap();
        assert_eq!(text, serde_json::to_string(&twin).unwrap());
        let back: GpuDataStructFormat = serde_json::from_str(&text).unwrap();
        assert_eq!(back, *derived);
    }
}
