use gpudata::GpuStruct;

// A wgsl-storage struct may hold `-webgl` formats (as `u32` carriers), but no wgpu vertex
// attribute reads one: asking for its vertex layout fails at the field, never leaving it out.
#[derive(Clone, Copy, GpuStruct)]
struct Legacy {
    weight: f32,
    #[gpu(format = "snorm16x3-webgl")]
    normal: [i16; 3],
    rgb: [u8; 3],
}

fn main() {
    let _ = Legacy::vertex_buffer_layout();
}
