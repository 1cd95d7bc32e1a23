//! `group_by` (dense and sparse keys) and `grid_aggregate` on the GPU against the CPU reference,
//! bit for bit (fixed-point sums, extremes, counts; means within WGSL's division accuracy):
//! workgroup-private and storage accumulators, keys out of range, `u32::MAX` and negative keys,
//! NaN and ±inf values, masks, chunked columns, the grid's texture; and the refusals.

use crate::aggregate::{chunked, gpu_mask, lane_values, random_mask};
use crate::fixtures::*;
use crate::support::{buffer, read_buffer};
use gpudata::ops::cpu::{self, HostInput};
use gpudata::ops::{
    self, GpuMask, GridField, GridSpec, GroupKeys, Groups, OpError, ShaderScalar, piecewise,
};
use gpudata::{Gpu, VertexFormat};

/// `f32`s equal as bits, NaNs alike.
pub fn same_f32(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

/// Means within 3 ulp (WGSL's division is within 2.5), NaNs alike.
pub fn close_means(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            (x.is_nan() && y.is_nan())
                || x == y
                || (x.is_finite() && (x.to_bits() as i64 - y.to_bits() as i64).abs() <= 3)
        })
}

pub fn assert_groups(got: &Groups, want: &Groups, what: &str) {
    assert_eq!(got.keys, want.keys, "{what}: keys");
    assert_eq!(got.count, want.count, "{what}: counts");
    assert_eq!(got.dropped, want.dropped, "{what}: dropped");
    let floats = |a: &Option<Vec<f32>>, b: &Option<Vec<f32>>, means: bool| match (a, b) {
        (Some(a), Some(b)) if means => close_means(a, b),
        (Some(a), Some(b)) => same_f32(a, b),
        (None, None) => true,
        _ => false,
    };
    assert!(
        floats(&got.sum, &want.sum, false),
        "{what}: sums {:?} {:?}",
        got.sum,
        want.sum
    );
    assert!(floats(&got.mean, &want.mean, true), "{what}: means");
    let bits = |s: &Option<Vec<ShaderScalar>>| {
        s.as_ref()
            .map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
    };
    let nan_bits = |v: Option<Vec<u32>>| {
        v.map(|v| {
            v.into_iter()
                .map(|b| {
                    if f32::from_bits(b).is_nan() {
                        0x7fc0_0000
                    } else {
                        b
                    }
                })
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(
        nan_bits(bits(&got.min)),
        nan_bits(bits(&want.min)),
        "{what}: minima"
    );
    assert_eq!(
        nan_bits(bits(&got.max)),
        nan_bits(bits(&want.max)),
        "{what}: maxima"
    );
}

/// Random keys of `format`: dense ids in `0..limit` (some past it), or one of `distinct`.
fn keys(rng: &mut Rng, format: VertexFormat, n: usize, limit: u32, distinct: &[u32]) -> Vec<u8> {
    let size = format.byte_length() as usize;
    let mut out = Vec::with_capacity(n * size);
    for _ in 0..n {
        let k = if distinct.is_empty() {
            rng.below(u64::from(limit) + 3) as u32
        } else {
            distinct[rng.below(distinct.len() as u64) as usize]
        };
        out.extend_from_slice(&k.to_le_bytes()[..size]);
    }
    out
}

fn run_group(
    gpu: &Gpu,
    k: (&[u8], VertexFormat),
    v: Option<(&[u8], VertexFormat)>,
    keep: Option<&[bool]>,
    groups: GroupKeys,
) -> (Groups, Groups) {
    let n = (k.0.len() as u64) / k.1.byte_length();
    let kb = upload(gpu, k.0);
    let vb = v.map(|(bytes, _)| upload(gpu, bytes));
    let mask = keep.map(|keep| gpu_mask(gpu, keep, true));
    let values = vb.as_ref().zip(v).map(|(b, (_, f))| view(b, f, n));
    let got = ops::group_by(gpu, view(&kb, k.1, n), values, mask.as_ref(), groups)
        .unwrap()
        .read(gpu)
        .unwrap();
    let host = v.map(|(bytes, f)| HostInput::new(bytes, f, n));
    let want = cpu::group_by(HostInput::new(k.0, k.1, n), host, keep, groups).unwrap();
    (got, want)
}

#[test]
fn group_by_equals_the_cpu_reference_bit_for_bit() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(31);
    // Dense: workgroup-private (40 groups) and storage (5000 groups) accumulators.
    for &(groups, n, kf, vf) in &[
        (
            40u32,
            20_000usize,
            VertexFormat::Uint32,
            VertexFormat::Float32,
        ),
        (5000, 12_000, VertexFormat::Uint16, VertexFormat::Float32),
        (300, 7000, VertexFormat::Sint32, VertexFormat::Sint16),
        (17, 3000, VertexFormat::Uint8, VertexFormat::Float16),
    ] {
        let k = keys(&mut rng, kf, n, groups, &[]);
        let mut k = k;
        if kf == VertexFormat::Sint32 {
            // Some negative keys, dropped.
            for row in (0..n).step_by(37) {
                k[row * 4..row * 4 + 4].copy_from_slice(&(-(row as i32) - 1).to_le_bytes());
            }
        }
        let v = lane_values(&mut rng, vf, n, 1000.0, 24, true);
        let keep = random_mask(&mut rng, n, 6);
        let what = format!("{groups} groups of {kf} keys, {vf} values");
        let (got, want) = run_group(
            &gpu,
            (&k, kf),
            Some((&v, vf)),
            Some(&keep),
            GroupKeys::Dense { groups },
        );
        assert_groups(&got, &want, &what);
        assert!(want.dropped > 0, "{what}: keys out of range");
        let (got, want) = run_group(&gpu, (&k, kf), None, None, GroupKeys::Dense { groups });
        assert_groups(&got, &want, &format!("{what}, counts only"));
    }
    // Sparse: 300 distinct keys (u32::MAX among them), in the table's order.
    let mut distinct: Vec<u32> = (0..299).map(|_| rng.next_u32()).collect();
    distinct.push(u32::MAX);
    let n = 15_000usize;
    let k = keys(&mut rng, VertexFormat::Uint32, n, 0, &distinct);
    let v = lane_values(&mut rng, VertexFormat::Float32, n, 1e6, 50, false);
    let sparse = GroupKeys::Sparse { max_groups: 400 };
    let (got, want) = run_group(
        &gpu,
        (&k, VertexFormat::Uint32),
        Some((&v, VertexFormat::Float32)),
        None,
        sparse,
    );
    assert_groups(&got, &want, "sparse");
    assert_eq!(got.keys.as_ref().map(Vec::len), Some(300));
    assert_eq!(
        got.keys.as_ref().and_then(|k| k.last().copied()),
        Some(u32::MAX)
    );
    // Sorted by key: the same groups, each column permuted by the keys' ascending order.
    let kb = upload(&gpu, &k);
    let vb = upload(&gpu, &v);
    let sorted = ops::group_by(
        &gpu,
        view(&kb, VertexFormat::Uint32, n as u64),
        Some(view(&vb, VertexFormat::Float32, n as u64)),
        None,
        sparse,
    )
    .unwrap()
    .sorted_by_key(&gpu)
    .unwrap()
    .read(&gpu)
    .unwrap();
    let got_keys = got.keys.as_ref().unwrap();
    let mut order: Vec<usize> = (0..got_keys.len()).collect();
    order.sort_by_key(|&i| got_keys[i]);
    let permute = |c: &[f32]| -> Vec<f32> { order.iter().map(|&i| c[i]).collect() };
    assert_eq!(
        sorted.keys.as_deref().unwrap(),
        order.iter().map(|&i| got_keys[i]).collect::<Vec<_>>()
    );
    assert_eq!(
        sorted.count,
        order.iter().map(|&i| got.count[i]).collect::<Vec<_>>()
    );
    assert!(same_f32(
        sorted.sum.as_deref().unwrap(),
        &permute(got.sum.as_deref().unwrap())
    ));
    assert!(same_f32(
        sorted.mean.as_deref().unwrap(),
        &permute(got.mean.as_deref().unwrap())
    ));
    assert_eq!(
        sorted.min.as_deref().unwrap(),
        order
            .iter()
            .map(|&i| got.min.as_deref().unwrap()[i])
            .collect::<Vec<_>>()
    );
    // The sums are exact to the fixed point: summing in another order gives the same bits.
    let (again, _) = run_group(
        &gpu,
        (&k, VertexFormat::Uint32),
        Some((&v, VertexFormat::Float32)),
        None,
        sparse,
    );
    assert!(same_f32(
        again.sum.as_deref().unwrap(),
        got.sum.as_deref().unwrap()
    ));
    // Too many distinct keys.
    let kb = upload(&gpu, &k);
    let error = ops::group_by(
        &gpu,
        view(&kb, VertexFormat::Uint32, n as u64),
        None,
        None,
        GroupKeys::Sparse { max_groups: 100 },
    )
    .unwrap_err();
    assert!(
        matches!(error, OpError::InvalidArgument { op: "group_by", .. }),
        "{error}"
    );
    let host = cpu::group_by(
        HostInput::new(&k, VertexFormat::Uint32, n as u64),
        None,
        None,
        GroupKeys::Sparse { max_groups: 100 },
    );
    assert!(matches!(host, Err(OpError::InvalidArgument { .. })));
}

#[test]
fn group_sums_are_exact_where_f32_sums_are_not() {
    let gpu = fresh_gpu();
    // 1e8 + 1 - 1e8 in any f32 order loses the 1; the fixed point keeps it.
    let values = [1.0e8f32, 1.0, -1.0e8, 3.0, 0.5, -0.25];
    let ids = [0u32, 0, 0, 1, 1, 1];
    let (got, want) = run_group(
        &gpu,
        (&u32_bytes(&ids), VertexFormat::Uint32),
        Some((&f32_bytes(&values), VertexFormat::Float32)),
        None,
        GroupKeys::Dense { groups: 3 },
    );
    assert_groups(&got, &want, "exact sums");
    assert_eq!(got.sum.as_deref(), Some(&[1.0, 3.25, 0.0][..]));
    assert_eq!(got.count, [3, 3, 0]);
    assert!(got.mean.as_ref().unwrap()[2].is_nan());
    let min = got.min.as_ref().unwrap();
    assert!(
        matches!(min[2], ShaderScalar::F32(v) if v.is_nan()),
        "an empty group's minimum is NaN"
    );
}

#[test]
fn group_by_of_chunked_columns_equals_one_buffer() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(32);
    let n = 10_000usize;
    let k = keys(&mut rng, VertexFormat::Uint32, n, 50, &[]);
    let v = lane_values(&mut rng, VertexFormat::Float32, n, 10.0, 20, true);
    let keep = random_mask(&mut rng, n, 5);
    let kc = chunked(&gpu, &k, VertexFormat::Uint32, n as u64, 3000);
    let vc = chunked(&gpu, &v, VertexFormat::Float32, n as u64, 4096);
    let mask = gpu_mask(&gpu, &keep, true);
    for groups in [
        GroupKeys::Dense { groups: 50 },
        GroupKeys::Sparse { max_groups: 64 },
    ] {
        let got = piecewise::group_by(&gpu, &kc, Some(&vc), Some(&mask), groups)
            .unwrap()
            .read(&gpu)
            .unwrap();
        let want = cpu::group_by(
            HostInput::new(&k, VertexFormat::Uint32, n as u64),
            Some(HostInput::new(&v, VertexFormat::Float32, n as u64)),
            Some(&keep),
            groups,
        )
        .unwrap();
        assert_groups(&got, &want, &format!("chunked {groups:?}"));
    }
}

/// Random `float32x2` positions in `[-1, 1]²`, about one in 50 with a NaN coordinate.
pub fn positions(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..2 * n)
        .map(|_| {
            if rng.below(100) == 0 {
                f32::NAN
            } else {
                rng.f32_in(1.0)
            }
        })
        .collect()
}

#[test]
fn grid_aggregate_equals_the_cpu_reference_and_copies_into_a_texture() {
    let gpu = fresh_gpu();
    let mut rng = Rng::new(33);
    let n = 12_000usize;
    let p = f32_bytes(&positions(&mut rng, n));
    let v = lane_values(&mut rng, VertexFormat::Float32, n, 5.0, 40, false);
    let keep = random_mask(&mut rng, n, 6);
    let pb = upload(&gpu, &p);
    let vb = upload(&gpu, &v);
    for (spec, masked) in [
        (
            GridSpec {
                width: 7,
                height: 5,
                bounds: Some([-0.5, -0.75, 0.5, 0.75]),
            },
            true,
        ),
        (
            GridSpec {
                width: 100,
                height: 80,
                bounds: None,
            },
            false,
        ),
    ] {
        let mask = masked.then(|| gpu_mask(&gpu, &keep, false));
        let grid = ops::grid_aggregate(
            &gpu,
            view(&pb, VertexFormat::Float32x2, n as u64),
            Some(view(&vb, VertexFormat::Float32, n as u64)),
            mask.as_ref(),
            &spec,
        )
        .unwrap();
        let got = grid.read(&gpu).unwrap();
        let want = cpu::grid_aggregate(
            HostInput::new(&p, VertexFormat::Float32x2, n as u64),
            Some(HostInput::new(&v, VertexFormat::Float32, n as u64)),
            masked.then_some(&keep[..]),
            &spec,
        )
        .unwrap();
        let what = format!("{spec:?}");
        assert_eq!(got.bounds, want.bounds, "{what}");
        assert_eq!(got.count, want.count, "{what}: counts");
        assert_eq!((got.outside, got.nan), (want.outside, want.nan), "{what}");
        assert!(got.nan > 0);
        for (g, w) in [
            (&got.sum, &want.sum),
            (&got.min, &want.min),
            (&got.max, &want.max),
        ] {
            assert!(
                same_f32(g.as_deref().unwrap(), w.as_deref().unwrap()),
                "{what}"
            );
        }
        assert!(close_means(
            got.mean.as_deref().unwrap(),
            want.mean.as_deref().unwrap()
        ));
        // The count texture holds the counts, row by row.
        let texture = grid.texture(&gpu, GridField::Count).unwrap();
        assert_eq!(texture.format(), wgpu::TextureFormat::R32Uint);
        let readback = buffer(
            &gpu,
            u64::from(grid.row_pitch) * u64::from(grid.height),
            wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        );
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        encoder.copy_texture_to_buffer(
            texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(grid.row_pitch),
                    rows_per_image: None,
                },
            },
            texture.size(),
        );
        gpu.queue().submit([encoder.finish()]);
        let words = u32s(&read_buffer(&gpu, &readback, 0, readback.size()));
        let pitch = (grid.row_pitch / 4) as usize;
        let cells: Vec<u32> = (0..spec.height as usize)
            .flat_map(|y| words[y * pitch..y * pitch + spec.width as usize].to_vec())
            .collect();
        assert_eq!(cells, want.count, "{what}: texture");
    }
    // Chunked positions and values.
    let pc = chunked(&gpu, &p, VertexFormat::Float32x2, n as u64, 5000);
    let vc = chunked(&gpu, &v, VertexFormat::Float32, n as u64, 3333);
    let spec = GridSpec {
        width: 9,
        height: 9,
        bounds: None,
    };
    let got = piecewise::grid_aggregate(&gpu, &pc, Some(&vc), None, &spec)
        .unwrap()
        .read(&gpu)
        .unwrap();
    let want = cpu::grid_aggregate(
        HostInput::new(&p, VertexFormat::Float32x2, n as u64),
        Some(HostInput::new(&v, VertexFormat::Float32, n as u64)),
        None,
        &spec,
    )
    .unwrap();
    assert_eq!(got.count, want.count);
    assert!(same_f32(
        got.sum.as_deref().unwrap(),
        want.sum.as_deref().unwrap()
    ));
}

#[test]
fn aggregations_refuse_what_they_cannot_take() {
    let gpu = fresh_gpu();
    let floats = upload(&gpu, &f32_bytes(&[1.0, f32::INFINITY, 2.0, 3.0]));
    let column = view(&floats, VertexFormat::Float32, 4);
    let pair = view(&floats, VertexFormat::Float32x2, 2);
    let short = GpuMask::from_bools(&gpu, &[true]).unwrap();
    let unsupported = |e: OpError| matches!(e, OpError::UnsupportedFormat { .. });
    let invalid = |e: OpError| matches!(e, OpError::InvalidArgument { .. });
    assert!(unsupported(ops::reduce(&gpu, pair, None).unwrap_err()));
    assert!(matches!(
        ops::reduce(&gpu, column, Some(&short)).unwrap_err(),
        OpError::LengthMismatch {
            input: 2,
            expected: 4,
            found: 1,
            ..
        }
    ));
    assert!(invalid(
        ops::histogram(&gpu, column, None, None, 0, Some((0.0, 1.0))).unwrap_err()
    ));
    assert!(invalid(
        ops::histogram(&gpu, column, None, None, 4, Some((1.0, 0.0))).unwrap_err()
    ));
    // The data's range holds +inf: a range must be given.
    let error = ops::histogram(&gpu, column, None, None, 4, None).unwrap_err();
    assert_eq!(
        error.to_string(),
        "histogram: the range is [1, inf], expected finite bounds lo <= hi, bins / (hi - lo) finite"
    );
    assert!(invalid(
        cpu::histogram(
            HostInput::new(&f32_bytes(&[1.0, f32::INFINITY]), VertexFormat::Float32, 2),
            None,
            None,
            4,
            None
        )
        .unwrap_err()
    ));
    assert!(unsupported(
        ops::group_by(&gpu, column, None, None, GroupKeys::Dense { groups: 2 }).unwrap_err()
    ));
    let spec = GridSpec {
        width: 0,
        height: 4,
        bounds: None,
    };
    assert!(invalid(
        ops::grid_aggregate(&gpu, pair, None, None, &spec).unwrap_err()
    ));
    assert!(unsupported(
        ops::grid_aggregate(
            &gpu,
            column,
            None,
            None,
            &GridSpec {
                width: 1,
                height: 1,
                bounds: None
            }
        )
        .unwrap_err()
    ));
}
