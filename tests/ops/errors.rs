//! The error catalogue (`docs/ERRORS.md`): every [`OpError`] variant triggered through the
//! public API on lavapipe (devices with lowered limits where a limit is the point), pinned by
//! variant and by its whole rendered message.

use gpudata::data::DEFAULT_USAGE;
use gpudata::ops::cpu::{self, HostInput};
use gpudata::ops::{self, ArithmeticOp, Literal, Operand, OpsConfig};
use gpudata::{
    Gpu, GpuData, GpuDataStructFormat, GpuDataView, GpuError, OpError, StructLayout, VertexFormat,
};

use crate::fixtures::{f32_bytes, ops_with, rows_at, upload, view, view_at};
use crate::support::gpu;

fn float_buffer(gpu: &Gpu, values: &[f32]) -> wgpu::Buffer {
    upload(gpu, &f32_bytes(values))
}

fn pair_format() -> GpuDataStructFormat {
    GpuDataStructFormat::parse(
        StructLayout::WgslStorage,
        [("position", "float32x2"), ("mass", "float32")],
    )
    .unwrap()
}

#[test]
fn no_inputs() {
    let error = ops::interleave(&gpu(), &[], &pair_format()).unwrap_err();
    assert_eq!(error, OpError::NoInputs { op: "interleave" });
    assert_eq!(
        error.to_string(),
        "interleave: expected at least one input, found none"
    );
}

#[test]
fn no_gpu_input() {
    let error = ops::arithmetic(&gpu(), ArithmeticOp::Add, &[1.0.into(), 2.0.into()]).unwrap_err();
    assert_eq!(error, OpError::NoGpuInput { op: "add" });
    assert_eq!(
        error.to_string(),
        "add: expected at least one GPU input, found only constants"
    );
}

#[test]
fn constant_lanes() {
    let error = Literal::vector(&[1.0; 5]).unwrap_err();
    assert_eq!(
        error,
        OpError::ConstantLanes {
            op: "literal",
            input: 0,
            lanes: 5
        }
    );
    assert_eq!(
        error.to_string(),
        "literal: constant 0 has 5 lanes: expected 1 to 4"
    );
}

#[test]
fn length_mismatch() {
    let gpu = gpu();
    let a = float_buffer(&gpu, &[1.0; 10]);
    let b = float_buffer(&gpu, &[2.0; 11]);
    let error = ops::add(
        &gpu,
        view(&a, VertexFormat::Float32, 10),
        view(&b, VertexFormat::Float32, 11),
    )
    .unwrap_err();
    assert_eq!(
        error,
        OpError::LengthMismatch {
            op: "add",
            input: 1,
            expected: 10,
            found: 11
        }
    );
    assert_eq!(
        error.to_string(),
        "add: input 1 has 11 rows, expected 10 like input 0"
    );
}

#[test]
fn unsupported_format() {
    let gpu = gpu();
    let a = float_buffer(&gpu, &[1.0; 4]);
    let error = ops::fround(&gpu, view(&a, VertexFormat::Float32, 4)).unwrap_err();
    assert_eq!(
        error,
        OpError::UnsupportedFormat {
            op: "fround",
            input: 0,
            format: VertexFormat::Float32,
            expected: "`uint32x2` or `uint32x4` (one or two float64 values as little-endian word pairs)"
        }
    );
    assert_eq!(
        error.to_string(),
        "fround: input 0 has format `float32`, expected `uint32x2` or `uint32x4` (one or two float64 values as little-endian word pairs)"
    );
}

#[test]
fn misaligned() {
    let gpu = gpu();
    let a = float_buffer(&gpu, &[1.0; 8]);
    let input = view_at(&a, VertexFormat::Float32, 4, 2, None);
    let error = ops::add(&gpu, input, input).unwrap_err();
    assert_eq!(
        error,
        OpError::Misaligned {
            op: "add",
            input: 0,
            format: VertexFormat::Float32,
            byte_offset: 2,
            byte_stride: 4,
            alignment: 4
        }
    );
    assert_eq!(
        error.to_string(),
        "add: input 0 (`float32`) has byte offset 2 and byte stride 4: both must be multiples of 4"
    );
}

#[test]
fn stride_too_small() {
    // A `GpuDataView` narrower than its format is refused when it is made (a `DataError`); the
    // CPU reference, which reads host bytes, checks the rule itself.
    let gpu = gpu();
    let a = float_buffer(&gpu, &[1.0; 8]);
    assert!(GpuDataView::new(&a, VertexFormat::Float32x2, 4, 0, Some(4)).is_err());
    let bytes = [0u8; 32];
    let input = HostInput::new(&bytes, VertexFormat::Float32x2, 4).with_byte_stride(4);
    let error = cpu::add(input, input).unwrap_err();
    assert_eq!(
        error,
        OpError::StrideTooSmall {
            op: "add",
            input: 0,
            format: VertexFormat::Float32x2,
            byte_stride: 4,
            byte_length: 8
        }
    );
    assert_eq!(
        error.to_string(),
        "add: input 0 has byte stride 4, smaller than the 8 bytes of one `float32x2` value"
    );
}

#[test]
fn out_of_bounds() {
    // On the GPU, a view past its buffer is refused when it is made (a `DataError`); a view whose
    // last value ends inside the buffer's last partial word is this error (storage bindings read
    // whole words). The CPU reference checks the rows against its host bytes.
    let gpu = gpu();
    let a = float_buffer(&gpu, &[1.0; 20]);
    assert!(GpuDataView::new(&a, VertexFormat::Float32x2, 11, 0, None).is_err());
    let odd = crate::support::buffer(&gpu, 6, wgpu::BufferUsages::STORAGE);
    assert_eq!(
        ops::add(&gpu, view(&odd, VertexFormat::Uint8, 6), 1.0).unwrap_err(),
        OpError::OutOfBounds {
            op: "add",
            input: 0,
            needed: 8,
            available: 6
        }
    );
    let bytes = [0u8; 80];
    let input = HostInput::new(&bytes, VertexFormat::Float32x2, 11);
    let error = cpu::add(input, input).unwrap_err();
    assert_eq!(
        error,
        OpError::OutOfBounds {
            op: "add",
            input: 0,
            needed: 88,
            available: 80
        }
    );
    assert_eq!(
        error.to_string(),
        "add: input 0 needs bytes up to 88, but its buffer holds 80 bytes"
    );
}

#[test]
fn overflow() {
    // A `GpuDataView` whose range overflows is refused when it is made (a `DataError`); the CPU
    // reference checks its host inputs' arithmetic itself.
    let gpu = gpu();
    let a = float_buffer(&gpu, &[1.0; 4]);
    assert!(GpuDataView::new(&a, VertexFormat::Float32, 2, u64::MAX - 3, None).is_err());
    let bytes = [0u8; 16];
    let input = HostInput::new(&bytes, VertexFormat::Float32, 2).with_byte_offset(u64::MAX - 3);
    let error = cpu::add(input, input).unwrap_err();
    assert_eq!(
        error,
        OpError::Overflow {
            op: "add",
            input: 0
        }
    );
    assert_eq!(
        error.to_string(),
        "add: byte range of input 0 overflows u64"
    );
}

#[test]
fn too_many_rows_message() {
    // More than u32::MAX rows need an input buffer of more than 4 GiB (rows of at least one
    // byte, each inside the buffer): more than lavapipe's `max_buffer_size`, and more than a
    // test should allocate elsewhere. The guard's message is pinned from the variant.
    let error = OpError::TooManyRows {
        op: "add",
        length: 1 << 32,
        max: u64::from(u32::MAX),
    };
    assert_eq!(
        error.to_string(),
        "add: 4294967296 rows, expected at most 4294967295"
    );
}

#[test]
fn data_message() {
    // The operations build their data descriptors themselves; pinned from the variant.
    let inner = gpudata::DataError::OutOfBuffer {
        what: "gpu data",
        byte_offset: 0,
        byte_end: 12,
        buffer_size: 8,
    };
    let error = OpError::Data {
        op: "fround",
        source: inner.clone(),
    };
    assert_eq!(error.to_string(), format!("fround: {inner}"));
}

#[test]
fn out_of_memory_message() {
    // Running a device out of memory is not something a test should do; the device layer's
    // variant, as an operation wraps it, is pinned from the variant.
    let error = OpError::Gpu {
        op: "add",
        source: GpuError::OutOfMemory {
            operation: "create the output buffers",
            bytes: None,
        },
    };
    assert_eq!(
        error.to_string(),
        "add: the device ran out of memory to create the output buffers"
    );
}

#[test]
fn field_count_mismatch() {
    let gpu = gpu();
    let a = float_buffer(&gpu, &[1.0; 8]);
    let error = ops::interleave(
        &gpu,
        &[view(&a, VertexFormat::Float32x2, 4)],
        &pair_format(),
    )
    .unwrap_err();
    assert_eq!(
        error,
        OpError::FieldCountMismatch {
            op: "interleave",
            expected: 2,
            found: 1
        }
    );
    assert_eq!(
        error.to_string(),
        "interleave: struct format has 2 fields, found 1 input"
    );
}

#[test]
fn field_format_mismatch() {
    let gpu = gpu();
    let a = float_buffer(&gpu, &[1.0; 8]);
    let error = ops::interleave(
        &gpu,
        &[
            view(&a, VertexFormat::Float32x2, 4),
            view(&a, VertexFormat::Uint8x4, 4),
        ],
        &pair_format(),
    )
    .unwrap_err();
    assert_eq!(
        error,
        OpError::FieldFormatMismatch {
            op: "interleave",
            field: "mass".into(),
            input: 1,
            expected: VertexFormat::Float32,
            found: VertexFormat::Uint8x4
        }
    );
    assert_eq!(
        error.to_string(),
        "interleave: field `mass` has format `float32`, but input 1 has `uint8x4`: interleave and deinterleave move bytes, so formats need the same components and component size"
    );
}

#[test]
fn unknown_field() {
    let gpu = gpu();
    let format = pair_format();
    let rows = upload(&gpu, &[0u8; 64]);
    let input = rows_at(&rows, &format, 4, 0, None);
    let error = ops::deinterleave(&gpu, &input, Some(&["velocity"])).unwrap_err();
    assert_eq!(
        error,
        OpError::UnknownField {
            op: "deinterleave",
            field: "velocity".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "deinterleave: the struct format has no field `velocity`"
    );
}

#[test]
fn too_many_bindings() {
    // Four storage buffers per stage: three distinct inputs and the output fit, four do not.
    let (gpu, _) = ops_with(
        |l| l.max_storage_buffers_per_shader_stage = 4,
        OpsConfig::default(),
    );
    let buffers: Vec<wgpu::Buffer> = (0..4).map(|_| float_buffer(&gpu, &[1.0; 16])).collect();
    let operands: Vec<Operand<'_>> = buffers
        .iter()
        .map(|b| view(b, VertexFormat::Float32, 16).into())
        .collect();
    ops::arithmetic(&gpu, ArithmeticOp::Add, &operands[..3]).unwrap();
    let error = ops::arithmetic(&gpu, ArithmeticOp::Add, &operands).unwrap_err();
    assert_eq!(
        error,
        OpError::TooManyBindings {
            op: "add",
            what: "storage buffers per shader stage",
            needed: 5,
            limit: 4
        }
    );
    assert_eq!(
        error.to_string(),
        "add: needs 5 storage buffers per shader stage, exceeding the device limit 4"
    );
}

#[test]
fn too_large() {
    // A device that binds at most 1 KiB of storage. Columns larger than that are split into
    // runs of rows, but one row whose values lie 2000 bytes apart (both fields of 2 KiB rows)
    // cannot be.
    let (gpu, _) = ops_with(
        |l| l.max_storage_buffer_binding_size = 1024,
        OpsConfig::default(),
    );
    let a = float_buffer(&gpu, &[1.0; 2048]);
    let column = ops::add(&gpu, view(&a, VertexFormat::Float32, 2048), 1.0).unwrap();
    assert_eq!(column.read_bytes(&gpu).unwrap(), [0, 0, 0, 64].repeat(2048));
    let field = |offset| view_at(&a, VertexFormat::Float32, 4, offset, Some(2048));
    let error = ops::add(&gpu, field(0), field(2000)).unwrap_err();
    let OpError::TooLarge {
        op: "add",
        what: "a storage binding",
        size,
        limit: 1024,
    } = error
    else {
        panic!("expected TooLarge, found {error:?}");
    };
    assert!(size > 1024, "{size}");
    assert_eq!(
        error.to_string(),
        format!("add: needs a storage binding of {size} bytes, exceeding the device limit 1024")
    );
}

#[test]
fn output_too_large() {
    // A device whose buffers hold at most 1 KiB: 256 unorm8x4 rows (1 KiB) fit, but adding a
    // constant to them writes float32x4 rows, 4 KiB, which no buffer of that device can hold.
    let (gpu, _) = ops_with(|l| l.max_buffer_size = 1024, OpsConfig::default());
    let a = upload(&gpu, &[255u8; 1024]);
    let error = ops::add(&gpu, view(&a, VertexFormat::Unorm8x4, 256), 0.0).unwrap_err();
    let OpError::TooLarge {
        op: "add",
        what: "an output buffer",
        size,
        limit: 1024,
    } = error
    else {
        panic!("expected TooLarge, found {error:?}");
    };
    assert!(size >= 4096, "{size}");
    assert_eq!(
        error.to_string(),
        format!("add: needs an output buffer of {size} bytes, exceeding the device limit 1024")
    );
}

#[test]
fn dispatch_too_large() {
    // 16 workgroups per dimension of one invocation each: 5000 rows need 1250 > 16 x 16.
    let (gpu, config) = ops_with(
        |l| l.max_compute_workgroups_per_dimension = 16,
        OpsConfig {
            workgroup_size: 1,
            rows_per_thread: None,
            ..OpsConfig::default()
        },
    );
    let a = float_buffer(&gpu, &[1.0; 5000]);
    let input = view(&a, VertexFormat::Float32, 5000);
    let error = ops::plan_arithmetic(
        &gpu,
        &config,
        ArithmeticOp::Add,
        &[input.into(), input.into()],
    )
    .unwrap_err();
    assert_eq!(
        error,
        OpError::DispatchTooLarge {
            op: "add",
            workgroups: 1250,
            limit: 16
        }
    );
    assert_eq!(
        error.to_string(),
        "add: needs 1250 workgroups, exceeding 16 per dimension in two dimensions"
    );
}

#[test]
fn wrong_data() {
    let gpu = gpu();
    let rows = GpuData::zeroed(&gpu, pair_format(), 4, DEFAULT_USAGE).unwrap();
    let error = Operand::try_from(&rows).unwrap_err();
    assert_eq!(
        error,
        OpError::WrongData {
            op: "input",
            expected: "gpu data of one fixed vertex format",
            found: "format `struct<wgsl-storage>{position: float32x2, mass: float32}`".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "input: expected gpu data of one fixed vertex format, found format `struct<wgsl-storage>{position: float32x2, mass: float32}`"
    );
}

#[test]
fn device() {
    // The device refuses the submission: the input's buffer was destroyed after planning.
    let gpu = gpu();
    let a = float_buffer(&gpu, &[1.0; 64]);
    let plan = ops::plan_arithmetic(
        &gpu,
        &OpsConfig::default(),
        ArithmeticOp::Add,
        &[view(&a, VertexFormat::Float32, 64).into(), 1.0.into()],
    )
    .unwrap();
    a.destroy();
    let error = plan.run(&gpu).unwrap_err();
    let OpError::Gpu {
        op: "add",
        source:
            GpuError::Validation {
                operation: "submit the kernels",
                source,
            },
    } = &error
    else {
        panic!("expected Gpu, found {error:?}");
    };
    assert!(source.to_string().contains("destroyed"), "{source}");
    assert_eq!(
        error.to_string(),
        format!("add: wgpu refused to submit the kernels: {source}")
    );
}
