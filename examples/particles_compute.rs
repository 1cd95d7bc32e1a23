//! A flock of particles stepped by a compute shader, in the spirit of wgpu's boids example, then
//! drawn as instanced triangles from the buffer the last step wrote, into
//! `particles_compute.png`.
//!
//! - **Storage ping-pong:** two particle buffers; step `s` reads one and writes the other
//!   through one of two bind groups of the same derived type, [`Step`], made over the buffers
//!   one way and then the other. A uniform holds the simulation's parameters.
//! - **Instanced draw:** the same particle buffer is the per-instance vertex buffer (position
//!   and velocity), beside a per-vertex triangle mesh; the tuple [`DrawBuffers`] sets both at
//!   their slots and says how many vertices and instances to draw.
//!
//! Nothing between the structs and the dispatch and draw calls is typed by hand: binding
//! numbers, `min_binding_size`s and visibilities come from the WGSL by the bind group derive
//! (checked at compile time), the vertex layouts' formats, offsets, strides and step modes from
//! `#[derive(GpuStruct)]` (checked against `vs_main` at compile time, one by one and as a set),
//! the workgroup count from the shader's `@workgroup_size`, the group indices from the groups'
//! types, the draw counts from the buffers.
//!
//! The initial particles come from a fixed integer generator and the step count is fixed, so
//! the run is deterministic; `tests/data/particles.rs` runs this file's [`run`] with a few
//! particles and checks it against a CPU step and a reference image.
//!
//! ```text
//! cargo run --release --example particles_compute
//! ```

use gpudata::bind::{BindError, pipeline_layout};
use gpudata::check::Shader;
use gpudata::data::{DEFAULT_USAGE, GpuUniform, VertexBufferSet};
use gpudata::{Gpu, GpuBindGroup, GpuStruct, TypedGpuData};
use gpudata_suite::render::{COLOR_FORMAT, Offscreen};

/// The compute step's WGSL.
pub const STEP_WGSL: &str = include_str!("particles_step.wgsl");
/// The draw's WGSL.
pub const DRAW_WGSL: &str = include_str!("particles_draw.wgsl");

/// One particle: a storage row of the compute step (`array<Particle>`, checked by [`Step`]'s
/// derive) and a per-instance vertex of the draw (locations 0 and 1, checked against
/// `vs_main`).
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[gpu(
    step_mode = "instance",
    shader = "examples/particles_draw.wgsl",
    vertex_entry = "vs_main"
)]
pub struct Particle {
    /// Where it is, in simulation units (the view shows about -1.1..1.1).
    pub position: [f32; 2],
    /// Where it goes, in units per second.
    pub velocity: [f32; 2],
}

/// One corner of the triangle every particle draws, in the particle's frame (x across its
/// velocity, y along it), fed at the location after [`Particle`]'s (checked against `vs_main`).
#[derive(Clone, Copy, Debug, GpuStruct)]
#[gpu(
    layout = "packed",
    location = 2,
    shader = "examples/particles_draw.wgsl",
    vertex_entry = "vs_main"
)]
pub struct Corner {
    /// The corner, in triangle widths (x) and lengths (y).
    pub offset: [f32; 2],
}

/// The simulation's parameters: the step's uniform.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
pub struct SimParams {
    /// Seconds per step.
    pub dt: f32,
    /// The squared distance at which a neighbour's weight halves.
    pub radius2: f32,
    /// Steering towards the neighbours' weighted centre.
    pub cohesion: f32,
    /// Steering towards the neighbours' weighted heading.
    pub alignment: f32,
    /// Steering away from close neighbours.
    pub separation: f32,
    /// The spring towards the origin.
    pub centering: f32,
    /// The push around the origin, counter-clockwise.
    pub swirl: f32,
    /// Velocity kept per step.
    pub damping: f32,
}

/// The draw's uniform.
#[derive(Clone, Copy, Debug, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
pub struct View {
    /// Simulation units to clip space, in x and y.
    pub scale: [f32; 2],
    /// The triangle's width and length in clip space.
    pub size: [f32; 2],
}

/// The compute step's bind group: binding numbers, `min_binding_size`s and visibility from
/// `particles_step.wgsl`, checked against it at compile time. Two of them, over the particle
/// buffers one way and the other, make the ping-pong.
#[derive(GpuBindGroup)]
#[bind_group(shader = "examples/particles_step.wgsl", entry = "step")]
pub struct Step<'a> {
    /// The simulation's parameters.
    pub params: &'a GpuUniform<SimParams>,
    /// The particles this step reads.
    pub particles_in: &'a TypedGpuData<Particle>,
    /// The particles this step writes.
    #[binding(read_write)]
    pub particles_out: &'a TypedGpuData<Particle>,
}

/// The draw's bind group, from `particles_draw.wgsl`.
#[derive(GpuBindGroup)]
#[bind_group(shader = "examples/particles_draw.wgsl", entry = "vs_main")]
pub struct Draw<'a> {
    /// Scale and triangle size.
    pub view: &'a GpuUniform<View>,
}

/// The draw's vertex buffers in slot order: the particles per instance, the triangle per
/// vertex.
pub type DrawBuffers = (Particle, Corner);

// The draw's whole vertex state, checked at compile time: no location fed twice, every input of
// `vs_main` fed.
gpudata::check_vertex_set!("vs_main": Particle, Corner);

/// The simulation's parameters.
pub const PARAMS: SimParams = SimParams {
    dt: 0.02,
    radius2: 0.004,
    cohesion: 0.4,
    alignment: 1.5,
    separation: 8.0,
    centering: 0.5,
    swirl: 0.2,
    damping: 0.998,
};

/// The simulation units the view shows either side of the origin: clip space is `position /
/// VIEW_EXTENT`.
pub const VIEW_EXTENT: f32 = 1.1;

/// The clear colour, the image's background.
pub const BACKGROUND: wgpu::Color = wgpu::Color {
    r: 0.02,
    g: 0.02,
    b: 0.05,
    a: 1.0,
};

/// How big a run is.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Particles.
    pub count: u32,
    /// Compute steps.
    pub steps: u32,
    /// The image's width and height, in pixels.
    pub size: u32,
}

/// The example's run.
pub const EXAMPLE: Config = Config {
    count: 1024,
    steps: 200,
    size: 256,
};

/// What a run did.
pub struct Run {
    /// The particles before the first step.
    pub initial: Vec<Particle>,
    /// The particles after the last, read back from the GPU.
    pub particles: Vec<Particle>,
    /// The image, tightly packed RGBA8 rows.
    pub rgba: Vec<u8>,
    /// The workgroups of each dispatch.
    pub workgroups: [u32; 3],
}

/// A fixed 32-bit generator (xorshift32): the same particles on every run and machine.
struct Xorshift(u32);

impl Xorshift {
    /// The next value in `[0, 1)`, from the top 24 bits.
    fn next_unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        (self.0 >> 8) as f32 / (1u32 << 24) as f32
    }
}

/// `count` particles in a ring, circling the origin counter-clockwise, with some noise.
#[must_use]
pub fn initial_particles(count: u32) -> Vec<Particle> {
    let mut random = Xorshift(0x2545_f491);
    (0..count)
        .map(|_| {
            let angle = random.next_unit() * std::f32::consts::TAU;
            let radius = 0.15 + 0.8 * random.next_unit();
            let (sin, cos) = angle.sin_cos();
            let jitter = [random.next_unit() - 0.5, random.next_unit() - 0.5];
            Particle {
                position: [radius * cos, radius * sin],
                velocity: [-0.5 * sin + 0.2 * jitter[0], 0.5 * cos + 0.2 * jitter[1]],
            }
        })
        .collect()
}

/// The triangle every particle draws: its tip ahead along the velocity, the origin (the
/// particle's position) inside it.
pub const TRIANGLE: [Corner; 3] = [
    Corner {
        offset: [-0.5, -0.4],
    },
    Corner {
        offset: [0.5, -0.4],
    },
    Corner { offset: [0.0, 0.6] },
];

/// Steps `config.count` particles `config.steps` times and draws them into a `config.size`
/// square image.
///
/// # Errors
/// What gpudata or the shader checks refuse, or the image readback's failure.
pub fn run(gpu: &Gpu, config: Config) -> Result<Run, Box<dyn std::error::Error>> {
    let device = gpu.device();
    let initial = initial_particles(config.count);

    // The step: two particle buffers, two bind groups of one type over them, one pipeline.
    let step_shader = Shader::parse(STEP_WGSL)?;
    let workgroups = step_shader.workgroups("step", config.count, gpu.limits())?;
    let params = GpuUniform::new(gpu, &PARAMS)?;
    let buffers = [
        TypedGpuData::from_rows(gpu, &initial, DEFAULT_USAGE)?,
        TypedGpuData::<Particle>::zeroed(gpu, initial.len() as u64, DEFAULT_USAGE)?,
    ];
    let step_group = |from, to| {
        Step {
            params: &params,
            particles_in: from,
            particles_out: to,
        }
        .bind_group(gpu)
    };
    let groups = [
        step_group(&buffers[0], &buffers[1])?,
        step_group(&buffers[1], &buffers[0])?,
    ];
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("particles step"),
        source: wgpu::ShaderSource::Wgsl(STEP_WGSL.into()),
    });
    let step = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("particles step"),
        layout: Some(&pipeline_layout::<(Step,)>(gpu, "particles step")?),
        module: &module,
        entry_point: Some("step"),
        compilation_options: Default::default(),
        cache: None,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&step);
        for s in 0..config.steps as usize {
            pass.set_bind_group(Step::GROUP, &groups[s % 2], &[]);
            let [x, y, z] = workgroups;
            pass.dispatch_workgroups(x, y, z);
        }
    }
    gpu.queue().submit([encoder.finish()]);
    let last = &buffers[config.steps as usize % 2];

    // The draw: the buffer the last step wrote, per instance, and the triangle, per vertex.
    Shader::parse(DRAW_WGSL)?.check_vertex_set::<DrawBuffers>(&["vs_main"], gpu.limits())?;
    let mesh = TypedGpuData::from_rows(gpu, &TRIANGLE, wgpu::BufferUsages::VERTEX)?;
    let view = GpuUniform::new(
        gpu,
        &View {
            scale: [1.0 / VIEW_EXTENT; 2],
            // About 5 pixels wide and 7 long.
            size: [10.0 / config.size as f32, 14.0 / config.size as f32],
        },
    )?;
    let draw_group = Draw { view: &view }.bind_group(gpu)?;
    let draw = draw_pipeline(gpu)?;
    let target = Offscreen::new(gpu, config.size, config.size);
    target.render(gpu, "particles draw", BACKGROUND, |pass| {
        pass.set_pipeline(&draw);
        pass.set_bind_group(Draw::GROUP, &draw_group, &[]);
        let rows = DrawBuffers::set(gpu, pass, (last, &mesh))?;
        pass.draw(rows.vertices, rows.instances);
        Ok::<_, gpudata::GpuError>(())
    })?;
    Ok(Run {
        initial,
        particles: last.read_rows(gpu)?,
        rgba: target.read_rgba(gpu)?,
        workgroups,
    })
}

/// The draw's pipeline: [`Draw`]'s layout, [`DrawBuffers`]' vertex layouts.
fn draw_pipeline(gpu: &Gpu) -> Result<wgpu::RenderPipeline, BindError> {
    let device = gpu.device();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("particles draw"),
        source: wgpu::ShaderSource::Wgsl(DRAW_WGSL.into()),
    });
    let layout = pipeline_layout::<(Draw,)>(gpu, "particles draw")?;
    Ok(
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("particles draw"),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &DrawBuffers::layouts(),
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(COLOR_FORMAT.into())],
            }),
            multiview_mask: None,
            cache: None,
        }),
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::headless()?;
    println!("adapter: {}", gpu.adapter_summary());
    let config = EXAMPLE;
    let run = run(&gpu, config)?;
    gpudata_suite::render::write_png("particles_compute.png", config.size, config.size, &run.rgba)?;
    let [x, y, z] = run.workgroups;
    println!(
        "stepped {} particles {} times ({x}x{y}x{z} workgroups a step, two bind groups of `Step` ping-ponging), drew them as {} instanced triangles",
        config.count, config.steps, config.count
    );
    let spread = |particles: &[Particle]| {
        particles
            .iter()
            .map(|p| p.position[0].hypot(p.position[1]))
            .fold(0.0f32, f32::max)
    };
    println!(
        "farthest from the origin: {:.3} before, {:.3} after; first particle after: {:?}",
        spread(&run.initial),
        spread(&run.particles),
        run.particles[0]
    );
    println!("wrote particles_compute.png ({0}x{0})", config.size);
    Ok(())
}
