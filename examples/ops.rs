//! GPU operations on gpudata columns: `add` with type promotion and broadcasting, `interleave`
//! into vertex rows, `deinterleave` back, and `fround` of float64 values into f32 high and low
//! parts, each checked against the CPU reference.
//!
//! ```text
//! cargo run --example ops
//! ```

use gpudata::data::HostValues;
use gpudata::ops::cpu::{self, HostInput};
use gpudata::ops::{self, ArithmeticOp};
use gpudata::{Gpu, GpuData, GpuDataDescriptor, GpuDataStructFormat, StructLayout, VertexFormat};

/// The values of one-format data, decoded by the crate's codec (`float32` rows here).
fn values(gpu: &Gpu, data: &GpuData) -> Result<HostValues, Box<dyn std::error::Error>> {
    let view = data.as_view().ok_or("data of one format")?;
    Ok(view.read_values(gpu)?)
}

/// The format of `data`, for printing.
fn format_name(data: &GpuData) -> String {
    data.format()
        .map_or_else(|| "no format".to_owned(), ToString::to_string)
}

fn upload(gpu: &Gpu, bytes: &[u8], format: VertexFormat, length: u64) -> GpuData {
    GpuData::from_bytes(
        gpu,
        bytes,
        GpuDataDescriptor::new(format, length),
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    )
    .expect("upload")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::headless()?;
    println!("device: {}", gpu.adapter_summary());

    // add: float32x2 + uint8x2 -> float32x2; a one-lane sint8 column broadcasts to both lanes.
    let positions: Vec<f32> = (0..8).map(|v| v as f32 * 0.5).collect();
    let position_bytes: Vec<u8> = positions.iter().flat_map(|v| v.to_le_bytes()).collect();
    let offsets = [1u8, 2, 3, 4, 5, 6, 7, 8];
    let bias = [(-1i8) as u8, 1, (-1i8) as u8, 1];
    let a = upload(&gpu, &position_bytes, VertexFormat::Float32x2, 4);
    let b = upload(&gpu, &offsets, VertexFormat::Uint8x2, 4);
    let c = upload(&gpu, &bias, VertexFormat::Sint8, 4);
    let sum = ops::arithmetic(
        &gpu,
        ArithmeticOp::Add,
        &[(&a).try_into()?, (&b).try_into()?, (&c).try_into()?],
    )?;
    let gpu_sum = sum.read_bytes(&gpu)?;
    let cpu_sum = cpu::arithmetic(
        ArithmeticOp::Add,
        &[
            HostInput::new(&position_bytes, VertexFormat::Float32x2, 4).into(),
            HostInput::new(&offsets, VertexFormat::Uint8x2, 4).into(),
            HostInput::new(&bias, VertexFormat::Sint8, 4).into(),
        ],
    )?;
    println!("add -> {}: {:?}", format_name(&sum), values(&gpu, &sum)?);
    assert_eq!(gpu_sum, cpu_sum.bytes());

    // interleave: the sum and a color column into packed 12-byte vertex rows.
    let format = GpuDataStructFormat::parse(
        StructLayout::Packed,
        [("position", "float32x2"), ("color", "unorm8x4")],
    )?;
    let colors: Vec<u8> = (0..16).map(|v| v * 16).collect();
    let color = upload(&gpu, &colors, VertexFormat::Unorm8x4, 4);
    let (Some(sum_view), Some(color_view)) = (sum.as_view(), color.as_view()) else {
        return Err("the sum and the colors are columns of one format".into());
    };
    let rows = ops::interleave(&gpu, &[sum_view, color_view], &format)?;
    let row_bytes = rows.read_bytes(&gpu)?;
    println!(
        "interleave -> {} rows of {} bytes: {:02x?}",
        rows.length(),
        rows.byte_stride(),
        &row_bytes[..12]
    );
    let expected = cpu::interleave(
        &[
            HostInput::new(&gpu_sum, VertexFormat::Float32x2, 4),
            HostInput::new(&colors, VertexFormat::Unorm8x4, 4),
        ],
        &format,
    )?;
    assert_eq!(row_bytes, expected.bytes());

    // deinterleave: the rows back into packed columns, byte for byte.
    let columns = ops::deinterleave(&gpu, &rows, None)?;
    assert_eq!(columns[0].read_bytes(&gpu)?, gpu_sum);
    assert_eq!(columns[1].read_bytes(&gpu)?, colors);
    println!(
        "deinterleave -> {} columns ({}, {}), equal to the inputs",
        columns.len(),
        format_name(&columns[0]),
        format_name(&columns[1])
    );

    // fround: float64 values to [hi, lo] f32 pairs, with integer operations on the GPU.
    let doubles = [core::f64::consts::PI, 0.1, 16_777_217.0, 3.5e38, f64::NAN];
    let split = ops::fround_f64(&gpu, &doubles)?;
    let HostValues::F32(parts) = values(&gpu, &split)? else {
        return Err("fround returns float32 pairs".into());
    };
    for (x, pair) in doubles.iter().zip(parts.chunks_exact(2)) {
        println!(
            "fround({x:e}) = hi {:e}, lo {:e}; hi + lo = {:e}",
            pair[0],
            pair[1],
            f64::from(pair[0]) + f64::from(pair[1])
        );
    }
    assert_eq!(split.read_bytes(&gpu)?, cpu::fround_f64(&doubles).bytes());
    println!("all GPU results equal the CPU reference");
    println!(
        "{} kernels compiled on this device (each once, in the Gpu's pipeline cache)",
        gpu.compiled_pipelines()
    );
    Ok(())
}
