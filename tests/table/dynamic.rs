//! The growable single-buffer column (luma.gl's `DynamicBuffer` role): rows appended in pieces,
//! reallocation with a GPU copy, 2-byte rows that start inside a word, struct rows, and the
//! handover to a table.

use crate::fixtures::{alive, gpu};
use gpudata::data::GpuDataFormat;
use gpudata::table::{AppendableOptions, GpuTable, GpuVector, Growth, RecordBatchOptions};
use gpudata::{Gpu, GpuStruct, GpuVectorFormat, TableError, Unorm8x4, VertexFormat};

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
struct Point {
    position: [f32; 2],
    color: Unorm8x4,
}

/// An empty vector of `format` growing in one buffer of `initial_capacity_rows` rows at first,
/// doubling.
fn reallocating(
    gpu: &Gpu,
    name: &str,
    format: impl Into<GpuDataFormat>,
    initial_capacity_rows: u64,
) -> GpuVector {
    let growth = Growth::Reallocate {
        initial_capacity_rows,
        growth_factor: 2.0,
    };
    let options = AppendableOptions {
        growth,
        ..Default::default()
    };
    GpuVector::appendable(name, gpu, format, options).unwrap()
}

#[test]
fn appends_grow_the_buffer_with_gpu_copies() {
    let gpu = gpu();
    let mut vector = reallocating(&gpu, "pairs", VertexFormat::Uint8x2, 2);
    let mut expected: Vec<[u8; 2]> = Vec::new();
    let mut first_buffer = None;
    for step in 0..7u8 {
        // 1, 2, 3, ... rows at a time: most appends start inside a 4-byte word.
        let rows: Vec<[u8; 2]> = (0..=step).map(|i| [step, i.wrapping_mul(31)]).collect();
        vector.append_values(&rows).unwrap();
        expected.extend_from_slice(&rows);
        if first_buffer.is_none() {
            first_buffer = Some(vector.single_chunk().unwrap().share());
        }
        assert_eq!(vector.length(), expected.len() as u64);
        assert!(vector.capacity_rows().unwrap() >= vector.length());
        assert_eq!(
            vector.single_chunk().unwrap().read_bytes(&gpu).unwrap(),
            bytemuck::cast_slice::<[u8; 2], u8>(&expected),
            "after append {step}"
        );
    }
    assert!(vector.reallocations() >= 3, "{vector:?}");
    let old = first_buffer.unwrap();
    assert!(!alive(&gpu, &old), "the replaced buffer is destroyed");

    let error = vector.append_bytes(&[1, 2, 3]).unwrap_err();
    assert!(
        matches!(
            error,
            TableError::PartialRows {
                byte_length: 3,
                byte_stride: 2,
                ..
            }
        ),
        "{error:?}"
    );
    vector.append_bytes(&[]).unwrap();

    // The rows become a vector (and a table) over the same buffer.
    let buffer = vector.single_chunk().unwrap().buffer().clone();
    let length = vector.length();
    let column = vector;
    assert_eq!(column.length(), length);
    assert_eq!(column.chunks()[0].buffer(), &buffer);
    assert!(column.owns_buffer());
}

#[test]
fn struct_rows_append_and_read_back() {
    let gpu = gpu();
    let mut vector = reallocating(&gpu, "points", Point::FORMAT, 1);
    let rows: Vec<Point> = (0..9)
        .map(|i| Point {
            position: [i as f32, -(i as f32)],
            color: Unorm8x4([i as u8, 2, 3, 4]),
        })
        .collect();
    vector.append_rows(&rows[..4]).unwrap();
    vector.append_rows(&rows[4..]).unwrap();
    let typed =
        gpudata::TypedGpuData::<Point>::try_from_data(vector.single_chunk().unwrap().share())
            .unwrap();
    assert_eq!(typed.read_rows(&gpu).unwrap(), rows);

    let mut floats = GpuVector::appendable(
        "f",
        &gpu,
        VertexFormat::Float32,
        AppendableOptions::reallocating(),
    )
    .unwrap();
    let error = floats.append_rows(&rows).unwrap_err();
    assert!(
        matches!(error, TableError::FormatMismatch { .. }),
        "{error:?}"
    );

    let table = GpuTable::from_vectors([vector], RecordBatchOptions::default()).unwrap();
    assert_eq!(table.num_rows(), 9);
    assert_eq!(table.buffer_layouts()[0].attributes.len(), 2);

    let error = GpuVector::appendable(
        "lists",
        &gpu,
        GpuVectorFormat::VertexList(VertexFormat::Uint32),
        AppendableOptions::reallocating(),
    )
    .unwrap_err();
    assert!(matches!(error, TableError::ListAppend { .. }), "{error:?}");
}

#[test]
fn reset_keeps_the_buffer_and_its_capacity() {
    let gpu = gpu();
    let mut vector = reallocating(&gpu, "floats", VertexFormat::Float32, 2);
    assert!(vector.is_appendable());
    assert_eq!(vector.capacity_rows(), Some(2));
    vector.append_values(&[1.0f32, 2.0, 3.0]).unwrap();
    assert_eq!(vector.capacity_rows(), Some(4));
    assert_eq!(vector.appended_byte_length(), Some(12));
    let buffer = vector.single_chunk().unwrap().buffer().clone();
    vector.reset_appended().unwrap();
    assert_eq!((vector.length(), vector.value_length()), (0, 0));
    assert_eq!(vector.appended_byte_length(), Some(0));
    assert_eq!(vector.capacity_rows(), Some(4));
    assert_eq!(vector.single_chunk().unwrap().buffer(), &buffer);
    vector.append_values(&[7.0f32]).unwrap();
    assert_eq!(
        vector.single_chunk().unwrap().read_bytes(&gpu).unwrap(),
        7.0f32.to_le_bytes()
    );
    assert_eq!(vector.reallocations(), 1);
}

/// Issue 30: a growth factor of 1e300 made every growth's capacity overflow its bytes
/// (`TableError::Overflow`, `append.rs:469`). As `GpuStorage::reserve` does, a grown capacity
/// whose bytes overflow or pass the device's `max_buffer_size` falls back to the rows needed:
/// with 1e300 and with 1e15 (8e15 bytes of `uint32`, past any device) each growth holds exactly
/// the rows appended so far.
#[test]
fn a_huge_growth_factor_falls_back_to_the_rows_needed() {
    let gpu = gpu();
    for growth_factor in [1e300, 1e15] {
        let options = AppendableOptions {
            growth: Growth::Reallocate {
                initial_capacity_rows: 2,
                growth_factor,
            },
            ..Default::default()
        };
        let mut vector =
            GpuVector::appendable("huge", &gpu, VertexFormat::Uint32, options).unwrap();
        let mut expected: Vec<u32> = Vec::new();
        for step in 0..4u32 {
            let rows: Vec<u32> = (0..3).map(|i| step * 10 + i).collect();
            vector.append_values(&rows).unwrap();
            expected.extend_from_slice(&rows);
            assert_eq!(
                vector.capacity_rows(),
                Some(vector.length()),
                "factor {growth_factor}, append {step}"
            );
        }
        assert_eq!(vector.reallocations(), 4, "factor {growth_factor}");
        assert_eq!(
            vector.single_chunk().unwrap().read_bytes(&gpu).unwrap(),
            bytemuck::cast_slice::<u32, u8>(&expected),
            "factor {growth_factor}"
        );
    }
}
