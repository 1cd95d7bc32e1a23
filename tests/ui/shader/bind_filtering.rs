// wgpu's filtering rule over the pairs an entry point samples together: `heights` is declared
// unfilterable and `ids` holds integers, each sampled through a filtering sampler (the default):
// refused at the sampler's field, naming the texture. A depth texture through a filtering
// sampler is accepted, as wgpu accepts it.
use gpudata::GpuBindGroup;

#[derive(GpuBindGroup)]
#[bind_group(shader = "filtering.wgsl", group = 0, entry = "fs_main")]
struct Terrain<'a> {
    #[binding(sample = "unfilterable-float")]
    heights: &'a wgpu::TextureView,
    height_sampler: &'a wgpu::Sampler,
    #[binding(sample = "uint")]
    ids: &'a wgpu::TextureView,
    id_sampler: &'a wgpu::Sampler,
    #[binding(sample = "depth")]
    depth: &'a wgpu::TextureView,
    depth_sampler: &'a wgpu::Sampler,
}

fn main() {}
