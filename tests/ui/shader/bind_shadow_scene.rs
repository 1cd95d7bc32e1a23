// The shadow example's scene (examples/shadow/) with three deliberate mistakes, each refused at
// its field: `num_lights` declared `[u32; 3]` where the shader's `Globals` has a `vec4<u32>`;
// `Light`'s `proj` and `pos` swapped; the vertex normal as `[u8; 4]` (uint8x4), which cannot feed
// `vs_main`'s `vec4<i32>` input.
use gpudata::data::{GpuUniform, GpuUniformArray};
use gpudata::{GpuBindGroup, GpuStruct, TypedGpuData};

#[derive(Clone, Copy, GpuStruct)]
#[gpu(
    layout = "packed",
    shader = "../../../examples/shadow/shadow.wgsl",
    vertex_entry = "vs_bake, vs_main"
)]
struct Vertex {
    position: [i8; 4],
    normal: [u8; 4],
}

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct Globals {
    #[gpu(wgsl = "mat4x4<f32>")]
    view_proj: [[f32; 4]; 4],
    num_lights: [u32; 3],
}

#[derive(Clone, Copy, GpuStruct)]
struct Light {
    pos: [f32; 4],
    #[gpu(wgsl = "mat4x4<f32>")]
    proj: [[f32; 4]; 4],
    color: [f32; 4],
}

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct Entity {
    #[gpu(wgsl = "mat4x4<f32>")]
    world: [[f32; 4]; 4],
    color: [f32; 4],
}

#[derive(GpuBindGroup)]
#[bind_group(
    shader = "../../../examples/shadow/shadow.wgsl",
    group = 0,
    entry = "vs_main",
    entry = "fs_main"
)]
struct Forward<'a> {
    globals: &'a GpuUniform<Globals>,
    lights: &'a TypedGpuData<Light>,
    #[binding(texture = "2d-array", sample = "depth")]
    shadow_maps: &'a wgpu::TextureView,
    #[binding(sampler = "comparison")]
    shadow_sampler: &'a wgpu::Sampler,
}

#[derive(GpuBindGroup)]
#[bind_group(shader = "../../../examples/shadow/shadow.wgsl", group = 1)]
struct Locals<'a> {
    entity: &'a GpuUniformArray<Entity>,
}

fn main() {
    let _ = Vertex::vertex_buffer_layout();
}
