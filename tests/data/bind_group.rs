//! Derived bind groups on the device: `#[derive(GpuBindGroup)]` structs checked against
//! `tests/shaders/bind_group.wgsl` at compile time give the layouts of a compute pipeline
//! (`pipeline_layout`), their bind groups bind every kind of resource (a uniform, a
//! dynamic-offset uniform array, rows in storage, a runtime-sized struct written back, a sampled
//! texture with its sampler, a storage texture, output rows), and the dispatch's bytes come back
//! as the CPU computes them. The layouts are made once per device; the same structs pass the
//! run-time check, and a shader edited to disagree fails it with typed errors.

use gpudata::bind::{BindError, pipeline_layout};
use gpudata::check::{BindGroupCheckError, BindingMismatchError, Shader};
use gpudata::data::{GpuStorage, GpuUniform, GpuUniformArray};
use gpudata::record::RuntimeArray;
use gpudata::{GpuBindGroup, GpuStruct, TypedGpuData};

use crate::support;

const SHADER: &str = include_str!("../shaders/bind_group.wgsl");

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct Params {
    scale: f32,
    offset: [f32; 3],
}

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct Entity {
    tint: [f32; 4],
}

#[derive(Clone, Copy, GpuStruct)]
struct Light {
    #[gpu(wgsl = "mat4x4<f32>")]
    proj: [[f32; 4]; 4],
    pos: [f32; 4],
    color: [f32; 4],
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Particle {
    position: [f32; 3],
    mass: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Particles {
    count: u32,
    items: RuntimeArray<Particle>,
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Out {
    value: [f32; 4],
}

/// Group 0: every binding number, visibility and `min_binding_size` from the shader.
#[derive(GpuBindGroup)]
#[bind_group(shader = "tests/shaders/bind_group.wgsl", group = 0, entry = "main")]
struct Scene<'a> {
    params: &'a GpuUniform<Params>,
    entity: &'a GpuUniformArray<Entity>,
    lights: &'a TypedGpuData<Light>,
    #[binding(read_write)]
    particles: &'a GpuStorage<Particles>,
    image: &'a wgpu::TextureView,
    smp: &'a wgpu::Sampler,
    #[binding(storage_texture = "2d", format = "rgba8unorm", access = "write")]
    out_tex: &'a wgpu::TextureView,
}

/// Group 1, the output rows, its binding number written out (and checked).
#[derive(GpuBindGroup)]
#[bind_group(shader = "tests/shaders/bind_group.wgsl", group = 1, entry = "main")]
struct Output<'a> {
    #[binding(0, read_write)]
    results: &'a TypedGpuData<Out>,
}

fn texture(gpu: &gpudata::Gpu, usage: wgpu::TextureUsages) -> wgpu::Texture {
    gpu.device().create_texture(&wgpu::TextureDescriptor {
        label: Some("bind group test"),
        size: wgpu::Extent3d {
            width: 4,
            height: 1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage,
        view_formats: &[],
    })
}

/// The texels of the sampled texture: x is 1.0 in odd columns, y from column 2 on.
fn texels() -> [u8; 16] {
    let mut bytes = [0u8; 16];
    for i in 0..4 {
        bytes[i * 4] = if i % 2 == 1 { 255 } else { 0 };
        bytes[i * 4 + 1] = if i >= 2 { 255 } else { 0 };
        bytes[i * 4 + 3] = 255;
    }
    bytes
}

fn light(i: usize) -> Light {
    let f = i as f32;
    let mut proj = [[0.0; 4]; 4];
    proj[3][0] = 100.0 * f;
    Light {
        proj,
        pos: [0.0, 0.0, 0.0, 10.0 * f],
        color: [0.0, 0.0, f + 0.5, 1.0],
    }
}

#[test]
fn derived_groups_bind_every_resource_kind() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = support::fresh_gpu();
    let device = gpu.device();
    let params = GpuUniform::new(
        &gpu,
        &Params {
            scale: 2.0,
            offset: [0.0, 0.0, 0.25],
        },
    )?;
    let entities = [0.5f32, 7.0].map(|y| Entity {
        tint: [0.0, y, 0.0, 0.0],
    });
    let entity = GpuUniformArray::new(&gpu, &entities)?;
    let lights = TypedGpuData::from_rows(
        &gpu,
        &(0..4).map(light).collect::<Vec<_>>(),
        wgpu::BufferUsages::STORAGE,
    )?;
    let items: Vec<Particle> = (0..4)
        .map(|i| Particle {
            position: [i as f32; 3],
            mass: 1.5 * i as f32,
        })
        .collect();
    let particles = GpuStorage::new(
        &gpu,
        &Particles {
            count: 4,
            items: RuntimeArray::new(),
        },
        &items,
    )?;
    let image = texture(
        &gpu,
        wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
    );
    gpu.queue().write_texture(
        image.as_image_copy(),
        &texels(),
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(16),
            rows_per_image: None,
        },
        image.size(),
    );
    let out_tex = texture(
        &gpu,
        wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC,
    );
    let smp = device.create_sampler(&wgpu::SamplerDescriptor::default());
    let results = TypedGpuData::from_rows(
        &gpu,
        &[Out { value: [0.0; 4] }; 4],
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    )?;

    // The layout entries come from the types and the shader.
    let entries = Scene::layout_entries();
    assert_eq!(
        entries.iter().map(|e| e.binding).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4, 5, 6]
    );
    assert!(
        entries
            .iter()
            .all(|e| e.visibility == wgpu::ShaderStages::COMPUTE)
    );
    assert_eq!(
        entries[1].ty,
        wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: std::num::NonZeroU64::new(16),
        }
    );
    assert_eq!(
        entries[3].ty,
        wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: false },
            has_dynamic_offset: false,
            min_binding_size: std::num::NonZeroU64::new(32),
        }
    );

    let view = |t: &wgpu::Texture| t.create_view(&wgpu::TextureViewDescriptor::default());
    let (image_view, out_view) = (view(&image), view(&out_tex));
    let scene = Scene {
        params: &params,
        entity: &entity,
        lights: &lights,
        particles: &particles,
        image: &image_view,
        smp: &smp,
        out_tex: &out_view,
    }
    .bind_group(&gpu)?;
    let output = Output { results: &results }.bind_group(&gpu)?;
    let layouts_before = gpu.cached_bind_group_layouts();
    assert_eq!(Scene::layout(&gpu)?, Scene::layout(&gpu)?);
    assert_eq!(gpu.cached_bind_group_layouts(), layouts_before);

    let layout = pipeline_layout::<(Scene<'_>, Output<'_>)>(&gpu, "bind group test")?;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: Some(&layout),
        module: &module,
        entry_point: Some("main"),
        compilation_options: wgpu::PipelineCompilationOptions::default(),
        cache: None,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 256,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(Scene::GROUP, &scene, &[entity.offset(1)?]);
        pass.set_bind_group(Output::GROUP, &output, &[]);
        pass.dispatch_workgroups(4, 1, 1);
    }
    encoder.copy_texture_to_buffer(
        out_tex.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(256),
                rows_per_image: None,
            },
        },
        out_tex.size(),
    );
    gpu.queue().submit([encoder.finish()]);

    let expected: Vec<Out> = (0..4)
        .map(|i| {
            let f = i as f32;
            let x = if i % 2 == 1 { 1.0 } else { 0.0 };
            let y = if i >= 2 { 1.0 } else { 0.0 };
            Out {
                value: [2.0 * f + 0.25, 7.0, (f + 0.5) + 10.0 * f + 100.0 * f, x + y],
            }
        })
        .collect();
    let found = results.read_rows(&gpu)?;
    assert_eq!(
        bytemuck::cast_slice::<_, u8>(&found.iter().map(|o| o.value).collect::<Vec<_>>()),
        bytemuck::cast_slice::<_, u8>(&expected.iter().map(|o| o.value).collect::<Vec<_>>())
    );
    let (header, written) = particles.read(&gpu)?;
    assert_eq!(header.count, 4);
    let masses: Vec<f32> = written.iter().map(|p| p.mass).collect();
    assert_eq!(masses, [4.0, 7.0, 10.0, 13.0]);

    let slice = readback.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| {
        r.expect("map the storage texture's copy")
    });
    gpu.wait_idle()?;
    let texels = slice.get_mapped_range()?[..16].to_vec();
    assert_eq!(
        texels,
        [
            0, 51, 255, 255, 51, 51, 255, 255, 102, 51, 255, 255, 153, 51, 255, 255
        ]
    );
    Ok(())
}

#[test]
fn derived_group_passes_the_run_time_check() -> Result<(), Box<dyn std::error::Error>> {
    let shader = Shader::parse(SHADER)?;
    shader.check_bind_group::<Scene<'_>>()?;
    shader.check_bind_group::<Output<'_>>()?;
    Ok(())
}

#[test]
fn edited_shader_fails_the_run_time_check() -> Result<(), Box<dyn std::error::Error>> {
    let edited = SHADER
        .replace(
            "var<storage, read_write> particles",
            "var<storage, read> particles",
        )
        .replace("var smp: sampler;", "var smp: sampler_comparison;")
        .replace(
            "particles.items[i].mass = particles.items[i].mass * params.scale + f32(particles.count);",
            "",
        )
        .replace("let sampled = textureSampleLevel(image, smp, uv, 0.0);", "let sampled = vec4<f32>(textureSampleCompareLevel(image_depth, smp, uv, 0.5));")
        .replace(
            "var image: texture_2d<f32>;",
            "var image: texture_2d<f32>;\n@group(0) @binding(7) var image_depth: texture_depth_2d;",
        )
        .replace("    offset: vec3<f32>,\n}", "    offset: vec4<f32>,\n}");
    let shader = Shader::parse(&edited)?;
    let Err(BindGroupCheckError::Mismatches { mismatches, .. }) =
        shader.check_bind_group::<Scene<'_>>()
    else {
        panic!("the edited shader disagrees with Scene")
    };
    let errors: Vec<(&str, &BindingMismatchError)> = mismatches
        .iter()
        .map(|m| (m.path.as_str(), &m.error))
        .collect();
    assert_eq!(errors.len(), 4, "{mismatches:#?}");
    assert!(matches!(
        errors[0],
        ("params.offset", BindingMismatchError::Type(_))
    ));
    assert_eq!(
        errors[1],
        (
            "particles",
            &BindingMismatchError::AddressSpace {
                host: "storage, read_write",
                shader: "storage, read",
            }
        )
    );
    assert_eq!(
        errors[2],
        (
            "smp",
            &BindingMismatchError::Sampler {
                host: "filtering",
                shader: "sampler_comparison",
            }
        )
    );
    assert_eq!(
        errors[3],
        (
            "image_depth",
            &BindingMismatchError::Unbound {
                group: 0,
                binding: 7,
                entry_point: "main".to_owned(),
            }
        )
    );
    Ok(())
}

#[test]
fn pipeline_layout_refuses_groups_out_of_order() {
    let gpu = support::gpu();
    let err = pipeline_layout::<(Output<'_>, Scene<'_>)>(&gpu, "out of order").unwrap_err();
    assert!(matches!(
        err,
        BindError::GroupOrder {
            bind_group: "Output",
            group: 1,
            position: 0
        }
    ));
    assert_eq!(
        err.to_string(),
        "bind group `Output` declares @group(1) but is listed at position 0 of the pipeline layout; list the groups in @group order"
    );
}

/// Bindings written out without a shader, one of each run-time disagreement against
/// [`LOOSE_SHADER`].
#[derive(GpuBindGroup)]
#[bind_group(
    group = 0,
    visibility = "fragment",
    entry = "vs_main",
    entry = "fs_main"
)]
struct Loose<'a> {
    #[binding(0)]
    depth: &'a wgpu::TextureView,
    #[binding(1, texture = "2d-array")]
    layers: &'a wgpu::TextureView,
    #[binding(2, multisampled)]
    resolved: &'a wgpu::TextureView,
    #[binding(3, storage_texture = "2d", format = "rgba8unorm")]
    half_float: &'a wgpu::TextureView,
    #[binding(4, storage_texture = "2d", format = "rgba8unorm", access = "read")]
    written: &'a wgpu::TextureView,
    #[binding(5)]
    not_a_sampler: &'a GpuUniform<Params>,
    #[binding(6)]
    vertex_params: &'a GpuUniform<Params>,
    #[binding(7)]
    gone: &'a wgpu::Sampler,
}

const LOOSE_SHADER: &str = "
struct Params {
    scale: f32,
    offset: vec3<f32>,
}
@group(0) @binding(0) var depth: texture_depth_2d;
@group(0) @binding(1) var layers: texture_2d<f32>;
@group(0) @binding(2) var resolved: texture_2d<f32>;
@group(0) @binding(3) var half_float: texture_storage_2d<rgba16float, write>;
@group(0) @binding(4) var written: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(5) var not_a_sampler: sampler;
@group(0) @binding(6) var<uniform> vertex_params: Params;

@vertex
fn vs_main() -> @builtin(position) vec4<f32> {
    return vec4<f32>(vertex_params.offset, vertex_params.scale);
}

@fragment
fn fs_main(@builtin(position) at: vec4<f32>) -> @location(0) vec4<f32> {
    let d = textureLoad(depth, vec2<i32>(0, 0), 0);
    let l = textureSample(layers, not_a_sampler, at.xy);
    let r = textureLoad(resolved, vec2<i32>(0, 0), 0);
    textureStore(half_float, vec2<i32>(0, 0), r);
    textureStore(written, vec2<i32>(0, 0), l);
    return vec4<f32>(d) + l;
}
";

#[test]
fn run_time_check_reports_each_disagreement() -> Result<(), Box<dyn std::error::Error>> {
    let shader = Shader::parse(LOOSE_SHADER)?;
    let Err(err) = shader.check_bind_group::<Loose<'_>>() else {
        panic!("every binding of Loose disagrees")
    };
    let BindGroupCheckError::Mismatches {
        bind_group,
        mismatches,
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!(bind_group, "Loose");
    let errors: Vec<(&str, &BindingMismatchError)> = mismatches
        .iter()
        .map(|m| (m.path.as_str(), &m.error))
        .collect();
    let visibility = BindingMismatchError::Visibility {
        host: "fragment".to_owned(),
        entry_point: "vs_main".to_owned(),
        stage: "vertex",
    };
    assert_eq!(
        errors,
        [
            (
                "depth",
                &BindingMismatchError::SampleType {
                    host: "float",
                    shader: "depth"
                }
            ),
            (
                "layers",
                &BindingMismatchError::Dimension {
                    host: "2d-array",
                    shader: "2d"
                }
            ),
            (
                "resolved",
                &BindingMismatchError::Multisampled {
                    host: "multisampled",
                    shader: "single-sampled"
                }
            ),
            (
                "half_float",
                &BindingMismatchError::StorageFormat {
                    host: "rgba8unorm",
                    shader: "rgba16float"
                }
            ),
            (
                "written",
                &BindingMismatchError::StorageAccess {
                    host: "read",
                    shader: "write"
                }
            ),
            (
                "not_a_sampler",
                &BindingMismatchError::Resource {
                    host: "a uniform buffer",
                    shader: "a sampler"
                }
            ),
            ("vertex_params", &visibility),
            (
                "gone",
                &BindingMismatchError::NoGlobal {
                    group: 0,
                    binding: 7
                }
            ),
        ]
    );
    assert_eq!(
        err.to_string(),
        "bind group `Loose` disagrees with the shader in 8 places:\n  \
         `depth` (wgsl 6:23): the field binds a texture of float samples, the shader declares depth samples; make the sample types agree\n  \
         `layers` (wgsl 7:23): the field binds a 2d-array texture view, the shader declares a 2d texture; make the dimensions agree\n  \
         `resolved` (wgsl 8:23): the field binds a multisampled texture, the shader declares a single-sampled one; make the two agree\n  \
         `half_float` (wgsl 9:23): the field binds texel format rgba8unorm, the shader declares rgba16float; make the formats agree\n  \
         `written` (wgsl 10:23): the field binds storage texture access read, the shader declares write; make the access modes agree\n  \
         `not_a_sampler` (wgsl 11:23): the field binds a uniform buffer, the shader declares a sampler; borrow the resource the shader declares, or change the wgsl\n  \
         `vertex_params` (wgsl 12:23): the field is visible to fragment, but entry point `vs_main` (vertex) uses it; add the stage to its visibility\n  \
         `gone`: the shader declares no global at @group(0) @binding(7); bind a global the shader declares, or add this one to the wgsl"
    );
    Ok(())
}

#[test]
fn run_time_check_needs_the_entry_points_and_a_valid_shader()
-> Result<(), Box<dyn std::error::Error>> {
    let renamed = Shader::parse(&SHADER.replace("fn main(", "fn run("))?;
    let err = renamed.check_bind_group::<Scene<'_>>().unwrap_err();
    assert_eq!(
        err,
        BindGroupCheckError::MissingEntryPoint {
            bind_group: "Scene".to_owned(),
            name: "main".to_owned()
        }
    );
    assert_eq!(
        err.to_string(),
        "bind group `Scene` is checked for entry point `main`, which the shader does not declare"
    );
    // Implicit-level sampling outside a fragment shader parses but does not validate.
    let invalid = Shader::parse(&SHADER.replace(
        "textureSampleLevel(image, smp, uv, 0.0)",
        "textureSample(image, smp, uv)",
    ))?;
    let err = invalid.check_bind_group::<Scene<'_>>().unwrap_err();
    let BindGroupCheckError::Invalid { message } = &err else {
        panic!("{err}")
    };
    assert_eq!(
        err.to_string(),
        format!("the shader does not validate: {message}")
    );
    // A host type without a layout cannot come from the derive; the variant wraps the check's.
    let wrapped = BindGroupCheckError::from(gpudata::check::ShaderCheckError::MissingStruct {
        name: "Light".to_owned(),
    });
    assert_eq!(wrapped.to_string(), "the shader declares no struct `Light`");
    Ok(())
}

#[test]
fn bind_group_of_rows_without_storage_usage_is_an_error() -> Result<(), Box<dyn std::error::Error>>
{
    let gpu = support::gpu();
    let results =
        TypedGpuData::from_rows(&gpu, &[Out { value: [0.0; 4] }], wgpu::BufferUsages::VERTEX)?;
    let err = Output { results: &results }.bind_group(&gpu).unwrap_err();
    assert!(
        matches!(err, BindError::Gpu(gpudata::GpuError::MissingUsage { .. })),
        "{err}"
    );
    assert!(
        err.to_string().starts_with("cannot bind a storage buffer"),
        "{err}"
    );
    Ok(())
}

/// The texture and sampler kinds of one agreement case: the layout entries and the WGSL that
/// samples the pair in a compute entry point.
fn sampling_case(
    sample: wgpu::TextureSampleType,
    sampler: wgpu::SamplerBindingType,
) -> Option<String> {
    use wgpu::SamplerBindingType as S;
    use wgpu::TextureSampleType as T;
    let (texture, sampler_decl, value) = match (sample, sampler) {
        (T::Depth, S::Comparison) => (
            "texture_depth_2d",
            "sampler_comparison",
            "textureSampleCompareLevel(t, s, vec2<f32>(0.5), 0.5)",
        ),
        (_, S::Comparison) => return None,
        (T::Float { .. }, _) => (
            "texture_2d<f32>",
            "sampler",
            "textureSampleLevel(t, s, vec2<f32>(0.5), 0.0).x",
        ),
        (T::Depth, _) => (
            "texture_depth_2d",
            "sampler",
            "textureSampleLevel(t, s, vec2<f32>(0.5), 0)",
        ),
        (T::Sint, _) => (
            "texture_2d<i32>",
            "sampler",
            "f32(textureGather(0, t, s, vec2<f32>(0.5)).x)",
        ),
        (T::Uint, _) => (
            "texture_2d<u32>",
            "sampler",
            "f32(textureGather(0, t, s, vec2<f32>(0.5)).x)",
        ),
    };
    Some(format!(
        "@group(0) @binding(0) var t: {texture};
@group(0) @binding(1) var s: {sampler_decl};
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() {{
    out[0] = {value};
}}"
    ))
}

/// wgpu's verdict on a compute pipeline of `wgsl` with a layout of `entries`: its validation
/// error, if any.
fn pipeline_error(
    gpu: &gpudata::Gpu,
    wgsl: &str,
    entries: &[wgpu::BindGroupLayoutEntry],
) -> Option<String> {
    let device = gpu.device();
    let (_, error) = support::validation_error(gpu, || {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        });
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        })
    });
    error
}

/// The shared filtering rule (the derive's and the run-time check's) against wgpu's
/// `create_compute_pipeline` on every texture sample type with every sampler kind WGSL can
/// sample it with: a filtering sampler refuses unfilterable-float, sint and uint textures, and
/// takes a depth texture.
#[test]
fn filtering_rule_agrees_with_wgpu() {
    use wgpu::SamplerBindingType as S;
    use wgpu::TextureSampleType as T;
    let gpu = support::gpu();
    let samples = [
        T::Float { filterable: true },
        T::Float { filterable: false },
        T::Sint,
        T::Uint,
        T::Depth,
    ];
    let mut refused = Vec::new();
    let mut cases = 0;
    for sample in samples {
        for sampler in [S::Filtering, S::NonFiltering, S::Comparison] {
            let Some(wgsl) = sampling_case(sample, sampler) else {
                continue;
            };
            let compute = wgpu::ShaderStages::COMPUTE;
            let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
                binding,
                visibility: compute,
                ty,
                count: None,
            };
            let texture = wgpu::BindingType::Texture {
                sample_type: sample,
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            };
            let sampler_ty = wgpu::BindingType::Sampler(sampler);
            let out = wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: false },
                has_dynamic_offset: false,
                min_binding_size: None,
            };
            let entries = [entry(0, texture), entry(1, sampler_ty), entry(2, out)];
            let wgpu_error = pipeline_error(&gpu, &wgsl, &entries);
            let ours = gpudata::bind::unfilterable_sample(&texture, &sampler_ty);
            assert_eq!(
                wgpu_error.is_some(),
                ours.is_some(),
                "{sample:?} with {sampler:?}: wgpu says {wgpu_error:?}, gpudata {ours:?}"
            );
            if let Some(sample) = ours {
                refused.push(sample);
            }
            cases += 1;
        }
    }
    assert_eq!(cases, 11);
    assert_eq!(refused, ["unfilterable-float", "sint", "uint"]);
}

const FILTERING_SHADER: &str = "
@group(0) @binding(0) var heights: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var depth: texture_depth_2d;
@group(0) @binding(3) var depth_smp: sampler;
@group(0) @binding(4) var ids: texture_2d<u32>;
@group(0) @binding(5) var ids_smp: sampler;
struct Sum {
    value: f32,
}
@group(0) @binding(6) var<storage, read_write> out: array<Sum>;

@compute @workgroup_size(1)
fn main() {
    let uv = vec2<f32>(0.5);
    out[0].value = textureSampleLevel(heights, smp, uv, 0.0).x
        + textureSampleLevel(depth, depth_smp, uv, 0)
        + f32(textureGather(0, ids, ids_smp, uv).x);
}
";

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
struct Sum {
    value: f32,
}

/// `heights` is unfilterable, sampled through the filtering `smp`: refused. A depth texture
/// through a filtering sampler and a uint texture through a non-filtering one are not.
#[derive(GpuBindGroup)]
#[bind_group(group = 0, visibility = "compute", entry = "main")]
struct Filtering<'a> {
    #[binding(0, sample = "unfilterable-float")]
    heights: &'a wgpu::TextureView,
    #[binding(1)]
    smp: &'a wgpu::Sampler,
    #[binding(2, sample = "depth")]
    depth: &'a wgpu::TextureView,
    #[binding(3)]
    depth_smp: &'a wgpu::Sampler,
    #[binding(4, sample = "uint")]
    ids: &'a wgpu::TextureView,
    #[binding(5, sampler = "non-filtering")]
    ids_smp: &'a wgpu::Sampler,
    #[binding(6, read_write)]
    out: &'a TypedGpuData<Sum>,
}

/// `Filtering` with `smp` non-filtering.
#[derive(GpuBindGroup)]
#[bind_group(group = 0, visibility = "compute", entry = "main")]
struct NonFiltering<'a> {
    #[binding(0, sample = "unfilterable-float")]
    heights: &'a wgpu::TextureView,
    #[binding(1, sampler = "non-filtering")]
    smp: &'a wgpu::Sampler,
    #[binding(2, sample = "depth")]
    depth: &'a wgpu::TextureView,
    #[binding(3)]
    depth_smp: &'a wgpu::Sampler,
    #[binding(4, sample = "uint")]
    ids: &'a wgpu::TextureView,
    #[binding(5, sampler = "non-filtering")]
    ids_smp: &'a wgpu::Sampler,
    #[binding(6, read_write)]
    out: &'a TypedGpuData<Sum>,
}

/// The run-time check finds the one pair wgpu refuses, at the sampler's field, and passes the
/// group wgpu accepts; both verdicts checked with the derived layouts on wgpu.
#[test]
fn run_time_check_refuses_the_pairs_wgpu_refuses() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = support::gpu();
    let shader = Shader::parse(FILTERING_SHADER)?;
    let err = shader.check_bind_group::<Filtering<'_>>().unwrap_err();
    let BindGroupCheckError::Mismatches { mismatches, .. } = &err else {
        panic!("{err}")
    };
    let errors: Vec<(&str, &BindingMismatchError)> = mismatches
        .iter()
        .map(|m| (m.path.as_str(), &m.error))
        .collect();
    assert_eq!(
        errors,
        [(
            "smp",
            &BindingMismatchError::Filtering {
                texture: "heights".to_owned(),
                sample: "unfilterable-float",
                entry_point: "main".to_owned(),
            }
        )]
    );
    assert_eq!(
        err.to_string(),
        "bind group `Filtering` disagrees with the shader in 1 place:\n  \
         `smp` (wgsl 3:23): the field binds a filtering sampler, but entry point `main` samples `heights`, a texture of unfilterable-float samples, with it (wgpu refuses the pair); bind a non-filtering sampler (only a filterable float or a depth texture takes a filtering one)"
    );
    let refused = pipeline_error(&gpu, FILTERING_SHADER, &Filtering::layout_entries());
    assert!(
        refused.as_deref().is_some_and(|e| e.contains("filter")),
        "{refused:?}"
    );
    shader.check_bind_group::<NonFiltering<'_>>()?;
    assert_eq!(
        pipeline_error(&gpu, FILTERING_SHADER, &NonFiltering::layout_entries()),
        None
    );
    Ok(())
}
