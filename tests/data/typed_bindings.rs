//! Every typed buffer gives its binding's `min_binding_size` and bind group layout entry, and
//! wgpu takes them: one compute pipeline with an explicit layout made only of those entries
//! (wgpu checks each `min_binding_size` against the shader's type at pipeline creation) reads a
//! uniform, a uniform array at a dynamic offset, typed rows as storage (with spare zeroed rows
//! from `TypedGpuData::with_capacity`) and typed rows as a uniform array.

use gpudata::data::{BufferHandle, GpuUniform, GpuUniformArray, UniformError};
use gpudata::{GpuData, GpuDataDescriptor, GpuError, GpuStruct, TypedGpuData};

use crate::support::device::{gpu, validation_error};
use crate::support::probe::{compute_capture_at, shader};

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct Params {
    scale: [f32; 4],
    tag: u32,
}

/// A smaller uniform, to show that wgpu refuses a layout entry sized by another struct.
#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct Small {
    tag: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, GpuStruct)]
struct Row {
    weight: f32,
    id: u32,
}

const WGSL: &str = "
struct Params { scale: vec4<f32>, tag: u32 }
struct Row { weight: f32, id: u32 }
@group(0) @binding(0) var<uniform> one: Params;
@group(0) @binding(1) var<uniform> each: Params;
@group(0) @binding(2) var<storage, read> rows: array<Row>;
@group(0) @binding(3) var<uniform> table: array<Params, 2>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1) fn main() {
    out[0] = one.tag;
    out[1] = each.tag;
    out[2] = arrayLength(&rows);
    out[3] = rows[1].id;
    out[4] = rows[3].id;
    out[5] = table[1].tag;
}
";

fn params(tag: u32) -> Params {
    Params {
        scale: [1.0; 4],
        tag,
    }
}

#[test]
fn typed_buffers_give_layout_entries_wgpu_takes() {
    let gpu = gpu();
    let device = gpu.device();
    let stages = wgpu::ShaderStages::COMPUTE;
    let one = GpuUniform::new(&gpu, &params(7)).unwrap();
    let each = GpuUniformArray::new(&gpu, &[params(1), params(2), params(3)]).unwrap();
    let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    let rows = [
        Row {
            weight: 0.5,
            id: 10,
        },
        Row {
            weight: 1.5,
            id: 11,
        },
    ];
    // Two rows and two spare, zeroed ones.
    let spare = TypedGpuData::with_capacity(&gpu, &rows, 4, storage).unwrap();
    assert_eq!(spare.as_data().length(), 4);
    assert_eq!(
        spare.read_rows(&gpu).unwrap(),
        [rows[0], rows[1], Row::default(), Row::default()]
    );
    let table =
        TypedGpuData::from_rows(&gpu, &[params(20), params(21)], wgpu::BufferUsages::UNIFORM)
            .unwrap();
    assert_eq!(
        GpuUniformArray::<Params>::min_binding_size(),
        GpuUniform::<Params>::min_binding_size()
    );
    assert_eq!(TypedGpuData::<Row>::min_binding_size().get(), 8);
    let mut entries = vec![
        GpuUniform::<Params>::layout_entry(0, stages),
        GpuUniformArray::<Params>::layout_entry(1, stages),
        TypedGpuData::<Row>::storage_layout_entry(2, stages, true),
        table.uniform_layout_entry(3, stages),
    ];
    let resources = [
        wgpu::BindingResource::Buffer(one.binding()),
        wgpu::BindingResource::Buffer(each.binding()),
        wgpu::BindingResource::Buffer(spare.as_data().storage_binding(&gpu).unwrap()),
        wgpu::BindingResource::Buffer(table.uniform_binding(&gpu).unwrap()),
    ];
    let group_entries: Vec<wgpu::BindGroupEntry<'_>> = resources
        .into_iter()
        .zip(0..)
        .map(|(resource, binding)| wgpu::BindGroupEntry { binding, resource })
        .collect();
    // `compute_capture_at` fails on any validation error: wgpu took every entry.
    let words = compute_capture_at(
        &gpu,
        WGSL,
        entries.clone(),
        group_entries,
        (4, 6),
        1,
        &[each.offset(2).unwrap()],
    );
    assert_eq!(words, [7, 3, 4, 11, 0, 21]);

    // The oracle refuses an entry sized by another struct.
    entries[0] = GpuUniform::<Small>::layout_entry(0, stages);
    let module = shader(&gpu, "typed bindings", WGSL);
    let (_, error) = validation_error(&gpu, || {
        let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("typed bindings"),
            entries: &entries,
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("typed bindings"),
            bind_group_layouts: &[Some(&bgl)],
            immediate_size: 0,
        });
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("typed bindings"),
            layout: Some(&layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        })
    });
    assert!(error.is_some(), "a 16-byte entry for a 32-byte uniform");
}

#[test]
fn typed_rows_as_a_uniform_say_what_stops_them() {
    let gpu = gpu();
    let values = [params(1), params(2)];
    let storage_only = TypedGpuData::from_rows(&gpu, &values, wgpu::BufferUsages::STORAGE).unwrap();
    assert!(matches!(
        storage_only.uniform_binding(&gpu),
        Err(UniformError::Gpu(GpuError::MissingUsage { .. }))
    ));
    // Rows at byte offset 16 of a uniform buffer, where the device binds uniforms at 32 or more
    // (lavapipe: 32).
    let usage = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_SRC;
    let zeroed = TypedGpuData::<Params>::zeroed(&gpu, 4, usage).unwrap();
    let alignment = gpu.limits().min_uniform_buffer_offset_alignment;
    assert!(alignment > 16, "{alignment}");
    let handle = BufferHandle::Shared(zeroed.as_data().buffer().clone());
    let shifted = GpuData::new(
        handle,
        GpuDataDescriptor::new(Params::FORMAT, 3).with_byte_offset(16),
    )
    .unwrap();
    let shifted = TypedGpuData::<Params>::try_from_data(shifted).unwrap();
    let e = shifted.uniform_binding(&gpu).unwrap_err();
    assert_eq!(
        e,
        UniformError::OffsetAlignment {
            byte_offset: 16,
            alignment
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "cannot bind rows at byte offset 16 as a uniform: the device binds uniforms at multiples of {alignment} bytes (min_uniform_buffer_offset_alignment)"
        )
    );
    let zero = Params {
        scale: [0.0; 4],
        tag: 0,
    };
    assert_eq!(zeroed.read_rows(&gpu).unwrap(), [zero; 4]);
}
