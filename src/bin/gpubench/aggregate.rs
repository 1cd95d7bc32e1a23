//! The aggregations (issue 28) beside PyTorch's anchors (`shared/bench/torch_analytics.py`):
//! `reduce` of 1 GiB of `float32` (count, valid count, sum, minimum, maximum and so the mean in
//! one pass; torch's `sum` 0.264 ms), the 256-bin histogram of it (torch's `histc` 1.148 ms),
//! the sum over 1000 groups of `size / 4` rows (torch's `index_add_` 23.5 ms at 256 M rows), and
//! the counts of a 1024 × 1024 grid of `float32x2` positions. Each is verified against the CPU
//! reference over all rows.

use gpudata::ops::cpu::{self, HostInput};
use gpudata::ops::{self, GridSpec, GroupKeys, OpPlan, OpsConfig};
use gpudata::{Gpu, VertexFormat};

use crate::cases::{Case, Verify, read_range};
use crate::kernels::{self, Fill};
use crate::select::{alloc, view};
use crate::timing::Work;

/// Case groups of this file, in run order.
pub const NAMES: [&str; 4] = [
    "reduce_f32",
    "histogram_256",
    "group_sum_1000",
    "grid_count",
];

fn words(gpu: &Gpu, buffer: &wgpu::Buffer, count: u64) -> Result<Vec<u32>, String> {
    Ok(read_range(gpu, buffer, 0, count * 4)?
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// `n` group ids below `groups`, made on the GPU: hashed bits modulo `groups`.
fn group_ids(gpu: &Gpu, n: u64, groups: u32) -> Result<wgpu::Buffer, String> {
    let ids = alloc(gpu, n * 4, 81, Some(Fill::Bits))?;
    let wgsl = "@group(0) @binding(0) var<storage, read_write> ids: array<u32>;\n\
         @group(0) @binding(1) var<uniform> p: vec4<u32>;\n\
         @compute @workgroup_size(256) fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n\
             let i = (wid.y * nwg.x + wid.x) * 256u + lid;\n\
             if (i >= p.x) { return; }\n\
             ids[i] = ids[i] % p.y;\n\
         }\n";
    let n32 = u32::try_from(n).map_err(|e| e.to_string())?;
    let kernel = kernels::custom(gpu.device(), wgsl, &[&ids], [n32, groups, 0, 0], n)?;
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        kernel.encode(&mut pass);
    }
    gpu.queue().submit([encoder.finish()]);
    Ok(ids)
}

/// Per invocation variants of `config.rows_per_thread` (with `--variants`).
fn configs(all: bool, default: u32, others: &[u32]) -> Vec<(String, OpsConfig)> {
    let mut v = vec![(String::new(), OpsConfig::default())];
    if all {
        for &r in others.iter().filter(|&&r| r != default) {
            let config = OpsConfig {
                rows_per_thread: Some(r),
                ..OpsConfig::default()
            };
            v.push((format!(" r{r}"), config));
        }
    }
    v
}

/// The case `name` running `plan` each iteration, checked by `verify`.
fn case<T: 'static>(name: String, plan: OpPlan<T>, detail: String, verify: Verify) -> Case {
    let bytes = plan.bytes_moved();
    Case::new(
        name,
        bytes,
        Work::Pass(Box::new(move |pass| plan.encode(pass))),
        detail,
        Some(verify),
    )
}

/// Builds the cases of group `name` over `size` bytes.
pub fn build(gpu: &Gpu, name: &str, size: u64, all: bool) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    let fmt = |e: gpudata::OpError| e.to_string();
    match name {
        "reduce_f32" => {
            let n = size / 4;
            let src = alloc(gpu, size, 61, Some(Fill::UnitF32))?;
            for (suffix, config) in configs(all, 32, &[8, 16, 64, 128]) {
                let plan =
                    ops::plan_reduce(gpu, view(&src, VertexFormat::Float32, n)?, None, &config)
                        .map_err(fmt)?;
                let record = plan.output().data().buffer().clone();
                let src = src.clone();
                let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                    let input = read_range(gpu, &src, 0, n * 4)?;
                    let want = cpu::reduce(HostInput::new(&input, VertexFormat::Float32, n), None)
                        .map_err(|e| e.to_string())?;
                    let w = words(gpu, &record, 8)?;
                    let sum = f64::from(f32::from_bits(w[4]));
                    let exact: f64 = input
                        .chunks_exact(4)
                        .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                        .sum();
                    // Values in [1, 2): Σ|x| is the sum itself.
                    let bound =
                        ((n as f64).log2().ceil() + 4.0) * exact * f64::from(f32::EPSILON) / 2.0;
                    let count = u64::from(w[0]) | (u64::from(w[1]) << 32);
                    let extremes = (Some(f32::from_bits(w[6])), Some(f32::from_bits(w[7])));
                    let want_extremes =
                        (want.min.map(|s| s.to_f32()), want.max.map(|s| s.to_f32()));
                    if count != want.count
                        || extremes != want_extremes
                        || (sum - exact).abs() > bound
                    {
                        return Err(format!(
                            "reduce: count {count}, extremes {extremes:?}, sum {sum} (want {} {want_extremes:?} {exact} ± {bound})",
                            want.count
                        ));
                    }
                    Ok(())
                });
                let detail = format!(
                    "[{} dispatches, sum/min/max/mean/counts in one pass]",
                    plan.dispatches()
                );
                // The tile pass, the kernel that reads the rows (`--wgsl-dir`).
                let wgsl = plan.wgsl().map(str::to_owned);
                cases.push(
                    case(format!("reduce_f32{suffix}"), plan, detail, verify)
                        .with_wgsl(wgsl.as_deref()),
                );
            }
        }
        "histogram_256" => {
            // torch.histc(f, bins=256, min=0, max=1) over 1 GiB uniform in [0, 1); here [1, 2).
            let n = size / 4;
            let src = alloc(gpu, size, 62, Some(Fill::UnitF32))?;
            for (suffix, config) in configs(all, 64, &[16, 32, 128, 256]) {
                let plan = ops::plan_histogram(
                    gpu,
                    view(&src, VertexFormat::Float32, n)?,
                    None,
                    None,
                    256,
                    Some((1.0, 2.0)),
                    &config,
                )
                .map_err(fmt)?;
                let counts = plan.output().counts.buffer().clone();
                let src = src.clone();
                let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                    let input = read_range(gpu, &src, 0, n * 4)?;
                    let want = cpu::histogram(
                        HostInput::new(&input, VertexFormat::Float32, n),
                        None,
                        None,
                        256,
                        Some((1.0, 2.0)),
                    )
                    .map_err(|e| e.to_string())?;
                    let got = words(gpu, &counts, 256)?;
                    (got == want.counts)
                        .then_some(())
                        .ok_or_else(|| "histogram counts differ".to_owned())
                });
                let detail = format!(
                    "[{} dispatches, bins in workgroup memory]",
                    plan.dispatches()
                );
                cases.push(case(format!("histogram_256{suffix}"), plan, detail, verify));
            }
        }
        "group_sum_1000" => {
            // out.index_add_(0, keys, f) over 256 M rows at 1 GiB: `size` bytes of keys and of
            // values.
            let n = size / 4;
            let ids = group_ids(gpu, n, 1000)?;
            let values = alloc(gpu, size, 63, Some(Fill::UnitF32))?;
            for (suffix, config) in configs(all, 64, &[32, 128, 256]) {
                let plan = ops::plan_group_by(
                    gpu,
                    view(&ids, VertexFormat::Uint32, n)?,
                    Some(view(&values, VertexFormat::Float32, n)?),
                    None,
                    GroupKeys::Dense { groups: 1000 },
                    &config,
                )
                .map_err(fmt)?;
                let sums = plan
                    .output()
                    .sum
                    .as_ref()
                    .map(|s| s.buffer().clone())
                    .ok_or("group_by without sums")?;
                let (ids, values) = (ids.clone(), values.clone());
                let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                    let keys = read_range(gpu, &ids, 0, n * 4)?;
                    let vals = read_range(gpu, &values, 0, n * 4)?;
                    let want = cpu::group_by(
                        HostInput::new(&keys, VertexFormat::Uint32, n),
                        Some(HostInput::new(&vals, VertexFormat::Float32, n)),
                        None,
                        GroupKeys::Dense { groups: 1000 },
                    )
                    .map_err(|e| e.to_string())?;
                    let got = words(gpu, &sums, 1000)?;
                    let want: Vec<u32> = want
                        .sum
                        .unwrap_or_default()
                        .iter()
                        .map(|v| v.to_bits())
                        .collect();
                    (got == want)
                        .then_some(())
                        .ok_or_else(|| "group sums differ from the CPU's bits".to_owned())
                });
                let detail = format!(
                    "[{} dispatches: count/extremes pass, fixed-point sum pass, finish]",
                    plan.dispatches()
                );
                cases.push(case(
                    format!("group_sum_1000{suffix}"),
                    plan,
                    detail,
                    verify,
                ));
            }
        }
        "grid_count" => {
            // `size` bytes of float32x2 positions in [1, 2)² counted in 1024 × 1024 cells.
            let n = size / 8;
            let src = alloc(gpu, size, 64, Some(Fill::UnitF32))?;
            let spec = GridSpec {
                width: 1024,
                height: 1024,
                bounds: Some([1.0, 1.0, 2.0, 2.0]),
            };
            for (suffix, config) in configs(all, 64, &[16, 256]) {
                let plan = ops::plan_grid_aggregate(
                    gpu,
                    view(&src, VertexFormat::Float32x2, n)?,
                    None,
                    None,
                    &spec,
                    &config,
                )
                .map_err(fmt)?;
                let counts = plan.output().count.buffer().clone();
                let pitch = u64::from(plan.output().row_pitch / 4);
                let src = src.clone();
                let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                    let input = read_range(gpu, &src, 0, n * 8)?;
                    let want = cpu::grid_aggregate(
                        HostInput::new(&input, VertexFormat::Float32x2, n),
                        None,
                        None,
                        &spec,
                    )
                    .map_err(|e| e.to_string())?;
                    let got = words(gpu, &counts, pitch * 1024)?;
                    let cells: Vec<u32> = got
                        .chunks(pitch as usize)
                        .flat_map(|row| row[..1024].to_vec())
                        .collect();
                    (cells == want.count)
                        .then_some(())
                        .ok_or_else(|| "grid counts differ".to_owned())
                });
                let detail = format!(
                    "[{} dispatches, 1024 x 1024 cells, storage atomics]",
                    plan.dispatches()
                );
                cases.push(case(format!("grid_count{suffix}"), plan, detail, verify));
            }
        }
        other => return Err(format!("unknown case group `{other}`")),
    }
    Ok(cases)
}
