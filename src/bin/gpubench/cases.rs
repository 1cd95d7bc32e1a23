//! The measured cases: copy kernels, `copy_buffer_to_buffer`, and each operation on random
//! inputs of `size` bytes, each with a check of sampled rows against the CPU reference.

use std::ops::Range;

use gpudata::data::{BufferHandle, GpuDataDescriptor};
use gpudata::ops::cpu::{self, HostInput, HostOperand};
use gpudata::ops::{self, ArithmeticOp, OpPlan, OpsConfig};
use gpudata::{
    Gpu, GpuData, GpuDataStructFormat, GpuDataView, OpError, StructLayout, VertexFormat,
};

use crate::kernels::{self, Fill};

#[path = "decode.rs"]
mod decode;
#[path = "elementwise.rs"]
mod elementwise;
use crate::timing::Work;

/// Groups that run only when `--ops` names them (their buffers are several GiB, larger than
/// one storage binding whatever the device).
pub const ON_REQUEST: [&str; 1] = ["big_sort_u32"];

/// Case groups in run order; `--ops` selects by prefix.
pub const NAMES: [&str; 57] = [
    "copy_vec4_256",
    "copy_u32_64",
    "copy_buffer_to_buffer",
    "fresh_clear",
    "relayout_block_warm",
    "relayout_block_fresh",
    "relayout_pack",
    "relayout_pack_warm",
    "relayout_pack_aligned",
    "relayout_pack_fresh",
    "relayout_pack_one",
    "relayout_interleave",
    "relayout_segment",
    "add_f32",
    "add_u8",
    "add_f16x4",
    "add_strided_f32x4",
    "interleave",
    "deinterleave",
    "fround",
    "fround_all_classes",
    "add_f32_over_binding",
    "read_vec4_256",
    "extent",
    "mask_f32",
    "mask_u32",
    "compact",
    "compact_sub",
    "random_read_vec4",
    "gather_f32x4",
    "gather_sub",
    "sqrt_f32",
    "abs_f32",
    "sin_f32",
    "cos_f32",
    "tan_f32",
    "exp_f32",
    "log_f32",
    "pow_f32",
    "dot_f32x4",
    "length_f32x4",
    "equal_all_f32x4",
    "select_f32",
    "swizzle_f32x4",
    "decode_normalized",
    "sort_u32",
    "sort_pairs_u32",
    "argsort_f32",
    "argsort_by_2",
    "big_sort_u32",
    "reduce_f32",
    "histogram_256",
    "group_sum_1000",
    "grid_count",
    "copy_3r1w",
    "fused_fma",
    "unfused_fma",
];

pub type Verify = Box<dyn Fn(&Gpu) -> Result<(), String>>;

/// One measured case.
pub struct Case {
    /// Name in the table.
    pub name: String,
    /// Bytes read once plus bytes written once.
    pub bytes_moved: u64,
    /// What one iteration records.
    pub work: Work,
    /// Shape of the dispatch.
    pub detail: String,
    /// Compares sampled rows with the CPU reference.
    pub verify: Option<Verify>,
    /// Rows (keys) one iteration handles, for a rows-per-second figure beside the bandwidth.
    pub rows: Option<u64>,
    wgsl: Option<String>,
}

impl Case {
    /// A case without generated WGSL.
    pub fn new(
        name: String,
        bytes_moved: u64,
        work: Work,
        detail: String,
        verify: Option<Verify>,
    ) -> Case {
        Case {
            name,
            bytes_moved,
            work,
            detail,
            verify,
            rows: None,
            wgsl: None,
        }
    }

    /// The generated WGSL, for operations.
    pub fn wgsl(&self) -> Option<&str> {
        self.wgsl.as_deref()
    }

    /// The case with `wgsl` as its generated WGSL (what `--wgsl-dir` writes).
    pub fn with_wgsl(mut self, wgsl: Option<&str>) -> Case {
        self.wgsl = wgsl.map(str::to_owned);
        self
    }
}

/// A GPU column: buffer, format, offset, stride.
#[derive(Clone)]
pub struct Col {
    pub buffer: wgpu::Buffer,
    format: VertexFormat,
    offset: u64,
    stride: u64,
}

impl Col {
    /// `format` values packed from byte 0 of `buffer`.
    pub fn packed(buffer: &wgpu::Buffer, format: VertexFormat) -> Col {
        Col {
            buffer: buffer.clone(),
            format,
            offset: 0,
            stride: format.byte_length(),
        }
    }

    /// The first `length` rows as a view.
    pub fn input(&self, length: u64) -> Result<GpuDataView<'_>, String> {
        GpuDataView::new(
            &self.buffer,
            self.format,
            length,
            self.offset,
            Some(self.stride),
        )
        .map_err(|e| e.to_string())
    }

    /// The bytes of rows `rows` (from the first row's offset).
    fn sample(&self, gpu: &Gpu, rows: &Range<u64>) -> Result<Vec<u8>, String> {
        let count = rows.end - rows.start;
        if count == 0 {
            return Ok(Vec::new());
        }
        let start = self.offset + rows.start * self.stride;
        let len = (count - 1) * self.stride + self.format.byte_length();
        read_range(gpu, &self.buffer, start, len)
    }
}

/// Bytes `start..start + len` of `buffer` (which needs `COPY_SRC`), read back.
pub fn read_range(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    start: u64,
    len: u64,
) -> Result<Vec<u8>, String> {
    let descriptor = GpuDataDescriptor::new(VertexFormat::Uint8, len).with_byte_offset(start);
    GpuData::new(BufferHandle::Shared(buffer.clone()), descriptor)
        .map_err(|e| e.to_string())?
        .read_bytes(gpu)
        .map_err(|e| e.to_string())
}

pub type Reference = Box<dyn Fn(&[HostInput<'_>]) -> Result<Vec<Vec<u8>>, OpError>>;

/// A check: `reference` over sampled rows of `inputs` must equal the same rows of `outputs`
/// (buffer and bytes per row).
pub fn verifier(
    inputs: Vec<Col>,
    length: u64,
    outputs: Vec<(wgpu::Buffer, u64)>,
    reference: Reference,
) -> Verify {
    verifier_within(inputs, length, outputs, reference, Close::Exact)
}

/// How sampled outputs must agree with the CPU reference.
#[derive(Clone, Copy)]
pub enum Close {
    /// Byte for byte.
    Exact,
    /// float32 words within this relative tolerance (at least 1 absolute scale), NaN equal to
    /// NaN.
    Relative(f32),
    /// float32 words whose arc tangents differ by at most this (for `tan`, whose error near a
    /// pole WGSL bounds through `sin / cos`, not relatively).
    Tangent(f32),
}

/// The first byte at which `found` and `want` disagree under `close`.
fn agree(found: &[u8], want: &[u8], close: Close) -> Option<usize> {
    let f = |c: &[u8]| f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    let ok = |g: f32, c: f32| {
        g == c
            || (g.is_nan() && c.is_nan())
            || match close {
                Close::Exact => false,
                Close::Relative(t) => (g - c).abs() <= t * c.abs().max(1.0),
                Close::Tangent(t) => (g.atan() - c.atan()).abs() <= t,
            }
    };
    match close {
        Close::Exact => found.iter().zip(want).position(|(a, b)| a != b),
        _ => found
            .chunks_exact(4)
            .zip(want.chunks_exact(4))
            .position(|(g, c)| !ok(f(g), f(c)))
            .map(|w| w * 4),
    }
}

/// [`verifier`] comparing outputs as `close` says ([`agree`]).
fn verifier_within(
    inputs: Vec<Col>,
    length: u64,
    outputs: Vec<(wgpu::Buffer, u64)>,
    reference: Reference,
    close: Close,
) -> Verify {
    Box::new(move |gpu: &Gpu| {
        // The first, middle and last rows (the middle crosses the first split of an operation
        // over twice the largest binding).
        let k = length.min(4096);
        let mid = (length / 2).saturating_sub(k / 2);
        for rows in [0..k, mid..mid + k, length - k..length] {
            let samples = inputs
                .iter()
                .map(|c| c.sample(gpu, &rows))
                .collect::<Result<Vec<_>, _>>()?;
            let count = rows.end - rows.start;
            let hosts: Vec<HostInput<'_>> = inputs
                .iter()
                .zip(&samples)
                .map(|(c, bytes)| HostInput::new(bytes, c.format, count).with_byte_stride(c.stride))
                .collect();
            let expected = reference(&hosts).map_err(|e| e.to_string())?;
            for (o, ((buffer, row_bytes), want)) in outputs.iter().zip(&expected).enumerate() {
                let found = read_range(gpu, buffer, rows.start * row_bytes, count * row_bytes)?;
                if let Some(at) = agree(&found, want, close) {
                    return Err(format!(
                        "output {o}, rows {rows:?}: first difference at byte {at} (row {})",
                        rows.start + at as u64 / row_bytes
                    ));
                }
                if found.len() != want.len() {
                    return Err(format!(
                        "output {o}: {} bytes, expected {}",
                        found.len(),
                        want.len()
                    ));
                }
            }
        }
        Ok(())
    })
}

pub fn alloc(gpu: &Gpu, size: u64, seed: u32, fill: Option<Fill>) -> Result<wgpu::Buffer, String> {
    let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("gpubench"),
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

/// The case `name` running `plan` each iteration, checked by `verify`.
pub fn plan_case<T: 'static>(name: String, plan: OpPlan<T>, verify: Option<Verify>) -> Case {
    let (x, y) = plan.workgroups();
    let detail = format!(
        "[{} rows/invocation, {}x{} workgroups, {} dispatch{}]",
        plan.rows_per_invocation(),
        x,
        y,
        plan.dispatches(),
        if plan.dispatches() == 1 { "" } else { "es" }
    );
    Case {
        name,
        bytes_moved: plan.bytes_moved(),
        rows: None,
        wgsl: plan.wgsl().map(str::to_owned),
        detail,
        verify,
        work: Work::Pass(Box::new(move |pass| plan.encode(pass))),
    }
}

/// A tuning: workgroup size, rows per invocation (`None`: the operation's choice), and whether
/// outputs and sources go through workgroup memory.
type Tuning = (u32, Option<u32>, bool, bool);

/// Tuning variants of a case: the default first.
fn variants(all: bool, extra: &[Tuning]) -> Vec<(String, OpsConfig)> {
    let mut v = vec![(String::new(), OpsConfig::default())];
    if all {
        for &(wg, rows, outputs, sources) in extra {
            let mut label = format!(" wg{wg}");
            if let Some(g) = rows {
                label += &format!(" g{g}");
            }
            label += match (outputs, sources) {
                (false, false) => " direct",
                (true, false) => "",
                (false, true) => " staged-in",
                (true, true) => " staged-in-out",
            };
            v.push((
                label,
                OpsConfig {
                    workgroup_size: wg,
                    rows_per_thread: rows,
                    stage_outputs: outputs,
                    stage_sources: sources,
                    ..OpsConfig::default()
                },
            ));
        }
    }
    v
}

fn add_cases(
    gpu: &Gpu,
    name: &str,
    a: Col,
    b: Col,
    length: u64,
    tuning: Vec<(String, OpsConfig)>,
) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for (label, cfg) in tuning {
        let plan = ops::plan_arithmetic(
            gpu,
            &cfg,
            ArithmeticOp::Add,
            &[a.input(length)?.into(), b.input(length)?.into()],
        )
        .map_err(|e| e.to_string())?;
        let out = plan.output();
        let verify = verifier(
            vec![a.clone(), b.clone()],
            length,
            vec![(out.buffer().clone(), out.byte_stride())],
            Box::new(|h| {
                let operands: Vec<HostOperand<'_>> = h.iter().map(|i| (*i).into()).collect();
                Ok(vec![
                    cpu::arithmetic(ArithmeticOp::Add, &operands)?
                        .bytes()
                        .to_vec(),
                ])
            }),
        );
        cases.push(plan_case(format!("{name}{label}"), plan, Some(verify)));
    }
    Ok(cases)
}

/// The vertex-like row of the interleave and deinterleave cases: 32 packed bytes.
pub fn vertex_format() -> GpuDataStructFormat {
    GpuDataStructFormat::parse(
        StructLayout::Packed,
        [
            ("position", "float32x3"),
            ("color", "unorm8x4"),
            ("uv", "float32x2"),
            ("id", "uint32"),
            ("weight", "float32"),
        ],
    )
    .unwrap_or_else(|e| unreachable!("a valid format: {e}"))
}

/// Builds the cases of group `name` over `size` bytes.
pub fn build(gpu: &Gpu, name: &str, size: u64, all: bool) -> Result<Vec<Case>, String> {
    let device = gpu.device();
    let mut cases = Vec::new();
    match name {
        "copy_vec4_256" | "copy_u32_64" => {
            let src = alloc(gpu, size, 1, Some(Fill::Bits))?;
            let dst = alloc(gpu, size, 0, None)?;
            let shapes: Vec<(&str, u32)> = if name == "copy_vec4_256" {
                let mut v = vec![("vec4<u32>", 256)];
                if all {
                    v.extend([
                        ("vec4<u32>", 64),
                        ("vec4<u32>", 128),
                        ("vec4<u32>", 512),
                        ("vec2<u32>", 256),
                    ]);
                }
                v
            } else {
                let mut v = vec![("u32", 64)];
                if all {
                    v.push(("u32", 256));
                }
                v
            };
            for (element, wg) in shapes {
                let kernel = kernels::copy(device, &src, &dst, size, element, wg)?;
                let short = match element {
                    "u32" => "u32",
                    "vec2<u32>" => "vec2",
                    _ => "vec4",
                };
                let format = VertexFormat::Uint32x4;
                let rows = size / 16;
                cases.push(Case {
                    name: format!("copy_{short}_{wg}"),
                    bytes_moved: 2 * size,
                    work: Work::Pass(Box::new(move |pass| kernel.encode(pass))),
                    detail: format!("[{element}, workgroup {wg}]"),
                    verify: Some(verifier(
                        vec![Col::packed(&src, format)],
                        rows,
                        vec![(dst.clone(), 16)],
                        Box::new(|h| {
                            Ok(cpu::deinterleave_views(h)?
                                .into_iter()
                                .map(|c| c.bytes().to_vec())
                                .collect())
                        }),
                    )),
                    rows: None,
                    wgsl: None,
                });
            }
        }
        "copy_buffer_to_buffer" => {
            let src = alloc(gpu, size, 2, Some(Fill::Bits))?;
            let dst = alloc(gpu, size, 0, None)?;
            let rows = size / 16;
            let verify = verifier(
                vec![Col::packed(&src, VertexFormat::Uint32x4)],
                rows,
                vec![(dst.clone(), 16)],
                Box::new(|h| {
                    Ok(cpu::deinterleave_views(h)?
                        .into_iter()
                        .map(|c| c.bytes().to_vec())
                        .collect())
                }),
            );
            cases.push(Case {
                name: name.to_owned(),
                bytes_moved: 2 * size,
                work: Work::Copy { src, dst, size },
                detail: String::new(),
                verify: Some(verify),
                rows: None,
                wgsl: None,
            });
        }
        "add_f32" => {
            let n = size / 4;
            let a = alloc(gpu, size, 3, Some(Fill::UnitF32))?;
            let b = alloc(gpu, size, 4, Some(Fill::UnitF32))?;
            cases.extend(add_cases(
                gpu,
                name,
                Col::packed(&a, VertexFormat::Float32),
                Col::packed(&b, VertexFormat::Float32),
                n,
                variants(
                    all,
                    &[
                        (256, Some(8), true, false),
                        (128, None, true, false),
                        (512, None, true, false),
                    ],
                ),
            )?);
        }
        "add_u8" => {
            let n = size;
            let a = alloc(gpu, size, 5, Some(Fill::Bits))?;
            let b = alloc(gpu, size, 6, Some(Fill::Bits))?;
            cases.extend(add_cases(
                gpu,
                name,
                Col::packed(&a, VertexFormat::Uint8),
                Col::packed(&b, VertexFormat::Uint8),
                n,
                variants(all, &[(128, None, true, false)]),
            )?);
        }
        "add_f16x4" => {
            // Half-size inputs: the float32x4 output is `size` bytes (storage bindings of the
            // H200's Vulkan driver stop just short of 2 GiB).
            let n = size / 16;
            let a = alloc(gpu, size / 2, 7, Some(Fill::F16))?;
            let b = alloc(gpu, size / 2, 8, Some(Fill::F16))?;
            cases.extend(add_cases(
                gpu,
                name,
                Col::packed(&a, VertexFormat::Float16x4),
                Col::packed(&b, VertexFormat::Float16x4),
                n,
                variants(
                    all,
                    &[(256, Some(2), true, false), (256, Some(2), false, false)],
                ),
            )?);
        }
        "add_strided_f32x4" => {
            // Two float32x4 children of 32-byte interleaved rows.
            let n = size / 32;
            let rows = alloc(gpu, size, 9, Some(Fill::UnitF32))?;
            let a = Col {
                buffer: rows.clone(),
                format: VertexFormat::Float32x4,
                offset: 0,
                stride: 32,
            };
            let b = Col {
                offset: 16,
                ..a.clone()
            };
            cases.extend(add_cases(
                gpu,
                name,
                a,
                b,
                n,
                variants(all, &[(256, None, true, true), (256, Some(2), true, false)]),
            )?);
        }
        "interleave" => {
            let format = vertex_format();
            let n = size / format.byte_stride();
            let columns: Vec<Col> = format
                .fields()
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let fill = if f.format() == VertexFormat::Unorm8x4 {
                        Fill::Bits
                    } else {
                        Fill::UnitF32
                    };
                    alloc(gpu, n * f.byte_length(), 10 + i as u32, Some(fill))
                        .map(|b| Col::packed(&b, f.format()))
                })
                .collect::<Result<_, _>>()?;
            for (label, cfg) in variants(
                all,
                &[
                    (256, None, false, false),
                    (256, Some(4), true, false),
                    (256, None, true, true),
                    (128, None, true, false),
                ],
            ) {
                let inputs: Vec<GpuDataView<'_>> = columns
                    .iter()
                    .map(|c| c.input(n))
                    .collect::<Result<_, _>>()?;
                let plan =
                    ops::plan_interleave(gpu, &cfg, &inputs, &format).map_err(|e| e.to_string())?;
                let out = plan.output();
                let fmt = format.clone();
                let verify = verifier(
                    columns.clone(),
                    n,
                    vec![(out.buffer().clone(), out.byte_stride())],
                    Box::new(move |h| Ok(vec![cpu::interleave(h, &fmt)?.bytes().to_vec()])),
                );
                cases.push(plan_case(format!("{name}{label}"), plan, Some(verify)));
            }
        }
        "deinterleave" => {
            let format = vertex_format();
            let n = size / format.byte_stride();
            let rows = alloc(gpu, n * format.byte_stride(), 20, Some(Fill::UnitF32))?;
            for (label, cfg) in variants(
                all,
                &[
                    (256, None, false, false),
                    (256, None, true, true),
                    (512, None, true, false),
                    (128, None, true, false),
                ],
            ) {
                let data = GpuData::new(
                    BufferHandle::Shared(rows.clone()),
                    GpuDataDescriptor::new(format.clone(), n),
                )
                .map_err(|e| e.to_string())?;
                let plan =
                    ops::plan_deinterleave(gpu, &cfg, &data, None).map_err(|e| e.to_string())?;
                let outputs: Vec<(wgpu::Buffer, u64)> = plan
                    .output()
                    .iter()
                    .map(|c| (c.buffer().clone(), c.byte_stride()))
                    .collect();
                let views: Vec<Col> = format
                    .fields()
                    .iter()
                    .map(|f| Col {
                        buffer: rows.clone(),
                        format: f.format(),
                        offset: f.byte_offset(),
                        stride: format.byte_stride(),
                    })
                    .collect();
                let verify = verifier(
                    views,
                    n,
                    outputs,
                    Box::new(|h| {
                        Ok(cpu::deinterleave_views(h)?
                            .into_iter()
                            .map(|c| c.bytes().to_vec())
                            .collect())
                    }),
                );
                cases.push(plan_case(format!("{name}{label}"), plan, Some(verify)));
            }
        }
        "fround" | "fround_all_classes" => {
            let n = size / 8;
            let fill = if name == "fround" {
                Fill::F64
            } else {
                Fill::F64Wide
            };
            let doubles = alloc(gpu, size, 30, Some(fill))?;
            let col = Col::packed(&doubles, VertexFormat::Uint32x2);
            let tunings: &[Tuning] = if name == "fround" {
                &[(128, None, true, false)]
            } else {
                &[]
            };
            for (label, cfg) in variants(all, tunings) {
                let plan = ops::plan_fround(gpu, &cfg, col.input(n)?).map_err(|e| e.to_string())?;
                let out = plan.output();
                let verify = verifier(
                    vec![col.clone()],
                    n,
                    vec![(out.buffer().clone(), out.byte_stride())],
                    Box::new(|h| Ok(vec![cpu::fround(h[0])?.bytes().to_vec()])),
                );
                cases.push(plan_case(format!("{name}{label}"), plan, Some(verify)));
            }
        }
        "add_f32_over_binding" => {
            // Inputs and output twice the device's largest storage binding (whatever `size`):
            // the operation splits into runs of rows, one dispatch each.
            let limits = gpu.limits();
            let bytes = limits
                .max_storage_buffer_binding_size
                .saturating_mul(2)
                .min(limits.max_buffer_size)
                / 16
                * 16;
            let n = bytes / 4;
            let a = alloc(gpu, bytes, 40, Some(Fill::UnitF32))?;
            let b = alloc(gpu, bytes, 41, Some(Fill::UnitF32))?;
            cases.extend(add_cases(
                gpu,
                name,
                Col::packed(&a, VertexFormat::Float32),
                Col::packed(&b, VertexFormat::Float32),
                n,
                variants(false, &[]),
            )?);
        }
        other if crate::relayout::NAMES.contains(&other) => {
            cases.extend(crate::relayout::build(gpu, other, size, all)?);
        }
        other if crate::sort::NAMES.contains(&other) => {
            cases.extend(crate::sort::build(gpu, other, size, all)?);
        }
        other if crate::fused::NAMES.contains(&other) => {
            cases.extend(crate::fused::build(gpu, other, size)?);
        }
        other if crate::aggregate::NAMES.contains(&other) => {
            cases.extend(crate::aggregate::build(gpu, other, size, all)?);
        }
        other if crate::select::NAMES.contains(&other) => {
            cases.extend(crate::select::build(gpu, other, size, all)?);
        }
        other if decode::NAMES.contains(&other) => cases.extend(decode::build(gpu)?),
        other => return elementwise::build(gpu, other, size),
    }
    Ok(cases)
}
