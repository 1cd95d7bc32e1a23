// `impl_gpu_field!` checks that the type is as long as the format it names.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Rgb([u8; 3]);

gpudata::impl_gpu_field!(Rgb => Unorm8x4);

fn main() {}
