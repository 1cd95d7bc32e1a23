// Samplers: `shadow_sampler` is a `sampler_comparison`, bound as a filtering sampler (the
// default); `color_sampler` is a `sampler`, bound as a comparison one.
use gpudata::data::{GpuStorage, GpuUniform};
use gpudata::record::RuntimeArray;
use gpudata::{GpuBindGroup, GpuStruct, TypedGpuData};

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct Camera {
    #[gpu(wgsl = "mat4x4<f32>")]
    view: [[f32; 4]; 4],
    eye: [f32; 4],
}

#[derive(Clone, Copy, GpuStruct)]
struct Light {
    #[gpu(wgsl = "mat4x4<f32>")]
    proj: [[f32; 4]; 4],
    pos: [f32; 4],
    color: [f32; 4],
}

#[derive(Clone, Copy, GpuStruct)]
struct Hits {
    total: u32,
    items: RuntimeArray<u32>,
}

#[derive(GpuBindGroup)]
#[bind_group(shader = "bind_group.wgsl", group = 0, entry = "vs_main", entry = "fs_main")]
struct Scene<'a> {
    camera: &'a GpuUniform<Camera>,
    lights: &'a TypedGpuData<Light>,
    #[binding(read_write)]
    hits: &'a GpuStorage<Hits>,
    #[binding(texture = "2d-array", sample = "depth")]
    shadow: &'a wgpu::TextureView,
    shadow_sampler: &'a wgpu::Sampler,
    color: &'a wgpu::TextureView,
    #[binding(sampler = "comparison")]
    color_sampler: &'a wgpu::Sampler,
}

fn main() {}
