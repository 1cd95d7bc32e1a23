//! Helpers of the table tests: liveness checks, the columns, vectors, batches and tables the
//! tests build again and again, and error checks. The device, captures and byte helpers come
//! from `support`, re-exported for the tests' `use crate::fixtures::{..}`.

use std::fmt::{Debug, Display};

use gpudata::GpuConstant;
use gpudata::data::GpuDataFormat;
use gpudata::layout::BufferAttribute;
use gpudata::table::{
    AppendableOptions, DataVectorOptions, GpuColumn, GpuRecordBatch, GpuSchemaField, GpuTable,
    GpuVector, RecordBatchOptions, SegmentSpec, SegmentedLayout, SegmentedTable,
    SegmentedTableBuilder,
};
use gpudata::{
    BufferHandle, BufferLayout, Gpu, GpuData, GpuDataDescriptor, GpuStruct, GpuVectorFormat,
    TableError, VertexFormat,
};

pub use crate::support::{
    USAGE, compute_capture, f32_bytes, gpu, limited_gpu, render_capture, validation_error,
};

/// Whether `data`'s buffer can still be read (a destroyed buffer makes the readback return
/// wgpu's refusal as `GpuError::Validation`; nothing escapes to the caller's error scope).
pub fn alive(gpu: &Gpu, data: &GpuData) -> bool {
    let (result, escaped) = validation_error(gpu, || data.read_bytes(gpu));
    assert_eq!(escaped, None, "a wgpu error escaped the readback");
    match &result {
        Ok(_) => true,
        Err(gpudata::GpuError::Validation { source, .. }) => {
            assert!(
                source.to_string().contains("destroyed"),
                "unexpected wgpu error: {source}"
            );
            false
        }
        Err(e) => panic!("readback failed without a wgpu error: {e}"),
    }
}

/// `values` of `format` in a new owned buffer.
pub fn column<P: bytemuck::Pod>(gpu: &Gpu, format: VertexFormat, values: &[P]) -> GpuData {
    GpuData::from_slice(gpu, format, values, USAGE).unwrap()
}

/// `rows` zeroed rows of `format`.
pub fn zeroed(gpu: &Gpu, format: impl Into<GpuDataFormat>, rows: u64) -> GpuData {
    GpuData::zeroed(gpu, format, rows, USAGE).unwrap()
}

/// `bytes` described by `descriptor`, in a new owned buffer.
pub fn bytes(gpu: &Gpu, bytes: &[u8], descriptor: GpuDataDescriptor) -> GpuData {
    GpuData::from_bytes(gpu, bytes, descriptor, USAGE).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Columns, vectors, batches and tables

/// `rows` `float32x2` positions counting up from `[start, start + 0.5]`.
pub fn positions(gpu: &Gpu, rows: u64, start: f32) -> GpuData {
    let values: Vec<[f32; 2]> = (0..rows)
        .map(|i| [start + i as f32, start + i as f32 + 0.5])
        .collect();
    column(gpu, VertexFormat::Float32x2, &values)
}

/// `rows` `unorm8x4` colors derived from `seed` and the row index.
pub fn colors(gpu: &Gpu, rows: u64, seed: u8) -> GpuData {
    let values: Vec<[u8; 4]> = (0..rows as u8)
        .map(|i| [seed, i, seed.wrapping_add(i), 255])
        .collect();
    column(gpu, VertexFormat::Unorm8x4, &values)
}

/// A batch of `rows` rows: [`positions`] from `start` and [`colors`] seeded with `start`.
pub fn batch(gpu: &Gpu, rows: u64, start: f32) -> GpuRecordBatch {
    GpuRecordBatch::new([
        ("positions", positions(gpu, rows, start)),
        ("colors", colors(gpu, rows, start as u8)),
    ])
    .unwrap()
}

/// Two zeroed `float32x2` rows at a 12-byte stride: positions laid out unlike [`positions`].
pub fn strided_positions(gpu: &Gpu) -> GpuData {
    bytes(
        gpu,
        &[0; 20],
        GpuDataDescriptor::new(VertexFormat::Float32x2, 2).with_byte_stride(12),
    )
}

/// Attributes of a 16-byte row: `positions` (`float32x3` at 0), `colors` (`uint8x4` at 12).
pub fn instance_attributes() -> Vec<BufferAttribute> {
    vec![
        BufferAttribute {
            attribute: "positions".into(),
            format: VertexFormat::Float32x3,
            byte_offset: 0,
        },
        BufferAttribute {
            attribute: "colors".into(),
            format: VertexFormat::Uint8x4,
            byte_offset: 12,
        },
    ]
}

/// A table of no constants and one [`batch`] of 2 rows from each of `starts`.
pub fn batches_table(gpu: &Gpu, starts: &[f32]) -> GpuTable {
    let batches = starts.iter().map(|&start| batch(gpu, 2, start)).collect();
    GpuTable::from_batches(batches, no_constants()).unwrap()
}

/// A batch of 2 [`positions`] and the list column `texts`, with a layout for positions only.
pub fn texts_batch(gpu: &Gpu, texts: GpuData) -> GpuRecordBatch {
    with_layouts(
        [("positions", positions(gpu, 2, 0.0)), ("texts", texts)],
        vec![BufferLayout::single(
            "positions",
            VertexFormat::Float32x2,
            8,
        )],
    )
    .unwrap()
}

/// An empty appendable vector `positions` of `float32x2`.
pub fn appendable_positions(gpu: &Gpu) -> GpuVector {
    GpuVector::appendable(
        "positions",
        gpu,
        VertexFormat::Float32x2,
        AppendableOptions::default(),
    )
    .unwrap()
}

/// Two zeroed `float32` rows at byte offset 2: storage access cannot reach them.
pub fn misaligned_floats(gpu: &Gpu) -> GpuData {
    bytes(
        gpu,
        &[0u8; 10],
        GpuDataDescriptor::new(VertexFormat::Float32, 2).with_byte_offset(2),
    )
}

/// Two zeroed rows of 16 bytes without a format.
pub fn untyped(gpu: &Gpu) -> GpuData {
    bytes(
        gpu,
        &[0; 32],
        GpuDataDescriptor {
            length: 2,
            byte_stride: Some(16),
            ..Default::default()
        },
    )
}

/// The descriptor of `rows` rows of list `format` holding `values` values in all.
pub fn list_descriptor(format: GpuVectorFormat, rows: u64, values: u64) -> GpuDataDescriptor {
    GpuDataDescriptor {
        format: Some(format.into()),
        length: rows,
        value_length: Some(values),
        ..Default::default()
    }
}

/// `rows` rows of list `format` over `values` zeroed values.
pub fn zeroed_list(gpu: &Gpu, format: GpuVectorFormat, rows: u64, values: u64) -> GpuData {
    let len = values * format.element_format().byte_length();
    bytes(
        gpu,
        &vec![0; len as usize],
        list_descriptor(format, rows, values),
    )
}

/// A table of one `vertex-list<uint32>` column `paths` (2 rows, 3 values, 4-byte stride layout).
pub fn paths_table(gpu: &Gpu) -> GpuTable {
    let list = zeroed_list(gpu, GpuVectorFormat::VertexList(VertexFormat::Uint32), 2, 3);
    let paths = GpuVector::from_data_with(
        "paths",
        vec![list],
        DataVectorOptions {
            buffer_layout: Some(BufferLayout {
                name: "paths".into(),
                format: None,
                byte_stride: Some(4),
                step_mode: None,
                attributes: Vec::new(),
            }),
            ..Default::default()
        },
    )
    .unwrap();
    GpuTable::from_columns(
        [("paths", GpuColumn::from(paths))],
        RecordBatchOptions::default(),
    )
    .unwrap()
}

/// Vector `name` of [`positions`] chunks (from 0) of `chunks` rows each.
pub fn positions_vector(gpu: &Gpu, name: &str, chunks: &[u64]) -> GpuVector {
    let chunks = chunks.iter().map(|&rows| positions(gpu, rows, 0.0));
    GpuVector::from_data(name, chunks.collect()).unwrap()
}

/// Vector `name` of `float32` chunks of `chunks` rows each, every value 1.
pub fn float_vector(gpu: &Gpu, name: &str, chunks: &[u64]) -> GpuVector {
    let chunks = chunks
        .iter()
        .map(|&rows| column(gpu, VertexFormat::Float32, &vec![1.0f32; rows as usize]));
    GpuVector::from_data(name, chunks.collect()).unwrap()
}

/// Vector `name` over a new zeroed buffer of `byte_length` bytes, read through `descriptor`.
pub fn buffer_vector(
    gpu: &Gpu,
    name: &str,
    byte_length: u64,
    descriptor: GpuDataDescriptor,
) -> Result<GpuVector, TableError> {
    let buffer = zeroed(gpu, VertexFormat::Uint32, byte_length / 4).into_buffer_handle();
    GpuVector::from_buffer(name, buffer, descriptor)
}

/// A table of one column `name`: a vector of the one chunk `data`.
pub fn vector_table(name: &str, data: GpuData) -> GpuTable {
    let vector = GpuVector::from_data(name, vec![data]).unwrap();
    GpuTable::from_vectors([vector], RecordBatchOptions::default()).unwrap()
}

/// Four `float32` rows in a buffer with `VERTEX` usage only: it cannot be copied from.
pub fn vertex_only_data(gpu: &Gpu) -> GpuData {
    let locked = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("no copy"),
        size: 16,
        usage: wgpu::BufferUsages::VERTEX,
        mapped_at_creation: false,
    });
    GpuData::new(
        BufferHandle::Owned(locked),
        GpuDataDescriptor::new(VertexFormat::Float32, 4),
    )
    .unwrap()
}

/// A batch of `columns` with the explicit buffer layouts `layouts`.
pub fn with_layouts<N: Into<String>>(
    columns: impl IntoIterator<Item = (N, GpuData)>,
    layouts: Vec<BufferLayout>,
) -> Result<GpuRecordBatch, TableError> {
    GpuRecordBatch::with_options(
        columns,
        RecordBatchOptions {
            buffer_layouts: Some(layouts),
            ..Default::default()
        },
    )
}

/// A batch of `columns` with the explicit schema fields `fields`.
pub fn with_fields<N: Into<String>>(
    columns: impl IntoIterator<Item = (N, GpuData)>,
    fields: Vec<GpuSchemaField>,
) -> Result<GpuRecordBatch, TableError> {
    GpuRecordBatch::with_options(
        columns,
        RecordBatchOptions {
            fields: Some(fields),
            ..Default::default()
        },
    )
}

/// A layout whose only segment, `float32x3` column `a`, has a byte stride of 8: too small.
pub fn narrow_segment_layout() -> Result<SegmentedLayout, TableError> {
    SegmentedLayout::new(
        4,
        [SegmentSpec {
            byte_stride: Some(8),
            ..SegmentSpec::new("a", VertexFormat::Float32x3, 1)
        }],
    )
}

/// Builds a segmented table of one `float32` column `a` of `values` values from `bytes`.
pub fn build_floats(gpu: &Gpu, values: u64, bytes: &[u8]) -> Result<SegmentedTable, TableError> {
    SegmentedTableBuilder::new()
        .column_spec(SegmentSpec::new("a", VertexFormat::Float32, values), bytes)
        .build(gpu)
}

/// No table constants.
pub fn no_constants() -> Vec<(String, GpuConstant)> {
    Vec::new()
}

/// A packed struct of 1-, 2- and 4-byte fields, so rows and fields sit at unaligned offsets.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
pub struct Small {
    pub pair: [u8; 2],
    pub half: u16,
    pub tag: u8,
    pub value: f32,
}

/// Host bytes of one field of `rows`.
pub fn field_bytes(rows: &[Small], field: &str) -> Vec<u8> {
    let encoded = gpudata::record::encode_rows_to_vec(rows);
    let format = Small::FORMAT;
    let (_, f) = format.field(field).unwrap();
    let stride = format.byte_stride() as usize;
    let (offset, len) = (f.byte_offset() as usize, f.byte_length() as usize);
    encoded
        .chunks_exact(stride)
        .flat_map(|row| row[offset..offset + len].to_vec())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Errors

/// Asserts that `error` is `expected` and renders as `message`, whole.
#[track_caller]
pub fn assert_error<E: PartialEq + Debug + Display>(error: &E, expected: E, message: &str) {
    assert_eq!(*error, expected);
    assert_eq!(error.to_string(), message);
}

/// Asserts that `error` is `expected` and that its message contains `fragment`.
#[track_caller]
pub fn assert_error_contains<E: PartialEq + Debug + Display>(
    error: &E,
    expected: E,
    fragment: &str,
) {
    assert_eq!(*error, expected);
    assert!(error.to_string().contains(fragment), "{error}");
}
