// One disagreement of each kind inside nested types, each at its field: an array whose element
// struct is longer in the shader (its stride), a nested member the shader lacks, a nested
// member the host lacks, a nested struct the shader sizes otherwise (`@size`).
use gpudata::GpuStruct;

#[derive(GpuStruct, Clone, Copy)]
struct Narrow {
    a: [f32; 4],
}

#[derive(GpuStruct, Clone, Copy)]
struct Pair {
    a: f32,
    b: f32,
}

#[derive(GpuStruct, Clone, Copy)]
struct Extra {
    a: f32,
}

#[derive(GpuStruct, Clone, Copy)]
struct Sized {
    a: f32,
}

#[derive(GpuStruct, Clone, Copy)]
#[gpu(shader = "nested.wgsl", shader_struct = "Members")]
struct Members {
    wides: [Narrow; 2],
    pair: Pair,
    extra: Extra,
    sized: Sized,
}

fn main() {}
