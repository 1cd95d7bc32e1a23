//! The shadow example's scene and renderer, shared with its test (`tests/data/shadow.rs`): a
//! floor and four cubes lit by two lights, each light's depth baked into one layer of a depth
//! texture array, then a shaded pass comparing each fragment with every layer.
//!
//! Everything between the structs and the draw calls goes through gpudata: the structs are
//! `#[derive(GpuStruct)]`, the bind groups `#[derive(GpuBindGroup)]` checked against
//! `shadow.wgsl` at compile time (binding numbers, stages and `min_binding_size`s from the
//! shader, value types compared member by member), the vertex layout comes from the derive and
//! is checked against both vertex entry points, and each draw's dynamic offset is the uniform
//! array's own.

use std::error::Error;
use std::f32::consts::PI;
use std::ops::Range;

use gpudata::bind::pipeline_layout;
use gpudata::check::{Shader, VertexBufferInput};
use gpudata::data::{GpuUniform, GpuUniformArray};
use gpudata::{Gpu, GpuBindGroup, GpuStruct, TypedGpuData};
use gpudata_suite::render::{COLOR_FORMAT, Offscreen};

/// The shader, for the run-time vertex-state check and the pipelines.
pub const SHADER: &str = include_str!("shadow.wgsl");

/// A column-major 4×4 matrix, as WGSL's `mat4x4<f32>` stores it.
pub type Mat4 = [[f32; 4]; 4];

/// One vertex: a position and a normal, both `sint8x4`, read by `vs_bake` (position only) and
/// `vs_main` (both).
#[derive(Clone, Copy, Debug, GpuStruct)]
#[repr(C)]
#[gpu(
    layout = "packed",
    zero_copy,
    shader = "examples/shadow/shadow.wgsl",
    vertex_entry = "vs_bake, vs_main"
)]
pub struct Vertex {
    /// Object-space position, w = 1.
    pub position: [i8; 4],
    /// Object-space normal, w = 0.
    pub normal: [i8; 4],
}

/// The camera (or, in the depth pass, one light's view-projection) and the light count.
#[derive(Clone, Copy, Debug, GpuStruct)]
#[repr(C)]
#[gpu(layout = "wgsl-uniform", zero_copy)]
pub struct Globals {
    /// Clip from world.
    #[gpu(wgsl = "mat4x4<f32>")]
    pub view_proj: [[f32; 4]; 4],
    /// `x`: how many lights `fs_main` reads.
    pub num_lights: [u32; 4],
}

/// One entity's model matrix and colour, one per draw at a dynamic offset.
#[derive(Clone, Copy, Debug, GpuStruct)]
#[repr(C)]
#[gpu(layout = "wgsl-uniform", zero_copy)]
pub struct Entity {
    /// World from object.
    #[gpu(wgsl = "mat4x4<f32>")]
    pub world: [[f32; 4]; 4],
    /// Its colour (rgb; a = 1).
    pub color: [f32; 4],
}

/// One light, an element of the `array<Light>` storage global.
#[derive(Clone, Copy, Debug, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
pub struct Light {
    /// The light's clip space from world: its shadow map's projection.
    #[gpu(wgsl = "mat4x4<f32>")]
    pub proj: [[f32; 4]; 4],
    /// World position, w = 1.
    pub pos: [f32; 4],
    /// Colour (rgb).
    pub color: [f32; 4],
}

/// `@group(0)` of the shaded pass: every binding number, stage and `min_binding_size` from
/// `shadow.wgsl`.
#[derive(GpuBindGroup)]
#[bind_group(
    shader = "examples/shadow/shadow.wgsl",
    group = 0,
    entry = "vs_main",
    entry = "fs_main"
)]
pub struct Forward<'a> {
    /// The camera.
    pub globals: &'a GpuUniform<Globals>,
    /// The lights, a bare `array<Light>`.
    pub lights: &'a TypedGpuData<Light>,
    /// One depth layer per light.
    #[binding(texture = "2d-array", sample = "depth")]
    pub shadow_maps: &'a wgpu::TextureView,
    /// The comparison sampler.
    #[binding(sampler = "comparison")]
    pub shadow_sampler: &'a wgpu::Sampler,
}

/// `@group(0)` of the depth pass: one `Globals` per light, at dynamic offsets.
#[derive(GpuBindGroup)]
#[bind_group(shader = "examples/shadow/shadow.wgsl", group = 0, entry = "vs_bake")]
pub struct Bake<'a> {
    /// Each light's view-projection.
    pub globals: &'a GpuUniformArray<Globals>,
}

/// `@group(1)` of both passes: the entities, one per draw at a dynamic offset.
#[derive(GpuBindGroup)]
#[bind_group(
    shader = "examples/shadow/shadow.wgsl",
    group = 1,
    entry = "vs_bake",
    entry = "vs_main",
    entry = "fs_main"
)]
pub struct Locals<'a> {
    /// One `Entity` per draw.
    pub entity: &'a GpuUniformArray<Entity>,
}

/// One light as the scene describes it.
#[derive(Clone, Copy, Debug)]
pub struct LightSpec {
    /// World position.
    pub pos: [f32; 3],
    /// Colour.
    pub color: [f32; 3],
    /// Vertical field of view of its shadow map, degrees.
    pub fov: f32,
}

/// One cube: centre, half extent, rotation about z (degrees) and colour.
#[derive(Clone, Copy, Debug)]
pub struct Cube {
    /// Centre.
    pub center: [f32; 3],
    /// Half the edge length.
    pub half: f32,
    /// Rotation about the z axis, degrees.
    pub angle: f32,
    /// Colour.
    pub color: [f32; 3],
}

/// Half the floor's edge (it spans [-7, 7]² at z = 0).
pub const FLOOR_HALF: f32 = 7.0;
/// The floor's colour.
pub const FLOOR_COLOR: [f32; 3] = [0.9, 0.9, 0.9];
/// Where nothing is drawn.
pub const CLEAR: [f64; 3] = [0.1, 0.15, 0.25];
/// Each light's shadow map edge, texels.
pub const SHADOW_SIZE: u32 = 512;
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
const NEAR: f32 = 1.0;
const FAR: f32 = 25.0;

/// The camera's eye.
pub const EYE: [f32; 3] = [4.0, -11.0, 7.0];

/// The two lights.
pub const LIGHTS: [LightSpec; 2] = [
    LightSpec {
        pos: [7.0, -4.0, 10.0],
        color: [0.35, 0.6, 0.35],
        fov: 60.0,
    },
    LightSpec {
        pos: [-6.0, 6.0, 11.0],
        color: [0.65, 0.35, 0.3],
        fov: 50.0,
    },
];

/// The four cubes, floating above the floor.
pub const CUBES: [Cube; 4] = [
    Cube {
        center: [-2.0, -2.0, 2.0],
        half: 0.7,
        angle: 10.0,
        color: [0.3, 0.75, 0.35],
    },
    Cube {
        center: [2.0, -2.0, 2.0],
        half: 1.2,
        angle: 50.0,
        color: [0.35, 0.55, 0.9],
    },
    Cube {
        center: [-2.0, 2.0, 2.0],
        half: 1.0,
        angle: 140.0,
        color: [0.9, 0.75, 0.3],
    },
    Cube {
        center: [2.0, 2.0, 2.0],
        half: 0.9,
        angle: 210.0,
        color: [0.8, 0.4, 0.7],
    },
];

/// `a · b`, column-major.
#[must_use]
pub fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut out = [[0.0; 4]; 4];
    for (c, column) in out.iter_mut().enumerate() {
        for (r, value) in column.iter_mut().enumerate() {
            *value = (0..4).map(|k| a[k][r] * b[c][k]).sum();
        }
    }
    out
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `a · b` of 3-vectors.
#[must_use]
pub fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `v / |v|`.
#[must_use]
pub fn normalize(v: [f32; 3]) -> [f32; 3] {
    let l = dot(v, v).sqrt();
    [v[0] / l, v[1] / l, v[2] / l]
}

/// A right-handed view matrix looking from `eye` at the origin, z up.
fn look_at(eye: [f32; 3]) -> Mat4 {
    let f = normalize(sub([0.0; 3], eye));
    let s = normalize(cross(f, [0.0, 0.0, 1.0]));
    let u = cross(s, f);
    [
        [s[0], u[0], -f[0], 0.0],
        [s[1], u[1], -f[1], 0.0],
        [s[2], u[2], -f[2], 0.0],
        [-dot(s, eye), -dot(u, eye), dot(f, eye), 1.0],
    ]
}

/// A right-handed perspective projection to WebGPU's clip space (depth 0..1).
fn perspective(fov_degrees: f32, aspect: f32) -> Mat4 {
    let f = 1.0 / (fov_degrees * PI / 360.0).tan();
    let depth = FAR / (NEAR - FAR);
    [
        [f / aspect, 0.0, 0.0, 0.0],
        [0.0, f, 0.0, 0.0],
        [0.0, 0.0, depth, -1.0],
        [0.0, 0.0, NEAR * depth, 0.0],
    ]
}

/// The camera's view-projection for a `width` × `height` image.
#[must_use]
#[allow(clippy::cast_precision_loss, reason = "image sizes below 2^24")]
pub fn camera(width: u32, height: u32) -> Mat4 {
    mul(
        &perspective(45.0, width as f32 / height as f32),
        &look_at(EYE),
    )
}

/// A light's shadow-map projection.
#[must_use]
pub fn light_proj(light: &LightSpec) -> Mat4 {
    mul(&perspective(light.fov, 1.0), &look_at(light.pos))
}

/// A cube's world matrix: translate · rotate about z · scale.
#[must_use]
pub fn cube_world(cube: &Cube) -> Mat4 {
    let (s, c) = (cube.angle * PI / 180.0).sin_cos();
    let h = cube.half;
    let [x, y, z] = cube.center;
    [
        [c * h, s * h, 0.0, 0.0],
        [-s * h, c * h, 0.0, 0.0],
        [0.0, 0.0, h, 0.0],
        [x, y, z, 1.0],
    ]
}

fn vertex(p: [i8; 3], n: [i8; 3]) -> Vertex {
    Vertex {
        position: [p[0], p[1], p[2], 1],
        normal: [n[0], n[1], n[2], 0],
    }
}

/// The cube's 36 vertices (six faces of two triangles) and the floor's 6, in one buffer.
fn vertices() -> (Vec<Vertex>, Range<u32>, Range<u32>) {
    let mut out = Vec::new();
    for axis in 0..3 {
        for sign in [-1i8, 1] {
            let mut n = [0i8; 3];
            n[axis] = sign;
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let corner = |a: i8, b: i8| {
                let mut p = n;
                p[u] = a;
                p[v] = b;
                vertex(p, n)
            };
            for (a, b) in [(-1, -1), (1, -1), (1, 1), (-1, -1), (1, 1), (-1, 1)] {
                out.push(corner(a, b));
            }
        }
    }
    let cube = 0..36;
    for (x, y) in [(-1, -1), (1, -1), (1, 1), (-1, -1), (1, 1), (-1, 1)] {
        out.push(vertex([x, y, 0], [0, 0, 1]));
    }
    (out, cube, 36..42)
}

/// Every entity: the floor first, then the cubes.
#[must_use]
pub fn entities() -> Vec<Entity> {
    let floor = Entity {
        world: [
            [FLOOR_HALF, 0.0, 0.0, 0.0],
            [0.0, FLOOR_HALF, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ],
        color: [FLOOR_COLOR[0], FLOOR_COLOR[1], FLOOR_COLOR[2], 1.0],
    };
    let cubes = CUBES.iter().map(|c| Entity {
        world: cube_world(c),
        color: [c.color[0], c.color[1], c.color[2], 1.0],
    });
    std::iter::once(floor).chain(cubes).collect()
}

/// Every light, as the storage array holds it.
#[must_use]
pub fn lights() -> Vec<Light> {
    LIGHTS
        .iter()
        .map(|l| Light {
            proj: light_proj(l),
            pos: [l.pos[0], l.pos[1], l.pos[2], 1.0],
            color: [l.color[0], l.color[1], l.color[2], 1.0],
        })
        .collect()
}

/// What one render made.
pub struct Frame {
    /// Tightly packed RGBA8 rows.
    pub rgba: Vec<u8>,
    /// Entities drawn per pass.
    pub draws: usize,
    /// Bytes between two entities in the dynamic-offset uniform array.
    pub entity_stride: u32,
    /// The layout entries of the shaded pass's `@group(0)`.
    pub forward_entries: Vec<wgpu::BindGroupLayoutEntry>,
}

/// Runs `f` in a validation error scope, returning wgpu's error instead of its panic.
fn scoped<R>(gpu: &Gpu, what: &str, f: impl FnOnce() -> R) -> Result<R, Box<dyn Error>> {
    let scope = gpu.device().push_error_scope(wgpu::ErrorFilter::Validation);
    let out = f();
    match pollster::block_on(scope.pop()) {
        None => Ok(out),
        Some(e) => Err(format!("{what}: {e}").into()),
    }
}

fn depth_texture(gpu: &Gpu, size: wgpu::Extent3d, label: &str) -> wgpu::Texture {
    gpu.device().create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: DEPTH_FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    })
}

/// A depth attachment that clears to 1 and keeps what is drawn.
fn depth_attachment(view: &wgpu::TextureView) -> wgpu::RenderPassDepthStencilAttachment<'_> {
    wgpu::RenderPassDepthStencilAttachment {
        view,
        depth_ops: Some(wgpu::Operations {
            load: wgpu::LoadOp::Clear(1.0),
            store: wgpu::StoreOp::Store,
        }),
        stencil_ops: None,
    }
}

/// The depth pass's (`fragment: None`) or the shaded pass's pipeline.
fn render_pipeline(
    gpu: &Gpu,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    vertex_entry: &str,
    fragment: Option<&str>,
) -> Result<wgpu::RenderPipeline, Box<dyn Error>> {
    let targets = [Some(wgpu::ColorTargetState::from(COLOR_FORMAT))];
    let bias = if fragment.is_none() {
        // The floor's own depth must not shadow it: bias the baked depths away from the light.
        wgpu::DepthBiasState {
            constant: 2,
            slope_scale: 2.0,
            clamp: 0.0,
        }
    } else {
        wgpu::DepthBiasState::default()
    };
    scoped(gpu, "create a render pipeline", || {
        gpu.device()
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(vertex_entry),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some(vertex_entry),
                    compilation_options: Default::default(),
                    buffers: &[Some(Vertex::vertex_buffer_layout())],
                },
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::LessEqual),
                    stencil: wgpu::StencilState::default(),
                    bias,
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: fragment.map(|entry| wgpu::FragmentState {
                    module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    targets: &targets,
                }),
                multiview_mask: None,
                cache: None,
            })
    })
}

/// Renders the scene into a `width` × `height` image.
///
/// # Errors
/// A gpudata error (an upload, a bind group, a dynamic offset past the array), the vertex
/// state refused by the run-time check, or wgpu's validation error.
pub fn render(gpu: &Gpu, width: u32, height: u32) -> Result<Frame, Box<dyn Error>> {
    // Whether every input of both vertex entry points is fed, by one attribute each: a question
    // about all of a pipeline's buffers, which the derive (seeing one struct) leaves to run time.
    Shader::parse(SHADER)?.check_vertex_state(
        &["vs_bake", "vs_main"],
        &[VertexBufferInput::of::<Vertex>("vertices")],
        gpu.limits(),
    )?;

    let (rows, cube, floor) = vertices();
    let vertices = TypedGpuData::from_rows(gpu, &rows, wgpu::BufferUsages::VERTEX)?;
    let entity_rows = entities();
    let entity = GpuUniformArray::new(gpu, &entity_rows)?;
    let light_rows = lights();
    let lights = TypedGpuData::from_rows(gpu, &light_rows, wgpu::BufferUsages::STORAGE)?;
    let count = u32::try_from(light_rows.len())?;
    let globals = GpuUniform::new(
        gpu,
        &Globals {
            view_proj: camera(width, height),
            num_lights: [count, 0, 0, 0],
        },
    )?;
    let light_views: Vec<Globals> = light_rows
        .iter()
        .map(|l| Globals {
            view_proj: l.proj,
            num_lights: [count, 0, 0, 0],
        })
        .collect();
    let bake_globals = GpuUniformArray::new(gpu, &light_views)?;

    let shadow = depth_texture(
        gpu,
        wgpu::Extent3d {
            width: SHADOW_SIZE,
            height: SHADOW_SIZE,
            depth_or_array_layers: count,
        },
        "shadow maps",
    );
    let shadow_maps = shadow.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    });
    let layers: Vec<wgpu::TextureView> = (0..count)
        .map(|layer| {
            shadow.create_view(&wgpu::TextureViewDescriptor {
                dimension: Some(wgpu::TextureViewDimension::D2),
                base_array_layer: layer,
                array_layer_count: Some(1),
                ..Default::default()
            })
        })
        .collect();
    let shadow_sampler = gpu.device().create_sampler(&wgpu::SamplerDescriptor {
        label: Some("shadow"),
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        compare: Some(wgpu::CompareFunction::LessEqual),
        ..Default::default()
    });

    let forward = Forward {
        globals: &globals,
        lights: &lights,
        shadow_maps: &shadow_maps,
        shadow_sampler: &shadow_sampler,
    }
    .bind_group(gpu)?;
    let bake = Bake {
        globals: &bake_globals,
    }
    .bind_group(gpu)?;
    let locals = Locals { entity: &entity }.bind_group(gpu)?;

    let module = scoped(gpu, "create the shader module", || {
        gpu.device()
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("shadow.wgsl"),
                source: wgpu::ShaderSource::Wgsl(SHADER.into()),
            })
    })?;
    let bake_layout = pipeline_layout::<(Bake<'_>, Locals<'_>)>(gpu, "bake")?;
    let forward_layout = pipeline_layout::<(Forward<'_>, Locals<'_>)>(gpu, "forward")?;
    let bake_pipeline = render_pipeline(gpu, &bake_layout, &module, "vs_bake", None)?;
    let forward_pipeline =
        render_pipeline(gpu, &forward_layout, &module, "vs_main", Some("fs_main"))?;

    let draws: Vec<Range<u32>> = std::iter::once(floor)
        .chain(CUBES.iter().map(|_| cube.clone()))
        .collect();
    let slice = vertices.as_data().vertex_buffer_slice(gpu)?;
    let target = Offscreen::new(gpu, width, height);
    let depth = depth_texture(
        gpu,
        wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        "depth",
    );
    let depth_view = depth.create_view(&wgpu::TextureViewDescriptor::default());
    let mut encoder = gpu
        .device()
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    for (light, layer) in layers.iter().enumerate() {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("bake"),
            depth_stencil_attachment: Some(depth_attachment(layer)),
            ..Default::default()
        });
        pass.set_pipeline(&bake_pipeline);
        pass.set_bind_group(Bake::GROUP, &bake, &[bake_globals.offset(light)?]);
        pass.set_vertex_buffer(0, slice);
        for (i, range) in draws.iter().enumerate() {
            pass.set_bind_group(Locals::GROUP, &locals, &[entity.offset(i)?]);
            pass.draw(range.clone(), 0..1);
        }
    }
    {
        let [r, g, b] = CLEAR;
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("shaded"),
            color_attachments: &[Some(target.attachment(wgpu::Color { r, g, b, a: 1.0 }))],
            depth_stencil_attachment: Some(depth_attachment(&depth_view)),
            ..Default::default()
        });
        pass.set_pipeline(&forward_pipeline);
        pass.set_bind_group(Forward::GROUP, &forward, &[]);
        pass.set_vertex_buffer(0, slice);
        for (i, range) in draws.iter().enumerate() {
            pass.set_bind_group(Locals::GROUP, &locals, &[entity.offset(i)?]);
            pass.draw(range.clone(), 0..1);
        }
    }
    scoped(gpu, "submit the passes", || {
        gpu.queue().submit([encoder.finish()]);
    })?;
    Ok(Frame {
        rgba: target.read_rgba(gpu)?,
        draws: draws.len(),
        entity_stride: entity.offset(1)? - entity.offset(0)?,
        forward_entries: Forward::layout_entries(),
    })
}
