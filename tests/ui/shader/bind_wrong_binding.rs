// Binding numbers written out must be the shader's: `camera` is @binding(0) in bind_group.wgsl,
// not 5 (at the number); `color_sampler` names a global of another name that the shader lacks.
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
    #[binding(5)]
    camera: &'a GpuUniform<Camera>,
    lights: &'a TypedGpuData<Light>,
    #[binding(read_write)]
    hits: &'a GpuStorage<Hits>,
    #[binding(texture = "2d-array", sample = "depth")]
    shadow: &'a wgpu::TextureView,
    #[binding(sampler = "comparison")]
    shadow_sampler: &'a wgpu::Sampler,
    color: &'a wgpu::TextureView,
    #[binding(global = "color_smp")]
    color_sampler: &'a wgpu::Sampler,
}

fn main() {}
