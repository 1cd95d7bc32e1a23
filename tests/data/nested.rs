//! Nested WGSL types on the device: values of derived structs with matrices, nested structs and
//! arrays of structs go up through gpudata (a `GpuUniform`, a dynamic-offset `GpuUniformArray`,
//! a storage upload), a compute shader that declares gpudata's WGSL text reads every leaf and
//! writes its words out, and the words equal the host encoding; a vertex shader reads matrix
//! columns through the generated vertex layout.

use gpudata::data::{GpuUniform, GpuUniformArray};
use gpudata::layout::{AddressSpace, StructDecl, TypeDecl};
use gpudata::record::GpuType;
use gpudata::{GpuStruct, TypedGpuData};

use crate::support::device::gpu;
use crate::support::probe::compute_capture;

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
struct Light {
    position: [f32; 3],
    intensity: f32,
    color: [f32; 4],
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "wgsl-uniform")]
struct Scene {
    #[gpu(wgsl = "mat4x4<f32>")]
    view: [[f32; 4]; 4],
    #[gpu(wgsl = "mat3x3<f32>")]
    normal: [[f32; 3]; 3],
    eye: [f32; 3],
    lights: [Light; 3],
    count: u32,
    tint: [i32; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
struct Particle {
    #[gpu(wgsl = "mat2x3<f32>")]
    basis: [[f32; 3]; 2],
    light: Light,
    id: u32,
}

fn scene(seed: f32) -> Scene {
    let f = |i: usize| seed + i as f32 * 0.25;
    Scene {
        view: [
            [f(0), f(1), f(2), f(3)],
            [f(4), f(5), f(6), f(7)],
            [f(8), f(9), f(10), f(11)],
            [f(12), f(13), f(14), f(15)],
        ],
        normal: [
            [f(16), f(17), f(18)],
            [f(19), f(20), f(21)],
            [f(22), f(23), f(24)],
        ],
        eye: [f(25), f(26), f(27)],
        lights: [0, 1, 2].map(|i| Light {
            position: [f(30 + i), f(31 + i), f(32 + i)],
            intensity: f(40 + i),
            color: [f(50 + i), f(51 + i), f(52 + i), f(53 + i)],
        }),
        count: seed as u32 + 3,
        tint: [-(seed as i32), 7],
    }
}

fn struct_decl<T: GpuType>() -> StructDecl {
    match TypeDecl::from(&T::WGSL) {
        TypeDecl::Struct(s) => s,
        other => panic!("{other:?}"),
    }
}

/// A compute shader writing every leaf of `T` (bound as `var_decl` named `v`) as u32 words, in
/// the struct format's order, and the words the host encoding says it must write.
fn leaf_probe<T: GpuStruct + GpuType>(
    space: AddressSpace,
    var_decl: &str,
    value: &T,
) -> (String, Vec<u32>) {
    let decl = struct_decl::<T>();
    let mut body = String::new();
    let mut expected = Vec::new();
    let mut row = vec![0u8; T::FORMAT.byte_stride() as usize];
    value.encode_row(&mut row);
    let mut word = 0;
    for field in T::FORMAT.fields() {
        let components = field.format().components();
        let access = format!("v.{}", field.name());
        for c in 0..components {
            let component = if components == 1 {
                access.clone()
            } else {
                format!("{access}[{c}]")
            };
            body.push_str(&format!("    out[{word}] = bitcast<u32>({component});\n"));
            let at = field.byte_offset() as usize + 4 * c as usize;
            expected.push(u32::from_le_bytes(row[at..at + 4].try_into().unwrap()));
            word += 1;
        }
    }
    let text = format!(
        "{}\n{var_decl}\n@group(0) @binding(1) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {{\n\
         if (id.x != 0u) {{ return; }}\n{body}}}\n",
        decl.wgsl(space).unwrap()
    );
    (text, expected)
}

fn entry(binding: u32, ty: wgpu::BufferBindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

#[test]
fn a_uniform_scene_reads_back_in_every_leaf() {
    let gpu = gpu();
    let value = scene(1.0);
    let uniform = GpuUniform::new(&gpu, &value).unwrap();
    assert_eq!(uniform.read(&gpu).unwrap(), value);
    assert_eq!(uniform.byte_size(), Scene::FORMAT.byte_stride());
    let (wgsl, expected) = leaf_probe(
        AddressSpace::Uniform,
        "@group(0) @binding(0) var<uniform> v: Scene;",
        &value,
    );
    let words = compute_capture(
        &gpu,
        &wgsl,
        vec![entry(0, wgpu::BufferBindingType::Uniform)],
        vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(uniform.binding()),
        }],
        1,
        expected.len() as u64,
        1,
    );
    assert_eq!(words, expected, "{wgsl}");
    let changed = scene(9.0);
    uniform.write(&gpu, &changed).unwrap();
    assert_eq!(uniform.read(&gpu).unwrap(), changed);
}

#[test]
fn a_storage_row_of_nested_types_reads_back_in_every_leaf() {
    let gpu = gpu();
    let value = Particle {
        basis: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
        light: Light {
            position: [7.0, 8.0, 9.0],
            intensity: 10.0,
            color: [11.0, 12.0, 13.0, 14.0],
        },
        id: 15,
    };
    let data = TypedGpuData::from_rows(&gpu, &[value], crate::support::device::USAGE).unwrap();
    let (wgsl, expected) = leaf_probe(
        AddressSpace::Storage,
        "@group(0) @binding(0) var<storage, read> v: Particle;",
        &value,
    );
    let words = compute_capture(
        &gpu,
        &wgsl,
        vec![entry(
            0,
            wgpu::BufferBindingType::Storage { read_only: true },
        )],
        vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: data.as_data().buffer().as_entire_binding(),
        }],
        1,
        expected.len() as u64,
        1,
    );
    assert_eq!(words, expected, "{wgsl}");
}

#[test]
fn dynamic_offsets_pick_each_element() {
    let gpu = gpu();
    let values: Vec<Scene> = (0..3).map(|i| scene(i as f32 * 10.0)).collect();
    let array = GpuUniformArray::new(&gpu, &values).unwrap();
    let align = u64::from(gpu.limits().min_uniform_buffer_offset_alignment);
    assert_eq!(array.stride() % align, 0);
    assert!(array.stride() >= Scene::FORMAT.byte_stride());
    for (i, value) in values.iter().enumerate() {
        assert_eq!(array.read(&gpu, i).unwrap(), *value);
        assert_eq!(
            u64::from(array.offset(i).unwrap()),
            i as u64 * array.stride()
        );
    }
    assert!(array.offset(3).is_err());

    let device = gpu.device();
    let text = format!(
        "{}\n@group(0) @binding(0) var<uniform> v: Scene;\n\
         @group(0) @binding(1) var<storage, read_write> out: array<u32>;\n\
         @group(0) @binding(2) var<uniform> slot: vec4<u32>;\n\
         @compute @workgroup_size(1) fn main() {{ out[slot.x] = v.count; out[slot.x + 3u] = bitcast<u32>(v.lights[2].color.w); }}\n",
        struct_decl::<Scene>().wgsl(AddressSpace::Uniform).unwrap()
    );
    let module = crate::support::probe::shader(&gpu, "dynamic offsets", &text);
    let out = crate::support::device::buffer(
        &gpu,
        24,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let mut layout = [
        entry(0, wgpu::BufferBindingType::Uniform),
        entry(1, wgpu::BufferBindingType::Storage { read_only: false }),
        entry(2, wgpu::BufferBindingType::Uniform),
    ];
    if let wgpu::BindingType::Buffer {
        has_dynamic_offset,
        min_binding_size,
        ..
    } = &mut layout[0].ty
    {
        *has_dynamic_offset = true;
        *min_binding_size = GpuUniform::<Scene>::min_binding_size();
    }
    let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &layout,
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(&bgl)],
        immediate_size: 0,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some("main"),
        compilation_options: wgpu::PipelineCompilationOptions::default(),
        cache: None,
    });
    for i in 0..3u32 {
        let slot = crate::support::device::buffer_with(
            &gpu,
            gpudata::record::fields_as_bytes(&[[i, 0, 0, 0]]),
            wgpu::BufferUsages::UNIFORM,
        );
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &bgl,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(array.binding()),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: out.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: slot.as_entire_binding(),
                },
            ],
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[array.offset(i as usize).unwrap()]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        gpu.queue().submit([encoder.finish()]);
    }
    let words = crate::support::bytes::u32s(&crate::support::probe::read_buffer(&gpu, &out, 0, 24));
    let expected: Vec<u32> = values
        .iter()
        .map(|v| v.count)
        .chain(values.iter().map(|v| v.lights[2].color[3].to_bits()))
        .collect();
    assert_eq!(words, expected);
}

/// The typed buffers take the `Gpu` in every call, as data does, and refuse another device's.
#[test]
fn uniforms_refuse_another_devices_gpu() {
    use crate::support::{assert_other_device, other_gpu};
    use gpudata::data::UniformError;
    let gpu = gpu();
    let other = other_gpu();
    let uniform = GpuUniform::new(&gpu, &scene(1.0)).unwrap();
    let array = GpuUniformArray::new(&gpu, &[scene(1.0), scene(2.0)]).unwrap();
    let errors = [
        (
            "write a uniform",
            uniform.write(&other, &scene(3.0)).unwrap_err(),
        ),
        ("read back a uniform", uniform.read(&other).unwrap_err()),
        (
            "write a uniform",
            array.write(&other, 1, &scene(3.0)).unwrap_err(),
        ),
        ("read back a uniform", array.read(&other, 1).unwrap_err()),
    ];
    for (operation, error) in errors {
        let UniformError::Gpu(error) = error else {
            panic!("expected UniformError::Gpu for `{operation}`, found {error:?}");
        };
        assert_other_device(&error, operation);
    }
    // Nothing was written: the values are the ones made.
    assert_eq!(uniform.read(&gpu).unwrap(), scene(1.0));
    assert_eq!(array.read(&gpu, 1).unwrap(), scene(2.0));
}

#[test]
fn uniform_errors() {
    use gpudata::data::UniformError;
    let gpu = gpu();
    let empty: &[Scene] = &[];
    let e = GpuUniformArray::new(&gpu, empty).unwrap_err();
    assert_eq!(e, UniformError::Empty);
    assert_eq!(e.to_string(), "a uniform array needs at least one element");
    let array = GpuUniformArray::new(&gpu, &[scene(0.0)]).unwrap();
    let e = array.offset(1).unwrap_err();
    assert_eq!(e, UniformError::IndexOutOfRange { index: 1, len: 1 });
    assert_eq!(
        e.to_string(),
        "uniform array element 1 does not exist: the array has 1 elements"
    );
    assert!(matches!(
        array.write(&gpu, 4, &scene(0.0)),
        Err(UniformError::IndexOutOfRange { index: 4, len: 1 })
    ));
    let small = crate::support::device::limited_gpu("small uniforms", |limits| {
        limits.max_uniform_buffer_binding_size = 128;
    });
    let e = GpuUniform::new(&small, &scene(0.0)).unwrap_err();
    let size = Scene::FORMAT.byte_stride();
    assert_eq!(e, UniformError::TooLarge { size, limit: 128 });
    assert_eq!(
        e.to_string(),
        format!(
            "a uniform of {size} bytes exceeds the device's max_uniform_buffer_binding_size of 128 bytes"
        )
    );
    assert_eq!(
        UniformError::OffsetOverflow {
            len: 20_000_000,
            stride: 256
        }
        .to_string(),
        "a uniform array of 20000000 elements 256 bytes apart reaches past u32::MAX, the largest dynamic offset"
    );
    assert_eq!(
        UniformError::Readback {
            expected: 16,
            found: 8
        }
        .to_string(),
        "uniform readback of 8 bytes does not hold 16 bytes"
    );
    let lost = gpudata::error::GpuError::EmptyUsage;
    assert_eq!(
        UniformError::Gpu(lost.clone()).to_string(),
        lost.to_string()
    );
}

/// The camera of glam `Mat4`, `Vec4`, `Vec3A` and `Mat3A` fields: rows go up as one
/// `memcpy` (each `Vec3A`'s fourth lane, set to a marker, lands in GPU padding and is seen
/// there), and a compute shader reading every leaf writes the host's values.
#[cfg(feature = "glam")]
mod glam_camera {
    use super::{entry, struct_decl};
    use crate::support::device::{USAGE, gpu};
    use crate::support::glam_camera::{
        Frame, StorageCamera, UniformCamera, storage_camera, uniform_camera,
    };
    use crate::support::probe::compute_capture;
    use gpudata::data::GpuUniform;
    use gpudata::layout::AddressSpace;
    use gpudata::{GpuStruct, TypedGpuData};

    fn mat3a(m: glam::Mat3A) -> Vec<f32> {
        [m.x_axis, m.y_axis, m.z_axis]
            .iter()
            .flat_map(|c| c.to_array())
            .collect()
    }

    fn frame_leaves(f: &Frame) -> Vec<f32> {
        [mat3a(f.basis), f.origin.to_array().to_vec()].concat()
    }

    /// Every leaf's value in WGSL declaration order, from the host values (`Vec3A`s without
    /// their fourth lanes).
    fn storage_leaves(c: &StorageCamera) -> Vec<f32> {
        [
            c.view.to_cols_array().to_vec(),
            c.eye.to_array().to_vec(),
            c.dir.to_array().to_vec(),
            mat3a(c.basis),
            c.rays[0].to_array().to_vec(),
            c.rays[1].to_array().to_vec(),
            frame_leaves(&c.frame),
            c.tint.to_array().to_vec(),
        ]
        .concat()
    }

    fn uniform_leaves(c: &UniformCamera) -> Vec<f32> {
        [
            c.view.to_cols_array().to_vec(),
            frame_leaves(&c.frame),
            c.eye.to_array().to_vec(),
            c.dir.to_array().to_vec(),
            c.rays[0].to_array().to_vec(),
            c.rays[1].to_array().to_vec(),
            mat3a(c.basis),
        ]
        .concat()
    }

    /// A shader body writing every leaf component of `T` at `access` (`v[1]`, `v`) as words
    /// from `first`, in the struct format's order (luma.gl's leaf names are WGSL accesses).
    fn leaf_reads<T: GpuStruct>(access: &str, first: usize) -> (String, usize) {
        let mut body = String::new();
        let mut word = first;
        for field in T::FORMAT.fields() {
            let components = field.format().components();
            for c in 0..components {
                let index = if components == 1 {
                    String::new()
                } else {
                    format!("[{c}]")
                };
                body.push_str(&format!(
                    "    out[{word}] = bitcast<u32>({access}.{}{index});\n",
                    field.name()
                ));
                word += 1;
            }
        }
        (body, word)
    }

    fn words(values: &[f32]) -> Vec<u32> {
        values.iter().map(|v| v.to_bits()).collect()
    }

    #[test]
    fn storage_rows_of_glam_cameras_upload_as_one_memcpy_and_read_back_in_every_leaf() {
        const { assert!(StorageCamera::HOST_LAYOUT_MATCHES) };
        let gpu = gpu();
        let rows = [
            storage_camera(0.0),
            storage_camera(100.0),
            storage_camera(200.0),
        ];
        let data = TypedGpuData::from_rows(&gpu, &rows, USAGE).unwrap();
        // The GPU bytes are the host bytes, fourth lanes included: the encoder would have
        // zeroed them (`dir`'s at byte 92 of each row).
        let bytes = data.as_data().read_bytes(&gpu).unwrap();
        assert_eq!(bytes, gpudata::record::rows_as_bytes(&rows).unwrap());
        assert_eq!(bytes[256 + 92..256 + 96], (-5.0f32).to_le_bytes());
        assert_eq!(data.read_rows(&gpu).unwrap(), rows);

        let mut body = String::new();
        let mut word = 0;
        for r in 0..rows.len() {
            let (reads, next) = leaf_reads::<StorageCamera>(&format!("v[{r}]"), word);
            body.push_str(&reads);
            word = next;
        }
        let wgsl = format!(
            "{}\n@group(0) @binding(0) var<storage, read> v: array<StorageCamera>;\n\
             @group(0) @binding(1) var<storage, read_write> out: array<u32>;\n\
             @compute @workgroup_size(1) fn main() {{\n{body}}}\n",
            struct_decl::<StorageCamera>()
                .wgsl(AddressSpace::Storage)
                .unwrap()
        );
        let expected: Vec<u32> = rows
            .iter()
            .flat_map(|r| words(&storage_leaves(r)))
            .collect();
        assert_eq!(expected.len(), word);
        let got = compute_capture(
            &gpu,
            &wgsl,
            vec![entry(
                0,
                wgpu::BufferBindingType::Storage { read_only: true },
            )],
            vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: data.as_data().buffer().as_entire_binding(),
            }],
            1,
            expected.len() as u64,
            1,
        );
        assert_eq!(got, expected, "{wgsl}");
    }

    #[test]
    fn a_uniform_glam_camera_uploads_as_one_memcpy_and_reads_back_in_every_leaf() {
        const { assert!(UniformCamera::HOST_LAYOUT_MATCHES) };
        let gpu = gpu();
        let value = uniform_camera(1.0);
        let data =
            TypedGpuData::from_rows(&gpu, &[value], USAGE | wgpu::BufferUsages::UNIFORM).unwrap();
        // The data ends at the last leaf's end (`basis[2]`'s `z`, byte 236): the bytes are the
        // host bytes up to there.
        let bytes = data.as_data().read_bytes(&gpu).unwrap();
        assert_eq!(bytes.len() as u64, UniformCamera::FORMAT.row_byte_length());
        assert_eq!(bytes.len(), 236);
        let image = gpudata::record::rows_as_bytes(core::slice::from_ref(&value)).unwrap();
        assert_eq!(bytes, image[..236]);
        // `dir`'s fourth lane (-8.0) at byte 156: GPU padding before `rays`.
        assert_eq!(bytes[156..160], (-8.0f32).to_le_bytes());
        let (body, word) = leaf_reads::<UniformCamera>("v", 0);
        let wgsl = format!(
            "{}\n@group(0) @binding(0) var<uniform> v: UniformCamera;\n\
             @group(0) @binding(1) var<storage, read_write> out: array<u32>;\n\
             @compute @workgroup_size(1) fn main() {{\n{body}}}\n",
            struct_decl::<UniformCamera>()
                .wgsl(AddressSpace::Uniform)
                .unwrap()
        );
        let expected = words(&uniform_leaves(&value));
        assert_eq!(expected.len(), word);
        let got = compute_capture(
            &gpu,
            &wgsl,
            vec![entry(0, wgpu::BufferBindingType::Uniform)],
            vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: data.as_data().buffer().as_entire_binding(),
            }],
            1,
            expected.len() as u64,
            1,
        );
        assert_eq!(got, expected, "{wgsl}");
        // `GpuUniform` (encoded leaf by leaf) holds the same leaves.
        let uniform = GpuUniform::new(&gpu, &value).unwrap();
        assert_eq!(uniform.read(&gpu).unwrap(), value);
    }
}
