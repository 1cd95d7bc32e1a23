//! `decode_normalized`: every 8- and 16-bit pattern of every normalized format, in every lane,
//! and every field value of `unorm10-10-10-2`, through an operation kernel's decode (`x * 1.0`,
//! which is exact), compared bit for bit with the host codec on every value, not a sample.
//! The time is a small kernel's; the check is the point (issue 30: on an H100 a division in the
//! kernels decoded 504 of 1,024 `unorm8x4` lanes one ulp off). As a control, each case also
//! decodes the same values with the division the table accessors' WGSL writes
//! ([`wgsl_codec::decode_unit`]) and prints how many lanes that differs in (0 where the device
//! divides correctly rounded); only the kernels' decode must match.

use gpudata::format::{codec, wgsl_codec};
use gpudata::ops::{self, ArithmeticOp, Literal, OpsConfig};
use gpudata::{Gpu, GpuDataView, VertexFormat};

use super::{Case, kernels, plan_case, read_range};

/// A kernel writing, per value of `format` in `words` (`p.x` of them), each lane's [`wgsl_codec::decode_unit`]
/// bits in storage order.
fn division_control(format: VertexFormat) -> String {
    let size = format.byte_length();
    let unit = codec::unit_byte_length(format);
    let lanes = format.components();
    let mut body = String::new();
    for u in 0..size / unit {
        let at = format!("base + {}u", u * unit);
        let raw = match unit {
            4 => format!("words[({at}) / 4u]"),
            _ => format!(
                "extractBits(words[({at}) / 4u], (({at}) % 4u) * 8u, {}u)",
                unit * 8
            ),
        };
        body += &format!("    let r{u} = {raw};\n");
    }
    for lane in 0..lanes {
        let unit = format!("r{}", codec::unit_of_lane(format, lane));
        body += &format!(
            "    out[i * {lanes}u + {lane}u] = bitcast<u32>({});\n",
            wgsl_codec::decode_unit(format, lane, &unit)
        );
    }
    format!(
        "@group(0) @binding(0) var<storage, read> words: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> p: vec4<u32>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
    let i = (wid.y * nwg.x + wid.x) * 256u + lid;
    if (i >= p.x) {{ return; }}
    let base = i * {size}u;
{body}}}
"
    )
}

/// Lanes where `found` differs from `expected`, and the first of them.
fn differences(found: &[u8], expected: &[u32]) -> (usize, Option<usize>) {
    let found: Vec<u32> = found
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let differ: Vec<usize> = (0..expected.len())
        .filter(|&k| found.get(k) != Some(&expected[k]))
        .collect();
    (differ.len(), differ.first().copied())
}

/// The group's name.
pub const NAMES: [&str; 1] = ["decode_normalized"];

/// Values of `format` whose lanes each run through every pattern of their component: value `i`
/// holds `(i + lane · step) mod n` in lane `lane` (`step` odd); `unorm10-10-10-2` words whose
/// fields run through all their values (x = j, y = 7j + 3, z = 13j + 5 mod 1024, w = j mod 4).
fn patterns(format: VertexFormat) -> (Vec<u8>, u64) {
    let unit = codec::unit_byte_length(format) as usize;
    if unit == 4 {
        let words: Vec<u8> = (0u32..4096)
            .flat_map(|j| {
                ((j % 1024)
                    | (((7 * j + 3) % 1024) << 10)
                    | (((13 * j + 5) % 1024) << 20)
                    | (j % 4) << 30)
                    .to_le_bytes()
            })
            .collect();
        return (words, 4096);
    }
    let n = 1usize << (8 * unit);
    let step = n / 4 + 1;
    let mut bytes = Vec::with_capacity(n * format.byte_length() as usize);
    for i in 0..n {
        for lane in 0..format.components() as usize {
            let pattern = (i + lane * step) % n;
            bytes.extend_from_slice(&pattern.to_le_bytes()[..unit]);
        }
    }
    (bytes, n as u64)
}

/// One case per normalized format.
pub fn build(gpu: &Gpu) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for format in VertexFormat::ALL
        .iter()
        .copied()
        .filter(|f| f.is_normalized())
    {
        let (bytes, count) = patterns(format);
        let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpubench decode"),
            size: (bytes.len() as u64).next_multiple_of(16),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        gpu.queue().write_buffer(&buffer, 0, &bytes);
        let view = GpuDataView::new(&buffer, format, count, 0, None).map_err(|e| e.to_string())?;
        let plan = ops::plan_arithmetic(
            gpu,
            &OpsConfig::default(),
            ArithmeticOp::Multiply,
            &[view.into(), Literal::scalar(1.0).into()],
        )
        .map_err(|e| e.to_string())?;
        let output = plan.output().buffer().clone();
        // The host codec's value of every lane. The operations read lanes in storage order
        // (`unorm8x4-bgra` as `unorm8x4`): undo vertex fetch's swizzle, its own inverse.
        let size = format.byte_length() as usize;
        let lanes = format.components();
        let expected: Vec<u32> = (0..count as usize)
            .flat_map(|i| {
                let value = &bytes[i * size..(i + 1) * size];
                (0..lanes).map(move |lane| {
                    codec::decode_lane(format, value, codec::fetch_order(format, lane))
                        .map_or(u32::MAX, |v| v.to_f32().to_bits())
                })
            })
            .collect();
        let control_out = gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpubench decode control"),
            size: expected.len() as u64 * 4,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let control = kernels::custom(
            gpu.device(),
            &division_control(format),
            &[&buffer, &control_out],
            [u32::try_from(count).map_err(|e| e.to_string())?, 0, 0, 0],
            count,
        )?;
        let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
            let mut encoder = gpu.device().create_command_encoder(&Default::default());
            control.encode(&mut encoder.begin_compute_pass(&Default::default()));
            gpu.queue().submit([encoder.finish()]);
            let divided = read_range(gpu, &control_out, 0, expected.len() as u64 * 4)?;
            let (off, _) = differences(&divided, &expected);
            println!(
                "  {:<28} control: the division decode (table accessors' WGSL) differs from the host in {off} of {} lanes",
                format!("decode_{format}"),
                expected.len()
            );
            let found = read_range(gpu, &output, 0, expected.len() as u64 * 4)?;
            match differences(&found, &expected) {
                (_, None) => Ok(()),
                (n, Some(k)) => {
                    let bits =
                        u32::from_le_bytes(found[4 * k..4 * k + 4].try_into().unwrap_or_default());
                    Err(format!(
                        "{n} of {} lanes differ; value {} lane {}: kernel {bits:#010x} ({:e}), host {:#010x} ({:e})",
                        expected.len(),
                        k / lanes as usize,
                        k % lanes as usize,
                        f32::from_bits(bits),
                        expected[k],
                        f32::from_bits(expected[k]),
                    ))
                }
            }
        });
        let mut case = plan_case(format!("decode_{format}"), plan, Some(verify));
        case.detail = format!(
            "[{count} values × {lanes} lanes, all compared] {}",
            case.detail
        );
        cases.push(case);
    }
    Ok(cases)
}
