//! The error catalogue (`docs/ERRORS.md`): every [`DataError`] variant triggered through the
//! public API (descriptors on the host, buffers and views on lavapipe), pinned by variant and by
//! its whole rendered message.

use gpudata::data::TypedGpuDataView;
use gpudata::data::{DEFAULT_USAGE, HostValues, decode_values};
use gpudata::layout::BufferAttribute;
use gpudata::record::{GpuFieldMarker, GpuFieldOf};
use gpudata::{
    BufferLayout, DataError, GpuData, GpuDataDescriptor, GpuDataStructFormat, GpuStruct,
    StructLayout, TypedGpuData, VertexFormat,
};

use crate::support::{buffer, gpu};

fn pair() -> GpuDataStructFormat {
    // uint8 at 0, float32 at 4: row byte length 8, byte stride 8.
    GpuDataStructFormat::parse(
        StructLayout::Packed,
        [("tag", "uint8"), ("value", "float32")],
    )
    .unwrap()
}

#[test]
fn row_byte_length_below_struct() {
    let error = GpuDataDescriptor::new(pair(), 2)
        .with_row_byte_length(5)
        .resolve(64)
        .unwrap_err();
    assert_eq!(
        error,
        DataError::RowByteLengthBelowStruct {
            row_byte_length: 5,
            struct_row_byte_length: 8
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu data row byte length 5 is smaller than struct format row byte length 8"
    );
}

#[test]
fn byte_stride_below_struct() {
    let error = GpuDataDescriptor::new(pair(), 2)
        .with_byte_stride(4)
        .resolve(64)
        .unwrap_err();
    assert_eq!(
        error,
        DataError::ByteStrideBelowStruct {
            byte_stride: 4,
            required: 8
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu data byte stride 4 is smaller than its struct row layout: expected at least 8 bytes"
    );
}

#[test]
fn row_byte_length_below_format() {
    let error = GpuDataDescriptor::new(VertexFormat::Float32x3, 2)
        .with_row_byte_length(8)
        .resolve(64)
        .unwrap_err();
    assert_eq!(
        error,
        DataError::RowByteLengthBelowFormat {
            row_byte_length: 8,
            format: VertexFormat::Float32x3,
            format_byte_length: 12
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu data row byte length 8 is smaller than float32x3 byte length 12"
    );
}

#[test]
fn byte_stride_below_row() {
    let error = GpuDataDescriptor::new(VertexFormat::Float32x2, 2)
        .with_byte_stride(4)
        .resolve(64)
        .unwrap_err();
    assert_eq!(
        error,
        DataError::ByteStrideBelowRow {
            byte_stride: 4,
            row_byte_length: 8
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu data byte stride 4 is smaller than its row byte length 8: rows would overlap"
    );
}

#[test]
fn value_length_mismatch() {
    let descriptor = GpuDataDescriptor {
        value_length: Some(3),
        ..GpuDataDescriptor::new(VertexFormat::Float32, 2)
    };
    let error = descriptor.resolve(64).unwrap_err();
    assert_eq!(
        error,
        DataError::ValueLengthMismatch {
            format: "float32".into(),
            length: 2,
            value_length: 3
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu data of fixed format float32 has 2 rows but value length 3: fixed rows hold one value each"
    );
}

#[test]
fn range_overflow() {
    let error = GpuDataDescriptor::new(VertexFormat::Float32, 2)
        .with_byte_offset(u64::MAX - 4)
        .resolve(u64::MAX)
        .unwrap_err();
    assert_eq!(
        error,
        DataError::RangeOverflow {
            what: "gpu data",
            byte_offset: u64::MAX - 4,
            count: 2,
            byte_stride: 4,
            value_byte_length: 4
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu data byte range overflows u64: byte offset 18446744073709551611, 2 values every 4 bytes of 4 bytes"
    );
}

#[test]
fn out_of_buffer() {
    let error = GpuDataDescriptor::new(VertexFormat::Float32x2, 3)
        .with_byte_offset(4)
        .resolve(24)
        .unwrap_err();
    assert_eq!(
        error,
        DataError::OutOfBuffer {
            what: "gpu data",
            byte_offset: 4,
            byte_end: 28,
            buffer_size: 24
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu data exceeds its backing buffer: it covers bytes 4..28 but the buffer holds 24 bytes"
    );

    // Views are checked the same way against their buffer.
    let gpu = gpu();
    let buffer = buffer(&gpu, 16, wgpu::BufferUsages::COPY_SRC);
    let error =
        gpudata::GpuDataView::new(&buffer, VertexFormat::Float32x2, 3, 0, None).unwrap_err();
    assert_eq!(
        error.to_string(),
        "gpu data view exceeds its backing buffer: it covers bytes 0..24 but the buffer holds 16 bytes"
    );
}

#[test]
fn view_byte_stride_below_format() {
    let gpu = gpu();
    let buffer = buffer(&gpu, 64, wgpu::BufferUsages::COPY_SRC);
    let error =
        gpudata::GpuDataView::new(&buffer, VertexFormat::Float32x3, 2, 0, Some(8)).unwrap_err();
    assert_eq!(
        error,
        DataError::ViewByteStrideBelowFormat {
            byte_stride: 8,
            format: VertexFormat::Float32x3,
            format_byte_length: 12
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu data view byte stride 8 is smaller than float32x3 byte length 12"
    );
}

fn instances(byte_stride: Option<u64>) -> BufferLayout {
    BufferLayout {
        name: "instances".into(),
        format: None,
        byte_stride,
        step_mode: None,
        attributes: vec![BufferAttribute {
            attribute: "position".into(),
            format: VertexFormat::Float32x3,
            byte_offset: 0,
        }],
    }
}

#[test]
fn missing_attribute() {
    let gpu = gpu();
    let buffer = buffer(&gpu, 64, wgpu::BufferUsages::COPY_SRC);
    let error = gpudata::GpuDataView::from_attribute(&buffer, &instances(Some(16)), "normal", 2, 0)
        .unwrap_err();
    assert_eq!(
        error,
        DataError::MissingAttribute {
            layout: "instances".into(),
            attribute: "normal".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "buffer layout `instances` does not contain attribute `normal`"
    );
}

#[test]
fn layout_without_byte_stride() {
    let gpu = gpu();
    let buffer = buffer(&gpu, 64, wgpu::BufferUsages::COPY_SRC);
    let error = gpudata::GpuDataView::from_attribute(&buffer, &instances(None), "position", 2, 0)
        .unwrap_err();
    assert_eq!(
        error,
        DataError::LayoutWithoutByteStride {
            layout: "instances".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "buffer layout `instances` requires a byte stride for attribute views"
    );
}

#[test]
fn different_buffer() {
    let gpu = gpu();
    let mut source =
        GpuData::from_slice(&gpu, VertexFormat::Float32, &[1.0f32, 2.0], DEFAULT_USAGE).unwrap();
    let mut target = GpuData::from_slice(
        &gpu,
        VertexFormat::Float32,
        &[1.0f32, 2.0, 3.0],
        DEFAULT_USAGE,
    )
    .unwrap();
    let error = source.transfer_ownership_to(&mut target).unwrap_err();
    assert_eq!(
        error,
        DataError::DifferentBuffer {
            source_size: 8,
            target_size: 12
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu data ownership can only be transferred to the same buffer: the source's 8-byte buffer is not the target's 12-byte buffer"
    );
    assert!(source.owns_buffer() && target.owns_buffer());
}

#[test]
fn rows_out_of_range() {
    let gpu = gpu();
    let data =
        GpuData::from_slice(&gpu, VertexFormat::Float32, &[1.0f32; 4], DEFAULT_USAGE).unwrap();
    let error = data.read_packed_rows(&gpu, 2, 3).unwrap_err();
    let expected = DataError::RowsOutOfRange {
        row_offset: 2,
        rows: 3,
        length: 4,
    };
    assert_eq!(error, expected);
    assert_eq!(
        error.to_string(),
        "rows 2..2+3 are outside the gpu data's 4 rows"
    );
}

#[test]
fn partial_value() {
    let gpu = gpu();
    let error = GpuData::from_slice(&gpu, VertexFormat::Float32x3, &[1.0f32, 2.0], DEFAULT_USAGE)
        .unwrap_err();
    assert_eq!(
        error,
        DataError::PartialValue {
            format: "float32x3".into(),
            byte_length: 8,
            value_byte_length: 12
        }
    );
    assert_eq!(
        error.to_string(),
        "byte length 8 is not a whole number of float32x3 values of 12 bytes"
    );
}

#[test]
fn short_bytes() {
    let error = decode_values(VertexFormat::Float32, &[0u8; 6], 2, 4).unwrap_err();
    assert_eq!(
        error,
        DataError::ShortBytes {
            format: VertexFormat::Float32,
            count: 2,
            needed: 8,
            found: 6
        }
    );
    assert_eq!(
        error.to_string(),
        "decoding 2 values of float32 needs 8 bytes, found 6"
    );
}

#[test]
fn decoding_overlapping_values_is_refused_before_allocating() {
    // Stride 0 and a huge count once tried to allocate 9 EB and aborted the process.
    let bytes = 1.0f32.to_le_bytes();
    let error = decode_values(VertexFormat::Float32, &bytes, usize::MAX / 8, 0).unwrap_err();
    assert_eq!(
        error,
        DataError::ViewByteStrideBelowFormat {
            byte_stride: 0,
            format: VertexFormat::Float32,
            format_byte_length: 4
        }
    );
    let error = decode_values(VertexFormat::Float32x2, &[0u8; 16], 3, 4).unwrap_err();
    assert!(
        matches!(
            error,
            DataError::ViewByteStrideBelowFormat { byte_stride: 4, .. }
        ),
        "{error}"
    );
    // One value needs no stride.
    assert_eq!(
        decode_values(VertexFormat::Float32, &bytes, 1, 0),
        Ok(HostValues::F32(vec![1.0]))
    );
}

/// A count of 1 reads in the singular: `1 row`, `1 value`, `1 byte`.
#[test]
fn counts_of_one_are_singular() {
    let descriptor = GpuDataDescriptor {
        value_length: Some(2),
        ..GpuDataDescriptor::new(VertexFormat::Float32, 1)
    };
    let error = descriptor.resolve(64).unwrap_err();
    assert_eq!(
        error,
        DataError::ValueLengthMismatch {
            format: "float32".into(),
            length: 1,
            value_length: 2
        }
    );
    assert_eq!(
        error.to_string(),
        "gpu data of fixed format float32 has 1 row but value length 2: fixed rows hold one value each"
    );

    let error = decode_values(VertexFormat::Float32, &[0u8; 3], 1, 4).unwrap_err();
    assert_eq!(
        error,
        DataError::ShortBytes {
            format: VertexFormat::Float32,
            count: 1,
            needed: 4,
            found: 3
        }
    );
    assert_eq!(
        error.to_string(),
        "decoding 1 value of float32 needs 4 bytes, found 3"
    );

    let error = decode_values(VertexFormat::Uint8x2, &[0u8; 1], 1, 2).unwrap_err();
    assert_eq!(
        error.to_string(),
        "decoding 1 value of uint8x2 needs 2 bytes, found 1"
    );
}

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
struct Particle {
    position: [f32; 2],
    mass: f32,
}

#[test]
fn format_mismatch() {
    let gpu = gpu();
    let data =
        GpuData::from_slice(&gpu, VertexFormat::Float32, &[1.0f32, 2.0], DEFAULT_USAGE).unwrap();
    let error = TypedGpuData::<Particle>::try_from_data(data).unwrap_err();
    let particle = std::any::type_name::<Particle>();
    assert_eq!(
        error,
        DataError::FormatMismatch {
            expected: format!("{particle} (struct<packed>{{position: float32x2, mass: float32}})"),
            found: "float32".into()
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "gpu data format mismatch: expected {particle} (struct<packed>{{position: float32x2, mass: float32}}), found float32"
        )
    );

    // A typed view of values of another size.
    let data =
        GpuData::from_slice(&gpu, VertexFormat::Float32x2, &[1.0f32; 4], DEFAULT_USAGE).unwrap();
    let error = TypedGpuDataView::<f32>::new(data.as_view().unwrap()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "gpu data format mismatch: expected values of 4 bytes (f32), found float32x2 (8 bytes)"
    );
}

/// A hand-written marker that contradicts `Particle::FORMAT`: field 1 is `mass`, not `speed`.
struct Speed;

impl GpuFieldMarker for Speed {
    type Struct = Particle;
    type Value = f32;
    const INDEX: usize = 1;
    const NAME: &'static str = "speed";
    const FORMAT: VertexFormat = VertexFormat::Float32;
    const BYTE_OFFSET: u64 = 8;

    fn get(row: &Particle) -> f32 {
        row.mass
    }
}

impl GpuFieldOf<Particle> for Speed {}

#[test]
fn marker_mismatch() {
    // Reached only through a hand-written marker; `get_child` panics with the error's message.
    let gpu = gpu();
    let rows = [Particle {
        position: [0.0, 1.0],
        mass: 2.0,
    }];
    let data = TypedGpuData::from_rows(&gpu, &rows, DEFAULT_USAGE).unwrap();
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = data.get_child::<Speed>();
    }))
    .unwrap_err();
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    let expected = DataError::MarkerMismatch {
        name: "speed",
        marker: std::any::type_name::<Speed>(),
        index: 1,
        found: "`mass` of format float32 at byte 8".into(),
    };
    assert_eq!(message, expected.to_string());
    assert_eq!(
        message,
        format!(
            "field marker `{}` names field 1 `speed` of a struct format whose field 1 is `mass` of format float32 at byte 8",
            std::any::type_name::<Speed>()
        )
    );
}
