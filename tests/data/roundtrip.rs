//! Upload → readback identity on a real device (lavapipe without a GPU): random rows of several
//! derived structs (memcpy path, per-field encoder, wgsl-storage padding), uploads larger than one
//! staging chunk, rows written at an offset, views over interleaved rows, blocking and async
//! forms, usage-flag and storage-alignment errors, and destroy on owned vs shared buffers.

use crate::support;

use crate::support::{Rng, USAGE};
use gpudata::data::HostValues;
use gpudata::{
    BufferHandle, DataError, GpuData, GpuDataDescriptor, GpuDataStructFormat, GpuError, GpuStruct,
    StructLayout, TypedGpuData, Unorm8x4, VertexFormat,
};
use half::f16;

/// Host layout = GPU layout: uploads are one memcpy per staging chunk.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", zero_copy)]
struct Vertex {
    position: [f32; 3],
    color: Unorm8x4,
    uv: [u16; 2],
}

/// Not `#[repr(C)]`: the per-field encoder runs.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[gpu(layout = "packed")]
struct Tagged {
    tag: u8,
    value: f32,
    pair: [i16; 2],
}

/// wgsl-storage rules put `position` at 16 and pad the row to 48 bytes.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
struct Storage {
    id: u32,
    position: [f32; 3],
    color: Unorm8x4,
    half2: [f16; 2],
}

fn vertex(rng: &mut Rng) -> Vertex {
    Vertex {
        position: [rng.f32(), rng.f32(), rng.f32()],
        color: Unorm8x4(rng.array()),
        uv: [rng.next_u32() as u16, rng.next_u32() as u16],
    }
}

fn tagged(rng: &mut Rng) -> Tagged {
    Tagged {
        tag: rng.next_u32() as u8,
        value: rng.f32(),
        pair: [rng.next_u32() as i16, rng.next_u32() as i16],
    }
}

fn storage(rng: &mut Rng) -> Storage {
    Storage {
        id: rng.next_u32(),
        position: [rng.f32(), rng.f32(), rng.f32()],
        color: Unorm8x4(rng.array()),
        half2: [f16::from_f32(rng.f32()), f16::from_f32(rng.f32())],
    }
}

fn rows<T>(n: usize, seed: u64, make: fn(&mut Rng) -> T) -> Vec<T> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| make(&mut rng)).collect()
}

#[test]
fn the_three_structs_take_both_upload_paths() {
    const {
        assert!(Vertex::HOST_LAYOUT_MATCHES);
        assert!(!Tagged::HOST_LAYOUT_MATCHES);
        assert!(!Storage::HOST_LAYOUT_MATCHES);
    }
    assert_eq!(Storage::FORMAT.byte_stride(), 48);
    assert_eq!(Storage::FORMAT.fields()[1].byte_offset(), 16);
}

fn roundtrip<T: GpuStruct + PartialEq + std::fmt::Debug>(rows: &[T]) {
    let gpu = support::gpu();
    let data = TypedGpuData::from_rows(&gpu, rows, USAGE).unwrap();
    assert_eq!(data.as_data().length(), rows.len() as u64);
    assert_eq!(data.as_data().byte_stride(), T::FORMAT.byte_stride());
    assert!(data.as_data().owns_buffer());
    let back = data.read_rows(&gpu).unwrap();
    assert!(back == rows, "rows differ after the round trip");
    // The raw bytes are exactly what the derive's encoder produces.
    let expected = gpudata::record::encode_rows_to_vec(rows);
    let bytes = data.as_data().read_bytes(&gpu).unwrap();
    let span = data.as_data().byte_length() as usize;
    assert_eq!(bytes, expected[..span]);
}

#[test]
fn random_rows_round_trip_through_the_memcpy_path() {
    roundtrip(&rows(1000, 1, vertex));
    roundtrip(&rows(1, 2, vertex));
}

#[test]
fn random_rows_round_trip_through_the_encoder() {
    roundtrip(&rows(1000, 3, tagged));
    roundtrip(&rows(777, 4, storage));
}

#[test]
fn uploads_larger_than_one_staging_chunk_round_trip() {
    let chunk = gpudata::device::STAGING_CHUNK_BYTES as usize;
    // 2.5 chunks of zero-copy rows, 3.5 chunks of encoded rows (with trailing padding).
    roundtrip(&rows(chunk * 5 / 2 / 20 + 3, 5, vertex));
    roundtrip(&rows(chunk * 7 / 2 / 48 + 5, 6, storage));
}

#[test]
fn empty_uploads_are_valid() {
    let gpu = support::gpu();
    let data = TypedGpuData::<Vertex>::from_rows(&gpu, &[], USAGE).unwrap();
    assert_eq!(data.as_data().length(), 0);
    assert!(data.read_rows(&gpu).unwrap().is_empty());
    assert!(matches!(
        data.as_data().vertex_buffer_slice(&gpu),
        Err(GpuError::EmptyBinding { .. })
    ));
}

#[test]
fn async_forms_give_the_same_results() {
    let gpu = support::gpu();
    let rows = rows(300, 7, storage);
    let data = pollster::block_on(TypedGpuData::from_rows_async(&gpu, &rows, USAGE)).unwrap();
    assert_eq!(
        pollster::block_on(data.read_rows_async(&gpu)).unwrap(),
        rows
    );
    let replacement = self::rows(10, 8, storage);
    pollster::block_on(data.write_rows_async(&gpu, 100, &replacement)).unwrap();
    let back = pollster::block_on(data.read_rows_async(&gpu)).unwrap();
    assert_eq!(back[100..110], replacement[..]);
    assert_eq!(back[..100], rows[..100]);
    let ids = data.get_child::<storage_fields::Id>();
    let values = pollster::block_on(ids.read_values_async(&gpu)).unwrap();
    assert_eq!(values.as_u32().unwrap()[100], replacement[0].id);
    let bytes = pollster::block_on(data.as_data().read_bytes_async(&gpu)).unwrap();
    assert_eq!(bytes, data.as_data().read_bytes(&gpu).unwrap());
    let raw = pollster::block_on(GpuData::from_bytes_async(
        &gpu,
        &[1, 2, 3, 4, 5],
        GpuDataDescriptor::new(VertexFormat::Uint8, 5),
        USAGE,
    ))
    .unwrap();
    assert_eq!(
        pollster::block_on(raw.read_bytes_async(&gpu)).unwrap(),
        [1, 2, 3, 4, 5]
    );
}

#[test]
fn async_uploads_larger_than_the_staging_window_round_trip() {
    let gpu = support::gpu();
    // More than MAX_IN_FLIGHT + 1 chunks, so the async upload awaits earlier chunks.
    let chunk = gpudata::device::STAGING_CHUNK_BYTES as usize;
    let rows = rows(chunk * 9 / 2 / 20, 17, vertex);
    let data = pollster::block_on(TypedGpuData::from_rows_async(&gpu, &rows, USAGE)).unwrap();
    assert_eq!(
        pollster::block_on(data.read_rows_async(&gpu)).unwrap(),
        rows
    );
    let encoded = self::rows(chunk * 9 / 2 / 48, 18, storage);
    let data = pollster::block_on(TypedGpuData::from_rows_async(&gpu, &encoded, USAGE)).unwrap();
    assert_eq!(data.read_rows(&gpu).unwrap(), encoded);
}

#[test]
fn rows_written_at_an_offset_replace_exactly_those_rows() {
    let gpu = support::gpu();
    let original = rows(64, 9, tagged);
    let data = TypedGpuData::from_rows(&gpu, &original, USAGE).unwrap();
    let patch = rows(5, 10, tagged);
    data.write_rows(&gpu, 59, &patch).unwrap();
    let mut expected = original.clone();
    expected[59..].copy_from_slice(&patch);
    assert_eq!(data.read_rows(&gpu).unwrap(), expected);
    let error = data.write_rows(&gpu, 60, &patch).unwrap_err();
    assert_eq!(
        error,
        DataError::RowsOutOfRange {
            row_offset: 60,
            rows: 5,
            length: 64
        }
    );
    assert_eq!(
        error.to_string(),
        "rows 60..60+5 are outside the gpu data's 64 rows"
    );
}

#[test]
fn rows_in_a_wider_stride_leave_the_other_bytes_alone() {
    let gpu = support::gpu();
    // Rows of `Vertex` (20 bytes) every 32 bytes, starting at byte 64 of a buffer of 0xAA.
    let buffer = support::buffer_with(&gpu, &[0xAA; 64 + 32 * 4], USAGE);
    let descriptor = GpuDataDescriptor::new(Vertex::FORMAT, 4)
        .with_byte_offset(64)
        .with_byte_stride(32);
    let data = GpuData::new(BufferHandle::Shared(buffer.clone()), descriptor).unwrap();
    let data = TypedGpuData::<Vertex>::try_from_data(data).unwrap();
    let rows = rows(4, 11, vertex);
    data.write_rows(&gpu, 0, &rows).unwrap();
    assert_eq!(data.read_rows(&gpu).unwrap(), rows);
    let all = GpuData::new(
        BufferHandle::Shared(buffer),
        GpuDataDescriptor::new(VertexFormat::Uint8, 64 + 32 * 4),
    )
    .unwrap()
    .read_bytes(&gpu)
    .unwrap();
    assert!(all[..64].iter().all(|&b| b == 0xAA));
    for i in 0..4 {
        let row = &all[64 + 32 * i..64 + 32 * (i + 1)];
        assert_eq!(
            row[..20],
            gpudata::record::encode_rows_to_vec(&rows[i..=i])[..]
        );
        assert!(
            row[20..].iter().all(|&b| b == 0xAA),
            "row {i} gap was overwritten"
        );
    }
}

#[test]
fn typed_data_refuses_another_struct_format() {
    let gpu = support::gpu();
    let data = TypedGpuData::from_rows(&gpu, &rows(3, 12, tagged), USAGE).unwrap();
    let error = TypedGpuData::<Vertex>::try_from_data(data.into_data()).unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with("gpu data format mismatch: expected "),
        "{message}"
    );
    assert!(message.contains("found struct<packed>{tag: uint8, value: float32, pair: sint16x2}"));
}

#[test]
fn views_over_interleaved_rows_return_each_fields_values() {
    let gpu = support::gpu();
    let rows = rows(50, 13, vertex);
    let data = TypedGpuData::from_rows(&gpu, &rows, USAGE).unwrap();

    let positions = data.get_child::<vertex_fields::Position>();
    assert_eq!((positions.byte_offset(), positions.byte_stride()), (0, 20));
    let host: Vec<[f32; 3]> = rows.iter().map(|r| r.position).collect();
    assert_eq!(positions.read(&gpu).unwrap(), host);

    let colors = data.get_child::<vertex_fields::Color>();
    assert_eq!(colors.byte_offset(), 12);
    let raw: Vec<Unorm8x4> = rows.iter().map(|r| r.color).collect();
    assert_eq!(colors.read(&gpu).unwrap(), raw);
    let decoded: Vec<f32> = rows
        .iter()
        .flat_map(|r| r.color.0.map(|b| f32::from(b) / 255.0))
        .collect();
    assert_eq!(colors.read_values(&gpu).unwrap(), HostValues::F32(decoded));

    let uv = data.as_data().get_child("uv").unwrap();
    let expected: Vec<u32> = rows.iter().flat_map(|r| r.uv.map(u32::from)).collect();
    assert_eq!(uv.read_values(&gpu).unwrap(), HostValues::U32(expected));
    assert_eq!(
        data.get_child_at(2)
            .unwrap()
            .read_packed_bytes(&gpu)
            .unwrap(),
        bytemuck::cast_slice::<[u16; 2], u8>(&rows.iter().map(|r| r.uv).collect::<Vec<_>>())
    );
    let tail = uv.slice(48, 2).unwrap().read_values(&gpu).unwrap();
    assert_eq!(
        tail.as_u32().unwrap(),
        [
            u32::from(rows[48].uv[0]),
            u32::from(rows[48].uv[1]),
            u32::from(rows[49].uv[0]),
            u32::from(rows[49].uv[1])
        ]
    );
}

#[test]
fn vector_132_reading_rows_of_strided_data() {
    let gpu = support::gpu();
    let packed: Vec<f32> = vec![10., 11., 20., 21., 30., 31., 40., 41.];
    let data = GpuData::from_slice(&gpu, VertexFormat::Float32x2, &packed, USAGE).unwrap();
    let bytes = data.read_packed_rows(&gpu, 1, 2).unwrap();
    assert_eq!(
        bytemuck::cast_slice::<u8, f32>(&bytes),
        [20., 21., 30., 31.]
    );

    let strided: Vec<f32> = vec![10., 11., -1., 20., 21., -1., 30., 31., -1.];
    let data = GpuData::from_bytes(
        &gpu,
        bytemuck::cast_slice(&strided),
        GpuDataDescriptor::new(VertexFormat::Float32x2, 3).with_byte_stride(12),
        USAGE,
    )
    .unwrap();
    let bytes = data.read_packed_rows(&gpu, 1, 2).unwrap();
    assert_eq!(
        bytemuck::cast_slice::<u8, f32>(&bytes),
        [20., 21., 30., 31.]
    );
    let view = data.as_view().unwrap();
    assert_eq!(
        view.read_values(&gpu).unwrap(),
        HostValues::F32(vec![10., 11., 20., 21., 30., 31.])
    );
    assert!(matches!(
        data.read_packed_rows(&gpu, 2, 2),
        Err(DataError::RowsOutOfRange { .. })
    ));
}

#[test]
fn typed_slices_become_packed_data() {
    let gpu = support::gpu();
    let data = GpuData::from_values(&gpu, &[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]], USAGE).unwrap();
    assert_eq!(data.length(), 2);
    assert_eq!(data.byte_stride(), 12);
    let error =
        GpuData::from_slice(&gpu, VertexFormat::Float32x3, &[1.0f32; 7], USAGE).unwrap_err();
    assert_eq!(
        error.to_string(),
        "byte length 28 is not a whole number of float32x3 values of 12 bytes"
    );
    let colors =
        GpuData::from_slice(&gpu, VertexFormat::Unorm8x4, &[0u8, 51, 102, 255], USAGE).unwrap();
    assert_eq!(
        colors.as_view().unwrap().read_values(&gpu).unwrap(),
        HostValues::F32(vec![0.0, 0.2, 0.4, 1.0])
    );
    let zeros = GpuData::zeroed(&gpu, VertexFormat::Sint16x2, 3, USAGE).unwrap();
    assert_eq!(zeros.read_bytes(&gpu).unwrap(), [0; 12]);
}

#[test]
fn readback_without_copy_src_is_refused_with_the_flags() {
    let gpu = support::gpu();
    let data =
        TypedGpuData::from_rows(&gpu, &rows(4, 14, vertex), wgpu::BufferUsages::VERTEX).unwrap();
    let error = data.read_rows(&gpu).unwrap_err();
    assert_eq!(
        error,
        GpuError::MissingUsage {
            operation: "read back rows",
            required: wgpu::BufferUsages::COPY_SRC,
            found: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        }
    );
    assert!(
        error
            .to_string()
            .starts_with("cannot read back rows: the buffer needs usage")
    );
    assert!(matches!(
        data.get_child::<vertex_fields::Uv>().read_values(&gpu),
        Err(DataError::Gpu(GpuError::MissingUsage { .. }))
    ));
    assert!(matches!(
        data.as_data().storage_binding(&gpu),
        Err(GpuError::MissingUsage {
            operation: "bind a storage buffer",
            ..
        })
    ));
    let slice = data.as_data().vertex_buffer_slice(&gpu).unwrap();
    assert_eq!(slice.size(), data.as_data().byte_length());
}

#[test]
fn writes_without_copy_dst_and_vertex_slices_without_vertex_are_refused() {
    let gpu = support::gpu();
    let buffer = support::buffer(
        &gpu,
        40,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let data = GpuData::new(
        BufferHandle::Shared(buffer),
        GpuDataDescriptor::new(Vertex::FORMAT, 2),
    )
    .unwrap();
    let data = TypedGpuData::<Vertex>::try_from_data(data).unwrap();
    assert!(matches!(
        data.write_rows(&gpu, 0, &rows(2, 15, vertex)),
        Err(DataError::Gpu(GpuError::MissingUsage { operation: "write rows", required, .. }))
            if required == wgpu::BufferUsages::COPY_DST
    ));
    assert!(matches!(
        data.as_data().vertex_buffer_slice(&gpu),
        Err(GpuError::MissingUsage {
            operation: "bind a vertex buffer",
            ..
        })
    ));
}

#[test]
fn storage_bindings_check_the_device_offset_alignment() {
    let gpu = support::gpu();
    let alignment = gpu.limits().min_storage_buffer_offset_alignment;
    let buffer = support::buffer(&gpu, 4096, USAGE);
    let at = |offset: u64| {
        GpuData::new(
            BufferHandle::Shared(buffer.clone()),
            GpuDataDescriptor::new(VertexFormat::Float32x4, 4).with_byte_offset(offset),
        )
        .unwrap()
    };
    let misaligned = at(16);
    let error = misaligned.storage_binding(&gpu).unwrap_err();
    if alignment > 16 {
        assert_eq!(
            error,
            GpuError::StorageOffsetAlignment {
                byte_offset: 16,
                alignment
            }
        );
        assert!(
            error
                .to_string()
                .contains("min_storage_buffer_offset_alignment")
        );
        // wgpu itself refuses the same offset, so the check is the device's rule.
        let layout = storage_layout(&gpu);
        let (_, wgpu_error) = support::validation_error(&gpu, || {
            gpu.device().create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &buffer,
                        offset: 16,
                        size: wgpu::BufferSize::new(64),
                    }),
                }],
            })
        });
        assert!(
            wgpu_error.is_some(),
            "wgpu accepted a misaligned storage offset"
        );
    }
    let aligned = at(u64::from(alignment));
    let binding = aligned.storage_binding(&gpu).unwrap();
    assert_eq!(
        (binding.offset, binding.size.map(|s| s.get())),
        (u64::from(alignment), Some(64))
    );
    let layout = storage_layout(&gpu);
    let (_, wgpu_error) = support::validation_error(&gpu, || {
        gpu.device().create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(binding),
            }],
        })
    });
    assert_eq!(wgpu_error, None);
    // A view-sized range whose last row's padding is missing cannot be bound as rows.
    let short = GpuData::new(
        BufferHandle::Shared(support::buffer(&gpu, 44, USAGE)),
        GpuDataDescriptor::new(Storage::FORMAT, 1),
    )
    .unwrap();
    assert!(matches!(
        short.storage_binding(&gpu),
        Err(GpuError::StorageOutOfBuffer {
            needed: 48,
            buffer_size: 44,
            ..
        })
    ));
}

fn storage_layout(gpu: &gpudata::Gpu) -> wgpu::BindGroupLayout {
    gpu.device()
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        })
}

#[test]
fn destroy_frees_only_an_owned_buffer() {
    let gpu = support::gpu();
    let rows = rows(8, 16, vertex);
    let owner = TypedGpuData::from_rows(&gpu, &rows, USAGE).unwrap();

    // Destroying a shared handle leaves the owner's buffer alive.
    let shared = owner.share();
    shared.destroy();
    assert_eq!(owner.read_rows(&gpu).unwrap(), rows);

    // Destroying the owner frees the buffer for every holder.
    let survivor = owner.share();
    owner.destroy();
    // wgpu's refusal comes back as the readback's error (caught in gpudata's own error scope);
    // nothing escapes to the caller's scope.
    let (result, escaped) = support::validation_error(&gpu, || survivor.as_data().read_bytes(&gpu));
    let Err(GpuError::Validation { source, .. }) = &result else {
        panic!("reading a destroyed buffer: expected a validation error, found {result:?}");
    };
    assert!(source.to_string().contains("destroyed"), "{source}");
    assert_eq!(escaped, None);
}

#[test]
fn runtime_struct_data_uploads_from_bytes() {
    let gpu = support::gpu();
    let format =
        GpuDataStructFormat::parse(StructLayout::Packed, [("a", "sint32"), ("b", "float32")])
            .unwrap();
    let mut bytes = Vec::new();
    for (a, b) in [(-1i32, 0.5f32), (7, -2.0)] {
        bytes.extend_from_slice(&a.to_le_bytes());
        bytes.extend_from_slice(&b.to_le_bytes());
    }
    let data = GpuData::from_bytes(&gpu, &bytes, GpuDataDescriptor::new(format, 2), USAGE).unwrap();
    assert_eq!(
        data.get_child("a").unwrap().read_values(&gpu).unwrap(),
        HostValues::I32(vec![-1, 7])
    );
    assert_eq!(
        data.get_child("b").unwrap().read_values(&gpu).unwrap(),
        HostValues::F32(vec![0.5, -2.0])
    );
    let error = GpuData::from_bytes(
        &gpu,
        &bytes[..12],
        GpuDataDescriptor::new(VertexFormat::Float32x2, 2),
        USAGE,
    )
    .unwrap_err();
    assert!(matches!(error, DataError::OutOfBuffer { byte_end: 16, .. }));
}
