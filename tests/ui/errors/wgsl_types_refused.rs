use gpudata::GpuStruct;

// WGSL matrices hold only floating-point components.
#[derive(Clone, Copy, GpuStruct)]
struct IntegerMatrix {
    #[gpu(wgsl = "mat4x4<i32>")]
    m: [[i32; 4]; 4],
}

// WGSL atomics hold only `u32` or `i32`.
#[derive(Clone, Copy, GpuStruct)]
struct FloatAtomic {
    #[gpu(wgsl = "atomic<f32>")]
    a: f32,
}

// Atomics live in `var<storage, read_write>` or `var<workgroup>`, never in `var<uniform>`.
#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct UniformAtomic {
    #[gpu(wgsl = "atomic<u32>")]
    counter: u32,
}

// A WGSL fixed-size array has at least one element.
#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-storage")]
struct Empty {
    a: f32,
    none: [f32; 0],
}

fn main() {}
