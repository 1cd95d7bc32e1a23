use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Light {
    color: [f32; 4],
    #[gpu(wgsl = "array<f32, 4>")]
    weights: [f32; 4],
}

// `Light` is fine in storage, but its `array<f32, 4>` has a stride of 4, which the uniform
// rules refuse: the error names the member inside the nested type.
#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct Scene {
    count: u32,
    lights: [Light; 2],
}

fn main() {}
