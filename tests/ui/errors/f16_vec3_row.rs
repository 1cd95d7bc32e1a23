use gpudata::GpuStruct;

// A `vec3<f16>` has no vertex format, so a struct holding one has no row format.
#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-storage")]
struct Vector {
    #[gpu(wgsl = "vec3<f16>")]
    v: [u16; 3],
}

// Neither does a `matCx3<f16>` column.
#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-storage")]
struct Matrix {
    #[gpu(wgsl = "mat2x3<f16>")]
    m: [[u16; 3]; 2],
}

fn main() {}
