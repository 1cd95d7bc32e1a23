//! Every operation over every format it accepts (all 49 where it takes them), on the GPU against
//! the CPU reference, on random data with NaN, ±0, ±inf, subnormals and integer extremes (the
//! math functions on the domains WGSL states their accuracy for), packed, offset and strided.
//! Where an operation takes several columns in one pass (`compact`), many formats share one
//! dispatch; elsewhere one dispatch per format, with short columns.

use crate::elementwise::{Arg, Check, Col, MATH, Op, Values, domain, run_case, run_lane_cases};
use crate::filter::{Column, host_filter, scalar};
use crate::fixtures::*;
use crate::select::check_gather;
use gpudata::format::DataType;
use gpudata::ops::cpu::{self, HostInput, HostPredicate};
use gpudata::ops::{self, ArithmeticOp, GpuMask, MathOp, OpsConfig, Predicate};
use gpudata::{GpuDataView, VertexFormat};

fn float(format: VertexFormat) -> bool {
    matches!(format.data_type(), DataType::Float32 | DataType::Float16)
}

#[test]
fn math_functions_over_every_format() {
    let gpu = fresh_gpu();
    let config = OpsConfig::default();
    let mut rng = Rng::new(4916);
    for op in MATH {
        for format in VertexFormat::ALL {
            // Values inside the function's stated domain: floats drawn from it, integers and
            // normalized integers whose values lie in it; the packed 10-10-10-2 lanes are any
            // bits (their values in [0, 1], inside every domain but pow's: WGSL's
            // exp2(y · log2(x)) is indeterminate at x = 0).
            if format.is_packed_bits() && op == MathOp::Pow {
                continue;
            }
            let values = if format.is_packed_bits() {
                Values::Special
            } else {
                domain(op)
            };
            let check = if op == MathOp::Abs {
                Check::Exact
            } else {
                Check::Within(op)
            };
            let length = 1 + rng.below(70);
            let mut cols = vec![Col::new(&gpu, &mut rng, format, length, values)];
            let mut args = vec![Arg::Data(0)];
            if op == MathOp::Pow {
                let exponent = VertexFormat::ALL[rng.below(49) as usize];
                let exponent = if float(exponent) {
                    exponent
                } else {
                    VertexFormat::Float32
                };
                cols.push(Col::new(
                    &gpu,
                    &mut rng,
                    exponent,
                    length,
                    Values::Range(-4.0, 4.0),
                ));
                args.push(Arg::Data(1));
            }
            run_case(&gpu, &config, &Op::Math(op), &cols, &args, check);
        }
    }
}

#[test]
fn lane_operations_over_every_format() {
    let gpu = fresh_gpu();
    let config = OpsConfig::default();
    let mut rng = Rng::new(4917);
    let all = VertexFormat::ALL;
    for (k, &x) in all.iter().enumerate() {
        let length = 1 + rng.below(60);
        // A partner of x's lane count (another format where one exists) for dot and equalAll.
        let same = all
            .iter()
            .copied()
            .filter(|f| f.components() == x.components() && *f != x)
            .nth(k % 3)
            .unwrap_or(x);
        let y = all[(k * 5 + 3) % all.len()];
        let cols = vec![
            Col::new(&gpu, &mut rng, x, length, Values::Special),
            Col::new(&gpu, &mut rng, same, length, Values::Special),
            Col::new(&gpu, &mut rng, y, length, Values::Special),
            Col::new(&gpu, &mut rng, VertexFormat::Uint8, length, Values::Special),
        ];
        run_lane_cases(&gpu, &config, &cols);
    }
}

#[test]
fn arithmetic_over_every_format() {
    // `add` of every format is in `add.rs`; here subtract, multiply and divide, each format
    // against another random format (luma.gl's type join) and against itself.
    let gpu = fresh_gpu();
    let config = OpsConfig::default();
    let mut rng = Rng::new(4918);
    for (k, &a) in VertexFormat::ALL.iter().enumerate() {
        let b = VertexFormat::ALL[(k * 7 + 5) % 49];
        for (op, other) in [
            (ArithmeticOp::Subtract, a),
            (ArithmeticOp::Multiply, b),
            (ArithmeticOp::Divide, b),
            (ArithmeticOp::Subtract, b),
        ] {
            let length = 1 + rng.below(60);
            let cols = vec![
                Col::new(&gpu, &mut rng, a, length, Values::Special),
                Col::new(&gpu, &mut rng, other, length, Values::Special),
            ];
            // WGSL's float division is exact to 2.5 ulp (the test allows sqrt's 5).
            let check = if op == ArithmeticOp::Divide {
                Check::Within(MathOp::Sqrt)
            } else {
                Check::ExactNan
            };
            run_case(
                &gpu,
                &config,
                &Op::Fold(op),
                &cols,
                &[Arg::Data(0), Arg::Data(1)],
                check,
            );
        }
    }
}

#[test]
fn masks_over_every_format() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(4919);
    for format in VertexFormat::ALL {
        let length = 1 + rng.below(700);
        let a = Column::new(&gpu, &mut rng, format, length);
        let b = Column::new(&gpu, &mut rng, format, length);
        let (s, lo, hi) = (scalar(&mut rng), scalar(&mut rng), scalar(&mut rng));
        let host_less = HostPredicate::less(a.host(), s);
        let host_tree =
            HostPredicate::equal(a.host(), b.host())
                .or(HostPredicate::between(a.host(), lo, hi).not());
        let gpu_less = Predicate::less(a.view(), s);
        let gpu_tree =
            Predicate::equal(a.view(), b.view()).or(Predicate::between(a.view(), lo, hi).not());
        for (host, device) in [(host_less, gpu_less), (host_tree, gpu_tree)] {
            let expected = cpu::mask(&host).unwrap();
            let got = ops::mask(&gpu, &device).unwrap().read(&gpu).unwrap();
            assert_eq!(got, expected, "{format}: {s:?} {lo:?} {hi:?}");
        }
    }
}

#[test]
fn compaction_over_every_format() {
    // Eight formats per compaction (one pass over all of them), every format once.
    let gpu = fresh_gpu();
    let mut rng = Rng::new(4920);
    for formats in VertexFormat::ALL.chunks(8) {
        let length = 1 + rng.below(20_000);
        let columns: Vec<Column> = formats
            .iter()
            .map(|&f| Column::new(&gpu, &mut rng, f, length))
            .collect();
        let views: Vec<GpuDataView<'_>> = columns.iter().map(Column::view).collect();
        let hosts: Vec<HostInput<'_>> = columns.iter().map(Column::host).collect();
        let keep: Vec<bool> = (0..length).map(|_| rng.below(2) == 0).collect();
        let mask = GpuMask::from_bools(&gpu, &keep).unwrap();
        let out = ops::compact(&gpu, &mask, &views).unwrap();
        let (expected, kept) = cpu::compact(&keep, &hosts).unwrap();
        assert_eq!(out.kept, kept);
        for ((column, data), want) in columns.iter().zip(&out.columns).zip(&expected) {
            let got = data.read_bytes(&gpu).unwrap();
            assert_eq!(got, want.bytes(), "compact {}", formats_of(column));
            assert_eq!(
                got,
                host_filter(column, &keep),
                "compact {}",
                formats_of(column)
            );
        }
    }
}

fn formats_of(column: &Column) -> VertexFormat {
    column.view().format()
}

#[test]
fn gather_over_every_format() {
    // Every source format, the index formats in turn (every integer and float format of one
    // lane that `gather` takes).
    let gpu = fresh_gpu();
    let mut rng = Rng::new(4921);
    let ids = [
        VertexFormat::Uint32,
        VertexFormat::Sint32,
        VertexFormat::Uint16,
        VertexFormat::Sint16,
        VertexFormat::Uint8,
        VertexFormat::Sint8,
        VertexFormat::Float32,
        VertexFormat::Float16,
    ];
    for (k, &format) in VertexFormat::ALL.iter().enumerate() {
        let source_len = 1 + rng.below(200);
        check_gather(&gpu, &mut rng, ids[k % ids.len()], format, 300, source_len);
    }
}
