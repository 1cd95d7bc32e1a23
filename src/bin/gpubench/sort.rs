//! Sorting (issue 28) beside PyTorch's anchor (`shared/bench/torch_analytics.py`: `torch.sort`
//! of int32 keys, `torch.argsort` of float32): `sort_u32` (random `uint32` keys), `sort_pairs_u32`
//! (`uint32` keys carrying `uint32` values) and `argsort_f32` (`float32` in `[1, 2)` to `uint32`
//! row ids), `size / 4` keys each. Bytes moved count the keys (and values) read once and the
//! outputs written once; the row shows the keys per second too. With `--variants`, the tuning:
//! keys per invocation, tiles per workgroup, and the ranking without subgroups.
//! `argsort_by_2` orders `size / 8` rows by two keys (`uint32` bits, then `float32` in
//! `[1, 2)`; `ops::argsort_by`: a sort per key, the second carrying the first's permutation
//! through a gather), the cost of a two-column table sort's permutation.
//! `big_sort_u32` (run only when `--ops` names it) sorts `size / 4` random `uint32` keys in one
//! buffer larger than one storage binding (skipped when `--size-mib` fits one binding, exceeds
//! one buffer, or is past `u32::MAX` keys): the sort binds every column in parts. Devices
//! whose buffers are larger than their bindings have it (WebGPU's defaults: 128 MiB bindings,
//! 256 MiB buffers); NVIDIA's Vulkan driver offers 4 GiB for both, so there the case is
//! skipped. It needs about three times the
//! keys' bytes of GPU memory and, to check, four times on the host.
//!
//! The check compares the first, middle and last 4096 rows with the stable order computed on
//! the host (each key with its row number, selected at those ranks: the CPU reference's rows
//! there, without sorting a gigabyte on one core).

use std::ops::Range;

use gpudata::ops::{self, OpPlan, OpsConfig, SortOptions};
use gpudata::{Gpu, GpuDataView, VertexFormat};

use crate::cases::{Case, alloc, read_range};
use crate::kernels::Fill;
use crate::timing::Work;

/// Case groups of this file, in run order.
pub const NAMES: [&str; 5] = [
    "sort_u32",
    "sort_pairs_u32",
    "argsort_f32",
    "argsort_by_2",
    "big_sort_u32",
];

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The word a `float32` key sorts as (ascending): sign-magnitude flipped, as the sort documents.
fn float_key(bits: u32) -> u32 {
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

/// The rows at ranks `ranges` (ascending, disjoint) of the stable order of `keys` mapped by
/// `key`: each range's row numbers.
fn stable_ranks(keys: &[u32], key: fn(u32) -> u32, ranges: &[Range<usize>]) -> Vec<Vec<u32>> {
    let mut pairs: Vec<u64> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| (u64::from(key(k)) << 32) | i as u64)
        .collect();
    let mut done = 0;
    let mut out = Vec::new();
    for r in ranges {
        let rest = &mut pairs[done..];
        let from = r.start - done;
        if from < rest.len() {
            rest.select_nth_unstable(from);
        }
        let tail = &mut rest[from..];
        let count = r.len().min(tail.len());
        if count < tail.len() {
            tail.select_nth_unstable(count);
        }
        tail[..count].sort_unstable();
        out.push(tail[..count].iter().map(|&p| p as u32).collect());
        done = r.end;
    }
    out
}

/// The sampled ranks: the first, middle and last 4096 rows of `n`.
fn sampled(n: u64) -> Vec<Range<usize>> {
    let n = n as usize;
    let k = 4096.min(n);
    let mid = (n / 2).saturating_sub(k / 2).max(k);
    let last = n - k;
    let mut ranges = Vec::with_capacity(3);
    ranges.push(0..k);
    if mid + k <= last {
        ranges.push(mid..mid + k);
    }
    if last >= k {
        ranges.push(last..n);
    }
    ranges
}

/// What a case writes: sorted keys, sorted values, row ids.
#[derive(Clone, Copy)]
enum Kind {
    Keys,
    Pairs,
    Ids,
}

/// Compares the sampled rows of the outputs with the host's stable order of `keys`.
fn check(
    gpu: &Gpu,
    kind: Kind,
    keys: &wgpu::Buffer,
    values: Option<&wgpu::Buffer>,
    key: fn(u32) -> u32,
    n: u64,
    outputs: (&wgpu::Buffer, Option<&wgpu::Buffer>),
) -> Result<(), String> {
    let key_words = words(&read_range(gpu, keys, 0, n * 4)?);
    let value_words = match values {
        Some(v) => words(&read_range(gpu, v, 0, n * 4)?),
        None => Vec::new(),
    };
    let ranges = sampled(n);
    for (range, rows) in ranges.iter().zip(stable_ranks(&key_words, key, &ranges)) {
        let at = range.start as u64 * 4;
        let len = range.len() as u64 * 4;
        let first = words(&read_range(gpu, outputs.0, at, len)?);
        let want_keys: Vec<u32> = rows.iter().map(|&r| key_words[r as usize]).collect();
        let (want_first, want_second): (Vec<u32>, Option<Vec<u32>>) = match kind {
            Kind::Keys => (want_keys, None),
            Kind::Ids => (rows.clone(), None),
            Kind::Pairs => (
                want_keys,
                Some(rows.iter().map(|&r| value_words[r as usize]).collect()),
            ),
        };
        if first != want_first {
            return Err(format!("rows {range:?} differ from the stable order"));
        }
        if let (Some(want), Some(out)) = (want_second, outputs.1)
            && words(&read_range(gpu, out, at, len)?) != want
        {
            return Err(format!(
                "values of rows {range:?} differ from the stable order"
            ));
        }
    }
    Ok(())
}

/// The tunings measured: the default, and with `variants` keys per invocation, tiles per
/// workgroup and the ranking without subgroups.
fn tunings(variants: bool) -> Vec<(String, OpsConfig, SortOptions)> {
    let mut out = vec![(
        String::new(),
        OpsConfig::default(),
        SortOptions::ascending(),
    )];
    if variants {
        for per in [8u32, 16, 24] {
            let config = OpsConfig {
                rows_per_thread: Some(per),
                ..OpsConfig::default()
            };
            out.push((format!(" r{per}"), config, SortOptions::ascending()));
        }
        for tiles in [2u32, 4, 16] {
            let options = SortOptions::ascending().with_tiles_per_workgroup(tiles);
            out.push((format!(" t{tiles}"), OpsConfig::default(), options));
        }
        let config = OpsConfig {
            subgroups: false,
            ..OpsConfig::default()
        };
        out.push((" splits".to_owned(), config, SortOptions::ascending()));
    }
    out
}

/// A plan's work, bytes moved and dispatch count.
struct Planned {
    work: Work,
    bytes: u64,
    dispatches: usize,
}

impl Planned {
    fn new<T: 'static>(plan: OpPlan<T>) -> Planned {
        Planned {
            bytes: plan.bytes_moved(),
            dispatches: plan.dispatches(),
            work: Work::Pass(Box::new(move |pass| plan.encode(pass))),
        }
    }
}

fn view(buffer: &wgpu::Buffer, format: VertexFormat, n: u64) -> Result<GpuDataView<'_>, String> {
    GpuDataView::new(buffer, format, n, 0, None).map_err(|e| e.to_string())
}

/// `argsort_by_2`: the permutation of `size / 8` rows by a `uint32` key, then a `float32` one,
/// one whole call (several submissions); checked at the sampled ranks against the host's
/// stable order of the two keys.
fn two_keys(gpu: &Gpu, size: u64) -> Result<Vec<Case>, String> {
    let n = size / 8;
    let first = alloc(gpu, n * 4, 62, Some(Fill::Bits))?;
    let second = alloc(gpu, n * 4, 63, Some(Fill::UnitF32))?;
    let out: std::rc::Rc<std::cell::RefCell<Option<gpudata::GpuData>>> = Default::default();
    let call = {
        let (gpu, first, second, out) = (gpu.clone(), first.clone(), second.clone(), out.clone());
        move || {
            let keys = [
                ops::SortKey::new(view(&first, VertexFormat::Uint32, n)?),
                ops::SortKey::new(view(&second, VertexFormat::Float32, n)?),
            ];
            let order = ops::argsort_by(&gpu, &keys).map_err(|e| e.to_string())?;
            *out.borrow_mut() = Some(order);
            Ok(())
        }
    };
    let verify = Box::new(move |gpu: &Gpu| {
        let a = words(&read_range(gpu, &first, 0, n * 4)?);
        let b = words(&read_range(gpu, &second, 0, n * 4)?);
        let order = out.borrow();
        let order = order.as_ref().ok_or("argsort_by did not run")?;
        let mut rows: Vec<u128> = (0..n as usize)
            .map(|i| (u128::from(a[i]) << 64) | (u128::from(float_key(b[i])) << 32) | i as u128)
            .collect();
        rows.sort_unstable();
        for range in sampled(n) {
            let got = words(&read_range(
                gpu,
                order.buffer(),
                range.start as u64 * 4,
                range.len() as u64 * 4,
            )?);
            let want: Vec<u32> = rows[range.clone()].iter().map(|&r| r as u32).collect();
            if got != want {
                return Err(format!("rows {range:?} differ from the stable order"));
            }
        }
        Ok(())
    }) as crate::cases::Verify;
    // Each key read by its sort and the second by a gather, the permutation written twice.
    let mut case = Case::new(
        "argsort_by_2".to_owned(),
        n * 4 * 5,
        Work::Call(Box::new(call)),
        format!("[{n} rows, 2 keys]"),
        Some(verify),
    );
    case.rows = Some(n);
    Ok(vec![case])
}

/// Builds the cases of group `name` over `size` bytes of keys.
pub fn build(gpu: &Gpu, name: &str, size: u64, variants: bool) -> Result<Vec<Case>, String> {
    if name == "argsort_by_2" {
        return two_keys(gpu, size);
    }
    let n = size / 4;
    let big = name == "big_sort_u32";
    if big {
        let binding = gpu.limits().max_storage_buffer_binding_size;
        if size <= binding {
            return Err(format!(
                "{} MiB of keys fit one storage binding ({} MiB): give --size-mib above it",
                size >> 20,
                binding >> 20
            ));
        }
        if n > u64::from(u32::MAX) {
            return Err(format!("{n} keys: the sort takes at most {}", u32::MAX));
        }
        let buffer = gpu.limits().max_buffer_size;
        if size > buffer {
            return Err(format!(
                "{} MiB of keys do not fit one buffer ({} MiB): this device binds every byte of a buffer in one binding",
                size >> 20,
                buffer >> 20
            ));
        }
    }
    let mut cases = Vec::new();
    let (format, fill, kind) = match name {
        "sort_u32" | "big_sort_u32" => (VertexFormat::Uint32, Fill::Bits, Kind::Keys),
        "sort_pairs_u32" => (VertexFormat::Uint32, Fill::Bits, Kind::Pairs),
        _ => (VertexFormat::Float32, Fill::UnitF32, Kind::Ids),
    };
    let key: fn(u32) -> u32 = if format == VertexFormat::Float32 {
        float_key
    } else {
        |k| k
    };
    let keys = alloc(gpu, size, 60, Some(fill))?;
    let values = match kind {
        Kind::Pairs => Some(alloc(gpu, size, 61, Some(Fill::Bits))?),
        _ => None,
    };
    for (i, (label, config, options)) in tunings(variants && !big).into_iter().enumerate() {
        let column = view(&keys, format, n)?;
        let (plan, outputs) = match (kind, &values) {
            (Kind::Pairs, Some(v)) => {
                let plan = ops::plan_sort_pairs(
                    gpu,
                    column,
                    view(v, VertexFormat::Uint32, n)?,
                    &options,
                    &config,
                )
                .map_err(|e| e.to_string())?;
                let out = (
                    plan.output().keys.buffer().clone(),
                    Some(plan.output().values.buffer().clone()),
                );
                (Planned::new(plan), out)
            }
            (Kind::Ids, _) => {
                let plan =
                    ops::plan_argsort(gpu, column, &options, &config).map_err(|e| e.to_string())?;
                let out = (plan.output().buffer().clone(), None);
                (Planned::new(plan), out)
            }
            _ => {
                let plan =
                    ops::plan_sort(gpu, column, &options, &config).map_err(|e| e.to_string())?;
                let out = (plan.output().buffer().clone(), None);
                (Planned::new(plan), out)
            }
        };
        // The default tuning is checked (the variants write the same bytes by construction of
        // the tests; checking each would read the keys back again).
        let verify = (i == 0).then(|| {
            let keys = keys.clone();
            let values = values.clone();
            Box::new(move |gpu: &Gpu| {
                check(
                    gpu,
                    kind,
                    &keys,
                    values.as_ref(),
                    key,
                    n,
                    (&outputs.0, outputs.1.as_ref()),
                )
            }) as crate::cases::Verify
        });
        let parts = if big {
            format!(
                ", {} binding parts",
                (n * 4).div_ceil(gpu.limits().max_storage_buffer_binding_size)
            )
        } else {
            String::new()
        };
        let mut case = Case::new(
            format!("{name}{label}"),
            plan.bytes,
            plan.work,
            format!("[{n} keys, {} dispatches{parts}]", plan.dispatches),
            verify,
        );
        case.rows = Some(n);
        cases.push(case);
    }
    Ok(cases)
}
