//! Fused expressions (issue 28 item 7): `a * b + c` over three float32 columns of `size` bytes
//! each, as one kernel (`fused_fma`, [`ops::plan_evaluate`]) and as the chain of two one-step
//! operations (`unfused_fma`: `multiply` writing a column that `add` reads), beside the anchor
//! `copy_3r1w`, a plain kernel reading three buffers and writing one (`d = a ^ b ^ c` in
//! `vec4<u32>`s). All three count the same bytes (three columns read, one written), so their
//! bandwidths compare as their times do. Each is verified against the CPU reference on sampled
//! rows (the fused and the unfused results are the same bits).

use gpudata::ops::cpu::{self, HostInput};
use gpudata::ops::{self, ArithmeticOp, Expr, OpsConfig, col};
use gpudata::{Gpu, VertexFormat};

use crate::cases::{Case, Col, alloc, plan_case, verifier};
use crate::kernels::{self, Fill};
use crate::timing::Work;

/// Case groups of this file, in run order.
pub const NAMES: [&str; 3] = ["copy_3r1w", "fused_fma", "unfused_fma"];

fn fma() -> Expr {
    col(0) * col(1) + col(2)
}

/// The three inputs: float32 values in `[1, 2)`.
fn inputs(gpu: &Gpu, size: u64) -> Result<Vec<Col>, String> {
    (0..3)
        .map(|i| alloc(gpu, size, 90 + i, Some(Fill::UnitF32)))
        .map(|b| b.map(|b| Col::packed(&b, VertexFormat::Float32)))
        .collect()
}

/// The reference of every case over sampled rows: `a * b + c`.
fn reference() -> crate::cases::Reference {
    Box::new(|h: &[HostInput<'_>]| Ok(vec![cpu::evaluate(&fma(), h, None)?.bytes().to_vec()]))
}

/// Builds the cases of group `name` over columns of `size` bytes.
pub fn build(gpu: &Gpu, name: &str, size: u64) -> Result<Vec<Case>, String> {
    let n = size / 4;
    let fmt = |e: gpudata::OpError| e.to_string();
    let config = OpsConfig::default();
    let cols = inputs(gpu, size)?;
    let views = cols
        .iter()
        .map(|c| c.input(n))
        .collect::<Result<Vec<_>, _>>()?;
    let case = match name {
        "fused_fma" => {
            let plan = ops::plan_evaluate(gpu, &config, &fma(), &views, None).map_err(fmt)?;
            let out = plan.output();
            let verify = verifier(
                cols.clone(),
                n,
                vec![(out.buffer().clone(), 4)],
                reference(),
            );
            plan_case(name.to_owned(), plan, Some(verify))
        }
        "unfused_fma" => {
            let product = ops::plan_arithmetic(
                gpu,
                &config,
                ArithmeticOp::Multiply,
                &[views[0].into(), views[1].into()],
            )
            .map_err(fmt)?;
            let product_view = product
                .output()
                .as_view()
                .ok_or("the product is one column")?;
            let sum = ops::plan_arithmetic(
                gpu,
                &config,
                ArithmeticOp::Add,
                &[product_view.into(), views[2].into()],
            )
            .map_err(fmt)?;
            let out = sum.output();
            let verify = verifier(
                cols.clone(),
                n,
                vec![(out.buffer().clone(), 4)],
                reference(),
            );
            let detail = format!(
                "[2 kernels, {} + {} dispatches]",
                product.dispatches(),
                sum.dispatches()
            );
            Case::new(
                name.to_owned(),
                // The expression's bytes, as the fused case counts them (the chain moves
                // 1.5 times as many: the product is written and read again).
                4 * size,
                Work::Pass(Box::new(move |pass| {
                    product.encode(pass);
                    sum.encode(pass);
                })),
                detail,
                Some(verify),
            )
        }
        "copy_3r1w" => {
            let device = gpu.device();
            let dst = alloc(gpu, size, 0, None)?;
            let vectors = size / 16;
            let wgsl = "@group(0) @binding(0) var<storage, read> a: array<vec4<u32>>;\n\
                 @group(0) @binding(1) var<storage, read> b: array<vec4<u32>>;\n\
                 @group(0) @binding(2) var<storage, read> c: array<vec4<u32>>;\n\
                 @group(0) @binding(3) var<storage, read_write> d: array<vec4<u32>>;\n\
                 @group(0) @binding(4) var<uniform> p: vec4<u32>;\n\
                 @compute @workgroup_size(256) fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n\
                     let i = (wid.y * nwg.x + wid.x) * 256u + lid;\n\
                     if (i >= p.x) { return; }\n\
                     d[i] = a[i] ^ b[i] ^ c[i];\n\
                 }\n";
            let count = u32::try_from(vectors).map_err(|_| "too many vectors".to_owned())?;
            let buffers = [&cols[0].buffer, &cols[1].buffer, &cols[2].buffer, &dst];
            let kernel = kernels::custom(device, wgsl, &buffers, [count, 0, 0, 0], vectors)?;
            let words = cols
                .iter()
                .map(|c| Col::packed(&c.buffer, VertexFormat::Uint32))
                .collect();
            let verify = verifier(
                words,
                n,
                vec![(dst.clone(), 4)],
                Box::new(|h: &[HostInput<'_>]| {
                    let columns = cpu::deinterleave_views(h)?;
                    let mut out = columns[0].bytes().to_vec();
                    for c in &columns[1..] {
                        out.iter_mut().zip(c.bytes()).for_each(|(o, x)| *o ^= x);
                    }
                    Ok(vec![out])
                }),
            );
            Case::new(
                name.to_owned(),
                4 * size,
                Work::Pass(Box::new(move |pass| kernel.encode(pass))),
                "[vec4<u32>, workgroup 256]".to_owned(),
                Some(verify),
            )
        }
        other => return Err(format!("unknown case `{other}`")),
    };
    Ok(vec![case])
}
