//! Names the WGSL declaration of a `wgsl-storage` or `wgsl-uniform` struct cannot use, refused
//! when the derive expands (the runtime's `WgslError::InvalidName` and `PredeclaredName`, which
//! `StructDecl::wgsl` would return later): a field named after a WGSL reserved word (`meta`),
//! a keyword (`r#loop`), the same through `#[gpu(name)]`, a field path and a leading `__` as
//! `#[gpu(name)]`, a uniform struct's field, and struct names WGSL reserves or predeclares.
//! `packed` structs keep such names (`tests/ui/pass/packed_free_names.rs`).
use gpudata::GpuStruct;

#[derive(Clone, Copy, GpuStruct)]
struct Reserved {
    meta: f32,
    r#loop: u32,
}

#[derive(Clone, Copy, GpuStruct)]
struct Renamed {
    #[gpu(name = "loop")]
    looped: f32,
    #[gpu(name = "meta")]
    metadata: f32,
    #[gpu(name = "light.color")]
    color: [f32; 4],
    #[gpu(name = "__x")]
    x: f32,
}

#[derive(Clone, Copy, GpuStruct)]
#[gpu(layout = "wgsl-uniform")]
struct Uniforms {
    filter: [f32; 4],
}

#[derive(Clone, Copy, GpuStruct)]
#[allow(non_camel_case_types)]
struct vec4f {
    x: f32,
}

#[derive(Clone, Copy, GpuStruct)]
#[allow(non_camel_case_types)]
struct r#static {
    x: f32,
}

fn main() {}
