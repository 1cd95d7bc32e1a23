//! glam and mint vectors as `#[derive(GpuStruct)]` fields (features `glam` and `mint`): each
//! struct has the format, vertex layout, host layout and GPU bytes of a twin declared with
//! arrays, encode then decode returns the rows, and typed children read the vectors back from a
//! device.

use crate::support::{self, USAGE};

use gpudata::record::{decode_rows, encode_rows_to_vec, fields_as_bytes, rows_as_bytes};
use gpudata::{GpuConstant, GpuData, GpuField, GpuStruct, TypedGpuData, VertexFormat};
use half::f16;

/// mint fields, host layout = GPU layout.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", zero_copy)]
struct MintVertex {
    position: mint::Point3<f32>,
    normal: mint::Vector3<f32>,
    rotation: mint::Quaternion<f32>,
    #[gpu(format = "unorm8x4")]
    color: mint::Vector4<u8>,
    uv: mint::Point2<u16>,
    ids: mint::Vector2<i32>,
}

/// `MintVertex` with arrays.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", zero_copy)]
struct ArrayVertex {
    position: [f32; 3],
    normal: [f32; 3],
    rotation: [f32; 4],
    #[gpu(format = "unorm8x4")]
    color: [u8; 4],
    uv: [u16; 2],
    ids: [i32; 2],
}

/// mint fields under wgsl-storage rules: padding between fields, a `-webgl` format, halves.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct MintStorage {
    flags: mint::Vector3<u8>,
    direction: mint::Vector3<f32>,
    half: mint::Vector2<f16>,
    count: mint::Vector4<u32>,
    offset: mint::Vector2<i16>,
}

/// `MintStorage` with arrays.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct ArrayStorage {
    flags: [u8; 3],
    direction: [f32; 3],
    half: [f16; 2],
    count: [u32; 4],
    offset: [i16; 2],
}

/// glam fields, host layout = GPU layout.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", zero_copy)]
struct GlamVertex {
    position: glam::Vec3,
    #[gpu(format = "unorm8x4")]
    color: glam::U8Vec4,
    ids: glam::IVec2,
    extent: glam::Vec2,
}

/// `GlamVertex` with arrays.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", zero_copy)]
struct GlamArrayVertex {
    position: [f32; 3],
    #[gpu(format = "unorm8x4")]
    color: [u8; 4],
    ids: [i32; 2],
    extent: [f32; 2],
}

fn mint_vertex(i: u16) -> MintVertex {
    let f = f32::from(i);
    MintVertex {
        position: [f, f + 0.5, -f].into(),
        normal: [0.0, 1.0, f / 10.0].into(),
        rotation: mint::Quaternion {
            v: [f, 2.0 * f, 3.0 * f].into(),
            s: 1.0,
        },
        color: [i as u8, 2, 3, 255].into(),
        uv: [i, 65535 - i].into(),
        ids: [i32::from(i), -i32::from(i)].into(),
    }
}

fn array_vertex(v: &MintVertex) -> ArrayVertex {
    ArrayVertex {
        position: v.position.into(),
        normal: v.normal.into(),
        rotation: [v.rotation.v.x, v.rotation.v.y, v.rotation.v.z, v.rotation.s],
        color: v.color.into(),
        uv: v.uv.into(),
        ids: v.ids.into(),
    }
}

fn mint_storage(i: u16) -> MintStorage {
    let f = f32::from(i);
    MintStorage {
        flags: [i as u8, 1, 2].into(),
        direction: [f, -f, 0.25].into(),
        half: [f16::from_f32(f), f16::from_f32(-0.5)].into(),
        count: [u32::from(i), 1, 2, u32::MAX].into(),
        offset: [i as i16, -(i as i16)].into(),
    }
}

fn array_storage(v: &MintStorage) -> ArrayStorage {
    ArrayStorage {
        flags: v.flags.into(),
        direction: v.direction.into(),
        half: v.half.into(),
        count: v.count.into(),
        offset: v.offset.into(),
    }
}

fn glam_vertex(i: u16) -> GlamVertex {
    let f = f32::from(i);
    GlamVertex {
        position: glam::Vec3::new(f, 1.0, -f),
        color: glam::U8Vec4::new(i as u8, 20, 30, 40),
        ids: glam::IVec2::new(i32::from(i), 7),
        extent: glam::Vec2::new(0.5, f),
    }
}

/// `A` and its array twin `B` have one format and one host-layout verdict.
fn assert_twins<A: GpuStruct, B: GpuStruct>() {
    assert_eq!(A::FORMAT, B::FORMAT);
    assert_eq!(A::FIELD_COPIES, B::FIELD_COPIES);
    assert_eq!(A::HOST_LAYOUT_MATCHES, B::HOST_LAYOUT_MATCHES);
}

/// As [`assert_twins`], and one vertex layout (for twins without `-webgl` fields, whose vertex
/// layout is a compile error).
fn assert_vertex_twins<A: GpuStruct, B: GpuStruct>() {
    assert_twins::<A, B>();
    assert_eq!(A::ATTRIBUTES, B::ATTRIBUTES);
    let (a, b) = (A::vertex_buffer_layout(), B::vertex_buffer_layout());
    assert_eq!(
        (a.array_stride, a.step_mode, a.attributes),
        (b.array_stride, b.step_mode, b.attributes)
    );
}

#[test]
fn mint_fields_have_the_formats_of_arrays() {
    assert_vertex_twins::<MintVertex, ArrayVertex>();
    assert_twins::<MintStorage, ArrayStorage>();
    let formats: Vec<VertexFormat> = MintVertex::FORMAT
        .fields()
        .iter()
        .map(|f| f.format())
        .collect();
    assert_eq!(
        formats,
        [
            VertexFormat::Float32x3,
            VertexFormat::Float32x3,
            VertexFormat::Float32x4,
            VertexFormat::Unorm8x4,
            VertexFormat::Uint16x2,
            VertexFormat::Sint32x2,
        ]
    );
    assert_eq!(MintVertex::FORMAT.byte_stride(), 56);
    const { assert!(MintVertex::HOST_LAYOUT_MATCHES) };
    assert_eq!(
        MintStorage::FORMAT
            .fields()
            .iter()
            .map(|f| f.format())
            .collect::<Vec<_>>(),
        [
            VertexFormat::Uint8x3Webgl,
            VertexFormat::Float32x3,
            VertexFormat::Float16x2,
            VertexFormat::Uint32x4,
            VertexFormat::Sint16x2,
        ]
    );
    assert_eq!(
        <mint::Quaternion<f32> as GpuField>::FORMAT,
        VertexFormat::Float32x4
    );
}

#[test]
fn glam_fields_have_the_formats_of_arrays() {
    assert_vertex_twins::<GlamVertex, GlamArrayVertex>();
    const { assert!(GlamVertex::HOST_LAYOUT_MATCHES) };
    let rows: Vec<GlamVertex> = (0..9).map(glam_vertex).collect();
    let twins: Vec<GlamArrayVertex> = rows
        .iter()
        .map(|v| GlamArrayVertex {
            position: v.position.into(),
            color: v.color.into(),
            ids: v.ids.into(),
            extent: v.extent.into(),
        })
        .collect();
    let bytes = rows_as_bytes(&rows).expect("zero-copy");
    assert_eq!(bytes, rows_as_bytes(&twins).expect("zero-copy"));
    assert_eq!(decode_rows::<GlamVertex>(bytes).unwrap(), rows);
}

#[test]
fn mint_rows_encode_like_arrays_and_decode_back() {
    let rows: Vec<MintVertex> = (0..17).map(mint_vertex).collect();
    let twins: Vec<ArrayVertex> = rows.iter().map(array_vertex).collect();
    let bytes = rows_as_bytes(&rows).expect("zero-copy");
    assert_eq!(bytes, rows_as_bytes(&twins).expect("zero-copy"));
    assert_eq!(decode_rows::<MintVertex>(bytes).unwrap(), rows);
    // The rotation is x, y, z then the scalar w.
    assert_eq!(&bytes[24..40], fields_as_bytes(&[[0.0f32, 0.0, 0.0, 1.0]]));

    let rows: Vec<MintStorage> = (0..17).map(mint_storage).collect();
    let twins: Vec<ArrayStorage> = rows.iter().map(array_storage).collect();
    assert!(rows_as_bytes(&rows).is_none());
    let bytes = encode_rows_to_vec(&rows);
    assert_eq!(bytes, encode_rows_to_vec(&twins));
    assert_eq!(
        bytes.len(),
        rows.len() * MintStorage::FORMAT.byte_stride() as usize
    );
    assert_eq!(decode_rows::<MintStorage>(&bytes).unwrap(), rows);
}

#[test]
fn mint_children_read_back_from_the_device() {
    let gpu = support::gpu();
    let rows: Vec<MintVertex> = (0..40).map(mint_vertex).collect();
    let data = TypedGpuData::from_rows(&gpu, &rows, USAGE).unwrap();
    let rotations = data.get_child::<mint_vertex_fields::Rotation>();
    assert_eq!(rotations.byte_offset(), 24);
    let expected: Vec<mint::Quaternion<f32>> = rows.iter().map(|r| r.rotation).collect();
    assert_eq!(rotations.read(&gpu).unwrap(), expected);
    let uv = data.get_child::<mint_vertex_fields::Uv>();
    let expected: Vec<mint::Point2<u16>> = rows.iter().map(|r| r.uv).collect();
    assert_eq!(uv.read(&gpu).unwrap(), expected);
    assert_eq!(data.read_rows(&gpu).unwrap(), rows);

    let rows: Vec<MintStorage> = (0..40).map(mint_storage).collect();
    let data = TypedGpuData::from_rows(&gpu, &rows, USAGE).unwrap();
    let halves = data.get_child::<mint_storage_fields::Half>();
    let expected: Vec<mint::Vector2<f16>> = rows.iter().map(|r| r.half).collect();
    assert_eq!(halves.read(&gpu).unwrap(), expected);
    assert_eq!(data.read_rows(&gpu).unwrap(), rows);
}

#[test]
fn mint_values_upload_as_packed_data_and_constants() {
    let gpu = support::gpu();
    let normals: Vec<mint::Vector3<f32>> = (0..10u8)
        .map(|i| [f32::from(i), 0.5, -1.0].into())
        .collect();
    let data = GpuData::from_values(&gpu, &normals, USAGE).unwrap();
    assert!(matches!(
        data.format(),
        Some(gpudata::data::GpuDataFormat::Vector(
            gpudata::GpuVectorFormat::Fixed(VertexFormat::Float32x3)
        ))
    ));
    assert_eq!(data.read_bytes(&gpu).unwrap(), fields_as_bytes(&normals));

    let constant = GpuConstant::from_value(mint::Vector4 {
        x: 1u8,
        y: 2,
        z: 3,
        w: 4,
    });
    assert_eq!(constant.format(), VertexFormat::Uint8x4);
    assert_eq!(constant.bytes(), &[1, 2, 3, 4]);
}
