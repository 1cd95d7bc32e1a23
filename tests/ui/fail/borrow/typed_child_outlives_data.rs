// A typed child view cannot outlive the typed data it came from.
use gpudata::{Gpu, GpuStruct, TypedGpuData};

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
struct Particle {
    position: [f32; 3],
    mass: f32,
}

fn main() {
    let gpu = Gpu::headless().unwrap();
    let rows = [Particle { position: [0.0; 3], mass: 1.0 }];
    let data = TypedGpuData::from_rows(&gpu, &rows, gpudata::data::DEFAULT_USAGE).unwrap();
    let mass = data.get_child::<particle_fields::Mass>();
    drop(data);
    let _ = mass.read(&gpu);
}
