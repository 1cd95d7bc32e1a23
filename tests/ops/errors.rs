//! The error catalogue (`docs/ERRORS.md`): every [`OpError`] variant triggered through the
//! public API on lavapipe (devices with lowered limits where a limit is the point), pinned by
//! variant and by its whole rendered message.

use std::sync::OnceLock;

use gpudata::data::DEFAULT_USAGE;
use gpudata::ops::{ArithmeticOp, Constant, GpuOps, OpInput, OpsConfig, RowsInput};
use gpudata::{GpuData, GpuDataStructFormat, OpError, StructLayout, VertexFormat};

use crate::fixtures::{f32_bytes, ops_with, upload};
use crate::support::{buffer, gpu};

/// Operations on the test binary's device (the tests make buffers on it with `gpu()`).
fn ops() -> GpuOps {
    static OPS: OnceLock<GpuOps> = OnceLock::new();
    OPS.get_or_init(|| GpuOps::from_gpu(&gpu())).clone()
}

fn floats(ops: &GpuOps, values: &[f32]) -> wgpu::Buffer {
    upload(ops, &f32_bytes(values))
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
    let error = ops().interleave(&[], &pair_format()).unwrap_err();
    assert_eq!(error, OpError::NoInputs { op: "interleave" });
    assert_eq!(
        error.to_string(),
        "interleave: expected at least one input, found none"
    );
}

#[test]
fn no_gpu_input() {
    let error = ops()
        .arithmetic(ArithmeticOp::Add, &[1.0.into(), 2.0.into()])
        .unwrap_err();
    assert_eq!(error, OpError::NoGpuInput { op: "add" });
    assert_eq!(
        error.to_string(),
        "add: expected at least one GPU input, found only constants"
    );
}

#[test]
fn constant_lanes() {
    let error = Constant::vector(&[1.0; 5]).unwrap_err();
    assert_eq!(
        error,
        OpError::ConstantLanes {
            op: "constant",
            input: 0,
            lanes: 5
        }
    );
    assert_eq!(
        error.to_string(),
        "constant: constant 0 has 5 lanes: expected 1 to 4"
    );
}

#[test]
fn length_mismatch() {
    let ops = ops();
    let a = floats(&ops, &[1.0; 10]);
    let b = floats(&ops, &[2.0; 11]);
    let error = ops
        .add(
            OpInput::new(&a, VertexFormat::Float32, 10),
            OpInput::new(&b, VertexFormat::Float32, 11),
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
    let ops = ops();
    let a = floats(&ops, &[1.0; 4]);
    let error = ops
        .fround(OpInput::new(&a, VertexFormat::Float32, 4))
        .unwrap_err();
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
    let ops = ops();
    let a = floats(&ops, &[1.0; 8]);
    let input = OpInput::new(&a, VertexFormat::Float32, 4).with_byte_offset(2);
    let error = ops.add(input, input).unwrap_err();
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
    let ops = ops();
    let a = floats(&ops, &[1.0; 8]);
    let input = OpInput::new(&a, VertexFormat::Float32x2, 4).with_byte_stride(4);
    let error = ops.add(input, input).unwrap_err();
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
    let ops = ops();
    let a = floats(&ops, &[1.0; 20]);
    let input = OpInput::new(&a, VertexFormat::Float32x2, 11);
    let error = ops.add(input, input).unwrap_err();
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
    let ops = ops();
    let a = floats(&ops, &[1.0; 4]);
    let input = OpInput::new(&a, VertexFormat::Float32, 2).with_byte_offset(u64::MAX - 3);
    let error = ops.add(input, input).unwrap_err();
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
fn field_count_mismatch() {
    let ops = ops();
    let a = floats(&ops, &[1.0; 8]);
    let error = ops
        .interleave(
            &[OpInput::new(&a, VertexFormat::Float32x2, 4)],
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
    let ops = ops();
    let a = floats(&ops, &[1.0; 8]);
    let error = ops
        .interleave(
            &[
                OpInput::new(&a, VertexFormat::Float32x2, 4),
                OpInput::new(&a, VertexFormat::Uint8x4, 4),
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
    let ops = ops();
    let format = pair_format();
    let rows = upload(&ops, &[0u8; 64]);
    let input = RowsInput::new(&rows, &format, 4);
    let error = ops.deinterleave(&input, Some(&["velocity"])).unwrap_err();
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
    let ops = ops_with(
        |l| l.max_storage_buffers_per_shader_stage = 4,
        OpsConfig::default(),
    );
    let buffers: Vec<wgpu::Buffer> = (0..4).map(|_| floats(&ops, &[1.0; 16])).collect();
    let operands: Vec<gpudata::ops::Operand<'_>> = buffers
        .iter()
        .map(|b| OpInput::new(b, VertexFormat::Float32, 16).into())
        .collect();
    ops.arithmetic(ArithmeticOp::Add, &operands[..3]).unwrap();
    let error = ops.arithmetic(ArithmeticOp::Add, &operands).unwrap_err();
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
    let ops = ops_with(
        |l| l.max_storage_buffer_binding_size = 1024,
        OpsConfig::default(),
    );
    let a = floats(&ops, &[1.0; 2048]);
    let column = ops
        .add(OpInput::new(&a, VertexFormat::Float32, 2048), 1.0)
        .unwrap();
    assert_eq!(column.read_bytes(&ops).unwrap(), [0, 0, 0, 64].repeat(2048));
    let field = |offset| {
        OpInput::new(&a, VertexFormat::Float32, 4)
            .with_byte_offset(offset)
            .with_byte_stride(2048)
    };
    let error = ops.add(field(0), field(2000)).unwrap_err();
    let OpError::TooLarge {
        op: "add",
        what: "storage binding",
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
fn dispatch_too_large() {
    // 16 workgroups per dimension of one invocation each: 5000 rows need 1250 > 16 x 16.
    let ops = ops_with(
        |l| l.max_compute_workgroups_per_dimension = 16,
        OpsConfig {
            workgroup_size: 1,
            rows_per_thread: None,
            ..OpsConfig::default()
        },
    );
    let a = floats(&ops, &[1.0; 5000]);
    let input = OpInput::new(&a, VertexFormat::Float32, 5000);
    let error = ops.add(input, input).unwrap_err();
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
    let error = OpInput::try_from(&rows).unwrap_err();
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
    // The device refuses the readback copy: the buffer was created without COPY_SRC.
    let gpu = gpu();
    let ops = ops();
    let no_copy_src = buffer(&gpu, 16, wgpu::BufferUsages::STORAGE);
    let error = ops.read_buffer(&no_copy_src, 0, 16).unwrap_err();
    let OpError::Device {
        op: "read",
        message,
    } = &error
    else {
        panic!("expected Device, found {error:?}");
    };
    assert!(message.contains("COPY_SRC"), "{message}");
    assert_eq!(
        error.to_string(),
        format!("read: the device reported an error: {message}")
    );
}
