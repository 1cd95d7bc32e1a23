//! Attribute syntax the derive refuses: a bare `#[gpu]`, a `fields` module name that is not an
//! identifier, an integer that does not fit its type.
use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
#[gpu]
struct Bare {
    value: f32,
}

#[derive(Clone, Copy, GpuStruct)]
#[gpu(fields = "not a module")]
struct BadModule {
    value: f32,
}

#[derive(Clone, Copy, GpuStruct)]
#[gpu(location = 5000000000)]
struct BigLocation {
    value: f32,
}

fn main() {}
