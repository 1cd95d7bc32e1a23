//! The host twin of the element-wise engine's row code: the same [`Semantics`], evaluated step
//! by step as the generated WGSL evaluates it (operands decoded by the host codec, converted to
//! the computation type, float results rounded to `f32` after every step).

use super::filter::compare;
use super::host::HostInput;
use crate::format::PrimitiveType;
use crate::format::codec::{self, ShaderScalar, decoded_type, unit_of_lane};
use crate::ops::elementwise::{FoldStep, OperandKind, Program, Semantics};
use crate::ops::exact::{self, LaneKind};
use crate::ops::family::{ArithmeticOp, Compute, MathOp, source_lane};
use crate::ops::kernels::shape::{unit_count, unit_size};

/// Where an operand's values come from on the host.
#[derive(Clone, Copy, Debug)]
pub(crate) enum HostPlace<'a> {
    /// A column in host memory (checked beforehand).
    Data(HostInput<'a>),
    /// The uniform lanes of a constant (f32 bits) or a literal (bits of the computation type).
    Bits([u32; 4]),
    /// The stored lanes of an earlier node.
    Node(usize),
}

fn convert(value: ShaderScalar, to: PrimitiveType) -> ShaderScalar {
    match to {
        PrimitiveType::U32 => ShaderScalar::U32(value.to_u32()),
        PrimitiveType::I32 => ShaderScalar::I32(value.to_i32()),
        PrimitiveType::F32 | PrimitiveType::F16 => ShaderScalar::F32(value.to_f32()),
    }
}

fn zero(ty: PrimitiveType) -> ShaderScalar {
    convert(ShaderScalar::U32(0), ty)
}

fn from_bits(bits: u32, compute: Compute) -> ShaderScalar {
    scalar_of(bits, compute.primitive())
}

/// The value of type `ty` whose 32 bits are `bits` (a constant's decoded lane).
fn scalar_of(bits: u32, ty: PrimitiveType) -> ShaderScalar {
    match ty {
        PrimitiveType::F32 | PrimitiveType::F16 => ShaderScalar::F32(f32::from_bits(bits)),
        PrimitiveType::U32 => ShaderScalar::U32(bits),
        PrimitiveType::I32 => ShaderScalar::I32(bits as i32),
    }
}

/// `a op b` in the computation type: wrapping integers, integer division by zero 0.
pub(crate) fn apply(op: ArithmeticOp, a: ShaderScalar, b: ShaderScalar) -> ShaderScalar {
    match (a, b) {
        (ShaderScalar::F32(a), ShaderScalar::F32(b)) => ShaderScalar::F32(match op {
            ArithmeticOp::Add => a + b,
            ArithmeticOp::Subtract => a - b,
            ArithmeticOp::Multiply => a * b,
            ArithmeticOp::Divide => a / b,
            // WGSL's definition, each step rounded to f32 (not `fmod`).
            ArithmeticOp::Remainder => a - b * (a / b).trunc(),
        }),
        (ShaderScalar::U32(a), ShaderScalar::U32(b)) => ShaderScalar::U32(match op {
            ArithmeticOp::Add => a.wrapping_add(b),
            ArithmeticOp::Subtract => a.wrapping_sub(b),
            ArithmeticOp::Multiply => a.wrapping_mul(b),
            ArithmeticOp::Divide => a.checked_div(b).unwrap_or(0),
            ArithmeticOp::Remainder => a.checked_rem(b).unwrap_or(0),
        }),
        (ShaderScalar::I32(a), ShaderScalar::I32(b)) => ShaderScalar::I32(match op {
            ArithmeticOp::Add => a.wrapping_add(b),
            ArithmeticOp::Subtract => a.wrapping_sub(b),
            ArithmeticOp::Multiply => a.wrapping_mul(b),
            ArithmeticOp::Divide if b == 0 => 0,
            ArithmeticOp::Divide => a.wrapping_div(b),
            // `i32::MIN % -1` is 0, as every `x % -1`.
            ArithmeticOp::Remainder => a.checked_rem(b).unwrap_or(0),
        }),
        // Operands are converted to one computation type first.
        _ => a,
    }
}

fn math(op: MathOp, args: &[ShaderScalar]) -> ShaderScalar {
    let f = |i: usize| args[i].to_f32();
    match (op, args[0]) {
        (MathOp::Abs, ShaderScalar::I32(v)) => ShaderScalar::I32(v.wrapping_abs()),
        (MathOp::Abs, ShaderScalar::U32(v)) => ShaderScalar::U32(v),
        (MathOp::Abs, ShaderScalar::F32(v)) => {
            ShaderScalar::F32(f32::from_bits(v.to_bits() & 0x7fff_ffff))
        }
        (MathOp::Pow, _) => ShaderScalar::F32(f(0).powf(f(1))),
        (MathOp::Sqrt, _) => ShaderScalar::F32(f(0).sqrt()),
        (MathOp::Sin, _) => ShaderScalar::F32(f(0).sin()),
        (MathOp::Cos, _) => ShaderScalar::F32(f(0).cos()),
        (MathOp::Tan, _) => ShaderScalar::F32(f(0).tan()),
        (MathOp::Exp, _) => ShaderScalar::F32(f(0).exp()),
        (MathOp::Log, _) => ShaderScalar::F32(f(0).ln()),
    }
}

/// Numeric equality as the kernel decides it (see the engine's `equal_wgsl`).
fn equal(a: ShaderScalar, b: ShaderScalar) -> bool {
    let float_eq = |a: f32, b: f32| {
        let (x, y) = (a.to_bits(), b.to_bits());
        (x == y || (x | y) & 0x7fff_ffff == 0) && x & 0x7fff_ffff <= 0x7f80_0000
    };
    match (a, b) {
        (ShaderScalar::I32(a), ShaderScalar::I32(b)) => a == b,
        (ShaderScalar::U32(a), ShaderScalar::U32(b)) => a == b,
        (ShaderScalar::I32(a), ShaderScalar::U32(b))
        | (ShaderScalar::U32(b), ShaderScalar::I32(a)) => a >= 0 && a as u32 == b,
        (a, b) => float_eq(a.to_f32(), b.to_f32()),
    }
}

fn nonzero(c: ShaderScalar) -> bool {
    match c {
        ShaderScalar::F32(v) => v.to_bits() & 0x7fff_ffff != 0,
        ShaderScalar::I32(v) => v != 0,
        ShaderScalar::U32(v) => v != 0,
    }
}

/// One row of `sem` over `places`, with the stored lanes of the nodes before it.
struct Row<'s, 'a> {
    sem: &'s Semantics,
    places: &'s [HostPlace<'a>],
    values: &'s [Vec<ShaderScalar>],
    row: u64,
}

impl Row<'_, '_> {
    fn raw(&self, i: usize, lane: u32) -> u32 {
        match (self.sem.operands[i], self.places[i]) {
            (OperandKind::Data(format), HostPlace::Data(input)) => {
                input.unit(self.row, u64::from(unit_of_lane(format, lane)))
            }
            _ => 0,
        }
    }

    /// Lane `lane` of operand `i` after luma.gl's lane rule, converted to `to` (or as it
    /// arrives).
    fn value(&self, i: usize, lane: u32, to: Option<PrimitiveType>) -> ShaderScalar {
        let sem = self.sem;
        let kind = sem.operands[i];
        match (kind, self.places[i]) {
            // The semantics' literal (leading literals combined), as the kernel's uniform
            // holds it.
            (OperandKind::Literal(l), HostPlace::Bits(_)) => {
                let v = from_bits(
                    exact::literal_bits(&l, sem.compute)[lane as usize],
                    sem.compute,
                );
                to.map_or(v, |t| convert(v, t))
            }
            (_, place) => {
                let natural = match kind {
                    OperandKind::Data(f) | OperandKind::Constant(f) => decoded_type(f),
                    _ => PrimitiveType::F32,
                };
                let ty = to.unwrap_or(natural);
                let v = match (source_lane(kind.lanes(), lane), kind, place) {
                    (None, _, _) => return zero(ty),
                    (Some(l), OperandKind::Data(format), HostPlace::Data(_)) => {
                        codec::decode_unit(format, l, self.raw(i, l))
                    }
                    (Some(l), _, HostPlace::Bits(bits)) => scalar_of(bits[l as usize], natural),
                    (Some(l), OperandKind::Data(_), HostPlace::Node(k)) => {
                        self.values[k][l as usize]
                    }
                    (Some(_), _, HostPlace::Data(_) | HostPlace::Node(_)) => return zero(ty),
                };
                convert(v, ty)
            }
        }
    }

    /// Output lane `lane` of a fold of `op`: [`Semantics::fold_steps`], as the kernel runs
    /// them.
    fn fold(&self, op: ArithmeticOp, lane: u32) -> ShaderScalar {
        let sem = self.sem;
        let compute = Some(sem.compute.primitive());
        let signed = sem.compute == Compute::I32;
        let exact_step = |step, x: ShaderScalar, literal: usize| {
            let p = match sem.operands[literal] {
                OperandKind::Literal(l) => match exact::lane_kind(l.lane(lane), sem.compute) {
                    LaneKind::Exact(v) => exact::params(step, v, signed),
                    _ => [0; exact::PARAMS],
                },
                _ => [0; exact::PARAMS],
            };
            let bits = match x {
                ShaderScalar::I32(v) => v as u32,
                ShaderScalar::U32(v) => v,
                ShaderScalar::F32(v) => v.to_bits(),
            };
            from_bits(exact::host(step, bits, signed, &p), sem.compute)
        };
        let mut acc = zero(sem.compute.primitive());
        for step in sem.fold_steps(op, lane) {
            acc = match step {
                FoldStep::Start(i) => self.value(i, lane, compute),
                FoldStep::Apply(i) => apply(op, acc, self.value(i, lane, compute)),
                FoldStep::Exact(i, step) => exact_step(step, acc, i),
                FoldStep::Lead(h, i, step) => exact_step(step, self.value(i, lane, compute), h),
                FoldStep::Zero => zero(sem.compute.primitive()),
            };
        }
        acc
    }

    fn lane(&self, lane: u32) -> ShaderScalar {
        let sem = self.sem;
        let compute = Some(sem.compute.primitive());
        match &sem.program {
            Program::Fold(op) => self.fold(*op, lane),
            Program::Math(op) => {
                let args: Vec<ShaderScalar> = (0..sem.operands.len())
                    .map(|i| self.value(i, lane, compute))
                    .collect();
                math(*op, &args)
            }
            Program::Select => {
                if nonzero(self.value(0, lane, None)) {
                    self.value(1, lane, compute)
                } else {
                    self.value(2, lane, compute)
                }
            }
            Program::Gather(entries) => {
                let (i, l) = entries[lane as usize];
                self.value(i, l, compute)
            }
            Program::Compare(cmp) => ShaderScalar::U32(u32::from(compare(
                *cmp,
                self.value(0, lane, None),
                self.value(1, lane, None),
            ))),
            Program::Dot | Program::Length | Program::EqualAll | Program::Identity => {
                zero(sem.compute.primitive())
            }
        }
    }

    fn reduce(&self) -> ShaderScalar {
        let sem = self.sem;
        let lanes = sem.operands[0].lanes();
        let f32 = Some(PrimitiveType::F32);
        if sem.program == Program::EqualAll {
            let all = (0..lanes).all(|l| equal(self.value(0, l, None), self.value(1, l, None)));
            return ShaderScalar::U32(u32::from(all));
        }
        let mut sum: Option<f32> = None;
        for l in 0..lanes {
            let a = self.value(0, l, f32).to_f32();
            let b = if sem.program == Program::Dot {
                self.value(1, l, f32).to_f32()
            } else {
                a
            };
            let product = a * b;
            sum = Some(sum.map_or(product, |s| s + product));
        }
        let sum = sum.unwrap_or(0.0);
        ShaderScalar::F32(if sem.program == Program::Length {
            sum.sqrt()
        } else {
            sum
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        let sem = self.sem;
        let size = unit_size(sem.output) as usize;
        let mut put = |bits: u32| out.extend_from_slice(&bits.to_le_bytes()[..size]);
        match &sem.program {
            Program::Identity => {
                if let OperandKind::Data(format) = sem.operands[0] {
                    for j in 0..unit_count(format) {
                        put(self.raw_unit(j));
                    }
                }
            }
            Program::Dot | Program::Length | Program::EqualAll => {
                put(codec::encode_unit(sem.output, 0, self.reduce()));
            }
            program => {
                // Lanes that share a unit (unorm10-10-10-2 never is an output here) each
                // fill their own.
                for lane in 0..sem.output_lanes() {
                    let bits = match program {
                        Program::Gather(entries) if sem.raw(entries[lane as usize].0) => {
                            let (i, l) = entries[lane as usize];
                            self.raw(i, l)
                        }
                        _ => codec::encode_unit(sem.output, sem.output_lane(lane), self.lane(lane)),
                    };
                    put(bits);
                }
            }
        }
    }

    fn raw_unit(&self, unit: u64) -> u32 {
        match self.places[0] {
            HostPlace::Data(input) => input.unit(self.row, unit),
            HostPlace::Bits(_) | HostPlace::Node(_) => 0,
        }
    }

    /// The node's lanes as it stores them: each encoded in its output format and decoded
    /// back, as the kernel's `store`.
    fn stored(&self) -> Vec<ShaderScalar> {
        let sem = self.sem;
        let store = |lane: u32, value: ShaderScalar| {
            codec::decode_unit(
                sem.output,
                lane,
                codec::encode_unit(sem.output, lane, value),
            )
        };
        if matches!(
            sem.program,
            Program::Dot | Program::Length | Program::EqualAll
        ) {
            return vec![store(0, self.reduce())];
        }
        (0..sem.output_lanes())
            .map(|lane| store(sem.output_lane(lane), self.lane(lane)))
            .collect()
    }
}

/// `length` rows of `sem` over `places` (inputs checked), packed in `sem.output`, or, for rows
/// of more than four lanes, in `sem.rows` (its padding zero): the one-node form of
/// [`evaluate_nodes`].
pub(crate) fn evaluate(sem: &Semantics, places: &[HostPlace<'_>], length: u64) -> Vec<u8> {
    evaluate_nodes(&[(sem, places)], length)
}

/// `length` rows of `nodes` (each node's semantics and places, every node after those it
/// reads), the last one's written out as [`evaluate`] writes it.
pub(crate) fn evaluate_nodes(nodes: &[(&Semantics, &[HostPlace<'_>])], length: u64) -> Vec<u8> {
    let Some(((root, root_places), inner)) = nodes.split_last() else {
        return Vec::new();
    };
    let stride = root.output_stride() as usize;
    let mut out = Vec::with_capacity(length as usize * stride);
    let mut values: Vec<Vec<ShaderScalar>> = Vec::with_capacity(inner.len());
    for row in 0..length {
        values.clear();
        for (sem, places) in inner {
            let lanes = Row {
                sem,
                places,
                values: &values,
                row,
            }
            .stored();
            values.push(lanes);
        }
        Row {
            sem: root,
            places: root_places,
            values: &values,
            row,
        }
        .write(&mut out);
        out.resize((row as usize + 1) * stride, 0);
    }
    out
}
