use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
enum Shape {
    Circle,
    Square,
}

fn main() {}
