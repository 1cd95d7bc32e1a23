//! The selection operations (issue 16) and their anchors: `extent` against a read-only kernel,
//! `gather` against a random-access read kernel, the row mask and `compact` of a 1 GiB table at
//! 50% selectivity against the copy kernels, and the prefix sum.

use gpudata::ops::cpu::{self, HostInput};
use gpudata::ops::{self, GpuMask, OpsConfig, Predicate};
use gpudata::{Gpu, GpuDataView, VertexFormat};

use crate::cases::{Case, read_range};
use crate::kernels::{self, Fill, Kernel};
use crate::timing::Work;

/// Case groups of this file, in run order.
pub const NAMES: [&str; 9] = [
    "read_vec4_256",
    "extent",
    "mask_f32",
    "mask_u32",
    "compact",
    "compact_sub",
    "random_read_vec4",
    "gather_f32x4",
    "gather_sub",
];

/// A storage buffer of `size` bytes (rounded up to 16), filled with `fill` from `seed`.
pub fn alloc(gpu: &Gpu, size: u64, seed: u32, fill: Option<Fill>) -> Result<wgpu::Buffer, String> {
    let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("gpubench select"),
        size: size.next_multiple_of(16),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    if let Some(kind) = fill {
        kernels::fill(gpu.device(), gpu.queue(), &buffer, seed, kind)?;
    }
    Ok(buffer)
}

/// `length` packed values of `format` from byte 0 of `buffer`.
pub fn view(
    buffer: &wgpu::Buffer,
    format: VertexFormat,
    length: u64,
) -> Result<GpuDataView<'_>, String> {
    GpuDataView::new(buffer, format, length, 0, None).map_err(|e| e.to_string())
}

fn detail<T>(plan: &ops::OpPlan<T>) -> String {
    format!("[{} dispatches]", plan.dispatches())
}

/// The read-only anchor: every `vec4<u32>` of `src` read once, eight per invocation at a
/// stride of the grid (coalesced), XOR-ed, the result written only if it matches a constant the
/// data never produces (so the loads cannot be dropped).
fn read_kernel(
    gpu: &Gpu,
    src: &wgpu::Buffer,
    size: u64,
    out: &wgpu::Buffer,
) -> Result<Kernel, String> {
    let n = size / 16;
    let per = 8u64;
    let threads = n.div_ceil(per);
    let wgsl = format!(
        "@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;\n\
         @group(0) @binding(1) var<storage, read_write> out: array<u32>;\n\
         @group(0) @binding(2) var<uniform> p: vec4<u32>;\n\
         @compute @workgroup_size(256) fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n\
             let t = (wid.y * nwg.x + wid.x) * 256u + lid;\n\
             var acc = vec4<u32>(0u);\n\
             for (var k = 0u; k < {per}u; k++) {{\n\
                 let i = k * p.y + t;\n\
                 if (i < p.x) {{ acc ^= src[i]; }}\n\
             }}\n\
             let x = acc.x ^ acc.y ^ acc.z ^ acc.w;\n\
             if (x == 0x9e3779b9u) {{ out[0] = t; }}\n\
         }}\n"
    );
    kernels::custom(
        gpu.device(),
        &wgsl,
        &[src, out],
        [
            u32::try_from(n).map_err(|e| e.to_string())?,
            u32::try_from(threads).map_err(|e| e.to_string())?,
            0,
            0,
        ],
        threads,
    )
}

/// The random-access anchor: `out[i] = src[ids[i]]` in `vec4<u32>` rows.
fn random_read_kernel(
    gpu: &Gpu,
    ids: &wgpu::Buffer,
    src: &wgpu::Buffer,
    out: &wgpu::Buffer,
    n: u64,
) -> Result<Kernel, String> {
    let wgsl = "@group(0) @binding(0) var<storage, read> ids: array<u32>;\n\
         @group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;\n\
         @group(0) @binding(2) var<storage, read_write> out: array<vec4<u32>>;\n\
         @group(0) @binding(3) var<uniform> p: vec4<u32>;\n\
         @compute @workgroup_size(256) fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n\
             let i = (wid.y * nwg.x + wid.x) * 256u + lid;\n\
             if (i >= p.x) { return; }\n\
             out[i] = src[ids[i]];\n\
         }\n";
    kernels::custom(
        gpu.device(),
        wgsl,
        &[ids, src, out],
        [u32::try_from(n).map_err(|e| e.to_string())?, 0, 0, 0],
        n,
    )
}

/// `n` random indices below `n` (a power of two), made on the GPU: hashed bits masked.
fn random_ids(gpu: &Gpu, n: u64) -> Result<wgpu::Buffer, String> {
    let ids = alloc(gpu, n * 4, 77, Some(Fill::Bits))?;
    let wgsl = "@group(0) @binding(0) var<storage, read_write> ids: array<u32>;\n\
         @group(0) @binding(1) var<uniform> p: vec4<u32>;\n\
         @compute @workgroup_size(256) fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n\
             let i = (wid.y * nwg.x + wid.x) * 256u + lid;\n\
             if (i >= p.x) { return; }\n\
             ids[i] = ids[i] & p.y;\n\
         }\n";
    let n32 = u32::try_from(n).map_err(|e| e.to_string())?;
    let kernel = kernels::custom(gpu.device(), wgsl, &[&ids], [n32, n32 - 1, 0, 0], n)?;
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        kernel.encode(&mut pass);
    }
    gpu.queue().submit([encoder.finish()]);
    Ok(ids)
}

fn bytes_all(gpu: &Gpu, buffer: &wgpu::Buffer, len: u64) -> Result<Vec<u8>, String> {
    read_range(gpu, buffer, 0, len)
}

/// The sub-word kernels' words per invocation to time besides the default (with `--variants`):
/// `rows_per_thread` 1 to 4.
fn word_variants(all: bool, default: u32) -> Vec<(String, OpsConfig)> {
    let mut v = vec![(String::new(), OpsConfig::default())];
    if all {
        for words in [1, 2, 4].into_iter().filter(|&w| w != default) {
            let config = OpsConfig {
                rows_per_thread: Some(words),
                ..OpsConfig::default()
            };
            v.push((format!(" w{words}"), config));
        }
    }
    v
}

/// Builds the cases of group `name` over `size` bytes (`all`: with tuning variants).
pub fn build(gpu: &Gpu, name: &str, size: u64, all: bool) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    match name {
        "read_vec4_256" => {
            let src = alloc(gpu, size, 50, Some(Fill::Bits))?;
            let out = alloc(gpu, 16, 0, None)?;
            let kernel = read_kernel(gpu, &src, size, &out)?;
            cases.push(Case::new(
                name.to_owned(),
                size,
                Work::Pass(Box::new(move |pass| kernel.encode(pass))),
                "[vec4<u32>, 8 per invocation, workgroup 256]".to_owned(),
                None,
            ));
        }
        "extent" => {
            for (label, format) in [
                ("extent_f32", VertexFormat::Float32),
                ("extent_f32x4", VertexFormat::Float32x4),
                ("extent_u16x2", VertexFormat::Uint16x2),
            ] {
                let n = size / format.byte_length();
                let src = alloc(gpu, size, 51, Some(Fill::UnitF32))?;
                let plan = ops::plan_extent(gpu, view(&src, format, n)?, &OpsConfig::default())
                    .map_err(|e| e.to_string())?;
                if format == VertexFormat::Float32 {
                    for per in [8u32, 128, 512] {
                        let cfg = OpsConfig {
                            rows_per_thread: Some(per),
                            ..OpsConfig::default()
                        };
                        let variant = ops::plan_extent(gpu, view(&src, format, n)?, &cfg)
                            .map_err(|e| e.to_string())?;
                        let bytes = variant.bytes_moved();
                        cases.push(Case::new(
                            format!("{label} r{per}"),
                            bytes,
                            Work::Pass(Box::new(move |pass| variant.encode(pass))),
                            format!("[{per} rows per invocation]"),
                            None,
                        ));
                    }
                }
                let out = plan.output().buffer().clone();
                let out_len = plan.output().byte_length();
                let detail = detail(&plan);
                let bytes = plan.bytes_moved();
                let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                    let input = bytes_all(gpu, &src, n * format.byte_length())?;
                    let want = cpu::extent(HostInput::new(&input, format, n))
                        .map_err(|e| e.to_string())?;
                    let got = bytes_all(gpu, &out, out_len)?;
                    (got == want.bytes())
                        .then_some(())
                        .ok_or_else(|| format!("extent {got:?} != {:?}", want.bytes()))
                });
                cases.push(Case::new(
                    label.to_owned(),
                    bytes,
                    Work::Pass(Box::new(move |pass| plan.encode(pass))),
                    detail,
                    Some(verify),
                ));
            }
        }
        "mask_f32" | "mask_u32" => {
            // `x < 1.5` over float32 values uniform in [1, 2) (NaN tested on the bits), or
            // `x < 2^31` over uint32 bits (an integer compare: no NaN test); about half the rows.
            let n = size / 4;
            let (format, fill, label) = if name == "mask_f32" {
                (VertexFormat::Float32, Fill::UnitF32, "mask_f32_less")
            } else {
                (VertexFormat::Uint32, Fill::Bits, "mask_u32_less")
            };
            let src = alloc(gpu, size, 52, Some(fill))?;
            let column = view(&src, format, n)?;
            let predicate = if name == "mask_f32" {
                Predicate::less(column, 1.5f32)
            } else {
                Predicate::less(column, 0x8000_0000u32)
            };
            // With subgroup ballots (where the device has them: the default) and without (the
            // bits transposed in workgroup memory), in the same run.
            let ballots = gpu.device().features().contains(wgpu::Features::SUBGROUP);
            for subgroups in [true, false] {
                let config = OpsConfig {
                    subgroups,
                    ..OpsConfig::default()
                };
                let plan = ops::plan_mask(gpu, &predicate, &config).map_err(|e| e.to_string())?;
                let kernel = if subgroups && ballots {
                    "subgroup ballots"
                } else {
                    "bits transposed in workgroup memory"
                };
                let detail = format!("[{} dispatches, {kernel}]", plan.dispatches());
                let words = plan
                    .output()
                    .pieces()
                    .next()
                    .map(|(words, _)| words.buffer().clone())
                    .ok_or_else(|| "a mask without words".to_owned())?;
                let src = src.clone();
                // The first 65,536 rows against the CPU reference.
                let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                    let k = n.min(65536);
                    let input = bytes_all(gpu, &src, k * 4)?;
                    let column = HostInput::new(&input, format, k);
                    let want = if format == VertexFormat::Float32 {
                        cpu::mask(&cpu::HostPredicate::less(column, 1.5f32))
                    } else {
                        cpu::mask(&cpu::HostPredicate::less(column, 0x8000_0000u32))
                    }
                    .map_err(|e| e.to_string())?;
                    let got = bytes_all(gpu, &words, k.div_ceil(32) * 4)?;
                    let bits = (0..k as usize).map(|i| (got[i / 8] >> (i % 8)) & 1 == 1);
                    bits.eq(want.iter().copied())
                        .then_some(())
                        .ok_or("mask bits differ from the CPU reference".to_owned())
                });
                let name = if subgroups {
                    label.to_owned()
                } else {
                    format!("{label} no-subgroups")
                };
                cases.push(Case::new(
                    name,
                    plan.bytes_moved(),
                    Work::Pass(Box::new(move |pass| plan.encode(pass))),
                    detail,
                    Some(verify),
                ));
            }
        }
        "compact_sub" => {
            // Sub-word rows (several rows to an output word): a 256 MiB uint8 or uint16
            // column at 50%, kept by `x < half` over its own random bits.
            for (label, format, half) in [
                ("compact_u8_50", VertexFormat::Uint8, 128u32),
                ("compact_u16_50", VertexFormat::Uint16, 32768),
            ] {
                let bytes = size / 4;
                let n = bytes / format.byte_length();
                let src = alloc(gpu, bytes, 57, Some(Fill::Bits))?;
                let mask = ops::mask(gpu, &Predicate::less(view(&src, format, n)?, half))
                    .map_err(|e| e.to_string())?;
                let mask = std::sync::Arc::new(mask);
                // Besides the default (the packed rows' kernel: groups of one source vector, the
                // output stored after each step), its groups of 2 and (uint16) 4 vectors, `g2`,
                // `g4` (4 for uint16 and 2 for uint8 are one mask word's rows, the former
                // layout); one-vector groups with the output stored every 32 (the whole block)
                // or 16 rows an invocation, `r32`, `r16` (more workgroup memory, fewer
                // barriers); the
                // block scan in workgroup memory instead of subgroups, `nosub`; and the general
                // kernel: one invocation per output word.
                let mut variants = vec![(String::new(), OpsConfig::default())];
                if all {
                    let config = OpsConfig {
                        subgroups: false,
                        ..OpsConfig::default()
                    };
                    variants.push((" nosub".to_owned(), config));
                    let s = format.byte_length() as u32;
                    let tilings = [(" g2", 2), (" g4", 4), (" r32", 32), (" r16", 16)];
                    for (name, r) in tilings {
                        // A phase of 16 bytes' rows is the default's one step.
                        if (r <= 4 && r > 2 * s) || (r >= 8 && r * s <= 16) {
                            continue;
                        }
                        let config = OpsConfig {
                            rows_per_thread: Some(r),
                            ..OpsConfig::default()
                        };
                        variants.push((name.to_owned(), config));
                    }
                    for (name, config) in word_variants(all, 2) {
                        let config = OpsConfig {
                            stage_outputs: false,
                            ..config
                        };
                        variants.push((format!(" general{name}"), config));
                    }
                }
                for (variant, config) in variants {
                    let (mask, src) = (mask.clone(), src.clone());
                    let label = format!("{label}{variant}");
                    let plan = ops::plan_compact(gpu, &mask, &[view(&src, format, n)?], &config)
                        .map_err(|e| e.to_string())?;
                    let kept = plan.output().kept;
                    let detail = format!(
                        "[{} dispatches, {kept} of {n} rows kept]",
                        plan.dispatches()
                    );
                    let out = plan.output().columns[0].buffer().clone();
                    let moved = plan.bytes_moved();
                    let wgsl = plan.wgsl().map(str::to_owned);
                    let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                        let keep = mask.read(gpu).map_err(|e| e.to_string())?;
                        let input = bytes_all(gpu, &src, bytes)?;
                        let (want, k) = cpu::compact(&keep, &[HostInput::new(&input, format, n)])
                            .map_err(|e| e.to_string())?;
                        let got = bytes_all(gpu, &out, k * format.byte_length())?;
                        (got == want[0].bytes())
                            .then_some(())
                            .ok_or("compacted rows differ from the CPU reference".to_owned())
                    });
                    cases.push(
                        Case::new(
                            label,
                            moved,
                            Work::Pass(Box::new(move |pass| plan.encode(pass))),
                            detail,
                            Some(verify),
                        )
                        .with_wgsl(wgsl.as_deref()),
                    );
                }
            }
        }
        "gather_sub" => {
            // Sub-word rows gathered a word at a time: 32 Mi random uint32 indices into 32 Mi rows
            // of uint8 or uint16.
            let n = (size / 32).next_power_of_two();
            let ids = random_ids(gpu, n)?;
            for (label, format) in [
                ("gather_u8", VertexFormat::Uint8),
                ("gather_u16", VertexFormat::Uint16),
            ] {
                let row = format.byte_length();
                let src = alloc(gpu, n * row, 61, Some(Fill::Bits))?;
                // Packed indices: four rows per index vector, two vectors per invocation by
                // default (`w1`, `w4`: one or four).
                for (variant, config) in word_variants(all, 2) {
                    let src = src.clone();
                    let label = format!("{label}{variant}");
                    let plan = ops::plan_gather(
                        gpu,
                        view(&ids, VertexFormat::Uint32, n)?,
                        view(&src, format, n)?,
                        &config,
                    )
                    .map_err(|e| e.to_string())?;
                    let out = plan.output().buffer().clone();
                    let detail = detail(&plan);
                    let ids = ids.clone();
                    let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                        let k = n.min(65536);
                        let id = bytes_all(gpu, &ids, k * 4)?;
                        let source = bytes_all(gpu, &src, n * row)?;
                        let want = cpu::gather(
                            HostInput::new(&id, VertexFormat::Uint32, k),
                            HostInput::new(&source, format, n),
                        )
                        .map_err(|e| e.to_string())?;
                        let got = bytes_all(gpu, &out, k * row)?;
                        (got == want.bytes())
                            .then_some(())
                            .ok_or("gathered rows differ from the CPU reference".to_owned())
                    });
                    cases.push(Case::new(
                        label,
                        n * 4 + 2 * n * row,
                        Work::Pass(Box::new(move |pass| plan.encode(pass))),
                        detail,
                        Some(verify),
                    ));
                }
            }
        }
        "compact" => {
            // A 1 GiB table at 50%: one float32x4 column, or four float32 columns; the mask
            // from `x < 1.5` over values uniform in [1, 2).
            for (label, format, columns) in [
                ("compact_f32x4_50", VertexFormat::Float32x4, 1u64),
                ("compact_4xf32_50", VertexFormat::Float32, 4),
            ] {
                let n = size / columns / format.byte_length();
                let buffers = (0..columns)
                    .map(|c| {
                        alloc(
                            gpu,
                            n * format.byte_length(),
                            53 + c as u32,
                            Some(Fill::UnitF32),
                        )
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let key = view(&buffers[0], VertexFormat::Float32, n.min(size / 4))?;
                let key = if format == VertexFormat::Float32 {
                    key
                } else {
                    GpuDataView::new(&buffers[0], VertexFormat::Float32, n, 0, Some(16))
                        .map_err(|e| e.to_string())?
                };
                let mask =
                    ops::mask(gpu, &Predicate::less(key, 1.5f32)).map_err(|e| e.to_string())?;
                let views = buffers
                    .iter()
                    .map(|b| view(b, format, n))
                    .collect::<Result<Vec<_>, _>>()?;
                let plan = ops::plan_compact(gpu, &mask, &views, &OpsConfig::default())
                    .map_err(|e| e.to_string())?;
                let kept = plan.output().kept;
                let detail = format!(
                    "[{} dispatches, {kept} of {n} rows kept]",
                    plan.dispatches()
                );
                let outs: Vec<wgpu::Buffer> = plan
                    .output()
                    .columns
                    .iter()
                    .map(|c| c.buffer().clone())
                    .collect();
                let bytes = plan.bytes_moved();
                let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                    let keep = mask.read(gpu).map_err(|e| e.to_string())?;
                    for (b, o) in buffers.iter().zip(&outs) {
                        let input = bytes_all(gpu, b, n * format.byte_length())?;
                        let (want, k) = cpu::compact(&keep, &[HostInput::new(&input, format, n)])
                            .map_err(|e| e.to_string())?;
                        let got = bytes_all(gpu, o, k * format.byte_length())?;
                        if got != want[0].bytes() {
                            return Err("compacted rows differ from the CPU reference".to_owned());
                        }
                    }
                    Ok(())
                });
                cases.push(Case::new(
                    label.to_owned(),
                    bytes,
                    Work::Pass(Box::new(move |pass| plan.encode(pass))),
                    detail,
                    Some(verify),
                ));
            }
        }
        "random_read_vec4" | "gather_f32x4" => {
            // Half-size source and output (the output of 16-byte rows is `size / 2` bytes).
            let n = (size / 2 / 16).next_power_of_two() / 2 * 2;
            let n = if n * 16 > size / 2 { n / 2 } else { n };
            let src = alloc(gpu, n * 16, 60, Some(Fill::Bits))?;
            let ids = random_ids(gpu, n)?;
            let moved = n * 4 + 2 * n * 16;
            if name == "random_read_vec4" {
                let out = alloc(gpu, n * 16, 0, None)?;
                let kernel = random_read_kernel(gpu, &ids, &src, &out, n)?;
                cases.push(Case::new(
                    name.to_owned(),
                    moved,
                    Work::Pass(Box::new(move |pass| kernel.encode(pass))),
                    format!("[{n} random rows of 16 bytes]"),
                    None,
                ));
            } else {
                let plan = ops::plan_gather(
                    gpu,
                    view(&ids, VertexFormat::Uint32, n)?,
                    view(&src, VertexFormat::Float32x4, n)?,
                    &OpsConfig::default(),
                )
                .map_err(|e| e.to_string())?;
                let out = plan.output().buffer().clone();
                let detail = detail(&plan);
                let verify = Box::new(move |gpu: &Gpu| -> Result<(), String> {
                    let k = n.min(65536);
                    let id = bytes_all(gpu, &ids, k * 4)?;
                    let source = bytes_all(gpu, &src, n * 16)?;
                    let want = cpu::gather(
                        HostInput::new(&id, VertexFormat::Uint32, k),
                        HostInput::new(&source, VertexFormat::Float32x4, n),
                    )
                    .map_err(|e| e.to_string())?;
                    let got = bytes_all(gpu, &out, k * 16)?;
                    (got == want.bytes())
                        .then_some(())
                        .ok_or("gathered rows differ from the CPU reference".to_owned())
                });
                cases.push(Case::new(
                    name.to_owned(),
                    moved,
                    Work::Pass(Box::new(move |pass| plan.encode(pass))),
                    detail,
                    Some(verify),
                ));
            }
        }
        other => return Err(format!("unknown case `{other}`")),
    }
    Ok(cases)
}

/// Keeps the mask type named (it is what the compact cases read).
#[allow(dead_code)]
type Mask = GpuMask;
