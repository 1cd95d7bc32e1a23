//! A shadow-mapped scene, in the spirit of wgpu's shadow example: a floor and four cubes share
//! one vertex buffer of two `sint8x4` attributes, drawn by a depth-only pass per light (into one
//! layer of a depth texture array) and a shaded pass that reads the lights from a storage array
//! and their shadows through a comparison sampler; per-entity uniforms at dynamic offsets.
//! Every struct, bind group and vertex layout is declared once and checked against
//! `shadow.wgsl`: no binding number, location, offset or size is typed by hand. Writes
//! `shadow.png`.
//!
//! ```text
//! cargo run --example shadow
//! ```

mod scene;

use gpudata::{Gpu, GpuStruct};
use gpudata_suite::render::write_png;

const WIDTH: u32 = 512;
const HEIGHT: u32 = 384;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::headless()?;
    println!("adapter: {}", gpu.adapter_summary());
    let frame = scene::render(&gpu, WIDTH, HEIGHT)?;
    write_png("shadow.png", WIDTH, HEIGHT, &frame.rgba)?;

    println!(
        "vertex: {} bytes, {} attributes fed to vs_bake and vs_main",
        scene::Vertex::FORMAT.byte_stride(),
        scene::Vertex::vertex_buffer_layout().attributes.len()
    );
    println!("shaded pass, @group(0) from shadow.wgsl:");
    for entry in &frame.forward_entries {
        println!(
            "  @binding({}) {:?}: {:?}",
            entry.binding, entry.visibility, entry.ty
        );
    }
    println!(
        "{} lights in a storage array, each baked into a {0}-layer {}x{} depth texture array",
        scene::lights().len(),
        scene::SHADOW_SIZE,
        scene::SHADOW_SIZE,
    );
    let bright = |p: &[u8]| u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2]);
    let clear = scene::CLEAR
        .map(|c| (c * 255.0).round() as u32)
        .iter()
        .sum::<u32>();
    let drawn = frame
        .rgba
        .chunks(4)
        .filter(|p| bright(p).abs_diff(clear) > 3)
        .count();
    println!(
        "{} entities per pass at dynamic offsets {} bytes apart ({} entities: floor + {} cubes); {drawn} of {} pixels drawn; wrote shadow.png",
        frame.draws,
        frame.entity_stride,
        scene::entities().len(),
        scene::CUBES.len(),
        WIDTH * HEIGHT
    );
    Ok(())
}
