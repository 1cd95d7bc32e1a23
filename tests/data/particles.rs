//! The `particles_compute` example's own code (`examples/particles_compute.rs`, included as a
//! module) on the device with 48 particles, 12 steps and a 96-pixel image: the particles after
//! the ping-pong equal a CPU re-implementation of the step written here from the WGSL (an
//! independent oracle, within [`POSITION_TOLERANCE`]); the image equals the checked-in
//! `particles_compute_reference.png` within [`PIXEL_TOLERANCE`] and shows a triangle where the
//! CPU puts each particle. Also the vertex buffer set's errors, which the example never meets.
//!
//! After a deliberate change of the example's picture, `GPUDATA_WRITE_REFERENCE=1 cargo test
//! --test data particles` rewrites the reference from the run (and the next build compares
//! against it).

use gpudata::data::{DEFAULT_USAGE, VertexBufferSet};
use gpudata::{GpuError, GpuStruct, TypedGpuData};

use crate::support;

#[path = "../../examples/particles_compute.rs"]
#[allow(dead_code)]
mod example;

use example::{Config, Corner, PARAMS, Particle, SimParams, VIEW_EXTENT};

/// The small run: 48 particles (one workgroup of 64), 12 steps (even: the result is back in
/// the first buffer), a 96 × 96 image.
const SMALL: Config = Config {
    count: 48,
    steps: 12,
    size: 96,
};

/// The reference image of [`SMALL`], rendered on lavapipe.
const REFERENCE: &[u8] = include_bytes!("particles_compute_reference.png");

/// The largest difference allowed between a GPU and a CPU coordinate after 12 steps. On
/// lavapipe they are equal, bit for bit; another GPU may fuse multiplies and adds, and WGSL lets
/// it divide within 2.5 ulp. Every weight of the step is smooth (no cut-off radius, no branch on
/// a float but `weight > 0`, true for every particle), so these roundings stay near the values'
/// last bits (the coordinates are about 1).
const POSITION_TOLERANCE: f32 = 1e-4;

/// Pixels may differ from the reference by at most this much in any channel...
const PIXEL_TOLERANCE: u8 = 8;
/// ...except along triangle edges, where a position a rounding away may move coverage: at
/// most this many pixels.
const EDGE_PIXELS: usize = 24;

/// One step of `examples/particles_step.wgsl`, written again on the CPU, operation by
/// operation.
fn cpu_step(params: &SimParams, particles: &[Particle]) -> Vec<Particle> {
    let add = |a: [f32; 2], b: [f32; 2]| [a[0] + b[0], a[1] + b[1]];
    let sub = |a: [f32; 2], b: [f32; 2]| [a[0] - b[0], a[1] - b[1]];
    let scale = |a: [f32; 2], s: f32| [a[0] * s, a[1] * s];
    let div = |a: [f32; 2], s: f32| [a[0] / s, a[1] / s];
    particles
        .iter()
        .enumerate()
        .map(|(i, me)| {
            let mut center = [0.0f32; 2];
            let mut heading = [0.0f32; 2];
            let mut push = [0.0f32; 2];
            let mut weight = 0.0f32;
            for (j, other) in particles.iter().enumerate() {
                if j == i {
                    continue;
                }
                let d = sub(other.position, me.position);
                let w = 1.0 / (1.0 + (d[0] * d[0] + d[1] * d[1]) / params.radius2);
                center = add(center, scale(other.position, w));
                heading = add(heading, scale(other.velocity, w));
                push = sub(push, scale(d, w * w));
                weight += w;
            }
            let mut velocity = me.velocity;
            if weight > 0.0 {
                let to_center = sub(div(center, weight), me.position);
                velocity = add(velocity, scale(to_center, params.cohesion * params.dt));
                let to_heading = sub(div(heading, weight), me.velocity);
                velocity = add(velocity, scale(to_heading, params.alignment * params.dt));
                velocity = add(
                    velocity,
                    scale(div(push, weight), params.separation * params.dt),
                );
            }
            velocity = sub(velocity, scale(me.position, params.centering * params.dt));
            let around = [-me.position[1], me.position[0]];
            velocity = add(velocity, scale(around, params.swirl * params.dt));
            velocity = scale(velocity, params.damping);
            Particle {
                position: add(me.position, scale(velocity, params.dt)),
                velocity,
            }
        })
        .collect()
}

/// RGBA8 pixels of a PNG.
fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .expect("a png");
    let mut rgba = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut rgba).expect("one frame");
    assert_eq!(info.color_type, png::ColorType::Rgba);
    rgba.truncate(info.buffer_size());
    (info.width, info.height, rgba)
}

/// The pixel a simulation position lands on (clip space is `position / VIEW_EXTENT`, y up).
fn pixel_of(position: [f32; 2], size: u32) -> (i64, i64) {
    let to_pixel = |clip: f32| ((clip * 0.5 + 0.5) * size as f32).floor() as i64;
    let x = to_pixel(position[0] / VIEW_EXTENT);
    let y = to_pixel(-position[1] / VIEW_EXTENT);
    (x, y)
}

#[test]
fn particles_example_matches_the_cpu_step_and_the_reference_image()
-> Result<(), Box<dyn std::error::Error>> {
    let gpu = support::gpu();
    let run = example::run(&gpu, SMALL)?;
    assert_eq!(
        run.workgroups,
        [1, 1, 1],
        "48 invocations, workgroups of 64"
    );

    // (a) The ping-pong's result against the CPU step.
    let mut cpu = run.initial.clone();
    for _ in 0..SMALL.steps {
        cpu = cpu_step(&PARAMS, &cpu);
    }
    let mut worst = 0.0f32;
    for (gpu_particle, cpu_particle) in run.particles.iter().zip(&cpu) {
        for k in 0..2 {
            worst = worst
                .max((gpu_particle.position[k] - cpu_particle.position[k]).abs())
                .max((gpu_particle.velocity[k] - cpu_particle.velocity[k]).abs());
        }
    }
    assert_eq!(run.particles.len(), cpu.len());
    assert!(
        worst <= POSITION_TOLERANCE,
        "gpu and cpu differ by {worst} after {} steps",
        SMALL.steps
    );
    // The particles moved: the step ran, not a copy.
    assert!(
        run.particles
            .iter()
            .zip(&run.initial)
            .all(|(after, before)| after.position != before.position)
    );

    // (b) The image against the reference, and a triangle at every CPU position.
    if std::env::var_os("GPUDATA_WRITE_REFERENCE").is_some() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/particles_compute_reference.png"
        );
        gpudata_suite::render::write_png(path, SMALL.size, SMALL.size, &run.rgba)?;
    }
    let (width, height, reference) = decode_png(REFERENCE);
    assert_eq!((width, height), (SMALL.size, SMALL.size));
    assert_eq!(run.rgba.len(), reference.len());
    let off: Vec<usize> = run
        .rgba
        .chunks(4)
        .zip(reference.chunks(4))
        .enumerate()
        .filter(|(_, (a, b))| {
            a.iter()
                .zip(*b)
                .any(|(x, y)| x.abs_diff(*y) > PIXEL_TOLERANCE)
        })
        .map(|(i, _)| i)
        .collect();
    assert!(
        off.len() <= EDGE_PIXELS,
        "{} pixels differ from the reference (first at {:?})",
        off.len(),
        off.first()
            .map(|i| (i % SMALL.size as usize, i / SMALL.size as usize))
    );
    let background = [0.02f64, 0.02, 0.05].map(|c| (c * 255.0).round() as u8);
    let lit = |x: i64, y: i64| {
        let size = i64::from(SMALL.size);
        (0..size).contains(&x) && (0..size).contains(&y) && {
            let i = ((y * size + x) * 4) as usize;
            run.rgba[i..i + 3] != background
        }
    };
    for particle in &cpu {
        let (x, y) = pixel_of(particle.position, SMALL.size);
        let covered = (-1..=1).any(|dy| (-1..=1).any(|dx| lit(x + dx, y + dy)));
        assert!(covered, "no triangle near {particle:?} (pixel {x}, {y})");
    }
    Ok(())
}

#[test]
fn vertex_buffer_sets_report_what_cannot_be_bound() -> Result<(), Box<dyn std::error::Error>> {
    type Set = (Particle, Corner);
    let gpu = support::gpu();
    let particle = Particle {
        position: [0.0; 2],
        velocity: [0.0; 2],
    };
    let particles = TypedGpuData::from_rows(&gpu, &[particle; 5], DEFAULT_USAGE)?;
    let storage_only =
        TypedGpuData::from_rows(&gpu, &example::TRIANGLE, wgpu::BufferUsages::STORAGE)?;
    let mesh = TypedGpuData::from_rows(&gpu, &example::TRIANGLE, DEFAULT_USAGE)?;

    // The layouts in slot order, each the type's own.
    let layouts = Set::layouts();
    assert_eq!(layouts[0], Some(Particle::vertex_buffer_layout()));
    assert_eq!(layouts[1], Some(Corner::vertex_buffer_layout()));
    // The fewest rows of each step mode; one instance when no buffer steps per instance.
    let rows = Set::rows((&particles, &mesh));
    assert_eq!((rows.vertices, rows.instances), (0..3, 0..5));
    let rows = <(Corner,)>::rows((&mesh,));
    assert_eq!((rows.vertices, rows.instances), (0..3, 0..1));
    let rows = <(Particle, Particle)>::rows((&particles, &particles));
    assert_eq!((rows.vertices, rows.instances), (0..0, 0..5));

    // A buffer without VERTEX usage is the vertex binding's own error, not wgpu's panic.
    let target = gpudata_suite::render::Offscreen::new(&gpu, 4, 4);
    let result = target.render(&gpu, "vertex set", wgpu::Color::BLACK, |pass| {
        Set::set(&gpu, pass, (&particles, &storage_only)).map(|_| ())
    });
    assert!(
        matches!(result, Err(GpuError::MissingUsage { .. })),
        "{result:?}"
    );
    Ok(())
}
