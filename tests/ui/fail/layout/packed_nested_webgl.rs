use gpudata::GpuStruct;

// A WebGL-only leaf deep inside a packed row: the message names the leaf's path.
#[derive(Clone, Copy, GpuStruct)]
struct Legacy {
    position: [f32; 3],
    ids: [u16; 3],
}

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "packed")]
struct Instance {
    #[gpu(wgsl = "mat4x4<f32>")]
    transform: [[f32; 4]; 4],
    legacy: [Legacy; 2],
}

fn main() {}
