// `impl_gpu_field!` only takes plain data: a type with a reference is refused.
#[derive(Clone, Copy)]
struct Label(&'static str);

gpudata::impl_gpu_field!(Label => Uint32x4);

fn main() {}
