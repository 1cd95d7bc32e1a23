use gpudata::{data::GpuUniform, record::UniformLayout};
use gpudata::{Gpu, GpuStruct};

// `UniformLayout` implemented by hand for a struct of another layout: the uniform buffer's own
// `const` assertion refuses it when `GpuUniform::new` is instantiated (a post-monomorphization
// error, reported by `cargo build`; trybuild builds because `pass/` cases are in the same run).
#[derive(Clone, Copy, GpuStruct)]
struct Storage {
    a: [f32; 4],
}

impl UniformLayout for Storage {}

fn single(gpu: &Gpu) {
    let _ = GpuUniform::new(gpu, &Storage { a: [0.0; 4] });
}

fn main() {
    let gpu: Option<Gpu> = None;
    if let Some(gpu) = gpu {
        single(&gpu);
    }
}
