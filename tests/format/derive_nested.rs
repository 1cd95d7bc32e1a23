//! `#[derive(GpuStruct)]` over WGSL's memory model: matrices, nested structs, arrays of structs,
//! `align`/`size`, the uniform layout. The derived layout (consts) equals the run-time layout of
//! the same declaration and naga's layouter on the WGSL text; rows encode and decode leaf by leaf;
//! the zero-copy proof covers nested `#[repr(C)]` types.

use gpudata::GpuStruct;
use gpudata::layout::{AddressSpace, StructDecl, TypeDecl, WgslType};
use gpudata::record::GpuType;

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
struct Light {
    position: [f32; 3],
    intensity: f32,
    color: [f32; 3],
    #[gpu(padding)]
    _pad: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "wgsl-uniform")]
struct Camera {
    #[gpu(wgsl = "mat4x4<f32>")]
    view: [[f32; 4]; 4],
    eye: [f32; 3],
    count: u32,
    lights: [Light; 2],
    #[gpu(wgsl = "mat3x3<f32>")]
    normal: [[f32; 3]; 3],
    exposure: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
struct Particle {
    #[gpu(wgsl = "mat4x4<f32>")]
    transform: [[f32; 4]; 4],
    velocity: [f32; 3],
    mass: f32,
    light: Light,
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Attributes {
    a: f32,
    #[gpu(align = 16)]
    b: f32,
    #[gpu(size = 12)]
    c: u32,
    d: [u8; 4],
    #[gpu(wgsl = "array<f32, 3>")]
    e: [f32; 3],
}

pub(crate) fn struct_decl<T: GpuType>() -> StructDecl {
    match TypeDecl::from(&T::WGSL) {
        TypeDecl::Struct(s) => s,
        other => panic!("not a struct: {other:?}"),
    }
}

/// `text` with struct `name` bound as `block` in `space` and `body` in a compute entry point,
/// parsed and validated by naga: the module and its text.
pub(crate) fn naga_bound_module(
    text: &str,
    name: &str,
    space: AddressSpace,
    body: &str,
) -> (naga::Module, String) {
    let var = match space {
        AddressSpace::Storage => "var<storage, read_write>",
        AddressSpace::Uniform => "var<uniform>",
    };
    // `f16` needs WGSL's `enable f16;` and naga's capability.
    let enable = if text.contains("f16") {
        "enable f16;\n"
    } else {
        ""
    };
    let module_text = format!(
        "{enable}{text}\n@group(0) @binding(0) {var} block: {name};\n@compute @workgroup_size(1) fn main() {{ _ = &block; {body} }}\n"
    );
    let module =
        naga::front::wgsl::parse_str(&module_text).unwrap_or_else(|e| panic!("{e}\n{module_text}"));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::SHADER_FLOAT16,
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{e:?}\n{module_text}"));
    (module, module_text)
}

/// naga's member offsets and span of struct `name` in `text` bound in `space`.
fn naga_struct(text: &str, name: &str, space: AddressSpace) -> (Vec<u64>, u64) {
    let (module, _) = naga_bound_module(text, name, space, "");
    let ty = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap()
        .1;
    let naga::TypeInner::Struct { members, span } = &ty.inner else {
        panic!("{name} is not a struct")
    };
    (
        members.iter().map(|m| u64::from(m.offset)).collect(),
        u64::from(*span),
    )
}

#[test]
fn nested_uniform_struct_matches_the_run_time_layout_and_naga() {
    let decl = struct_decl::<Camera>();
    let (placed, layout) = decl.placements(AddressSpace::Uniform).unwrap();
    let offsets: Vec<u64> = placed.iter().map(|p| p.offset).collect();
    // view 0, eye 64, count 76, lights 80 (Light: 32 bytes in the uniform space), normal 144
    // (48 bytes), exposure 192; 208 bytes.
    assert_eq!(offsets, [0, 64, 76, 80, 144, 192]);
    assert_eq!((layout.size, layout.alignment), (208, 16));
    assert_eq!(Camera::FORMAT.byte_stride(), 208);
    assert_eq!(Camera::FORMAT.layout(), gpudata::StructLayout::WgslUniform);
    let text = decl.wgsl(AddressSpace::Uniform).unwrap();
    assert_eq!(
        naga_struct(&text, "Camera", AddressSpace::Uniform),
        (offsets, 208)
    );

    // The flattened format: luma.gl's names, matrix columns as vectors.
    let fields: Vec<(&str, u64, &str)> = Camera::FORMAT
        .fields()
        .iter()
        .map(|f| (f.name(), f.byte_offset(), f.format().as_str()))
        .collect();
    assert_eq!(
        fields,
        [
            ("view[0]", 0, "float32x4"),
            ("view[1]", 16, "float32x4"),
            ("view[2]", 32, "float32x4"),
            ("view[3]", 48, "float32x4"),
            ("eye", 64, "float32x3"),
            ("count", 76, "uint32"),
            ("lights[0].position", 80, "float32x3"),
            ("lights[0].intensity", 92, "float32"),
            ("lights[0].color", 96, "float32x3"),
            ("lights[1].position", 112, "float32x3"),
            ("lights[1].intensity", 124, "float32"),
            ("lights[1].color", 128, "float32x3"),
            ("normal[0]", 144, "float32x3"),
            ("normal[1]", 160, "float32x3"),
            ("normal[2]", 176, "float32x3"),
            ("exposure", 192, "float32"),
        ]
    );
}

#[test]
fn storage_struct_with_a_nested_struct_and_a_matrix() {
    let decl = struct_decl::<Particle>();
    let (placed, layout) = decl.placements(AddressSpace::Storage).unwrap();
    let offsets: Vec<u64> = placed.iter().map(|p| p.offset).collect();
    assert_eq!(offsets, [0, 64, 76, 80]);
    assert_eq!(layout.size, 112);
    assert_eq!(Particle::FORMAT.byte_stride(), 112);
    let text = decl.wgsl(AddressSpace::Storage).unwrap();
    assert!(text.find("struct Light").unwrap() < text.find("struct Particle").unwrap());
    assert_eq!(
        naga_struct(&text, "Particle", AddressSpace::Storage),
        (offsets, 112)
    );
    // The marker of `mass` points at its leaf, after the matrix's four columns and `velocity`.
    assert_eq!(
        <particle_fields::Mass as gpudata::record::GpuFieldMarker>::INDEX,
        5
    );
    assert_eq!(
        <particle_fields::Mass as gpudata::record::GpuFieldMarker>::BYTE_OFFSET,
        76
    );
}

#[test]
fn rows_encode_and_decode_leaf_by_leaf() {
    let light = Light {
        position: [1.0, 2.0, 3.0],
        intensity: 4.0,
        color: [5.0, 6.0, 7.0],
        _pad: 0,
    };
    let particle = Particle {
        transform: [
            [1.0, 2.0, 3.0, 4.0],
            [5.0, 6.0, 7.0, 8.0],
            [9.0, 10.0, 11.0, 12.0],
            [13.0, 14.0, 15.0, 16.0],
        ],
        velocity: [17.0, 18.0, 19.0],
        mass: 20.0,
        light,
    };
    let mut row = vec![0xAAu8; 112];
    particle.encode_row(&mut row);
    let floats: Vec<f32> = row
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut expected: Vec<f32> = (1..=20).map(|i| i as f32).collect();
    expected.extend([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0]);
    assert_eq!(floats, expected);
    assert_eq!(Particle::decode_row(&row), particle);

    let camera = Camera {
        view: particle.transform,
        eye: [1.5, 2.5, 3.5],
        count: 2,
        lights: [light; 2],
        normal: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
        exposure: 0.5,
    };
    let mut row = vec![0u8; 208];
    camera.encode_row(&mut row);
    let at = |offset: usize| f32::from_le_bytes(row[offset..offset + 4].try_into().unwrap());
    assert_eq!(at(144 + 16), 4.0, "normal's second column at 160");
    assert_eq!(at(144 + 12), 0.0, "column padding is zero");
    assert_eq!(at(192), 0.5);
    assert_eq!(Camera::decode_row(&row), camera);
}

#[test]
fn align_size_and_wgsl_attributes_place_members_as_wgsl_does() {
    let offsets: Vec<u64> = Attributes::FORMAT
        .fields()
        .iter()
        .map(|f| f.byte_offset())
        .collect();
    // a 0; b @align(16) 16; c @size(12) 20..32; d (u32 carrier) 32; e array<f32, 3> 36.
    assert_eq!(offsets, [0, 16, 20, 32, 36, 40, 44]);
    assert_eq!(Attributes::FORMAT.byte_stride(), 48);
    let decl = struct_decl::<Attributes>();
    let text = decl.wgsl(AddressSpace::Storage).unwrap();
    assert_eq!(
        naga_struct(&text, "Attributes", AddressSpace::Storage),
        (vec![0, 16, 20, 32, 36], 48)
    );
    assert_eq!(
        Attributes::FORMAT.fields()[4].name(),
        "e[0]",
        "an array of scalars flattens per element"
    );
}

#[test]
fn zero_copy_covers_nested_repr_c_types() {
    // Particle: a matrix of packed columns, a vec3 followed by a scalar, a nested struct whose
    // explicit padding fills its vec3's tail: the host bytes are the rows.
    const { assert!(Particle::HOST_LAYOUT_MATCHES) };
    const { assert!(Light::HOST_LAYOUT_MATCHES) };
    // Camera's mat3x3 from `[[f32; 3]; 3]` packs its columns (12 bytes apart, 16 on the GPU).
    const { assert!(!Camera::HOST_LAYOUT_MATCHES) };
    let rows = [Particle {
        transform: [[1.0; 4]; 4],
        velocity: [2.0; 3],
        mass: 3.0,
        light: Light {
            position: [4.0; 3],
            intensity: 5.0,
            color: [6.0; 3],
            _pad: 0,
        },
    }];
    let bytes = gpudata::record::rows_as_bytes(&rows).unwrap();
    assert_eq!(bytes, gpudata::record::encode_rows_to_vec(&rows));
}

/// The structs of `tests/ui/fail/layout/zero_copy_nested_padding.rs` and
/// `zero_copy_nested_stride.rs` with the change each message names: `#[gpu(zero_copy)]` accepts
/// them (the build is the check), so the messages' fixes are true.
mod zero_copy_fixes {
    use gpudata::GpuStruct;

    // "add `#[gpu(padding)] _pad: [u8; 12]` before `v` in `Early`"
    #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
    #[repr(C)]
    pub struct Early {
        pub a: u32,
        #[gpu(padding)]
        pub _pad: [u8; 12],
        pub v: [f32; 4],
    }

    #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
    #[repr(C)]
    #[gpu(zero_copy)]
    pub struct HoldsEarly {
        pub early: Early,
    }

    #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
    #[repr(C, align(16))]
    pub struct Quad {
        pub v: [f32; 4],
    }

    // "make them explicit with `#[gpu(padding)] _pad: [u8; 12]` before `quad` in `GapBefore`"
    #[derive(Clone, Copy, GpuStruct)]
    #[repr(C)]
    #[gpu(zero_copy)]
    pub struct GapBefore {
        pub a: u32,
        #[gpu(padding)]
        pub _pad: [u8; 12],
        pub quad: Quad,
    }

    // "make them explicit with `#[gpu(padding)] _pad: [u8; 12]` after the last field of
    // `GapAfter`"
    #[derive(Clone, Copy, GpuStruct)]
    #[repr(C)]
    #[gpu(zero_copy)]
    pub struct GapAfter {
        pub quad: Quad,
        pub s: f32,
        #[gpu(padding)]
        pub _pad: [u8; 12],
    }

    // "add `#[gpu(padding)] _pad: [u8; 4]` after the last field of `Short`"
    #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
    #[repr(C)]
    pub struct Short {
        pub v: [f32; 3],
        #[gpu(padding)]
        pub _pad: [u8; 4],
    }

    #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
    #[repr(C)]
    #[gpu(zero_copy)]
    pub struct HoldsShort {
        pub shorts: [Short; 2],
    }

    // "use `[[f32; 4]; 2]` (an `array<vec4<f32>, 2>`), or an array of a `#[repr(C)]` struct
    // holding the `[f32; 3]` and a `#[gpu(padding)] _pad: [u8; 4]`" (`HoldsShort` is the second)
    #[derive(Clone, Copy, GpuStruct)]
    #[repr(C)]
    #[gpu(zero_copy)]
    pub struct Points {
        pub points: [[f32; 4]; 2],
    }

    // "use `[[f32; 4]; 3]` with `#[gpu(wgsl = "mat3x4<f32>")]`"
    #[derive(Clone, Copy, GpuStruct)]
    #[repr(C)]
    #[gpu(zero_copy)]
    pub struct Normal {
        #[gpu(wgsl = "mat3x4<f32>")]
        pub normal: [[f32; 4]; 3],
    }

    // "use `[f32; 3]` (or `glam::Vec3`) followed by a `#[gpu(padding)] _pad: [u8; 4]` field"
    #[derive(Clone, Copy, GpuStruct)]
    #[repr(C)]
    #[gpu(zero_copy)]
    pub struct Lanes {
        pub v: [f32; 3],
        #[gpu(padding)]
        pub _pad: [u8; 4],
    }
}

#[test]
fn zero_copy_fixes_named_by_the_messages_make_host_bytes_the_rows() {
    use zero_copy_fixes::*;
    const {
        assert!(HoldsEarly::HOST_LAYOUT_MATCHES);
        assert!(GapBefore::HOST_LAYOUT_MATCHES);
        assert!(GapAfter::HOST_LAYOUT_MATCHES);
        assert!(HoldsShort::HOST_LAYOUT_MATCHES);
        assert!(Points::HOST_LAYOUT_MATCHES);
        assert!(Normal::HOST_LAYOUT_MATCHES);
        assert!(Lanes::HOST_LAYOUT_MATCHES);
    };
    // The leaves sit where WGSL puts them (`v` after `a` at 16, `Short`s 16 apart) and the host
    // bytes decode back to the values.
    let early = HoldsEarly {
        early: Early {
            a: 7,
            _pad: [0; 12],
            v: [1.0, 2.0, 3.0, 4.0],
        },
    };
    let bytes = gpudata::record::rows_as_bytes(std::slice::from_ref(&early)).unwrap();
    assert_eq!(bytes.len(), 32);
    assert_eq!(bytes[0..4], 7u32.to_le_bytes());
    assert_eq!(bytes[16..20], 1.0f32.to_le_bytes());
    assert_eq!(
        gpudata::record::decode_rows::<HoldsEarly>(bytes).unwrap(),
        vec![early]
    );
    let shorts = HoldsShort {
        shorts: [
            Short {
                v: [1.0, 2.0, 3.0],
                _pad: [0; 4],
            },
            Short {
                v: [4.0, 5.0, 6.0],
                _pad: [0; 4],
            },
        ],
    };
    let bytes = gpudata::record::rows_as_bytes(std::slice::from_ref(&shorts)).unwrap();
    assert_eq!(bytes[16..20], 4.0f32.to_le_bytes());
    assert_eq!(HoldsShort::FORMAT.byte_stride(), 32);
}

#[test]
fn const_type_description_is_the_wgsl_type() {
    const CAMERA: WgslType = <Camera as GpuType>::WGSL;
    let WgslType::Struct(s) = CAMERA else {
        panic!()
    };
    assert_eq!(s.name, "Camera");
    assert_eq!(s.members.len(), 6);
    assert_eq!(s.members[0].ty, WgslType::mat(4, 4));
    const OFFSETS: [u64; 6] = match s_offsets() {
        Some(o) => o,
        None => [0; 6],
    };
    const fn s_offsets() -> Option<[u64; 6]> {
        let WgslType::Struct(s) = <Camera as GpuType>::WGSL else {
            return None;
        };
        match s.offsets::<6>(AddressSpace::Uniform) {
            Ok((offsets, _)) => Some(offsets),
            Err(_) => None,
        }
    }
    assert_eq!(OFFSETS, [0, 64, 76, 80, 144, 192]);
}

#[cfg(feature = "glam")]
mod glam_fields {
    use gpudata::GpuStruct;

    /// glam's matrices and `Vec3A` as WGSL types: `Mat4` and `Vec4` are their GPU bytes,
    /// `Mat3` (packed 12-byte columns) is not, so the row is encoded leaf by leaf.
    #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
    #[repr(C)]
    struct Instance {
        model: glam::Mat4,
        normal: glam::Mat3,
        offset: glam::Vec3A,
        tint: glam::Vec4,
        basis: glam::Mat3A,
        uv: glam::Mat2,
    }

    #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
    #[repr(C)]
    #[gpu(zero_copy)]
    struct Transform {
        model: glam::Mat4,
        color: glam::Vec4,
    }

    #[test]
    fn glam_matrices_lay_out_as_wgsl_matrices() {
        let offsets: Vec<(&str, u64)> = Instance::FORMAT
            .fields()
            .iter()
            .map(|f| (f.name(), f.byte_offset()))
            .collect();
        // model 0 (mat4x4), normal 64 (mat3x3: columns 16 apart), offset 112 (vec3), tint 128,
        // basis 144 (mat3x3), uv 192 (mat2x2: columns 8 apart); 208 bytes.
        assert_eq!(
            offsets[4..7],
            [("normal[0]", 64), ("normal[1]", 80), ("normal[2]", 96)]
        );
        assert_eq!(offsets[7], ("offset", 112));
        assert_eq!(offsets[8], ("tint", 128));
        assert_eq!(offsets[12..14], [("uv[0]", 192), ("uv[1]", 200)]);
        assert_eq!(Instance::FORMAT.byte_stride(), 208);
        const { assert!(!Instance::HOST_LAYOUT_MATCHES) };
        const { assert!(Transform::HOST_LAYOUT_MATCHES) };
        let row = Instance {
            model: glam::Mat4::from_cols_array(&core::array::from_fn(|i| i as f32)),
            normal: glam::Mat3::from_cols_array(&core::array::from_fn(|i| 100.0 + i as f32)),
            offset: glam::Vec3A::new(1.0, 2.0, 3.0),
            tint: glam::Vec4::new(4.0, 5.0, 6.0, 7.0),
            basis: glam::Mat3A::from_cols_array(&core::array::from_fn(|i| 200.0 + i as f32)),
            uv: glam::Mat2::from_cols_array(&[8.0, 9.0, 10.0, 11.0]),
        };
        let bytes = gpudata::record::encode_rows_to_vec(&[row]);
        let at = |o: usize| f32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        assert_eq!([at(80), at(84), at(88), at(92)], [103.0, 104.0, 105.0, 0.0]);
        assert_eq!([at(112), at(116), at(120)], [1.0, 2.0, 3.0]);
        assert_eq!(at(144 + 32 + 8), 208.0);
        assert_eq!(Instance::decode_row(&bytes), row);
        let transform = [Transform {
            model: glam::Mat4::IDENTITY,
            color: glam::Vec4::ONE,
        }];
        assert!(gpudata::record::rows_as_bytes(&transform).is_some());
    }

    use crate::support::glam_camera::{Frame, StorageCamera, UniformCamera, lane, storage_camera};

    /// A scalar right after a `Vec3A`: at byte 12 on the GPU, 16 on the host.
    #[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
    #[repr(C)]
    struct Follows {
        a: glam::Vec3A,
        b: f32,
    }

    /// Host offsets (`offset_of!`) and size, naga's offsets and span on gpudata's WGSL text of
    /// the type, and the derive's field offsets agree.
    fn offsets_agree<T: GpuStruct + gpudata::record::GpuType>(
        name: &str,
        space: gpudata::layout::AddressSpace,
        host: &[usize],
    ) {
        let decl = super::struct_decl::<T>();
        let text = decl.wgsl(space).unwrap();
        let host: Vec<u64> = host.iter().map(|&o| o as u64).collect();
        assert_eq!(
            super::naga_struct(&text, name, space),
            (host.clone(), size_of::<T>() as u64),
            "{text}"
        );
        let (placed, layout) = decl.placements(space).unwrap();
        assert_eq!(placed.iter().map(|p| p.offset).collect::<Vec<_>>(), host);
        assert_eq!(layout.size, size_of::<T>() as u64);
        assert_eq!(T::FORMAT.byte_stride(), size_of::<T>() as u64);
    }

    #[test]
    fn a_camera_of_glam_mat4_vec4_vec3a_and_mat3a_is_its_gpu_bytes() {
        use core::mem::offset_of;
        use gpudata::layout::AddressSpace;
        const { assert!(StorageCamera::HOST_LAYOUT_MATCHES) };
        const { assert!(UniformCamera::HOST_LAYOUT_MATCHES) };
        const { assert!(Frame::HOST_LAYOUT_MATCHES) };
        offsets_agree::<StorageCamera>(
            "StorageCamera",
            AddressSpace::Storage,
            &[
                offset_of!(StorageCamera, view),
                offset_of!(StorageCamera, eye),
                offset_of!(StorageCamera, dir),
                offset_of!(StorageCamera, basis),
                offset_of!(StorageCamera, rays),
                offset_of!(StorageCamera, frame),
                offset_of!(StorageCamera, tint),
            ],
        );
        offsets_agree::<UniformCamera>(
            "UniformCamera",
            AddressSpace::Uniform,
            &[
                offset_of!(UniformCamera, view),
                offset_of!(UniformCamera, frame),
                offset_of!(UniformCamera, eye),
                offset_of!(UniformCamera, dir),
                offset_of!(UniformCamera, rays),
                offset_of!(UniformCamera, basis),
            ],
        );
        assert_eq!(size_of::<StorageCamera>(), 256);
        assert_eq!(size_of::<UniformCamera>(), 240);

        // The one-`memcpy` image (which `encode_rows_to_vec` is, too) equals the leaf-by-leaf
        // encoding (`encode_row`, the copy plan) in every leaf; only the fourth lanes differ
        // (the copy carries them into GPU padding, the plan zeroes it).
        let rows = [storage_camera(0.0), storage_camera(0.0)];
        let image = gpudata::record::rows_as_bytes(&rows).unwrap();
        assert_eq!(gpudata::record::encode_rows_to_vec(&rows), image);
        let mut encoded = vec![0u8; 512];
        for (row, out) in rows.iter().zip(encoded.chunks_mut(256)) {
            row.encode_row(out);
        }
        let mut in_leaf = vec![false; 256];
        for field in StorageCamera::FORMAT.fields() {
            let at = field.byte_offset() as usize;
            let len = field.format().byte_length() as usize;
            in_leaf[at..at + len].fill(true);
        }
        for (i, (a, b)) in image.iter().zip(&encoded).enumerate() {
            if in_leaf[i % 256] {
                assert_eq!(a, b, "byte {i}");
            } else {
                assert_eq!(*b, 0, "byte {i}");
            }
        }
        // `dir`'s fourth lane (-5.0) went along, at byte 92: GPU padding before `basis`.
        assert_eq!(image[92..96], (-5.0f32).to_le_bytes());
        assert_eq!(StorageCamera::decode_row(image), rows[0]);
        assert_eq!(StorageCamera::decode_row(&encoded[256..]), rows[1]);
    }

    #[test]
    fn a_member_right_after_a_vec3a_is_not_its_gpu_bytes() {
        const { assert!(!Follows::HOST_LAYOUT_MATCHES) };
        let b = Follows::FORMAT
            .fields()
            .iter()
            .find(|f| f.name() == "b")
            .unwrap();
        assert_eq!(b.byte_offset(), 12);
        assert_eq!(core::mem::offset_of!(Follows, b), 16);
        let rows = [Follows {
            a: lane(1.0, 9.0),
            b: 4.0,
        }];
        assert!(gpudata::record::rows_as_bytes(&rows).is_none());
        let bytes = gpudata::record::encode_rows_to_vec(&rows);
        let words: Vec<f32> = bytes
            .chunks(4)
            .map(|w| f32::from_le_bytes(w.try_into().unwrap()))
            .collect();
        assert_eq!(words, [1.0, 2.0, 3.0, 4.0]);
    }
}

#[derive(Clone, Copy, GpuStruct)]
struct Weighted {
    color: [f32; 4],
    #[gpu(wgsl = "array<f32, 4>")]
    weights: [f32; 4],
}

#[derive(Clone, Copy, GpuStruct)]
struct Lit {
    count: u32,
    lights: [Weighted; 2],
}

#[test]
fn run_time_errors_inside_nested_types_name_the_member_path() {
    // Fine in storage (the derive laid it out); the uniform rules refuse the stride-4 array
    // inside the nested struct, and the error names it from the top-level field.
    let decl = struct_decl::<Lit>();
    let e = decl.placements(AddressSpace::Uniform).unwrap_err();
    assert_eq!(
        e,
        gpudata::LayoutError::Type {
            path: "lights[].weights".to_owned(),
            source: gpudata::layout::TypeRuleError::UniformArrayStride { stride: 4 },
        }
    );
    assert_eq!(
        e.to_string(),
        "`lights[].weights`: arrays in the uniform address space need a stride that is a multiple of 16, but the element stride is 4; use 4-component vectors or a struct element padded with `@size`"
    );
    let (_, storage) = decl.placements(AddressSpace::Storage).unwrap();
    assert_eq!(storage.size, Lit::FORMAT.byte_stride());
}

/// A field after nested structs: its marker's `INDEX` (the derive states it as the leaves before
/// the field, counting the nested types' `GpuType::LEAVES`) names its leaf in `FORMAT`, found
/// here by name. (Fields of nested struct types are no `GpuField`: their markers name no field.)
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
struct AfterNested {
    first: f32,
    light: Light,
    lights: [Light; 2],
    last: u32,
}

#[test]
fn markers_after_nested_structs_name_their_first_leaf() {
    use gpudata::record::GpuFieldMarker;
    let position = |name: &str| {
        AfterNested::FORMAT
            .fields()
            .iter()
            .position(|f| f.name() == name)
            .unwrap()
    };
    assert_eq!(
        <after_nested_fields::First as GpuFieldMarker>::INDEX,
        position("first")
    );
    assert_eq!(
        <after_nested_fields::Last as GpuFieldMarker>::INDEX,
        position("last")
    );
    assert_eq!(position("last"), 1 + 3 + 2 * 3);
    // WGSL: `first` at 0, `light` (size 32, align 16) at 16, `lights` (stride 32) at 48, `last`
    // at 112.
    assert_eq!(
        <after_nested_fields::Last as GpuFieldMarker>::BYTE_OFFSET,
        112
    );
}
