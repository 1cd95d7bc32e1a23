// Globals the entry points use must all be bound: `fs_main` uses `lights` and `hits`, which no
// field binds (at the `entry` naming it); `camera` is seen by `vs_main` and `fs_main`, so a
// `visibility` hiding it from the vertex stage is refused; `vs_only` names no entry point.
use gpudata::data::GpuUniform;
use gpudata::{GpuBindGroup, GpuStruct};

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct Camera {
    #[gpu(wgsl = "mat4x4<f32>")]
    view: [[f32; 4]; 4],
    eye: [f32; 4],
}

#[derive(GpuBindGroup)]
#[bind_group(shader = "bind_group.wgsl", group = 0, entry = "vs_main", entry = "fs_main")]
struct Scene<'a> {
    #[binding(visibility = "fragment")]
    camera: &'a GpuUniform<Camera>,
    #[binding(texture = "2d-array", sample = "depth")]
    shadow: &'a wgpu::TextureView,
    #[binding(sampler = "comparison")]
    shadow_sampler: &'a wgpu::Sampler,
    color: &'a wgpu::TextureView,
    color_sampler: &'a wgpu::Sampler,
}

#[derive(GpuBindGroup)]
#[bind_group(shader = "bind_group.wgsl", group = 0, entry = "vs_only")]
struct Vertex<'a> {
    camera: &'a GpuUniform<Camera>,
}

fn main() {}
