use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "packed", zero_copy)]
struct Vertex {
    position: [f32; 3],
}

fn main() {}
