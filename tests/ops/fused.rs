//! Fused expressions (issue 28 item 7): random expression trees over random columns (packed,
//! offset, strided; integer extremes) evaluated in one kernel equal the CPU reference evaluating
//! the same tree, and the chain of one-step operations; a shape compiles once; integers stay
//! exact past 2^24; NaN and ±0; errors name the node; chunked columns.

use crate::elementwise::{Col, Values};
use crate::fixtures::*;
use crate::support::{USAGE, gpu};
use gpudata::ops::cpu::{self, HostInput};
use gpudata::ops::{
    self, ArithmeticOp, Comparison, Expr, LaneOp, Literal, MathOp, OpError, Operand, OperandOf,
    col, lit, piecewise,
};
use gpudata::table::{ChunkOptions, GpuVector};
use gpudata::{Gpu, GpuConstant, GpuData, GpuDataView, VertexFormat};

/// A tree the tests build, run fused and one step at a time.
#[derive(Clone, Debug)]
enum T {
    Col(usize),
    Lit(f64),
    Const(f32),
    Bin(ArithmeticOp, Box<T>, Box<T>),
    Neg(Box<T>),
    Math(MathOp, Box<T>),
    Cmp(Comparison, Box<T>, Box<T>),
    Sel(Box<T>, Box<T>, Box<T>),
}

impl T {
    fn expr(&self) -> Expr {
        match self {
            T::Col(i) => col(*i),
            T::Lit(v) => lit(*v),
            T::Const(v) => Expr::from(*v),
            T::Bin(op, a, b) => Expr::arithmetic(*op, a.expr(), b.expr()),
            T::Neg(a) => -a.expr(),
            T::Math(op, a) => Expr::math(*op, vec![a.expr()]),
            T::Cmp(cmp, a, b) => Expr::compare(*cmp, a.expr(), b.expr()),
            T::Sel(c, a, b) => Expr::select(c.expr(), a.expr(), b.expr()),
        }
    }
}

const OPS: [ArithmeticOp; 5] = [
    ArithmeticOp::Add,
    ArithmeticOp::Subtract,
    ArithmeticOp::Multiply,
    ArithmeticOp::Divide,
    ArithmeticOp::Remainder,
];
const LITERALS: [f64; 7] = [2.0, -3.0, 7.0, 0.5, -2.5, 1e10, 0.0];

/// A random tree of at most `depth` levels over `columns` columns; `math`: the math functions
/// whose accuracy WGSL bounds (only `abs` otherwise); `compare`: comparisons (which no one-step
/// operation makes as a column).
fn tree(rng: &mut Rng, depth: u32, columns: usize, math: bool, compare: bool) -> T {
    if depth == 0 || rng.below(4) == 0 {
        return match rng.below(6) {
            0 => T::Lit(LITERALS[rng.below(LITERALS.len() as u64) as usize]),
            1 => T::Const([1.5f32, -4.0, 0.25][rng.below(3) as usize]),
            _ => T::Col(rng.below(columns as u64) as usize),
        };
    }
    let sub = |rng: &mut Rng| Box::new(tree(rng, depth - 1, columns, math, compare));
    match rng.below(if compare { 10 } else { 8 }) {
        0..=3 => T::Bin(OPS[rng.below(5) as usize], sub(rng), sub(rng)),
        4 => T::Neg(sub(rng)),
        5 if math => {
            let fns = [
                MathOp::Sqrt,
                MathOp::Abs,
                MathOp::Sin,
                MathOp::Exp,
                MathOp::Log,
            ];
            T::Math(fns[rng.below(5) as usize], sub(rng))
        }
        5 => T::Math(MathOp::Abs, sub(rng)),
        6 | 7 => T::Sel(sub(rng), sub(rng), sub(rng)),
        _ => T::Cmp(Comparison::ALL[rng.below(6) as usize], sub(rng), sub(rng)),
    }
}

/// Column formats of the random cases.
const FORMATS: [VertexFormat; 12] = [
    VertexFormat::Float32,
    VertexFormat::Float32x2,
    VertexFormat::Float32,
    VertexFormat::Uint8,
    VertexFormat::Uint16x2,
    VertexFormat::Sint16,
    VertexFormat::Sint32,
    VertexFormat::Uint32,
    VertexFormat::Sint8x2,
    VertexFormat::Unorm8x2,
    VertexFormat::Float16x2,
    VertexFormat::Sint32x2,
];

fn random_columns(gpu: &Gpu, rng: &mut Rng, n: usize) -> Vec<Col> {
    let length = 1 + rng.below(700);
    (0..n)
        .map(|_| {
            let format = FORMATS[rng.below(FORMATS.len() as u64) as usize];
            // Moderate floats (no NaN or subnormals, whose bits a GPU need not keep); integers
            // over their whole range, extremes mixed in.
            let values = if format.is_normalized()
                || matches!(
                    format.data_type(),
                    gpudata::format::DataType::Float32 | gpudata::format::DataType::Float16
                ) {
                Values::Range(-100.0, 100.0)
            } else {
                Values::Special
            };
            Col::new(gpu, rng, format, length, values)
        })
        .collect()
}

/// Whether `gpu` bytes equal `cpu` bytes of `format`, any NaN equal to any NaN in float32.
fn same(gpu: &[u8], cpu: &[u8], format: VertexFormat) -> bool {
    if format.data_type() != gpudata::format::DataType::Float32 {
        return gpu == cpu;
    }
    gpu.len() == cpu.len()
        && gpu.chunks_exact(4).zip(cpu.chunks_exact(4)).all(|(g, c)| {
            let (g, c) = (
                f32::from_le_bytes(g.try_into().unwrap()),
                f32::from_le_bytes(c.try_into().unwrap()),
            );
            g.to_bits() == c.to_bits() || (g.is_nan() && c.is_nan())
        })
}

#[test]
fn random_trees_equal_the_cpu_reference() {
    let gpu = gpu();
    let mut rng = Rng::new(287);
    let mut ran = 0;
    for case in 0..60 {
        let columns = random_columns(&gpu, &mut rng, 3);
        let t = tree(&mut rng, 3, 3, false, true);
        let expr = t.expr();
        let views: Vec<GpuDataView<'_>> = columns.iter().map(Col::gpu).collect();
        let hosts: Vec<HostInput<'_>> = columns.iter().map(|c| c.host(false)).collect();
        let want = cpu::evaluate(&expr, &hosts, None);
        let got = ops::evaluate(&gpu, &expr, &views, None);
        match (got, want) {
            (Ok(got), Ok(want)) => {
                ran += 1;
                let format = format_of(&got);
                assert_eq!(format, want.format(), "case {case}: {expr}");
                let bytes = got.read_bytes(&gpu).unwrap();
                assert!(
                    same(&bytes, want.bytes(), format),
                    "case {case}: {expr} over {:?}",
                    hosts.iter().map(HostInput::format).collect::<Vec<_>>()
                );
            }
            (Err(got), Err(want)) => assert_eq!(got, want, "case {case}: {expr}"),
            (got, want) => panic!("case {case}: {expr}: gpu {got:?}, cpu {want:?}"),
        }
    }
    assert!(ran >= 30, "only {ran} of 60 random trees could run");
}

/// The one-step form of a tree's value.
enum Step {
    Col(usize),
    Data(GpuData),
    Other(OperandOf<()>),
}

fn operand<'a>(step: &'a Step, views: &[GpuDataView<'a>]) -> Operand<'a> {
    match step {
        Step::Col(i) => Operand::Data(views[*i]),
        Step::Data(d) => Operand::Data(d.as_view().unwrap()),
        Step::Other(o) => o.map_data(|()| unreachable!("not data")),
    }
}

/// `t` one operation at a time, each a one-step operation writing its own output.
fn unfused(gpu: &Gpu, t: &T, views: &[GpuDataView<'_>]) -> Result<Step, OpError> {
    let run = |args: Vec<Step>, f: &dyn Fn(&[Operand<'_>]) -> Result<GpuData, OpError>| {
        let operands: Vec<Operand<'_>> = args.iter().map(|s| operand(s, views)).collect();
        f(&operands).map(Step::Data)
    };
    Ok(match t {
        T::Col(i) => Step::Col(*i),
        T::Lit(v) => Step::Other(Literal::scalar(*v).into()),
        T::Const(v) => Step::Other(GpuConstant::from_value(*v).into()),
        T::Bin(op, a, b) => run(
            vec![unfused(gpu, a, views)?, unfused(gpu, b, views)?],
            &|o| ops::arithmetic(gpu, *op, o),
        )?,
        T::Neg(a) => run(
            vec![
                unfused(gpu, a, views)?,
                Step::Other(Literal::scalar(-1.0).into()),
            ],
            &|o| ops::arithmetic(gpu, ArithmeticOp::Multiply, o),
        )?,
        T::Math(op, a) => run(vec![unfused(gpu, a, views)?], &|o| ops::math(gpu, *op, o))?,
        T::Sel(c, a, b) => run(
            vec![
                unfused(gpu, c, views)?,
                unfused(gpu, a, views)?,
                unfused(gpu, b, views)?,
            ],
            &|o| ops::lanes(gpu, &LaneOp::Select, o),
        )?,
        T::Cmp(..) => unreachable!("no one-step comparison column"),
    })
}

#[test]
fn fused_trees_equal_the_chain_of_one_step_operations() {
    let gpu = gpu();
    let mut rng = Rng::new(2877);
    let mut ran = 0;
    for case in 0..30 {
        let columns = random_columns(&gpu, &mut rng, 3);
        let views: Vec<GpuDataView<'_>> = columns.iter().map(Col::gpu).collect();
        let t = tree(&mut rng, 3, 3, true, false);
        let expr = t.expr();
        let (Ok(fused), Ok(Step::Data(chain))) = (
            ops::evaluate(&gpu, &expr, &views, None),
            unfused(&gpu, &t, &views),
        ) else {
            continue;
        };
        ran += 1;
        let format = format_of(&fused);
        assert_eq!(format, format_of(&chain), "case {case}: {expr}");
        assert!(
            same(
                &fused.read_bytes(&gpu).unwrap(),
                &chain.read_bytes(&gpu).unwrap(),
                format
            ),
            "case {case}: {expr}"
        );
    }
    assert!(ran >= 12, "only {ran} of 30 chains could run");
}

#[test]
fn a_shape_compiles_once_whatever_the_data() {
    let gpu = fresh_gpu();
    let n = 1000u64;
    let upload_f32 = |v: f32| upload(&gpu, &f32_bytes(&vec![v; n as usize]));
    let (a, b, c) = (upload_f32(2.0), upload_f32(3.0), upload_f32(1.0));
    let (d, e, f) = (upload_f32(5.0), upload_f32(-1.0), upload_f32(0.5));
    let fma = |k: f64| (col(0) * col(1) + col(2)) * lit(k);
    let first = [a, b, c];
    let views1: Vec<GpuDataView<'_>> = first
        .iter()
        .map(|x| view(x, VertexFormat::Float32, n))
        .collect();
    let out = ops::evaluate(&gpu, &fma(2.0), &views1, None).unwrap();
    assert_eq!(f32s(&out.read_bytes(&gpu).unwrap())[0], 14.0);
    let compiled = gpu.compiled_pipelines();
    // Other buffers, other values, another literal of the same kind: no new pipeline.
    let second = [d, e, f];
    let views2: Vec<GpuDataView<'_>> = second
        .iter()
        .map(|x| view(x, VertexFormat::Float32, n))
        .collect();
    let out = ops::evaluate(&gpu, &fma(4.0), &views2, None).unwrap();
    assert_eq!(f32s(&out.read_bytes(&gpu).unwrap())[n as usize - 1], -18.0);
    assert_eq!(
        gpu.compiled_pipelines(),
        compiled,
        "the same shape compiled again"
    );
    // Another tree is another kernel.
    let other = ops::evaluate(&gpu, &(col(0) - col(1) * col(2)), &views2, None).unwrap();
    assert_eq!(f32s(&other.read_bytes(&gpu).unwrap())[0], 5.5);
    assert_eq!(gpu.compiled_pipelines(), compiled + 1);
    // The one kernel reads each column once and writes once: one dispatch.
    let plan =
        ops::plan_evaluate(&gpu, &ops::OpsConfig::default(), &fma(1.0), &views2, None).unwrap();
    assert_eq!(plan.dispatches(), 1);
    assert_eq!(plan.bytes_moved(), 4 * 4 * n);
}

#[test]
fn integers_stay_exact_past_2_24() {
    let gpu = gpu();
    let a: Vec<u32> = vec![4_000_000_001, 16_777_217, 3, u32::MAX, 0x8000_0001];
    let b: Vec<u32> = vec![3, 16_777_219, 0, 2, 7];
    let c: Vec<i32> = vec![-2_000_000_001, 33_554_433, i32::MIN, -1, 5];
    let n = a.len() as u64;
    let (ba, bb, bc) = (
        upload(&gpu, &u32_bytes(&a)),
        upload(&gpu, &u32_bytes(&b)),
        upload(&gpu, bytemuck::cast_slice(&c)),
    );
    let views = [
        view(&ba, VertexFormat::Uint32, n),
        view(&bb, VertexFormat::Uint32, n),
        view(&bc, VertexFormat::Sint32, n),
    ];
    let hosts = [
        HostInput::new(bytemuck::cast_slice(&a), VertexFormat::Uint32, n),
        HostInput::new(bytemuck::cast_slice(&b), VertexFormat::Uint32, n),
        HostInput::new(bytemuck::cast_slice(&c), VertexFormat::Sint32, n),
    ];
    // uint32: wrapping products and sums, truncating quotients, remainders, x / 0 = x % 0 = 0.
    let e = col(0) * col(1) + col(0) / col(1) - col(0) % col(1);
    let got = u32s(
        &ops::evaluate(&gpu, &e, &views[..2], None)
            .unwrap()
            .read_bytes(&gpu)
            .unwrap(),
    );
    let want: Vec<u32> = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| {
            x.wrapping_mul(y)
                .wrapping_add(x.checked_div(y).unwrap_or(0))
                .wrapping_sub(x.checked_rem(y).unwrap_or(0))
        })
        .collect();
    assert_eq!(got, want);
    // sint32 with exact literal steps: (c + 0.5) * 3 - (-c), negation wrapping at i32::MIN.
    let e = (col(2) + lit(0.5)) * lit(3.0) - (-col(2));
    let got = ops::evaluate(&gpu, &e, &views, None)
        .unwrap()
        .read_bytes(&gpu)
        .unwrap();
    assert_eq!(got, cpu::evaluate(&e, &hosts, None).unwrap().bytes());
    let want: Vec<i32> = c
        .iter()
        .map(|&x| {
            // x + 0.5 truncates toward zero: x for x >= 0, x + 1 for x < 0.
            let t = if x < 0 { x.wrapping_add(1) } else { x };
            t.wrapping_mul(3).wrapping_sub(x.wrapping_neg())
        })
        .collect();
    assert_eq!(bytemuck::cast_slice::<u8, i32>(&got), want);
    // A comparison across signedness is exact: 4e9 > -2e9, 2^24 + 1 < 2^25 + 1.
    let e = col(0).greater(col(2));
    let got = u32s(
        &ops::evaluate(&gpu, &e, &views, None)
            .unwrap()
            .read_bytes(&gpu)
            .unwrap(),
    );
    let want: Vec<u32> = a
        .iter()
        .zip(&c)
        .map(|(&x, &y)| u32::from(i64::from(x) > i64::from(y)))
        .collect();
    assert_eq!(got, want);
    // Narrow integers wrap at every node, as the one-step operations store them.
    let bytes = [200u8, 255, 16, 1];
    let small = upload(&gpu, &bytes);
    let v = [view(&small, VertexFormat::Uint8, 4)];
    let e = col(0) * lit(2.0) + col(0);
    let got = ops::evaluate(&gpu, &e, &v, None)
        .unwrap()
        .read_bytes(&gpu)
        .unwrap();
    let want: Vec<u8> = bytes
        .iter()
        .map(|&x| x.wrapping_mul(2).wrapping_add(x))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn nan_and_signed_zeros() {
    let gpu = gpu();
    let a = [0.0f32, -0.0, f32::NAN, 1.0, f32::INFINITY, -2.0];
    let b = [-0.0f32, 0.0, f32::NAN, f32::NAN, f32::INFINITY, 3.0];
    let n = a.len() as u64;
    let (ba, bb) = (upload(&gpu, &f32_bytes(&a)), upload(&gpu, &f32_bytes(&b)));
    let views = [
        view(&ba, VertexFormat::Float32, n),
        view(&bb, VertexFormat::Float32, n),
    ];
    let run = |e: &Expr| {
        ops::evaluate(&gpu, e, &views, None)
            .unwrap()
            .read_bytes(&gpu)
            .unwrap()
    };
    // -0 == +0; NaN equals nothing, itself included; != is its negation.
    assert_eq!(u32s(&run(&col(0).equal(col(1)))), [1, 1, 0, 0, 1, 0]);
    assert_eq!(u32s(&run(&col(0).not_equal(col(1)))), [0, 0, 1, 1, 0, 1]);
    assert_eq!(u32s(&run(&col(0).less(col(1)))), [0, 0, 0, 0, 0, 1]);
    assert_eq!(
        u32s(&run(&col(0).greater_equal(col(1)))),
        [1, 1, 0, 0, 1, 0]
    );
    // Negation keeps signed zeros apart: -(+0) is -0.
    let neg: Vec<u32> = f32s(&run(&-col(0))).iter().map(|v| v.to_bits()).collect();
    assert_eq!(neg[0], 0x8000_0000);
    assert_eq!(neg[1], 0);
    assert!(f32::from_bits(neg[2]).is_nan());
    // select: a NaN condition is not zero, -0 is zero.
    let sel = f32s(&run(&Expr::select(col(1), lit(1.0), lit(2.0))));
    assert_eq!(sel, [2.0, 2.0, 1.0, 1.0, 1.0, 1.0]);
    // The product's -0 survives the sum: (-0 * 1) + -0 is -0.
    let z = f32s(&run(&(col(1) * 1.0f32 + col(1))));
    assert_eq!(z[0].to_bits(), 0x8000_0000);
    let hosts = [
        HostInput::new(bytemuck::cast_slice(&a), VertexFormat::Float32, n),
        HostInput::new(bytemuck::cast_slice(&b), VertexFormat::Float32, n),
    ];
    for e in [
        col(0) % col(1),
        (col(0) - col(1)) / col(1),
        col(0).abs() * -col(1),
    ] {
        let want = cpu::evaluate(&e, &hosts, None).unwrap();
        assert!(same(&run(&e), want.bytes(), VertexFormat::Float32), "{e}");
    }
}

#[test]
fn output_formats_and_errors_name_the_node() {
    let gpu = gpu();
    let a = upload(&gpu, &f32_bytes(&[0.25, 0.5, 2.0, -1.0]));
    let b = upload(&gpu, &f32_bytes(&[1.0; 5]));
    let va = view(&a, VertexFormat::Float32, 4);
    let vb = view(&b, VertexFormat::Float32, 5);
    // Written in another format: unorm8, rounded and clamped as the codec writes it.
    let out = ops::evaluate(&gpu, &(col(0) * 2.0f32), &[va], Some(VertexFormat::Unorm8)).unwrap();
    assert_eq!(format_of(&out), VertexFormat::Unorm8);
    assert_eq!(out.read_bytes(&gpu).unwrap(), [128, 255, 255, 0]);
    // A bare column is copied (or converted).
    let out = ops::evaluate(&gpu, &col(0), &[va], Some(VertexFormat::Float16)).unwrap();
    assert_eq!(out.read_bytes(&gpu).unwrap().len(), 8);
    // Lengths that differ: the node that reads both.
    let e = col(0) * 2.0f32 + col(1);
    let err = ops::evaluate(&gpu, &e, &[va, vb], None).unwrap_err();
    assert_eq!(
        err,
        OpError::Expression {
            node: "((c0 * float32(2)) + c1)".to_owned(),
            source: Box::new(OpError::LengthMismatch {
                op: "add",
                input: 1,
                expected: 4,
                found: 5
            }),
        }
    );
    assert!(
        err.to_string().contains("((c0 * float32(2)) + c1)"),
        "{err}"
    );
    // A column past the list; constants only; a remainder literal integers cannot take.
    let err = ops::evaluate(&gpu, &(col(0) + col(3)), &[va], None).unwrap_err();
    assert!(
        matches!(&err, OpError::Expression { node, .. } if node == "c3"),
        "{err:?}"
    );
    let err = ops::evaluate(&gpu, &(lit(1.0) + lit(2.0)), &[va], None).unwrap_err();
    assert!(
        matches!(&err, OpError::Expression { source, .. } if matches!(**source, OpError::NoGpuInput { .. })),
        "{err:?}"
    );
    let ints = upload(&gpu, &u32_bytes(&[7, 8, 9, 10]));
    let vi = view(&ints, VertexFormat::Uint32, 4);
    let err = ops::evaluate(&gpu, &(col(0) % lit(2.5)), &[vi], None).unwrap_err();
    assert!(
        matches!(&err, OpError::Expression { node, source } if node == "(c0 % 2.5)" && matches!(**source, OpError::InvalidArgument { .. })),
        "{err:?}"
    );
    // An output format of another lane count.
    let err = ops::evaluate(
        &gpu,
        &(col(0) + 1.0f32),
        &[va],
        Some(VertexFormat::Float32x2),
    );
    assert!(
        matches!(err, Err(OpError::InvalidArgument { .. })),
        "{err:?}"
    );
}

#[test]
fn chunked_columns_evaluate_piece_by_piece() {
    let gpu = gpu();
    let mut rng = Rng::new(2878);
    let n = 1000usize;
    let x: Vec<f32> = (0..n).map(|_| rng.f32_in(100.0)).collect();
    let y: Vec<i16> = (0..n).map(|_| rng.next_u32() as i16).collect();
    let rows = |r| ChunkOptions {
        rows_per_chunk: Some(r),
        ..ChunkOptions::default()
    };
    let vx = GpuVector::upload_values(&gpu, "x", &x, USAGE, rows(300)).unwrap();
    let vy = GpuVector::upload_values(&gpu, "y", &y, USAGE, rows(128)).unwrap();
    let e = Expr::select(col(1).less(lit(0.0)), col(0) * col(1), col(0) + lit(1.0)).sqrt();
    let got = piecewise::evaluate(&gpu, &e, &[&vx, &vy], None).unwrap();
    assert!(got.chunks().len() > 1);
    let hosts = [
        HostInput::new(bytemuck::cast_slice(&x), VertexFormat::Float32, n as u64),
        HostInput::new(bytemuck::cast_slice(&y), VertexFormat::Sint16, n as u64),
    ];
    let want = cpu::evaluate(&e, &hosts, None).unwrap();
    assert_eq!(got.element_format(), Some(want.format()));
    // sqrt within WGSL's accuracy.
    assert_f32_close(
        &got.read_bytes(&gpu).unwrap(),
        want.bytes(),
        1e-6,
        "sqrt(select)",
    );
}

/// A chain of thousands of operations (`e = e + lit(1.0)` in a loop) is refused with a typed
/// error past the bounds, never a stack overflow (it aborted the process at 1,500 nodes), and
/// building and dropping one of 100,000 nodes costs no stack either; at the bounds it
/// evaluates.
#[test]
fn long_chains_are_bounded_errors_never_a_stack_overflow() {
    use gpudata::ops::{MAX_EXPR_DEPTH, MAX_EXPR_NODES};
    let gpu = gpu();
    let data = GpuData::from_slice(
        &gpu,
        VertexFormat::Float32,
        &[1.0f32, 2.0],
        gpudata::data::DEFAULT_USAGE,
    )
    .unwrap();
    let view = data.as_view().unwrap();
    let chain = |n: usize| {
        let mut e = col(0);
        for _ in 0..n {
            e = e + lit(1.0);
        }
        e
    };
    let deep = chain(100_000);
    let error = ops::evaluate(&gpu, &deep, &[view], None).unwrap_err();
    assert!(
        matches!(
            error,
            OpError::InvalidArgument {
                argument: "the expression",
                ..
            }
        ),
        "{error}"
    );
    drop(deep);
    let at_bound = chain(MAX_EXPR_DEPTH - 1);
    let out = ops::evaluate(&gpu, &at_bound, &[view], None).unwrap();
    assert_eq!(
        f32s(&out.read_bytes(&gpu).unwrap()),
        [
            1.0 + (MAX_EXPR_DEPTH - 1) as f32,
            2.0 + (MAX_EXPR_DEPTH - 1) as f32
        ]
    );
    assert!(ops::evaluate(&gpu, &chain(MAX_EXPR_DEPTH), &[view], None).is_err());
    // Wide but shallow: a balanced sum of more than MAX_EXPR_NODES nodes.
    let mut level: Vec<Expr> = (0..1024).map(|_| col(0)).collect();
    while level.len() > 1 {
        level = level
            .chunks(2)
            .map(|p| p[0].clone() + p[1].clone())
            .collect();
    }
    let wide = level.remove(0);
    const { assert!(2047 > MAX_EXPR_NODES) };
    assert!(ops::evaluate(&gpu, &wide, &[view], None).is_err());
}
