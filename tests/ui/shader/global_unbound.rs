// A storage global the shader declares without @group/@binding: named at `shader_global`.
use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "unbound.wgsl", shader_global = "unbound", group = 0, binding = 0)]
struct P {
    a: f32,
}

fn main() {}
