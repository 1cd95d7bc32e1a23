//! `add` and the other elementwise arithmetic on the GPU, against the CPU reference and the
//! spec's vectors (§11.7).

use crate::fixtures::*;
use gpudata::GpuConstant;
use gpudata::format::DataType;
use gpudata::ops::cpu::{self, HostInput, HostOperand};
use gpudata::ops::{self, ArithmeticOp, Literal, Operand, OpsConfig};
use gpudata::{Gpu, GpuDataView, OpError, VertexFormat};

/// A GPU input and its CPU twin over the same bytes.
struct Pair {
    bytes: Vec<u8>,
    buffer: wgpu::Buffer,
    format: VertexFormat,
    length: u64,
    offset: u64,
    stride: u64,
}

impl Pair {
    fn new(gpu: &Gpu, rng: &mut Rng, format: VertexFormat, length: u64, layout: u32) -> Pair {
        let unit = if format.is_packed_bits() {
            4
        } else {
            format.data_type().byte_length()
        };
        // 0: packed at 0; 1: packed at an offset (a segment); 2: strided child of wider rows.
        let (offset, stride) = match layout {
            0 => (0, format.byte_length()),
            1 => (unit * (1 + rng.below(40)), format.byte_length()),
            _ => {
                let extra = unit * (1 + rng.below(6));
                (unit * rng.below(8), format.byte_length() + extra)
            }
        };
        let bytes = random_rows(rng, format, length, offset, stride, 0);
        let buffer = upload(gpu, &bytes);
        Pair {
            bytes,
            buffer,
            format,
            length,
            offset,
            stride,
        }
    }

    fn gpu(&self) -> GpuDataView<'_> {
        view_at(
            &self.buffer,
            self.format,
            self.length,
            self.offset,
            Some(self.stride),
        )
    }

    fn cpu(&self) -> HostInput<'_> {
        HostInput::new(&self.bytes, self.format, self.length)
            .with_byte_offset(self.offset)
            .with_byte_stride(self.stride)
    }
}

fn exact_expected(op: ArithmeticOp, formats: &[VertexFormat]) -> bool {
    op != ArithmeticOp::Divide && !formats.iter().any(|f| f.is_normalized())
}

/// Runs `op` over `pairs` (plus `constants`) on both sides and compares: bit for bit unless a
/// normalized input or a float division makes the GPU's rounding differ in the last bit.
fn check(
    gpu: &Gpu,
    config: &OpsConfig,
    op: ArithmeticOp,
    pairs: &[&Pair],
    constants: &[GpuConstant],
) {
    let mut gpu_operands: Vec<Operand<'_>> = pairs.iter().map(|p| p.gpu().into()).collect();
    let mut cpu_operands: Vec<HostOperand<'_>> = pairs.iter().map(|p| p.cpu().into()).collect();
    gpu_operands.extend(constants.iter().map(|c| Operand::from(*c)));
    cpu_operands.extend(constants.iter().map(|c| HostOperand::from(*c)));
    let expected = cpu::arithmetic(op, &cpu_operands).unwrap();
    let plan = ops::plan_arithmetic(gpu, config, op, &gpu_operands).unwrap();
    let column = plan.run(gpu).unwrap();
    assert_eq!(format_of(&column), expected.format());
    assert_eq!(column.length(), expected.length());
    let found = column.read_bytes(gpu).unwrap();
    let formats: Vec<VertexFormat> = pairs.iter().map(|p| p.format).collect();
    let what = format!(
        "{op} {formats:?} + {} constants, {} rows, layouts {:?}",
        constants.len(),
        column.length(),
        pairs
            .iter()
            .map(|p| (p.offset, p.stride))
            .collect::<Vec<_>>()
    );
    if expected.format().data_type() == DataType::Float32 && !exact_expected(op, &formats) {
        assert_f32_close(&found, expected.bytes(), 2e-6, &what);
    } else {
        assert_eq!(found, expected.bytes(), "{what}");
    }
}

/// [`check`] of `add` over `pairs` with the default configuration and no constants.
fn check_add(gpu: &Gpu, pairs: &[&Pair]) {
    check(gpu, &OpsConfig::default(), ArithmeticOp::Add, pairs, &[]);
}

#[test]
fn spec_vectors_on_the_gpu() {
    let gpu = fresh_gpu();
    let a = upload(
        &gpu,
        &f32_bytes(&(0..12).map(|v| v as f32).collect::<Vec<_>>()),
    );
    let b = upload(
        &gpu,
        &f32_bytes(&[0., 0., 1., 1., 2., 2., 3., 3., 4., 4., 5., 5.]),
    );
    // 85
    let sum = ops::add(
        &gpu,
        view(&a, VertexFormat::Float32x2, 6),
        view(&b, VertexFormat::Float32x2, 6),
    )
    .unwrap();
    assert_eq!(
        f32s(&sum.read_bytes(&gpu).unwrap()),
        [0., 1., 3., 4., 6., 7., 9., 10., 12., 13., 15., 16.]
    );
    // 86
    let ua = upload(&gpu, &u32_bytes(&(0..12).collect::<Vec<_>>()));
    let ub = upload(&gpu, &[0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
    let sum = ops::add(
        &gpu,
        view(&ua, VertexFormat::Uint32x2, 6),
        view(&ub, VertexFormat::Uint8x2, 6),
    )
    .unwrap();
    assert_eq!(format_of(&sum), VertexFormat::Uint32x2);
    assert_eq!(
        u32s(&sum.read_bytes(&gpu).unwrap()),
        [0, 1, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16]
    );
    // 87
    let c = upload(&gpu, &f32_bytes(&[1., -1., 1., -1.]));
    let sum = ops::add(
        &gpu,
        view(&a, VertexFormat::Float32x3, 4),
        view(&c, VertexFormat::Float32, 4),
    )
    .unwrap();
    assert_eq!(
        f32s(&sum.read_bytes(&gpu).unwrap()),
        [1., 2., 3., 2., 3., 4., 7., 8., 9., 8., 9., 10.]
    );
    // 88
    let sum = ops::add(&gpu, view(&a, VertexFormat::Float32x3, 4), 1.0).unwrap();
    assert_eq!(
        f32s(&sum.read_bytes(&gpu).unwrap()),
        (1..=12).map(|v| v as f32).collect::<Vec<_>>()
    );
    // 90
    let s = upload(&gpu, &[1, 255, 1, 255, 1, 255]);
    let sum = ops::arithmetic(
        &gpu,
        ArithmeticOp::Add,
        &[
            view(&a, VertexFormat::Float32x2, 6).into(),
            view(&b, VertexFormat::Float32x2, 6).into(),
            view(&s, VertexFormat::Sint8, 6).into(),
        ],
    )
    .unwrap();
    assert_eq!(
        f32s(&sum.read_bytes(&gpu).unwrap()),
        [1., 2., 2., 3., 7., 8., 8., 9., 13., 14., 14., 15.]
    );
    // 93: missing lanes are 0.
    let m = upload(&gpu, &f32_bytes(&[2., 2., -1., -1., 0.5, 0.5, -2., -2.]));
    let product = ops::multiply(
        &gpu,
        view(&a, VertexFormat::Float32x3, 4),
        view(&m, VertexFormat::Float32x2, 4),
    )
    .unwrap();
    assert_eq!(
        f32s(&product.read_bytes(&gpu).unwrap()),
        [0., 2., 0., -3., -4., 0., 3., 3.5, 0., -18., -20., 0.]
    );
    // 96: integer division.
    let n = upload(
        &gpu,
        &u32_bytes(&[8, 27, 64, 125, 216, 343, 512, 729, 1000, 1331, 1728, 2197]),
    );
    let d = upload(&gpu, &(2u8..14).collect::<Vec<_>>());
    let quotient = ops::divide(
        &gpu,
        view(&n, VertexFormat::Uint32x2, 6),
        view(&d, VertexFormat::Uint8x2, 6),
    )
    .unwrap();
    assert_eq!(
        u32s(&quotient.read_bytes(&gpu).unwrap()),
        [4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144, 169]
    );
    // 127: two strided children of one interleaved buffer.
    let rows = upload(
        &gpu,
        &f32_bytes(&[1., 2., 10., 20., 3., 4., 30., 40., 5., 6., 50., 60.]),
    );
    let sum = ops::add(
        &gpu,
        view_at(&rows, VertexFormat::Float32x2, 3, 0, Some(16)),
        view_at(&rows, VertexFormat::Float32x2, 3, 8, Some(16)),
    )
    .unwrap();
    assert_eq!(
        f32s(&sum.read_bytes(&gpu).unwrap()),
        [11., 22., 33., 44., 55., 66.]
    );
}

#[test]
fn every_format_against_itself_and_float32_in_every_layout() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(1);
    for (i, &format) in VertexFormat::ALL.iter().enumerate() {
        let length = [0, 1, 7, 300, 1025][i % 5] + rng.below(3);
        let layout = (i % 3) as u32;
        let a = Pair::new(&gpu, &mut rng, format, length, layout);
        let b = Pair::new(&gpu, &mut rng, format, length, (layout + 1) % 3);
        check_add(&gpu, &[&a, &b]);
        let f = Pair::new(&gpu, &mut rng, VertexFormat::Float32x3, length, 2);
        check_add(&gpu, &[&a, &f]);
    }
}

#[test]
fn mixed_types_follow_the_join_and_every_op_agrees() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(2);
    let formats = [
        VertexFormat::Uint8x4,
        VertexFormat::Sint8x2,
        VertexFormat::Uint16,
        VertexFormat::Sint16x4,
        VertexFormat::Sint32x3,
        VertexFormat::Uint32x2,
        VertexFormat::Float16x4,
        VertexFormat::Unorm8x4,
        VertexFormat::Snorm16x2,
        VertexFormat::Unorm10_10_10_2,
        VertexFormat::Float32,
    ];
    let ops_list = [
        ArithmeticOp::Add,
        ArithmeticOp::Subtract,
        ArithmeticOp::Multiply,
        ArithmeticOp::Divide,
    ];
    for (i, &fa) in formats.iter().enumerate() {
        for (j, &fb) in formats.iter().enumerate() {
            let length = 50 + rng.below(200);
            let a = Pair::new(&gpu, &mut rng, fa, length, ((i + j) % 3) as u32);
            let b = Pair::new(&gpu, &mut rng, fb, length, (i % 3) as u32);
            check(
                &gpu,
                &OpsConfig::default(),
                ops_list[(i + j) % 4],
                &[&a, &b],
                &[],
            );
        }
    }
}

#[test]
fn three_operands_and_constants() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(3);
    let a = Pair::new(&gpu, &mut rng, VertexFormat::Float32x3, 333, 2);
    let b = Pair::new(&gpu, &mut rng, VertexFormat::Sint16x2, 333, 1);
    let c = Pair::new(&gpu, &mut rng, VertexFormat::Uint8, 333, 0);
    check_add(&gpu, &[&a, &b, &c]);
    check(
        &gpu,
        &OpsConfig::default(),
        ArithmeticOp::Multiply,
        &[&a, &b],
        &[
            GpuConstant::from_value([0.5f32, -2.0]),
            GpuConstant::from_value(3.0f32),
        ],
    );
    check(
        &gpu,
        &OpsConfig::default(),
        ArithmeticOp::Subtract,
        &[&c],
        &[GpuConstant::from_value([1.0f32, 2.0, 3.0, 4.0])],
    );
}

#[test]
fn eight_and_sixteen_bit_outputs_pack_whole_words() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(4);
    // uint8 + uint8 -> uint8 (16 rows per invocation), uint8x3-webgl output, sint16 outputs,
    // lengths that are not a multiple of the rows per invocation.
    for (fa, fb, expected) in [
        (
            VertexFormat::Uint8,
            VertexFormat::Uint8,
            VertexFormat::Uint8,
        ),
        (
            VertexFormat::Uint8x3Webgl,
            VertexFormat::Uint8,
            VertexFormat::Uint8x3Webgl,
        ),
        (
            VertexFormat::Uint8x2,
            VertexFormat::Sint8x2,
            VertexFormat::Sint16x2,
        ),
        (
            VertexFormat::Uint16x3Webgl,
            VertexFormat::Uint16,
            VertexFormat::Uint16x3Webgl,
        ),
        (
            VertexFormat::Sint8x4,
            VertexFormat::Sint8,
            VertexFormat::Sint8x4,
        ),
    ] {
        for length in [1, 15, 17, 1000] {
            let a = Pair::new(&gpu, &mut rng, fa, length, 0);
            let b = Pair::new(&gpu, &mut rng, fb, length, 2);
            check_add(&gpu, &[&a, &b]);
            let out = ops::add(&gpu, a.gpu(), b.gpu()).unwrap();
            assert_eq!(format_of(&out), expected);
        }
    }
}

#[test]
fn more_workgroups_than_one_dimension_holds() {
    // A device limited to 16 workgroups per dimension and one invocation per workgroup: 1000 rows
    // of float32 need 250 workgroups, dispatched as 16 x 16.
    let (gpu, config) = ops_with(
        |l| l.max_compute_workgroups_per_dimension = 16,
        OpsConfig {
            workgroup_size: 1,
            rows_per_thread: None,
            ..Default::default()
        },
    );
    let mut rng = Rng::new(5);
    let a = Pair::new(&gpu, &mut rng, VertexFormat::Float32, 1000, 0);
    let b = Pair::new(&gpu, &mut rng, VertexFormat::Float32, 1000, 1);
    let plan = ops::plan_arithmetic(
        &gpu,
        &config,
        ArithmeticOp::Add,
        &[a.gpu().into(), b.gpu().into()],
    )
    .unwrap();
    assert_eq!(plan.workgroups(), (16, 16));
    drop(plan);
    check(&gpu, &config, ArithmeticOp::Add, &[&a, &b], &[]);
    // 5000 rows need 1250 workgroups: more than 16 x 16.
    let big = Pair::new(&gpu, &mut rng, VertexFormat::Float32, 5000, 0);
    let err = ops::plan_arithmetic(
        &gpu,
        &config,
        ArithmeticOp::Add,
        &[big.gpu().into(), big.gpu().into()],
    )
    .unwrap_err();
    assert_eq!(
        err,
        OpError::DispatchTooLarge {
            op: "add",
            workgroups: 1250,
            limit: 16
        }
    );
}

#[test]
fn fast_path_reads_and_writes_vec4() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(6);
    let a = Pair::new(&gpu, &mut rng, VertexFormat::Float32, 4096, 0);
    let b = Pair::new(&gpu, &mut rng, VertexFormat::Float32, 4096, 0);
    let plan = ops::plan_arithmetic(
        &gpu,
        &OpsConfig::default(),
        ArithmeticOp::Add,
        &[a.gpu().into(), b.gpu().into()],
    )
    .unwrap();
    assert_eq!(plan.rows_per_invocation(), 4);
    let wgsl = plan.wgsl().unwrap();
    assert_eq!(wgsl.matches("array<vec4<u32>>").count(), 3, "{wgsl}");
    assert_eq!(plan.bytes_moved(), 3 * 4096 * 4);
    // Pipelines are cached by what shapes them, not by length or offset.
    let before = gpu.compiled_pipelines();
    let c = Pair::new(&gpu, &mut rng, VertexFormat::Float32, 1000, 0);
    let d = Pair::new(&gpu, &mut rng, VertexFormat::Float32, 1000, 0);
    ops::add(&gpu, c.gpu(), d.gpu()).unwrap();
    assert_eq!(gpu.compiled_pipelines(), before);
    // 77 values end 4 bytes into a 16-byte unit of buffers padded to 4 bytes: the bulk still
    // reads vec4s and a tail dispatch reads the last rows as words.
    for length in [77, 2, 300 + 1] {
        let c = Pair::new(&gpu, &mut rng, VertexFormat::Float32, length, 0);
        let d = Pair::new(&gpu, &mut rng, VertexFormat::Float32, length, 1);
        let plan = ops::plan_arithmetic(
            &gpu,
            &OpsConfig::default(),
            ArithmeticOp::Add,
            &[c.gpu().into(), d.gpu().into()],
        )
        .unwrap();
        assert_eq!(
            plan.dispatches(),
            if length > 64 { 2 } else { 1 },
            "{length}"
        );
        drop(plan);
        check_add(&gpu, &[&c, &d]);
    }
}

#[test]
fn errors_name_the_problem() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(7);
    let a = Pair::new(&gpu, &mut rng, VertexFormat::Float32x2, 10, 0);
    let b = Pair::new(&gpu, &mut rng, VertexFormat::Float32x2, 11, 0);
    let err = ops::add(&gpu, a.gpu(), b.gpu()).unwrap_err();
    assert_eq!(
        err,
        OpError::LengthMismatch {
            op: "add",
            input: 1,
            expected: 10,
            found: 11
        }
    );
    assert_eq!(
        err.to_string(),
        "add: input 1 has 11 rows, expected 10 like input 0"
    );
    assert_eq!(cpu::add(a.cpu(), b.cpu()).unwrap_err(), err);

    let misaligned = view_at(&a.buffer, VertexFormat::Float32, 4, 2, None);
    assert!(matches!(
        ops::add(&gpu, misaligned, misaligned).unwrap_err(),
        OpError::Misaligned {
            op: "add",
            input: 0,
            alignment: 4,
            ..
        }
    ));
    // Views past their buffer or narrower than a value are refused when the view is made
    // (`DataError`); the CPU reference, which reads host bytes, checks the same rules itself.
    assert!(GpuDataView::new(&a.buffer, VertexFormat::Float32x2, 11, 0, None).is_err());
    let past_end = HostInput::new(&a.bytes, VertexFormat::Float32x2, 11);
    assert_eq!(
        cpu::add(past_end, past_end).unwrap_err(),
        OpError::OutOfBounds {
            op: "add",
            input: 0,
            needed: 88,
            available: 80
        }
    );
    assert!(GpuDataView::new(&a.buffer, VertexFormat::Float32x2, 4, 0, Some(4)).is_err());
    let narrow = HostInput::new(&a.bytes, VertexFormat::Float32x2, 4).with_byte_stride(4);
    assert!(matches!(
        cpu::add(narrow, narrow).unwrap_err(),
        OpError::StrideTooSmall {
            byte_stride: 4,
            byte_length: 8,
            ..
        }
    ));
    assert_eq!(
        ops::arithmetic(&gpu, ArithmeticOp::Add, &[1.0.into(), 2.0.into()]).unwrap_err(),
        OpError::NoGpuInput { op: "add" }
    );
    assert!(matches!(
        Literal::vector(&[1.0; 5]).unwrap_err(),
        OpError::ConstantLanes { lanes: 5, .. }
    ));
}

#[test]
fn binding_limits_are_checked_against_the_device() {
    // Eight storage buffers per stage: seven distinct inputs and the output fit, eight do not.
    let gpu = ops_with_limits(|l| l.max_storage_buffers_per_shader_stage = 8);
    let mut rng = Rng::new(8);
    let pairs: Vec<Pair> = (0..8)
        .map(|_| Pair::new(&gpu, &mut rng, VertexFormat::Float32, 100, 0))
        .collect();
    let operands: Vec<Operand<'_>> = pairs.iter().map(|p| p.gpu().into()).collect();
    ops::arithmetic(&gpu, ArithmeticOp::Add, &operands[..7]).unwrap();
    let err = ops::arithmetic(&gpu, ArithmeticOp::Add, &operands).unwrap_err();
    assert_eq!(
        err,
        OpError::TooManyBindings {
            op: "add",
            what: "storage buffers per shader stage",
            needed: 9,
            limit: 8
        }
    );
    assert_eq!(
        err.to_string(),
        "add: needs 9 storage buffers per shader stage, exceeding the device limit 8"
    );
    // Views of one buffer bind once: eight segments of one buffer need two bindings.
    let segmented = upload(&gpu, &rng.bytes(8 * 400));
    let segments: Vec<Operand<'_>> = (0..8)
        .map(|s| view_at(&segmented, VertexFormat::Float32, 100, s * 400, None).into())
        .collect();
    ops::arithmetic(&gpu, ArithmeticOp::Add, &segments).unwrap();
}

#[test]
fn data_typed_views_and_constants_are_operands() {
    let gpu = fresh_gpu();
    let data = gpudata::GpuData::from_bytes(
        &gpu,
        &f32_bytes(&[1.0, 2.0, 3.0]),
        gpudata::GpuDataDescriptor::new(VertexFormat::Float32, 3),
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    )
    .unwrap();
    let typed = gpudata::data::TypedGpuDataView::<f32>::new(data.as_view().unwrap()).unwrap();
    let sum = ops::add(&gpu, typed, &data).unwrap();
    assert_eq!(f32s(&sum.read_bytes(&gpu).unwrap()), [2.0, 4.0, 6.0]);
    let scaled = ops::multiply(&gpu, &sum, GpuConstant::from_value(0.5f32)).unwrap();
    assert_eq!(f32s(&scaled.read_bytes(&gpu).unwrap()), [1.0, 2.0, 3.0]);
}
