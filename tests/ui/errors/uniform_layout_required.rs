use gpudata::uniform::{GpuUniform, GpuUniformArray};
use gpudata::{Gpu, GpuStruct};

// `GpuUniform::new` asserts in a `const` block that `T` has the uniform layout: a
// post-monomorphization error, reported by `cargo build` (trybuild builds: `pass/` cases run too).

// A `wgsl-storage` struct (the default layout), not laid out by the uniform rules.
#[derive(Clone, Copy, GpuStruct)]
struct Storage {
    a: [f32; 4],
}

fn single(gpu: &Gpu) {
    let _ = GpuUniform::new(gpu, &Storage { a: [0.0; 4] });
}

fn several(gpu: &Gpu) {
    let _ = GpuUniformArray::<Storage>::new(gpu, &[Storage { a: [0.0; 4] }]);
}

fn main() {
    let gpu: Option<Gpu> = None;
    if let Some(gpu) = gpu {
        single(&gpu);
        several(&gpu);
    }
}
