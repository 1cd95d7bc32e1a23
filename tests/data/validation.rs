//! luma.gl's `GPUData` / `GPUDataView` derivations and validations (spec §4–5, test vectors
//! 42–59), ownership (§4.5), and the checks Rust adds: bounds, overflow, overlapping rows.

use crate::support;

use gpudata::data::{GpuDataFormat, RowMetrics};
use gpudata::layout::BufferAttribute;
use gpudata::{
    BufferHandle, BufferLayout, DataError, GpuData, GpuDataDescriptor, GpuDataStructFormat,
    GpuDataView, GpuVectorFormat, StructLayout, VertexFormat,
};

const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE;

fn packed_a_b() -> GpuDataStructFormat {
    GpuDataStructFormat::parse(StructLayout::Packed, [("a", "sint32"), ("b", "float32")]).unwrap()
}

fn metrics(descriptor: &GpuDataDescriptor) -> RowMetrics {
    descriptor.resolve(u64::MAX).unwrap()
}

#[test]
fn vector_42_struct_children_borrow_the_buffer_at_field_offsets() {
    let gpu = support::gpu();
    let buffer = support::buffer(&gpu, 64, STORAGE);
    let data = GpuData::new(
        BufferHandle::Shared(buffer.clone()),
        GpuDataDescriptor::new(packed_a_b(), 2).with_byte_offset(4),
    )
    .unwrap();
    assert_eq!(
        (data.stride(), data.row_byte_length(), data.byte_stride()),
        (2, 8, 8)
    );
    let a = data.get_child("a").unwrap();
    assert_eq!((a.byte_offset(), a.byte_stride(), a.length()), (4, 8, 2));
    assert_eq!(a.buffer(), &buffer);
    assert_eq!(data.get_child("b").unwrap().byte_offset(), 8);
    assert_eq!(data.get_child_at(0).unwrap().format(), VertexFormat::Sint32);
    assert_eq!(
        data.get_child_at(1).unwrap().format(),
        VertexFormat::Float32
    );
    assert!(data.get_child_at(2).is_none());
    assert!(data.get_child("missing").is_none());
    assert!(!data.owns_buffer());
}

#[test]
fn vector_43_non_struct_data_has_no_children() {
    let gpu = support::gpu();
    let data = GpuData::new(
        BufferHandle::Shared(support::buffer(&gpu, 4, STORAGE)),
        GpuDataDescriptor::new(VertexFormat::Float32, 1),
    )
    .unwrap();
    assert!(data.get_child("value").is_none());
    assert!(data.get_child_at(0).is_none());
    assert_eq!(data.as_view().unwrap().format(), VertexFormat::Float32);
}

#[test]
fn vectors_44_45_struct_rows_cannot_shrink() {
    let stride = GpuDataDescriptor::new(packed_a_b(), 2).with_byte_stride(4);
    assert_eq!(
        stride.resolve(64),
        Err(DataError::ByteStrideBelowStruct {
            byte_stride: 4,
            required: 8
        })
    );
    let row = GpuDataDescriptor::new(packed_a_b(), 2).with_row_byte_length(4);
    let error = row.resolve(64).unwrap_err();
    assert_eq!(
        error.to_string(),
        "gpu data row byte length 4 is smaller than struct format row byte length 8"
    );
    // A row byte length larger than the struct's must fit the stride too.
    let wide = GpuDataDescriptor::new(packed_a_b(), 2).with_row_byte_length(12);
    assert_eq!(
        wide.resolve(64),
        Err(DataError::ByteStrideBelowStruct {
            byte_stride: 8,
            required: 12
        })
    );
    assert!(error.to_string().contains("smaller than"));
    assert!(
        DataError::ByteStrideBelowStruct {
            byte_stride: 4,
            required: 8
        }
        .to_string()
        .contains("is smaller than its struct row layout")
    );
}

#[test]
fn vector_46_fixed_format_defaults() {
    let m = metrics(&GpuDataDescriptor::new(VertexFormat::Float32x3, 5));
    assert_eq!(
        m,
        RowMetrics {
            length: 5,
            value_length: 5,
            stride: 3,
            byte_offset: 0,
            byte_stride: 12,
            row_byte_length: 12
        }
    );
}

#[test]
fn vector_47_explicit_stride_keeps_the_format_row_length() {
    let m = metrics(&GpuDataDescriptor::new(VertexFormat::Float32x2, 2).with_byte_stride(12));
    assert_eq!((m.row_byte_length, m.byte_stride), (8, 12));
}

#[test]
fn vectors_48_49_format_less_data() {
    let explicit = GpuDataDescriptor {
        length: 2,
        stride: Some(16),
        byte_stride: Some(16),
        row_byte_length: Some(16),
        ..GpuDataDescriptor::default()
    };
    assert_eq!(metrics(&explicit).stride, 16);
    let stride_only = GpuDataDescriptor {
        length: 2,
        byte_stride: Some(16),
        ..GpuDataDescriptor::default()
    };
    let m = metrics(&stride_only);
    assert_eq!((m.stride, m.row_byte_length, m.byte_stride), (16, 16, 16));
    let bare = metrics(&GpuDataDescriptor::default());
    assert_eq!(
        (bare.stride, bare.row_byte_length, bare.byte_stride),
        (1, 1, 1)
    );
    // An explicit 0 is kept, as with JavaScript's `??`.
    let zero = GpuDataDescriptor {
        length: 0,
        stride: Some(0),
        byte_stride: Some(0),
        row_byte_length: Some(0),
        ..GpuDataDescriptor::default()
    };
    assert_eq!(metrics(&zero).stride, 0);
}

#[test]
fn list_formats_count_elements_not_rows() {
    let format: GpuVectorFormat = "vertex-list<float32x2>".parse().unwrap();
    let descriptor = GpuDataDescriptor {
        value_length: Some(3),
        ..GpuDataDescriptor::new(format, 2)
    };
    let m = descriptor.resolve(24).unwrap();
    assert_eq!(
        (m.length, m.value_length, m.stride, m.byte_stride),
        (2, 3, 2, 8)
    );
    assert_eq!(
        descriptor.resolve(20),
        Err(DataError::OutOfBuffer {
            what: "gpu data",
            byte_offset: 0,
            byte_end: 24,
            buffer_size: 20
        })
    );
}

#[test]
fn rust_checks_bounds_overflow_overlap_and_value_length() {
    let out = GpuDataDescriptor::new(VertexFormat::Float32x4, 2).with_byte_offset(48);
    let error = out.resolve(64).unwrap_err();
    assert_eq!(
        error.to_string(),
        "gpu data exceeds its backing buffer: it covers bytes 48..80 but the buffer holds 64 bytes"
    );
    let huge = GpuDataDescriptor::new(VertexFormat::Uint32, u64::MAX).with_byte_stride(u64::MAX);
    assert!(matches!(
        huge.resolve(64),
        Err(DataError::RangeOverflow {
            what: "gpu data",
            ..
        })
    ));
    let near_end = GpuDataDescriptor::new(VertexFormat::Uint32, 1).with_byte_offset(u64::MAX);
    assert!(matches!(
        near_end.resolve(u64::MAX),
        Err(DataError::RangeOverflow { .. })
    ));
    let overlap = GpuDataDescriptor::new(VertexFormat::Float32x2, 2).with_byte_stride(4);
    assert_eq!(
        overlap.resolve(64),
        Err(DataError::ByteStrideBelowRow {
            byte_stride: 4,
            row_byte_length: 8
        })
    );
    let short_row = GpuDataDescriptor::new(VertexFormat::Float32x2, 2).with_row_byte_length(4);
    assert_eq!(
        short_row.resolve(64),
        Err(DataError::RowByteLengthBelowFormat {
            row_byte_length: 4,
            format: VertexFormat::Float32x2,
            format_byte_length: 8
        })
    );
    let value_length = GpuDataDescriptor {
        value_length: Some(3),
        ..GpuDataDescriptor::new(VertexFormat::Float32, 2)
    };
    assert_eq!(
        value_length.resolve(64).unwrap_err().to_string(),
        "gpu data of fixed format float32 has 2 rows but value length 3: fixed rows hold one value each"
    );
    // An empty range exactly at the end of the buffer is valid.
    let empty = GpuDataDescriptor::new(VertexFormat::Uint32, 0).with_byte_offset(64);
    assert_eq!(empty.resolve(64).unwrap().length, 0);
}

#[test]
fn data_is_checked_against_the_real_buffer_size() {
    let gpu = support::gpu();
    let buffer = support::buffer(&gpu, 16, STORAGE);
    let error = GpuData::new(
        BufferHandle::Shared(buffer),
        GpuDataDescriptor::new(packed_a_b(), 3),
    )
    .unwrap_err();
    assert_eq!(
        error,
        DataError::OutOfBuffer {
            what: "gpu data",
            byte_offset: 0,
            byte_end: 24,
            buffer_size: 16
        }
    );
}

#[test]
fn vectors_51_to_57_view_validation() {
    let gpu = support::gpu();
    let buffer = support::buffer(&gpu, 64, STORAGE);
    let v = GpuDataView::new(&buffer, VertexFormat::Float32x2, 3, 0, None).unwrap();
    assert_eq!(
        (v.byte_stride(), v.element_byte_length(), v.byte_length()),
        (8, 8, 24)
    );
    let v = GpuDataView::new(&buffer, VertexFormat::Float32x3, 2, 4, Some(16)).unwrap();
    assert_eq!((v.element_byte_length(), v.byte_length()), (12, 28));
    let v = GpuDataView::new(&buffer, VertexFormat::Uint32, 0, 64, None).unwrap();
    assert_eq!(v.byte_length(), 0);
    let error = GpuDataView::new(&buffer, VertexFormat::Float32x2, 2, 0, Some(4)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "gpu data view byte stride 4 is smaller than float32x2 byte length 8"
    );
    assert!(matches!(
        GpuDataView::new(&buffer, VertexFormat::Uint32, 1, 0, Some(0)),
        Err(DataError::ViewByteStrideBelowFormat { byte_stride: 0, .. })
    ));
    let max_safe = (1u64 << 53) - 1;
    assert!(matches!(
        GpuDataView::new(&buffer, VertexFormat::Uint32, max_safe, 0, Some(max_safe)),
        Err(DataError::RangeOverflow {
            what: "gpu data view",
            ..
        })
    ));
    let error = GpuDataView::new(&buffer, VertexFormat::Float32x4, 2, 48, Some(16)).unwrap_err();
    assert_eq!(
        error,
        DataError::OutOfBuffer {
            what: "gpu data view",
            byte_offset: 48,
            byte_end: 80,
            buffer_size: 64
        }
    );
    assert!(error.to_string().contains("exceeds its backing buffer"));
}

#[test]
fn views_slice_inside_themselves() {
    let gpu = support::gpu();
    let buffer = support::buffer(&gpu, 64, STORAGE);
    let v = GpuDataView::new(&buffer, VertexFormat::Float32x2, 4, 4, Some(12)).unwrap();
    let s = v.slice(1, 2).unwrap();
    assert_eq!((s.byte_offset(), s.length(), s.byte_stride()), (16, 2, 12));
    assert!(v.slice(3, 2).is_none());
    assert!(v.slice(u64::MAX, 2).is_none());
    assert_eq!(v.slice(4, 0).unwrap().length(), 0);
}

#[test]
fn vectors_58_59_views_from_buffer_layout_attributes() {
    let gpu = support::gpu();
    let buffer = support::buffer(&gpu, 64, STORAGE);
    let layout = BufferLayout {
        name: "vertices".into(),
        format: None,
        byte_stride: Some(16),
        step_mode: None,
        attributes: vec![
            BufferAttribute {
                attribute: "positions".into(),
                format: VertexFormat::Float32x3,
                byte_offset: 0,
            },
            BufferAttribute {
                attribute: "featureIds".into(),
                format: VertexFormat::Uint32,
                byte_offset: 12,
            },
        ],
    };
    let positions = GpuDataView::from_attribute(&buffer, &layout, "positions", 3, 4).unwrap();
    assert_eq!(positions.byte_offset(), 4);
    let ids = GpuDataView::from_attribute(&buffer, &layout, "featureIds", 3, 4).unwrap();
    assert_eq!((ids.byte_offset(), ids.byte_stride()), (16, 16));
    assert_eq!(ids.format(), VertexFormat::Uint32);
    let error = GpuDataView::from_attribute(&buffer, &layout, "missing", 3, 0).unwrap_err();
    assert_eq!(
        error.to_string(),
        "buffer layout `vertices` does not contain attribute `missing`"
    );
    let strideless = BufferLayout {
        byte_stride: None,
        ..layout.clone()
    };
    assert_eq!(
        GpuDataView::from_attribute(&buffer, &strideless, "positions", 3, 0).unwrap_err(),
        DataError::LayoutWithoutByteStride {
            layout: "vertices".into()
        }
    );
    // A single-format layout is one attribute named after the layout.
    let single = BufferLayout::single("weights", VertexFormat::Float32, 4);
    let w = GpuDataView::from_attribute(&buffer, &single, "weights", 16, 0).unwrap();
    assert_eq!(w.byte_length(), 64);
    assert!(GpuDataView::from_attribute(&buffer, &single, "weights", 17, 0).is_err());
}

#[test]
fn vector_50_ownership_transfer_needs_the_same_buffer() {
    let gpu = support::gpu();
    let a = support::buffer(&gpu, 16, STORAGE);
    let b = support::buffer(&gpu, 32, STORAGE);
    let descriptor = || GpuDataDescriptor::new(VertexFormat::Float32, 4);
    let mut owner = GpuData::new(BufferHandle::Owned(a.clone()), descriptor()).unwrap();
    let mut other = GpuData::new(BufferHandle::Shared(b), descriptor()).unwrap();
    let error = owner.transfer_ownership_to(&mut other).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("gpu data ownership can only be transferred to the same buffer")
    );
    assert!(owner.owns_buffer());

    let mut borrower = GpuData::new(BufferHandle::Shared(a), descriptor()).unwrap();
    owner.transfer_ownership_to(&mut borrower).unwrap();
    assert!(!owner.owns_buffer());
    assert!(borrower.owns_buffer());
    // Transferring from a non-owner clears the target's ownership.
    owner.transfer_ownership_to(&mut borrower).unwrap();
    assert!(!borrower.owns_buffer());
}

#[test]
fn shared_data_format_and_metadata_travel_with_share() {
    let gpu = support::gpu();
    let buffer = support::buffer(&gpu, 64, STORAGE);
    let mut data = GpuData::new(
        BufferHandle::Owned(buffer),
        GpuDataDescriptor::new(packed_a_b(), 8),
    )
    .unwrap();
    data.set_readback_metadata(Some(gpudata::data::ReadbackMetadata::new(
        "utf8".to_owned(),
    )));
    let shared = data.share();
    assert!(!shared.owns_buffer());
    assert_eq!(shared.buffer(), data.buffer());
    assert_eq!(shared.metrics(), data.metrics());
    assert_eq!(
        shared.readback_metadata_as::<String>().map(String::as_str),
        Some("utf8")
    );
    assert_eq!(shared.format(), Some(&GpuDataFormat::Struct(packed_a_b())));
    assert_eq!(
        data.format().unwrap().to_string(),
        "struct<packed>{a: sint32, b: float32}"
    );
    let shared_again = data.into_shared();
    assert!(!shared_again.owns_buffer());
}
