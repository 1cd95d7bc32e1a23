//! Operations over more bytes than one storage binding holds: on a device whose
//! `max_storage_buffer_binding_size` is lowered to 1 MiB, inputs and outputs of several MiB
//! (views at unaligned offsets, odd strides) are split into several dispatches, each binding its
//! own rows. Every result must equal the CPU reference byte for byte, and the same operation on
//! the adapter's own limits (one dispatch).

use std::sync::OnceLock;

use crate::fixtures::*;
use gpudata::ops::cpu::{self, HostInput, HostOperand};
use gpudata::ops::{self, ArithmeticOp, OpPlan, Operand, OpsConfig};
use gpudata::{Gpu, GpuData, GpuDataStructFormat, GpuDataView, StructLayout, VertexFormat};

/// The binding limit of the small device.
const BINDING: u64 = 1 << 20;

/// Operations on a device that binds at most [`BINDING`] bytes of storage, at offsets that are
/// multiples of 256 bytes (as many GPUs require; more slack before each binding's first row).
fn small() -> Gpu {
    static OPS: OnceLock<Gpu> = OnceLock::new();
    OPS.get_or_init(|| {
        ops_with_limits(|l| {
            l.max_storage_buffer_binding_size = BINDING;
            l.min_storage_buffer_offset_alignment = l.min_storage_buffer_offset_alignment.max(256);
        })
    })
    .clone()
}

/// Operations on a device with the adapter's own limits.
fn large() -> Gpu {
    static OPS: OnceLock<Gpu> = OnceLock::new();
    OPS.get_or_init(fresh_gpu).clone()
}

/// Random bytes of `length` rows of `stride` bytes after `offset` bytes, a value of `format` at
/// `field` of each row, the rest random filler.
struct View {
    bytes: Vec<u8>,
    format: VertexFormat,
    length: u64,
    offset: u64,
    stride: u64,
}

impl View {
    fn new(
        rng: &mut Rng,
        format: VertexFormat,
        length: u64,
        offset: u64,
        stride: u64,
        field: u64,
    ) -> View {
        let mut bytes = random_rows(rng, format, length, offset, stride, field);
        // A few bytes after the last row, as a real buffer may have.
        bytes.extend(rng.bytes(7));
        View {
            bytes,
            format,
            length,
            offset: offset + field,
            stride,
        }
    }

    fn cpu(&self) -> HostInput<'_> {
        HostInput::new(&self.bytes, self.format, self.length)
            .with_byte_offset(self.offset)
            .with_byte_stride(self.stride)
    }

    fn gpu<'b>(&self, buffer: &'b wgpu::Buffer) -> GpuDataView<'b> {
        view_at(
            buffer,
            self.format,
            self.length,
            self.offset,
            Some(self.stride),
        )
    }
}

/// Runs `plan` and reads its output columns back.
fn columns(gpu: &Gpu, plan: OpPlan<Vec<GpuData>>) -> Vec<Vec<u8>> {
    plan.run(gpu)
        .unwrap()
        .iter()
        .map(|c| c.read_bytes(gpu).unwrap())
        .collect()
}

/// Asserts that the small device split the work and the large one did not.
fn assert_split<T>(small: &OpPlan<T>, large: &OpPlan<T>, what: &str) {
    assert!(
        small.dispatches() > 2,
        "{what}: {} dispatches on a {BINDING}-byte binding limit",
        small.dispatches()
    );
    assert!(
        large.dispatches() <= 2,
        "{what}: {} dispatches on the adapter's limits",
        large.dispatches()
    );
}

/// `add` over `views` on both devices and the CPU; `shared`: the views all read one buffer
/// (their bytes are the same).
fn check_add(views: &[View], shared: bool, what: &str) {
    let (small, large) = (small(), large());
    let operands: Vec<HostOperand<'_>> = views.iter().map(|v| v.cpu().into()).collect();
    let expected = cpu::arithmetic(ArithmeticOp::Add, &operands).unwrap();
    let mut results = Vec::new();
    let mut plans_dispatches = Vec::new();
    for gpu in [&small, &large] {
        let buffers: Vec<wgpu::Buffer> = if shared {
            let buffer = upload(gpu, &views[0].bytes);
            views.iter().map(|_| buffer.clone()).collect()
        } else {
            views.iter().map(|v| upload(gpu, &v.bytes)).collect()
        };
        let inputs: Vec<Operand<'_>> = views
            .iter()
            .zip(&buffers)
            .map(|(v, b)| v.gpu(b).into())
            .collect();
        let plan =
            ops::plan_arithmetic(gpu, &OpsConfig::default(), ArithmeticOp::Add, &inputs).unwrap();
        plans_dispatches.push(plan.dispatches());
        let column = plan.run(gpu).unwrap();
        assert_eq!(format_of(&column), expected.format(), "{what}");
        results.push(column.read_bytes(gpu).unwrap());
    }
    assert!(
        plans_dispatches[0] > 2 && plans_dispatches[1] <= 2,
        "{what}: dispatches {plans_dispatches:?}"
    );
    assert!(
        results[0] == results[1],
        "{what}: the split result differs from the single dispatch's (first at byte {:?})",
        results[0].iter().zip(&results[1]).position(|(a, b)| a != b)
    );
    let exact = !views.iter().any(|v| v.format.is_normalized());
    if exact {
        assert!(
            results[0] == expected.bytes(),
            "{what}: differs from the CPU (first at byte {:?})",
            results[0]
                .iter()
                .zip(expected.bytes())
                .position(|(a, b)| a != b)
        );
    } else {
        assert_f32_close(&results[0], expected.bytes(), 2e-6, what);
    }
}

#[test]
fn add_packed_float32_at_unaligned_offsets() {
    let mut rng = Rng::new(1);
    // 6 MiB per input; the second starts one value in, the first 3 values in.
    let n = 1_500_000;
    let a = View::new(&mut rng, VertexFormat::Float32, n, 12, 4, 0);
    let b = View::new(&mut rng, VertexFormat::Float32, n, 4, 4, 0);
    check_add(&[a, b], false, "float32 + float32");
}

#[test]
fn add_unorm8x4_strided_children() {
    let mut rng = Rng::new(2);
    // unorm8x4 in 12-byte rows at byte 4 of each row (after 8 bytes), plus packed uint8x4 one
    // value in: a float32x4 output of 8 MiB.
    let n = 500_000;
    let a = View::new(&mut rng, VertexFormat::Unorm8x4, n, 8, 12, 4);
    let b = View::new(&mut rng, VertexFormat::Uint8x4, n, 4, 4, 0);
    check_add(&[a, b], false, "unorm8x4 (stride 12) + uint8x4");
}

#[test]
fn add_float32x3_in_odd_rows() {
    let mut rng = Rng::new(3);
    // Packed float32x3 at byte 36 plus float32x3 at byte 8 of 20-byte rows.
    let n = 300_000;
    let a = View::new(&mut rng, VertexFormat::Float32x3, n, 36, 12, 0);
    let b = View::new(&mut rng, VertexFormat::Float32x3, n, 4, 20, 8);
    check_add(&[a, b], false, "float32x3 + float32x3 (stride 20)");
}

#[test]
fn add_uint16x3_webgl_interleaved_rows() {
    let mut rng = Rng::new(4);
    // uint16x3 in 10-byte rows at byte 2 (after 6 bytes), plus a packed uint16x3 one value in:
    // a uint16x3 output (6-byte rows, so invocations write whole words of several rows).
    let n = 600_000;
    let a = View::new(&mut rng, VertexFormat::Uint16x3Webgl, n, 6, 10, 2);
    let b = View::new(&mut rng, VertexFormat::Uint16x3Webgl, n, 6, 6, 0);
    check_add(
        &[a, b],
        false,
        "uint16x3-webgl (stride 10) + uint16x3-webgl",
    );
}

#[test]
fn add_three_views_of_one_buffer() {
    let mut rng = Rng::new(5);
    // Three float32x2 children of one buffer of 24-byte rows (at bytes 0, 8 and 16) after 4
    // bytes: one source group, one binding per dispatch.
    let n = 300_000;
    let bytes = {
        let mut b = random_rows(&mut rng, VertexFormat::Float32x2, n, 4, 24, 0);
        for row in 0..n {
            for field in [8u64, 16] {
                let at = (4 + row * 24 + field) as usize;
                let v = random_value(&mut rng, VertexFormat::Float32x2);
                b[at..at + 8].copy_from_slice(&v);
            }
        }
        b
    };
    let views: Vec<View> = [0u64, 8, 16]
        .into_iter()
        .map(|field| View {
            bytes: bytes.clone(),
            format: VertexFormat::Float32x2,
            length: n,
            offset: 4 + field,
            stride: 24,
        })
        .collect();
    check_add(&views, true, "three float32x2 children of 24-byte rows");
}

#[test]
fn add_two_far_apart_views_of_one_buffer() {
    let mut rng = Rng::new(9);
    // The two halves of one buffer (the second 4 bytes past the first's end): each run of rows
    // binds the two ranges separately, as together they span more than a binding.
    let n = 400_000;
    let bytes = random_rows(&mut rng, VertexFormat::Float32x2, 2 * n + 1, 0, 8, 0);
    let views: Vec<View> = [0u64, 8 * n + 8]
        .into_iter()
        .map(|offset| View {
            bytes: bytes.clone(),
            format: VertexFormat::Float32x2,
            length: n,
            offset,
            stride: 8,
        })
        .collect();
    check_add(&views, true, "two halves of one float32x2 buffer");
}

/// Wgsl-storage rows: `float32x3`, `unorm8x4`, a 6-byte `uint16x3-webgl` (whose packed
/// column's words span rows) and `float32x2`.
fn vertex_format() -> GpuDataStructFormat {
    GpuDataStructFormat::parse(
        StructLayout::WgslStorage,
        [
            ("position", "float32x3"),
            ("color", "unorm8x4"),
            ("index", "uint16x3-webgl"),
            ("uv", "float32x2"),
        ],
    )
    .unwrap()
}

#[test]
fn interleave_and_deinterleave_many_mib() {
    let mut rng = Rng::new(6);
    let format = vertex_format();
    let n = 200_000;
    // Columns: packed at odd offsets, and one strided child.
    let views = [
        View::new(&mut rng, VertexFormat::Float32x3, n, 20, 12, 0),
        View::new(&mut rng, VertexFormat::Unorm8x4, n, 8, 12, 4),
        View::new(&mut rng, VertexFormat::Uint16x3Webgl, n, 2, 6, 0),
        View::new(&mut rng, VertexFormat::Float32x2, n, 44, 8, 0),
    ];
    let cpu_inputs: Vec<HostInput<'_>> = views.iter().map(View::cpu).collect();
    let expected = cpu::interleave(&cpu_inputs, &format).unwrap();
    assert!(expected.bytes().len() as u64 > 4 * BINDING);
    let (small, large) = (small(), large());
    let mut rows_bytes = Vec::new();
    for gpu in [&small, &large] {
        let buffers: Vec<wgpu::Buffer> = views.iter().map(|v| upload(gpu, &v.bytes)).collect();
        let inputs: Vec<GpuDataView<'_>> =
            views.iter().zip(&buffers).map(|(v, b)| v.gpu(b)).collect();
        let plan = ops::plan_interleave(gpu, &OpsConfig::default(), &inputs, &format).unwrap();
        let dispatches = plan.dispatches();
        let rows = plan.run(gpu).unwrap();
        let bytes = rows.read_bytes(gpu).unwrap();
        assert!(
            bytes == expected.bytes(),
            "interleave ({dispatches} dispatches): first difference at byte {:?}",
            bytes.iter().zip(expected.bytes()).position(|(a, b)| a != b)
        );
        rows_bytes.push(bytes);
    }

    // Deinterleave the rows from an unaligned offset (after 20 bytes) on both devices.
    let mut shifted = rng.bytes(20);
    shifted.extend_from_slice(&rows_bytes[0]);
    let stride = format.byte_stride();
    let host_views: Vec<HostInput<'_>> = format
        .fields()
        .iter()
        .map(|f| {
            HostInput::new(&shifted, f.format(), n)
                .with_byte_offset(20 + f.byte_offset())
                .with_byte_stride(stride)
        })
        .collect();
    let expected: Vec<Vec<u8>> = cpu::deinterleave_views(&host_views)
        .unwrap()
        .iter()
        .map(|c| c.bytes().to_vec())
        .collect();
    let mut plans = Vec::new();
    let mut found = Vec::new();
    for gpu in [&small, &large] {
        let buffer = upload(gpu, &shifted);
        let input = rows_at(&buffer, &format, n, 20, None);
        let plan = ops::plan_deinterleave(gpu, &OpsConfig::default(), &input, None).unwrap();
        plans.push(plan.dispatches());
        found.push(columns(gpu, plan));
    }
    assert!(plans[0] > 2 && plans[1] <= 2, "dispatches {plans:?}");
    for (side, columns) in found.iter().enumerate() {
        for (i, (column, want)) in columns.iter().zip(&expected).enumerate() {
            assert!(
                column == want,
                "deinterleave on device {side}, field {i}: first difference at byte {:?}",
                column.iter().zip(want).position(|(a, b)| a != b)
            );
        }
    }
}

#[test]
fn fround_packed_and_strided() {
    let mut rng = Rng::new(7);
    let n = 400_000;
    let doubles = |rng: &mut Rng, count: u64| -> Vec<u8> {
        (0..count)
            .flat_map(|_| {
                // Doubles of every magnitude the split handles, sign included.
                let exponent = 1023 - 200 + rng.below(400);
                let bits = (rng.next_u64() & 0x800f_ffff_ffff_ffff) | (exponent << 52);
                bits.to_le_bytes()
            })
            .collect()
    };
    // uint32x2 packed 12 bytes in; uint32x4 (two doubles) at byte 4 of 20-byte rows.
    let mut packed = rng.bytes(12);
    packed.extend(doubles(&mut rng, n));
    let packed = View {
        bytes: packed,
        format: VertexFormat::Uint32x2,
        length: n,
        offset: 12,
        stride: 8,
    };
    let mut strided = Vec::new();
    for _ in 0..n / 2 {
        strided.extend(rng.bytes(4));
        strided.extend(doubles(&mut rng, 2));
    }
    let strided = View {
        bytes: strided,
        format: VertexFormat::Uint32x4,
        length: n / 2,
        offset: 4,
        stride: 20,
    };
    let (small, large) = (small(), large());
    for view in [&packed, &strided] {
        let expected = cpu::fround(view.cpu()).unwrap();
        let mut results = Vec::new();
        for gpu in [&small, &large] {
            let buffer = upload(gpu, &view.bytes);
            let plan = ops::plan_fround(gpu, &OpsConfig::default(), view.gpu(&buffer)).unwrap();
            let dispatches = plan.dispatches();
            let column = plan.run(gpu).unwrap();
            results.push((dispatches, column.read_bytes(gpu).unwrap()));
        }
        assert!(
            results[0].0 > 2 && results[1].0 <= 2,
            "{:?}: dispatches {} and {}",
            view.format,
            results[0].0,
            results[1].0
        );
        for (dispatches, bytes) in &results {
            assert!(
                bytes == expected.bytes(),
                "fround {:?} ({dispatches} dispatches): first difference at byte {:?}",
                view.format,
                bytes.iter().zip(expected.bytes()).position(|(a, b)| a != b)
            );
        }
    }
}

#[test]
fn one_plan_encodes_every_chunk() {
    // `encode` records every dispatch of a split plan: running it twice into a pass of ours
    // gives the same bytes as `run`.
    let mut rng = Rng::new(8);
    let n = 700_000;
    let a = View::new(&mut rng, VertexFormat::Float32, n, 8, 4, 0);
    let gpu = small();
    let buffer = upload(&gpu, &a.bytes);
    let plan = ops::plan_arithmetic(
        &gpu,
        &OpsConfig::default(),
        ArithmeticOp::Add,
        &[a.gpu(&buffer).into(), 1.5f32.into()],
    )
    .unwrap();
    let large = large();
    let large_buffer = upload(&large, &a.bytes);
    let reference = ops::plan_arithmetic(
        &large,
        &OpsConfig::default(),
        ArithmeticOp::Add,
        &[a.gpu(&large_buffer).into(), 1.5f32.into()],
    )
    .unwrap();
    assert_split(&plan, &reference, "float32 + 1.5");
    let mut encoder = gpu
        .device()
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        plan.encode(&mut pass);
        plan.encode(&mut pass);
    }
    gpu.queue().submit([encoder.finish()]);
    let found = plan.output().read_bytes(&gpu).unwrap();
    let expected = cpu::arithmetic(ArithmeticOp::Add, &[a.cpu().into(), 1.5f32.into()]).unwrap();
    assert!(
        found == expected.bytes(),
        "float32 + 1.5 differs from the CPU"
    );
}
