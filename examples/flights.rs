//! Real data drawn: npm's vega-datasets `flights-3m.parquet` (3,000,000 flights) streamed onto
//! the GPU under the `auto` conversion policy and drawn as delay against distance, one point per
//! flight, coloured by origin airport through its category id, into `flights.png`.
//!
//! ```text
//! scripts/fetch-vega-datasets          # once: caches the file in target/vega-datasets-3.2.1/
//! cargo run --release --example flights --features parquet [-- PATH]
//! ```
//!
//! The axis ranges come from the `extent` operation on the GPU columns (one `[min, max]` per GPU
//! batch, combined on the host); the points never leave the GPU after upload.

use std::path::PathBuf;

use gpudata::arrow::parquet::{ParquetOptions, ingest_parquet};
use gpudata::arrow::stream::{CancelToken, IngestOptions};
use gpudata::table::RenderOptions;
use gpudata::{Gpu, StepMode};
use gpudata_suite::flights::{extent, parquet_path};
use gpudata_suite::render::{Offscreen, pipeline};

const WIDTH: u32 = 960;
const HEIGHT: u32 = 600;

fn shader(distance: (i32, i32), delay: (i32, i32)) -> String {
    format!(
        r"
struct Out {{
    @builtin(position) position: vec4<f32>,
    @location(0) color: vec4<f32>,
}}

// A colour per origin airport: the category id hashed to a hue.
fn hue(id: u32) -> vec3<f32> {{
    let h = f32((id * 2654435761u) >> 8u) / 16777216.0;
    return clamp(abs(fract(vec3(h) + vec3(0.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - 3.0) - 1.0, vec3(0.0), vec3(1.0));
}}

@vertex
fn vs(@builtin(vertex_index) corner: u32,
      @location(0) delay: i32,
      @location(1) distance: i32,
      @location(2) origin: u32) -> Out {{
    var corners = array<vec2<f32>, 6>(
        vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0),
        vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0));
    // Distance on x over its range; delay on y, clamped to the range most flights fall in.
    let x = (f32(distance) - {dx0:.1}) / ({dx1:.1} - {dx0:.1}) * 1.9 - 0.95;
    let y = (clamp(f32(delay), {dy0:.1}, {dy1:.1}) - {dy0:.1}) / ({dy1:.1} - {dy0:.1}) * 1.9 - 0.95;
    let size = vec2(1.6 / {width:.1}, 1.6 / {height:.1});
    var out: Out;
    out.position = vec4<f32>(vec2(x, y) + corners[corner] * size, 0.0, 1.0);
    out.color = vec4<f32>(hue(origin) * 0.8, 0.05);
    return out;
}}

@fragment
fn fs(in: Out) -> @location(0) vec4<f32> {{
    return in.color;
}}
",
        dx0 = f64::from(distance.0),
        dx1 = f64::from(distance.1),
        dy0 = f64::from(delay.0.max(-60)),
        dy1 = f64::from(delay.1.min(300)),
        width = f64::from(WIDTH),
        height = f64::from(HEIGHT),
    )
}

/// Runs the example; an error is printed as one line (no Debug dump) with a failing status.
fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let path = parquet_path(std::env::args_os().nth(1).map(PathBuf::from))?;
    let columns: Vec<String> = ["delay", "distance", "origin"].map(str::to_owned).to_vec();
    let gpu = Gpu::headless()?;
    println!("adapter: {}", gpu.adapter_summary());
    let parquet = ParquetOptions {
        columns: Some(columns),
        ..ParquetOptions::default()
    };
    let ingested = ingest_parquet(
        &gpu,
        &path,
        &IngestOptions::default(),
        &parquet,
        |_| {},
        &CancelToken::new(),
    )?;
    for column in &ingested.report {
        println!(
            "  {}: {} -> {} ({})",
            column.column,
            column.arrow_type,
            column.gpu_format.map_or("-".to_owned(), |f| f.to_string()),
            column.reason
        );
    }
    let origins = ingested
        .categories
        .iter()
        .find(|(name, _)| name == "origin")
        .map_or(0, |(_, labels)| labels.len());
    let p = ingested.progress;
    println!(
        "{} flights in {} gpu batches, {} gpu bytes, {} origin airports, {:.2} s",
        p.rows,
        p.gpu_batches,
        p.gpu_bytes,
        origins,
        p.elapsed.as_secs_f64()
    );

    let distance = extent(&gpu, &ingested.table, "distance")?;
    let delay = extent(&gpu, &ingested.table, "delay")?;
    println!("distance {distance:?} miles, delay {delay:?} minutes (the extent operation)");

    let bindings = ingested.table.render_bindings(
        &gpu,
        RenderOptions {
            step_mode: StepMode::Instance,
            ..RenderOptions::default()
        },
    )?;
    let target = Offscreen::new(&gpu, WIDTH, HEIGHT);
    let render = pipeline(
        &gpu,
        &shader(distance, delay),
        &bindings.vertex_layouts(),
        wgpu::PrimitiveTopology::TriangleList,
    );
    let clear = wgpu::Color {
        r: 0.98,
        g: 0.98,
        b: 0.97,
        a: 1.0,
    };
    target.render(&gpu, "flights", clear, |pass| {
        pass.set_pipeline(&render);
        for batch in bindings.batches() {
            batch.draw_instances(pass, 0..6)?;
        }
        Ok::<_, gpudata::TableError>(())
    })?;
    target.save_png(&gpu, "flights.png")?;
    println!("wrote flights.png");
    Ok(())
}
