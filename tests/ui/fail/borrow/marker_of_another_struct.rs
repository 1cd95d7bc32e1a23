// `get_child` takes only markers of the data's own struct.
use gpudata::{Gpu, GpuStruct, TypedGpuData};

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
struct Particle {
    position: [f32; 3],
    mass: f32,
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
struct Light {
    intensity: f32,
}

fn main() {
    let gpu = Gpu::headless().unwrap();
    let rows = [Particle { position: [0.0; 3], mass: 1.0 }];
    let data = TypedGpuData::from_rows(&gpu, &rows, gpudata::data::DEFAULT_USAGE).unwrap();
    let _ = data.get_child::<light_fields::Intensity>();
}
