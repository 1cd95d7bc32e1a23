//! The growable single-buffer column (luma.gl's `DynamicBuffer` role): rows appended in pieces,
//! reallocation with a GPU copy, 2-byte rows that start inside a word, struct rows, and the
//! handover to a table.

use crate::fixtures::{alive, gpu};
use gpudata::table::{ColumnsOptions, DynamicOptions, GpuDynamicVector, GpuTable};
use gpudata::{GpuStruct, GpuVectorFormat, TableError, Unorm8x4, VertexFormat};

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed")]
struct Point {
    position: [f32; 2],
    color: Unorm8x4,
}

#[test]
fn appends_grow_the_buffer_with_gpu_copies() {
    let gpu = gpu();
    let mut vector = GpuDynamicVector::new(
        &gpu,
        "pairs",
        VertexFormat::Uint8x2,
        DynamicOptions {
            initial_capacity_rows: 2,
            growth_factor: 2.0,
            ..Default::default()
        },
    )
    .unwrap();
    let mut expected: Vec<[u8; 2]> = Vec::new();
    let mut first_buffer = None;
    for step in 0..7u8 {
        // 1, 2, 3, ... rows at a time: most appends start inside a 4-byte word.
        let rows: Vec<[u8; 2]> = (0..=step).map(|i| [step, i.wrapping_mul(31)]).collect();
        vector.append_values(&rows).unwrap();
        expected.extend_from_slice(&rows);
        if first_buffer.is_none() {
            first_buffer = Some(vector.data().share());
        }
        assert_eq!(vector.length(), expected.len() as u64);
        assert!(vector.capacity_rows() >= vector.length());
        assert_eq!(
            vector.data().read_bytes(&gpu).unwrap(),
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
    let buffer = vector.data().buffer().clone();
    let length = vector.length();
    let column = vector.into_vector().unwrap();
    assert_eq!(column.length(), length);
    assert_eq!(column.chunks()[0].buffer(), &buffer);
    assert!(column.owns_buffer());
}

#[test]
fn struct_rows_append_and_read_back() {
    let gpu = gpu();
    let mut vector = GpuDynamicVector::new(
        &gpu,
        "points",
        Point::FORMAT,
        DynamicOptions {
            initial_capacity_rows: 1,
            ..Default::default()
        },
    )
    .unwrap();
    let rows: Vec<Point> = (0..9)
        .map(|i| Point {
            position: [i as f32, -(i as f32)],
            color: Unorm8x4([i as u8, 2, 3, 4]),
        })
        .collect();
    vector.append_rows(&rows[..4]).unwrap();
    vector.append_rows(&rows[4..]).unwrap();
    let typed = gpudata::TypedGpuData::<Point>::try_from_data(vector.data().share()).unwrap();
    assert_eq!(typed.read_rows(&gpu).unwrap(), rows);

    let mut floats =
        GpuDynamicVector::new(&gpu, "f", VertexFormat::Float32, DynamicOptions::default()).unwrap();
    let error = floats.append_rows(&rows).unwrap_err();
    assert!(
        matches!(error, TableError::FormatMismatch { .. }),
        "{error:?}"
    );

    let table =
        GpuTable::from_vectors([vector.into_vector().unwrap()], ColumnsOptions::default()).unwrap();
    assert_eq!(table.num_rows(), 9);
    assert_eq!(table.buffer_layouts()[0].attributes.len(), 2);

    let error = GpuDynamicVector::new(
        &gpu,
        "lists",
        GpuVectorFormat::VertexList(VertexFormat::Uint32),
        DynamicOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(error, TableError::ListAppend { .. }), "{error:?}");
}
