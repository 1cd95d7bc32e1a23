//! Packed instance rows on the device: instances carrying a `mat4x4<f32>`, a nested struct and
//! an array go up as one vertex buffer, fetched through `T::vertex_buffer_layout()` (the matrix as
//! four `float32x4` attributes at consecutive locations, the nested members and array elements
//! flattened); the vertex shader rebuilds the matrix from its columns, reads every flattened
//! member, and passes their bits to the fragment stage, which writes them to a storage buffer.
//! The words equal the Rust values, written out by hand here.

use gpudata::data::HostValues;
use gpudata::format::PrimitiveType;
use gpudata::{GpuData, GpuDataDescriptor, GpuStruct, TypedGpuData, VertexFormat};

use crate::support::device::{USAGE, buffer, gpu};
use crate::support::probe::{draw_instanced_points, fetch_probe_shader, shader};

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
struct Material {
    color: [f32; 3],
    roughness: f32,
    id: u32,
    offset: [i16; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", step_mode = "instance", location = 1)]
struct Instance {
    #[gpu(wgsl = "mat4x4<f32>")]
    transform: [[f32; 4]; 4],
    material: Material,
    bones: [[f32; 2]; 2],
    #[gpu(wgsl = "mat3x3<f32>")]
    normal: [[f32; 3]; 3],
}

fn instance(i: u32) -> Instance {
    let f = |k: u32| (i * 100 + k) as f32 * 0.5 - 7.25;
    Instance {
        transform: core::array::from_fn(|c| core::array::from_fn(|r| f((c * 4 + r) as u32))),
        material: Material {
            color: [f(16), f(17), f(18)],
            roughness: f(19),
            id: 0xdead_0000 + i,
            offset: [-(i as i16) - 1, 300 + i as i16],
        },
        bones: [[f(20), f(21)], [f(22), f(23)]],
        normal: core::array::from_fn(|c| core::array::from_fn(|r| f((24 + c * 3 + r) as u32))),
    }
}

/// The words the shader must write for `v`, from the Rust value: the matrix element by element
/// (column-major, as WGSL indexes `m[c][r]`), the nested members, the array, the 3x3 matrix.
fn expected_words(v: &Instance) -> Vec<u32> {
    let mut w = Vec::new();
    for c in 0..4 {
        for r in 0..4 {
            w.push(v.transform[c][r].to_bits());
        }
    }
    w.extend(v.material.color.map(f32::to_bits));
    w.push(v.material.roughness.to_bits());
    w.push(v.material.id);
    w.extend(v.material.offset.map(|x| i32::from(x) as u32));
    for bone in v.bones {
        w.extend(bone.map(f32::to_bits));
    }
    for c in 0..3 {
        for r in 0..3 {
            w.push(v.normal[c][r].to_bits());
        }
    }
    w
}

#[test]
fn instances_carry_matrix_columns_and_flattened_members_through_the_vertex_layout() {
    let gpu = gpu();
    let layout = Instance::vertex_buffer_layout();
    // The layout itself: four float32x4 columns at locations 1..=4, then the flattened members.
    let formats: Vec<(u32, wgpu::VertexFormat, u64)> = layout
        .attributes
        .iter()
        .map(|a| (a.shader_location, a.format, a.offset))
        .collect();
    use wgpu::VertexFormat as F;
    assert_eq!(
        formats,
        [
            (1, F::Float32x4, 0),
            (2, F::Float32x4, 16),
            (3, F::Float32x4, 32),
            (4, F::Float32x4, 48),
            (5, F::Float32x3, 64),
            (6, F::Float32, 76),
            (7, F::Uint32, 80),
            (8, F::Sint16x2, 84),
            (9, F::Float32x2, 88),
            (10, F::Float32x2, 96),
            (11, F::Float32x3, 104),
            (12, F::Float32x3, 116),
            (13, F::Float32x3, 128),
        ]
    );
    assert_eq!(layout.array_stride, 140);
    assert_eq!(layout.step_mode, wgpu::VertexStepMode::Instance);

    // The shader: inputs typed as vertex fetch delivers them, named after the struct format's
    // leaves; the matrices rebuilt from their columns.
    let fields = Instance::FORMAT.fields();
    let mut params = vec!["@builtin(instance_index) ii: u32".to_owned()];
    for (attr, field) in layout.attributes.iter().zip(fields) {
        let ty = field.format().vertex_input_type();
        params.push(format!(
            "@location({}) a{}: {ty}",
            attr.shader_location, attr.shader_location
        ));
    }
    let mut scalars: Vec<String> = Vec::new();
    for c in 0..4 {
        for r in 0..4 {
            scalars.push(format!("bitcast<u32>(transform[{c}][{r}])"));
        }
    }
    for (attr, field) in layout.attributes.iter().zip(fields).skip(4).take(6) {
        let ty = field.format().vertex_input_type();
        let n = ty.components();
        for k in 0..n {
            let e = if n == 1 {
                format!("a{}", attr.shader_location)
            } else {
                format!("a{}[{k}]", attr.shader_location)
            };
            scalars.push(match ty.primitive() {
                PrimitiveType::U32 => e,
                _ => format!("bitcast<u32>({e})"),
            });
        }
    }
    for c in 0..3 {
        for r in 0..3 {
            scalars.push(format!("bitcast<u32>(normal[{c}][{r}])"));
        }
    }
    let count = scalars.len();
    assert_eq!(count, expected_words(&instance(0)).len());
    const INSTANCES: u32 = 5;
    let wgsl = fetch_probe_shader(
        &params,
        "ii",
        INSTANCES,
        "    let transform = mat4x4<f32>(a1, a2, a3, a4);\n    let normal = mat3x3<f32>(a11, a12, a13);\n",
        &scalars,
    );

    let rows: Vec<Instance> = (0..INSTANCES).map(instance).collect();
    let data = TypedGpuData::from_rows(&gpu, &rows, USAGE).unwrap();
    let module = shader(&gpu, "packed instances", &wgsl);
    let words = u64::from(INSTANCES) * count as u64;
    let out = buffer(
        &gpu,
        words * 4,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let error = draw_instanced_points(
        &gpu,
        &module,
        &[(data.as_data().buffer().slice(..), layout.clone())],
        &out,
        1,
        INSTANCES,
    );
    assert_eq!(
        error, None,
        "wgpu refused the pipeline for the generated layout"
    );
    let read = GpuData::new(
        gpudata::BufferHandle::Shared(out),
        GpuDataDescriptor::new(VertexFormat::Uint32, words),
    )
    .unwrap();
    let HostValues::U32(values) = read.as_view().unwrap().read_values(&gpu).unwrap() else {
        unreachable!("uint32 decodes to u32")
    };
    let expected: Vec<u32> = rows.iter().flat_map(expected_words).collect();
    assert_eq!(values, expected, "{wgsl}");
}
