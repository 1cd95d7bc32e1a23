//! `GpuConstant` operands of every format: an operation over columns and a constant equals the
//! same operation over the columns and a column whose every row is the constant (the constant's
//! lanes decoded by its format's codec as a column's are, its format joining the types as a
//! column's), on the GPU and in the CPU reference; a `float32` constant is luma.gl's
//! `fromConstant`.

use crate::fixtures::*;
use gpudata::ops::cpu::{self, HostInput, HostOperand};
use gpudata::ops::{self, ArithmeticOp, LaneOp, Operand};
use gpudata::{GpuConstant, VertexFormat};

const ROWS: u64 = 37;

#[test]
fn a_constant_of_any_format_reads_as_a_column_of_its_value() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(26);
    let columns = [
        VertexFormat::Float32x2,
        VertexFormat::Uint8x4,
        VertexFormat::Sint16,
        VertexFormat::Unorm16x2,
    ];
    for format in VertexFormat::ALL {
        let constant = GpuConstant::from_bytes(format, &random_value(&mut rng, format)).unwrap();
        // The constant repeated in every row, as a column.
        let repeated: Vec<u8> = (0..ROWS).flat_map(|_| constant.bytes().to_vec()).collect();
        let repeated_buffer = upload(&gpu, &repeated);
        let repeated_view = view(&repeated_buffer, format, ROWS);
        let repeated_host = HostInput::new(&repeated, format, ROWS);
        for &x_format in &columns {
            let x: Vec<u8> = (0..ROWS)
                .flat_map(|_| random_value(&mut rng, x_format))
                .collect();
            let x_buffer = upload(&gpu, &x);
            let x_view = view(&x_buffer, x_format, ROWS);
            let x_host = HostInput::new(&x, x_format, ROWS);
            let what = format!("{x_format} and a {format} constant");
            for op in [ArithmeticOp::Add, ArithmeticOp::Multiply] {
                let gpu_run = |b: Operand<'_>| {
                    ops::arithmetic(&gpu, op, &[x_view.into(), b])
                        .map(|d| (d.as_view().unwrap().format(), d.read_bytes(&gpu).unwrap()))
                };
                let via_constant = gpu_run(constant.into());
                assert_eq!(via_constant, gpu_run(repeated_view.into()), "{op} {what}");
                let host = |b: HostOperand<'_>| {
                    cpu::arithmetic(op, &[x_host.into(), b])
                        .map(|c| (c.format(), c.bytes().to_vec()))
                };
                assert_eq!(
                    host(constant.into()),
                    host(repeated_host.into()),
                    "cpu {op} {what}"
                );
                // The CPU reference is exact where no normalized value is divided.
                if !format.is_normalized() && !x_format.is_normalized() {
                    assert_eq!(
                        via_constant,
                        host(constant.into()),
                        "gpu and cpu {op} {what}"
                    );
                }
            }
            let gpu_select = |b: Operand<'_>| {
                ops::lanes(&gpu, &LaneOp::Select, &[x_view.into(), x_view.into(), b])
                    .map(|d| d.read_bytes(&gpu).unwrap())
            };
            assert_eq!(
                gpu_select(constant.into()),
                gpu_select(repeated_view.into()),
                "select {what}"
            );
        }
    }
}

#[test]
fn a_float32_constant_is_an_f32_and_a_literal_outside_arithmetic() {
    let gpu = fresh_gpu();
    let x = f32_bytes(&[1.0, 2.0, 3.0, 4.0]);
    let buffer = upload(&gpu, &x);
    let x = view(&buffer, VertexFormat::Float32x2, 2);
    // An f32, a float32 constant and a literal outside the arithmetic family are one operand.
    let dot = |y: Operand<'_>| ops::dot(&gpu, x, y).unwrap().read_bytes(&gpu).unwrap();
    let expected = f32_bytes(&[1.0 * 0.5 + 2.0 * -2.0, 3.0 * 0.5 + 4.0 * -2.0]);
    assert_eq!(
        dot(GpuConstant::from_value([0.5f32, -2.0]).into()),
        expected
    );
    let literal = ops::Literal::vector(&[0.5, -2.0]).unwrap();
    assert_eq!(dot(literal.into()), expected);
}
