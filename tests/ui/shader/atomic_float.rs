// WGSL's atomics are `atomic<i32>` and `atomic<u32>`: an `atomic<f32>` member stores no `f32`
// field (naga parses it, behind a capability of its validator), while `atomic<u32>` stores `u32`.
use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "atomics.wgsl", shader_struct = "Counters")]
struct Counters {
    hits: u32,
    total: f32,
}

fn main() {}
