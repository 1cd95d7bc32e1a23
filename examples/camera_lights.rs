//! A camera-and-lights scene: a `wgsl-uniform` struct with a `mat4x4<f32>` and an array of light
//! structs in a `GpuUniform`, and 400 instanced tiles whose per-instance `mat4x4<f32>` reaches
//! the vertex shader as four `float32x4` attributes, all declared by `#[derive(GpuStruct)]`;
//! the shader's structs are gpudata's WGSL text. Writes `camera_lights.png`.
//!
//! ```text
//! cargo run --example camera_lights
//! ```

use gpudata::data::GpuUniform;
use gpudata::layout::{AddressSpace, TypeDecl};
use gpudata::record::GpuType;
use gpudata::{Gpu, GpuStruct, TypedGpuData};
use gpudata_suite::render::{Offscreen, pipeline};

/// One point light.
#[derive(Clone, Copy, Debug, GpuStruct)]
#[repr(C)]
struct Light {
    position: [f32; 3],
    radius: f32,
    color: [f32; 4],
}

/// The camera and its lights, bound as `var<uniform> scene: Scene`.
#[derive(Clone, Copy, Debug, GpuStruct)]
#[repr(C)]
#[gpu(layout = "wgsl-uniform")]
struct Scene {
    #[gpu(wgsl = "mat4x4<f32>")]
    view_proj: [[f32; 4]; 4],
    lights: [Light; 4],
    ambient: [f32; 4],
}

/// One tile: its transform (locations 0..=3, one column each) and tint (location 4).
#[derive(Clone, Copy, Debug, GpuStruct)]
#[repr(C)]
#[gpu(step_mode = "instance", zero_copy)]
struct Tile {
    #[gpu(wgsl = "mat4x4<f32>")]
    transform: [[f32; 4]; 4],
    tint: [f32; 4],
}

const SIZE: u32 = 640;
const GRID: u32 = 20;

const SHADER_BODY: &str = r"
@group(0) @binding(0) var<uniform> scene: Scene;

struct Out {
    @builtin(position) position: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) tint: vec4<f32>,
}

@vertex
fn vs(@builtin(vertex_index) corner: u32,
      @location(0) c0: vec4<f32>, @location(1) c1: vec4<f32>,
      @location(2) c2: vec4<f32>, @location(3) c3: vec4<f32>,
      @location(4) tint: vec4<f32>) -> Out {
    var corners = array<vec2<f32>, 6>(
        vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0),
        vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0));
    let transform = mat4x4<f32>(c0, c1, c2, c3);
    let world = transform * vec4<f32>(corners[corner], 0.0, 1.0);
    var out: Out;
    out.position = scene.view_proj * world;
    out.world = world.xyz;
    out.tint = tint;
    return out;
}

@fragment
fn fs(in: Out) -> @location(0) vec4<f32> {
    var light = scene.ambient.rgb;
    for (var i = 0u; i < 4u; i++) {
        let l = scene.lights[i];
        let d = distance(l.position, in.world);
        light += l.color.rgb * max(0.0, 1.0 - d / l.radius);
    }
    return vec4<f32>(in.tint.rgb * light, 1.0);
}
";

fn scene() -> Scene {
    // An orthographic camera over [-1.1, 1.1]², rotated a little about z.
    let (s, c) = 0.15f32.sin_cos();
    let k = 1.0 / 1.1;
    let view_proj = [
        [c * k, s * k, 0.0, 0.0],
        [-s * k, c * k, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let light = |x: f32, y: f32, color: [f32; 3]| Light {
        position: [x, y, 0.3],
        radius: 1.1,
        color: [color[0], color[1], color[2], 1.0],
    };
    Scene {
        view_proj,
        lights: [
            light(-0.6, -0.5, [1.0, 0.45, 0.2]),
            light(0.6, -0.4, [0.2, 0.6, 1.0]),
            light(0.0, 0.65, [0.5, 1.0, 0.4]),
            light(0.1, 0.0, [0.6, 0.6, 0.6]),
        ],
        ambient: [0.08, 0.08, 0.1, 0.0],
    }
}

#[allow(clippy::cast_precision_loss, reason = "grid coordinates below 2^24")]
fn tiles() -> Vec<Tile> {
    let step = 2.0 / GRID as f32;
    (0..GRID * GRID)
        .map(|i| {
            let (x, y) = ((i % GRID) as f32, (i / GRID) as f32);
            let center = [-1.0 + (x + 0.5) * step, -1.0 + (y + 0.5) * step];
            let angle = (x * 0.7 + y * 0.3).sin() * 0.6;
            let scale = step * 0.42;
            let (s, c) = angle.sin_cos();
            Tile {
                transform: [
                    [c * scale, s * scale, 0.0, 0.0],
                    [-s * scale, c * scale, 0.0, 0.0],
                    [0.0, 0.0, 1.0, 0.0],
                    [center[0], center[1], 0.0, 1.0],
                ],
                tint: [0.9, 0.85 + 0.15 * (x / GRID as f32), 0.8, 1.0],
            }
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::headless()?;
    println!("adapter: {}", gpu.adapter_summary());
    let TypeDecl::Struct(scene_decl) = TypeDecl::from(&Scene::WGSL) else {
        unreachable!("a derived struct is a WGSL struct")
    };
    let structs = scene_decl.wgsl(AddressSpace::Uniform)?;
    println!("{structs}");
    println!(
        "Tile: {} bytes per instance, {} vertex attributes (the matrix as 4 columns)",
        Tile::FORMAT.byte_stride(),
        Tile::vertex_buffer_layout().attributes.len()
    );

    let uniform = GpuUniform::new(&gpu, &scene())?;
    let rows = tiles();
    let instances = TypedGpuData::from_rows(&gpu, &rows, wgpu::BufferUsages::VERTEX)?;
    let shader = format!("{structs}\n{SHADER_BODY}");
    let pipeline = pipeline(
        &gpu,
        &shader,
        &[Some(Tile::vertex_buffer_layout())],
        wgpu::PrimitiveTopology::TriangleList,
    );
    let group = gpu.device().create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("scene"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(uniform.binding()),
        }],
    });
    let target = Offscreen::new(&gpu, SIZE, SIZE);
    let clear = wgpu::Color {
        r: 0.02,
        g: 0.02,
        b: 0.03,
        a: 1.0,
    };
    target.render(&gpu, "tiles", clear, |pass| {
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.set_vertex_buffer(0, instances.as_data().vertex_buffer_slice(&gpu)?);
        pass.draw(0..6, 0..GRID * GRID);
        Ok::<_, gpudata::GpuError>(())
    })?;
    let rgba = target.save_png(&gpu, "camera_lights.png")?;
    let lit = rgba.chunks(4).filter(|p| p[0] > 60 || p[1] > 60).count();
    println!(
        "drew {} tiles lit by {} lights from a {}-byte uniform; {lit} of {} pixels lit; wrote camera_lights.png",
        rows.len(),
        Scene::FORMAT
            .fields()
            .iter()
            .filter(|f| f.name().ends_with(".radius"))
            .count(),
        uniform.byte_size(),
        SIZE * SIZE
    );
    Ok(())
}
