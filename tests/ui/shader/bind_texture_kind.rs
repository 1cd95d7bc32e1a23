// Texture kinds: `shadow` is a `texture_depth_2d_array`; bound as a 2d texture (dimension) and,
// in a second struct, as a 2d-array of float samples (sample type); `color` bound multisampled;
// a buffer where the shader has a texture.
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
#[bind_group(shader = "bind_group.wgsl", group = 0, entry = "fs_main")]
struct Dimension<'a> {
    camera: &'a GpuUniform<Camera>,
    lights: &'a TypedGpuData<Light>,
    #[binding(read_write)]
    hits: &'a GpuStorage<Hits>,
    #[binding(sample = "depth")]
    shadow: &'a wgpu::TextureView,
    #[binding(sampler = "comparison")]
    shadow_sampler: &'a wgpu::Sampler,
    #[binding(multisampled)]
    color: &'a wgpu::TextureView,
    color_sampler: &'a wgpu::Sampler,
}

#[derive(GpuBindGroup)]
#[bind_group(shader = "bind_group.wgsl", group = 0, entry = "fs_main")]
struct Sample<'a> {
    camera: &'a GpuUniform<Camera>,
    lights: &'a TypedGpuData<Light>,
    #[binding(read_write)]
    hits: &'a GpuStorage<Hits>,
    #[binding(texture = "2d-array")]
    shadow: &'a wgpu::TextureView,
    #[binding(sampler = "comparison")]
    shadow_sampler: &'a wgpu::Sampler,
    #[binding(uniform)]
    color: &'a wgpu::Buffer,
    color_sampler: &'a wgpu::Sampler,
}

fn main() {}
