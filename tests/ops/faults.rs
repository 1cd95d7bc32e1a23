//! Fault injection through every operation: inputs of another device, plans run on another
//! device, inputs destroyed or changed after planning, and a lost device. Each fault returns
//! `OpError::Gpu` with the typed device error; none reaches wgpu's default handler (which
//! panics), and no test installs a handler of its own.

use gpudata::data::DEFAULT_USAGE;
use gpudata::ops::{self, ArithmeticOp, OpError, OpsConfig};
use gpudata::{Gpu, GpuData, GpuDataStructFormat, GpuError, StructLayout, VertexFormat};

use crate::support::{
    assert_other_device, assert_validation, f32s, floats, fresh_gpu, gpu, other_gpu,
};

/// `values` as float64 word pairs (`uint32x2`), fround's input.
fn doubles(gpu: &Gpu, values: &[f64]) -> GpuData {
    let words: Vec<u32> = values
        .iter()
        .flat_map(|v| {
            let bits = v.to_bits();
            [bits as u32, (bits >> 32) as u32]
        })
        .collect();
    GpuData::from_slice(gpu, VertexFormat::Uint32x2, &words, DEFAULT_USAGE).unwrap()
}

fn pair() -> GpuDataStructFormat {
    GpuDataStructFormat::parse(StructLayout::Packed, [("a", "float32"), ("b", "float32")]).unwrap()
}

/// Every operation over `a` and `b` (float32 columns of equal length) and `rows` (rows of
/// [`pair`]) and `words` (float64 pairs) on `gpu`, by name: what each returned, outputs read
/// back on `gpu`.
fn every_operation(
    gpu: &Gpu,
    a: &GpuData,
    b: &GpuData,
    rows: &GpuData,
    words: &GpuData,
) -> Vec<(&'static str, Result<Vec<f32>, OpError>)> {
    let read = |r: Result<GpuData, OpError>| r.map(|d| f32s(&d.read_bytes(gpu).unwrap()));
    let (va, vb) = (a.as_view().unwrap(), b.as_view().unwrap());
    vec![
        ("add", read(ops::add(gpu, a, b))),
        ("subtract", read(ops::subtract(gpu, a, 1.0))),
        ("multiply", read(ops::multiply(gpu, va, vb))),
        ("divide", read(ops::divide(gpu, 2.0, b))),
        (
            "arithmetic",
            read(ops::arithmetic(
                gpu,
                ArithmeticOp::Add,
                &[va.into(), vb.into()],
            )),
        ),
        ("interleave", read(ops::interleave(gpu, &[va, vb], &pair()))),
        (
            "deinterleave",
            ops::deinterleave(gpu, rows, None).map(|columns| {
                columns
                    .iter()
                    .flat_map(|c| f32s(&c.read_bytes(gpu).unwrap()))
                    .collect()
            }),
        ),
        (
            "deinterleave_views",
            ops::deinterleave_views(gpu, &[rows.get_child("b").unwrap()])
                .map(|columns| f32s(&columns[0].read_bytes(gpu).unwrap())),
        ),
        (
            "fround",
            ops::fround(gpu, words.as_view().unwrap()).map(|d| f32s(&d.read_bytes(gpu).unwrap())),
        ),
    ]
}

#[test]
fn another_devices_inputs_are_refused_by_every_operation() {
    let (gpu, other) = (gpu(), other_gpu());
    let a = floats(&other, &[1.0, 2.0]);
    let b = floats(&other, &[4.0, 8.0]);
    let rows = ops::interleave(
        &other,
        &[a.as_view().unwrap(), b.as_view().unwrap()],
        &pair(),
    )
    .unwrap();
    let words = doubles(&other, &[2.0, 0.5]);
    for (op, result) in every_operation(&gpu, &a, &b, &rows, &words) {
        let Err(OpError::Gpu { source, .. }) = &result else {
            panic!("{op} on another device's data: {result:?}");
        };
        assert_other_device(source, "plan an operation");
    }
    // On their own device the same calls give the CPU's answers.
    let results: Vec<_> = every_operation(&other, &a, &b, &rows, &words)
        .into_iter()
        .map(|(op, r)| (op, r.unwrap_or_else(|e| panic!("{op}: {e}"))))
        .collect();
    let expect = |op| {
        results
            .iter()
            .find(|(o, _)| *o == op)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    assert_eq!(expect("add"), [5.0, 10.0]);
    assert_eq!(expect("subtract"), [0.0, 1.0]);
    assert_eq!(expect("multiply"), [4.0, 16.0]);
    assert_eq!(expect("divide"), [0.5, 0.25]);
    assert_eq!(expect("interleave"), [1.0, 4.0, 2.0, 8.0]);
    assert_eq!(expect("deinterleave"), [1.0, 2.0, 4.0, 8.0]);
    assert_eq!(expect("deinterleave_views"), [4.0, 8.0]);
    assert_eq!(expect("fround"), [2.0, 0.0, 0.5, 0.0]);
}

#[test]
fn a_plan_runs_only_on_its_own_device() {
    let (gpu, other) = (gpu(), other_gpu());
    let a = floats(&gpu, &[1.0, 2.0]);
    let plan = ops::plan_arithmetic(
        &gpu,
        &OpsConfig::default(),
        ArithmeticOp::Add,
        &[a.as_view().unwrap().into(), 1.0.into()],
    )
    .unwrap();
    let Err(OpError::Gpu { op: "add", source }) = plan.run(&other) else {
        panic!("a plan ran on another device");
    };
    assert_other_device(&source, "submit the kernels");
}

#[test]
fn inputs_destroyed_after_planning_are_refused() {
    let gpu = fresh_gpu();
    let config = OpsConfig::default();
    let a = floats(&gpu, &[1.0; 64]);
    let b = floats(&gpu, &[2.0; 64]);
    let rows =
        ops::interleave(&gpu, &[a.as_view().unwrap(), b.as_view().unwrap()], &pair()).unwrap();
    let add = ops::plan_arithmetic(
        &gpu,
        &config,
        ArithmeticOp::Multiply,
        &[a.as_view().unwrap().into(), b.as_view().unwrap().into()],
    )
    .unwrap();
    let interleave = ops::plan_interleave(
        &gpu,
        &config,
        &[a.as_view().unwrap(), b.as_view().unwrap()],
        &pair(),
    )
    .unwrap();
    let deinterleave = ops::plan_deinterleave(&gpu, &config, &rows, None).unwrap();
    let words = doubles(&gpu, &[2.0]);
    let fround = ops::plan_fround(&gpu, &config, words.as_view().unwrap()).unwrap();
    a.destroy();
    rows.destroy();
    let destroyed = |result: Result<(), OpError>, name: &str| {
        let Err(OpError::Gpu { source, .. }) = &result else {
            panic!("{name} ran over a destroyed input: {result:?}");
        };
        assert_validation(source, "submit the kernels", "destroyed");
    };
    destroyed(add.run(&gpu).map(drop), "multiply");
    destroyed(interleave.run(&gpu).map(drop), "interleave");
    destroyed(deinterleave.run(&gpu).map(drop), "deinterleave");
    // fround's input was not destroyed: it still runs and is right.
    let split = fround.run(&gpu).unwrap();
    assert_eq!(f32s(&split.read_bytes(&gpu).unwrap())[..2], [2.0, 0.0]);
    assert!(!gpu.is_lost());
}

#[test]
fn a_lost_device_is_reported_by_every_operation() {
    let gpu = fresh_gpu();
    let a = floats(&gpu, &[1.0, 2.0]);
    let b = floats(&gpu, &[4.0, 8.0]);
    let rows =
        ops::interleave(&gpu, &[a.as_view().unwrap(), b.as_view().unwrap()], &pair()).unwrap();
    let words = doubles(&gpu, &[2.0, 0.5]);
    let plan = ops::plan_fround(&gpu, &OpsConfig::default(), words.as_view().unwrap()).unwrap();
    gpu.device().destroy();
    for (op, result) in every_operation(&gpu, &a, &b, &rows, &words) {
        let Err(OpError::Gpu {
            source: GpuError::DeviceLost { .. },
            ..
        }) = &result
        else {
            panic!("{op} on a lost device: {result:?}");
        };
    }
    let Err(OpError::Gpu {
        source: GpuError::DeviceLost { .. },
        ..
    }) = plan.run(&gpu)
    else {
        panic!("a plan ran on a lost device");
    };
}
