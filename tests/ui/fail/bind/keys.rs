// `#[derive(GpuBindGroup)]` without a shader: a field without a binding number or stages, keys
// of another resource (a texture key on a uniform, a buffer key on a sampler), a `wgpu::Buffer`
// that does not say how it binds, a storage texture without its format, a field that owns its
// resource, a type parameter, two fields of one binding, unknown keys and values.
use gpudata::GpuStruct;
use gpudata::GpuBindGroup;
use gpudata::data::GpuUniform;

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct Params {
    scale: f32,
}

#[derive(GpuBindGroup)]
struct Missing<'a> {
    params: &'a GpuUniform<Params>,
}

#[derive(GpuBindGroup)]
#[bind_group(visibility = "compute")]
struct WrongKeys<'a> {
    #[binding(0, texture = "2d")]
    params: &'a GpuUniform<Params>,
    #[binding(1, read_write)]
    sampler: &'a wgpu::Sampler,
    #[binding(2)]
    raw: &'a wgpu::Buffer,
}

#[derive(GpuBindGroup)]
#[bind_group(visibility = "compute | vertex")]
struct Shapes<'a, T> {
    #[binding(0, storage_texture = "2d")]
    image: &'a wgpu::TextureView,
    #[binding(1)]
    owned: wgpu::Sampler,
    #[binding(1)]
    other: &'a T,
}

#[derive(GpuBindGroup)]
#[bind_group(visibility = "fragment")]
struct Twice<'a> {
    #[binding(0)]
    params: &'a GpuUniform<Params>,
    #[binding(0, uniform)]
    raw: &'a wgpu::Buffer,
}

#[derive(GpuBindGroup)]
#[bind_group(group = 0, visibility = "geometry", layout = "packed")]
struct Unknown<'a> {
    #[binding(0, sample = "half", access = "write_only", color)]
    image: &'a wgpu::TextureView,
}

fn main() {}
