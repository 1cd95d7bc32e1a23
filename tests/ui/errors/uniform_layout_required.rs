use gpudata::data::{GpuUniform, GpuUniformArray};
use gpudata::{Gpu, GpuStruct};

// A uniform buffer requires `UniformLayout`, which the derive implements for
// `#[gpu(layout = "wgsl-uniform")]` structs only: another struct is an error at the call (E0277,
// reported by `cargo check` too).

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
