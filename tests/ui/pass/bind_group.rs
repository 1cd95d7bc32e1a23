// `#[derive(GpuBindGroup)]` structs that compile: one checked against the shader (every
// binding and stage from the wgsl), one written out without a shader, and the run-time check.
use gpudata::bind::{GpuBindGroup, pipeline_layout};
use gpudata::data::{GpuStorage, GpuUniform};
use gpudata::record::RuntimeArray;
use gpudata::{GpuStruct, TypedGpuData};

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

#[derive(gpudata::GpuBindGroup)]
#[bind_group(shader = "../shader/bind_group.wgsl", group = 0, entry = "vs_main", entry = "fs_main")]
struct Scene<'a> {
    camera: &'a GpuUniform<Camera>,
    lights: &'a TypedGpuData<Light>,
    #[binding(read_write)]
    hits: &'a GpuStorage<Hits>,
    #[binding(texture = "2d-array", sample = "depth")]
    shadow: &'a wgpu::TextureView,
    #[binding(sampler = "comparison")]
    shadow_sampler: &'a wgpu::Sampler,
    color: &'a wgpu::TextureView,
    color_sampler: &'a wgpu::Sampler,
}

#[derive(gpudata::GpuBindGroup)]
#[bind_group(group = 1, visibility = "vertex | fragment", label = "per entity")]
struct Entity<'a> {
    #[binding(0)]
    camera: &'a GpuUniform<Camera>,
    #[binding(1, visibility = "fragment", uniform)]
    raw: &'a wgpu::Buffer,
}

fn main() {
    let entries = Scene::layout_entries();
    assert_eq!(entries[0].visibility, wgpu::ShaderStages::VERTEX_FRAGMENT);
    assert_eq!(entries[1].visibility, wgpu::ShaderStages::FRAGMENT);
    assert_eq!(Entity::LABEL, "per entity");
    let _ = pipeline_layout::<(Scene<'_>, Entity<'_>)>;
}
