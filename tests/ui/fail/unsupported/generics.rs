use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Vertex<T: Copy + 'static> {
    position: T,
}

fn main() {}
