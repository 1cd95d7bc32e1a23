//! The analytics besides sorting over one-buffer columns larger than one storage binding: on a
//! device whose storage bindings hold 320 KiB (the aggregations' tiles of rows, up to 256 KiB,
//! must fit one), columns of 100,000 rows (two to three bindings' worth) are read in runs of
//! rows, one dispatch each. `reduce` (masked too), `histogram` (weights,
//! mask), `group_by` (dense and sparse keys), `grid_aggregate` and a fused `evaluate` must equal
//! their CPU references as on any device.

use crate::aggregate::{assert_histogram, assert_reduction, gpu_mask, lane_values, random_mask};
use crate::aggregate_groups::{assert_groups, close_means, positions, same_f32};
use crate::fixtures::*;
use gpudata::ops::cpu::{self, HostInput};
use gpudata::ops::{self, GridSpec, GroupKeys, col};
use gpudata::{Gpu, GpuDataView, VertexFormat};
use std::sync::OnceLock;

const N: usize = 100_000;

/// A device binding at most 320 KiB of storage, at 256-byte offsets.
fn medium() -> Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        ops_with_limits(|l| {
            l.max_storage_buffer_binding_size = 320 << 10;
            l.min_storage_buffer_offset_alignment = l.min_storage_buffer_offset_alignment.max(256);
        })
    })
    .clone()
}

#[test]
fn reductions_and_histograms_past_one_binding() {
    let gpu = medium();
    let mut rng = Rng::new(2805);
    for format in [VertexFormat::Float32, VertexFormat::Uint32] {
        let bytes = lane_values(&mut rng, format, N, 1000.0, 16, true);
        let buffer = upload(&gpu, &bytes);
        let keep = random_mask(&mut rng, N, 5);
        let floats = if format == VertexFormat::Float32 {
            f32s(&bytes)
        } else {
            Vec::new()
        };
        for masked in [false, true] {
            let mask = masked.then(|| gpu_mask(&gpu, &keep, false));
            let host = masked.then_some(&keep[..]);
            let got = ops::reduce(&gpu, view(&buffer, format, N as u64), mask.as_ref()).unwrap();
            let want = cpu::reduce(HostInput::new(&bytes, format, N as u64), host).unwrap();
            let f = (!floats.is_empty()).then_some((&floats[..], host));
            assert_reduction(&got, &want, f, &format!("{format} masked={masked}"));
        }
    }
    let values = lane_values(&mut rng, VertexFormat::Float32, N, 1000.0, 16, true);
    let weights = lane_values(&mut rng, VertexFormat::Float32, N, 10.0, 32, true);
    let (vb, wb) = (upload(&gpu, &values), upload(&gpu, &weights));
    let keep = random_mask(&mut rng, N, 6);
    let mask = gpu_mask(&gpu, &keep, false);
    let n = N as u64;
    let got = ops::histogram(
        &gpu,
        view(&vb, VertexFormat::Float32, n),
        Some(view(&wb, VertexFormat::Float32, n)),
        Some(&mask),
        256,
        Some((-500.0, 500.0)),
    )
    .unwrap()
    .read(&gpu)
    .unwrap();
    let want = cpu::histogram(
        HostInput::new(&values, VertexFormat::Float32, n),
        Some(HostInput::new(&weights, VertexFormat::Float32, n)),
        Some(&keep),
        256,
        Some((-500.0, 500.0)),
    )
    .unwrap();
    assert_histogram(&got, &want, "256 bins, weighted, masked");
}

#[test]
fn groups_grids_and_expressions_past_one_binding() {
    let gpu = medium();
    let mut rng = Rng::new(2806);
    let n = N as u64;
    let values = lane_values(&mut rng, VertexFormat::Float32, N, 100.0, 40, false);
    let vb = upload(&gpu, &values);
    let host_values = HostInput::new(&values, VertexFormat::Float32, n);
    let keep = random_mask(&mut rng, N, 5);
    let mask = gpu_mask(&gpu, &keep, false);
    // Dense ids (some past the groups, dropped) and sparse keys.
    let dense: Vec<u32> = (0..n).map(|_| rng.below(1003) as u32).collect();
    let sparse: Vec<u32> = (0..n)
        .map(|_| (rng.below(700) as u32).wrapping_mul(0x9e37_79b9))
        .collect();
    for (keys, groups) in [
        (&dense, GroupKeys::Dense { groups: 1000 }),
        (&sparse, GroupKeys::Sparse { max_groups: 700 }),
    ] {
        let key_bytes = u32_bytes(keys);
        let kb = upload(&gpu, &key_bytes);
        let got = ops::group_by(
            &gpu,
            view(&kb, VertexFormat::Uint32, n),
            Some(view(&vb, VertexFormat::Float32, n)),
            Some(&mask),
            groups,
        )
        .unwrap()
        .read(&gpu)
        .unwrap();
        let want = cpu::group_by(
            HostInput::new(&key_bytes, VertexFormat::Uint32, n),
            Some(host_values),
            Some(&keep),
            groups,
        )
        .unwrap();
        assert_groups(&got, &want, &format!("{groups:?}"));
    }
    // Positions: `float32x2`, 800,000 bytes.
    let p = f32_bytes(&positions(&mut rng, N));
    let pb = upload(&gpu, &p);
    let spec = GridSpec {
        width: 64,
        height: 48,
        bounds: None,
    };
    let got = ops::grid_aggregate(
        &gpu,
        view(&pb, VertexFormat::Float32x2, n),
        Some(view(&vb, VertexFormat::Float32, n)),
        Some(&mask),
        &spec,
    )
    .unwrap()
    .read(&gpu)
    .unwrap();
    let want = cpu::grid_aggregate(
        HostInput::new(&p, VertexFormat::Float32x2, n),
        Some(host_values),
        Some(&keep),
        &spec,
    )
    .unwrap();
    assert_eq!(got.bounds, want.bounds);
    assert_eq!(got.count, want.count);
    assert_eq!((got.outside, got.nan), (want.outside, want.nan));
    for (g, w) in [
        (&got.sum, &want.sum),
        (&got.min, &want.min),
        (&got.max, &want.max),
    ] {
        assert!(same_f32(g.as_deref().unwrap(), w.as_deref().unwrap()));
    }
    assert!(close_means(
        got.mean.as_deref().unwrap(),
        want.mean.as_deref().unwrap()
    ));
    // A fused `a * b + c` over three columns past one binding.
    let b = lane_values(&mut rng, VertexFormat::Float32, N, 10.0, 16, true);
    let c = lane_values(&mut rng, VertexFormat::Float32, N, 10.0, 16, true);
    let (bb, cb) = (upload(&gpu, &b), upload(&gpu, &c));
    let expr = col(0) * col(1) + col(2);
    let views: Vec<GpuDataView<'_>> = [&vb, &bb, &cb]
        .iter()
        .map(|buffer| view(buffer, VertexFormat::Float32, n))
        .collect();
    let hosts = [
        host_values,
        HostInput::new(&b, VertexFormat::Float32, n),
        HostInput::new(&c, VertexFormat::Float32, n),
    ];
    let got = ops::evaluate(&gpu, &expr, &views, None).unwrap();
    let want = cpu::evaluate(&expr, &hosts, None).unwrap();
    assert!(same_f32(
        &f32s(&got.read_bytes(&gpu).unwrap()),
        &f32s(want.bytes())
    ));
}
