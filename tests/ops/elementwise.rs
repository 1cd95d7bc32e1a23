//! The element-wise operations of issue 16 (`pow` … `log`, `abs`, `dot`, `length`, `equalAll`,
//! `select`, `swizzle`, luma.gl's `interleave`, literals, single-operand `add`) on the GPU
//! against the CPU reference, on random data with NaN, ±0, ±inf, subnormals and integer
//! extremes, packed, offset and strided, and split over several dispatches.
//!
//! Comparison: bit for bit where WGSL defines the result exactly (selections, `abs`, integer
//! arithmetic, float `+ - *` and the pinned `dot`); NaN results compare as "a NaN" where WGSL
//! leaves NaN bits unspecified (arithmetic); the math functions within the accuracy WGSL
//! states, written per function in [`tolerance`], on inputs inside the ranges WGSL states it for.
//! A device may flush subnormal `f32` inputs to zero (WGSL allows it): a value also passes when
//! it equals the reference computed on the flushed inputs.

use crate::fixtures::*;
use gpudata::GpuConstant;
use gpudata::format::DataType;
use gpudata::ops::cpu::{self, HostColumn, HostInput, HostOperand};
use gpudata::ops::{self, ArithmeticOp, LaneOp, Literal, MathOp, Operand, OperandOf, OpsConfig};
use gpudata::{Gpu, GpuDataView, OpError, VertexFormat};

/// Which values a column holds.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Values {
    /// Any bits, special float values and integer extremes mixed in.
    Special,
    /// Floats in `[lo, hi]` (other formats: any bits).
    Range(f32, f32),
}

/// A GPU column and its host twin over the same bytes.
pub(crate) struct Col {
    bytes: Vec<u8>,
    flushed: Vec<u8>,
    buffer: wgpu::Buffer,
    format: VertexFormat,
    length: u64,
    offset: u64,
    stride: u64,
}

const SPECIAL_F32: [u32; 10] = [
    0x7fc0_0000, // NaN
    0xffc0_1234, // -NaN with payload
    0x7f80_0000, // inf
    0xff80_0000, // -inf
    0x0000_0000,
    0x8000_0000,
    0x0000_0001, // smallest subnormal
    0x807f_ffff, // largest negative subnormal
    0x7f7f_ffff, // MAX
    0x0080_0000, // MIN_POSITIVE
];

/// A float in `[0, 1)`.
fn unit(rng: &mut Rng) -> f32 {
    (rng.f32_in(1.0) + 1.0) / 2.0
}

fn value(rng: &mut Rng, format: VertexFormat, values: Values) -> Vec<u8> {
    let mut out = Vec::new();
    if format.is_packed_bits() {
        return rng.next_u32().to_le_bytes().to_vec();
    }
    for _ in 0..format.components() {
        let special = values == Values::Special && rng.below(3) == 0;
        match (format.data_type(), values) {
            (DataType::Float32, Values::Range(lo, hi)) => {
                out.extend_from_slice(&(lo + (hi - lo) * unit(rng)).to_le_bytes());
            }
            (DataType::Float16, Values::Range(lo, hi)) => {
                let h = half::f16::from_f32(lo + (hi - lo) * unit(rng)).to_bits();
                out.extend_from_slice(&h.to_le_bytes());
            }
            (DataType::Float32, _) if special => {
                let bits = SPECIAL_F32[rng.below(SPECIAL_F32.len() as u64) as usize];
                out.extend_from_slice(&bits.to_le_bytes());
            }
            (DataType::Float32, _) => out.extend_from_slice(&rng.f32_in(1000.0).to_le_bytes()),
            (t, Values::Range(lo, hi)) => {
                // Stored integers whose value (decoded, for normalized formats) lies in
                // `[lo, hi]`, within the type's range.
                let n = t.byte_length() as u32;
                let signed = format.is_signed();
                let (min, max) = if signed {
                    (-(1i64 << (8 * n - 1)), (1i64 << (8 * n - 1)) - 1)
                } else {
                    (0, (1i64 << (8 * n)) - 1)
                };
                let scale = if format.is_normalized() {
                    max as f64
                } else {
                    1.0
                };
                let low = ((f64::from(lo) * scale).ceil() as i64).clamp(min, max);
                let high = ((f64::from(hi) * scale).floor() as i64).clamp(min, max);
                let v = low + rng.below((high - low + 1) as u64) as i64;
                out.extend_from_slice(&(v as u32).to_le_bytes()[..n as usize]);
            }
            (t, _) => {
                let n = t.byte_length() as usize;
                let bits = if special {
                    // 0, all ones, the signed minimum and maximum.
                    let top = 1u32 << (8 * n - 1);
                    [0, u32::MAX, top, top - 1][rng.below(4) as usize]
                } else {
                    rng.next_u32()
                };
                out.extend_from_slice(&bits.to_le_bytes()[..n]);
            }
        }
    }
    out
}

/// `bytes` with every subnormal float32 of `format`'s values replaced by a zero of its sign.
fn flush(bytes: &[u8], format: VertexFormat, length: u64, offset: u64, stride: u64) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if format.data_type() != DataType::Float32 {
        return out;
    }
    for row in 0..length {
        for lane in 0..u64::from(format.components()) {
            let at = (offset + row * stride + 4 * lane) as usize;
            let bits = u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
            if bits & 0x7f80_0000 == 0 {
                out[at..at + 4].copy_from_slice(&(bits & 0x8000_0000).to_le_bytes());
            }
        }
    }
    out
}

impl Col {
    pub(crate) fn new(
        gpu: &Gpu,
        rng: &mut Rng,
        format: VertexFormat,
        length: u64,
        values: Values,
    ) -> Col {
        let unit = if format.is_packed_bits() {
            4
        } else {
            format.data_type().byte_length()
        };
        // Packed at 0, packed at an offset, or a strided child of wider rows.
        let (offset, stride) = match rng.below(3) {
            0 => (0, format.byte_length()),
            1 => (unit * (1 + rng.below(20)), format.byte_length()),
            _ => (
                unit * rng.below(4),
                format.byte_length() + unit * (1 + rng.below(4)),
            ),
        };
        let mut bytes = rng.bytes((offset + length * stride) as usize);
        for row in 0..length {
            let at = (offset + row * stride) as usize;
            let v = value(rng, format, values);
            bytes[at..at + v.len()].copy_from_slice(&v);
        }
        let flushed = flush(&bytes, format, length, offset, stride);
        let buffer = upload(gpu, &bytes);
        Col {
            bytes,
            flushed,
            buffer,
            format,
            length,
            offset,
            stride,
        }
    }

    pub(crate) fn gpu(&self) -> GpuDataView<'_> {
        view_at(
            &self.buffer,
            self.format,
            self.length,
            self.offset,
            Some(self.stride),
        )
    }

    pub(crate) fn host(&self, flushed: bool) -> HostInput<'_> {
        let bytes = if flushed { &self.flushed } else { &self.bytes };
        HostInput::new(bytes, self.format, self.length)
            .with_byte_offset(self.offset)
            .with_byte_stride(self.stride)
    }
}

/// An operand of a case: a column (by index) or a constant or literal; one list runs on the
/// GPU and on the CPU reference, each column mapped to its view and to its host column.
pub(crate) type Arg = OperandOf<usize>;

/// What a case runs.
#[derive(Clone)]
pub(crate) enum Op {
    Fold(ArithmeticOp),
    Math(MathOp),
    Lanes(LaneOp),
}

/// How outputs compare.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Check {
    /// Bit for bit.
    Exact,
    /// Bit for bit, any NaN equal to any NaN (arithmetic leaves NaN bits unspecified).
    ExactNan,
    /// Within the WGSL accuracy of the function.
    Within(MathOp),
    /// `length`: the pinned sum is exact, the square root within `sqrt`'s accuracy.
    Length,
}

/// The accuracy WGSL states for `op` at the reference value `c` (absolute bound).
fn tolerance(op: MathOp, c: f32) -> f32 {
    let ulp = |k: f32| k * f32::EPSILON * c.abs().max(f32::MIN_POSITIVE);
    match op {
        // 1 / inverseSqrt: inverseSqrt is 2 ulp; the division 2.5 ulp more.
        MathOp::Sqrt => ulp(5.0),
        // 2^-11 absolute on [-π, π] (the inputs' range).
        MathOp::Sin | MathOp::Cos => 2f32.powi(-11),
        // sin / cos: 2^-11 on each of them, with |cos| ≥ cos(1.2) on the inputs' range.
        MathOp::Tan => 2f32.powi(-11) * (1.0 + c.abs()) / 0.36,
        // 3 + 2|x| ulp, |x| ≤ 10 on the inputs' range.
        MathOp::Exp => ulp(23.0),
        // 2^-21 absolute on [0.5, 2], else 3 ulp.
        MathOp::Log => ulp(3.0).max(2f32.powi(-21)),
        // exp2(y · log2(x)): exp2's 3 + 2|y log2 x| ulp, |y log2 x| ≤ 27 on the inputs' range,
        // plus log2's error scaled by y.
        MathOp::Pow => ulp(64.0) + 2f32.powi(-21) * 4.0 * c.abs(),
        MathOp::Abs => 0.0,
    }
}

fn close(check: Check, gpu: u32, cpu: u32, output: VertexFormat) -> bool {
    if gpu == cpu {
        return true;
    }
    let float = output.data_type() == DataType::Float32;
    let (g, c) = (f32::from_bits(gpu), f32::from_bits(cpu));
    match check {
        Check::Exact => false,
        Check::ExactNan => float && g.is_nan() && c.is_nan(),
        Check::Within(_) | Check::Length if float => {
            let op = match check {
                Check::Within(op) => op,
                _ => MathOp::Sqrt,
            };
            if c.is_nan() || g.is_nan() {
                return c.is_nan() && g.is_nan();
            }
            if c.is_infinite() || g.is_infinite() {
                return c == g;
            }
            (g - c).abs() <= tolerance(op, c)
        }
        _ => false,
    }
}

fn words(bytes: &[u8], format: VertexFormat) -> Vec<u32> {
    let size = if format.is_packed_bits() {
        4
    } else {
        format.data_type().byte_length() as usize
    };
    bytes
        .chunks_exact(size)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..size].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

fn host_run(op: &Op, args: &[HostOperand<'_>]) -> Result<HostColumn, OpError> {
    match op {
        Op::Fold(f) => cpu::arithmetic(*f, args),
        Op::Math(m) => cpu::math(*m, args),
        Op::Lanes(l) => cpu::lanes(l, args)
            .map(|data| data.into_column().expect("a column of at most four lanes")),
    }
}

/// Runs `op` over `args` on both sides and compares with `check`.
pub(crate) fn run_case(
    gpu: &Gpu,
    config: &OpsConfig,
    op: &Op,
    cols: &[Col],
    args: &[Arg],
    check: Check,
) {
    let gpu_args: Vec<Operand<'_>> = args
        .iter()
        .map(|a| a.map_data(|&i| cols[i].gpu()))
        .collect();
    let host_args = |flushed: bool| -> Vec<HostOperand<'_>> {
        args.iter()
            .map(|a| a.map_data(|&i| cols[i].host(flushed)))
            .collect()
    };
    let expected = host_run(op, &host_args(false)).unwrap();
    let flushed = host_run(op, &host_args(true)).unwrap();
    let plan = match op {
        Op::Fold(f) => ops::plan_arithmetic(gpu, config, *f, &gpu_args),
        Op::Math(m) => ops::plan_math(gpu, config, *m, &gpu_args),
        Op::Lanes(l) => ops::plan_lanes(gpu, config, l, &gpu_args),
    }
    .unwrap();
    let out = plan.run(gpu).unwrap();
    let format = format_of(&out);
    assert_eq!(format, expected.format());
    let found = out.read_bytes(gpu).unwrap();
    let (g, e, f) = (
        words(&found, format),
        words(expected.bytes(), format),
        words(flushed.bytes(), format),
    );
    assert_eq!(g.len(), e.len());
    for (i, ((g, e), f)) in g.iter().zip(&e).zip(&f).enumerate() {
        assert!(
            close(check, *g, *e, format) || close(check, *g, *f, format),
            "{} over {:?}: value {i}: gpu {g:#x} ({}), cpu {e:#x} ({}), {} rows",
            op_name(op),
            cols.iter().map(|c| c.format).collect::<Vec<_>>(),
            f32::from_bits(*g),
            f32::from_bits(*e),
            expected.length()
        );
    }
}

fn op_name(op: &Op) -> String {
    match op {
        Op::Fold(f) => f.to_string(),
        Op::Math(m) => m.to_string(),
        Op::Lanes(l) => l.luma_name().to_owned(),
    }
}

/// The domain WGSL's accuracy is stated on, for `op`'s first operand.
pub(crate) fn domain(op: MathOp) -> Values {
    match op {
        MathOp::Sin | MathOp::Cos => Values::Range(-std::f32::consts::PI, std::f32::consts::PI),
        MathOp::Tan => Values::Range(-1.2, 1.2),
        MathOp::Exp => Values::Range(-10.0, 10.0),
        MathOp::Log => Values::Range(1e-3, 1e6),
        MathOp::Pow => Values::Range(0.01, 100.0),
        MathOp::Sqrt => Values::Range(0.0, 1e30),
        MathOp::Abs => Values::Special,
    }
}

pub(crate) const MATH: [MathOp; 8] = [
    MathOp::Pow,
    MathOp::Sqrt,
    MathOp::Abs,
    MathOp::Sin,
    MathOp::Cos,
    MathOp::Tan,
    MathOp::Exp,
    MathOp::Log,
];

#[test]
fn math_functions_match_the_cpu_reference() {
    let gpu = fresh_gpu();
    let config = OpsConfig::default();
    let mut rng = Rng::new(16);
    let formats = [
        VertexFormat::Float32,
        VertexFormat::Float32x3,
        VertexFormat::Float16x4,
        VertexFormat::Unorm8x4,
        VertexFormat::Snorm16x2,
        VertexFormat::Uint8x2,
        VertexFormat::Sint16,
        VertexFormat::Sint32x2,
        VertexFormat::Uint32,
        VertexFormat::Unorm10_10_10_2,
    ];
    for op in MATH {
        for format in formats {
            let float = matches!(format.data_type(), DataType::Float32 | DataType::Float16);
            // WGSL states the functions' accuracy on a domain: floats are drawn from it;
            // normalized values lie in [-1, 1] (inside every domain but log's and pow's, whose
            // out-of-domain results are NaN or -inf on both sides); integers of their whole
            // range only go through the functions accurate everywhere.
            let values = if float { domain(op) } else { Values::Special };
            if !float && !format.is_normalized() && !matches!(op, MathOp::Abs | MathOp::Sqrt) {
                continue;
            }
            // pow is exp2(y · log2(x)) in WGSL: indeterminate for x ≤ 0, which normalized
            // values reach.
            if op == MathOp::Pow && !float {
                continue;
            }
            let check = if op == MathOp::Abs {
                Check::Exact
            } else {
                Check::Within(op)
            };
            let length = 1 + rng.below(300);
            let mut cols = vec![Col::new(&gpu, &mut rng, format, length, values)];
            let mut args = vec![Arg::Data(0)];
            if op == MathOp::Pow {
                cols.push(Col::new(
                    &gpu,
                    &mut rng,
                    VertexFormat::Float32,
                    length,
                    Values::Range(-4.0, 4.0),
                ));
                args.push(Arg::Data(1));
            }
            run_case(&gpu, &config, &Op::Math(op), &cols, &args, check);
        }
    }
    // abs of special values and integer extremes, bit for bit.
    for format in formats {
        let cols = vec![Col::new(&gpu, &mut rng, format, 200, Values::Special)];
        run_case(
            &gpu,
            &config,
            &Op::Math(MathOp::Abs),
            &cols,
            &[Arg::Data(0)],
            Check::Exact,
        );
    }
}

#[test]
fn special_values_of_the_math_functions() {
    // NaN in gives NaN out, ±inf and ±0 the IEEE results, through every function but `pow`:
    // WGSL defines `pow` as `exp2(y · log2(x))`, indeterminate for NaN and x ≤ 0 (lavapipe gives
    // pow(NaN, 2) = 0 and pow(-inf, 2) = NaN), so the test states no result for it there.
    let gpu = fresh_gpu();
    let specials: Vec<f32> = [0x7fc0_0000u32, 0x7f80_0000, 0xff80_0000, 0, 0x8000_0000]
        .map(f32::from_bits)
        .to_vec();
    let a = upload(&gpu, &f32_bytes(&specials));
    for op in MATH.into_iter().filter(|&op| op != MathOp::Pow) {
        let x = view(&a, VertexFormat::Float32, 5);
        let gpu_args: Vec<Operand<'_>> = vec![x.into()];
        let xb = f32_bytes(&specials);
        let host_args: Vec<HostOperand<'_>> =
            vec![HostInput::new(&xb, VertexFormat::Float32, 5).into()];
        let found = f32s(
            &ops::math(&gpu, op, &gpu_args)
                .unwrap()
                .read_bytes(&gpu)
                .unwrap(),
        );
        let expected = f32s(cpu::math(op, &host_args).unwrap().bytes());
        for (i, (g, e)) in found.iter().zip(&expected).enumerate() {
            assert!(
                (g.is_nan() && e.is_nan()) || g.to_bits() == e.to_bits(),
                "{op}({}): gpu {g}, cpu {e}",
                specials[i]
            );
        }
    }
}

#[test]
fn lane_operations_match_the_cpu_reference_bit_for_bit() {
    let gpu = fresh_gpu();
    let config = OpsConfig::default();
    let mut rng = Rng::new(1616);
    let formats = [
        VertexFormat::Float32x4,
        VertexFormat::Float32x2,
        VertexFormat::Float16x4,
        VertexFormat::Uint8x4,
        VertexFormat::Sint8x2,
        VertexFormat::Unorm8x4,
        VertexFormat::Unorm8x4Bgra,
        VertexFormat::Snorm16x4,
        VertexFormat::Uint16x2,
        VertexFormat::Sint32x4,
        VertexFormat::Uint32x3,
        VertexFormat::Unorm10_10_10_2,
        VertexFormat::Float32,
        VertexFormat::Uint8,
    ];
    for (k, &x) in formats.iter().enumerate() {
        let length = 1 + rng.below(200);
        let y = formats[(k * 5 + 3) % formats.len()];
        // A partner of x's lane count for dot and equalAll.
        let same = formats
            .iter()
            .copied()
            .filter(|f| f.components() == x.components())
            .nth(k % 2)
            .unwrap_or(x);
        let cols = vec![
            Col::new(&gpu, &mut rng, x, length, Values::Special),
            Col::new(&gpu, &mut rng, same, length, Values::Special),
            Col::new(&gpu, &mut rng, y, length, Values::Special),
            Col::new(&gpu, &mut rng, VertexFormat::Uint8, length, Values::Special),
        ];
        run_lane_cases(&gpu, &config, &cols);
    }
}

/// The lane operations over `cols` (x, a partner of x's lanes, any column, a uint8 selector),
/// each against the CPU reference.
pub(crate) fn run_lane_cases(gpu: &Gpu, config: &OpsConfig, cols: &[Col]) {
    let lanes = cols[0].format.components();
    // equalAll of a column with itself is 1 but for NaN lanes.
    for (op, args, check) in [
        (
            LaneOp::EqualAll,
            vec![Arg::Data(0), Arg::Data(1)],
            Check::Exact,
        ),
        (
            LaneOp::EqualAll,
            vec![Arg::Data(0), Arg::Data(0)],
            Check::Exact,
        ),
        (
            LaneOp::Dot,
            vec![Arg::Data(0), Arg::Data(1)],
            Check::ExactNan,
        ),
        (LaneOp::Length, vec![Arg::Data(0)], Check::Length),
        (
            LaneOp::Select,
            vec![Arg::Data(3), Arg::Data(0), Arg::Data(1)],
            Check::Exact,
        ),
        (
            LaneOp::Select,
            vec![
                Arg::Data(1),
                Arg::Data(0),
                Arg::Constant(GpuConstant::from_value(-2.5f32)),
            ],
            Check::Exact,
        ),
        (
            LaneOp::Swizzle((0..lanes).rev().chain([0]).take(4).collect()),
            vec![Arg::Data(0)],
            Check::Exact,
        ),
        (
            LaneOp::Swizzle(vec![lanes - 1]),
            vec![Arg::Data(0)],
            Check::Exact,
        ),
        (
            LaneOp::InterleaveLanes,
            vec![Arg::Data(3), Arg::Data(0)],
            Check::Exact,
        ),
    ] {
        if op == LaneOp::InterleaveLanes && lanes + 1 > 4 {
            continue;
        }
        run_case(gpu, config, &Op::Lanes(op), cols, &args, check);
    }
}

#[test]
fn interleave_lanes_past_four_lanes_writes_struct_rows_as_the_cpu_reference() {
    // luma.gl's interleave of any number of lanes: rows of the joined type, a packed struct of
    // 4-lane fields (padding zero), the same bytes as the CPU reference's rows.
    let gpu = fresh_gpu();
    let mut rng = Rng::new(77);
    // (operands, whether a constant joins them, fields of the rows)
    let groups: [(&[VertexFormat], bool, usize); 5] = [
        (
            &[
                VertexFormat::Uint8x4,
                VertexFormat::Uint8x2,
                VertexFormat::Uint8,
            ],
            false,
            3,
        ),
        (
            &[
                VertexFormat::Uint32x2,
                VertexFormat::Uint32x4,
                VertexFormat::Uint32x4,
                VertexFormat::Uint32x4,
            ],
            false,
            4,
        ),
        (
            &[
                VertexFormat::Float32x3,
                VertexFormat::Uint16x2,
                VertexFormat::Snorm16x4,
            ],
            false,
            3,
        ),
        (
            &[
                VertexFormat::Sint16x4,
                VertexFormat::Uint8x4,
                VertexFormat::Sint8x2,
            ],
            false,
            3,
        ),
        (&[VertexFormat::Float16x4, VertexFormat::Unorm8x4], true, 3),
    ];
    for (formats, constant, fields) in groups {
        let length = 1 + rng.below(700);
        let cols: Vec<Col> = formats
            .iter()
            .map(|&f| Col::new(&gpu, &mut rng, f, length, Values::Special))
            .collect();
        let mut gpu_args: Vec<Operand<'_>> = cols.iter().map(|c| c.gpu().into()).collect();
        let mut host_args: Vec<HostOperand<'_>> =
            cols.iter().map(|c| c.host(false).into()).collect();
        if constant {
            // Three more float32 lanes.
            let c = GpuConstant::from_value([1.5f32, -2.0, 0.25]);
            gpu_args.push(c.into());
            host_args.push(c.into());
        }
        let out = ops::interleave_lanes(&gpu, &gpu_args).unwrap();
        let expected = match cpu::interleave_lanes(&host_args).unwrap() {
            cpu::HostData::Rows(rows) => rows,
            cpu::HostData::Column(c) => panic!("{formats:?}: a column of {}", c.format()),
        };
        let rows = out.struct_format().expect("struct rows");
        assert_eq!(rows, expected.format(), "{formats:?}");
        assert_eq!(rows.fields().len(), fields, "{formats:?}");
        let found = out.read_bytes(&gpu).unwrap();
        let stride = rows.byte_stride() as usize;
        for (row, (g, e)) in found
            .chunks(stride)
            .zip(expected.bytes().chunks(stride))
            .enumerate()
        {
            assert_eq!(g, e, "{formats:?} row {row}");
        }
    }
}

#[test]
fn normalized_and_chained_arithmetic_is_bit_for_bit() {
    // The cases: two unorm values of one scale (a compiler could factor
    // `a/255 + b/255`), chains (reassociation), chained subtraction with missing lanes
    // (the sign of zero).
    let gpu = fresh_gpu();
    let config = OpsConfig::default();
    let mut rng = Rng::new(7);
    let groups: [&[VertexFormat]; 6] = [
        &[VertexFormat::Unorm8x4, VertexFormat::Unorm8x4],
        &[
            VertexFormat::Unorm16x2,
            VertexFormat::Unorm16x2,
            VertexFormat::Unorm16x2,
        ],
        &[
            VertexFormat::Snorm8x2,
            VertexFormat::Unorm8x2,
            VertexFormat::Float32,
        ],
        &[
            VertexFormat::Float32x3,
            VertexFormat::Float32,
            VertexFormat::Float32x2,
            VertexFormat::Float16x4,
        ],
        &[
            VertexFormat::Float32x2,
            VertexFormat::Float32x4,
            VertexFormat::Float32x3,
        ],
        &[VertexFormat::Unorm10_10_10_2, VertexFormat::Snorm16x4],
    ];
    for formats in groups {
        for op in [
            ArithmeticOp::Add,
            ArithmeticOp::Subtract,
            ArithmeticOp::Multiply,
        ] {
            let length = 1 + rng.below(400);
            let cols: Vec<Col> = formats
                .iter()
                .map(|&f| Col::new(&gpu, &mut rng, f, length, Values::Special))
                .collect();
            let args: Vec<Arg> = (0..cols.len()).map(Arg::Data).collect();
            run_case(&gpu, &config, &Op::Fold(op), &cols, &args, Check::ExactNan);
        }
    }
}

#[test]
fn literals_keep_the_data_type() {
    let gpu = fresh_gpu();
    let config = OpsConfig::default();
    let mut rng = Rng::new(11);
    // luma.gl: `sint32 [1] + 0.5` stays sint32.
    let a = upload(&gpu, &1i32.to_le_bytes());
    let sum = ops::add(
        &gpu,
        view(&a, VertexFormat::Sint32, 1),
        Literal::scalar(0.5),
    )
    .unwrap();
    assert_eq!(format_of(&sum), VertexFormat::Sint32);
    assert_eq!(sum.read_bytes(&gpu).unwrap(), 1i32.to_le_bytes());
    // 5 × 0.5 = 2.5 → 2; uint8 0 − 1 wraps to 255 as a Uint8Array stores it.
    let b = upload(&gpu, &[5, 0]);
    let product =
        ops::multiply(&gpu, view(&b, VertexFormat::Uint8, 2), Literal::scalar(0.5)).unwrap();
    assert_eq!(product.read_bytes(&gpu).unwrap(), [2, 0]);
    let less = ops::subtract(&gpu, view(&b, VertexFormat::Uint8, 2), Literal::scalar(1.0)).unwrap();
    assert_eq!(format_of(&less), VertexFormat::Uint8);
    assert_eq!(less.read_bytes(&gpu).unwrap(), [4, 255]);
    // A vector literal's missing lanes are 0 (no broadcast); a scalar broadcasts.
    let c = upload(&gpu, &f32_bytes(&[1.0, 2.0, 3.0]));
    let sum = ops::add(
        &gpu,
        view(&c, VertexFormat::Float32x3, 1),
        Literal::vector(&[10.0]).unwrap(),
    )
    .unwrap();
    assert_eq!(f32s(&sum.read_bytes(&gpu).unwrap()), [11.0, 2.0, 3.0]);
    // Random: every op, integer and float data, integral, fractional and negative literals.
    for format in [
        VertexFormat::Sint32,
        VertexFormat::Uint8x2,
        VertexFormat::Sint16x4,
        VertexFormat::Uint32x2,
        VertexFormat::Float32x3,
        VertexFormat::Unorm8x4,
    ] {
        for literal in [
            Literal::scalar(3.0),
            Literal::scalar(-7.0),
            Literal::scalar(0.75),
            Literal::scalar(-1e10),
            Literal::vector(&[2.0, -0.5]).unwrap(),
        ] {
            for op in [
                ArithmeticOp::Add,
                ArithmeticOp::Subtract,
                ArithmeticOp::Multiply,
                ArithmeticOp::Divide,
            ] {
                let cols = vec![Col::new(&gpu, &mut rng, format, 50, Values::Special)];
                let check = if op == ArithmeticOp::Divide && format.is_normalized() {
                    Check::Within(MathOp::Sqrt)
                } else {
                    Check::ExactNan
                };
                run_case(
                    &gpu,
                    &config,
                    &Op::Fold(op),
                    &cols,
                    &[Arg::Data(0), Arg::Literal(literal)],
                    check,
                );
            }
        }
    }
}

#[test]
fn single_operand_add_returns_the_input_unchanged() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(3);
    for format in [
        VertexFormat::Unorm8x4,
        VertexFormat::Float16x2,
        VertexFormat::Unorm10_10_10_2,
        VertexFormat::Sint8x2,
    ] {
        let col = Col::new(&gpu, &mut rng, format, 33, Values::Special);
        let out = ops::arithmetic(&gpu, ArithmeticOp::Add, &[col.gpu().into()]).unwrap();
        assert_eq!(format_of(&out), format);
        let expected = cpu::arithmetic(ArithmeticOp::Add, &[col.host(false).into()]).unwrap();
        let packed = cpu::deinterleave_views(&[col.host(false)]).unwrap();
        assert_eq!(expected.bytes(), packed[0].bytes());
        assert_eq!(out.read_bytes(&gpu).unwrap(), expected.bytes());
    }
}

#[test]
fn luma_rules_and_errors() {
    let gpu = fresh_gpu();
    let a = upload(&gpu, &f32_bytes(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    let x3 = view(&a, VertexFormat::Float32x3, 2);
    let x2 = view(&a, VertexFormat::Float32x2, 3);
    let x2b = view(&a, VertexFormat::Float32x2, 2);
    assert_eq!(
        ops::dot(&gpu, x3, x2b).unwrap_err(),
        OpError::LaneMismatch {
            op: "dot",
            input: 1,
            expected: 3,
            found: 2
        }
    );
    assert_eq!(
        ops::select(&gpu, x2b, x3, 1.0f32).unwrap_err(),
        OpError::LaneMismatch {
            op: "select",
            input: 0,
            expected: 3,
            found: 2
        }
    );
    assert_eq!(
        ops::swizzle(&gpu, x3, &[0, 3]).unwrap_err(),
        OpError::LaneOutOfRange {
            op: "swizzle",
            column: 3,
            lanes: 3
        }
    );
    assert_eq!(
        ops::swizzle(&gpu, x3, &[]).unwrap_err(),
        OpError::OutputLanes {
            op: "swizzle",
            lanes: 0
        }
    );
    // Past four lanes (an error until issue 30): rows of the joined type, a packed struct of
    // 4-lane fields, the values one after another as luma.gl's column of five.
    let wide = ops::interleave_lanes(&gpu, &[x3.into(), x2b.into()]).unwrap();
    let rows = wide.struct_format().expect("struct rows").clone();
    let fields: Vec<(String, VertexFormat, u64)> = rows
        .fields()
        .iter()
        .map(|f| (f.name().to_owned(), f.format(), f.byte_offset()))
        .collect();
    assert_eq!(
        fields,
        [
            ("lanes0".to_owned(), VertexFormat::Float32x4, 0),
            ("lanes4".to_owned(), VertexFormat::Float32, 16)
        ]
    );
    assert_eq!(
        f32s(&wide.read_bytes(&gpu).unwrap()),
        [1.0, 2.0, 3.0, 1.0, 2.0, 4.0, 5.0, 6.0, 3.0, 4.0]
    );
    assert_eq!(
        ops::math(&gpu, MathOp::Pow, &[x3.into()]).unwrap_err(),
        OpError::Arity {
            op: "pow",
            expected: 2,
            found: 1
        }
    );
    assert_eq!(
        ops::dot(&gpu, x2, x2b).unwrap_err(),
        OpError::LengthMismatch {
            op: "dot",
            input: 1,
            expected: 3,
            found: 2
        }
    );
    // The messages, expected before found.
    let messages = [
        (
            ops::dot(&gpu, x3, x2b).unwrap_err(),
            "dot: operand 1 has 2 lanes, expected 3",
        ),
        (
            ops::swizzle(&gpu, x3, &[3]).unwrap_err(),
            "swizzle: column 3 is out of range: expected 0 to 2 for an input of 3 lanes",
        ),
        (
            ops::swizzle(&gpu, x3, &[0, 1, 2, 0, 1]).unwrap_err(),
            "swizzle: the output would have 5 lanes: expected 1 to 4",
        ),
        (
            ops::math(&gpu, MathOp::Sqrt, &[x3.into(), x3.into()]).unwrap_err(),
            "sqrt: expected 1 operand, found 2",
        ),
    ];
    for (error, message) in messages {
        assert_eq!(error.to_string(), message);
    }
    assert_eq!(
        Literal::vector(&[]).unwrap_err(),
        OpError::ConstantLanes {
            op: "literal",
            input: 0,
            lanes: 0
        }
    );
    assert_eq!(
        ops::length(&gpu, GpuConstant::from_value(1.0f32)).unwrap_err(),
        OpError::NoGpuInput { op: "length" }
    );
    // Output types: dot/length float32, equalAll uint32, abs keeps sint16, sqrt of uint8
    // float32, select joins uint8 and sint8 into sint16, swizzle keeps unorm8.
    let b = upload(&gpu, &[1, 2, 3, 4, 250, 6, 7, 8]);
    let u8x4 = view(&b, VertexFormat::Uint8x4, 2);
    let n8x4 = view(&b, VertexFormat::Unorm8x4, 2);
    let s8x4 = view(&b, VertexFormat::Sint8x4, 2);
    let i16 = view(&b, VertexFormat::Sint16x2, 2);
    assert_eq!(
        format_of(&ops::dot(&gpu, u8x4, u8x4).unwrap()),
        VertexFormat::Float32
    );
    assert_eq!(
        format_of(&ops::equal_all(&gpu, u8x4, s8x4).unwrap()),
        VertexFormat::Uint32
    );
    assert_eq!(
        format_of(&ops::abs(&gpu, i16).unwrap()),
        VertexFormat::Sint16x2
    );
    assert_eq!(
        format_of(&ops::sqrt(&gpu, u8x4).unwrap()),
        VertexFormat::Float32x4
    );
    assert_eq!(
        format_of(&ops::select(&gpu, u8x4, u8x4, s8x4).unwrap()),
        VertexFormat::Sint16x4
    );
    let sw = ops::swizzle(&gpu, n8x4, &[2, 0, 1]).unwrap();
    assert_eq!(format_of(&sw), VertexFormat::Unorm8x3Webgl);
    assert_eq!(sw.read_bytes(&gpu).unwrap(), [3, 1, 2, 7, 250, 6]);
    // equalAll of uint8 250 and sint8 -6: different numbers.
    let eq = ops::equal_all(&gpu, u8x4, s8x4)
        .unwrap()
        .read_bytes(&gpu)
        .unwrap();
    assert_eq!(u32s(&eq), [1, 0]);
    // luma.gl's interleave promotes: float32 + uint8x2 → float32x3.
    let c = upload(&gpu, &f32_bytes(&[0.5, 1.5]));
    let joined = ops::interleave_lanes(
        &gpu,
        &[
            view(&c, VertexFormat::Float32, 2).into(),
            view(&b, VertexFormat::Uint8x2, 2).into(),
        ],
    )
    .unwrap();
    assert_eq!(format_of(&joined), VertexFormat::Float32x3);
    assert_eq!(
        f32s(&joined.read_bytes(&gpu).unwrap()),
        [0.5, 1.0, 2.0, 1.5, 3.0, 4.0]
    );
}

#[test]
fn element_wise_ops_split_over_bindings() {
    // Storage bindings of 256 bytes: every case runs as several dispatches and must equal
    // the reference, as with one dispatch.
    let gpu = ops_with_limits(|l| {
        l.max_storage_buffer_binding_size = 256;
        l.min_storage_buffer_offset_alignment = 32;
    });
    let config = OpsConfig::default();
    let mut rng = Rng::new(99);
    let cols = vec![
        Col::new(
            &gpu,
            &mut rng,
            VertexFormat::Float32x3,
            200,
            Values::Range(0.1, 2.0),
        ),
        Col::new(
            &gpu,
            &mut rng,
            VertexFormat::Float16x4,
            200,
            Values::Range(-1.0, 1.0),
        ),
        Col::new(&gpu, &mut rng, VertexFormat::Uint8, 200, Values::Special),
    ];
    for (op, args, check) in [
        (
            Op::Math(MathOp::Sqrt),
            vec![Arg::Data(0)],
            Check::Within(MathOp::Sqrt),
        ),
        (Op::Math(MathOp::Abs), vec![Arg::Data(1)], Check::Exact),
        (
            Op::Lanes(LaneOp::Dot),
            vec![Arg::Data(0), Arg::Data(0)],
            Check::ExactNan,
        ),
        (
            Op::Lanes(LaneOp::Select),
            vec![Arg::Data(2), Arg::Data(1), Arg::Data(2)],
            Check::Exact,
        ),
        (
            Op::Lanes(LaneOp::Swizzle(vec![3, 1])),
            vec![Arg::Data(1)],
            Check::Exact,
        ),
        (
            Op::Fold(ArithmeticOp::Add),
            vec![Arg::Data(2), Arg::Literal(Literal::scalar(-3.0))],
            Check::Exact,
        ),
    ] {
        run_case(&gpu, &config, &op, &cols, &args, check);
    }
}

#[test]
fn arithmetic_decodes_float16_through_one_function_selections_quiet_nans() {
    use gpudata::format::wgsl_codec::KERNEL_F16_NAME;
    let gpu = fresh_gpu();
    let a = upload(&gpu, &[0u8; 64]);
    let x = view(&a, VertexFormat::Float16x4, 8);
    let plan = ops::plan_arithmetic(
        &gpu,
        &OpsConfig::default(),
        ArithmeticOp::Add,
        &[x.into(), x.into()],
    )
    .unwrap();
    let wgsl = plan.wgsl().unwrap();
    assert_eq!(wgsl.matches(&format!("fn {KERNEL_F16_NAME}(")).count(), 1);
    assert!(
        !wgsl.contains("0x3ffu) + 0x3ffu"),
        "no quieting in arithmetic:\n{wgsl}"
    );
    let plan = ops::plan_lanes(
        &gpu,
        &OpsConfig::default(),
        &LaneOp::Select,
        &[x.into(), x.into(), x.into()],
    )
    .unwrap();
    let wgsl = plan.wgsl().unwrap();
    assert!(!wgsl.contains(KERNEL_F16_NAME));
    assert!(
        wgsl.contains("0x3ffu) + 0x3ffu"),
        "select quiets as the host does:\n{wgsl}"
    );
    // The NaN bits as stored: a signalling float16 NaN through select comes out quiet, as the
    // host codec gives it.
    let nan = upload(&gpu, &0x7c01u16.to_le_bytes());
    let one = view(&nan, VertexFormat::Float16, 1);
    let out = ops::select(&gpu, 1.0f32, one, one).unwrap();
    assert_eq!(u32s(&out.read_bytes(&gpu).unwrap()), [0x7fc0_2000]);
}
