//! 100,000 instances from one interleaved, packed vertex buffer: `float32x2` positions,
//! `unorm8x4` colours and `float16` sizes, drawn as point sprites into `instanced_points.png`.
//!
//! ```text
//! cargo run --release --example instanced_points
//! ```

use gpudata::check::{Shader, VertexBufferInput};
use gpudata::{Gpu, GpuStruct, TypedGpuData, Unorm8x4};
use gpudata_suite::render::{Offscreen, pipeline};
use half::f16;

/// One point: 14 bytes of payload, a 16-byte stride under WebGPU vertex rules.
#[derive(Clone, Copy, Debug, GpuStruct)]
#[gpu(layout = "packed", step_mode = "instance")]
struct Point {
    position: [f32; 2],
    color: Unorm8x4,
    size: f16,
}

const COUNT: u32 = 100_000;
const SIZE: u32 = 768;

const SHADER: &str = r"
struct Out {
    @builtin(position) position: vec4<f32>,
    @location(0) color: vec4<f32>,
    @location(1) local: vec2<f32>,
}

@vertex
fn vs(@builtin(vertex_index) corner: u32,
      @location(0) position: vec2<f32>,
      @location(1) color: vec4<f32>,
      @location(2) size: f32) -> Out {
    // Two triangles covering the sprite's square.
    var corners = array<vec2<f32>, 6>(
        vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0),
        vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0));
    let local = corners[corner];
    var out: Out;
    out.position = vec4<f32>(position + local * size, 0.0, 1.0);
    out.color = color;
    out.local = local;
    return out;
}

@fragment
fn fs(in: Out) -> @location(0) vec4<f32> {
    let r = length(in.local);
    if r > 1.0 { discard; }
    return vec4<f32>(in.color.rgb, in.color.a * (1.0 - r * r));
}
";

/// A deterministic spiral galaxy of points (no random-number dependency).
fn points() -> Vec<Point> {
    (0..COUNT)
        .map(|i| {
            let t = i as f32 / COUNT as f32;
            let arm = (i % 3) as f32 * std::f32::consts::TAU / 3.0;
            let wobble = ((i as f32 * 12.9898).sin() * 43_758.547).fract() - 0.5;
            let radius = t.sqrt() * 0.95;
            let angle = arm + radius * 7.0 + wobble * 0.6;
            let position = [
                radius * angle.cos() + wobble * 0.04,
                radius * angle.sin() - wobble * 0.04,
            ];
            let warm = 1.0 - t;
            let color =
                Unorm8x4::from_f32([0.35 + 0.65 * warm, 0.45 + 0.3 * t, 0.55 + 0.45 * t, 0.55]);
            let size = f16::from_f32(0.002 + 0.006 * (1.0 - t) * (0.5 + wobble.abs()));
            Point {
                position,
                color,
                size,
            }
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::headless()?;
    println!("adapter: {}", gpu.adapter_summary());
    let format = &Point::FORMAT;
    println!(
        "Point: {} bytes per instance ({} of payload), offsets {:?}",
        format.byte_stride(),
        format.row_byte_length(),
        format
            .fields()
            .iter()
            .map(|f| (f.name(), f.format().as_str(), f.byte_offset()))
            .collect::<Vec<_>>()
    );

    let rows = points();
    let instances = TypedGpuData::from_rows(&gpu, &rows, wgpu::BufferUsages::VERTEX)?;
    let target = Offscreen::new(&gpu, SIZE, SIZE);
    // The shader reads what the buffer feeds (locations, component counts, numeric kinds).
    Shader::parse(SHADER)?
        .check_vertex_inputs("vs", &[VertexBufferInput::of::<Point>("points")])?;
    let pipeline = pipeline(
        &gpu,
        SHADER,
        &[Some(Point::vertex_buffer_layout())],
        wgpu::PrimitiveTopology::TriangleList,
    );
    let clear = wgpu::Color {
        r: 0.01,
        g: 0.01,
        b: 0.03,
        a: 1.0,
    };
    target.render(&gpu, "points", clear, |pass| {
        pass.set_pipeline(&pipeline);
        pass.set_vertex_buffer(0, instances.as_data().vertex_buffer_slice(&gpu)?);
        pass.draw(0..6, 0..COUNT);
        Ok::<_, gpudata::GpuError>(())
    })?;
    let rgba = target.save_png(&gpu, "instanced_points.png")?;
    let lit = rgba.chunks(4).filter(|p| p[0] > 40 || p[1] > 40).count();
    println!(
        "drew {COUNT} instances from {} bytes; {lit} of {} pixels lit; wrote instanced_points.png",
        rows.len() as u64 * format.byte_stride(),
        SIZE * SIZE
    );
    Ok(())
}
