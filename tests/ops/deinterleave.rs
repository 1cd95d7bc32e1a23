//! `deinterleave` on the GPU: rows of random struct formats (at offsets, with wider strides),
//! selected fields, segments and strided views, into packed columns, against the CPU reference.

use crate::fixtures::*;
use gpudata::ops::cpu::{self, HostInput, HostRows};
use gpudata::ops::{self, OpsConfig};
use gpudata::{
    Gpu, GpuData, GpuDataDescriptor, GpuDataStructFormat, OpError, StructLayout, VertexFormat,
};

/// Deinterleaves `length` rows of `format`, `offset` bytes into a buffer, `stride` apart, and
/// compares each selected field with the CPU.
fn check(
    (gpu, config): (&Gpu, &OpsConfig),
    rng: &mut Rng,
    format: &GpuDataStructFormat,
    length: u64,
    offset: u64,
    stride: u64,
    fields: Option<&[&str]>,
) {
    let bytes = rng.bytes((offset + length * stride) as usize);
    let buffer = upload(gpu, &bytes);
    let rows = rows_at(&buffer, format, length, offset, Some(stride));
    let plan = ops::plan_deinterleave(gpu, config, &rows, fields).unwrap();
    let bytes_moved = plan.bytes_moved();
    let columns = plan.run(gpu).unwrap();
    let selected: Vec<usize> = match fields {
        None => (0..format.fields().len()).collect(),
        Some(names) => names.iter().map(|n| format.field(n).unwrap().0).collect(),
    };
    assert_eq!(columns.len(), selected.len());
    let field_bytes: u64 = selected
        .iter()
        .map(|&i| format.fields()[i].byte_length())
        .sum();
    assert_eq!(bytes_moved, 2 * length * field_bytes);
    let views: Vec<HostInput<'_>> = selected
        .iter()
        .map(|&i| {
            let f = &format.fields()[i];
            HostInput::new(&bytes, f.format(), length)
                .with_byte_offset(offset + f.byte_offset())
                .with_byte_stride(stride)
        })
        .collect();
    let expected = cpu::deinterleave_views(&views).unwrap();
    for (k, (column, want)) in columns.iter().zip(&expected).enumerate() {
        assert_eq!(format_of(column), want.format());
        assert_eq!(column.length(), length);
        assert_eq!(
            column.read_bytes(gpu).unwrap(),
            want.bytes(),
            "field {} ({}) of {:?}, {length} rows at {offset} every {stride}",
            selected[k],
            want.format(),
            format
                .fields()
                .iter()
                .map(|f| (f.format(), f.byte_offset()))
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn random_rows_match_the_cpu() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(21);
    for case in 0..60u64 {
        let layout = if case % 2 == 0 {
            StructLayout::Packed
        } else {
            StructLayout::WgslStorage
        };
        let format = random_format(&mut rng, layout, 7);
        let length = [0, 1, 2, 15, 16, 100, 777][(case % 7) as usize];
        // Rows at an offset aligned to the row, some with extra stride.
        let offset = format.alignment().max(4) * rng.below(5);
        let stride = format.byte_stride() + 4 * rng.below(3) * (case % 3);
        check(
            (&gpu, &OpsConfig::default()),
            &mut rng,
            &format,
            length,
            offset,
            stride,
            None,
        );
    }
}

#[test]
fn selected_fields_in_any_order() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(22);
    let format = GpuDataStructFormat::parse(
        StructLayout::Packed,
        [
            ("tag", "uint8"),
            ("pair", "uint8x2"),
            ("color", "unorm8x4"),
            ("position", "float32x3"),
            ("h", "float16x4"),
        ],
    )
    .unwrap();
    for length in [3, 64, 1001] {
        check(
            (&gpu, &OpsConfig::default()),
            &mut rng,
            &format,
            length,
            0,
            28,
            Some(&["position"]),
        );
        check(
            (&gpu, &OpsConfig::default()),
            &mut rng,
            &format,
            length,
            28,
            28,
            Some(&["h", "tag", "h"]),
        );
        check(
            (&gpu, &OpsConfig::default()),
            &mut rng,
            &format,
            length,
            0,
            32,
            Some(&["pair", "color"]),
        );
    }
    let buffer = upload(&gpu, &[0; 64]);
    assert_eq!(
        ops::deinterleave(
            &gpu,
            &rows_at(&buffer, &format, 2, 0, None),
            Some(&["missing"])
        )
        .unwrap_err(),
        OpError::UnknownField {
            op: "deinterleave",
            field: "missing".to_owned()
        }
    );
    let rows = HostRows::new(format.clone(), 2, vec![0; 56]);
    assert_eq!(
        cpu::deinterleave(&rows, Some(&["missing"])).unwrap_err(),
        OpError::UnknownField {
            op: "deinterleave",
            field: "missing".to_owned()
        }
    );
}

#[test]
fn byte_exact_wide_fields_use_vec4_copies() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(23);
    let format = GpuDataStructFormat::parse(
        StructLayout::Packed,
        [("a", "float32x4"), ("b", "uint32x4")],
    )
    .unwrap();
    let bytes = rng.bytes(32 * 1024);
    let buffer = upload(&gpu, &bytes);
    let plan = ops::plan_deinterleave(
        &gpu,
        &OpsConfig::default(),
        &rows_at(&buffer, &format, 1024, 0, None),
        None,
    )
    .unwrap();
    assert_eq!(plan.rows_per_invocation(), 1);
    assert_eq!(plan.wgsl().unwrap().matches("array<vec4<u32>>").count(), 3);
    check(
        (&gpu, &OpsConfig::default()),
        &mut rng,
        &format,
        1024,
        0,
        32,
        None,
    );
}

#[test]
fn segments_and_strided_views() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(24);
    // A segmented table: three packed columns in one buffer, plus a strided view of another.
    let n = 500u64;
    let seg = rng.bytes((n * (12 + 2 + 1)) as usize + 8);
    let other = rng.bytes((n * 20) as usize);
    let (s, o) = (upload(&gpu, &seg), upload(&gpu, &other));
    let gpu_views = [
        view(&s, VertexFormat::Float32x3, n),
        view_at(&s, VertexFormat::Uint16, n, n * 12, None),
        view_at(&s, VertexFormat::Uint8, n, n * 14 + 1, None),
        view_at(&o, VertexFormat::Snorm16x2, n, 6, Some(20)),
    ];
    let cpu_views = [
        HostInput::new(&seg, VertexFormat::Float32x3, n),
        HostInput::new(&seg, VertexFormat::Uint16, n).with_byte_offset(n * 12),
        HostInput::new(&seg, VertexFormat::Uint8, n).with_byte_offset(n * 14 + 1),
        HostInput::new(&other, VertexFormat::Snorm16x2, n)
            .with_byte_offset(6)
            .with_byte_stride(20),
    ];
    let columns = ops::deinterleave_views(&gpu, &gpu_views).unwrap();
    let expected = cpu::deinterleave_views(&cpu_views).unwrap();
    for (c, e) in columns.iter().zip(&expected) {
        assert_eq!(c.read_bytes(&gpu).unwrap(), e.bytes(), "{}", e.format());
    }
}

#[test]
fn struct_gpu_data_converts_to_rows() {
    let gpu = fresh_gpu();
    let format = GpuDataStructFormat::parse(
        StructLayout::Packed,
        [("id", "sint32"), ("weight", "float32")],
    )
    .unwrap();
    let bytes: Vec<u8> = [(-1i32, 0.5f32), (7, 2.0)]
        .iter()
        .flat_map(|(i, w)| [i.to_le_bytes(), w.to_le_bytes()].concat())
        .collect();
    let data = GpuData::from_bytes(
        &gpu,
        &bytes,
        GpuDataDescriptor::new(format, 2),
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    )
    .unwrap();
    let columns = ops::deinterleave(&gpu, &data, Some(&["weight"])).unwrap();
    assert_eq!(f32s(&columns[0].read_bytes(&gpu).unwrap()), [0.5, 2.0]);
    let gpu_data = columns.into_iter().next().unwrap();
    assert_eq!(gpu_data.length(), 2);
    assert_eq!(gpu_data.byte_stride(), 4);
}

#[test]
fn outputs_count_against_the_binding_limit() {
    let gpu = ops_with_limits(|l| l.max_storage_buffers_per_shader_stage = 4);
    let format = GpuDataStructFormat::new(
        StructLayout::Packed,
        (0..4).map(|i| (format!("c{i}"), VertexFormat::Uint32)),
    )
    .unwrap();
    let buffer = upload(&gpu, &[1; 160]);
    let rows = rows_at(&buffer, &format, 10, 0, None);
    // Three outputs and the rows: four storage buffers.
    ops::deinterleave(&gpu, &rows, Some(&["c0", "c1", "c2"])).unwrap();
    assert_eq!(
        ops::deinterleave(&gpu, &rows, None).unwrap_err(),
        OpError::TooManyBindings {
            op: "deinterleave",
            what: "storage buffers per shader stage",
            needed: 5,
            limit: 4
        }
    );
    let misaligned = rows_at(&buffer, &format, 2, 2, None);
    assert!(matches!(
        ops::deinterleave(&gpu, &misaligned, None).unwrap_err(),
        OpError::Misaligned {
            op: "deinterleave",
            alignment: 4,
            ..
        }
    ));
}

#[test]
fn every_tuning_agrees_with_the_cpu() {
    // Rows through workgroup memory (odd and even chunks per invocation, rows at offsets that
    // are not 16-byte aligned) and directly, several rows per invocation and workgroup sizes.
    let mut rng = Rng::new(25);
    for (wg, rows, staging) in [
        (256, None, false),
        (256, Some(4), true),
        (64, Some(8), true),
        (32, Some(2), true),
        (128, Some(16), false),
    ] {
        let (gpu, config) = ops_tuned(wg, rows, staging);
        for case in 0..12u64 {
            let layout = if case % 2 == 0 {
                StructLayout::Packed
            } else {
                StructLayout::WgslStorage
            };
            let format = random_format(&mut rng, layout, 7);
            let length = [1, 7, 100, 333, 1500][(case % 5) as usize];
            let offset = 4 * rng.below(9);
            check(
                (&gpu, &config),
                &mut rng,
                &format,
                length,
                offset,
                format.byte_stride(),
                None,
            );
        }
    }
}
