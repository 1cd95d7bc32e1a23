use gpudata::GpuStruct;

// The host puts 3 bytes of implicit padding inside `Tagged` (between `tag` and `weight`): the
// packed row leaves a gap there too, but the host bytes are not initialized data.
#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
struct Tagged {
    tag: u8,
    weight: f32,
}

#[derive(Clone, Copy, GpuStruct)]
#[repr(C)]
#[gpu(layout = "packed", zero_copy)]
struct Instance {
    #[gpu(wgsl = "mat4x4<f32>")]
    transform: [[f32; 4]; 4],
    tagged: Tagged,
}

fn main() {}
