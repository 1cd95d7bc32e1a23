//! Integer arithmetic on the GPU past 2^24 (issue 30): integer data with integer data, and
//! with literals that are not integers of the computation's range (fractions, values past
//! 2^31, 2^32 and 2^64, NaN and ±∞), on either side, equal the CPU reference bit for bit; a few
//! values are checked against their exact results by hand.

use crate::elementwise::{Arg, Check, Col, Op, Values, run_case};
use crate::fixtures::*;
use crate::support::{Rng, fresh_gpu};
use gpudata::VertexFormat::{self, *};
use gpudata::ops::{self, ArithmeticOp, Literal, OpsConfig};

const OPS: [ArithmeticOp; 4] = [
    ArithmeticOp::Add,
    ArithmeticOp::Subtract,
    ArithmeticOp::Multiply,
    ArithmeticOp::Divide,
];

#[test]
fn integer_results_equal_the_cpu_reference_past_2_24() {
    let gpu = fresh_gpu();
    let config = OpsConfig::default();
    let mut rng = Rng::new(30);
    let cols = |rng: &mut Rng, formats: &[VertexFormat]| -> Vec<Col> {
        let length = 1 + rng.below(300);
        formats
            .iter()
            .map(|&f| Col::new(&gpu, rng, f, length, Values::Special))
            .collect()
    };
    // Data with data: full-range 32-bit values, mixed widths, three operands.
    let pairs: [&[VertexFormat]; 6] = [
        &[Uint32x2, Uint32],
        &[Sint32, Sint32x2],
        &[Sint32x4, Uint16x4],
        &[Uint32, Uint8x4],
        &[Sint16x2, Uint16x2],
        &[Sint32x2, Sint8x2, Uint16],
    ];
    for formats in pairs {
        for op in OPS {
            let cols = cols(&mut rng, formats);
            let args: Vec<Arg> = (0..cols.len()).map(Arg::Data).collect();
            run_case(&gpu, &config, &Op::Fold(op), &cols, &args, Check::Exact);
        }
    }
    // Data with a literal, on either side; two leading literals (combined in f64 first).
    let literals = [
        Literal::scalar(-2.5),
        Literal::scalar(1e10 + 0.5),
        Literal::scalar(-6_442_450_943.25),
        Literal::scalar(3e9),
        Literal::scalar(2f64.powi(70) + 2f64.powi(60)),
        Literal::scalar(1e-7),
        Literal::scalar(f64::NAN),
        Literal::scalar(f64::NEG_INFINITY),
        Literal::vector(&[1.5, -1e-3, 7.0, 4_294_967_296.125]).unwrap(),
    ];
    for format in [Sint32, Uint32x2, Sint16x2] {
        for literal in literals {
            for op in OPS {
                let cols = cols(&mut rng, &[format]);
                let l = Arg::Literal(literal);
                for args in [[Arg::Data(0), l], [l, Arg::Data(0)]] {
                    run_case(&gpu, &config, &Op::Fold(op), &cols, &args, Check::Exact);
                }
            }
        }
    }
    for op in OPS {
        let cols = cols(&mut rng, &[Sint32x2]);
        let args = [
            Arg::Literal(Literal::scalar(0.5)),
            Arg::Literal(Literal::vector(&[0.25, -3e9]).unwrap()),
            Arg::Data(0),
            Arg::Literal(Literal::scalar(-1.75)),
        ];
        run_case(&gpu, &config, &Op::Fold(op), &cols, &args, Check::Exact);
    }
}

fn i32s(bytes: &[u8]) -> Vec<i32> {
    bytes
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn integer_steps_are_exact_and_wrap() {
    let gpu = fresh_gpu();
    let values: Vec<u8> = [2_147_483_000i32, -5, 16_777_217, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let a = upload(&gpu, &values);
    let a = view(&a, Sint32, 4);
    let run = |op: ArithmeticOp, args: [ops::Operand<'_>; 2]| {
        let out = ops::arithmetic(&gpu, op, &args).unwrap();
        assert_eq!(format_of(&out), Sint32);
        i32s(&out.read_bytes(&gpu).unwrap())
    };
    // 2147483000 × 2.5 = 5368707500 wraps to 1073740204 (luma.gl's Int32Array stores it so;
    // clamping would give 2147483520); 16777217 × 2.5 = 41943042.5 (f32 has no 16777217).
    assert_eq!(
        run(
            ArithmeticOp::Multiply,
            [a.into(), Literal::scalar(2.5).into()]
        ),
        [1_073_740_204, -12, 41_943_042, 0]
    );
    // 1e10 + 0.5 over each: truncated, wrapped; over 0 it is ±∞, stored as 0.
    assert_eq!(
        run(
            ArithmeticOp::Divide,
            [Literal::scalar(1e10 + 0.5).into(), a.into()]
        ),
        [4, -2_000_000_000, 596, 0]
    );
    // x − 0.75 rounds toward zero on both sides of 0; 2147483000 + 1e10 wraps.
    assert_eq!(
        run(
            ArithmeticOp::Subtract,
            [a.into(), Literal::scalar(0.75).into()]
        ),
        [2_147_482_999, -5, 16_777_216, 0]
    );
    assert_eq!(
        run(ArithmeticOp::Add, [a.into(), Literal::scalar(1e10).into()]),
        [2_147_483_000i64, -5, 16_777_217, 0].map(|v| (v + 10_000_000_000) as i32)
    );
}
