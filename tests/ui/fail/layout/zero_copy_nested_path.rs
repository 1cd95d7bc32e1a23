use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
struct Light {
    color: [f32; 4],
    // Columns 12 bytes apart on the host, 16 on the GPU.
    #[gpu(wgsl = "mat3x3<f32>")]
    basis: [[f32; 3]; 3],
    #[gpu(padding)]
    _pad: [u8; 12],
}

// The message names the member inside the nested type whose bytes differ.
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(zero_copy)]
struct Scene {
    lights: [Light; 2],
}

fn main() {}
