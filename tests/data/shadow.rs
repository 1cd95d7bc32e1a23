//! The shadow example (`examples/shadow/`) rendered on the device through its own code: derived
//! structs, three derived bind groups (a uniform, a dynamic-offset uniform array, rows as a bare
//! `array<Light>`, a depth texture array, a comparison sampler) in two pipelines made from the
//! groups, and one vertex buffer feeding a depth-only and a shaded entry point. The image is
//! compared with a reference, and with what the CPU computes of it: the background where nothing
//! is drawn, and the floor's colour wherever no cube hides it, lit or in a cube's shadow.

#[path = "../../examples/shadow/scene.rs"]
#[allow(dead_code, reason = "the example's own printing reads the rest")]
mod scene;

use scene::{CUBES, Cube, LIGHTS, Mat4};

use crate::support;

const WIDTH: u32 = 128;
const HEIGHT: u32 = 96;
const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/shadow_reference.png"
);
/// The shader's `AMBIENT`.
const AMBIENT: [f32; 3] = [0.06, 0.06, 0.08];

fn transform(m: &Mat4, v: [f32; 4]) -> [f32; 4] {
    let mut out = [0.0; 4];
    for (r, value) in out.iter_mut().enumerate() {
        *value = (0..4).map(|c| m[c][r] * v[c]).sum();
    }
    out
}

/// Whether the segment from `from` to `to` passes through `cube` (a slab test in its frame).
fn crosses(cube: &Cube, from: [f32; 3], to: [f32; 3]) -> bool {
    let (s, c) = cube.angle.to_radians().sin_cos();
    let local = |p: [f32; 3]| {
        let d = [
            p[0] - cube.center[0],
            p[1] - cube.center[1],
            p[2] - cube.center[2],
        ];
        [
            (c * d[0] + s * d[1]) / cube.half,
            (-s * d[0] + c * d[1]) / cube.half,
            d[2] / cube.half,
        ]
    };
    let (a, b) = (local(from), local(to));
    let (mut enter, mut leave) = (0.0f32, 1.0f32);
    for axis in 0..3 {
        let d = b[axis] - a[axis];
        if d.abs() < 1e-9 {
            if a[axis].abs() > 1.0 {
                return false;
            }
            continue;
        }
        let (t0, t1) = ((-1.0 - a[axis]) / d, (1.0 - a[axis]) / d);
        enter = enter.max(t0.min(t1));
        leave = leave.min(t0.max(t1));
    }
    enter < leave
}

fn blocked(from: [f32; 3], to: [f32; 3]) -> bool {
    CUBES.iter().any(|cube| crosses(cube, from, to))
}

/// The floor point seen through the centre of pixel (`x`, `y`).
#[allow(clippy::cast_precision_loss, reason = "pixel coordinates below 2^24")]
fn floor_point(camera: &Mat4, x: u32, y: u32) -> [f32; 3] {
    let nx = (x as f32 + 0.5) / WIDTH as f32 * 2.0 - 1.0;
    let ny = 1.0 - (y as f32 + 0.5) / HEIGHT as f32 * 2.0;
    // camera · (px, py, 0, 1) has clip x = nx · w and y = ny · w: two linear equations.
    let row = |r: usize, n: f32| {
        (
            camera[0][r] - n * camera[0][3],
            camera[1][r] - n * camera[1][3],
            -(camera[3][r] - n * camera[3][3]),
        )
    };
    let (a, b, e) = row(0, nx);
    let (c, d, f) = row(1, ny);
    let det = a * d - b * c;
    [(e * d - b * f) / det, (a * f - e * c) / det, 0.0]
}

/// Which lights reach floor point `p`, if that is so for every point within `margin` of it
/// (so filtering at a shadow's edge cannot change it) and `p` lies well inside each light's
/// shadow map; `None` otherwise.
fn lit_from(p: [f32; 3], margin: f32) -> Option<[bool; 2]> {
    let mut out = [false; 2];
    for (i, light) in LIGHTS.iter().enumerate() {
        let clip = transform(&scene::light_proj(light), [p[0], p[1], p[2], 1.0]);
        if clip[3] <= 0.0 || clip[0].abs() > 0.9 * clip[3] || clip[1].abs() > 0.9 * clip[3] {
            return None;
        }
        let around = [
            [0.0, 0.0],
            [margin, 0.0],
            [-margin, 0.0],
            [0.0, margin],
            [0.0, -margin],
        ];
        let reached: Vec<bool> = around
            .iter()
            .map(|[dx, dy]| !blocked([p[0] + dx, p[1] + dy, 0.0], light.pos))
            .collect();
        if reached.iter().any(|r| *r != reached[0]) {
            return None;
        }
        out[i] = reached[0];
    }
    Some(out)
}

/// The floor's colour at `p` lit by the lights `lit` says, in RGBA8 units.
fn floor_color(p: [f32; 3], lit: [bool; 2]) -> [f32; 3] {
    let mut light = AMBIENT;
    for (l, on) in LIGHTS.iter().zip(lit) {
        let towards = scene::normalize([l.pos[0] - p[0], l.pos[1] - p[1], l.pos[2] - p[2]]);
        // The floor's normal is +z.
        let diffuse = if on { towards[2].max(0.0) } else { 0.0 };
        for (sum, color) in light.iter_mut().zip(l.color) {
            *sum += diffuse * color;
        }
    }
    [0, 1, 2].map(|k| (light[k] * scene::FLOOR_COLOR[k]).clamp(0.0, 1.0) * 255.0)
}

fn pixel(rgba: &[u8], x: u32, y: u32) -> [u8; 3] {
    let at = ((y * WIDTH + x) * 4) as usize;
    [rgba[at], rgba[at + 1], rgba[at + 2]]
}

fn read_png(path: &str) -> Result<(u32, u32, Vec<u8>), Box<dyn std::error::Error>> {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path)?));
    let mut reader = decoder.read_info()?;
    let mut rgba = vec![0; reader.output_buffer_size().ok_or("png too large")?];
    let info = reader.next_frame(&mut rgba)?;
    rgba.truncate(info.buffer_size());
    Ok((info.width, info.height, rgba))
}

#[test]
fn shadow_example_renders_the_scene_the_cpu_predicts() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = support::gpu();
    let frame = scene::render(&gpu, WIDTH, HEIGHT)?;
    let rgba = &frame.rgba;
    assert_eq!(rgba.len(), (WIDTH * HEIGHT * 4) as usize);
    assert_eq!(frame.draws, 1 + CUBES.len());

    // Nothing is drawn above the floor's far edge: the clear colour.
    let clear = scene::CLEAR.map(|c| (c * 255.0).round() as u8);
    for (x, y) in [(0, 0), (WIDTH - 1, 0), (WIDTH / 2, 2)] {
        assert_eq!(pixel(rgba, x, y), clear, "pixel ({x}, {y})");
    }

    // The floor, wherever the camera sees it, lit or shadowed as the lights' rays say.
    let camera = scene::camera(WIDTH, HEIGHT);
    let (mut lit_by_both, mut shadowed) = (0, 0);
    let mut worst = 0.0f32;
    for y in (0..HEIGHT).step_by(3) {
        for x in (0..WIDTH).step_by(3) {
            let p = floor_point(&camera, x, y);
            let inside =
                p[0].abs() < scene::FLOOR_HALF - 0.3 && p[1].abs() < scene::FLOOR_HALF - 0.3;
            if !inside || blocked(p, scene::EYE) {
                continue;
            }
            let Some(lit) = lit_from(p, 0.3) else {
                continue;
            };
            let expected = floor_color(p, lit);
            let found = pixel(rgba, x, y);
            for k in 0..3 {
                worst = worst.max((f32::from(found[k]) - expected[k]).abs());
            }
            if lit == [true, true] {
                lit_by_both += 1;
            } else {
                shadowed += 1;
                // Darker than the same floor lit by both lights, by the light it lacks.
                let full = floor_color(p, [true, true]);
                let sum = |c: [f32; 3]| c.iter().sum::<f32>();
                let found = sum(found.map(f32::from));
                assert!(
                    found + 40.0 < sum(full),
                    "({x}, {y}) in a shadow: {found} against {}",
                    sum(full)
                );
            }
        }
    }
    assert!(
        lit_by_both > 100 && shadowed > 100,
        "{lit_by_both} lit, {shadowed} shadowed samples"
    );
    assert!(
        worst <= 2.0,
        "a floor pixel is {worst} off the cpu's colour"
    );

    // The whole image against the reference rendered on lavapipe (`GPUDATA_BLESS=1` rewrites it).
    if std::env::var_os("GPUDATA_BLESS").is_some() {
        gpudata_suite::render::write_png(REFERENCE, WIDTH, HEIGHT, rgba)?;
    }
    let (width, height, reference) = read_png(REFERENCE)?;
    assert_eq!((width, height), (WIDTH, HEIGHT));
    let mut differing = 0;
    for (found, want) in rgba.chunks(4).zip(reference.chunks(4)) {
        let off = found
            .iter()
            .zip(want)
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap_or(0);
        if off > 2 {
            differing += 1;
        }
    }
    let allowed = (WIDTH * HEIGHT) as usize / 200;
    assert!(
        differing <= allowed,
        "{differing} pixels differ from the reference by more than 2"
    );
    Ok(())
}
