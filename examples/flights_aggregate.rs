//! An aggregation view of real data, computed on the GPU: npm's vega-datasets
//! `flights-3m.parquet` (3,000,000 flights) streamed onto the GPU, then
//!
//! - `reduce`: the flights, the mean, smallest and largest delay, the miles flown;
//! - `histogram`: the delays in 90 bins of 4 minutes from -60 to 300;
//! - `group_by`: flights and mean delay per origin airport (its category id);
//! - `grid_aggregate`: flights per cell of delay against distance, drawn as a heatmap from the
//!   grid's `r32uint` texture;
//! - picking: every flight drawn as a point with its row id into a `PickingTarget` (all GPU
//!   batches in one submission, each with its first row id at a dynamic offset), the pixel of
//!   the busiest cell read back and resolved to its batch and row, then to the file's row,
//!   whose fields are printed beside the GPU's values; the pixels around it brushed (a row
//!   mask made on the GPU by `rect_mask`, which the reduction reads as it is).
//!
//! The heatmap, the histogram and the busiest origins are drawn into `flights_aggregate.png`.
//!
//! ```text
//! scripts/fetch-vega-datasets          # once: caches the file in target/vega-datasets-3.2.1/
//! cargo run --release --example flights_aggregate --features parquet [-- [--rows N] [PATH]]
//! ```
//!
//! `--rows N` reads only the file's first `N` rows (through arrow-rs's Parquet reader), for a
//! quick run on a software adapter.

use std::error::Error;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampMicrosecondType};
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, TimeUnit};
use gpudata::arrow::parquet::{ParquetOptions, ingest_parquet};
use gpudata::arrow::stream::{CancelToken, IngestOptions, Ingested, ingest_reader};
use gpudata::data::HostValues;
use gpudata::ops::piecewise;
use gpudata::ops::{ArithmeticOp, GridField, GridSpec, GroupKeys, LaneOp};
use gpudata::table::{
    GpuTable, GpuVector, PickOffsets, PickRect, PickedRow, PickingTarget, PointPicking,
    PointPosition, PointView, RenderOptions, RowResolver,
};
use gpudata::{Gpu, StepMode, VertexFormat};
use gpudata_suite::flights::{extent, parquet_path};
use gpudata_suite::render::{Offscreen, pipeline, write_png};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const WIDTH: u32 = 960;
const HEIGHT: u32 = 600;
/// The heatmap panel (left, top, width, height): one pixel per grid cell, and the picking
/// target's pixels too.
const MAP: (u32, u32, u32, u32) = (20, 20, 600, 360);
/// The histogram panel.
const HIST: (u32, u32, u32, u32) = (20, 400, 600, 180);
/// The origins panel.
const ORIGINS: (u32, u32, u32, u32) = (640, 20, 300, 560);
/// The delays shown, in minutes.
const DELAY: (f32, f32) = (-60.0, 300.0);
/// Histogram bins.
const BINS: u32 = 90;
/// Origin airports drawn.
const TOP_ORIGINS: usize = 20;
/// The columns the GPU gets.
const COLUMNS: [&str; 3] = ["delay", "distance", "origin"];

/// Runs the example; an error is printed as one line with a failing status.
fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `[--rows N] [PATH]`.
fn arguments() -> Result<(Option<usize>, Option<PathBuf>)> {
    let mut rows = None;
    let mut path = None;
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--rows" {
            let n = args.next().ok_or("--rows needs a number")?;
            let n = n.to_str().ok_or("--rows needs a number")?;
            rows = Some(n.parse().map_err(|e| format!("--rows {n}: {e}"))?);
        } else {
            path = Some(PathBuf::from(arg));
        }
    }
    Ok((rows, path))
}

/// The file's `COLUMNS` on the GPU: all rows in parallel, or the first `rows` through arrow-rs's
/// reader. Either keeps the file's row order, so row id `g` of the table is the file's row `g`.
fn ingest(gpu: &Gpu, path: &Path, rows: Option<usize>) -> Result<Ingested> {
    let options = IngestOptions::default();
    let cancel = CancelToken::new();
    let Some(rows) = rows else {
        let parquet = ParquetOptions {
            columns: Some(COLUMNS.map(str::to_owned).to_vec()),
            ..ParquetOptions::default()
        };
        return Ok(ingest_parquet(
            gpu,
            path,
            &options,
            &parquet,
            |_| {},
            &cancel,
        )?);
    };
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path)?)?;
    let roots: Vec<usize> = builder
        .schema()
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| COLUMNS.contains(&f.name().as_str()))
        .map(|(i, _)| i)
        .collect();
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
    let reader = builder.with_projection(mask).with_limit(rows).build()?;
    Ok(ingest_reader(gpu, reader, &options, |_| {}, &cancel)?)
}

fn vector<'t>(table: &'t GpuTable, name: &str) -> Result<&'t GpuVector> {
    Ok(table
        .vector(name)
        .ok_or_else(|| format!("no column `{name}`"))?)
}

/// Label `id` of a category dictionary.
fn label(labels: &ArrayRef, id: usize) -> String {
    if id >= labels.len() {
        return format!("#{id}");
    }
    match labels.data_type() {
        DataType::Utf8 => labels.as_string::<i32>().value(id).to_owned(),
        DataType::LargeUtf8 => labels.as_string::<i64>().value(id).to_owned(),
        DataType::Utf8View => labels.as_string_view().value(id).to_owned(),
        _ => format!("#{id}"),
    }
}

/// One value of a file's column, printed: integers, strings, microsecond timestamps as UTC.
fn field(array: &ArrayRef, row: usize) -> String {
    if array.is_null(row) {
        return "null".to_owned();
    }
    match array.data_type() {
        DataType::Int64 => array.as_primitive::<Int64Type>().value(row).to_string(),
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            let us = array.as_primitive::<TimestampMicrosecondType>().value(row);
            utc(us.div_euclid(1_000_000))
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => label(array, row),
        other => format!("({other})"),
    }
}

/// Seconds since 1970 as `YYYY-MM-DD hh:mm` (UTC; Howard Hinnant's civil-from-days).
fn utc(seconds: i64) -> String {
    let (days, secs) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        secs / 3600,
        secs % 3600 / 60
    )
}

/// One value of the picked row read back from its GPU batch.
fn gpu_value(gpu: &Gpu, table: &GpuTable, picked: &PickedRow, column: &str) -> Result<i64> {
    let data = table.batches()[picked.batch]
        .column(column)
        .ok_or_else(|| format!("batch {} has no `{column}`", picked.batch))?;
    let view = data
        .as_view()
        .and_then(|v| v.slice(picked.row, 1))
        .ok_or_else(|| format!("`{column}` has no row {}", picked.row))?;
    Ok(match view.read_values(gpu)? {
        HostValues::I32(v) => i64::from(v[0]),
        HostValues::U32(v) => i64::from(v[0]),
        HostValues::F32(v) => v[0] as i64,
    })
}

/// The row nearest the middle of `rect` that has one.
fn nearest_row(rect: &PickRect) -> Option<(u64, u32, u32)> {
    let (cx, cy) = (rect.width / 2, rect.height / 2);
    (0..rect.height)
        .flat_map(|dy| (0..rect.width).map(move |dx| (dx, dy)))
        .filter_map(|(dx, dy)| rect.row_at(dx, dy).map(|row| (row, dx, dy)))
        .min_by_key(|&(_, dx, dy)| dx.abs_diff(cx).pow(2) + dy.abs_diff(cy).pow(2))
        .map(|(row, dx, dy)| (row, rect.x + dx, rect.y + dy))
}

/// The heatmap's shader: a triangle over the viewport, each pixel the count of its grid cell
/// (y up) on a log scale.
fn heatmap_shader(max_count: u32) -> String {
    format!(
        r"
@group(0) @binding(0) var counts: texture_2d<u32>;

@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {{
    let p = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(p * 2.0 - 1.0, 0.0, 1.0);
}}

@fragment
fn fs(@builtin(position) at: vec4<f32>) -> @location(0) vec4<f32> {{
    let pixel = vec2<i32>(at.xy) - vec2<i32>({left}, {top});
    let n = textureLoad(counts, vec2<i32>(pixel.x, {height} - 1 - pixel.y), 0).r;
    if (n == 0u) {{
        return vec4<f32>(0.99, 0.99, 0.98, 1.0);
    }}
    let t = log(f32(n) + 1.0) / log({max:.1} + 1.0);
    let cold = vec3<f32>(0.20, 0.25, 0.55);
    let warm = vec3<f32>(0.90, 0.35, 0.20);
    let hot = vec3<f32>(1.00, 0.92, 0.45);
    let c = select(mix(warm, hot, t * 2.0 - 1.0), mix(cold, warm, t * 2.0), t < 0.5);
    return vec4<f32>(c, 1.0);
}}
",
        left = MAP.0,
        top = MAP.1,
        height = MAP.3,
        max = f64::from(max_count),
    )
}

/// Fills a rectangle of `rgba` (clipped to the image).
fn fill(rgba: &mut [u8], (x, y, w, h): (i64, i64, i64, i64), color: [u8; 3]) {
    for py in y.max(0)..(y + h).min(i64::from(HEIGHT)) {
        for px in x.max(0)..(x + w).min(i64::from(WIDTH)) {
            let at = ((py * i64::from(WIDTH) + px) * 4) as usize;
            rgba[at..at + 4].copy_from_slice(&[color[0], color[1], color[2], 255]);
        }
    }
}

fn run() -> Result<()> {
    let (rows, path) = arguments()?;
    let path = parquet_path(path)?;
    let gpu = Gpu::headless()?;
    println!("adapter: {}", gpu.adapter_summary());
    let ingested = ingest(&gpu, &path, rows)?;
    let table = &ingested.table;
    let labels = ingested
        .categories
        .iter()
        .find(|(name, _)| name == "origin")
        .map(|(_, labels)| labels.clone())
        .ok_or("`origin` did not become category ids")?;
    println!(
        "{} flights in {} gpu batches, {} origin airports, ingested in {:.2} s",
        ingested.progress.rows,
        table.batches().len(),
        labels.len(),
        ingested.progress.elapsed.as_secs_f64()
    );
    let (delay, distance, origin) = (
        vector(table, "delay")?,
        vector(table, "distance")?,
        vector(table, "origin")?,
    );
    let started = std::time::Instant::now();

    // Totals.
    let delays = piecewise::reduce(&gpu, delay, None)?;
    let miles = piecewise::reduce(&gpu, distance, None)?;
    let scalar = |s: Option<gpudata::ops::ShaderScalar>| s.map_or(f32::NAN, |s| s.to_f32());
    println!(
        "reduce: {} flights, mean delay {:.2} min (from {} to {}), {:.0} miles flown",
        delays.count,
        delays.mean().unwrap_or(f64::NAN),
        scalar(delays.min),
        scalar(delays.max),
        miles.sum.as_f64()
    );

    // The delays' distribution.
    let histogram = piecewise::histogram(&gpu, delay, None, None, BINS, Some(DELAY))?.read(&gpu)?;
    let mode = (0..histogram.counts.len())
        .max_by_key(|&i| histogram.counts[i])
        .unwrap_or(0);
    let width = (DELAY.1 - DELAY.0) / BINS as f32;
    println!(
        "histogram: most flights delayed {} to {} min; {} earlier than {}, {} later than {}",
        DELAY.0 + mode as f32 * width,
        DELAY.0 + (mode + 1) as f32 * width,
        histogram.below,
        DELAY.0,
        histogram.above,
        DELAY.1
    );

    // Per origin airport.
    let groups = u32::try_from(labels.len())?;
    let by_origin =
        piecewise::group_by(&gpu, origin, Some(delay), None, GroupKeys::Dense { groups })?
            .read(&gpu)?;
    let means = by_origin
        .mean
        .clone()
        .ok_or("group_by with values gives means")?;
    let mut busiest: Vec<usize> = (0..by_origin.count.len()).collect();
    busiest.sort_by_key(|&i| std::cmp::Reverse(by_origin.count[i]));
    busiest.truncate(TOP_ORIGINS);
    println!("group_by: the busiest origins (flights, mean delay):");
    for &i in busiest.iter().take(8) {
        println!(
            "  {:>4} {:>8} {:>6.2} min",
            label(&labels, i),
            by_origin.count[i],
            means[i]
        );
    }

    // Flights per cell of distance (x) against delay (y).
    let dist = extent(&gpu, table, "distance")?;
    let x = GpuVector::arithmetic(&gpu, ArithmeticOp::Multiply, &[distance.into(), 1.0.into()])?;
    let y = GpuVector::arithmetic(&gpu, ArithmeticOp::Multiply, &[delay.into(), 1.0.into()])?;
    let positions = GpuVector::lanes(&gpu, &LaneOp::InterleaveLanes, &[(&x).into(), (&y).into()])?;
    if positions.element_format() != Some(VertexFormat::Float32x2) {
        return Err(format!("positions of {:?}", positions.element_format()).into());
    }
    let spec = GridSpec {
        width: MAP.2,
        height: MAP.3,
        bounds: Some([dist.0 as f32, DELAY.0, dist.1 as f32, DELAY.1]),
    };
    let grid = piecewise::grid_aggregate(&gpu, &positions, None, None, &spec)?;
    let cells = grid.read(&gpu)?;
    let busiest_cell = (0..cells.count.len())
        .max_by_key(|&i| cells.count[i])
        .unwrap_or(0);
    let max_count = cells.count[busiest_cell];
    println!(
        "grid_aggregate: {}x{} cells, the busiest holds {} flights; {} outside",
        cells.width, cells.height, max_count, cells.outside
    );
    println!(
        "aggregations: {:.2} s on the gpu, read back included",
        started.elapsed().as_secs_f64()
    );

    // Picking: every flight a point at (distance, delay), the pixels the grid's cells.
    let started = std::time::Instant::now();
    let bindings = table.render_bindings(
        &gpu,
        RenderOptions {
            step_mode: StepMode::Vertex,
            base_location: 0,
        },
    )?;
    let resolver = RowResolver::new(table)?;
    let offsets = PickOffsets::new(&gpu, &resolver)?;
    let target = PickingTarget::new(&gpu, MAP.2, MAP.3)?;
    let view = PointView {
        x_range: [dist.0 as f32, dist.1 as f32],
        y_range: [DELAY.0, DELAY.1],
    };
    let position = PointPosition::Columns {
        x: "distance".into(),
        y: "delay".into(),
    };
    PointPicking::new(&gpu, &bindings, &position, view)?
        .render(&gpu, &target, &offsets, &bindings)?;
    // The busiest cell's pixel (cells count y up, pixels down), or the nearest drawn one.
    let cell = (
        busiest_cell as u32 % MAP.2,
        MAP.3 - 1 - busiest_cell as u32 / MAP.2,
    );
    let (x0, y0) = (cell.0.saturating_sub(10), cell.1.saturating_sub(10));
    let rect = target.read_rect(&gpu, x0, y0, 21.min(MAP.2 - x0), 21.min(MAP.3 - y0))?;
    let (global, px, py) = nearest_row(&rect).ok_or("no flight drawn near the busiest cell")?;
    // Brushing: the same rectangle reduced on the GPU to a row mask, which the reduction
    // reads as it is (nothing read back but the totals).
    let brush = target.rect_mask(&gpu, &resolver, (rect.x, rect.y), (rect.width, rect.height))?;
    let brushed = piecewise::reduce(&gpu, delay, Some(&brush))?;
    if brushed.count != rect.rows().len() as u64 {
        return Err("the brushed rows differ from the rectangle read back".into());
    }
    let picked = target
        .pick(&gpu, &resolver, px, py)?
        .ok_or("the picked pixel is empty")?;
    println!(
        "picking: {} rows of {} batches drawn in one submission, {} flights within 10 pixels, {:.2} s",
        resolver.rows(),
        table.batches().len(),
        rect.rows().len(),
        started.elapsed().as_secs_f64()
    );
    println!(
        "brushing: the {}x{} pixels around it show {} flights (one on top per pixel); their row mask, made on the gpu, feeds the reduction: mean delay {:.2} min",
        rect.width,
        rect.height,
        brushed.count,
        brushed.mean().unwrap_or(f64::NAN)
    );
    println!(
        "picked pixel ({px}, {py}): row {global} of the table = batch {}, row {} of that batch",
        picked.batch, picked.row
    );
    let on_gpu = (
        gpu_value(&gpu, table, &picked, "delay")?,
        gpu_value(&gpu, table, &picked, "distance")?,
        label(
            &labels,
            usize::try_from(gpu_value(&gpu, table, &picked, "origin")?)?,
        ),
    );
    println!(
        "  on the gpu: delay {}, distance {}, origin {}",
        on_gpu.0, on_gpu.1, on_gpu.2
    );
    // Streamed in file order: the table's row id is the file's row.
    let file_row = ParquetRecordBatchReaderBuilder::try_new(File::open(&path)?)?
        .with_offset(usize::try_from(picked.global_row)?)
        .with_limit(1)
        .build()?
        .next()
        .ok_or("the file has no such row")??;
    let fields: Vec<String> = file_row
        .schema()
        .fields()
        .iter()
        .zip(file_row.columns())
        .map(|(f, column)| format!("{} {}", f.name(), field(column, 0)))
        .collect();
    println!(
        "  the file's row {}: {}",
        picked.global_row,
        fields.join(", ")
    );
    let in_file = |name: &str| {
        file_row
            .column_by_name(name)
            .map(|c| field(c, 0))
            .unwrap_or_default()
    };
    if (in_file("delay"), in_file("distance"), in_file("origin"))
        != (on_gpu.0.to_string(), on_gpu.1.to_string(), on_gpu.2.clone())
    {
        return Err("the picked row's gpu values differ from the file's row".into());
    }

    // The picture: the heatmap on the GPU, then the bars and the marks on the host.
    let offscreen = Offscreen::new(&gpu, WIDTH, HEIGHT);
    let texture = grid.texture(&gpu, GridField::Count)?;
    let heatmap = pipeline(
        &gpu,
        &heatmap_shader(max_count),
        &[],
        wgpu::PrimitiveTopology::TriangleList,
    );
    let texture_view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    let group = gpu.device().create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("heatmap"),
        layout: &heatmap.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::TextureView(&texture_view),
        }],
    });
    let background = wgpu::Color {
        r: 0.93,
        g: 0.93,
        b: 0.91,
        a: 1.0,
    };
    offscreen.render(&gpu, "heatmap", background, |pass| {
        pass.set_viewport(
            MAP.0 as f32,
            MAP.1 as f32,
            MAP.2 as f32,
            MAP.3 as f32,
            0.0,
            1.0,
        );
        pass.set_pipeline(&heatmap);
        pass.set_bind_group(0, &group, &[]);
        pass.draw(0..3, 0..1);
        Ok::<(), String>(())
    })?;
    let mut rgba = offscreen.read_rgba(&gpu)?;
    let (mx, my) = (i64::from(MAP.0 + px), i64::from(MAP.1 + py));
    // Delay 0: a line across the heatmap and the histogram.
    let zero = i64::from(MAP.0)
        + (f64::from(-DELAY.0) / f64::from(DELAY.1 - DELAY.0) * f64::from(MAP.2)) as i64;
    let zero_y = i64::from(MAP.1 + MAP.3)
        - (f64::from(-DELAY.0) / f64::from(DELAY.1 - DELAY.0) * f64::from(MAP.3)) as i64;
    fill(
        &mut rgba,
        (i64::from(MAP.0), zero_y, i64::from(MAP.2), 1),
        [150, 150, 150],
    );
    // The histogram: delays along x, as the heatmap's y.
    let tallest = histogram.counts.iter().copied().max().unwrap_or(1).max(1);
    fill(
        &mut rgba,
        (
            i64::from(HIST.0),
            i64::from(HIST.1),
            i64::from(HIST.2),
            i64::from(HIST.3),
        ),
        [252, 252, 250],
    );
    for (i, &count) in histogram.counts.iter().enumerate() {
        let left = i64::from(HIST.0) + i as i64 * i64::from(HIST.2) / i64::from(BINS);
        let right = i64::from(HIST.0) + (i as i64 + 1) * i64::from(HIST.2) / i64::from(BINS);
        let h = (f64::from(count) / f64::from(tallest) * f64::from(HIST.3 - 10)) as i64;
        let bottom = i64::from(HIST.1 + HIST.3);
        fill(
            &mut rgba,
            (left, bottom - h, (right - left - 1).max(1), h),
            [70, 90, 160],
        );
    }
    fill(
        &mut rgba,
        (zero, i64::from(HIST.1), 1, i64::from(HIST.3)),
        [150, 150, 150],
    );
    // The busiest origins: bar length by flights, colour by mean delay (green early, red late).
    fill(
        &mut rgba,
        (
            i64::from(ORIGINS.0),
            i64::from(ORIGINS.1),
            i64::from(ORIGINS.2),
            i64::from(ORIGINS.3),
        ),
        [252, 252, 250],
    );
    let most = busiest.first().map_or(1, |&i| by_origin.count[i]).max(1);
    let row_height = i64::from(ORIGINS.3) / TOP_ORIGINS as i64;
    for (rank, &i) in busiest.iter().enumerate() {
        let length =
            (f64::from(by_origin.count[i]) / f64::from(most) * f64::from(ORIGINS.2 - 10)) as i64;
        let t = ((means[i] + 5.0) / 20.0).clamp(0.0, 1.0);
        let color = [(60.0 + 190.0 * t) as u8, (170.0 - 110.0 * t) as u8, 80];
        let top = i64::from(ORIGINS.1) + rank as i64 * row_height + 3;
        fill(
            &mut rgba,
            (i64::from(ORIGINS.0) + 5, top, length, row_height - 6),
            color,
        );
    }
    // The picked flight: a ring around its pixel.
    for (dx, dy) in (-7i64..=7).flat_map(|dx| (-7i64..=7).map(move |dy| (dx, dy))) {
        let r2 = dx * dx + dy * dy;
        if (30..=49).contains(&r2) {
            fill(&mut rgba, (mx + dx, my + dy, 1, 1), [20, 20, 20]);
        }
    }
    write_png("flights_aggregate.png", WIDTH, HEIGHT, &rgba)?;
    println!("wrote flights_aggregate.png");
    Ok(())
}
