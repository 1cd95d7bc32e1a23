//! The element-wise operations of issue 16: math functions, `dot`, `length`, `equalAll`,
//! `select` and `swizzle` over float32 columns of `size` bytes (float32x4 for the lane
//! operations), each checked against the CPU reference: bit for bit where WGSL defines the
//! result exactly (`abs`, `dot`, `equalAll`, `select`, `swizzle`), else within 2⁻¹⁰ relative
//! (`tan`: 2⁻¹⁰ in the arc tangent, since its inputs in [1, 2) pass the pole at π/2), far wider
//! than WGSL's bounds, to catch a wrong kernel, not to measure accuracy.

use gpudata::ops::cpu::{self, HostOperand};
use gpudata::ops::{self, LaneOp, MathOp, Operand, OpsConfig};
use gpudata::{Gpu, VertexFormat};

use super::{Case, Close, Col, Fill, alloc, plan_case, verifier_within};

fn math_op(name: &str) -> Option<MathOp> {
    Some(match name {
        "sqrt_f32" => MathOp::Sqrt,
        "abs_f32" => MathOp::Abs,
        "sin_f32" => MathOp::Sin,
        "cos_f32" => MathOp::Cos,
        "tan_f32" => MathOp::Tan,
        "exp_f32" => MathOp::Exp,
        "log_f32" => MathOp::Log,
        "pow_f32" => MathOp::Pow,
        _ => return None,
    })
}

fn lane_op(name: &str) -> Option<(LaneOp, usize, VertexFormat)> {
    Some(match name {
        "dot_f32x4" => (LaneOp::Dot, 2, VertexFormat::Float32x4),
        "length_f32x4" => (LaneOp::Length, 1, VertexFormat::Float32x4),
        "equal_all_f32x4" => (LaneOp::EqualAll, 2, VertexFormat::Float32x4),
        "select_f32" => (LaneOp::Select, 3, VertexFormat::Float32),
        "swizzle_f32x4" => (
            LaneOp::Swizzle(vec![3, 2, 1, 0]),
            1,
            VertexFormat::Float32x4,
        ),
        _ => return None,
    })
}

/// The cases of group `name` over inputs of `size` bytes each.
pub fn build(gpu: &Gpu, name: &str, size: u64) -> Result<Vec<Case>, String> {
    let (inputs, format, close) = if let Some(op) = math_op(name) {
        let close = match op {
            MathOp::Abs => Close::Exact,
            MathOp::Tan => Close::Tangent(2f32.powi(-10)),
            _ => Close::Relative(2f32.powi(-10)),
        };
        (op.arity(), VertexFormat::Float32, close)
    } else if let Some((op, n, format)) = lane_op(name) {
        // length takes WGSL's sqrt, which need not round correctly.
        let close = if op == LaneOp::Length {
            Close::Relative(2f32.powi(-20))
        } else {
            Close::Exact
        };
        (n, format, close)
    } else {
        return Err(format!("unknown case `{name}`"));
    };
    let n = size / format.byte_length();
    let cols: Vec<Col> = (0..inputs)
        .map(|i| {
            // select's condition: random bits (about half the rows zero in no lane, NaNs and
            // all); the values in [1, 2).
            let fill = if name == "select_f32" && i == 0 {
                Fill::Bits
            } else {
                Fill::UnitF32
            };
            alloc(gpu, size, 50 + i as u32, Some(fill)).map(|b| Col::packed(&b, format))
        })
        .collect::<Result<_, _>>()?;
    let views: Vec<Operand<'_>> = cols
        .iter()
        .map(|c| c.input(n).map(Operand::from))
        .collect::<Result<_, _>>()?;
    let config = OpsConfig::default();
    let plan = match (math_op(name), lane_op(name)) {
        (Some(op), _) => ops::plan_math(gpu, &config, op, &views),
        (_, Some((op, _, _))) => ops::plan_lanes(gpu, &config, &op, &views),
        _ => return Err(format!("unknown case `{name}`")),
    }
    .map_err(|e| e.to_string())?;
    let out = plan.output();
    let owned = name.to_owned();
    let verify = verifier_within(
        cols,
        n,
        vec![(out.buffer().clone(), out.byte_stride())],
        Box::new(move |h| {
            let operands: Vec<HostOperand<'_>> = h.iter().map(|i| (*i).into()).collect();
            let bytes = match (math_op(&owned), lane_op(&owned)) {
                (Some(op), _) => cpu::math(op, &operands)?.bytes().to_vec(),
                (_, Some((op, _, _))) => cpu::lanes(&op, &operands)?.bytes().to_vec(),
                _ => unreachable!("checked above"),
            };
            Ok(vec![bytes])
        }),
        close,
    );
    Ok(vec![plan_case(name.to_owned(), plan, Some(verify))])
}
