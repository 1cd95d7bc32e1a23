//! An Arrow table drawn as a scatter plot: three Arrow record batches (`position`:
//! `FixedSizeList<Float32, 2>`, `color`: `FixedSizeList<UInt8, 4>`, `size`: `Float32`, plus a
//! `label` Utf8 column the shader does not read) become one `GpuTable` whose formats are chosen
//! from the vertex shader's inputs (`color` read as `vec4<f32>` becomes `unorm8x4`), drawn batch by
//! batch into `arrow_table.png`.
//!
//! ```text
//! cargo run --release --example arrow_table --features arrow
//! ```

use std::sync::Arc;

use arrow_array::builder::{FixedSizeListBuilder, Float32Builder, UInt8Builder};
use arrow_array::{ArrayRef, Float32Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use gpudata::arrow::{BatchOptions, record_batches_to_gpu_table};
use gpudata::table::RenderOptions;
use gpudata::{Gpu, ShaderType, StepMode};
use gpudata_suite::render::{Offscreen, pipeline};

const SIZE: u32 = 640;
const ROWS_PER_BATCH: usize = 4_000;

/// A deterministic pseudo-random number in `[0, 1)`.
fn hash01(i: u64) -> f32 {
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 29;
    (x >> 40) as f32 / (1u64 << 24) as f32
}

/// One batch: a Gaussian-ish cluster per batch, coloured by batch, sized by distance.
fn batch(schema: &Arc<Schema>, index: usize) -> Result<RecordBatch, Box<dyn std::error::Error>> {
    let centers = [(-0.45, -0.3), (0.4, -0.2), (0.0, 0.45)];
    let palette = [[230, 80, 60], [60, 170, 230], [120, 220, 110]];
    let (cx, cy) = centers[index];
    let mut positions = FixedSizeListBuilder::new(Float32Builder::new(), 2);
    let mut colors = FixedSizeListBuilder::new(UInt8Builder::new(), 4);
    let mut sizes = Vec::with_capacity(ROWS_PER_BATCH);
    let mut labels = Vec::with_capacity(ROWS_PER_BATCH);
    for row in 0..ROWS_PER_BATCH {
        let seed = (index * ROWS_PER_BATCH + row) as u64 * 4;
        // Sum of uniforms: a cheap bell curve.
        let gx = (hash01(seed) + hash01(seed + 1) + hash01(seed + 2) - 1.5) * 0.35;
        let gy = (hash01(seed + 3) + hash01(seed + 5) + hash01(seed + 7) - 1.5) * 0.35;
        positions.values().append_slice(&[cx + gx, cy + gy]);
        positions.append(true);
        let [r, g, b] = palette[index];
        colors.values().append_slice(&[r, g, b, 170]);
        colors.append(true);
        sizes.push(0.004 + 0.01 * (gx * gx + gy * gy).sqrt());
        labels.push(format!("cluster {index} point {row}"));
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(positions.finish()),
        Arc::new(colors.finish()),
        Arc::new(Float32Array::from(sizes)),
        Arc::new(StringArray::from(labels)),
    ];
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

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
    var corners = array<vec2<f32>, 6>(
        vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0),
        vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0));
    var out: Out;
    out.position = vec4<f32>(position + corners[corner] * size, 0.0, 1.0);
    out.color = color;
    out.local = corners[corner];
    return out;
}

@fragment
fn fs(in: Out) -> @location(0) vec4<f32> {
    if length(in.local) > 1.0 { discard; }
    return in.color;
}
";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let item = |t| Arc::new(Field::new("item", t, true));
    let schema = Arc::new(Schema::new(vec![
        Field::new(
            "position",
            DataType::FixedSizeList(item(DataType::Float32), 2),
            false,
        ),
        Field::new(
            "color",
            DataType::FixedSizeList(item(DataType::UInt8), 4),
            false,
        ),
        Field::new("size", DataType::Float32, false),
        Field::new("label", DataType::Utf8, false),
    ]));
    let batches = (0..3)
        .map(|i| batch(&schema, i))
        .collect::<Result<Vec<_>, _>>()?;

    let gpu = Gpu::headless()?;
    println!("adapter: {}", gpu.adapter_summary());
    // Formats come from what the vertex shader reads.
    let inputs = [
        ("position", "vec2<f32>"),
        ("color", "vec4<f32>"),
        ("size", "f32"),
    ];
    let options = BatchOptions::from_shader_inputs(
        inputs
            .iter()
            .map(|(name, t)| Ok((*name, t.parse::<ShaderType>()?)))
            .collect::<Result<Vec<_>, gpudata::FormatError>>()?,
    );
    let (table, skipped) = record_batches_to_gpu_table(&gpu, &schema, &batches, &options)?;
    println!(
        "GpuTable: {} rows in {} batches; schema {}",
        table.num_rows(),
        table.batches().len(),
        table.schema()
    );
    for column in &skipped {
        println!("  not uploaded: {column:?}");
    }

    let bindings = table.render_bindings(
        &gpu,
        RenderOptions {
            step_mode: StepMode::Instance,
            ..RenderOptions::default()
        },
    )?;
    for (name, location) in bindings.locations() {
        println!("  @location({location}) {name}");
    }
    let target = Offscreen::new(&gpu, SIZE, SIZE);
    let render = pipeline(
        &gpu,
        SHADER,
        &bindings.vertex_layouts(),
        wgpu::PrimitiveTopology::TriangleList,
    );
    let clear = wgpu::Color {
        r: 0.97,
        g: 0.97,
        b: 0.95,
        a: 1.0,
    };
    target.render(&gpu, "scatter", clear, |pass| {
        pass.set_pipeline(&render);
        for batch in bindings.batches() {
            batch.draw_instances(pass, 0..6)?;
        }
        Ok::<_, gpudata::TableError>(())
    })?;
    target.save_png(&gpu, "arrow_table.png")?;
    println!("wrote arrow_table.png");
    Ok(())
}
