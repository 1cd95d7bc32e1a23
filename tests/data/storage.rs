//! Device truth for storage layouts: a wgsl-storage derived struct is read by a compute shader
//! that declares the row with the WGSL text gpudata generates, and copied member by member into
//! a second buffer; the bytes must come back identical (so every member offset and the row
//! stride agree between gpudata, naga and the device).

use crate::support;

use crate::support::Rng;
use gpudata::{
    BufferHandle, GpuData, GpuDataDescriptor, GpuStruct, TypedGpuData, Unorm8x4, Unorm10_10_10_2,
};
use half::f16;

#[derive(Clone, Copy, Debug, PartialEq, GpuStruct)]
#[repr(C)]
struct Particle {
    position: [f32; 3],
    mass: f32,
    velocity: [f32; 2],
    id: u32,
    color: Unorm8x4,
    half4: [f16; 4],
    flags: [u16; 2],
    tint: Unorm10_10_10_2,
    cell: [i32; 3],
    tag: u8,
    legacy: [u16; 3],
}

fn particle(rng: &mut Rng) -> Particle {
    Particle {
        position: [rng.f32(), rng.f32(), rng.f32()],
        mass: rng.f32(),
        velocity: [rng.f32(), rng.f32()],
        id: rng.next_u32(),
        color: Unorm8x4(rng.array()),
        half4: std::array::from_fn(|_| f16::from_f32(rng.f32())),
        flags: [rng.next_u32() as u16, rng.next_u32() as u16],
        tint: Unorm10_10_10_2(rng.next_u32()),
        cell: std::array::from_fn(|_| rng.next_u32() as i32),
        tag: rng.next_u32() as u8,
        legacy: std::array::from_fn(|_| rng.next_u32() as u16),
    }
}

/// Copies `src` to `dst` member by member with the generated struct text.
fn copy_shader() -> String {
    let row = Particle::FORMAT.wgsl_struct("Particle").unwrap();
    let mut wgsl = row;
    wgsl += "@group(0) @binding(0) var<storage, read> src: array<Particle>;\n";
    wgsl += "@group(0) @binding(1) var<storage, read_write> dst: array<Particle>;\n";
    wgsl +=
        "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n";
    wgsl += "    let i = id.x;\n    if i >= arrayLength(&src) { return; }\n";
    for field in Particle::FORMAT.fields() {
        wgsl += &format!("    dst[i].{0} = src[i].{0};\n", field.name());
    }
    wgsl += "}\n";
    wgsl
}

fn run_copy(gpu: &gpudata::Gpu, src: &GpuData, dst: &GpuData) {
    let module = support::shader(gpu, "storage copy", &copy_shader());
    let pipeline = gpu
        .device()
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("storage copy"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
    let bind_group = gpu.device().create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(src.storage_binding(gpu).unwrap()),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Buffer(dst.storage_binding(gpu).unwrap()),
            },
        ],
    });
    let mut encoder = gpu
        .device()
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups((src.length() as u32).div_ceil(64), 1, 1);
    }
    gpu.queue().submit([encoder.finish()]);
}

#[test]
fn the_generated_struct_is_the_storage_layout() {
    let text = Particle::FORMAT.wgsl_struct("Particle").unwrap();
    assert!(text.contains("    position: vec3<f32>,\n"), "{text}");
    assert!(
        text.contains("    color: u32, // unorm8x4: unpack4x8unorm(color)\n"),
        "{text}"
    );
    assert!(
        text.contains("    legacy: vec2<u32>, // uint16x3-webgl\n"),
        "{text}"
    );
    assert!(
        !text.contains("@size"),
        "wgsl-storage rows need no explicit sizes: {text}"
    );
}

#[test]
fn a_compute_shader_copies_every_member_with_the_generated_struct() {
    let gpu = support::gpu();
    let mut rng = Rng::new(42);
    let rows: Vec<Particle> = (0..300).map(|_| particle(&mut rng)).collect();
    let src = TypedGpuData::from_rows(&gpu, &rows, gpudata::data::DEFAULT_USAGE).unwrap();
    let dst = GpuData::zeroed(&gpu, Particle::FORMAT, 300, gpudata::data::DEFAULT_USAGE).unwrap();
    run_copy(&gpu, src.as_data(), &dst);
    let copied = dst.read_bytes(&gpu).unwrap();
    assert_eq!(copied.len(), src.as_data().byte_length() as usize);
    assert_eq!(copied, src.as_data().read_bytes(&gpu).unwrap());
    let dst = TypedGpuData::<Particle>::try_from_data(dst).unwrap();
    assert_eq!(dst.read_rows(&gpu).unwrap(), rows);
}

#[test]
fn rows_at_an_aligned_offset_bind_and_copy_too() {
    let gpu = support::gpu();
    let alignment = u64::from(gpu.limits().min_storage_buffer_offset_alignment);
    let stride = Particle::FORMAT.byte_stride();
    let n = 70u64;
    let buffer = support::buffer(&gpu, alignment + n * stride, gpudata::data::DEFAULT_USAGE);
    let src = GpuData::new(
        BufferHandle::Shared(buffer),
        GpuDataDescriptor::new(Particle::FORMAT, n).with_byte_offset(alignment),
    )
    .unwrap();
    let src = TypedGpuData::<Particle>::try_from_data(src).unwrap();
    let mut rng = Rng::new(7);
    let rows: Vec<Particle> = (0..n).map(|_| particle(&mut rng)).collect();
    src.write_rows(&gpu, 0, &rows).unwrap();
    let dst = GpuData::zeroed(&gpu, Particle::FORMAT, n, gpudata::data::DEFAULT_USAGE).unwrap();
    run_copy(&gpu, src.as_data(), &dst);
    let dst = TypedGpuData::<Particle>::try_from_data(dst).unwrap();
    assert_eq!(dst.read_rows(&gpu).unwrap(), rows);
}
