//! A `wgsl-storage` particle struct advanced by a compute shader for a few steps, then drawn
//! from the same buffer as instanced sprites into `particles_compute.png`.
//!
//! The compute shader declares its storage struct with the WGSL text gpudata generates from the
//! derived format, so the shader and the Rust rows cannot disagree on offsets.
//!
//! ```text
//! cargo run --release --example particles_compute
//! ```

use gpudata::check::{HostBinding, Shader, VertexBufferInput};
use gpudata::data::DEFAULT_USAGE;
use gpudata::{Gpu, GpuStruct, TypedGpuData, Unorm8x4};
use gpudata_suite::render::{Offscreen, pipeline};

/// One particle, laid out by WGSL storage rules: `velocity` lands at offset 8, `color` (a `u32`
/// carrier in storage, `vec4<f32>` through vertex fetch) at 16, `age` at 20; 24-byte stride.
#[derive(Clone, Copy, Debug, GpuStruct)]
#[gpu(step_mode = "instance")]
struct Particle {
    position: [f32; 2],
    velocity: [f32; 2],
    color: Unorm8x4,
    age: f32,
}

const COUNT: u32 = 20_000;
const STEPS: u32 = 90;
const SIZE: u32 = 640;

fn compute_shader(particle_struct: &str) -> String {
    format!(
        "{particle_struct}
@group(0) @binding(0) var<storage, read_write> particles: array<Particle>;

@compute @workgroup_size(256)
fn step(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x;
    if i >= arrayLength(&particles) {{ return; }}
    var p = particles[i];
    let dt = 1.0 / 60.0;
    // A vortex around the origin plus gravity; particles fade as they age.
    let swirl = vec2<f32>(-p.position.y, p.position.x) * 1.5;
    p.velocity = (p.velocity + (swirl - p.position * 0.8 + vec2<f32>(0.0, -0.4)) * dt) * 0.995;
    p.position = p.position + p.velocity * dt;
    p.age = p.age + dt;
    let c = unpack4x8unorm(p.color);
    p.color = pack4x8unorm(vec4<f32>(c.rgb, max(c.a - dt * 0.2, 0.15)));
    particles[i] = p;
}}
"
    )
}

const DRAW_SHADER: &str = r"
struct Out {
    @builtin(position) position: vec4<f32>,
    @location(0) color: vec4<f32>,
    @location(1) local: vec2<f32>,
}

@vertex
fn vs(@builtin(vertex_index) corner: u32,
      @location(0) position: vec2<f32>,
      @location(1) velocity: vec2<f32>,
      @location(2) color: vec4<f32>,
      @location(3) age: f32) -> Out {
    var corners = array<vec2<f32>, 6>(
        vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0),
        vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0));
    let local = corners[corner];
    let size = 0.004 + 0.004 * min(length(velocity), 1.0);
    var out: Out;
    out.position = vec4<f32>(position * 0.9 + local * size, 0.0, 1.0);
    out.color = color;
    out.local = local;
    return out;
}

@fragment
fn fs(in: Out) -> @location(0) vec4<f32> {
    let r = length(in.local);
    if r > 1.0 { discard; }
    return vec4<f32>(in.color.rgb, in.color.a * (1.0 - r));
}
";

fn initial_particles() -> Vec<Particle> {
    (0..COUNT)
        .map(|i| {
            let t = i as f32 / COUNT as f32;
            let a = t * std::f32::consts::TAU * 13.0;
            let r = 0.2 + 0.7 * ((i as f32 * 7.31).sin() * 0.5 + 0.5);
            Particle {
                position: [r * a.cos(), r * a.sin()],
                velocity: [0.3 * a.sin(), -0.3 * a.cos()],
                color: Unorm8x4::from_f32([0.3 + 0.7 * t, 0.8 - 0.5 * t, 1.0 - 0.3 * t, 0.9]),
                age: 0.0,
            }
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::headless()?;
    println!("adapter: {}", gpu.adapter_summary());
    let wgsl_struct = Particle::FORMAT.wgsl_struct("Particle")?;
    println!("generated storage struct:\n{wgsl_struct}");

    // Both shaders agree with the rows: the compute shader's `particles` global and the draw
    // shader's vertex inputs.
    let binding = HostBinding {
        group: 0,
        binding: 0,
    };
    Shader::parse(&compute_shader(&wgsl_struct))?.check_global::<Particle>("particles", binding)?;
    let buffers = [VertexBufferInput::of::<Particle>("particles")];
    Shader::parse(DRAW_SHADER)?.check_vertex_inputs("vs", &buffers)?;
    let particles = TypedGpuData::from_rows(&gpu, &initial_particles(), DEFAULT_USAGE)?;
    let device = gpu.device();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("particles step"),
        source: wgpu::ShaderSource::Wgsl(compute_shader(&wgsl_struct).into()),
    });
    let step = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("particles step"),
        layout: None,
        module: &module,
        entry_point: Some("step"),
        compilation_options: Default::default(),
        cache: None,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &step.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(particles.as_data().storage_binding(&gpu)?),
        }],
    });

    let target = Offscreen::new(&gpu, SIZE, SIZE);
    let draw = pipeline(
        &gpu,
        DRAW_SHADER,
        &[Some(Particle::vertex_buffer_layout())],
        wgpu::PrimitiveTopology::TriangleList,
    );
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&step);
        pass.set_bind_group(0, &bind_group, &[]);
        for _ in 0..STEPS {
            pass.dispatch_workgroups(COUNT.div_ceil(256), 1, 1);
        }
    }
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("particles draw"),
            color_attachments: &[Some(target.attachment(wgpu::Color {
                r: 0.02,
                g: 0.02,
                b: 0.04,
                a: 1.0,
            }))],
            ..Default::default()
        });
        pass.set_pipeline(&draw);
        pass.set_vertex_buffer(0, particles.as_data().vertex_buffer_slice(&gpu)?);
        pass.draw(0..6, 0..COUNT);
    }
    gpu.queue().submit([encoder.finish()]);
    target.save_png(&gpu, "particles_compute.png")?;

    // The compute shader and the Rust struct agree on every byte: read the rows back.
    let rows = particles.read_rows(&gpu)?;
    let ages: Vec<f32> = rows.iter().map(|p| p.age).collect();
    let expected_age = STEPS as f32 / 60.0;
    assert!(
        ages.iter().all(|a| (a - expected_age).abs() < 1e-3),
        "ages {ages:?}"
    );
    println!(
        "advanced {COUNT} particles {STEPS} steps (age {:.3} s each); first: {:?}",
        ages[0], rows[0]
    );
    let positions = particles
        .get_child::<particle_fields::Position>()
        .read(&gpu)?;
    println!("positions via a child view: {:?} …", &positions[..3]);
    println!("wrote particles_compute.png");
    Ok(())
}
