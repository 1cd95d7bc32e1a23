//! A GPU table of three kinds of columns: a packed `float32x2` column of centres, interleaved rows
//! of a `#[derive(GpuStruct)]` type (colour and size) and a constant tint. The table is drawn as
//! instanced squares into `table.png`, then re-laid out as one segmented allocation and read by a
//! compute shader through the generated WGSL accessors.
//!
//! ```text
//! cargo run --example table
//! ```

use gpudata::GpuConstant;
use gpudata::check::Shader;
use gpudata::table::{
    GpuColumn, GpuTable, GpuVector, RecordBatchOptions, RenderOptions, SegmentOptions,
};
use gpudata::{Gpu, GpuData, GpuStruct, StepMode, Unorm8x4, VertexFormat};
use gpudata_suite::render::{Offscreen, pipeline};

#[derive(Clone, Copy, Debug, GpuStruct)]
#[gpu(layout = "packed")]
struct Style {
    color: Unorm8x4,
    size: f32,
}

const SIDE: u32 = 12;
const SIZE: u32 = 384;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::headless()?;
    println!("adapter: {}", gpu.adapter_summary());
    let rows = (SIDE * SIDE) as usize;
    let centers: Vec<[f32; 2]> = (0..rows)
        .map(|i| {
            let (x, y) = ((i as u32 % SIDE) as f32, (i as u32 / SIDE) as f32);
            [
                (x + 0.5) / SIDE as f32 * 2.0 - 1.0,
                (y + 0.5) / SIDE as f32 * 2.0 - 1.0,
            ]
        })
        .collect();
    let styles: Vec<Style> = (0..rows)
        .map(|i| Style {
            color: Unorm8x4::from_f32([
                i as f32 / rows as f32,
                0.4,
                1.0 - i as f32 / rows as f32,
                1.0,
            ]),
            size: 0.02 + 0.05 * ((i * 7 % 11) as f32 / 10.0),
        })
        .collect();

    // Three columns: packed, interleaved, constant. Rows step per instance.
    let center = GpuData::from_slice(
        &gpu,
        VertexFormat::Float32x2,
        &centers,
        gpudata::data::DEFAULT_USAGE,
    )?;
    let mut center = GpuVector::from_data("center", vec![center])?;
    center.set_buffer_layout(Some(gpudata::BufferLayout {
        step_mode: Some(StepMode::Instance),
        ..gpudata::BufferLayout::single("center", VertexFormat::Float32x2, 8)
    }));
    let table = GpuTable::from_columns(
        [
            ("center", GpuColumn::from(center)),
            (
                "style",
                GpuVector::from_rows(&gpu, "style", &styles, Some(StepMode::Instance))?.into(),
            ),
            (
                "tint",
                GpuConstant::new(VertexFormat::Unorm8x4, &[255u8, 230, 200, 255])?.into(),
            ),
        ],
        RecordBatchOptions::default(),
    )?;
    println!(
        "table: {} rows, schema {}",
        table.num_rows(),
        table.schema()
    );

    let bindings = table.render_bindings(&gpu, RenderOptions::default())?;
    for (name, location) in bindings.locations() {
        println!("  @location({location}) {name}");
    }
    let shader = format!(
        r"
struct Out {{
    @builtin(position) position: vec4<f32>,
    @location(0) color: vec4<f32>,
}}
@vertex
fn vs(@builtin(vertex_index) corner: u32,
      @location({c}) center: vec2<f32>,
      @location({k}) color: vec4<f32>,
      @location({s}) size: f32,
      @location({t}) tint: vec4<f32>) -> Out {{
    var corners = array<vec2<f32>, 6>(
        vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0),
        vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0));
    var out: Out;
    out.position = vec4<f32>(center + corners[corner] * size, 0.0, 1.0);
    out.color = color * tint;
    return out;
}}
@fragment
fn fs(in: Out) -> @location(0) vec4<f32> {{
    return in.color;
}}
",
        c = bindings.location("center").unwrap_or(0),
        k = bindings.location("color").unwrap_or(1),
        s = bindings.location("size").unwrap_or(2),
        t = bindings.location("tint").unwrap_or(3),
    );
    // The shader reads every column the table binds, by name, location and kind.
    Shader::parse(&shader)?.check_render_bindings("vs", &bindings)?;
    let target = Offscreen::new(&gpu, SIZE, SIZE);
    let render = pipeline(
        &gpu,
        &shader,
        &bindings.vertex_layouts(),
        wgpu::PrimitiveTopology::TriangleList,
    );
    target.render(&gpu, "table", wgpu::Color::BLACK, |pass| {
        pass.set_pipeline(&render);
        for batch in bindings.batches() {
            batch.draw_instances(pass, 0..6)?;
        }
        Ok::<_, gpudata::TableError>(())
    })?;
    let rgba = target.save_png(&gpu, "table.png")?;
    let lit = rgba.chunks(4).filter(|p| p[0] > 0 || p[2] > 0).count();
    println!("drew {rows} squares; {lit} pixels lit; wrote table.png");

    // The same table as one allocation of storage-aligned segments.
    let segmented = table.to_segmented(&gpu, SegmentOptions::default())?;
    print!(
        "segments ({} bytes):\n{}",
        segmented.layout().byte_length(),
        segmented.layout().describe()
    );
    let storage = segmented.table().storage_bindings(&gpu)?;
    let batch = &storage.batches()[0];
    let out_binding = (batch.columns().len() + batch.constants().len()) as u32;
    let wgsl = format!(
        r"{}
@group(0) @binding({out_binding}) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    if (g.x < {rows}u) {{
        out[g.x] = size_at(g.x) * color_at(g.x).x * tint_at(g.x).y;
    }}
}}
",
        storage.wgsl(0, 0)?
    );
    // The compute shader declares every storage and uniform binding the batch binds.
    Shader::parse(&wgsl)?.check_storage_bindings(batch, 0, 0)?;
    let device = gpu.device();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("table compute"),
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("table compute out"),
        size: rows as u64 * 4,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut layout_entries = batch.bind_group_layout_entries(0, wgpu::ShaderStages::COMPUTE);
    layout_entries.push(wgpu::BindGroupLayoutEntry {
        binding: out_binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: false },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    });
    let group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &layout_entries,
    });
    let mut entries = batch.bind_group_entries(0);
    entries.push(wgpu::BindGroupEntry {
        binding: out_binding,
        resource: out.as_entire_binding(),
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &group_layout,
        entries: &entries,
    });
    let compute = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: Some(
            &device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: None,
                bind_group_layouts: &[Some(&group_layout)],
                immediate_size: 0,
            }),
        ),
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&compute);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups((rows as u32).div_ceil(64), 1, 1);
    }
    gpu.queue().submit([encoder.finish()]);
    let result = GpuData::new(
        gpudata::BufferHandle::Owned(out),
        gpudata::GpuDataDescriptor::new(VertexFormat::Float32, rows as u64),
    )?;
    let values = result.as_view().map(|v| v.read_values(&gpu)).transpose()?;
    let values = values.as_ref().and_then(|v| v.as_f32()).unwrap_or(&[]);
    let host: f32 = styles
        .iter()
        .map(|s| s.size * f32::from(s.color.0[0]) / 255.0 * 230.0 / 255.0)
        .sum();
    println!(
        "compute over the segments: sum {:.4} (host {:.4})",
        values.iter().sum::<f32>(),
        host
    );
    Ok(())
}
